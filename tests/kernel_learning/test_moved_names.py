"""Public names that moved out of proxlearn.kernel_learning (issue 36): ESKL, EMKL, REKL
and their CV variants to proxlearn.mkl; the pairwise-constraint family (SimpleNPKL,
NPKL, SimpleNPKLCV, the kNN Laplacian, the held-out scores) to proxlearn.cluster. The
old import path still works, with a FutureWarning, and gives the same objects."""

import warnings

import pytest

import proxlearn.cluster as cluster
import proxlearn.kernel_learning as kl
import proxlearn.mkl as mkl

MOVED_TO_MKL = ["ESKL", "EMKL", "REKL", "ESKLCV", "EMKLCV", "REKLCV"]
MOVED_TO_CLUSTER = ["NPKL", "SimpleNPKL", "SimpleNPKLCV", "knn_graph", "knn_laplacian",
                    "held_out_agreement", "held_out_auc", "constraint_groups"]
MOVED = [(name, mkl) for name in MOVED_TO_MKL] + [(name, cluster) for name in MOVED_TO_CLUSTER]
IDS = [name for name, _ in MOVED]


@pytest.mark.parametrize("name,home", MOVED, ids=IDS)
def test_the_old_attribute_warns_and_is_the_new_object(name, home):
    with pytest.warns(FutureWarning, match=f"{home.__name__} import {name}"):
        obj = getattr(kl, name)
    assert obj is getattr(home, name)
    assert name in home.__all__ and name not in kl.__all__


@pytest.mark.parametrize("name,home", MOVED, ids=IDS)
def test_from_import_warns_once(name, home):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace = {}
        exec(f"from proxlearn.kernel_learning import {name} as obj", namespace)
    assert [w.category for w in caught] == [FutureWarning]
    assert namespace["obj"] is getattr(home, name)


def test_other_names_are_not_aliased():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kl.SimMKL  # noqa: B018  (still kernel_learning's own: no warning)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        kl.NoSuchName  # noqa: B018
