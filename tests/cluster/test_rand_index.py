"""The thesis's clustering accuracy: pairwise Rand index x 100 (Zhuang 2011, section 3.5.2)."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score, rand_score

from proxlearn.cluster import clustering_report, rand_index
from proxlearn.exceptions import LabelError


def _brute_force(a, b):
    a, b = np.asarray(a), np.asarray(b)
    n = a.size
    agree = sum((a[i] == a[j]) == (b[i] == b[j]) for i in range(n) for j in range(i))
    return 100.0 * agree / (n * (n - 1) / 2)


def test_identical_partitions_score_100_whatever_the_names():
    y = np.array([0, 0, 1, 1, 2, 2, 2])
    assert rand_index(y, y) == 100.0
    assert rand_index(y, np.array(["c", "c", "a", "a", "b", "b", "b"])) == 100.0
    assert rand_index(y, y + 10) == 100.0


@pytest.mark.parametrize("seed", range(4))
def test_invariant_to_label_permutation_and_symmetric(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, size=50)
    b = rng.integers(0, 3, size=50)
    perm = rng.permutation(3)
    assert rand_index(a, perm[b]) == rand_index(a, b)
    assert rand_index(b, a) == rand_index(a, b)


@pytest.mark.parametrize("seed, n, ka, kb", [(0, 2, 2, 2), (1, 17, 3, 5), (2, 60, 2, 2),
                                             (3, 45, 6, 1), (4, 30, 30, 4)])
def test_matches_the_brute_force_pair_count(seed, n, ka, kb):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, ka, size=n)
    b = rng.integers(0, kb, size=n)
    assert rand_index(a, b) == pytest.approx(_brute_force(a, b), abs=1e-10)
    assert rand_index(a, b) == pytest.approx(100 * rand_score(a, b), abs=1e-10)


def test_known_values_and_large_n_exactness():
    assert rand_index([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(100 * 2 / 6)
    assert rand_index([0, 0, 0, 0], [0, 1, 2, 3]) == 0.0
    assert rand_index([5], [7]) == 100.0  # no pairs
    n = 200_000  # n(n-1)/2 ~ 2e10 pairs: exact integers
    a = np.arange(n) % 2
    assert rand_index(a, a) == 100.0
    assert rand_index(a, np.arange(n) % 3) == pytest.approx(100 * rand_score(a, np.arange(n) % 3))


@pytest.mark.parametrize(
    "a, b, match",
    [
        ([0, 1, 1], [0, 1], "3 labels but labels_pred has 2"),
        ([[0, 1]], [0, 1], "1-D"),
        ([], [], "empty"),
        ([0.0, np.nan], [0, 1], "NaN"),
        (np.array([0, None], dtype=object), [0, 1], "missing"),
    ],
)
def test_bad_labels(a, b, match):
    with pytest.raises(LabelError, match=match):
        rand_index(a, b)


def test_clustering_report():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 40)
    z = rng.integers(0, 3, 40)
    rep = clustering_report(y, y[::-1][::-1])
    assert rep == {"rand_index": 100.0, "adjusted_rand_index": 1.0, "normalized_mutual_info": 1.0}
    rep = clustering_report(y, z)
    assert rep["rand_index"] == rand_index(y, z)
    assert rep["adjusted_rand_index"] == pytest.approx(adjusted_rand_score(y, z))
    assert rep["normalized_mutual_info"] == pytest.approx(normalized_mutual_info_score(y, z))
