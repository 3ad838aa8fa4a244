"""Zhuang (2011) chapter 3 in the reproduction report: runs, tables, claims."""

from dataclasses import replace

import numpy as np
import pytest
from sklearn.datasets import load_iris

from proxlearn.datasets import FeatureDataset
from proxlearn.study import _reproduce
from proxlearn.study.papers import zhuang2011
from proxlearn.study.papers.zhuang2011 import _npkl
from proxlearn.study.papers.zhuang2011._npkl import (
    C_GRID,
    CH3_METHODS,
    clustering_run,
    growth_exponent,
    npkl_tables,
)
from proxlearn.study._report import load_targets
from proxlearn.study._reproduce import Section, reproduce
from proxlearn.study.papers.zhuang2011 import _ch3_sigma


def _tiny(n=30, seed=0, name="tiny"):
    X, y = load_iris(return_X_y=True)
    idx = np.random.default_rng(seed).choice(150, n, replace=False)
    return FeatureDataset(X[idx], y[idx], name=name)


def test_one_run_scores_every_method_and_the_oracle_bounds_the_selection():
    ds = _tiny()
    y = np.unique(ds.labels, return_inverse=True)[1]
    out = clustering_run(ds.X, y, CH3_METHODS, 0)
    assert out["n_constraints"] > 0 and out["n_constraints"] % 2 == 0
    for m in CH3_METHODS:
        assert 0 <= out[m]["rand"] <= 100
    for m in CH3_METHODS[2:]:
        r = out[m]
        assert r["C_cv"] in C_GRID and r["C_oracle"] in C_GRID
        assert r["rand_oracle"] >= r["rand"]  # the oracle sees the labels
        assert len(r["seconds_grid"]) == len(C_GRID) and r["seconds"] > 0
    # same run, same constraints: deterministic
    again = clustering_run(ds.X, y, ("simplenpkl-ll",), 0)
    assert again["simplenpkl-ll"]["rand"] == out["simplenpkl-ll"]["rand"]


def test_tables_skip_the_sdp_above_its_size_and_measure_speedups(monkeypatch):
    monkeypatch.setattr(_npkl, "SDP_MAX_SAMPLES", 25)
    small, big = _tiny(20, 1, "small"), _tiny(30, 2, "big")
    calls = []

    def cache(name, key, compute):
        calls.append(name)
        return compute()

    t = npkl_tables([small, big], n_runs=2, npkl_runs=1, sweep_runs=1, cache=cache)
    rows = {(r["dataset"], r["method"]): r for r in t["table_3_2"]}
    assert rows[("big", "npkl-hl")]["mean"] is None and "30 > 25" in rows[("big", "npkl-hl")][
        "not_run"]
    assert rows[("small", "npkl-hl")]["n_partitions"] == 1
    assert rows[("small", "simplenpkl-ll")]["n_partitions"] == 2
    (ts,) = [r for r in t["table_3_3"] if r["dataset"] == "small"]
    assert ts["speedup_ll"] > 0 and ts["n_runs"] == 1
    (tb,) = [r for r in t["table_3_3"] if r["dataset"] == "big"]
    assert tb["speedup_ll"] is None
    assert "ch3-sdp-small-0" in calls and not any(c.startswith("ch3-sdp-big") for c in calls)
    assert t["table_3_4"] == [] and t["table_3_5"] == []  # the sweeps are Iris's


def test_tables_show_the_simplenpkl_rows_under_both_readings(monkeypatch):
    # issue 40 item 2: eq. 3.3's Laplacian (the text) and D - W (SimpleNPKL's default)
    monkeypatch.setattr(_npkl, "SDP_MAX_SAMPLES", 10)
    ds = _tiny(30, 3, "small")
    calls = []

    def cache(name, key, compute):
        calls.append(name)
        return compute()

    text = npkl_tables([ds], n_runs=1, npkl_runs=0, cache=cache)
    both = npkl_tables([ds], n_runs=1, npkl_runs=0, cache=cache,
                       readings=("text", "default"))
    key = lambda r: (r["method"], r["reading"])  # noqa: E731
    t = {key(r): r for r in text["table_3_2"]}
    b = {key(r): r for r in both["table_3_2"]}
    assert set(b) - set(t) == {("simplenpkl-ll", "default"), ("simplenpkl-shl", "default")}
    for k, r in t.items():  # the text rows do not change
        assert b[k]["mean"] == r["mean"]
    y = np.unique(ds.labels, return_inverse=True)[1]
    direct = clustering_run(ds.X, y, ("simplenpkl-ll",), 0, laplacian="unnormalized",
                            normalize="cosine")
    assert b[("simplenpkl-ll", "default")]["mean"] == direct["simplenpkl-ll"]["rand"]
    assert "ch3-default-small-0" in calls
    with pytest.raises(Exception, match="readings"):
        npkl_tables([ds], n_runs=1, readings=("default",))


def test_text_rows_cluster_as_learned_and_default_rows_by_direction(monkeypatch):
    # issue 40: the thesis's "kernel k-means" is Lloyd's on the learned kernel
    # (KernelKMeans(normalize=None), pinned); the default reading uses KernelKMeans's
    # default, clustering by direction
    monkeypatch.setattr(_npkl, "SDP_MAX_SAMPLES", 10)
    ds = _tiny(30, 3, "small")
    seen = []
    cluster = _npkl._cluster

    def spy(K, n_clusters, seed, normalize=None):
        seen.append((cache_name[0], normalize))
        return cluster(K, n_clusters, seed, normalize)

    cache_name = [None]

    def cache(name, key, compute):
        cache_name[0] = name
        return compute()

    monkeypatch.setattr(_npkl, "_cluster", spy)
    npkl_tables([ds], n_runs=1, npkl_runs=0, cache=cache, readings=("text", "default"))
    text = {n for name, n in seen if name.startswith("ch3-small")}
    default = {n for name, n in seen if name.startswith("ch3-default")}
    assert text == {None} and default == {"cosine"}
    assert _npkl.CLUSTERING == {"text": None, "default": "cosine"}


def test_growth_exponent_is_the_log_log_slope():
    pts = [(n, 3e-6 * n**1.7, 0, 0) for n in (400, 800, 1600, 3200)]
    assert growth_exponent(pts) == pytest.approx(1.7)
    assert growth_exponent(pts[:1]) is None


def test_printed_zero_std_uses_the_largest_std_of_the_row():
    targets = load_targets()
    row, sigma, source = _ch3_sigma(targets, "3.2", "heart", "npkl-hl")
    assert row.mean == 86.2 and row.std == 0.0
    assert sigma == 3.7 and source == "paper row max"  # ck-means 52.3 +- 3.7
    row, sigma, source = _ch3_sigma(targets, "3.2", "wine", "npkl-hl")
    assert sigma == 5.3 and source == "paper"


def test_section_report_has_every_table_and_the_claims(monkeypatch, tmp_path):
    monkeypatch.setattr(_npkl, "SDP_MAX_SAMPLES", 40)
    sec = replace(_reproduce._section("zhuang2011-ch3"), key="tiny-ch3", title="Chapter 3",
                  datasets=("iris",), methods=CH3_METHODS)
    monkeypatch.setattr(_reproduce, "SECTIONS", (sec,))
    # a small Iris so the test is quick: the section loads by name
    small = _tiny(36, 3, "iris")
    monkeypatch.setattr(zhuang2011, "_load", lambda names, home: ([small], []))
    res = reproduce(["tiny-ch3"], splits=1, cache_dir=tmp_path / "c", out=tmp_path / "r.md",
                    json_path=tmp_path / "r.json")
    text = (tmp_path / "r.md").read_text()
    assert "Table 3.2 (Rand index" in text and "| iris | simplenpkl-shl | text | 1 |" in text
    # SimpleNPKL's default Laplacian (D - W) is the second reading, counted by its own ledger
    assert "| iris | simplenpkl-shl | default | 1 |" in text
    assert "### The same ledger under the estimators' defaults" in text
    assert "| zhuang2011 3.2 | tiny-ch3 | iris | simplenpkl-shl |" in text
    assert "Table 3.4 (Iris" in text and "Table 3.5 (Iris" in text
    assert "ours with D - W" in text
    assert "LL speed-up" in text
    rows = res["tiny-ch3"]["rows"]
    shl = [r for r in rows if r["method"] == "simplenpkl-shl"
           and r.get("paper_table") == "zhuang2011 3.2" and r["reading"] == "text"][0]
    assert shl["paper"] == 97.4 and shl["gap"] == pytest.approx(shl["mean"] - 97.4)
    claims = dict(zhuang2011._npkl_claims(res))
    assert claims and not any(v.startswith("not run") for k, v in claims.items()
                              if k.startswith("Table 3.4"))
    again = reproduce(["tiny-ch3"], splits=1, cache_dir=tmp_path / "c", out=None,
                      json_path=None)
    assert again["tiny-ch3"]["rows"] == rows  # from the cache


def test_section_cells_of_older_code_are_recomputed(tmp_path, monkeypatch):
    from proxlearn.study import _runner
    from proxlearn.study._reproduce import _section
    from proxlearn.study._section import _cached

    calls = []

    def compute():
        calls.append(1)
        return {"x": len(calls)}

    mods = _section("zhuang2011-ch3").modules
    assert _cached(tmp_path, "cell", [1, 2], compute, mods) == ({"x": 1}, pytest.approx(
        0, abs=1), False)
    assert _cached(tmp_path, "cell", [1, 2], compute, mods)[2] is True and len(calls) == 1
    real = _runner._module_source_hash
    monkeypatch.setattr(_runner, "_module_source_hash",
                        lambda m: "edited" if m == "proxlearn.cluster._npkl" else real(m))
    value, _, cached = _cached(tmp_path, "cell", [1, 2], compute, mods)
    assert not cached and value == {"x": 2}
