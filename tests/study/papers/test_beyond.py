"""The "beyond the papers" sections: registration, scoring, and their cells on small data."""

from dataclasses import replace

import numpy as np
import pytest
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import StratifiedShuffleSplit

from proxlearn.datasets import list_datasets
from proxlearn.study import METHODS, PROTOCOLS
from proxlearn.study._reproduce import SECTIONS, _run_study_section, _section
from proxlearn.study.papers import PAPERS, beyond
from proxlearn.study.papers.beyond._scoring import (
    one_class_aucs,
    pivot_table,
    regression_partitions,
    regression_r2,
    score_rows,
)

KEYS = ("beyond-krein", "beyond-regression", "beyond-novelty")


def _available(name):
    return any(r.name == name and r.available for r in list_datasets())


def test_sections_register_with_their_methods_and_protocol():
    keys = [s.key for s in SECTIONS]
    assert all(k in keys for k in KEYS)
    assert beyond in PAPERS and beyond.claims({}) == []
    krein = _section("beyond-krein")
    assert krein.protocol in PROTOCOLS and PROTOCOLS[krein.protocol].grids == "beyond"
    assert all(m in METHODS for m in krein.methods)
    for key in ("beyond-regression", "beyond-novelty"):
        sec = _section(key)
        # their own runner; a protocol name the study runner does not rebuild from JSON
        assert sec.runner is not None and sec.protocol not in PROTOCOLS
        assert sec.modules  # part of their cache keys


def test_every_real_similarity_set_is_in_the_krein_section():
    real = {r.name for r in list_datasets() if not r.name.startswith("synthetic")
            and not r.name.endswith("-multi") and r.name != "protein-rbf-sq"}
    assert real <= set(_section("beyond-krein").datasets)


def test_one_class_aucs_is_the_mean_auc_over_inlier_classes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c * 4.0, 1.0, size=(12, 2)) for c in range(3)])
    y = np.repeat([0, 1, 2], 12)
    S = X @ X.T

    def score(S_tr, S_te):  # mean similarity to the inliers: a reasonable detector
        return S_te.mean(axis=1)

    got = one_class_aucs(S, y, score, n_splits=2, seed=3)
    want = []
    for tr, te in StratifiedShuffleSplit(2, test_size=0.3, random_state=3).split(X, y):
        want.append(np.mean([roc_auc_score(y[te] == c, S[np.ix_(te, tr[y[tr] == c])].mean(axis=1))
                             for c in range(3)]))
    assert np.allclose(got, want)
    flipped = one_class_aucs(S, y, lambda a, b: -score(a, b), n_splits=2, seed=3)
    assert np.allclose(np.asarray(got) + np.asarray(flipped), 1.0)


def test_regression_r2_scores_the_test_rows():
    rng = np.random.default_rng(1)
    y = rng.normal(size=30)
    S = np.outer(y, y)  # the test rows carry y_test * y_train
    parts = regression_partitions(30, 3, seed=0)
    assert all(len(te) == 9 and not set(tr) & set(te) for tr, te in parts)

    def oracle(S_tr, y_tr, S_te):
        return S_te @ y_tr / (y_tr @ y_tr)  # recovers y_test exactly

    assert np.allclose(regression_r2(S, y, oracle, parts), 1.0)
    mean = regression_r2(S, y, lambda S_tr, y_tr, S_te: np.full(len(S_te), y_tr.mean()), parts)
    want = [r2_score(y[te], np.full(len(te), y[tr].mean())) for tr, te in parts]
    assert np.allclose(mean, want)


def test_score_rows_bold_the_highest_and_not_the_significantly_lower():
    good = [0.9, 0.8, 0.85, 0.95, 0.9]
    rows = score_rows({"d": {"good": good, "bad": [v - 0.2 for v in good],
                             "tied": [0.91, 0.79, 0.86, 0.94, 0.9]}}, "auc", 5)
    best = {r["method"]: r["best"] for r in rows}
    assert best == {"good": True, "bad": False, "tied": True}
    row = next(r for r in rows if r["method"] == "good")
    assert np.isclose(row["mean"], np.mean(good)) and np.isclose(row["std"], np.std(good, ddof=1))
    lines = pivot_table(rows, ("good", "bad", "tied", "absent"), digits=2)
    assert lines[0] == "| data set | good | bad | tied |"
    se = np.std(good, ddof=1) / np.sqrt(5)
    assert f"**{np.mean(good):.2f} +- {se:.2f}**" in lines[2]
    assert lines[-1].endswith("| 1 | 0 | 1 |")


def test_regression_cells_run_and_are_cached(tmp_path):
    sec = replace(_section("beyond-regression"), datasets=("diabetes",),
                  methods=("kernel-ridge", "krein-ls", "sk-krr-clip", "simple-mkl-svr"))
    kw = dict(splits=2, jobs=1, cache_dir=tmp_path, seed=0, data_home=None, progress=None)
    out = sec.runner(sec, **kw)
    values = out["results"]["diabetes"]
    assert "simple-mkl-svr" not in values  # diabetes has no stack
    for m in ("kernel-ridge", "krein-ls", "sk-krr-clip"):
        assert len(values[m]["values"]) == 2 and all(0.2 < v < 0.8 for v in values[m]["values"])
    assert out["cached_cells"] == 0 and out["cells"] == 3
    again = sec.runner(sec, **kw)
    assert again["cached_cells"] == 3 and again["results"] == out["results"]
    assert "diabetes" in "\n".join(sec.formatter(out))


@pytest.mark.skipif(not _available("aural_sonar"), reason="UW aural_sonar not on the data path")
def test_novelty_cells_run_on_aural_sonar():
    sec = replace(_section("beyond-novelty"), datasets=("aural_sonar",),
                  methods=("ocsvm", "sk-ocsvm-clip", "simple-mkl-ocsvm"))
    out = sec.runner(sec, splits=2, jobs=1, cache_dir=None, seed=0, data_home=None,
                     progress=None)
    values = out["results"]["aural_sonar"]
    assert set(values) == {"ocsvm", "sk-ocsvm-clip"}  # no stack for aural_sonar
    assert all(0.6 < v <= 1.0 for m in values for v in values[m]["values"])
    assert {r["metric"] for r in out["rows"]} == {"auc"}


@pytest.mark.skipif(not _available("aural_sonar"), reason="UW aural_sonar not on the data path")
def test_krein_cells_report_accuracy():
    sec = replace(_section("beyond-krein"), datasets=("aural_sonar",),
                  methods=("krein-svc", "krein-ls", "svc-clip"))
    out = _run_study_section(sec, splits=2, jobs=1, cache_dir=None, seed=0, data_home=None,
                             progress=None)
    assert {r["metric"] for r in out["rows"]} == {"accuracy"}
    assert all(70.0 <= r["mean"] <= 100.0 for r in out["rows"])
    assert "krein-svc" in "\n".join(sec.formatter(out))
