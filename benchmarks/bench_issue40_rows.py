"""Issue 40's table "What was measured", every row re-measured at the current defaults.

The issue's second "Done when" bullet: *the rows above, re-measured, are at least as
good as their baselines; TwoLayerMKL warns (ConvergenceWarning) wherever it stops
without progress.* Each section below re-runs one group of the table's rows with the
issue's data, protocol and baseline, at today's defaults, with the project's CV variant
beside it where there is one, and prints one record per row: the issue's number, the
number now (mean +- standard error over the draws / splits), the baseline on the same
draws, median CPU seconds of one fit, and a verdict from the paired differences
``d_k = score_k - baseline_k``: *better* / *worse* when ``|mean d| > 2 se(d)``, else
*tied*. Against a constant (a time limit, the thesis's number) the verdict compares
the mean with the constant +- 2 s.e. of the mean.

Sections (``--rows``; data through :func:`proxlearn.datasets.load_feature_dataset` /
:func:`~proxlearn.datasets.load_dataset`, UCI files from ``$PROXLEARN_DATA`` or
../shared/data):

``npkl``
    SimpleNPKL + KernelKMeans with ``make_pairwise_constraints(y, r, random_state=draw)``,
    features z-scored (``StandardScaler`` on the whole set), 5 draws: Iris and Wine at
    r = 0.7 (also ``SimpleNPKL(C=100)``), Iris / Wine / Heart at r = 0.3; baseline
    scikit-learn ``KMeans(n_classes, n_init=10, random_state=draw)``, Rand index x100;
    ``SimpleNPKLCV()`` beside; metric-learn's ``ITML`` (pairs from the same constraints,
    then k-means on the transformed features) when metric-learn is importable (it is
    not a dependency: e.g. ``pip install --target DIR --no-deps metric-learn`` and DIR
    on ``PYTHONPATH``).
``readme-npkl``
    The issue's README chapter-3 row: ``SimpleNPKL("square-hinge", C=0.1)`` +
    ``KernelKMeans`` on Wine (r = 0.7, 5 draws), raw features (as the README passes
    ``wine.X``) and z-scored, against k-means on the z-scored features (the issue's
    95.4); and the README as written today (``SimpleNPKL()``, z-scored Wine, draw 0).
``eskl``
    ESKL / REKL inductive on a real two-class similarity matrix. The issue does not
    name its "real 200 x 200 two-class similarity matrix": here voting, sonar-noisy,
    heart-noisy and ionosphere-noisy, each a stratified 200-row subset
    (``random_state=0``, as ``bench_kundu.py --real``), 5 splits (the issue: 3) of 20
    test rows per class, 160 training rows. Baseline ``SimilaritySVC(spectrum="clip")``.
    ``ESKL()``, ``REKL()``, ``ESKLCV()``, ``REKLCV()``, ``ESKL(transductive=True)`` (the
    unlabelled test rows given to ``fit``), ``ESKL(C, rho)`` over the issue's 3 x 3 grid
    (inductive: 5 splits, beside the clip SVM at the same C; transductive: split 0),
    and the fit time at n = 160 against one clip-SVM fit (alternating, medians of 5,
    CPU seconds).
``two-layer``
    ``TwoLayerMKL(bank=KernelBank())`` and ``TwoLayerMKLCV(bank=KernelBank())`` on UCI
    Heart, 10 random stratified 50/50 splits (the issue: 3), against ``SVC(kernel="rbf",
    gamma="scale")`` on the features z-scored on the training half.
``umkl``
    ``make_pipeline(UMKL(bank=KernelBank()), SVC(kernel="precomputed"))`` (the README's
    pipeline) on the UCI sets of the reproduction report's UMKL section that fit here
    (heart, sonar, liver, australian, diabetes, breast; german's bank is 650 MB, left
    out), 20 random 50/50 splits (the zhuang2011 protocol's number): against the
    thesis's UMKL column (Table 5.2, C by CV there; agreement by the reproduction
    report's rule ``|ours - thesis| <= 2 sqrt(2/R) sigma``) and the RBF SVC on the
    same splits; and on Wine (the README's split, then
    5 random 70/30 splits): training and test accuracy against the RBF SVC's.
``small-scale``
    ``TwoLayerMKL(spectrum=None)`` on stacks of 24 points and 3 kernels, one at 1e-3
    of its scale (the generator of tests/mkl/test_two_layer.py, seeds 0-19; the issue's
    instance: objective 313.5 where 0.587 is reachable): objective reached against a
    long run (``tol=1e-9, max_iter=500``), whether it moved from its start, whether it
    stopped far from the long run's objective with the projected gradient above ``tol``
    and no warning, and the ConvergenceWarnings it gave; at the default penalty and at
    the literal ``penalty="thesis"``.
``readme``
    Every fenced Python block of README.md (found as tests/test_readme.py finds them)
    executed as written in a fresh interpreter (imports counted): wall and CPU seconds
    of the child, the warnings it raised; the limit is one minute, with no
    ConvergenceWarning.
``mve``
    ``MVE(n_components=2).fit_transform`` on Wine as the README calls it (raw
    features) and z-scored: CPU seconds, warnings; kernel PCA
    (``KernelPCA(n_components=2)``) on the same features as the baseline; quality by
    leave-one-out 1-NN accuracy in 2-D.

Run (from the repository root; one BLAS thread; single process)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/bench_issue40_rows.py --out issue40_rows.json
    python benchmarks/bench_issue40_rows.py --report issue40_rows.json   # Markdown table

``--rows eskl umkl`` runs some sections only; ``--draws`` lowers the number of
constraint draws (5) for a quick look.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

from _bench_env import REPO  # noqa: I001  (first: threads and sys.path before numpy)

import numpy as np  # noqa: E402

from _defaults_panel import data_home  # noqa: E402
from _timing import timed_alternating  # noqa: E402

from sklearn.exceptions import ConvergenceWarning  # noqa: E402

RECORDS: list[dict] = []


# --------------------------------------------------------------------------- helpers

def mean_se(v):
    v = np.asarray(v, dtype=float)
    se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0
    return float(v.mean()), se


def paired_verdict(score, base):
    """better / tied / worse from the paired differences (2 standard errors)."""
    d = np.asarray(score, float) - np.asarray(base, float)
    m, se = mean_se(d)
    if abs(m) <= 2 * se or (se == 0 and abs(m) < 1e-9):
        return "tied"
    return "better" if m > 0 else "worse"


def constant_verdict(score, const, higher_is_better=True):
    m, se = mean_se(score)
    if abs(m - const) <= 2 * se or (se == 0 and abs(m - const) < 1e-9):
        return "tied"
    return "better" if (m > const) == higher_is_better else "worse"


def record(section, issue_row, data, estimator, issue, scores, baseline_label, base,
           seconds=None, verdict=None, note="", unit="", base_const=None):
    """One row of the output; ``scores`` / ``base`` are per-draw lists (or None)."""
    now = mean_se(scores) if scores is not None else None
    b = mean_se(base) if base is not None else ((base_const, 0.0) if base_const is not None
                                                 else None)
    if verdict is None:
        if base is not None and scores is not None:
            verdict = paired_verdict(scores, base)
        elif base_const is not None and scores is not None:
            verdict = constant_verdict(scores, base_const)
        else:
            verdict = ""
    rec = {"section": section, "issue_row": issue_row, "data": data, "estimator": estimator,
           "issue": issue, "now": now, "n": None if scores is None else len(scores),
           "baseline_label": baseline_label, "baseline": b, "unit": unit,
           "seconds": seconds, "verdict": verdict, "note": note}
    RECORDS.append(rec)
    now_s = "-" if now is None else f"{now[0]:.1f} +- {now[1]:.1f}"
    b_s = "-" if b is None else f"{b[0]:.1f} +- {b[1]:.1f}"
    sec = "" if seconds is None else f" ({seconds:.3g} s)"
    print(f"[{section}] {data} | {estimator} | issue {issue} | now {now_s}{sec} | "
          f"{baseline_label} {b_s} | {verdict} {note}", flush=True)
    return rec


def cpu(fn):
    """``(CPU seconds, result, warnings)`` of ``fn()`` (every warning recorded)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = time.process_time()
        out = fn()
        t = time.process_time() - t
    return t, out, list(w)


def n_conv(ws):
    return sum(issubclass(x.category, ConvergenceWarning) for x in ws)


def zscore(X_tr, X_te=None):
    from sklearn.preprocessing import StandardScaler
    sc = StandardScaler().fit(X_tr)
    return sc.transform(X_tr), (None if X_te is None else sc.transform(X_te))


def feature_set(name):
    from proxlearn.datasets import load_feature_dataset
    ds = load_feature_dataset(name, data_home=data_home())
    return np.asarray(ds.X, float), np.unique(np.asarray(ds.labels), return_inverse=True)[1]


def rbf_svc():
    from sklearn.svm import SVC
    return SVC(kernel="rbf", gamma="scale")


# --------------------------------------------------------------------------- npkl

def _itml():
    """metric-learn's ITML, or None when metric-learn is not importable. metric-learn
    0.7.0 passes scikit-learn's ``force_all_finite``, renamed ``ensure_all_finite`` in
    scikit-learn 1.6 and removed in 1.8: its input checks get the new name here."""
    try:
        import metric_learn._util as mlu
        from metric_learn import ITML
    except ImportError:
        return None
    if not getattr(mlu, "_renamed", False):
        import sklearn.utils.validation as skv

        def check_array(*args, force_all_finite=True, **kw):
            return skv.check_array(*args, ensure_all_finite=force_all_finite, **kw)

        def check_X_y(*args, force_all_finite=True, **kw):
            return skv.check_X_y(*args, ensure_all_finite=force_all_finite, **kw)

        mlu.check_array, mlu.check_X_y, mlu._renamed = check_array, check_X_y, True
    return ITML


def npkl_scores(X, y, r, draws, configs, with_cv=True, with_itml=True):
    """Rand x100 per draw for each config (SimpleNPKL kwargs), k-means, CV and ITML."""
    from sklearn.cluster import KMeans

    from proxlearn.cluster import (KernelKMeans, SimpleNPKL, SimpleNPKLCV,
                                   make_pairwise_constraints, rand_index)

    c = int(y.max()) + 1
    ITML = _itml() if with_itml else None
    scores = {k: [] for k in ["k-means", *configs]}
    secs = {k: [] for k in configs}
    warns = {k: 0 for k in configs}
    if with_cv:
        scores["SimpleNPKLCV()"], secs["SimpleNPKLCV()"], warns["SimpleNPKLCV()"] = [], [], 0
    if ITML is not None:
        scores["ITML + k-means"], secs["ITML + k-means"], warns["ITML + k-means"] = [], [], 0
    for d in range(draws):
        pc = make_pairwise_constraints(y, r=r, random_state=d)
        scores["k-means"].append(rand_index(
            y, KMeans(c, n_init=10, random_state=d).fit_predict(X)))
        makers = {k: (lambda kw=kw: SimpleNPKL(**kw).fit_transform(X, pc))
                  for k, kw in configs.items()}
        if with_cv:
            makers["SimpleNPKLCV()"] = lambda: SimpleNPKLCV().fit(X, pc).kernel_
        for k, make in makers.items():
            t, K, ws = cpu(make)
            secs[k].append(t)
            warns[k] += n_conv(ws)
            scores[k].append(rand_index(
                y, KernelKMeans(c, random_state=d).fit_predict(K)))
        if ITML is not None:
            itml = ITML(preprocessor=X, random_state=d)
            t, _, ws = cpu(lambda: itml.fit(pc.pairs, pc.labels))
            secs["ITML + k-means"].append(t)
            warns["ITML + k-means"] += n_conv(ws)
            Z = itml.transform(X)
            scores["ITML + k-means"].append(rand_index(
                y, KMeans(c, n_init=10, random_state=d).fit_predict(Z)))
    return scores, secs, warns, len(pc)


def section_npkl(draws):
    issue = {  # (set, r) -> {label: issue's number}
        ("iris", 0.7): {"SimpleNPKL()": "53.4", "SimpleNPKL(C=100)": "36.6", "k-means": "83.2"},
        ("wine", 0.7): {"SimpleNPKL()": "51.1", "SimpleNPKL(C=100)": "36.6", "k-means": "95.4"},
        ("iris", 0.3): {"SimpleNPKL()": "78.0", "k-means": "83.1", "ITML + k-means": "97.4"},
        ("wine", 0.3): {"SimpleNPKL()": "83.1", "k-means": "95.4", "ITML + k-means": "98.8"},
        ("heart", 0.3): {"SimpleNPKL()": "70.7", "k-means": "72.6", "ITML + k-means": "72.6"},
    }
    if _itml() is None:
        print("metric-learn is not importable: the ITML column is left out", flush=True)
    for (name, r), iss in issue.items():
        X, y = feature_set(name)
        X, _ = zscore(X)
        configs = {"SimpleNPKL()": {}}
        if r == 0.7:
            configs["SimpleNPKL(C=100)"] = {"C": 100.0}
        scores, secs, warns, n_pairs = npkl_scores(X, y, r, draws, configs,
                                                   with_itml=(r == 0.3))
        label = f"{name} (z-scored), r = {r:g} ({n_pairs} pairs)"
        for k in scores:
            if k == "k-means":
                continue
            sec = float(np.median(secs[k]))
            note = f"{warns[k]} ConvergenceWarnings" if warns[k] else ""
            record("npkl", f"SimpleNPKL + KernelKMeans, r = {r:g}", label, k + " + KernelKMeans"
                   if k.startswith("Simple") else k, iss.get(k, ""), scores[k], "k-means",
                   scores["k-means"], seconds=sec, unit="Rand x100", note=note)
            if k == "SimpleNPKL()" and "ITML + k-means" in scores:
                ratio = float(np.median(secs["ITML + k-means"]) / np.median(secs[k]))
                record("npkl", f"SimpleNPKL + KernelKMeans, r = {r:g}", label,
                       "SimpleNPKL() + KernelKMeans", iss.get(k, ""), scores[k],
                       "ITML + k-means", scores["ITML + k-means"], seconds=sec,
                       unit="Rand x100", note=f"ITML's fit {ratio:.0f}x the SimpleNPKL fit's "
                                              "CPU time")


def section_readme_npkl(draws):
    from sklearn.cluster import KMeans

    from proxlearn.cluster import KernelKMeans, SimpleNPKL, make_pairwise_constraints, rand_index

    Xraw, y = feature_set("wine")
    Xz, _ = zscore(Xraw)
    km_z = [rand_index(y, KMeans(3, n_init=10, random_state=d).fit_predict(Xz))
            for d in range(draws)]
    km_raw = [rand_index(y, KMeans(3, n_init=10, random_state=d).fit_predict(Xraw))
              for d in range(draws)]
    for feats, X in (("raw", Xraw), ("z-scored", Xz)):
        scores, secs = [], []
        for d in range(draws):
            pc = make_pairwise_constraints(y, r=0.7, random_state=d)
            t, K, _ = cpu(lambda: SimpleNPKL("square-hinge", C=0.1).fit_transform(X, pc))
            secs.append(t)
            scores.append(rand_index(y, KernelKMeans(3, random_state=d).fit_predict(K)))
        record("readme-npkl", "README ch. 3: SimpleNPKL(\"square-hinge\", C=0.1) + KernelKMeans",
               f"wine ({feats}), r = 0.7", 'SimpleNPKL("square-hinge", C=0.1) + KernelKMeans',
               "72.1", scores, "k-means (z-scored)", km_z, seconds=float(np.median(secs)),
               unit="Rand x100",
               note=f"k-means on raw wine {mean_se(km_raw)[0]:.1f}" if feats == "raw" else "")
    # the README as written today: wine z-scored (StandardScaler), SimpleNPKL() defaults,
    # draw 0
    pc = make_pairwise_constraints(y, r=0.7, random_state=0)
    t, npkl, _ = cpu(lambda: SimpleNPKL().fit(Xz, pc))
    lab = KernelKMeans(3, random_state=0).fit_predict(npkl.kernel_)
    record("readme-npkl", "README ch. 3 as written today",
           "wine (z-scored, README), r = 0.7, draw 0",
           "SimpleNPKL() + KernelKMeans(3, random_state=0)", "72.1",
           [rand_index(y, lab)], "k-means (z-scored), draw 0", km_z[:1], seconds=t,
           unit="Rand x100", note=f"duality gap {npkl.duality_gap_:.2g}")


# --------------------------------------------------------------------------- eskl

ESKL_SETS = ("voting", "sonar-noisy", "heart-noisy", "ionosphere-noisy")


def eskl_problem(name):
    from sklearn.model_selection import StratifiedShuffleSplit

    from proxlearn.datasets import load_dataset
    d = load_dataset(name, data_home=data_home())
    S, y = np.asarray(d.matrix, float), np.asarray(d.labels)
    idx = next(StratifiedShuffleSplit(1, train_size=200, random_state=0).split(S, y))[0]
    idx = np.sort(idx)
    return S[np.ix_(idx, idx)], y[idx]


def balanced_split(y, k, per_class=20):
    """Split ``k``: 20 test rows of each class, the rest training."""
    rng = np.random.default_rng(1000 + k)
    te = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False)
                         for c in np.unique(y)])
    tr = np.setdiff1d(np.arange(len(y)), te)
    return tr, np.sort(te)


def section_eskl(splits=5):
    from proxlearn.mkl import ESKL, ESKLCV, REKL, REKLCV
    from proxlearn.svm import SimilaritySVC

    grid = [(C, rho) for C in (1.0, 10.0, 100.0) for rho in (0.1, 1.0, 10.0)]
    for name in ESKL_SETS:
        S, y = eskl_problem(name)
        label = f"{name} (200-row subset; 160 train, 20 + 20 test)"
        acc = {k: [] for k in ["clip", "ESKL()", "REKL()", "ESKLCV()", "REKLCV()",
                               "ESKL(transductive=True)", *[f"ESKL(C={C:g}, rho={r:g})"
                                                            for C, r in grid]]}
        secs = {k: [] for k in acc}
        warns = {k: 0 for k in acc}
        grid_trans = {}
        for k in range(splits):
            tr, te = balanced_split(y, k)
            S_tr, S_te, y_tr, y_te = S[np.ix_(tr, tr)], S[np.ix_(te, tr)], y[tr], y[te]
            ests = {"clip": SimilaritySVC(spectrum="clip"), "ESKL()": ESKL(), "REKL()": REKL(),
                    "ESKLCV()": ESKLCV(), "REKLCV()": REKLCV()}
            for C, r in grid:
                ests[f"ESKL(C={C:g}, rho={r:g})"] = ESKL(C=C, rho=r)
            for key, est in ests.items():
                t, _, ws = cpu(lambda est=est: est.fit(S_tr, y_tr))
                secs[key].append(t)
                warns[key] += n_conv(ws)
                acc[key].append(100 * np.mean(est.predict(S_te) == y_te))
            order = np.concatenate([tr, te])
            S_all = S[np.ix_(order, order)]

            def trans(**kw):
                return ESKL(transductive=True, **kw).fit(S_all, y_tr).transduction_

            t, lab, ws = cpu(trans)
            secs["ESKL(transductive=True)"].append(t)
            warns["ESKL(transductive=True)"] += n_conv(ws)
            acc["ESKL(transductive=True)"].append(100 * np.mean(lab == y_te))
            for C in (10.0, 100.0):  # the clip SVM at the grid's C (C = 1 is "clip")
                clip_c = SimilaritySVC(spectrum="clip", C=C).fit(S_tr, y_tr)
                acc.setdefault(f"clip C={C:g}", []).append(
                    100 * np.mean(clip_c.predict(S_te) == y_te))
            if k == 0:
                for C, r in grid:
                    _, lab, ws = cpu(lambda C=C, r=r: trans(C=C, rho=r))
                    grid_trans[(C, r)] = (100 * np.mean(lab == y_te), n_conv(ws))
                # fit time at n = 160, alternating, medians of 5 (CPU seconds)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tm, _ = timed_alternating(
                        {"clip": lambda: SimilaritySVC(spectrum="clip").fit(S_tr, y_tr),
                         "eskl": lambda: ESKL().fit(S_tr, y_tr),
                         "rekl": lambda: REKL().fit(S_tr, y_tr)}, 5, clock=time.process_time)
        row = f"ESKL() / REKL() inductive, {splits} splits"
        for key in ("ESKL()", "REKL()", "ESKLCV()", "REKLCV()", "ESKL(transductive=True)"):
            issue = {"ESKL()": "65.0", "REKL()": "71.7",
                     "ESKL(transductive=True)": "90.0-92.5"}.get(key, "")
            note = f"{warns[key]} ConvergenceWarnings" if warns[key] else ""
            record("eskl", row, label, key, issue, acc[key], "clip SVM", acc["clip"],
                   seconds=float(np.median(secs[key])), unit="accuracy %", note=note)
        row = "ESKL(C, rho) inductive over C x rho (3 x 3)"
        for C, r in grid:
            key = f"ESKL(C={C:g}, rho={r:g})"
            note = (f"transductive on split 0: {grid_trans[(C, r)][0]:.1f}"
                    + (f" ({grid_trans[(C, r)][1]} ConvergenceWarning)" if grid_trans[(C, r)][1]
                       else ""))
            if C > 1:
                same = acc[f"clip C={C:g}"]
                note += (f"; clip SVM at C = {C:g}: {mean_se(same)[0]:.1f}, ESKL "
                         f"{paired_verdict(acc[key], same)} against it")
            if warns[key]:
                note += f"; {warns[key]} ConvergenceWarnings"
            record("eskl", row, label, key, "52.5-60 (87.5 at one point)", acc[key],
                   "clip SVM", acc["clip"], seconds=float(np.median(secs[key])),
                   unit="accuracy %", note=note)
        for key, issue in (("eskl", "75-208 s"), ("rekl", "")):
            ratio = tm[key] / tm["clip"]
            record("eskl", "fit time at n = 160 (CPU s, medians of 5, alternating)", label,
                   f"{key.upper()}() fit", issue, None, "clip SVM fit", None,
                   seconds=tm[key], verdict="better" if ratio <= 20 else "worse",
                   note=f"{tm[key]:.3f} s vs clip {tm['clip']:.4f} s: {ratio:.1f}x "
                        "(goal <= 20x, issue item 6)")


# --------------------------------------------------------------------------- bank MKL

def uci_halves(y, splits, test_size=0.5, seed=0):
    from sklearn.model_selection import StratifiedShuffleSplit
    return list(StratifiedShuffleSplit(splits, test_size=test_size,
                                       random_state=seed).split(np.zeros(len(y)), y))


def section_two_layer(splits=10):
    from proxlearn.mkl import KernelBank, TwoLayerMKL, TwoLayerMKLCV

    X, y = feature_set("heart")
    acc = {"rbf": [], "TwoLayerMKL(bank=KernelBank())": [],
           "TwoLayerMKLCV(bank=KernelBank())": []}
    secs = {k: [] for k in acc}
    warns = {k: 0 for k in acc}
    for tr, te in uci_halves(y, splits):
        Z_tr, Z_te = zscore(X[tr], X[te])
        svc = rbf_svc()
        t, _, _ = cpu(lambda: svc.fit(Z_tr, y[tr]))
        secs["rbf"].append(t)
        acc["rbf"].append(100 * svc.score(Z_te, y[te]))
        for key, est in (("TwoLayerMKL(bank=KernelBank())", TwoLayerMKL(bank=KernelBank())),
                         ("TwoLayerMKLCV(bank=KernelBank())",
                          TwoLayerMKLCV(bank=KernelBank()))):
            t, _, ws = cpu(lambda est=est: est.fit(X[tr], y[tr]))
            secs[key].append(t)
            warns[key] += n_conv(ws)
            acc[key].append(100 * est.score(X[te], y[te]))
    for key in list(acc)[1:]:
        note = f"{warns[key]} ConvergenceWarnings" if warns[key] else ""
        record("two-layer", f"TwoLayerMKL(bank=KernelBank()), {splits} random 50/50 splits",
               "heart (UCI, 270 x 13)", key, "75.3" if "CV" not in key else "", acc[key],
               'SVC(kernel="rbf", gamma="scale")', acc["rbf"],
               seconds=float(np.median(secs[key])), unit="accuracy %",
               note=note + ("; " if note else "") + "thesis 2LMKL 83.1")


#: Zhuang (2011) Table 5.2, UMKL: mean and standard deviation over 20 partitions
#: (src/proxlearn/study/data/targets.csv).
UMKL_THESIS = {"heart": (84.7, 2.6), "sonar": (81.0, 2.9), "liver": (68.3, 4.3),
               "australian": (86.3, 1.3), "diabetes": (77.1, 2.3), "breast": (97.0, 0.6)}


def umkl_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import SVC

    from proxlearn.mkl import KernelBank, UMKL
    return make_pipeline(UMKL(bank=KernelBank()), SVC(kernel="precomputed"))


def section_umkl(splits=20):
    from sklearn.model_selection import train_test_split

    for name, (thesis, sigma) in UMKL_THESIS.items():
        X, y = feature_set(name)
        acc, base, secs, nw = [], [], [], 0
        for tr, te in uci_halves(y, splits):
            Z_tr, Z_te = zscore(X[tr], X[te])
            base.append(100 * rbf_svc().fit(Z_tr, y[tr]).score(Z_te, y[te]))
            pipe = umkl_pipeline()
            t, _, ws = cpu(lambda: pipe.fit(X[tr], y[tr]))
            secs.append(t)
            nw += n_conv(ws)
            acc.append(100 * pipe.score(X[te], y[te]))
        m, se = mean_se(acc)
        # the reproduction report's rule: |ours - paper| <= 2 sqrt(2 / R) sigma_paper
        tol = 2 * np.sqrt(2 / len(acc)) * sigma
        verdict = "tied" if abs(m - thesis) <= tol else ("better" if m > thesis else "worse")
        record("umkl", "UMKL then an SVM (the report's UMKL section)",
               f"{name} ({X.shape[0]} x {X.shape[1]}), {splits} random 50/50 splits",
               "UMKL(bank=KernelBank()) + SVC", "5-30 below the thesis", acc,
               f"thesis UMKL (std {sigma})", None, base_const=thesis, verdict=verdict,
               seconds=float(np.median(secs)), unit="accuracy %",
               note=f"gap to the thesis {m - thesis:+.1f} (agreement within "
                    f"2 sqrt(2/R) sigma = {tol:.1f})")
        record("umkl", "UMKL then an SVM (the report's UMKL section)",
               f"{name} ({X.shape[0]} x {X.shape[1]}), {splits} random 50/50 splits",
               "UMKL(bank=KernelBank()) + SVC", "", acc, 'SVC(kernel="rbf", gamma="scale")',
               base, seconds=float(np.median(secs)), unit="accuracy %",
               note=f"{nw} ConvergenceWarnings in {splits} fits" if nw else "")
    # the README's feature-MKL pipeline on Wine: its own split, then 5 random 70/30 splits
    X, y = feature_set("wine")
    readme = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=0)
    rand = [tuple(s) for s in uci_halves(y, 5, test_size=0.3, seed=1)]
    tr_acc, te_acc, btr, bte, secs = [], [], [], [], []
    for tr, te in [tuple(readme)] + rand:
        pipe = umkl_pipeline()
        t, _, _ = cpu(lambda: pipe.fit(X[tr], y[tr]))
        secs.append(t)
        tr_acc.append(100 * pipe.score(X[tr], y[tr]))
        te_acc.append(100 * pipe.score(X[te], y[te]))
        Z_tr, Z_te = zscore(X[tr], X[te])
        svc = rbf_svc().fit(Z_tr, y[tr])
        btr.append(100 * svc.score(Z_tr, y[tr]))
        bte.append(100 * svc.score(Z_te, y[te]))
    for what, a, b, iss in (("training", tr_acc, btr, "39.9"), ("test", te_acc, bte, "")):
        record("umkl", "README feature-MKL: make_pipeline(UMKL(bank=KernelBank()), SVC)",
               f"wine (178 x 13), {what} accuracy, README split + 5 random 70/30",
               "UMKL(bank=KernelBank()) + SVC", iss, a, 'SVC(kernel="rbf", gamma="scale")', b,
               seconds=float(np.median(secs)), unit="accuracy %",
               note=f"README split: {a[0]:.1f} (RBF {b[0]:.1f})")


def small_scale_stack(seed):
    """24 points, two Gaussians and a quadratic kernel at random scales, kernel 1 at a
    thousandth of its scale (tests/mkl/test_two_layer.py's generator)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(24, 3)) * rng.choice([0.1, 1, 10])
    y = np.where(rng.normal(size=24) > 0, 1.0, -1.0)
    if len(np.unique(y)) < 2:
        y[0] = -y[0]
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    G = [np.exp(-D2 / (2 * s**2)) for s in rng.choice([0.5, 1, 4], 2)] + [(X @ X.T + 1) ** 2]
    Ks = np.stack(G, -1) * rng.choice([1, 10, 100], 3)
    Ks[:, :, 1] *= 1e-3
    return Ks, y


def section_small_scale(seeds=20):
    """At the default penalty and at the literal ``penalty="thesis"`` (whose start,
    ``sum mu`` of about 333 on the issue's instance, is where the old search stopped)."""
    from proxlearn.mkl import TwoLayerMKL

    for penalty in ("normalized", "thesis"):
        rel, reached, stalled, warned, stalled_unwarned, secs = [], [], 0, 0, 0, []
        silent = []
        for s in range(seeds):
            Ks, y = small_scale_stack(s)
            t, est, ws = cpu(lambda: TwoLayerMKL(spectrum=None, penalty=penalty).fit(Ks, y))
            secs.append(t)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                far = TwoLayerMKL(spectrum=None, penalty=penalty, tol=1e-9,
                                  max_iter=500).fit(Ks, y)
            hist = np.asarray(est.objective_history_, float)
            moved = hist.size > 1 and hist[-1] < hist[0] * (1 - 1e-9)
            r = (est.objective_ - far.objective_) / abs(far.objective_)
            rel.append(100 * r)
            reached.append(100.0 * (r <= 0.01))
            nw = n_conv(ws)
            warned += nw > 0
            stalled += not moved
            stalled_unwarned += (not moved) and nw == 0
            # stopped far (> 1 %) from the reachable objective without a warning, whatever
            # its gradient says (a test on the gradient's size depends on the scale of
            # the weights and of F: the old rule's stop on seed 9 passed it)
            if r > 0.01 and not nw:
                silent.append((s, est.n_iter_, float(est.gap_), 100 * r))
            if s == 16:
                seed16 = (hist[0], est.objective_, far.objective_, nw)
        label = "TwoLayerMKL(spectrum=None" + (")" if penalty == "normalized"
                                               else ', penalty="thesis")')
        record("small-scale", "TwoLayerMKL(spectrum=None), one kernel at 1e-3 of its scale",
               f"24 points, 3 kernels, {seeds} random stacks",
               f"{label}: objective within 1 % of a long run (% of stacks)",
               "stops at its start (313.5 vs 0.587), no warning", reached,
               "a long run (tol=1e-9, max_iter=500)", None, base_const=100.0,
               seconds=float(np.median(secs)), unit="% of stacks",
               verdict=("tied" if min(reached) == 100 and not stalled_unwarned and not silent
                        else "worse"),
               note=f"excess objective max {max(rel):.2g} %, median {np.median(rel):.2g} %; "
                    f"stopped far (> 1 %) from the long run's objective with no warning on "
                    f"{len(silent)} of {seeds}"
                    + "".join(f" (seed {a}: {b_} steps, gradient {c:.2g}, excess {d:.3g} %)"
                              for a, b_, c, d in silent) + "; "
                    f"stopped at the start on {stalled} of {seeds}, of which unwarned "
                    f"{stalled_unwarned}; warned on {warned}; the test's seed 16: start "
                    f"{seed16[0]:.4g} -> {seed16[1]:.4g} (long run {seed16[2]:.4g}), "
                    f"{seed16[3]} warnings")


# --------------------------------------------------------------------------- readme, mve

def readme_blocks():
    """``(line, code)`` of every fenced Python block of README.md: the suite's own parser
    (tests/test_readme.py), so the benchmark times exactly the blocks the tests run."""
    sys.path.insert(0, str(REPO / "tests"))
    from test_readme import _python_blocks

    return _python_blocks()


def section_readme():
    """Each block in a fresh interpreter (imports counted, as a user runs it), with
    ConvergenceWarning and every other warning printed once; wall and CPU seconds of
    the child process."""
    import resource
    import subprocess
    import tempfile

    wrapper = ("import warnings, sys\nwarnings.simplefilter('always')\n"
               "_ws = []\n_show = warnings.showwarning\n"
               "warnings.showwarning = lambda m, c, *a, **k: _ws.append(c.__name__)\n"
               "exec(compile(sys.stdin.read(), 'README.md', 'exec'), {'__name__': '__readme__'})\n"
               "print('WARNINGS', ','.join(_ws))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))
    for line, code in readme_blocks():
        first = next(ln for ln in code.splitlines() if "proxlearn" in ln or "import" in ln)
        with tempfile.TemporaryDirectory() as tmp:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", wrapper], input=code, text=True,
                                  capture_output=True, cwd=tmp, env=env, timeout=1800)
            wall = time.perf_counter() - wall
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        err = "" if proc.returncode == 0 else proc.stderr.strip().splitlines()[-1][:200]
        ws = [w for ln in proc.stdout.splitlines() if ln.startswith("WARNINGS")
              for w in ln.split(" ", 1)[1].split(",") if w]
        conv = ws.count("ConvergenceWarning")
        ok = not err and wall < 60 and not conv
        record("readme", "every README example under a minute, as written",
               f"README.md line {line} ({first.strip()[:50]})", "the block, fresh interpreter",
               "REKL(C=1, rho=1) on digits-multi: > 30 min" if "REKL" in code else "", None,
               "limit 60 s", None, seconds=t, verdict="better" if ok else "worse",
               note=err or (f"wall {wall:.2f} s (load {os.getloadavg()[0]:.1f}); warnings: "
                            f"{', '.join(sorted(set(ws))) if ws else 'none'} ({len(ws)})"))


def section_mve():
    from sklearn.decomposition import KernelPCA
    from sklearn.model_selection import LeaveOneOut, cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    from proxlearn.manifold import MVE

    Xraw, y = feature_set("wine")
    Xz, _ = zscore(Xraw)

    def nn(E):
        return 100 * cross_val_score(KNeighborsClassifier(1), E, y, cv=LeaveOneOut()).mean()

    for feats, X in (("raw, as the README", Xraw), ("z-scored", Xz)):
        t, E, ws = cpu(lambda: MVE(n_components=2).fit_transform(X))
        tk, Ek, _ = cpu(lambda: KernelPCA(n_components=2).fit_transform(X))
        record("mve", "MVE(n_components=2).fit_transform", f"wine ({feats})",
               "MVE(n_components=2): LOO 1-NN accuracy in 2-D", "over 20 min, a "
               "ConvergenceWarning per step", [nn(E)], "KernelPCA(n_components=2)", [nn(Ek)],
               seconds=t, unit="1-NN %", verdict=("better" if t < 60 and not n_conv(ws)
                                                   else "worse") + " (time, warnings)",
               note=f"{n_conv(ws)} ConvergenceWarnings, {len(ws)} warnings in all; kernel "
                    f"PCA {tk:.4f} s")


SECTIONS = {"npkl": section_npkl, "readme-npkl": section_readme_npkl, "eskl": section_eskl,
            "two-layer": section_two_layer, "umkl": section_umkl,
            "small-scale": section_small_scale, "readme": section_readme, "mve": section_mve}


# --------------------------------------------------------------------------- report

def fmt(v, unit=""):
    if v is None:
        return "-"
    return f"{v[0]:.1f} ± {v[1]:.1f}" if v[1] else f"{v[0]:.1f}"


def report(records):
    lines = ["| row of the issue | data | estimator | issue | now | baseline | verdict | "
             "CPU s | note |", "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        base = f"{r['baseline_label']}: {fmt(r['baseline'])}" if r["baseline"] else \
            r["baseline_label"]
        sec = "" if r["seconds"] is None else f"{r['seconds']:.3g}"
        lines.append(f"| {r['issue_row']} | {r['data']} | {r['estimator']} | {r['issue']} | "
                     f"{fmt(r['now'])} | {base} | {r['verdict']} | {sec} | {r['note']} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", nargs="*", default=list(SECTIONS), choices=list(SECTIONS))
    ap.add_argument("--draws", type=int, default=5, help="constraint draws (npkl rows)")
    ap.add_argument("--out", default=None, help="write the records as JSON here")
    ap.add_argument("--report", default=None, help="print the Markdown table of a JSON file")
    a = ap.parse_args()
    if a.report:
        print(report(json.loads(Path(a.report).read_text())))
        return
    print(f"load average {os.getloadavg()}", flush=True)
    for name in a.rows:
        t = time.process_time()
        fn = SECTIONS[name]
        fn(a.draws) if name in ("npkl", "readme-npkl") else fn()
        print(f"== {name}: {time.process_time() - t:.1f} s CPU", flush=True)
        if a.out:
            Path(a.out).write_text(json.dumps(RECORDS, indent=1))
    print(report(RECORDS))


if __name__ == "__main__":
    main()
