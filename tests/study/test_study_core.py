"""Protocols, registry, nested-CV runner, cache and reports of proxlearn.study."""

import json
import warnings

import numpy as np
import pytest

from proxlearn._validation import InvalidParameterError
from proxlearn.datasets import SimilarityDataset
from proxlearn.study import (
    load_targets,
    METHODS,
    agreement,
    get_method,
    get_protocol,
    inner_folds,
    make_partitions,
    not_worse_than_best,
    plot_errors,
    run_cell,
    run_study,
    summary_rows,
    to_latex,
    to_markdown,
)


def _blobs(n_per=20, seed=0, noise=0.5):
    """Linear kernel of 3 Gaussian blobs plus symmetric noise (indefinite)."""
    rng = np.random.default_rng(seed)
    means = np.array([[-3, 3], [3, -3], [3, 3]], dtype=float)
    X = np.vstack([m + rng.normal(size=(n_per, 2)) for m in means])
    y = np.repeat(np.arange(3), n_per)
    Z = rng.normal(scale=noise, size=(len(y), len(y)))
    S = X @ X.T + (Z + Z.T) / 2
    return SimilarityDataset(matrix=S, labels=y, name=f"blobs{seed}")


def test_protocol_table_and_overrides():
    p = get_protocol("chen2009")
    assert (p.n_splits, p.test_size, p.cv) == (20, 0.2, 10)
    assert get_protocol("gu2012").n_splits == 50
    q = get_protocol("chen2009", n_splits=3, cv=None)
    assert q.n_splits == 3 and q.cv == 10
    with pytest.raises(InvalidParameterError, match="unknown protocol"):
        get_protocol("chen2010")
    with pytest.raises(InvalidParameterError, match="test size"):
        get_protocol("custom", test_size=1.5)


def test_partitions_disjoint_stratified_and_seeded():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    p = get_protocol("chen2009", n_splits=4)
    parts = make_partitions(y, p, seed=3)
    assert len(parts) == 4
    for tr, te in parts:
        assert len(te) == 20 and len(tr) == 80
        assert not set(tr) & set(te)
        assert np.bincount(y[te]).tolist() == [10, 6, 4]  # stratified
    again = make_partitions(y, p, seed=3)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(parts, again, strict=True))
    other = make_partitions(y, p, seed=4)
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(parts, other, strict=True))


def test_balanced_partitions_kundu():
    y = np.repeat([0, 1], [40, 11])
    parts = make_partitions(y, get_protocol("kundu2010"), seed=0)
    assert len(parts) == 5
    for tr, te in parts:
        assert np.bincount(y[te]).tolist() == [3, 3]  # ceil(0.2 * 11) of each class
        assert np.bincount(y[tr]).tolist() == [8, 8]  # the rest of the minority, balanced
        assert not set(tr) & set(te)
    # the unused majority samples differ between partitions
    assert len({tuple(tr) for tr, _ in parts}) == 5


def test_f_score_is_f1_of_the_larger_label_or_macro():
    from proxlearn.study._runner import f_score_pct

    y_true = np.array([-1, -1, 1, 1, 1])
    y_pred = np.array([-1, 1, 1, 1, -1])
    # positive class +1: precision 2/3, recall 2/3
    assert f_score_pct(y_true, y_pred, [-1, 1]) == pytest.approx(100 * 2 / 3)
    # swapping which label is "larger" changes the answer: class -1 has F1 1/2
    assert f_score_pct(-y_true, -y_pred, [-1, 1]) == pytest.approx(50.0)
    y3 = np.array([0, 1, 2, 2])
    assert f_score_pct(y3, y3, [0, 1, 2]) == pytest.approx(100.0)
    assert f_score_pct(y3, np.array([0, 1, 2, 0]), [0, 1, 2]) < 100.0


def test_kundu_tables_compare_accuracy_and_report_f_score():
    from proxlearn.study import StudyResult
    from proxlearn.study._runner import CellResult

    p = get_protocol("kundu2010")
    cells = [
        CellResult("aural_sonar", "svm-clip", i, e, {}, 0.0, 0.0, f_score=f)
        for i, (e, f) in enumerate([(10.0, 90.0), (15.0, 84.0), (20.0, 80.0), (10.0, 89.0), (15.0, 85.0)])
    ]
    r = StudyResult(protocol=p, seed=0, cells=cells)
    (row,) = summary_rows(r)
    assert row["metric"] == "accuracy"
    assert row["mean"] == pytest.approx(86.0) and row["f_score"] == pytest.approx(85.6)
    assert row["paper"] == pytest.approx(87.0)  # Kundu Table 2 accuracy, from targets.csv
    assert row["sigma_source"] == "ours"  # the paper prints no spread
    js = r.to_json()["aural_sonar"]["svm-clip"]
    assert js["accuracy"]["values"] == [90.0, 85.0, 80.0, 90.0, 85.0]
    assert js["f_score"]["mean"] == pytest.approx(85.6)
    md = to_markdown(r)
    assert "F-score" in md and "accuracy" in md and "agrees*" in md


def test_gu2012_plus_minus_read_as_standard_errors():
    from proxlearn.study._report import _paper_cell

    targets = load_targets()
    row, sigma, source = _paper_cell(targets, "gu2012", "aural_sonar", "svm-clip")
    assert row.std is not None
    assert sigma == pytest.approx(row.std * np.sqrt(50)) and "SE" in source
    row, sigma, source = _paper_cell(targets, "chen2009", "aural_sonar", "svm-clip")
    assert sigma == row.std and source == "paper"


def test_inner_folds_fallback_warns():
    y = np.array([0] * 10 + [1] * 2)
    with pytest.warns(UserWarning, match="unstratified"):
        folds = inner_folds(y, 5, seed=0)
    assert len(folds) == 5
    covered = np.sort(np.concatenate([v for _, v in folds]))
    assert np.array_equal(covered, np.arange(12))


def test_registry_names_and_grids():
    for name in ("svm-clip", "svm-flip", "svm-shift", "svm-features-linear", "local-sda",
                 "svm-knn", "svm-knn-flip", "svm-knn-shift",
                 "svm-features-rbf", "psvm", "lp-machine", "ikfd", "knn", "knn-kri", "knn-krr"):
        assert name in METHODS
    with pytest.raises(InvalidParameterError, match="valid methods are: .*svm-clip"):
        get_method("svm-clop")
    knn = get_method("knn")
    assert max(p["n_neighbors"] for p in knn.grid("chen2009", n_train=30)) == 16
    assert len(knn.grid("chen2009")) == 19
    assert len(get_method("svm-features-rbf").grid("chen2009")) == 35
    assert len(get_method("svm-clip").grid("chen2009")) == 9
    assert len(get_method("svm-clip").grid("gu2012")) == 5


@pytest.mark.parametrize("name", ["svm-clip", "svm-flip", "svm-shift",
                                  "svm-features-linear", "svm-features-rbf", "knn",
                                  "knn-affinity", "knn-kri", "knn-krr", "knn-krr-flip",
                                  "svm-knn", "svm-knn-flip", "svm-knn-shift",
                                  "psvm", "lp-machine"])
def test_fold_evaluators_match_the_estimators(name):
    d = _blobs(seed=1)
    tr, te = np.arange(0, 60, 2), np.arange(1, 60, 2)
    S, y = d.matrix, d.labels
    method = get_method(name)
    grid = method.grid("chen2009", n_train=len(tr))[::4]
    fast = method.evaluate_grid(S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], grid)
    for params, pred in zip(grid, fast, strict=True):
        ref = method.build(**params).fit(S[np.ix_(tr, tr)], y[tr]).predict(S[np.ix_(te, tr)])
        assert np.array_equal(pred, ref), params


def test_run_cell_picks_best_cv_and_reports_error():
    d = _blobs(seed=2)
    p = get_protocol("custom", n_splits=1, cv=3)
    tr, te = make_partitions(d.labels, p, seed=0)[0]
    out = run_cell(d.matrix, d.labels, "svm-clip", tr, te, p, seed=0)
    assert set(out) == {"error", "f_score", "params", "cv_error", "seconds"}
    assert out["params"]["C"] in get_method("svm-clip").grids["chen2009"]["C"]
    assert 0.0 <= out["error"] <= 100.0
    assert out["error"] < 34.0  # far better than chance on separable blobs


def test_study_json_cache_and_resume(tmp_path):
    data = [_blobs(seed=3), _blobs(seed=4)]
    p = get_protocol("custom", n_splits=3, cv=3)
    seen = []
    r1 = run_study(data, ["svm-clip", "svm-flip"], p, seed=1, cache_dir=tmp_path,
                   progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (12, 12)
    js = r1.to_json()
    assert set(js) == {"blobs3", "blobs4"}
    cell = js["blobs3"]["svm-clip"]
    assert len(cell["errors"]) == 3 and len(cell["params"]) == 3
    assert cell["mean"] == pytest.approx(np.mean(cell["errors"]))
    assert cell["std"] == pytest.approx(np.std(cell["errors"], ddof=1))
    json.dumps(js)  # serialisable
    # a rerun with one more method reuses the finished cells
    r2 = run_study(data, ["svm-clip", "svm-flip", "svm-shift"], p, seed=1, cache_dir=tmp_path)
    cached = [c for c in r2.cells if c.cached]
    assert len(cached) == 12 and all(c.method != "svm-shift" for c in cached)
    assert r2.to_json()["blobs4"]["svm-flip"] == r1.to_json()["blobs4"]["svm-flip"]
    # a different seed does not reuse them
    r3 = run_study(data[:1], ["svm-clip"], p, seed=2, cache_dir=tmp_path)
    assert not any(c.cached for c in r3.cells)


def test_corrupted_cache_is_recomputed(tmp_path):
    data = [_blobs(seed=5)]
    p = get_protocol("custom", n_splits=2, cv=3)
    r1 = run_study(data, ["svm-clip"], p, cache_dir=tmp_path)
    files = sorted(tmp_path.rglob("*.json"))
    assert len(files) == 2
    record = json.loads(files[0].read_text())
    record["payload"]["error"] = 99.0  # tampered: checksum no longer matches
    files[0].write_text(json.dumps(record))
    files[1].write_text("{not json")
    with pytest.warns(UserWarning, match="corrupted"):
        r2 = run_study(data, ["svm-clip"], p, cache_dir=tmp_path)
    assert not any(c.cached for c in r2.cells)
    assert r2.to_json() == r1.to_json()


def test_parallel_jobs_give_same_numbers():
    data = [_blobs(seed=6)]
    p = get_protocol("custom", n_splits=2, cv=3)
    a = run_study(data, ["svm-clip", "svm-features-linear"], p, jobs=1).to_json()
    b = run_study(data, ["svm-clip", "svm-features-linear"], p, jobs=2).to_json()
    assert a == b


def test_dask_local_cluster_gives_same_numbers():
    distributed = pytest.importorskip("dask.distributed")
    data = [_blobs(seed=7)]
    p = get_protocol("custom", n_splits=2, cv=3)
    local = run_study(data, ["svm-clip"], p).to_json()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_study(data, ["svm-clip"], p, scheduler=cluster.scheduler_address).to_json()
    assert remote == local


def test_agreement_rule():
    # R = 20: tolerance 2 * sqrt(2/20) * sigma = 0.632 sigma
    assert agreement(10.0, 10.6, 1.0, 20)
    assert not agreement(10.0, 10.7, 1.0, 20)
    assert agreement(1.0, 2.0, None, 20) is None


def test_wilcoxon_marks_best_and_ties():
    rng = np.random.default_rng(0)
    base = rng.uniform(5, 15, size=20)
    slightly = base.copy()
    slightly[:2] += 0.5  # worse on only 2 of 20 partitions: not significant
    errs = {"a": base, "b": base + 5.0, "d": base.copy(), "e": slightly}
    assert not_worse_than_best(errs) == {"a", "d", "e"}
    assert not_worse_than_best({"x": np.array([3.0])}) == {"x"}


def test_reports(tmp_path):
    data = [_blobs(seed=8)]
    p = get_protocol("custom", n_splits=3, cv=3)
    r = run_study(data, ["svm-clip", "svm-shift"], p)
    rows = summary_rows(r)
    assert {row["method"] for row in rows} == {"svm-clip", "svm-shift"}
    assert any(row["best"] for row in rows)
    md = to_markdown(r)
    assert md.count("\n") == 4 and "**" in md
    assert r"\textbf" in to_latex(r)
    plot_errors(r, tmp_path / "e.png")
    assert (tmp_path / "e.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_paper_cells_are_found_for_chen2009(monkeypatch):
    from proxlearn.study import StudyResult
    from proxlearn.study._runner import CellResult

    p = get_protocol("chen2009", n_splits=2)
    r = StudyResult(protocol=p, seed=0, cells=[
        CellResult("aural_sonar", "svm-clip", i, e, {"C": 1.0}, 0.0, 0.0) for i, e in enumerate([12.0, 14.0])
    ])
    (row,) = summary_rows(r)
    assert row["paper"] is not None and row["paper_table"].startswith("chen")
    assert row["gap"] == pytest.approx(13.0 - row["paper"])


def _svc_class():
    from sklearn.svm import SVC

    return SVC


def _psvm_class():
    from proxlearn.svm import PotentialSVM

    return PotentialSVM


@pytest.mark.parametrize(
    "name, fitted_class",
    [("svm-clip", _svc_class), ("psvm", _psvm_class)],
)
def test_box_inactive_solutions_are_reused_and_exact(monkeypatch, name, fitted_class):
    """SVM: once no dual coefficient hits C; P-SVM: once max|alpha| < C (for a
    fixed epsilon). The box is then inactive and larger C share the solution:
    the evaluator fits fewer machines and predicts as each fit would."""
    cls = fitted_class()
    d = _blobs(seed=9)
    S, y = d.matrix, d.labels
    tr, te = np.arange(0, 60, 2), np.arange(1, 60, 2)
    method = get_method(name)
    grid = method.grid("chen2009")
    fits = []
    original = cls.fit

    def counting_fit(self, *a, **k):
        fits.append(self.C)
        return original(self, *a, **k)

    monkeypatch.setattr(cls, "fit", counting_fit)
    fast = method.evaluate_grid(S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], grid)
    assert len(fits) < len(grid)  # separable blobs saturate before the largest C
    monkeypatch.setattr(cls, "fit", original)
    for params, pred in zip(grid, fast, strict=True):
        ref = method.build(**params).fit(S[np.ix_(tr, tr)], y[tr]).predict(S[np.ix_(te, tr)])
        assert np.array_equal(pred, ref), params


def test_loo_protocol_excludes_self_and_scores_posteriors(tmp_path):
    from proxlearn.study.papers.chen2009._loo import loo_grid, loo_study, plot_perplexity_curves
    from proxlearn.neighbors import SimilarityKNeighborsClassifier

    d = _blobs(n_per=12, seed=10)
    res = loo_study([d], ["knn", "knn-kri"])["blobs10"]
    assert set(res) == {"knn", "knn-kri"}
    assert len(loo_grid("knn-kri", 36)) == 9 * 9  # 9 values of k < 36, 9 lambdas
    for r in res.values():
        assert 1.0 <= r["perplexity"] < 3.0 and 0.0 < r["nce"] <= 1.0
        assert r["curve"]["k"] == [1, 2, 4, 6, 8, 12, 16, 24, 32]
        assert min(r["curve"]["perplexity"]) == pytest.approx(r["perplexity"])
    # the best uniform k-NN perplexity equals an explicit leave-one-out loop
    from proxlearn.metrics import perplexity

    k = res["knn"]["perplexity_params"]["n_neighbors"]
    S, y = d.matrix, d.labels
    S = (S + S.T) / 2
    P = []
    for i in range(len(y)):
        keep = np.delete(np.arange(len(y)), i)
        clf = SimilarityKNeighborsClassifier(n_neighbors=k).fit(S[np.ix_(keep, keep)], y[keep])
        P.append(clf.predict_proba(S[i, keep][None, :])[0])
    assert perplexity(y, np.array(P)) == pytest.approx(res["knn"]["perplexity"], rel=1e-12)
    # the KRI path (one local eigh per k, warm-started QPs) gives the same posteriors
    best = res["knn-kri"]["perplexity_params"]
    P = []
    for i in range(len(y)):
        keep = np.delete(np.arange(len(y)), i)
        clf = SimilarityKNeighborsClassifier(weights="kri", **best)
        clf.fit(S[np.ix_(keep, keep)], y[keep])
        P.append(clf.predict_proba(S[i, keep][None, :])[0])
    assert perplexity(y, np.array(P)) == pytest.approx(res["knn-kri"]["perplexity"], rel=1e-8)
    plot_perplexity_curves({"blobs10": res}, tmp_path / "p.png")
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(InvalidParameterError, match="not a k-NN method"):
        loo_study([d], ["svm-clip"])


def test_dataset_specific_variant_takes_precedence(monkeypatch, tmp_path):
    """``<method>-<dataset>`` registrations (SimMKL's per-data-set base kernels)."""
    from proxlearn.study import Method

    built = []

    def builder(tag):
        def build(**params):
            built.append(tag)
            return get_method("svm-clip").build(**params)

        return build

    monkeypatch.setitem(METHODS, "toy", Method("toy", builder("generic"), {"chen2009": {"C": [1.0]}}))
    monkeypatch.setitem(METHODS, "toy-blobs3", Method("toy-blobs3", builder("blobs3"), {"chen2009": {"C": [1.0]}}))
    assert get_method("toy", "blobs3").name == "toy-blobs3"
    assert get_method("toy", "other").name == "toy"
    p = get_protocol("custom", n_splits=1, cv=2)
    run_study([_blobs(seed=3), _blobs(seed=4)], ["toy"], p, cache_dir=tmp_path)
    assert "blobs3" in built and "generic" in built


def test_cells_of_code_that_gives_other_numbers_are_not_reused(tmp_path, monkeypatch):
    from proxlearn.svm import SimilaritySVC

    data = [_blobs(seed=5)]
    p = get_protocol("custom", n_splits=2, cv=3)
    run_study(data, ["svm-clip", "knn"], p, cache_dir=tmp_path)
    again = run_study(data, ["svm-clip", "knn"], p, cache_dir=tmp_path, cached_only=True)
    assert len(again.cells) == 4 and all(c.cached for c in again.cells)
    # an edit of the estimator that moves its decision values by 1e-6 (relative):
    # the behaviour probe of the cache key sees it, and svm-clip's cells are stale
    real = SimilaritySVC.decision_function
    monkeypatch.setattr(SimilaritySVC, "decision_function",
                        lambda self, S: real(self, S) * (1 + 1e-6))
    stale = run_study(data, ["svm-clip", "knn"], p, cache_dir=tmp_path, cached_only=True)
    assert {c.method for c in stale.cells} == {"knn"}


_TOY = '''"""{doc}"""
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class ToyMean(ClassifierMixin, BaseEstimator):
    """{doc}"""

    def __init__(self, shift=0.0):
        self.shift = shift

    def fit(self, S, y):
        # {doc}
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        self._y = y_idx
        return self

    def decision_function(self, S):
        S = np.asarray(S)
        means = [S[:, self._y == g].mean(axis=1) for g in range(self.classes_.size)]
        return np.column_stack(means) + self.shift{extra}

    def predict(self, S):
        return self.classes_[np.argmax(self.decision_function(S), axis=1)]
'''


def _toy_module(tmp_path, monkeypatch, name, doc, extra=""):
    """A module defining a tiny similarity classifier (nearest class mean of rows)."""
    import importlib
    import sys

    (tmp_path / f"{name}.py").write_text(_TOY.format(doc=doc, extra=extra))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    module = importlib.import_module(name)
    monkeypatch.delitem(sys.modules, name)
    return module


def test_cells_survive_code_that_moves_or_is_reworded(tmp_path, monkeypatch):
    """Issue 36: a move, a renamed module or a new docstring keeps the cached cells;
    a change of numbers does not."""
    from proxlearn.study import Method
    from proxlearn.study._runner import method_behaviour_fingerprint

    old = _toy_module(tmp_path, monkeypatch, "toy_old_home", "The old docstring.")
    moved = _toy_module(tmp_path, monkeypatch, "toy_new_home", "Reworded, elsewhere.")
    changed = _toy_module(tmp_path, monkeypatch, "toy_changed", "The old docstring.",
                          " * 1.001 - 0.3")
    data = _blobs(seed=6)
    p = get_protocol("custom", n_splits=2, cv=2)
    grid = {"chen2009": {"shift": [0.0, 1.0]}}

    def key_with(mod):
        monkeypatch.setitem(METHODS, "toy-mean", Method("toy-mean", mod.ToyMean, grid))
        return method_behaviour_fingerprint("toy-mean", data.name, data.matrix,
                                            data.labels, p)

    key = key_with(old)
    first = run_study([data], ["toy-mean"], p, cache_dir=tmp_path / "cache")
    assert len(first.cells) == 2 and not any(c.cached for c in first.cells)
    assert key_with(moved) == key
    again = run_study([data], ["toy-mean"], p, cache_dir=tmp_path / "cache", cached_only=True)
    assert len(again.cells) == 2 and all(c.cached for c in again.cells)
    assert key_with(changed) != key
    stale = run_study([data], ["toy-mean"], p, cache_dir=tmp_path / "cache", cached_only=True)
    assert stale.cells == []


def test_module_hash_ignores_docstrings_comments_and_the_module_name(tmp_path, monkeypatch):
    from proxlearn.study._runner import _module_source_hash

    names = []
    for name, doc, extra in [("toy_hash_a", "First wording.", ""),
                             ("toy_hash_b", "Second wording, other comment.", ""),
                             ("toy_hash_c", "First wording.", " + 1.0")]:
        _toy_module(tmp_path, monkeypatch, name, doc, extra)
        names.append(name)
    a, b, c = (_module_source_hash(n) for n in names)
    assert a == b and a != c
    with pytest.raises(ImportError):
        _module_source_hash("proxlearn.no_such_module_here")


def test_module_hash_ignores_where_internal_imports_come_from_and_their_order():
    """A module moved to another package rewrites its relative imports (and an edit
    may sort them): the same code keeps its hash; importing another name does not."""
    from proxlearn.study._runner import _code_without_docstrings

    body = "\n\ndef f(x):\n    return check_similarity(x) + top_k_similar(x, 1)[0]\n"
    here = ("from .._validation import check_similarity\n"
            "from .._graph import top_k_similar\nimport numpy as np\n" + body)
    moved = ("import numpy as np\nfrom ..._graph import top_k_similar\n"
             "from proxlearn._validation import check_similarity\n" + body)
    other = ("from .._validation import check_test_similarity as check_similarity\n"
             "from .._graph import top_k_similar\nimport numpy as np\n" + body)
    assert _code_without_docstrings(here) == _code_without_docstrings(moved)
    assert _code_without_docstrings(here) != _code_without_docstrings(other)


def test_every_section_module_of_the_cache_keys_imports():
    from proxlearn.study._reproduce import SECTIONS
    from proxlearn.study._runner import _module_source_hash

    custom = [s for s in SECTIONS if s.runner is not None]
    assert len(custom) == 6 and all(s.modules for s in custom)  # 2 of them: study.papers.beyond
    for s in custom:
        for m in s.modules:
            assert len(_module_source_hash(m)) == 16, m
