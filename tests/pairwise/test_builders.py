"""pairwise_similarity's blocks: symmetry, block-size invariance, memmap output,
resuming an interrupted run, n_jobs and a Dask cluster give the same matrix."""

import json

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from proxlearn.datasets import make_mutated_strings
from proxlearn.exceptions import InvalidParameterError
from proxlearn.pairwise import pairwise_similarity

X, _ = make_mutated_strings(23, n_classes=3, random_state=3)


def _reference(metric, A, B=None):
    B = A if B is None else B
    return np.array([[metric(a, b) for b in B] for a in A], dtype=np.float64)


@pytest.mark.parametrize("metric", ["levenshtein", "smith-waterman-normalized", "jaccard"])
def test_block_size_invariance_and_symmetry(metric):
    objs = [set(x) for x in X] if metric == "jaccard" else X
    mats = [pairwise_similarity(objs, metric=metric, block_size=b) for b in (1, 4, 7, 23, 100)]
    for S in mats[1:]:
        np.testing.assert_array_equal(S, mats[0])
    np.testing.assert_array_equal(mats[0], mats[0].T)
    T = [pairwise_similarity(objs[:9], objs, metric=metric, block_size=b) for b in (2, 5, 50)]
    for S in T:
        np.testing.assert_array_equal(S, mats[0][:9])


def test_n_jobs_gives_the_same_matrix():
    ref = pairwise_similarity(X, metric="needleman-wunsch", block_size=5)
    np.testing.assert_array_equal(
        pairwise_similarity(X, metric="needleman-wunsch", block_size=5, n_jobs=2), ref)
    lev = pairwise_similarity(X, metric="levenshtein", block_size=4)
    np.testing.assert_array_equal(
        pairwise_similarity(X, metric="levenshtein", block_size=4, n_jobs=2), lev)
    f = pairwise_similarity(X, metric=Levenshtein.distance, block_size=6, n_jobs=2)
    np.testing.assert_array_equal(f, lev)


def test_memmap_output_equals_in_memory(tmp_path):
    ref = pairwise_similarity(X, X[:11], metric="indel", block_size=4)
    out = tmp_path / "S.npy"
    S = pairwise_similarity(X, X[:11], metric="indel", block_size=4, out=out)
    assert isinstance(S, np.memmap)
    np.testing.assert_array_equal(S, ref)
    np.testing.assert_array_equal(np.load(out), ref)
    rec = (tmp_path / "S.npy.blocks").read_text().splitlines()
    assert json.loads(rec[0])["shape"] == [23, 11]
    assert sorted(int(t) for t in rec[1:]) == list(range(6 * 3))


def test_out_must_be_npy(tmp_path):
    with pytest.raises(InvalidParameterError, match="ending in .npy"):
        pairwise_similarity(X, metric="indel", out=tmp_path / "S.npz")


# --- resuming: a module-level function, so that its fingerprint survives the rerun
CALLS = {"n": 0, "fail_after": None}


def flaky_levenshtein(a, b):
    CALLS["n"] += 1
    if CALLS["fail_after"] is not None and CALLS["n"] > CALLS["fail_after"]:
        raise RuntimeError("simulated crash")
    return Levenshtein.distance(a, b)


def test_interrupted_run_resumes_to_the_identical_matrix(tmp_path):
    out = tmp_path / "S.npy"
    ref = _reference(Levenshtein.distance, X)
    CALLS.update(n=0, fail_after=100)
    with pytest.raises(RuntimeError, match="simulated crash"):
        pairwise_similarity(X, metric=flaky_levenshtein, symmetric=True, block_size=5, out=out)
    done = [int(t) for t in (tmp_path / "S.npy.blocks").read_text().splitlines()[1:]]
    assert 0 < len(done) < 15  # 5 x 5 tiles, 15 on and above the diagonal
    CALLS.update(n=0, fail_after=None)
    seen = []
    S = pairwise_similarity(X, metric=flaky_levenshtein, symmetric=True, block_size=5,
                            out=out, progress=lambda d, t: seen.append((d, t)))
    np.testing.assert_array_equal(S, ref)
    assert seen[0] == (len(done), 15) and seen[-1] == (15, 15)
    full = 23 * 24 // 2
    assert 0 < CALLS["n"] < full  # only the pairs of the unfinished tiles
    # a rerun after the end computes nothing
    CALLS.update(n=0)
    S2 = pairwise_similarity(X, metric=flaky_levenshtein, symmetric=True, block_size=5, out=out)
    assert CALLS["n"] == 0
    np.testing.assert_array_equal(S2, ref)


def test_changed_inputs_start_over(tmp_path):
    out = tmp_path / "S.npy"
    pairwise_similarity(X, metric="levenshtein", block_size=5, out=out)
    Y = X[:-1] + ["QQQQQQQQQQQQQQQQQQQQQQ"]
    S = pairwise_similarity(Y, metric="levenshtein", block_size=5, out=out)
    np.testing.assert_array_equal(S, _reference(Levenshtein.distance, Y))
    S = pairwise_similarity(Y, metric="levenshtein", block_size=6, out=out)
    np.testing.assert_array_equal(S, _reference(Levenshtein.distance, Y))


def test_progress_callback_counts_tiles():
    seen = []
    pairwise_similarity(X, metric="levenshtein", block_size=10,
                        progress=lambda d, t: seen.append((d, t)))
    assert seen == [(0, 6), (1, 6), (2, 6), (3, 6), (4, 6), (5, 6), (6, 6)]


def test_bad_block_size_and_jobs():
    for b in (0, -3, 2.5, True):
        with pytest.raises(InvalidParameterError, match="block_size must be a positive integer"):
            pairwise_similarity(X, metric="levenshtein", block_size=b)
    with pytest.raises(InvalidParameterError, match="n_jobs=0 runs nothing"):
        pairwise_similarity(X, metric="levenshtein", n_jobs=0)


def test_bad_scheduler_address():
    with pytest.raises(InvalidParameterError, match="cannot use the Dask scheduler"):
        pairwise_similarity(X, metric="levenshtein", scheduler="nonsense://x")


@pytest.mark.parametrize("processes", [False, True])
def test_dask_local_cluster_gives_the_identical_matrix(processes, tmp_path):
    distributed = pytest.importorskip("distributed")
    ref = pairwise_similarity(X, metric="smith-waterman", block_size=6)
    ref_lev = pairwise_similarity(X, X[:7], metric="levenshtein", block_size=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=processes,
                                  dashboard_address=None) as cluster:
        S = pairwise_similarity(X, metric="smith-waterman", block_size=6,
                                scheduler=cluster.scheduler_address)
        np.testing.assert_array_equal(S, ref)
        with distributed.Client(cluster) as client:
            T = pairwise_similarity(X, X[:7], metric="levenshtein", block_size=4,
                                    scheduler=client, out=tmp_path / "T.npy")
            assert client.status == "running"  # a client given is not closed
        np.testing.assert_array_equal(T, ref_lev)


def test_tiles_are_recorded_during_the_run(tmp_path, monkeypatch):
    """With COMMIT_SECONDS = 0 every tile is flushed and recorded before the next one;
    with the default, in batches (here: all at the end, the run being short)."""
    import proxlearn.pairwise._builders as builders

    out = tmp_path / "S.npy"
    record = tmp_path / "S.npy.blocks"
    seen = []

    def progress(done, total):
        seen.append((done, len(record.read_text().splitlines()) - 1))

    monkeypatch.setattr(builders, "COMMIT_SECONDS", 0.0)
    pairwise_similarity(X, metric="indel", block_size=6, out=out, progress=progress)
    assert seen == [(d, d) for d in range(11)]  # 4 x 4 tiles, 10 in the upper triangle
    monkeypatch.setattr(builders, "COMMIT_SECONDS", 3600.0)
    seen.clear()
    pairwise_similarity(X, metric="indel", block_size=5, out=out, progress=progress)
    assert seen[-1] == (15, 0) and len(record.read_text().splitlines()) == 1 + 15
