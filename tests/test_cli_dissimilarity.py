"""`proxlearn info / study / demo` on a distance file (issue #14, section 2)."""

import json

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from proxlearn.cli import main


@pytest.fixture(autouse=True)
def _env(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def words(tmp_path):
    """A zero-diagonal distance matrix, saved as a user would (np.savez)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(m, 1.0, (20, 2)) for m in (-2.0, 2.0)])
    path = tmp_path / "words.npz"
    np.savez(path, D=cdist(X, X), y=np.repeat([0, 1], 20))
    return str(path)


def test_info_says_it_converted_a_detected_dissimilarity(words, capsys):
    assert main(["info", words]) == 0
    out = capsys.readouterr().out
    assert "detected as a dissimilarity (its diagonal is zero" in out
    assert "s = -d" in out and "--kind similarity" in out
    assert main(["info", words, "--json"]) == 0
    cap = capsys.readouterr()
    info = json.loads(cap.out)  # stdout is exactly one JSON object
    assert "s = -d" in cap.err
    assert info["kind"] == "similarity" and "s = -d" in info["conversion"]
    assert info["looks_like_dissimilarity"] is False  # the converted matrix


def test_info_kind_similarity_shows_the_raw_matrix_and_flags_it(words, capsys):
    assert main(["info", words, "--kind", "similarity", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["looks_like_dissimilarity"] is True and info["conversion"] == ""
    assert "diagonal is zero" in info["dissimilarity_reason"]
    assert main(["info", words, "--kind", "similarity"]) == 0
    assert "looks like a DISSIMILARITY" in capsys.readouterr().out


def test_study_on_distances_is_right_and_warns_at_most_once(words, capsys, tmp_path):
    argv = ["study", words, "--methods", "svm-clip,knn,svm-features-linear",
            "--protocol", "custom", "--splits", "2", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0
    cap = capsys.readouterr()
    res = json.loads((tmp_path / "r.json").read_text())["words"]
    assert res["knn"]["mean"] < 20.0  # 100 % before: the farthest were the "nearest"
    assert (cap.out + cap.err).count("DissimilarityWarning") == 0
    assert (cap.out + cap.err).count("detected as a dissimilarity") == 1


def test_study_kind_similarity_reports_the_warning_once(words, capsys, tmp_path):
    argv = ["study", words, "--methods", "svm-clip,knn", "--protocol", "custom",
            "--splits", "2", "--kind", "similarity", "--jobs", "2"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    text = cap.out + cap.err
    assert text.count("looks like a dissimilarity") == 1
    assert "in 4 cell(s)" in text


@pytest.mark.parametrize("method,check", [
    ("max-minus", lambda S: np.all(S >= 0)),
    ("exp", lambda S: np.allclose(np.diag(S), 1.0)),
])
def test_convert_option(words, capsys, method, check):
    assert main(["info", words, "--convert", method, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert f"method={method!r}" in info["conversion"]
    from proxlearn.datasets import load_similarity

    with pytest.warns(UserWarning):
        assert check(load_similarity(words, convert=method).matrix)


def test_bad_kind_is_a_usage_error(words, capsys):
    assert main(["info", words, "--kind", "distance"]) == 2
    assert "invalid choice" in capsys.readouterr().err
