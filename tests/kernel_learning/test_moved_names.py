"""ESKL, EMKL, REKL and their CV variants moved to proxlearn.mkl (issue 36): the old
import path still works, with a FutureWarning, and gives the same classes."""

import warnings

import pytest

import proxlearn.kernel_learning as kl
import proxlearn.mkl as mkl

MOVED = ["ESKL", "EMKL", "REKL", "ESKLCV", "EMKLCV", "REKLCV"]


@pytest.mark.parametrize("name", MOVED)
def test_the_old_attribute_warns_and_is_the_mkl_class(name):
    with pytest.warns(FutureWarning, match=f"proxlearn.mkl import {name}"):
        cls = getattr(kl, name)
    assert cls is getattr(mkl, name)
    assert name in mkl.__all__ and name not in kl.__all__


@pytest.mark.parametrize("name", MOVED)
def test_from_import_warns_once(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(f"from proxlearn.kernel_learning import {name} as cls", {})
    assert [w.category for w in caught] == [FutureWarning]


def test_other_names_are_not_aliased():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kl.SimMKL  # noqa: B018  (still kernel_learning's own: no warning)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        kl.NoSuchName  # noqa: B018
