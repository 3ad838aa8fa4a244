"""What the command line lists and explains (issue #14, section 5)."""

import json

import numpy as np
import pytest

from proxlearn.cli import _EXAMPLES, main


@pytest.fixture(autouse=True)
def _env(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.setenv("COLUMNS", "80")


def test_list_methods_prints_whole_descriptions_and_no_unloadable_variants(capsys):
    assert main(["study", "--list-methods"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("simmkl "))
    assert "S fused with [linear, rbf 0.01, rbf 0.1]" in line  # rich markup ate this
    assert "aural_sonar, protein-2" in line
    assert "amazon" not in out  # no data set of that name can be loaded
    assert "simmkl-aural_sonar" not in out  # variants are folded into their method


def test_data_set_variants_still_run():
    from proxlearn.study import get_method

    assert get_method("simmkl", "protein-2").name == "simmkl-protein-2"
    assert get_method("simmkl", "amazon-2").name == "simmkl"


def test_list_protocols(capsys):
    assert main(["study", "--list-protocols"]) == 0
    out = capsys.readouterr().out
    for name in ("chen2009", "gu2012", "gu2012-synthetic", "kundu2010", "custom", "loo"):
        assert any(ln.startswith(name + " ") for ln in out.splitlines()), name
    assert "20 random stratified partitions, 20% test, 10-fold inner CV" in out


@pytest.mark.parametrize("cmd", sorted(_EXAMPLES))
def test_help_shows_defaults_and_an_example(cmd, capsys):
    assert main([cmd, "--help"]) == 0
    out = capsys.readouterr().out
    assert "example:" in out and _EXAMPLES[cmd].split("\n")[0] in out
    if cmd in ("study", "demo", "reproduce"):
        assert "(default: " in out


def test_study_help_states_numeric_defaults(capsys):
    assert main(["study", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "seed of partitions and folds (default: 0)" in out
    assert "(default: svm-clip,svm-flip,svm-shift)" in out


def test_partial_reproduction_never_overwrites_docs(monkeypatch, tmp_path, capsys):
    import proxlearn.study._reproduce as rep

    calls = []
    monkeypatch.setattr(rep, "reproduce", lambda sections, **kw: calls.append(kw) or {"_seconds": 0})
    monkeypatch.chdir(tmp_path)
    for argv in (["--sections", "chen2009"], ["--splits", "1"], ["--seed", "3"],
                 ["--cached-only"]):
        assert main(["reproduce", *argv]) == 0
        assert calls[-1]["out"].replace("\\\\", "/") == "reproduce-partial/reproduction.md", argv
        assert calls[-1]["json_path"].replace("\\\\", "/") == "reproduce-partial/reproduction.json"
    assert main(["reproduce"]) == 0
    assert calls[-1]["out"].replace("\\\\", "/") == "docs/reproduction.md"
    assert main(["reproduce", "--splits", "1", "--out", "mine/r.md"]) == 0
    assert calls[-1]["out"] == "mine/r.md" and calls[-1]["json_path"] == "mine/r.json"


def _tiny_result():
    from proxlearn.datasets import make_noisy_blobs, SimilarityDataset
    from proxlearn.study import get_protocol, run_study

    S, y = make_noisy_blobs(2, 10, 0)
    ds = SimilarityDataset(S, y, name="toy[1]")
    return run_study([ds], ["knn"], get_protocol("custom", n_splits=2, cv=2))


def test_study_table_escapes_markup_and_explains_verdicts(capsys):
    from rich.console import Console

    from proxlearn.study import rich_table, summary_rows, to_latex, to_markdown

    result = _tiny_result()
    rows = summary_rows(result)
    rows[0]["partial"], rows[0]["n_partitions"] = True, 2
    rows[0].update(paper=10.0, paper_std=None, gap=1.0, agrees=True, sigma_source="ours")
    console = Console(width=300, record=True)
    console.print(rich_table(result, rows))
    text = console.export_text()
    assert "toy[1]" in text and "[R=2]" in text and "agrees*" in text
    assert "the paper prints no std, so our own std" in " ".join(text.split())
    assert "agrees*" in to_markdown(result, rows) and "our own std" in to_markdown(result, rows)
    assert "% verdict:" in to_latex(result, rows)
