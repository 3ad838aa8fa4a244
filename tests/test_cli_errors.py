"""Bad command-line input: one line `proxlearn: error: ...` and exit 2, never a
traceback (issue #14, section 4)."""

import json

import numpy as np
import pytest

from proxlearn.cli import main


@pytest.fixture(autouse=True)
def _env(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.setenv("COLUMNS", "200")


def _one_line_error(capsys, *needles):
    err = capsys.readouterr().err.strip()
    assert err.startswith("proxlearn: error: ") and "\n" not in err, err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, err
    return err


def _npz_with_huge_header(path):
    """A valid .npz whose .npy header declares a 10^6 x 10^6 float64 matrix (8 TB)."""
    import io
    import zipfile

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("S.npy", buf.getvalue() + b"\0" * 64)


def test_npz_declaring_a_huge_shape(tmp_path, capsys):
    p = tmp_path / "huge.npz"
    _npz_with_huge_header(p)
    assert main(["info", str(p)]) == 2
    _one_line_error(capsys, "huge.npz", "1000000 x 1000000")


def test_one_class_data_set_in_study(tmp_path, capsys):
    p = tmp_path / "one.npz"
    np.savez(p, S=np.eye(6) + 0.1, y=np.zeros(6, dtype=int))
    assert main(["study", str(p), "--protocol", "custom", "--splits", "2"]) == 2
    _one_line_error(capsys, "data set 'one'", "1 class")


def test_class_with_one_member_in_study(tmp_path, capsys):
    p = tmp_path / "tiny.npz"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 2))
    np.savez(p, S=X @ X.T + 9 * np.eye(9), y=np.array([0, 0, 0, 0, 1, 1, 1, 1, 2]))
    assert main(["study", str(p), "--protocol", "custom", "--splits", "2"]) == 2
    _one_line_error(capsys, "class 2 has 1 sample")


@pytest.mark.parametrize("argv,needle", [
    (["study", "synthetic-2", "--jobs", "0"], "--jobs"),
    (["study", "synthetic-2", "--methods", ""], "--methods"),
    (["study", "synthetic-2", "--methods", " , "], "--methods"),
    (["study", "synthetic-2", "--splits", "0"], "splits must be >= 1"),
    (["study", "synthetic-2", "--test-size", "1.5"], "test size"),
    (["study", "synthetic-2", "--cv", "1"], "cv must be >= 2"),
    (["demo", "--jobs", "0"], "--jobs"),
    (["info", "synthetic-2", "--plot", "p.bogus"], "p.bogus"),
    (["study", "synthetic-2", "--methods", "knn", "--splits", "1",
      "--scheduler", "bogus::addr"], "bogus::addr"),
])
def test_bad_options(argv, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    _one_line_error(capsys, needle)


def test_methods_empty_with_out_writes_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["study", "synthetic-2", "--methods", "", "--out", str(out)]) == 2
    _one_line_error(capsys, "--methods")
    assert not (out / "errors.png").exists()


@pytest.mark.parametrize("corrupt", ["directory", "nested", "truncated"])
def test_corrupt_cache_cells_are_recomputed(tmp_path, capsys, corrupt):
    out = tmp_path / "run"
    argv = ["study", "synthetic-2", "--methods", "knn", "--protocol", "custom",
            "--splits", "1", "--cv", "2", "--out", str(out)]
    assert main(argv) == 0
    first = json.loads((out / "results.json").read_text())
    (cell,) = list((out / "cache").rglob("*.json"))
    cell.unlink()
    if corrupt == "directory":
        cell.mkdir()
    elif corrupt == "nested":
        cell.write_text("[" * 100000 + "]" * 100000)
    else:
        cell.write_text('{"version": 1, "sha')
    capsys.readouterr()
    with pytest.warns(UserWarning, match="corrupted"):
        assert main(argv) == 0
    again = json.loads((out / "results.json").read_text())
    assert again == first
    assert cell.is_file() and json.loads(cell.read_text())["payload"]


# ----------------------------------------------------------------- the cell cache

def _save_many(root, n):
    from proxlearn.study._runner import _Cache

    cache = _Cache(root)
    for k in range(n):
        cache.save("ds/knn/abc/part-000", {"error": float(k), "params": {}, "cv_error": 0.0,
                                           "seconds": 0.0})


def test_two_processes_saving_the_same_cell(tmp_path):
    """Issue #14: a shared part-NNN.tmp made ~9 % of concurrent saves fail."""
    import multiprocessing as mp

    from proxlearn.study._runner import _Cache

    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_save_many, args=(tmp_path, 200)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert _Cache(tmp_path).load("ds/knn/abc/part-000")["error"] == 199.0
    assert not list(tmp_path.rglob("*.tmp"))


@pytest.mark.parametrize("name", ["..", ".", "../../escape", "a/b", ".hidden", "x y?"])
def test_cache_keys_stay_inside_the_cache(tmp_path, name):
    """A data file named `...csv` has the stem '..': its cells escaped out/cache/."""
    from proxlearn.datasets import SimilarityDataset
    from proxlearn.study import get_protocol, run_study

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    ds = SimilarityDataset(X @ X.T + 12 * np.eye(12), np.repeat([0, 1], 6), name=name)
    cache = tmp_path / "out" / "cache"
    run_study([ds], ["knn"], get_protocol("custom", n_splits=1, cv=2), cache_dir=cache)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files and all(cache.resolve() in p.resolve().parents for p in files)
    other = SimilarityDataset(ds.matrix, ds.labels, name=name + "_")
    from proxlearn._files import safe_component

    assert safe_component(ds.name) != safe_component(other.name)


def test_disk_full_names_the_path_and_leaves_no_temporary(tmp_path, monkeypatch, capsys):
    import errno
    import os

    real = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.fh.close()

        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("proxlearn._files.os.fdopen", lambda fd, *a, **k: Full(real(fd, *a, **k)))
    out = tmp_path / "run"
    assert main(["study", "synthetic-2", "--methods", "knn", "--protocol", "custom",
                 "--splits", "1", "--cv", "2", "--out", str(out)]) == 2
    err = _one_line_error(capsys, "No space left on device", str(out / "cache"))
    assert "cannot write" in err
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix == ".tmp"]
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.stat().st_size == 0]


def test_info_on_a_sequence_file_points_to_the_similarity_command(tmp_path, capsys):
    """'unsupported file type' said nothing of proxlearn similarity (issue #39, section 4)."""
    p = tmp_path / "seqs.fasta"
    p.write_text(">a\nACDE\n>b\nACDF\n")
    assert main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert "holds sequences, not a similarity matrix" in err
    assert f"proxlearn similarity {p}" in err and err.count("\n") == 1


def test_fetch_of_unknown_names_draws_no_bar(tmp_path, capsys):
    """The download bar came before the name error (issue #39, section 4)."""
    assert main(["fetch", "nosuchset", "voting2", "--data-home", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "'nosuchset', 'voting2' are not downloadable" in err
    assert not any(tmp_path.iterdir())


def test_a_closed_pipe_is_not_an_error(monkeypatch, capsys):
    """`proxlearn info ... --json | head` ended with 'Broken pipe', status 2 (issue #39)."""
    import os
    import sys

    capsys.disabled()
    r, w = os.pipe()
    os.close(r)  # the reader has left: every write now raises BrokenPipeError
    saved = os.dup(1)
    stream = os.fdopen(w, "w")
    monkeypatch.setattr(sys, "stdout", stream)
    try:
        assert main(["info", "synthetic-2", "--json"]) == 0
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        stream.close()
