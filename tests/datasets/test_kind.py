"""Dissimilarity files are detected and converted once at load time (issue #14)."""

import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from proxlearn.datasets import SimilarityDataset, load_dataset, load_similarity, resolve_kind
from proxlearn.exceptions import DissimilarityWarning, InvalidParameterError
from proxlearn.transforms import DissimilarityToSimilarity


def _distances(n_per_class=15, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(m, 1.0, (n_per_class, 2)) for m in (-2.0, 2.0)])
    return cdist(X, X), np.repeat([0, 1], n_per_class)


@pytest.fixture
def npz(tmp_path):
    D, y = _distances()
    path = tmp_path / "words.npz"
    np.savez(path, D=D, y=y)
    return path, D, y


def test_auto_detects_and_converts_once(npz):
    path, D, _ = npz
    with pytest.warns(DissimilarityWarning, match="detected as a dissimilarity.*s = -d") as rec:
        ds = load_similarity(path)
    assert len(rec) == 1
    assert ds.kind == "similarity" and "s = -d" in ds.conversion
    np.testing.assert_array_equal(ds.matrix, -D)
    # the same through load_dataset with a path
    with pytest.warns(DissimilarityWarning):
        np.testing.assert_array_equal(load_dataset(str(path)).matrix, -D)


@pytest.mark.parametrize("method", ["max-minus", "exp", "double-centering"])
def test_convert_chooses_the_conversion(npz, method):
    path, D, _ = npz
    with pytest.warns(DissimilarityWarning):
        ds = load_similarity(path, convert=method)
    expected = DissimilarityToSimilarity(method=method).fit_transform(D)
    np.testing.assert_allclose(ds.matrix, expected)
    assert f"method={method!r}" in ds.conversion


def test_similarity_kind_keeps_the_matrix_and_says_nothing(npz):
    path, D, _ = npz
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = load_similarity(path, kind="similarity")
    np.testing.assert_array_equal(ds.matrix, D)
    assert ds.kind == "similarity" and ds.conversion == ""


def test_declared_dissimilarity_kept_or_converted(npz):
    path, D, _ = npz
    kept = load_similarity(path, kind="dissimilarity", convert=None)
    assert kept.kind == "dissimilarity" and "not converted" in kept.conversion
    np.testing.assert_array_equal(kept.matrix, D)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # declared, not detected: no warning
        conv = load_similarity(path, kind="dissimilarity")
    np.testing.assert_array_equal(conv.matrix, -D)


def test_similarities_are_never_converted_by_auto():
    ds = load_dataset("synthetic-2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = resolve_kind(ds)
    assert out.conversion == "" and out.matrix is ds.matrix


def test_negative_conversion_is_the_same_per_fold():
    """s = -d has no parameter: converting before splitting equals converting per fold."""
    D, y = _distances()
    tr, te = np.arange(0, 30, 2), np.arange(1, 30, 2)
    ds = resolve_kind(SimilarityDataset(D, y, name="d"), "dissimilarity")
    t = DissimilarityToSimilarity(method="negative").fit(D[np.ix_(tr, tr)])
    np.testing.assert_array_equal(ds.matrix[np.ix_(tr, tr)], t.transform(D[np.ix_(tr, tr)]))
    np.testing.assert_array_equal(ds.matrix[np.ix_(te, tr)], t.transform(D[np.ix_(te, tr)]))


def test_nearest_neighbours_are_right_after_conversion(npz):
    """The silent wrong answer of the issue: k-NN on raw distances picks the farthest."""
    from proxlearn.neighbors import SimilarityKNeighborsClassifier

    path, D, y = npz
    with pytest.warns(DissimilarityWarning):
        S = load_similarity(path).matrix
    tr, te = np.arange(0, 30, 2), np.arange(1, 30, 2)
    clf = SimilarityKNeighborsClassifier(n_neighbors=3).fit(S[np.ix_(tr, tr)], y[tr])
    assert (clf.predict(S[np.ix_(te, tr)]) == y[te]).mean() > 0.9


def test_bad_kind_or_conversion():
    ds = load_dataset("synthetic-2")
    with pytest.raises(InvalidParameterError, match="kind='distance'"):
        resolve_kind(ds, "distance")
    with pytest.raises(InvalidParameterError, match="convert='cosine'"):
        resolve_kind(ds, "auto", "cosine")
