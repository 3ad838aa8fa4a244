"""MultiSimilarityDataset, the registered multi-similarity sets and `proxlearn info` on them."""

import json

import numpy as np
import pytest

from proxlearn.cli import main
from proxlearn.datasets import (
    MULTI_REGISTRY,
    MultiSimilarityDataset,
    SimilarityDataset,
    list_datasets,
    load_dataset,
)
from proxlearn.exceptions import LabelError, SimilarityMatrixError


def _two(n=10, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    y = np.arange(n) % 3
    return (SimilarityDataset(A + A.T, y, name="a"), SimilarityDataset(np.eye(n), y, name="b"))


def test_from_datasets_views_average_subset():
    a, b = _two()
    ds = MultiSimilarityDataset.from_datasets([a, b])
    assert (ds.n, ds.m, ds.name, ds.matrix_names) == (10, 2, "a+b", ("a", "b"))
    assert ds.matrix is ds.matrices and ds.matrix.shape == (10, 10, 2)
    np.testing.assert_array_equal(ds.view("b").matrix, np.eye(10))
    np.testing.assert_array_equal(ds.view(0).matrix, a.matrix)
    np.testing.assert_allclose(ds.average().matrix, (a.matrix + np.eye(10)) / 2)
    sub = ds.subset([0, 2])
    keep = np.isin(a.labels, [0, 2])
    assert sub.m == 2 and sub.n == keep.sum()
    np.testing.assert_array_equal(sub.matrices[:, :, 0], a.matrix[np.ix_(keep, keep)])
    # the study runner's slicing takes every matrix at once
    rows = np.array([1, 4, 7])
    np.testing.assert_array_equal(ds.matrix[np.ix_(rows, rows)][:, :, 1], np.eye(3))


def test_misaligned_or_bad_input_is_refused():
    a, b = _two()
    c = SimilarityDataset(b.matrix, b.labels[::-1], name="c")
    with pytest.raises(LabelError, match="different labels"):
        MultiSimilarityDataset.from_datasets([a, c])
    d = SimilarityDataset(np.eye(9), np.arange(9) % 3, name="d")
    with pytest.raises(SimilarityMatrixError, match="do not cover the same objects"):
        MultiSimilarityDataset.from_datasets([a, d])
    bad = np.stack([a.matrix, b.matrix], -1)
    bad[2, 3, 1] = np.nan
    with pytest.raises(SimilarityMatrixError, match="matrix 1"):
        MultiSimilarityDataset(bad, a.labels)
    with pytest.raises(SimilarityMatrixError, match="np.moveaxis"):
        MultiSimilarityDataset(np.zeros((2, 10, 10)), a.labels)
    with pytest.raises(SimilarityMatrixError, match="one per matrix"):
        MultiSimilarityDataset(np.zeros((10, 10, 2)), a.labels, matrix_names=("x",))
    with pytest.raises(SimilarityMatrixError, match="no matrix 'z'"):
        MultiSimilarityDataset.from_datasets([a, b]).view("z")


def test_registered_digits_multi_is_aligned_with_digits_idm():
    ds = load_dataset("digits-multi")
    idm = load_dataset("digits-idm")
    assert isinstance(ds, MultiSimilarityDataset) and ds.m == 3 and ds.n == 400
    np.testing.assert_array_equal(ds.view("digits-idm").matrix, idm.matrix)
    np.testing.assert_array_equal(ds.labels, idm.labels)
    for i in range(3):
        assert np.allclose(np.diag(ds.matrices[:, :, i]), 1.0)
    # the pixel RBF and the IDM agree on which digits are alike (same objects, same order)
    same = ds.labels[:, None] == ds.labels[None]
    for i in range(3):
        S = ds.matrices[:, :, i]
        assert S[same].mean() > S[~same].mean()
    names = {r.name: r for r in list_datasets()}
    assert all(names[k].available for k in ("digits-multi",))
    assert set(MULTI_REGISTRY) <= set(names)


def test_info_on_a_multi_similarity_set(capsys, tmp_path):
    assert main(["info", "digits-multi", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["m"] == 3 and [d["name"] for d in info["matrices"]] == [
        "digits-multi[digits-idm]", "digits-multi[digits-rbf]", "digits-multi[digits-hog]"]
    assert info["matrices"][0]["n_negative_eigenvalues"] > 0  # the IDM is indefinite
    corr = np.array(info["correlation"])
    assert corr.shape == (3, 3) and np.allclose(np.diag(corr), 1.0)
    assert main(["info", "digits-multi", "--plot", str(tmp_path / "d.png")]) == 0
    out = capsys.readouterr().out
    assert "3 similarity matrices over the same 400 objects" in out
    assert "digits-multi[digits-hog]" in out and "correlation" in out
    assert all((tmp_path / f"d-{i}.png").is_file() for i in range(3))


def test_matrices_follow_the_library_stack_convention():
    a, b = _two()
    stack = np.stack([a.matrix, b.matrix], -1)
    listed = MultiSimilarityDataset([a.matrix, b.matrix], a.labels)  # a list is stacked
    np.testing.assert_array_equal(listed.matrices, stack)
    one = MultiSimilarityDataset(a.matrix, a.labels)  # one (n, n) matrix: m = 1
    assert one.m == 1 and one.matrix_names == ("S0",)
    bad = stack.copy()
    bad[2, 3, 1] = np.nan
    with pytest.raises(SimilarityMatrixError, match=r"matrix 1 \('S1'\) of data set"):
        MultiSimilarityDataset(bad, a.labels)
    with pytest.raises(SimilarityMatrixError, match=r"matrix 1 \('b'\) of data set 'x'"):
        MultiSimilarityDataset(bad, a.labels, name="x", matrix_names=("a", "b"))
