"""Zhuang (2011) Tables 3.8-3.9 in the reproduction report."""

import numpy as np
import pytest
from sklearn.datasets import load_wine

from proxlearn.datasets import FeatureDataset
from proxlearn.study import _reproduce
from proxlearn.study.papers.zhuang2011 import _embeddings
from proxlearn.study.papers.zhuang2011._embeddings import (
    embedding_run,
    embedding_tables,
    knn_accuracy,
    sample_two_largest,
)
from proxlearn.study.papers import zhuang2011
from proxlearn.study.papers.zhuang2011 import _embed_claims, _embed_md


def test_sample_takes_the_two_largest_classes_z_scored():
    X, y = load_wine(return_X_y=True)  # classes of 59, 71, 48
    Xs, ys, _ = sample_two_largest(X, y, 0)
    assert Xs.shape == (100, 13) and set(np.unique(ys)) == {0, 1}
    np.testing.assert_allclose(Xs.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(Xs.std(0), 1, atol=1e-12)
    again, _, _ = sample_two_largest(X, y, 0)
    np.testing.assert_array_equal(again, Xs)


def test_knn_accuracy_on_separable_and_on_random_embeddings():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 50)
    Y = np.c_[y * 10.0, np.zeros(100)] + rng.normal(size=(100, 2)) * 0.1
    assert knn_accuracy(Y, y, np.random.default_rng(1)) == 100.0
    acc = knn_accuracy(rng.normal(size=(100, 2)), y, np.random.default_rng(1))
    assert 0 <= acc <= 100 and acc % 5 == 0  # 20 test points


def test_tables_pair_the_sdp_runs_and_report_speedups(monkeypatch):
    X, y = load_wine(return_X_y=True)
    ds = FeatureDataset(X, y, name="wine")
    monkeypatch.setattr(_embeddings, "EMBED_METHODS", ("kpca", "mve-npkl", "spe-npkl"))
    monkeypatch.setattr(_embeddings, "SDP_EMBED_METHODS", ("spe-npkl",))
    seen = []

    def cache(name, key, compute):
        seen.append(name)
        return compute()

    t = embedding_tables([ds], reps=2, sdp_reps=1, cache=cache)
    assert seen == ["ch3-embed-wine-0", "ch3-embed-wine-1"]
    rows = {r["method"]: r for r in t["table_3_8"]}
    assert rows["kpca"]["n_partitions"] == 2 and rows["spe-npkl"]["n_partitions"] == 1
    assert all(0 <= r["mean"] <= 100 for r in rows.values())
    assert rows["kpca"]["paired_mean"] is not None  # over the run all methods have


def test_report_block_and_claims():
    out = {"protocol": "zhuang2011-ch3-embed", "rows": [], "table_3_9": []}
    for d in ("a", "b"):
        for m, v in (("kpca", 80), ("mve", 70), ("mve-npkl", 72), ("spe", 60), ("spe-npkl", 65)):
            out["rows"].append({"dataset": d, "method": m, "n_partitions": 2, "mean": v,
                                "std": 1.0, "paper": 70.0, "paper_std": 5.0, "gap": v - 70,
                                "agrees": abs(v - 70) < 5, "paired_mean": v, "errors": []})
        out["table_3_9"].append({"dataset": d, "n_runs": 2, "kpca_cpu": 0.01, "mve_cpu": 5.0,
                                 "mve-npkl_cpu": 0.1, "spe_cpu": 10.0, "spe-npkl_cpu": 0.1,
                                 "speedup_mve": 50.0, "speedup_spe": 100.0})
    text = "\n".join(_embed_md(out))
    assert "| a | spe-npkl | 2 | 65.0 |" in text and "| a | 2 | 5.00 | 0.100 | 50.0 |" in text
    claims = dict(_embed_claims({"x": out}))
    verdicts = list(claims.values())
    # SPE+NPKL is 5 points above SPE: beyond the 3 points read as "comparable"
    assert verdicts[0] == ("does NOT hold (NPKL minus SDP, mean over 2 sets: MVE +2.0, "
                           "SPE +5.0)")
    assert verdicts[1].startswith("holds (2 of 2")
    assert verdicts[2].startswith("holds (MVE 50.0-50.0x, SPE 100.0-100.0x)")
    assert all(v == "not run" for v in dict(_embed_claims({})).values())


def test_one_repetition_runs_the_methods_on_real_data():
    X, y = load_wine(return_X_y=True)
    out = embedding_run(X, y, 0, methods=("kpca", "spe-npkl"))
    for m in ("kpca", "spe-npkl"):
        assert 0 <= out[m]["acc"] <= 100 and out[m]["cpu"] >= 0
    assert out["kpca"]["acc"] > 80  # wine's two largest classes are nearly separable
    assert _reproduce._section("zhuang2011-ch3-embed").runner is zhuang2011._run_embed_section


@pytest.mark.parametrize("name", ["zhuang2011-ch3", "zhuang2011-ch3-embed"])
def test_sections_are_listed(name):
    assert name in {s.key for s in _reproduce.SECTIONS}
