"""Every built-in measure of pairwise_similarity against the library's own per-pair call."""

import math

import numpy as np
import parasail
import pytest
from dtaidistance import dtw
from rapidfuzz.distance import Hamming, Indel, JaroWinkler, Levenshtein

from proxlearn.datasets import make_mutated_strings
from proxlearn.exceptions import InvalidParameterError, ObjectListError
from proxlearn.pairwise import METRICS, get_metric, metric_kind, pairwise_similarity

STRINGS = ["kitten", "sitting", "", "abc", "abd", "kitchen", "a longer string here"]
PROTEINS = ["HEAGAWGHEE", "PAWHEAE", "MKVLAAGIVG", "AWGHE", "MSTNPKPQRKTKRNTNRRPQDVKFPGG"]
DNA = ["ACGTACGT", "ACGTTGCA", "GGGACCCT", "ACGAN"]

RAPIDFUZZ = {
    "levenshtein": Levenshtein.distance,
    "levenshtein-similarity": Levenshtein.normalized_similarity,
    "indel": Indel.distance,
    "indel-similarity": Indel.normalized_similarity,
    "hamming": Hamming.distance,
    "jaro-winkler": JaroWinkler.similarity,
}


def _direct(f, X, Y=None):
    Y = X if Y is None else Y
    return np.array([[f(a, b) for b in Y] for a in X], dtype=np.float64)


@pytest.mark.parametrize("name", sorted(RAPIDFUZZ))
def test_string_metrics_equal_rapidfuzz_per_pair(name):
    S = pairwise_similarity(STRINGS, metric=name, block_size=3)
    np.testing.assert_array_equal(S, _direct(RAPIDFUZZ[name], STRINGS))
    assert S.dtype == np.float64
    T = pairwise_similarity(STRINGS[:3], STRINGS[2:], metric=name, block_size=2)
    np.testing.assert_array_equal(T, _direct(RAPIDFUZZ[name], STRINGS[:3], STRINGS[2:]))


def test_jaro_winkler_prefix_weight_is_passed():
    S = pairwise_similarity(STRINGS, metric="jaro-winkler", metric_params={"prefix_weight": 0.2})
    ref = _direct(lambda a, b: JaroWinkler.similarity(a, b, prefix_weight=0.2), STRINGS)
    np.testing.assert_array_equal(S, ref)
    assert not np.array_equal(S, pairwise_similarity(STRINGS, metric="jaro-winkler"))


def _parasail(algo, a, b, matrix="blosum62", go=11, ge=1):
    # the plain (non-SIMD) reference implementation of parasail
    return float(getattr(parasail, algo)(a, b, go, ge, parasail.Matrix(matrix)).score)


@pytest.mark.parametrize(("name", "algo"), [("smith-waterman", "sw"), ("needleman-wunsch", "nw")])
def test_alignment_scores_equal_parasail_reference(name, algo):
    S = pairwise_similarity(PROTEINS, metric=name, block_size=2)
    np.testing.assert_array_equal(S, _direct(lambda a, b: _parasail(algo, a, b), PROTEINS))
    params = {"matrix": "nuc44", "gap_open": 5, "gap_extend": 2}
    D = pairwise_similarity(DNA, metric=name, metric_params=params)
    np.testing.assert_array_equal(
        D, _direct(lambda a, b: _parasail(algo, a, b, "nuc44", 5, 2), DNA))


@pytest.mark.parametrize(("name", "algo"), [("smith-waterman", "sw"), ("needleman-wunsch", "nw")])
def test_normalized_alignment_is_cosine_of_scores(name, algo):
    S = pairwise_similarity(PROTEINS, metric=f"{name}-normalized", block_size=2)
    f = lambda a, b: _parasail(algo, a, b)  # noqa: E731
    ref = _direct(lambda a, b: f(a, b) / math.sqrt(f(a, a) * f(b, b)), PROTEINS)
    np.testing.assert_allclose(S, ref, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(np.diag(S), 1.0)


def test_long_sequences_do_not_saturate():
    # 8-bit lanes saturate at 127: the _sat routines must recompute with 16/32 bits
    a = "ACDEFGHIKLMNPQRSTVWY" * 30
    S = pairwise_similarity([a, a[5:]], metric="smith-waterman")
    assert S[0, 0] == _parasail("sw", a, a) > 1000
    assert S[0, 1] == _parasail("sw", a, a[5:])


def test_dtw_equals_dtaidistance_per_pair_variable_lengths():
    rng = np.random.default_rng(0)
    series = [rng.normal(size=rng.integers(3, 20)) for _ in range(9)]
    D = pairwise_similarity(series, metric="dtw", block_size=4)
    np.testing.assert_array_equal(D, _direct(dtw.distance_fast, series))
    T = pairwise_similarity(series[:4], series[4:], metric="dtw", block_size=3)
    np.testing.assert_array_equal(T, _direct(dtw.distance_fast, series[:4], series[4:]))
    W = pairwise_similarity(series, metric="dtw", metric_params={"window": 3})
    np.testing.assert_array_equal(
        W, _direct(lambda a, b: dtw.distance_fast(a, b, window=3), series))


def _jaccard(a, b):
    return 1.0 if not (a | b) else len(a & b) / len(a | b)


def test_jaccard_tanimoto_and_distance_equal_set_formula():
    rng = np.random.default_rng(1)
    sets = [set(rng.choice(30, size=rng.integers(0, 12), replace=False).tolist())
            for _ in range(11)] + [set(), {"a", "b"}, {"b", ("t", 1)}]
    ref = _direct(_jaccard, sets)
    np.testing.assert_array_equal(pairwise_similarity(sets, metric="jaccard", block_size=4), ref)
    np.testing.assert_array_equal(pairwise_similarity(sets, metric="tanimoto"), ref)
    np.testing.assert_array_equal(pairwise_similarity(sets, metric="jaccard-distance"), 1.0 - ref)
    T = pairwise_similarity(sets[:5], [frozenset(s) for s in sets[5:]], metric="jaccard")
    np.testing.assert_array_equal(T, ref[:5, 5:])


def test_callable_metric_asymmetric_by_default():
    calls = []

    def f(a, b):
        calls.append((a, b))
        return len(a) - 2 * len(b)

    S = pairwise_similarity(STRINGS, metric=f, block_size=3)
    np.testing.assert_array_equal(S, _direct(f, STRINGS))
    assert len(calls) == 2 * len(STRINGS) ** 2  # every ordered pair, in both calls above


def test_symmetric_callable_called_once_per_unordered_pair():
    calls = []

    def f(a, b):
        calls.append(frozenset([a, b]) if a != b else a)
        return Levenshtein.distance(a, b)

    X = [s for s in STRINGS if s]
    S = pairwise_similarity(X, metric=f, symmetric=True, block_size=2)
    np.testing.assert_array_equal(S, _direct(Levenshtein.distance, X))
    n = len(X)
    assert len(calls) == n * (n + 1) // 2 and len(set(calls)) == len(calls)


def test_kinds_are_declared_and_match_the_diagonal():
    rng = np.random.default_rng(2)
    objects = {"strings": STRINGS[:4], "sequences": PROTEINS[:4],
               "series": [rng.normal(size=5) for _ in range(4)],
               "sets": [{1, 2}, {2}, {3, 4}, {1, 4}]}
    for name, m in METRICS.items():
        assert metric_kind(name) == m.kind == get_metric(name).kind
        S = pairwise_similarity(objects[m.objects], metric=name)
        np.testing.assert_array_equal(S, S.T)
        off = S[~np.eye(4, dtype=bool)].reshape(4, 3)
        if m.kind == "dissimilarity":  # d(a, a) = 0 <= d(a, b)
            np.testing.assert_array_equal(np.diag(S), 0.0)
            assert np.all(off >= 0)
        else:  # s(a, a) is the row's maximum
            assert np.all(np.diag(S)[:, None] >= off)


def test_unknown_metric_and_parameters():
    with pytest.raises(InvalidParameterError, match="unknown metric 'levenstein'"):
        pairwise_similarity(STRINGS, metric="levenstein")
    with pytest.raises(InvalidParameterError, match="does not take gap_open"):
        pairwise_similarity(STRINGS, metric="levenshtein", metric_params={"gap_open": 3})
    with pytest.raises(InvalidParameterError, match="unknown substitution matrix 'blosum99'"):
        pairwise_similarity(PROTEINS, metric="smith-waterman",
                            metric_params={"matrix": "blosum99"})
    with pytest.raises(InvalidParameterError, match="gap_open must be a non-negative integer"):
        pairwise_similarity(PROTEINS, metric="smith-waterman", metric_params={"gap_open": 2.5})
    with pytest.raises(InvalidParameterError, match="returns a dissimilarity"):
        pairwise_similarity(STRINGS, metric="levenshtein", kind="similarity")


def test_bad_objects_are_named():
    with pytest.raises(ObjectListError, match=r"object 1 \(seq2\) is an empty sequence"):
        pairwise_similarity(["ACD", "", "EF"], metric="smith-waterman", ids=["a", "seq2", "c"])
    with pytest.raises(ObjectListError, match=r"object 2 has letter\(s\) '1J' \(first at position 3\)"):
        pairwise_similarity(["ACD", "EF", "AC1JJ"], metric="smith-waterman")
    with pytest.raises(ObjectListError, match="outside the alphabet of nuc44"):
        pairwise_similarity(["ACGT", "ACGE"], metric="needleman-wunsch",
                            metric_params={"matrix": "nuc44"})
    with pytest.raises(ObjectListError, match="object 1 has NaN or inf .first at position 2 of 3"):
        pairwise_similarity([[1.0, 2.0], [1.0, np.nan, 3.0]], metric="dtw")
    with pytest.raises(ObjectListError, match="object 0 must be a non-empty 1-D series"):
        pairwise_similarity([[], [1.0]], metric="dtw")
    with pytest.raises(ObjectListError, match="object 1 is a int, not a string"):
        pairwise_similarity(["a", 3], metric="levenshtein")
    with pytest.raises(ObjectListError, match="object 0 is a string; pass a set"):
        pairwise_similarity(["abc", {"a"}], metric="jaccard")
    with pytest.raises(ObjectListError, match="X is empty"):
        pairwise_similarity([], metric="levenshtein")
    with pytest.raises(ObjectListError, match="a single str"):
        pairwise_similarity("ACGT", metric="levenshtein")
    with pytest.raises(ObjectListError, match="self-score 0 <= 0"):
        pairwise_similarity(["ACGT", "N"], metric="smith-waterman-normalized",
                            metric_params={"matrix": "nuc44"})


def test_mutated_strings_are_classes_by_edit_distance():
    X, y = make_mutated_strings(60, n_classes=3, random_state=0)
    D = pairwise_similarity(X, metric="levenshtein")
    same = y[:, None] == y[None, :]
    off = ~np.eye(len(X), dtype=bool)
    assert D[same & off].mean() < 0.5 * D[~same].mean()


@pytest.mark.parametrize("params", [
    {"window": -1}, {"window": 0}, {"window": 2.5}, {"psi": -1}, {"psi": (1, 2)},
    {"psi": (0, 0, -1, 0)}, {"psi": (1, 0, 0, 1)}, {"max_step": -0.5}, {"max_step": 0}, {"max_length_diff": -1},
    {"penalty": -1.0}, {"penalty": float("nan")}, {"window": True}])
def test_dtw_parameters_out_of_range_are_refused(params):
    """A negative window returned an all-zero matrix, negative psi / max_step /
    max_length_diff infinite entries (issue #39, item 2.2)."""
    key = next(iter(params))
    with pytest.raises(InvalidParameterError, match=f"DTW parameter {key}[ =]"):
        pairwise_similarity([[1.0, 2.0, 3.0], [1.0, 3.0]], metric="dtw", metric_params=params)


def test_dtw_parameters_in_range_are_passed_on():
    series = [[1.0, 2.0, 3.0, 2.0], [1.0, 3.0, 2.0], [0.0, 1.0, 2.0, 4.0, 1.0]]
    for params in ({"window": 2}, {"psi": 1}, {"psi": (1, 0, 1, 0)}, {"max_step": 2.5},
                   {"max_length_diff": 1}, {"penalty": 0.5}):
        D = pairwise_similarity(series, metric="dtw", metric_params=params)
        expect = _direct(lambda a, b, p=params: dtw.distance_fast(
            np.asarray(a, float), np.asarray(b, float), **p), series)
        np.testing.assert_array_equal(D, expect)


def test_a_callable_returning_nan_is_named():
    """The NaN matrix came back without a word (issue #39, item 2.13)."""
    def half_defined(a, b):
        return float("nan") if "x" in a + b else float(len(a) == len(b))

    with pytest.raises(InvalidParameterError, match="half_defined returned NaN for the objects 'ab' and 'x'"):
        pairwise_similarity(["ab", "x", "cd"], metric=half_defined)
