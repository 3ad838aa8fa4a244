"""The reproduction report generator (`proxlearn reproduce`)."""

import json
from dataclasses import replace
import re

import pytest

from proxlearn._validation import InvalidParameterError
from proxlearn.cli import main
from proxlearn.study import _reproduce
from proxlearn.study.papers import paper_claims
from proxlearn.study._reproduce import Section, reproduce

TINY = (
    Section("tiny", "A tiny study", "gu2012-synthetic", ("synthetic-1",),
            ("svm-clip", "ikfd", "no-such-method"), note="two partitions"),
    Section("tiny-kundu", "Balanced", "kundu2010", ("synthetic-2",), ("svm-clip",)),
)


@pytest.fixture
def tiny_sections(monkeypatch):
    monkeypatch.setattr(_reproduce, "SECTIONS", TINY)


def test_report_tables_json_and_cache(tiny_sections, tmp_path):
    md, js, cache = tmp_path / "r.md", tmp_path / "r.json", tmp_path / "cache"
    disc = tmp_path / "d.md"
    disc.write_text("## Discussion\n\nWhy cells differ.\n")
    res = reproduce(splits=2, jobs=1, cache_dir=cache, out=md, json_path=js, discussion=disc)
    text = md.read_text()
    assert "## A tiny study" in text and "## Balanced" in text
    assert "Not run (method not available): no-such-method" in text
    # Gu & Guo Table 1 prints svm-clip on synthetic-1: paper column, gap and a verdict
    (row,) = [r for r in res["tiny"]["rows"] if r["method"] == "svm-clip"]
    assert row["paper"] is not None and row["gap"] == pytest.approx(row["mean"] - row["paper"])
    # Table 1 prints no spread and 2 partitions cannot estimate ours: no verdict
    assert row["agrees"] is None and row["sigma"] is None and row["n_partitions"] == 2
    assert "| synthetic-1 | svm-clip |" in text
    assert "F-score" in text  # the kundu2010 section reports F-scores
    assert text.rstrip().endswith("Why cells differ.")
    assert "![Mean error (std) per method](figures/tiny.png)" in text
    assert (tmp_path / "figures" / "tiny.png").read_bytes()[:4] == b"\x89PNG"
    payload = json.loads(js.read_text())
    errs = payload["sections"]["tiny"]["results"]["synthetic-1"]["ikfd"]["errors"]
    assert len(errs) == 2
    assert res["tiny"]["cached_cells"] == 0
    again = reproduce(splits=2, jobs=1, cache_dir=cache, out=None, json_path=None)
    assert again["tiny"]["cached_cells"] == again["tiny"]["cells"] == 4
    assert again["tiny"]["results"] == res["tiny"]["results"]
    # which code computed the section is printed with it (a git checkout here)
    rev = payload["sections"]["tiny"]["code_revision"]
    if rev is not None:
        assert re.fullmatch(r"[0-9a-f]{12}(\+changes)?", rev)
        assert f"Run by this invocation with the code of commit `{rev}`." in text


def test_code_revision_is_none_outside_a_git_checkout(monkeypatch):
    import subprocess

    def no_git(*a, **k):
        raise FileNotFoundError("git")

    monkeypatch.setattr(subprocess, "run", no_git)
    assert _reproduce._code_revision() is None


def test_unknown_section_lists_valid_ones(tiny_sections):
    with pytest.raises(InvalidParameterError, match="choose from tiny, tiny-kundu"):
        reproduce(["chen2099"], out=None, json_path=None)


def test_missing_data_is_reported_not_fatal(tiny_sections, monkeypatch, tmp_path):
    monkeypatch.setattr(_reproduce, "_load", lambda names, home: ([], [f"{n} (not found)" for n in names]))
    res = reproduce(["tiny"], out=tmp_path / "r.md", json_path=None, cache_dir=tmp_path)
    assert res["tiny"]["rows"] == []
    assert "Not run (data missing): synthetic-1 (not found)" in (tmp_path / "r.md").read_text()


def test_claims_are_checked_on_common_partitions():
    from proxlearn.study import StudyResult, get_protocol
    from proxlearn.study._runner import CellResult

    per_partition = {"svm-features-linear": [2.0, 2.0], "svm-features-rbf": [1.0, 1.0],
                     "psvm": [3.0, 3.0], "svm-clip": [5.0, 5.0], "knn": [30.0, 30.0],
                     "knn-krr": [20.0, 20.0], "svm-flip": [6.0, 6.0, 0.0]}
    cells = [CellResult("protein", m, i, e, {}, 0.0, 0.0)
             for m, errs in per_partition.items() for i, e in enumerate(errs)]
    study = StudyResult(protocol=get_protocol("chen2009"), seed=0, cells=cells)
    verdicts = {t: v for _, t, v in paper_claims({"chen2009": {"_study": study}})}
    assert verdicts[next(k for k in verdicts if "P-SVM beat" in k)].startswith("holds")
    assert "2 common partitions" in verdicts[next(k for k in verdicts if "P-SVM beat" in k)]
    assert verdicts[next(k for k in verdicts if "threefold" in k)].startswith("does NOT hold")
    # svm-flip's third partition (0.0) is not shared by svm-clip: 6 vs 5 on the common two
    assert verdicts[next(k for k in verdicts if k.startswith("protein: flip"))].startswith("does NOT")
    assert verdicts[next(k for k in verdicts if "protein-2: flip" in k)] == "not run"


def test_cli_lists_and_runs_sections(tiny_sections, tmp_path, capsys):
    assert main(["reproduce", "--list-sections"]) == 0
    assert "tiny-kundu" in capsys.readouterr().out
    md = tmp_path / "r.md"
    assert main(["reproduce", "--sections", "tiny-kundu", "--splits", "2", "--jobs", "1",
                 "--cache", str(tmp_path / "c"), "--out", str(md), "--json", str(tmp_path / "r.json")]) == 0
    assert "proxlearn reproduce --sections tiny-kundu --splits 2" in md.read_text()
    assert main(["reproduce", "--sections", "nope", "--out", str(md)]) == 2
    assert "unknown section 'nope'" in capsys.readouterr().err


def test_loo_section_is_cached(monkeypatch, tmp_path):
    loo = replace(_reproduce._section("loo"), key="tiny-loo", title="LOO",
                  datasets=("synthetic-1",), methods=("knn",))
    monkeypatch.setattr(_reproduce, "SECTIONS", (loo,))
    first = reproduce(out=tmp_path / "r.md", json_path=None, cache_dir=tmp_path / "c")
    (row,) = first["tiny-loo"]["rows"]
    assert row["perplexity"] >= 1.0 and 0.0 < row["nce"] <= 1.0
    assert "![Perplexity versus k](figures/tiny-loo.png)" in (tmp_path / "r.md").read_text()
    calls = []
    monkeypatch.setattr("proxlearn.study.papers.chen2009._loo.loo_study", lambda *a, **k: calls.append(1))
    again = reproduce(out=None, json_path=None, cache_dir=tmp_path / "c")
    assert not calls and again["tiny-loo"]["rows"] == first["tiny-loo"]["rows"]
    assert again["tiny-loo"]["compute_seconds"] == first["tiny-loo"]["compute_seconds"]


def test_cached_only_snapshot_reports_partial_rows(tiny_sections, tmp_path):
    cache = tmp_path / "c"
    # a short run fills partitions 0-1; the snapshot of the 3-partition protocol has R=2
    reproduce(["tiny"], splits=2, jobs=1, cache_dir=cache, out=None, json_path=None)
    snap = reproduce(["tiny"], splits=3, cache_dir=cache, out=tmp_path / "r.md", json_path=None,
                     cached_only=True)
    rows = snap["tiny"]["rows"]
    assert {r["n_partitions"] for r in rows} == {2} and all(r["partial"] for r in rows)
    assert snap["tiny"]["cached_cells"] == snap["tiny"]["cells"] == 4
    assert "[R=2]" in (tmp_path / "r.md").read_text()
    empty = reproduce(["tiny"], cache_dir=tmp_path / "none", out=None, json_path=None, cached_only=True)
    assert empty["tiny"]["rows"] == []


def test_deterministic_cells_agree_to_the_printed_digits():
    from proxlearn.study._section import _printed_digits_verdict

    assert _printed_digits_verdict(1.41316, 1.41, 2) == "agrees"
    assert _printed_digits_verdict(1.33684, 1.35, 2) == "DIFFERS"
    assert _printed_digits_verdict(0.50828, 0.5083, 4) == "agrees"
    assert _printed_digits_verdict(0.58722, 0.5757, 4) == "DIFFERS"
    assert _printed_digits_verdict(4.3678, 4.4, 1) == "agrees"
    assert _printed_digits_verdict(1.0, None, 2) == ""


def test_update_reruns_some_sections_and_keeps_the_others(tiny_sections, tmp_path, capsys):
    from proxlearn.study import StudyResult, get_protocol

    md, js = tmp_path / "r.md", tmp_path / "r.json"
    first = reproduce(splits=2, jobs=1, cache_dir=tmp_path / "c", out=md, json_path=js)
    stored = json.loads(js.read_text())
    assert stored["rerun"] == ["tiny", "tiny-kundu"]
    # the stored per-partition numbers rebuild the same study
    rebuilt = StudyResult.from_json(stored["sections"]["tiny"]["results"],
                                    get_protocol("gu2012-synthetic", n_splits=2))
    assert rebuilt.to_json() == first["tiny"]["results"]
    (tmp_path / "figures" / "tiny.png").unlink()
    # rerun only tiny-kundu (fresh cache, so it is really computed) and merge
    res = reproduce(["tiny-kundu"], splits=2, jobs=1, cache_dir=tmp_path / "c2", out=md,
                    json_path=js, update=js)
    assert list(res)[:2] == ["tiny", "tiny-kundu"]
    assert res["tiny"]["rows"] == first["tiny"]["rows"] and res["tiny"].get("_previous")
    assert res["tiny-kundu"]["cached_cells"] == 0 and not res["tiny-kundu"].get("_previous")
    text = md.read_text()
    tiny_part = text.split("## A tiny study")[1].split("## Balanced")[0]
    assert "Numbers of the previous report" in tiny_part
    assert "Numbers of the previous report" not in text.split("## Balanced")[1]
    assert (tmp_path / "figures" / "tiny.png").read_bytes()[:4] == b"\x89PNG"  # redrawn
    assert json.loads(js.read_text())["rerun"] == ["tiny-kundu"]
    with pytest.raises(InvalidParameterError, match="does not exist"):
        reproduce(["tiny"], splits=2, cache_dir=tmp_path / "c", out=None, json_path=None,
                  update=tmp_path / "none.json")
    assert main(["reproduce", "--update", "--out", str(md)]) == 2
    assert "--update refreshes whole sections" in capsys.readouterr().err


def test_update_of_some_cells_keeps_the_sections_other_cells(monkeypatch, tmp_path, capsys):
    """--datasets / --methods with --update: the named rows or columns are computed now,
    the other cells are the stored per-partition numbers (tampered with here, so a
    recomputation would show)."""
    two = (Section("two", "Two sets", "gu2012-synthetic", ("synthetic-1", "synthetic-2"),
                   ("svm-clip", "svm-flip")),)
    monkeypatch.setattr(_reproduce, "SECTIONS", two)
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    first = reproduce(splits=2, jobs=1, cache_dir=tmp_path / "c", out=md, json_path=js)
    stored = json.loads(js.read_text())
    for m in ("svm-clip", "svm-flip"):
        stored["sections"]["two"]["results"]["synthetic-1"][m]["errors"] = [50.0, 30.0]
    js.write_text(json.dumps(stored))

    def means(out):
        return {(r["dataset"], r["method"]): r["mean"] for r in out["rows"]}

    old = means(first["two"])
    # a row: synthetic-2 rerun (fresh cache), synthetic-1 kept as stored
    res = reproduce(["two"], splits=2, jobs=1, cache_dir=tmp_path / "c2", out=md,
                    json_path=js, update=js, datasets=["synthetic-2"])
    out = res["two"]
    new = means(out)
    assert new[("synthetic-1", "svm-clip")] == new[("synthetic-1", "svm-flip")] == 40.0
    assert new[("synthetic-2", "svm-flip")] == pytest.approx(old[("synthetic-2", "svm-flip")])
    assert out["rerun_cells"] == 4 and out["rerun_cached_cells"] == 0 and out["cells"] == 8
    assert out["rerun_only"] == {"datasets": ["synthetic-2"], "methods": ["svm-clip", "svm-flip"]}
    assert "Cells rerun by this invocation: synthetic-2 x svm-clip, svm-flip" in md.read_text()
    # a column: svm-flip rerun everywhere, svm-clip's tampered synthetic-1 cells kept
    res = reproduce(["two"], splits=2, jobs=1, cache_dir=tmp_path / "c3", out=md,
                    json_path=js, update=js, methods=["svm-flip"])
    new = means(res["two"])
    assert new[("synthetic-1", "svm-clip")] == 40.0
    assert new[("synthetic-1", "svm-flip")] == pytest.approx(old[("synthetic-1", "svm-flip")])
    assert res["two"]["rerun_cells"] == 4
    assert [r["method"] for r in res["two"]["rows"]][:2] == ["svm-clip", "svm-flip"]
    # a column that was not registered at the stored run: listed as absent until run
    stored = json.loads(js.read_text())
    stored["sections"]["two"]["not_registered"] = ["svm-flip", "ikl"]
    js.write_text(json.dumps(stored))
    res = reproduce(["two"], splits=2, jobs=1, cache_dir=tmp_path / "c3", out=md,
                    json_path=js, update=js, methods=["svm-flip"])
    assert res["two"]["not_registered"] == ["ikl"]
    assert "Not run (method not available): ikl." in md.read_text()
    # a later --update of other sections shows this one as stored, not as rerun now
    monkeypatch.setattr(_reproduce, "SECTIONS", two + TINY[:1])
    reproduce(["tiny"], splits=2, jobs=1, cache_dir=tmp_path / "c", out=md, json_path=js,
              update=js)
    part = md.read_text().split("## Two sets")[1].split("## A tiny study")[0]
    assert "Numbers of the previous report" in part and "Cells rerun" not in part
    monkeypatch.setattr(_reproduce, "SECTIONS", two)
    with pytest.raises(InvalidParameterError, match="use them with update"):
        reproduce(["two"], splits=2, out=None, json_path=None, datasets=["synthetic-2"])
    with pytest.raises(InvalidParameterError, match="its data sets: synthetic-1, synthetic-2"):
        reproduce(["two"], splits=2, out=None, json_path=None, update=js,
                  datasets=["sonar"])
    with pytest.raises(InvalidParameterError, match="its methods: svm-clip, svm-flip"):
        reproduce(["two"], splits=2, out=None, json_path=None, update=js, methods=["ikl"])
    with pytest.raises(InvalidParameterError, match="stored with 2 partitions"):
        reproduce(["two"], splits=3, jobs=1, cache_dir=tmp_path / "c", out=None,
                  json_path=None, update=js, datasets=["synthetic-2"])
    assert main(["reproduce", "--sections", "two", "--methods", "svm-flip",
                 "--out", str(md)]) == 2
    assert "use them with --update" in capsys.readouterr().err


def _study(protocol, per_partition, dataset):
    from proxlearn.study import StudyResult, get_protocol
    from proxlearn.study._runner import CellResult

    cells = [CellResult(dataset, m, i, e, {}, 0.0, 0.0)
             for m, errs in per_partition.items() for i, e in enumerate(errs)]
    return StudyResult(protocol=get_protocol(protocol), seed=0, cells=cells)


def test_every_paper_has_its_claims_listed_with_a_verdict():

    claims = paper_claims({})
    papers = {p for p, _, _ in claims}
    assert papers == {"Chen et al. 2009", "Chen thesis 2010", "Gu & Guo 2012",
                      "Kundu et al. 2010", "Zhuang 2011"}
    assert all(v == "not run" for _, _, v in claims)
    assert len(claims) >= 40


def test_failed_claims_are_reported_as_failed():
    from proxlearn.study.papers.chen2010 import chen2010_claims
    from proxlearn.study.papers.gu2012 import gu2012_claims

    # protein-2: SimMKL significantly worse than kernel 2 over 8 partitions; shift 40 pts worse
    p2 = {"simmkl": [5.0] * 8, "svm-kernel2": [1.0] * 8, "svm-clip": [6.0] * 8,
          "svm-flip": [6.0] * 8, "svm-shift": [50.0] * 8, "svm-kernel1": [6.0] * 8,
          "svm-kernel3": [6.0] * 8}
    claims = dict(chen2010_claims({"chen2010": {"_study": _study("chen2009", p2, "protein-2")}}))
    simmkl = next(v for k, v in claims.items() if k.startswith("protein-2: SimMKL"))
    assert simmkl.startswith("does NOT hold") and "svm-kernel2 1.00" in simmkl
    shift = next(v for k, v in claims.items() if k.startswith("protein-2: the SVM with shift"))
    assert shift.startswith("holds")
    # Gu & Guo: the Indefinite SVM far from clip on one set -> the 'like clip' claim fails
    six = {"svm-clip": [1.0, 1.0], "svm-flip": [2.0, 2.0], "svm-shift": [3.0, 3.0],
           "indefinite-svm": [5.0, 5.0], "ikfd": [0.5, 0.5], "svm-ca": [0.2, 0.2]}
    claims = dict(gu2012_claims({"gu2012": {"_study": _study("gu2012", six, "voting")}}))
    like = next(v for k, v in claims.items() if k.startswith("gu2012: the Robust"))
    assert like.startswith("does NOT hold") and "voting: 5.00 vs 1.00 (fails)" in like
    lowest = next(v for k, v in claims.items() if k.startswith("voting (gu2012)"))
    assert lowest.startswith("holds")


def test_full_data_tables_refuse_lp_rows_of_more_than_two_classes():
    """Tables 5.1-5.2's LP rows compare one two-class SimSVM: three classes are refused
    with a clear error (they used to fail deep inside with a TypeError)."""
    from proxlearn.datasets import make_gu_guo_synthetic
    from proxlearn.study import full_data_tables

    ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    with pytest.raises(InvalidParameterError, match="p_values=()"):
        full_data_tables([ds], n_draws=1, p_values=(10,))
    assert full_data_tables([ds], n_draws=1, p_values=())["table_5_1"]
