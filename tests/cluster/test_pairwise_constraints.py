"""Pairwise constraints and the thesis's generator (Zhuang 2011, sections 3.1 and 3.5.1)."""

import numpy as np
import pytest
import scipy.sparse as sp

from proxlearn.cluster import PairwiseConstraints, make_pairwise_constraints
from proxlearn.exceptions import InvalidParameterError, LabelError


def _y(sizes=(20, 15, 25), seed=0):
    y = np.repeat(np.arange(len(sizes)), sizes)
    return y[np.random.default_rng(seed).permutation(y.size)]


# --- the class ---------------------------------------------------------------------------


def test_construction_and_views():
    pc = PairwiseConstraints([[3, 1], [0, 2], [4, 0]], [1, -1, 1], 5)
    np.testing.assert_array_equal(pc.pairs, [[1, 3], [0, 2], [0, 4]])  # stored with i < j
    assert pc.labels.tolist() == [1, -1, 1]
    assert len(pc) == pc.n_pairs == 3 and pc.n_must_link == 2 and pc.n_cannot_link == 1
    np.testing.assert_array_equal(pc.cannot_link, [[0, 2]])
    assert "must_link=2" in repr(pc)
    with pytest.raises(ValueError):
        pc.pairs[0, 0] = 4  # read-only


def test_empty_constraints():
    for pc in (PairwiseConstraints([], [], 4), PairwiseConstraints(np.empty((0, 2), int), [], 4)):
        assert len(pc) == 0 and pc.to_matrix().nnz == 0
        assert pc.n_components() == 4


@pytest.mark.parametrize(
    "pairs, labels, n, error, match",
    [
        ([[0, 5]], [1], 5, InvalidParameterError, r"0\.\.4"),
        ([[-1, 2]], [1], 5, InvalidParameterError, r"0\.\.4"),
        ([[2, 2]], [1], 5, InvalidParameterError, "itself"),
        ([[0, 1, 2]], [1], 5, InvalidParameterError, r"shape \(k, 2\)"),
        ([[0.5, 1]], [1], 5, InvalidParameterError, "integer"),
        ([["a", "b"]], [1], 5, InvalidParameterError, "integer"),
        ([[0, 1]], [0], 5, LabelError, r"\+1 \(must-link\) or -1"),
        ([[0, 1]], [2], 5, LabelError, r"\+1 \(must-link\) or -1"),
        ([[0, 1]], ["ml"], 5, LabelError, "numbers"),
        ([[0, 1]], [1, -1], 5, LabelError, "one entry per pair"),
        ([[0, 1], [1, 0]], [1, 1], 5, InvalidParameterError, "more than once"),
        ([[0, 1], [2, 3], [1, 0]], [1, 1, -1], 5, LabelError, "both must-link and cannot-link"),
        ([[0, 1]], [1], 0, InvalidParameterError, "positive integer"),
    ],
)
def test_validation_errors(pairs, labels, n, error, match):
    with pytest.raises(error, match=match):
        PairwiseConstraints(pairs, labels, n)


def test_integral_float_indices_are_accepted():
    pc = PairwiseConstraints(np.array([[0.0, 3.0]]), np.array([-1.0]), 4)
    assert pc.pairs.dtype == np.intp and pc.labels.tolist() == [-1]


def test_matrix_round_trip_dense_and_sparse():
    pc = make_pairwise_constraints(_y(), 0.7, random_state=1)
    T = pc.to_matrix()
    assert sp.issparse(T) and T.nnz == 2 * len(pc)
    D = pc.to_matrix(sparse=False)
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0) and set(np.unique(D)) <= {-1.0, 0.0, 1.0}
    i, j = pc.pairs.T
    np.testing.assert_array_equal(D[i, j], pc.labels)
    assert PairwiseConstraints.from_matrix(T) == pc
    assert PairwiseConstraints.from_matrix(D) == pc
    assert PairwiseConstraints.from_matrix(sp.coo_matrix(D)) == pc


@pytest.mark.parametrize(
    "T, error, match",
    [
        (np.array([[0, 1], [0, 0]]), InvalidParameterError, "symmetric"),
        (np.array([[0, 1], [-1, 0]]), InvalidParameterError, "symmetric"),
        (np.array([[1, 0], [0, 0]]), InvalidParameterError, "diagonal"),
        (np.array([[0, 2], [2, 0]]), LabelError, r"T\[0, 1\] = 2"),
        (np.zeros((2, 3)), InvalidParameterError, "square"),
        (np.array([[0, np.nan], [np.nan, 0]]), LabelError, "NaN"),
    ],
)
def test_from_matrix_errors(T, error, match):
    with pytest.raises(error, match=match):
        PairwiseConstraints.from_matrix(T)


def test_from_labels_and_transitive_conflicts():
    y = np.array(["a", "a", "b", "b"])
    pc = PairwiseConstraints.from_labels(y, [[0, 1], [1, 2], [3, 2]])
    assert pc.labels.tolist() == [1, -1, 1]
    assert pc.transitive_conflicts().size == 0  # labels from a partition never conflict
    noisy = PairwiseConstraints([[0, 1], [1, 2], [0, 2]], [1, 1, -1], 3)
    assert noisy.transitive_conflicts().tolist() == [2]


def test_components_of_the_two_graphs():
    pc = PairwiseConstraints([[0, 1], [1, 2], [3, 4]], [1, 1, -1], 6)
    assert pc.n_components("must-link") == 4  # {0,1,2} {3} {4} {5}
    assert pc.n_components("all") == 3  # {0,1,2} {3,4} {5}
    with pytest.raises(InvalidParameterError, match="count_edges"):
        pc.n_components("cannot-link")


# --- the generator ------------------------------------------------------------------------


@pytest.mark.parametrize("count_edges", ["must-link", "all"])
@pytest.mark.parametrize("r", [0.9, 0.7, 0.4])
def test_generator_reaches_about_r_n_components(r, count_edges):
    y = _y()
    n = y.size
    pc = make_pairwise_constraints(y, r, count_edges=count_edges, random_state=0)
    assert pc.n == n
    assert pc.n_components(count_edges) == round(r * n)
    # the shortest prefix of the random pair sequence: one pair fewer is above the target
    fewer = PairwiseConstraints(pc.pairs[:-1], pc.labels[:-1], n)
    assert fewer.n_components(count_edges) > round(r * n)


@pytest.mark.parametrize("count_edges", ["must-link", "all"])
def test_generator_labels_follow_y_and_pairs_are_distinct(count_edges):
    y = np.array(["x", "y", "z"])[_y(seed=3)]
    pc = make_pairwise_constraints(y, 0.5, count_edges=count_edges, random_state=3)
    i, j = pc.pairs.T
    np.testing.assert_array_equal(pc.labels, np.where(y[i] == y[j], 1, -1))
    assert np.all(i < j)
    assert np.unique(pc.pairs, axis=0).shape[0] == len(pc)
    assert pc.transitive_conflicts().size == 0


def test_generator_is_seeded():
    y = _y()
    a = make_pairwise_constraints(y, 0.7, random_state=5)
    b = make_pairwise_constraints(y, 0.7, random_state=5)
    c = make_pairwise_constraints(y, 0.7, random_state=6)
    np.testing.assert_array_equal(a.pairs, b.pairs)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a != c


def test_smaller_r_gives_more_constraints_and_must_link_needs_more_than_all():
    y = _y((40, 40))
    counts = [len(make_pairwise_constraints(y, r, random_state=0)) for r in (0.9, 0.7, 0.5, 0.3)]
    assert counts == sorted(counts) and counts[0] < counts[-1]
    ml = np.mean([len(make_pairwise_constraints(y, 0.7, random_state=s)) for s in range(5)])
    al = np.mean([len(make_pairwise_constraints(y, 0.7, count_edges="all", random_state=s))
                  for s in range(5)])
    assert ml > 1.5 * al


def test_must_link_reading_reproduces_table_3_7_constraint_count():
    """a1a (N = 1605, 395 positives): Table 3.7 lists 4,104 constraints. With
    must-link components stopped at 0.3 N and nnz(T) counted, the generator gives
    about that many (the module docstring's evidence for the default)."""
    y = np.r_[np.ones(395), -np.ones(1210)]
    nnz = [2 * len(make_pairwise_constraints(y, 0.3, random_state=s)) for s in range(3)]
    assert abs(np.mean(nnz) - 4104) < 0.06 * 4104
    alt = 2 * len(make_pairwise_constraints(y, 0.3, count_edges="all", random_state=0))
    assert alt < 0.7 * 4104


def test_generator_edge_cases_and_errors():
    y = _y((5, 5))
    assert len(make_pairwise_constraints(y, 1.0, random_state=0)) == 0
    with pytest.raises(InvalidParameterError, match="at least 2 components"):
        make_pairwise_constraints(y, 0.1, random_state=0)  # 1 component: classes never merge
    pc = make_pairwise_constraints(y, 0.1, count_edges="all", random_state=0)
    assert pc.n_components("all") == 1
    pc = make_pairwise_constraints(y, 0.2, random_state=0)  # as few as possible: the classes
    assert pc.n_components() == 2
    for r in (0, -0.5, 1.5, "0.7", True):
        with pytest.raises(InvalidParameterError, match="r "):
            make_pairwise_constraints(y, r)
    with pytest.raises(InvalidParameterError, match="count_edges"):
        make_pairwise_constraints(y, count_edges="cannot-link")
    with pytest.raises(LabelError):
        make_pairwise_constraints(np.array([0.0, np.nan, 1.0]))
    with pytest.raises(LabelError):
        make_pairwise_constraints(3)
