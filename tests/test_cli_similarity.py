"""`proxlearn similarity INPUT --metric ... --out S.npz` (issue #19, section 1)."""

import json
import math
import re

import numpy as np
import parasail
import pytest
from dtaidistance import dtw
from rapidfuzz.distance import Levenshtein

from proxlearn.cli import main
from proxlearn.datasets import load_similarity, make_mutated_strings


@pytest.fixture(autouse=True)
def _env(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.setenv("COLUMNS", "200")


def _error_line(capsys, *needles):
    err = capsys.readouterr().err
    assert re.fullmatch(r"proxlearn: error: [^\n]+\n", err), err  # one line, no traceback
    assert all(n in err for n in needles), (needles, err)


@pytest.fixture
def fasta(tmp_path):
    X, y = make_mutated_strings(12, n_classes=2, random_state=0)
    p = tmp_path / "prot.fasta"
    p.write_text("".join(f">seq{i} class{c} some description\n{x[:25]}\n{x[25:]}\n"
                         for i, (x, c) in enumerate(zip(X, y))))
    return p, X, y


def test_fasta_to_npz_with_labels_ids_and_kind(fasta, tmp_path, capsys):
    p, X, y = fasta
    out = tmp_path / "S.npz"
    assert main(["similarity", str(p), "--metric", "smith-waterman-normalized",
                 "--gap-open", "10", "--quiet", "--out", str(out)]) == 0
    assert ("12 x 12 smith-waterman-normalized (matrix=blosum62, gap_open=10, gap_extend=1) "
            "similarity") in capsys.readouterr().out
    with np.load(out) as z:
        S, ids, kind = z["S"], z["ids"], str(z["kind"])
        assert z["y"].tolist() == [f"class{c}" for c in y]
        assert str(z["metric"]) == "smith-waterman-normalized"
    assert kind == "similarity" and ids.tolist() == [f"seq{i}" for i in range(12)]
    M = parasail.blosum62

    def sw(a, b):
        return parasail.sw(a, b, 10, 1, M).score

    np.testing.assert_allclose(S[2, 5], sw(X[2], X[5]) / math.sqrt(sw(X[2], X[2]) * sw(X[5], X[5])),
                               rtol=1e-15)
    assert not list(tmp_path.glob("S.partial*"))  # work files removed
    ds = load_similarity(out)  # the existing loaders read it (ids are not labels)
    np.testing.assert_array_equal(ds.matrix, S)
    assert ds.labels.tolist() == [f"class{c}" for c in y]


def test_text_levenshtein_is_a_dissimilarity_and_loads_converted(tmp_path, capsys):
    words = ["kitten", "sitting", "mitten", "fitting", "bitten", "knitting"]
    p = tmp_path / "w.txt"
    p.write_text("".join(f"{w}\t{i % 2}\n" for i, w in enumerate(words)))
    out = tmp_path / "D.npz"
    assert main(["similarity", str(p), "--metric", "levenshtein", "--jobs", "2",
                 "--block-size", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "levenshtein dissimilarity" in text and "note: a dissimilarity" in text
    with np.load(out) as z:
        D = z["S"]
        assert str(z["kind"]) == "dissimilarity" and z["y"].tolist() == [0, 1, 0, 1, 0, 1]
    ref = np.array([[Levenshtein.distance(a, b) for b in words] for a in words], float)
    np.testing.assert_array_equal(D, ref)
    assert main(["info", str(out)]) == 0  # detected as a dissimilarity on loading
    assert "dissimilarity" in capsys.readouterr().out


def test_csv_dtw_with_label_column(tmp_path):
    p = tmp_path / "s.csv"
    rows = ["0,1,2,3,2", "1,5,5,6", "0,1,2,2,3,2", "1,6,5,5,5"]
    p.write_text("\n".join(rows) + "\n")
    out = tmp_path / "D.npz"
    assert main(["similarity", str(p), "--metric", "dtw", "--label-column", "0",
                 "--window", "2", "--quiet", "--out", str(out)]) == 0
    with np.load(out) as z:
        D, y = z["S"], z["y"]
    series = [np.array([float(t) for t in r.split(",")[1:]]) for r in rows]
    assert y.tolist() == [0, 1, 0, 1]
    assert D[0, 2] == dtw.distance_fast(series[0], series[2], window=2)
    assert D[1, 3] == dtw.distance_fast(series[1], series[3], window=2)


def test_jaccard_on_words_of_lines(tmp_path):
    p = tmp_path / "sets.txt"
    p.write_text("a b c\nb c d\nx\n")
    out = tmp_path / "J.npz"
    assert main(["similarity", str(p), "--metric", "jaccard", "--quiet", "--out", str(out)]) == 0
    with np.load(out) as z:
        np.testing.assert_array_equal(z["S"], [[1, 0.5, 0], [0.5, 1, 0], [0, 0, 1]])


def test_interrupted_cli_run_resumes(fasta, tmp_path, monkeypatch):
    """A crash leaves the partial matrix and its block record; the rerun finishes it."""
    import proxlearn.pairwise._builders as builders

    p, X, _ = fasta
    out = tmp_path / "S.npz"
    real = builders._run_tile
    calls = {"n": 0}

    def crash_after_two(*args):
        calls["n"] += 1
        if calls["n"] > 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(builders, "_run_tile", crash_after_two)
    args = ["similarity", str(p), "--metric", "needleman-wunsch", "--block-size", "3",
            "--quiet", "--out", str(out)]
    with pytest.raises(KeyboardInterrupt):
        main(args)
    record = tmp_path / "S.partial.npy.blocks"
    assert len(record.read_text().splitlines()) == 1 + 2
    monkeypatch.setattr(builders, "_run_tile", real)
    calls["n"] = 0
    assert main(args) == 0
    ref = np.array([[parasail.nw(a, b, 11, 1, parasail.blosum62).score for b in X] for a in X],
                   float)
    with np.load(out) as z:
        np.testing.assert_array_equal(z["S"], ref)
    assert not record.exists()


@pytest.mark.parametrize(("name", "text", "args", "needles"), [
    ("e.fasta", ">a 1\nACD\n>b 1\n\n>c 2\nEF\n", ["--metric", "smith-waterman"],
     ["e.fasta", "record b (line 3) has an empty sequence"]),
    ("u.fasta", ">a 1\nACD\n>b 1\nACJ\n", ["--metric", "smith-waterman"],
     ["u.fasta", "object 1 (b)", "'J'", "alphabet of blosum62"]),
    ("d.fasta", ">a\nACGT\n>b\nACGE\n", ["--metric", "needleman-wunsch", "--matrix", "nuc44"],
     ["d.fasta", "object 1 (b)", "'E'", "alphabet of nuc44"]),
    ("n.csv", "1,2,3\n4,NaN,6\n", ["--metric", "dtw"], ["n.csv", "line 2, value 2: NaN"]),
    ("v.csv", "1,2,3\n4,5,6\n", ["--metric", "dtw", "--window", "-1"],
     ["DTW parameter window must be an integer >= 1"]),
    ("m.csv", "1,2,3\n4,5,6\n", ["--metric", "levenshtein"],
     ["--metric levenshtein compares strings", "csv"]),
    ("w.txt", "abc\n", ["--metric", "levenshtein", "--matrix", "blosum62"],
     ["does not take matrix"]),
    ("x.fa", ">a\nAC\n", ["--metric", "smith-waterman", "--matrix", "blosum99"],
     ["unknown substitution matrix 'blosum99'"]),
    ("j.txt", "abc\n", ["--metric", "levenshtein", "--jobs", "0"], ["--jobs 0 runs nothing"]),
    ("o.txt", "abc\n", ["--metric", "levenshtein", "--out", "S.npy"], ["ending in .npz"]),
    ("s.txt", "abc\n", ["--metric", "levenshtein", "--scheduler", "nonsense://x"],
     ["cannot use the Dask scheduler"]),
])
def test_bad_input_is_one_line_naming_the_record(tmp_path, capsys, name, text, args, needles):
    p = tmp_path / name
    p.write_text(text)
    argv = ["similarity", str(p), "--quiet", *args]
    if "--out" not in args:
        argv += ["--out", str(tmp_path / "S.npz")]
    assert main(argv) == 2
    _error_line(capsys, *needles)
    assert not (tmp_path / "S.npz").exists()


def test_missing_input_file(tmp_path, capsys):
    assert main(["similarity", str(tmp_path / "none.fasta"), "--metric", "smith-waterman",
                 "--out", str(tmp_path / "S.npz")]) == 2
    _error_line(capsys, "none.fasta")


def test_scheduler_option_runs_on_a_local_cluster(fasta, tmp_path):
    distributed = pytest.importorskip("distributed")
    p, X, _ = fasta
    local, remote = tmp_path / "L.npz", tmp_path / "R.npz"
    args = ["similarity", str(p), "--metric", "smith-waterman", "--block-size", "5", "--quiet"]
    assert main([*args, "--out", str(local)]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert main([*args, "--out", str(remote), "--scheduler", cluster.scheduler_address]) == 0
    with np.load(local) as a, np.load(remote) as b:
        np.testing.assert_array_equal(a["S"], b["S"])
        assert a["S"][3, 7] == parasail.sw(X[3], X[7], 11, 1, parasail.blosum62).score


def test_input_that_is_not_utf8_is_one_line_and_encoding_reads_it(tmp_path, capsys):
    """A latin-1 byte printed a UnicodeDecodeError traceback (issue #39, item 2.6)."""
    p = tmp_path / "l1.fasta"
    p.write_bytes(">a caf\xe9\nACDE\n>b tea\nACDF\n".encode("latin-1"))
    out = tmp_path / "S.npz"
    argv = ["similarity", str(p), "--metric", "smith-waterman", "--quiet", "--out", str(out)]
    assert main(argv) == 2
    _error_line(capsys, "l1.fasta: line 1", "not valid utf-8", "--encoding latin-1")
    assert not out.exists()
    assert main([*argv, "--encoding", "latin-1"]) == 0
    assert np.load(out)["y"].tolist() == ["café", "tea"]


def test_csv_header_rule_is_said_and_can_be_overridden(tmp_path, capsys):
    p = tmp_path / "pd.csv"
    p.write_text("0,1,2\n1,2,3\n3,2,1\n")
    out = tmp_path / "S.npz"
    argv = ["similarity", str(p), "--metric", "dtw", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    assert "note:" in capsys.readouterr().out and np.load(out)["S"].shape == (2, 2)
    assert main([*argv, "--header", "no"]) == 0
    assert np.load(out)["S"].shape == (3, 3)


def test_dna_aligned_with_a_protein_matrix_is_said_and_parameters_are_stored(tmp_path, capsys):
    """BLOSUM62 was used on DNA without a word, and the .npz kept no parameters (issue #39)."""
    p = tmp_path / "dna.fasta"
    p.write_text(">a\nACGTTGCA\n>b\nACGTAGCA\n>c\nTTGCAACG\n")
    out = tmp_path / "S.npz"
    argv = ["similarity", str(p), "--metric", "smith-waterman", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "look like DNA/RNA" in text and "--matrix nuc44" in text
    assert "matrix=blosum62, gap_open=11, gap_extend=1" in text
    assert json.loads(str(np.load(out)["metric_params"])) == {
        "matrix": "blosum62", "gap_open": 11, "gap_extend": 1}
    assert main([*argv, "--matrix", "nuc44"]) == 0
    assert "look like DNA" not in capsys.readouterr().out
    assert json.loads(str(np.load(out)["metric_params"]))["matrix"] == "nuc44"
