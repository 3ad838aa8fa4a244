"""Issue #18, item 1: spectrum shift, the candidate readings side by side.

Every reported shift cell of the reproduction report disagrees with its paper, in
both directions. This script reruns those cells under the readings that the
papers' text leaves open, with the report's own protocols, partitions, inner
folds and agreement rule (:mod:`proxlearn.study`), and writes
``docs/investigations/shift.json`` (every per-partition number) and the tables
of ``docs/investigations/shift.md``.

=================  ===================================================================
reading            what changes against the report (``current``)
=================  ===================================================================
``current``        the registered method: ``S + delta I``, ``delta = max(0, -lambda_min)``
                   of the symmetrised training matrix, test rows raw (``s~ = s``, Chen
                   et al. 2009 sec. 2.2), the report's C grid, libsvm tol 1e-3 with
                   the library's 1e7 iteration cap and reuse of box-inactive solutions
``self-sim``       test rows taken from Wu et al.'s augmented matrix
                   ``[[S, s], [s^T, psi(x, x)]]`` shifted by its own ``lambda_min``:
                   only ``psi(x, x)`` changes, which no SVM decision reads (shown
                   numerically in the diagnostics, not rerun)
``gu-map``         Gu & Guo (2012) eqs. 10-15: ``k_v = K_shift K_0^+ s`` (pinv with
                   the explicit relative tolerance :data:`PINV_RTOL`)
``abs-shift``      ``delta = |lambda_min|`` (differs from ``current`` only when the
                   training matrix is positive definite)
``centred``        Roth et al. (2003)'s constant shift embedding, cited by Gu & Guo:
                   ``delta = max(0, -lambda_min(J S J))``, ``J = I - 11^T / n``
``thesis-grid``    Chen thesis sec. 5.3.2 grid for the shift SVM, C in 1e-5 ... 1e3
``libsvm``         one plain libsvm fit per C (tol 1e-3, libsvm's own cap
                   ``max(1e7, 100 n)``), no reuse of solutions across C
``thesis+libsvm``  both of the last two
=================  ===================================================================

Local methods (KRI, KRR, SVM-KNN with local shift, JMLR Table 4 on protein):
``current``, ``gu-map`` (``s~ = s + delta S_loc^+ s``) and ``abs-shift``
(``delta = |lambda_min(S_loc)|``, which differs whenever a neighbourhood matrix is
positive definite, e.g. every k = 1 neighbourhood).

References
----------
Chen, Garcia, Gupta, Rahimi, Cazzanti (2009), JMLR 10, sec. 2.1.4 (shift,
``Lambda + |min(lambda_min(S), 0)| I``), sec. 2.2 (``s~ = s`` for shift),
Table 2 (C grid), Table 4. Chen (2010), PhD thesis, sec. 5.3.2 (C grid of the
shift SVM), Table 5.3. Gu & Guo (2012), AAAI, eq. 4 ("the minimum required
amount"), eqs. 10-15, Table 1-3. Roth, Laub, Kawanabe, Buhmann (2003), IEEE
TPAMI 25(12) (constant shift embedding). Digests: ../shared/notes/.

Run ``/work/main/.venv/bin/python investigations/shift.py [--quick]`` from the
repository root (``--quick``: 3 partitions per cell, no local methods; the full
run takes every partition of every cell).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # this checkout's proxlearn wins

from proxlearn.datasets import load_dataset  # noqa: E402
from proxlearn.neighbors import SVMKNN, SimilarityKNeighborsClassifier  # noqa: E402
from proxlearn.study import get_method, get_protocol, load_targets, make_partitions  # noqa: E402
from proxlearn.study._methods import (  # noqa: E402
    C_SVM,
    GU_GRID,
    KRI_REG,
    KRR_REG,
    K_GRID,
    Method,
    _knn_evaluator,
    _powers,
    _svc_over_C,
    _svm_knn_evaluator,
    register_method,
)
from proxlearn.study._report import MIN_OWN_SIGMA_PARTITIONS, _paper_cell, agreement  # noqa: E402
from proxlearn.study._section import _json_default  # noqa: E402
from proxlearn.study._runner import run_cell  # noqa: E402
from proxlearn._svm._libsvm import MAX_ITER  # noqa: E402

#: Chen thesis sec. 5.3.2: "C (C-SVM shift) in {1e-5, ..., 1e3}" (9 values).
THESIS_SHIFT_C = _powers(-5, 3)
#: Relative tolerance of the pseudo-inverse in the Gu & Guo map: eigenvalues with
#: ``|lambda| <= PINV_RTOL * n * max|lambda|`` are dropped (the library's
#: ``default_tol`` rule, ``n eps max|lambda|``).
PINV_RTOL = np.finfo(np.float64).eps

#: (protocol, data set, registered method): the shift cells of the report.
SVM_CELLS = (
    ("chen2009", "protein", "svm-shift"),
    ("chen2009", "aural_sonar", "svm-shift"),
    ("chen2009", "protein-2", "svm-shift"),
    ("chen2009", "voting", "svm-shift"),
    ("gu2012-synthetic", "synthetic-1", "svm-shift"),
    ("gu2012-synthetic", "synthetic-2", "svm-shift"),
    ("gu2012-synthetic", "synthetic-3", "svm-shift"),
    ("gu2012-synthetic", "synthetic-4", "svm-shift"),
    ("gu2012", "aural_sonar", "svm-shift"),
    ("gu2012", "voting", "svm-shift"),
    ("gu2012", "protein", "svm-shift"),
)
LOCAL_CELLS = (
    ("chen2009", "protein", "knn-kri-shift"),
    ("chen2009", "protein", "knn-krr-shift"),
    ("chen2009", "protein", "svm-knn-shift"),
)

#: Global SVM readings: (delta rule, test map, grid, solver).
SVM_READINGS = {
    "current": None,  # the registered method itself
    "gu-map": ("min0", "gu", "report", "ours"),
    "abs-shift": ("abs", "raw", "report", "ours"),
    "centred": ("centred", "raw", "report", "ours"),
    "thesis-grid": ("min0", "raw", "thesis", "ours"),
    "libsvm": ("min0", "raw", "report", "libsvm"),
    "thesis+libsvm": ("min0", "raw", "thesis", "libsvm"),
}
LOCAL_READINGS = ("current", "gu-map", "abs-shift")


# --------------------------------------------------------------------------
# The readings
# --------------------------------------------------------------------------


def shift_amount(S_sym, rule, lam=None) -> float:
    """``delta`` of a symmetric matrix under ``rule`` ("min0", "abs", "centred")."""
    if rule == "centred":
        n = S_sym.shape[0]
        J = np.eye(n) - 1.0 / n
        return max(0.0, -float(scipy.linalg.eigvalsh(J @ S_sym @ J)[0]))
    lam_min = float((scipy.linalg.eigvalsh(S_sym) if lam is None else lam)[0])
    return abs(lam_min) if rule == "abs" else max(0.0, -lam_min)


def gu_map(S_sym, delta) -> np.ndarray:
    """``M`` with ``k_v^T = s^T M``, ``M = K_0^+ K_shift`` (Gu & Guo 2012, eqs. 10-15).

    ``K_0^+`` is ``scipy.linalg.pinvh`` with the relative tolerance
    ``n * PINV_RTOL`` of ``max|lambda|``. ``K_0^+`` and ``K_shift = K_0 + delta I``
    commute, so ``M`` is symmetric: ``I`` on the range of ``K_0`` plus
    ``delta K_0^+``.
    """
    n = S_sym.shape[0]
    P = scipy.linalg.pinvh(S_sym, atol=0.0, rtol=n * PINV_RTOL)
    return P @ (S_sym + delta * np.eye(n))


def shift_kernels(S_train, S_test, rule="min0", test="raw"):
    """Training kernel, test rows and ``delta`` of one shift reading."""
    S = 0.5 * (np.asarray(S_train, float) + np.asarray(S_train, float).T)
    delta = shift_amount(S, rule)
    K = S + delta * np.eye(S.shape[0])
    S_test = np.asarray(S_test, float)
    K_test = S_test @ gu_map(S, delta) if test == "gu" else S_test
    return K, K_test, delta


def _libsvm_cap(n):
    """libsvm's own iteration limit, ``max(1e7, 100 n)`` (svm.cpp, Solver::Solve)."""
    return max(10_000_000, 100 * n)


class ShiftSVC(ClassifierMixin, BaseEstimator):
    """Precomputed-kernel SVM on ``S + delta I`` under one shift reading."""

    def __init__(self, C=1.0, rule="min0", test="raw", solver="ours"):
        self.C = C
        self.rule = rule
        self.test = test
        self.solver = solver

    def fit(self, S, y):
        K, _, self.delta_ = shift_kernels(S, np.zeros((0, len(y))), self.rule)
        S = np.asarray(S, float)
        self._S_sym = 0.5 * (S + S.T)
        cap = MAX_ITER if self.solver == "ours" else _libsvm_cap(len(y))
        self.svc_ = SVC(kernel="precomputed", C=self.C, max_iter=cap).fit(K, y)
        self.classes_ = self.svc_.classes_
        return self

    def _test_rows(self, S_test):
        S_test = np.asarray(S_test, float)
        return S_test @ gu_map(self._S_sym, self.delta_) if self.test == "gu" else S_test

    def decision_function(self, S_test):
        return self.svc_.decision_function(self._test_rows(S_test))

    def predict(self, S_test):
        return self.svc_.predict(self._test_rows(S_test))


def _shift_evaluator(rule, test, solver):
    """One kernel per fold, then the C grid (shared or plain libsvm fits)."""

    def evaluate(S_train, y_train, S_test, params_list):
        K, K_test, _ = shift_kernels(S_train, S_test, rule, test)
        Cs = [p["C"] for p in params_list]
        if solver == "ours":
            return _svc_over_C(K, y_train, K_test, Cs)
        cap = _libsvm_cap(len(y_train))
        return [SVC(kernel="precomputed", C=C, max_iter=cap).fit(K, y_train).predict(K_test)
                for C in Cs]

    return evaluate


def _svm_reading_method(name, reading) -> Method:
    rule, test, grid, solver = SVM_READINGS[reading]
    C = THESIS_SHIFT_C if grid == "thesis" else None

    def build(**params):
        return ShiftSVC(rule=rule, test=test, solver=solver, **params)

    grids = {"chen2009": {"C": C or C_SVM}, "gu2012": {"C": C or GU_GRID}}
    return Method(f"shift-investigation:{name}:{reading}", build, grids,
                  evaluate=_shift_evaluator(rule, test, solver))


def local_shift(S_loc, sims, reading):
    """Shifted local matrices and test similarities of a batch (B, k, k), (B, k)."""
    lam = np.linalg.eigvalsh(S_loc)
    lam_min = lam[:, 0]
    delta = np.abs(lam_min) if reading == "abs-shift" else np.maximum(-lam_min, 0.0)
    k = S_loc.shape[1]
    S_mod = S_loc + delta[:, None, None] * np.eye(k)
    if reading == "gu-map":  # s~ = S_shift S^+ s = s + delta S^+ s on the range of S
        P = np.linalg.pinv(S_loc, rcond=k * np.finfo(np.float64).eps, hermitian=True)
        proj = np.einsum("bij,bj->bi", P, sims)
        sims = np.einsum("bij,bj->bi", S_loc, proj) + delta[:, None] * proj
    return S_mod, sims


class _LocalShiftKNN(SimilarityKNeighborsClassifier):
    """KRI / KRR weights on locally shifted matrices of one reading (study only)."""

    def __init__(self, n_neighbors=5, weights="kri", reg=1.0, spectrum="none",
                 transform_s=True, reading="current"):
        super().__init__(n_neighbors=n_neighbors, weights=weights, reg=reg, spectrum=spectrum,
                         transform_s=transform_s)
        self.reading = reading

    def _modified(self, nbrs, sims):
        S_loc = self.S_fit_[nbrs[:, :, None], nbrs[:, None, :]]
        return local_shift(S_loc, sims, self.reading)

    def _weights_path(self, nbrs, sims, regs):
        from proxlearn.neighbors import kri_weights_path, krr_weights_path

        S_mod, s_mod = self._modified(nbrs, sims)
        path = kri_weights_path if self.weights == "kri" else krr_weights_path
        return path(S_mod, s_mod, regs, "none", transform_s=False)

    def _weights(self, nbrs, sims):
        return self._weights_path(nbrs, sims, [self._check_params()[2]])[0]


class _LocalShiftSVMKNN(SVMKNN):
    """SVM-KNN on locally shifted matrices of one reading (study only)."""

    def __init__(self, n_neighbors=10, C=1.0, spectrum="shift", reading="current"):
        super().__init__(n_neighbors=n_neighbors, C=C, spectrum=spectrum)
        self.reading = reading

    def _local_problems(self, nbrs, sims, spectrum):
        S_loc = self.S_fit_[nbrs[:, :, None], nbrs[:, None, :]]
        return local_shift(S_loc, sims, self.reading)


def _local_reading_method(base, reading) -> Method:
    if base == "svm-knn-shift":
        def build(**params):
            return _LocalShiftSVMKNN(reading=reading, **params)

        grids, evaluator = {"chen2009": {"n_neighbors": K_GRID, "C": C_SVM}}, _svm_knn_evaluator
    else:
        weights = "kri" if "kri" in base else "krr"

        def build(**params):
            return _LocalShiftKNN(weights=weights, reading=reading, **params)

        reg = KRI_REG if weights == "kri" else KRR_REG
        grids, evaluator = {"chen2009": {"n_neighbors": K_GRID, "reg": reg}}, _knn_evaluator
    return Method(f"shift-investigation:{base}:{reading}", build, grids,
                  evaluate=evaluator(build))


# --------------------------------------------------------------------------
# Running cells
# --------------------------------------------------------------------------


def _reading_name(base, reading, local):
    if reading == "current":
        return base
    method = _local_reading_method(base, reading) if local else _svm_reading_method(base, reading)
    register_method(method, replace=True)
    return method.name


def _diagnose(model, S_te_tr, y_te, y_tr, classes):
    """Prediction histogram, collapse flag and decision-value summary of a refit model."""
    pred = model.predict(S_te_tr)
    hist = Counter(pred.tolist())
    out = {"pred_hist": {str(c): int(hist.get(c, 0)) for c in classes},
           "test_hist": {str(c): int(np.sum(y_te == c)) for c in classes},
           "train_hist": {str(c): int(np.sum(y_tr == c)) for c in classes},
           "collapsed": len(hist) == 1}
    if len(classes) == 2 and hasattr(model, "decision_function"):
        f = np.asarray(model.decision_function(S_te_tr), float)
        b = float(np.ravel(model.svc_.intercept_)[0]) if hasattr(model, "svc_") else float("nan")
        out["decision"] = {"min": float(f.min()), "max": float(f.max()),
                           "intercept": b, "spread_minus_b": float(np.max(np.abs(f - b)))}
    return out


def _self_similarity_check(model, S, train, test):
    """Wu et al.'s augmented-matrix test rows against raw rows, for one refit model.

    For each test point the (n+1) x (n+1) matrix ``[[S, s], [s^T, psi(x, x)]]`` is
    shifted by its own ``delta'`` (>= ``delta`` by interlacing); the test row is
    its last column without the last entry. Returns the largest change of that
    row and of the decision values, and the range of ``delta' - delta``.
    """
    S_tr = 0.5 * (S[np.ix_(train, train)] + S[np.ix_(train, train)].T)
    rows, gaps = [], []
    for t in test:
        s = 0.5 * (S[t, train] + S[train, t])
        aug = np.block([[S_tr, s[:, None]], [s[None, :], np.array([[S[t, t]]])]])
        d_aug = shift_amount(aug, "min0")
        shifted = aug + d_aug * np.eye(aug.shape[0])
        rows.append(shifted[:-1, -1])
        gaps.append(d_aug - model.delta_)
    S_raw = S[np.ix_(test, train)]
    rows = np.array(rows)
    f_raw = model.decision_function(S_raw)
    f_aug = model.decision_function(rows)
    return {"max_row_change": float(np.max(np.abs(rows - S_raw))),
            "max_decision_change": float(np.max(np.abs(f_aug - f_raw))),
            "delta_aug_minus_delta": [float(min(gaps)), float(max(gaps))]}


def run_reading(data, protocol, base, reading, *, n_partitions=None, seed=0, local=False,
                diagnose=True):
    """Every partition of one (cell, reading): errors, chosen params and diagnostics.

    The partitions, inner folds and refit are the report's
    (:func:`~proxlearn.study.make_partitions`, ``run_cell`` with seed
    ``seed + 1000 i`` as :func:`~proxlearn.study.run_study` uses).
    """
    S, y = data.matrix, np.asarray(data.labels)
    parts = make_partitions(y, protocol, seed)[:n_partitions]
    name = _reading_name(base, reading, local)
    classes = np.unique(y)
    out = {"errors": [], "params": [], "cv_error": [], "diagnostics": []}
    for i, (tr, te) in enumerate(parts):
        cell = run_cell(S, y, name, tr, te, protocol, seed + 1000 * i, dataset=data.name)
        out["errors"].append(cell["error"])
        out["params"].append(cell["params"])
        out["cv_error"].append(cell["cv_error"])
        if not diagnose:
            continue
        method = get_method(name, data.name)
        model = method.build(**cell["params"]).fit(S[np.ix_(tr, tr)], y[tr])
        diag = _diagnose(model, S[np.ix_(te, tr)], y[te], y[tr], classes)
        if not local:  # delta, and the test error of every grid C (no selection)
            diag["delta"] = getattr(model, "delta_", None)
            if diag["delta"] is None:
                diag["delta"] = float(model.transformer_.shift_)
            grid = method.grid(protocol.grids)
            preds = method.evaluate_grid(S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)], grid)
            diag["test_error_per_C"] = {f"{p['C']:g}": float(100 * np.mean(q != y[te]))
                                        for p, q in zip(grid, preds, strict=True)}
        if reading == "current" and not local:  # the current model, refit as a ShiftSVC
            probe = ShiftSVC(**cell["params"]).fit(S[np.ix_(tr, tr)], y[tr])
            diag["self_similarity"] = _self_similarity_check(probe, S, tr, te)
        out["diagnostics"].append(diag)
    return summarise(out, protocol.name, data.name, base)


def self_term_check(data, protocol, Cs=(0.1, 1.0), n_partitions=None, seed=0):
    """How a shift SVM fits its training part: through the shifted diagonal alone?

    Per partition and ``C``: the Spearman correlation of the dual weights
    ``|alpha_i|`` with how misleading a training sample's similarities are (mean
    similarity to the other class minus to its own), the training error of the
    fitted decision function *without* the self term ``K_ii alpha_i y_i``
    (what a test point sees: test rows carry no diagonal entry), and the test error;
    plus the test error of the class-mean-similarity rule (Parzen) for scale.
    Binary data only.
    """
    from scipy.stats import spearmanr

    S, y = data.matrix, np.asarray(data.labels)
    rows = {C: [] for C in Cs}
    parzen = []
    for tr, te in make_partitions(y, protocol, seed)[:n_partitions]:
        S_tr, y_tr, S_te = S[np.ix_(tr, tr)], y[tr], S[np.ix_(te, tr)]
        off = S_tr - np.diag(np.diag(S_tr))
        same = y_tr[:, None] == y_tr[None, :]
        own = (off * same).sum(1) / (same.sum(1) - 1)
        other = (off * ~same).sum(1) / (~same).sum(1)
        means = np.stack([S_te[:, y_tr == c].mean(1) for c in np.unique(y_tr)], 1)
        parzen.append(100 * np.mean(np.unique(y_tr)[means.argmax(1)] != y[te]))
        for C in Cs:
            model = ShiftSVC(C=C).fit(S_tr, y_tr)
            coef = np.zeros(len(tr))
            coef[model.svc_.support_] = model.svc_.dual_coef_[0]
            f_off = off @ coef + model.svc_.intercept_[0]
            pred = model.classes_[(f_off > 0).astype(int)]
            rows[C].append((spearmanr(np.abs(coef), other - own).statistic,
                            100 * np.mean(pred != y_tr),
                            100 * np.mean(model.predict(S_te) != y[te])))
    out = {"parzen_test_error": float(np.mean(parzen))}
    for C, vals in rows.items():
        v = np.array(vals)
        out[f"{C:g}"] = {"spearman_alpha_misleading": float(v[:, 0].mean()),
                         "train_error_without_self_term": float(v[:, 1].mean()),
                         "test_error": float(v[:, 2].mean())}
    return out


def summarise(out, protocol, dataset, base):
    """Mean, std, collapse fraction and the report's agreement verdict."""
    errs = np.asarray(out["errors"], float)
    R = errs.size
    out["mean"] = float(errs.mean())
    out["std"] = float(errs.std(ddof=1)) if R > 1 else 0.0
    diags = out.get("diagnostics") or []
    out["collapse_fraction"] = (float(np.mean([d["collapsed"] for d in diags]))
                                if diags else None)
    paper, sigma, source = _paper_cell(load_targets(), protocol, dataset, base)
    if paper is not None and sigma is None and R >= MIN_OWN_SIGMA_PARTITIONS:
        sigma, source = out["std"], "ours"  # as summary_rows: the paper prints no spread
    out.update(paper=None if paper is None else paper.mean,
               paper_std=None if paper is None else paper.std,
               paper_table=None if paper is None else f"{paper.source} {paper.table}",
               sigma=sigma, sigma_source=source,
               agrees=None if paper is None else agreement(out["mean"], paper.mean, sigma, R))
    return out


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------


def _verdict(r):
    if r["agrees"] is None:
        return "n/a"
    return ("agrees" if r["agrees"] else "DIFFERS") + ("*" if r["sigma_source"] == "ours" else "")


def _chosen(params):
    keys = sorted({k for p in params for k in p})
    parts = []
    for k in keys:
        c = Counter(p.get(k) for p in params).most_common(2)
        parts.append(f"{k}=" + ", ".join(f"{v:g} x{n}" for v, n in c))
    return "; ".join(parts)


def markdown_tables(results) -> list[str]:
    lines = ["| protocol | data set | method | reading | R | mean (std) | paper | verdict | "
             "collapsed | chosen (two most frequent) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for key, by_reading in results["cells"].items():
        proto, ds, base = key.split("/")
        for reading, r in by_reading.items():
            paper = "" if r["paper"] is None else (
                f"{r['paper']:.2f}" + ("" if r["paper_std"] is None else f" ({r['paper_std']:.2f})"))
            coll = "" if r["collapse_fraction"] is None else f"{r['collapse_fraction']:.2f}"
            lines.append(f"| {proto} | {ds} | {base} | {reading} | {len(r['errors'])} | "
                         f"{r['mean']:.2f} ({r['std']:.2f}) | {paper} | {_verdict(r)} | {coll} | "
                         f"{_chosen(r['params'])} |")
    return lines


def protein2_lines(results) -> list[str]:
    """Per-partition detail of the current protein-2 cell (why worse than chance)."""
    r = results["cells"].get("chen2009/protein-2/svm-shift", {}).get("current")
    if not r or not r.get("diagnostics"):
        return []
    lines = ["| partition | test classes | training classes | predicted | C | CV error | "
             "test error | b | max abs(f - b) |", "|---|---|---|---|---|---|---|---|---|"]
    for i, d in enumerate(r["diagnostics"]):
        th, ph = d["test_hist"], d["pred_hist"]
        tr = d["train_hist"]
        dec = d.get("decision", {})
        lines.append(f"| {i} | {th} | {tr} | {ph} | {r['params'][i]['C']:g} | "
                     f"{r['cv_error'][i]:.1f} | {r['errors'][i]:.2f} | "
                     f"{dec.get('intercept', float('nan')):.3f} | "
                     f"{dec.get('spread_minus_b', float('nan')):.3g} |")
    return lines


def report_errors(protocol, dataset, method, path=ROOT / "docs" / "reproduction.json"):
    """The report's stored per-partition errors of a cell (None if absent)."""
    if not path.is_file():
        return None
    for sec in json.loads(path.read_text())["sections"].values():
        if sec.get("protocol") == protocol:
            block = sec.get("results", {}).get(dataset, {}).get(method)
            if block:
                return block["errors"]
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 partitions, no local methods")
    ap.add_argument("--local-partitions", type=int, default=None,
                    help="partitions for the local methods (default: all 20)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "investigations"))
    args = ap.parse_args(argv)
    n_svm = 3 if args.quick else None
    start = time.perf_counter()
    results = {"cells": {}, "quick": args.quick, "local_partitions": args.local_partitions}
    cache = {}
    todo = [(cell, SVM_READINGS, False, n_svm) for cell in SVM_CELLS]
    if not args.quick:
        todo += [(cell, LOCAL_READINGS, True, args.local_partitions) for cell in LOCAL_CELLS]
    for (proto_name, ds, base), readings, local, n_parts in todo:
        protocol = get_protocol(proto_name)
        data = cache.setdefault(ds, load_dataset(ds))
        key = f"{proto_name}/{ds}/{base}"
        results["cells"][key] = {}
        for reading in readings:
            t = time.perf_counter()
            r = run_reading(data, protocol, base, reading, n_partitions=n_parts, local=local)
            r["seconds"] = time.perf_counter() - t
            if reading == "current":
                stored = report_errors(proto_name, ds, base)
                r["matches_report"] = None if stored is None else bool(
                    np.allclose(stored[: len(r["errors"])], r["errors"]))
            results["cells"][key][reading] = r
            print(f"{key} {reading}: {r['mean']:.2f} ({r['std']:.2f}) collapsed "
                  f"{r['collapse_fraction']:.2f} [{r['seconds']:.0f} s]", flush=True)
    results["self_term"] = {
        ds: self_term_check(cache.setdefault(ds, load_dataset(ds)), get_protocol("chen2009"),
                            n_partitions=n_svm)
        for ds in ("protein-2", "aural_sonar")}
    results["seconds"] = time.perf_counter() - start
    write(results, Path(args.out))
    return results


def write(results, folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    name = "shift-quick" if results["quick"] else "shift"
    text = json.dumps(results, separators=(",", ":"), default=_json_default)
    (folder / f"{name}.json").write_text(text)
    md = folder / f"{name}.md"
    outcome = ""
    if md.is_file() and "## Outcome" in md.read_text():  # keep the hand-written part
        outcome = md.read_text().split("## Outcome", 1)[1]
    lines = ["# Spectrum shift: the candidate readings side by side (issue #18, item 1)", "",
             f"Generated by `investigations/shift.py{' --quick' if results['quick'] else ''}`; "
             f"wall time of the run {results['seconds'] / 60:.1f} min (2 shared cores, one "
             "thread). Tables above the Outcome section are generated; do not edit them.", "",
             "Readings: see the script's docstring. R: partitions run (the report's first R). "
             "Verdict: the report's agreement rule (`study._report.agreement`: |ours - paper| "
             "<= 2 sqrt(2/R) sigma; `*` our own std as sigma because the paper prints none). "
             "collapsed: fraction of partitions whose refit classifier predicts one class "
             "for the whole test part."
             + ("" if results["local_partitions"] is None else " Local methods: the first "
                f"{results['local_partitions']} of the 20 partitions only."), ""]
    lines += markdown_tables(results)
    same = {k: by["current"].get("matches_report") for k, by in results["cells"].items()
            if "matches_report" in by.get("current", {})}
    lines += ["", "The `current` rows reproduce the report's stored per-partition errors "
              f"(docs/reproduction.json) on {sum(v is True for v in same.values())} of "
              f"{len(same)} cells" + (": differ on " + ", ".join(k for k, v in same.items()
                                                                if v is False)
                                      if any(v is False for v in same.values()) else "") + "."]
    p2 = protein2_lines(results)
    if p2:
        lines += ["", "## protein-2, current reading, per partition", ""] + p2
    st = results.get("self_term", {})
    if st:
        lines += ["", "## How the current shift SVM fits its training part (chen2009 partitions)",
                  "", "rho: Spearman correlation of |alpha_i| with (mean similarity to the other "
                  "class - to its own); train error w/o self term: the fitted decision function "
                  "on the training part without its diagonal term (1 + delta) alpha_i y_i (a test "
                  "row has no such entry). Means over the partitions.", "",
                  "| data set | C | rho | train error w/o self term | test error | "
                  "class-mean rule test error |", "|---|---|---|---|---|---|"]
        for ds, v in st.items():
            for C, r in v.items():
                if C == "parzen_test_error":
                    continue
                lines.append(f"| {ds} | {C} | {r['spearman_alpha_misleading']:.2f} | "
                             f"{r['train_error_without_self_term']:.2f} | {r['test_error']:.2f} | "
                             f"{v['parzen_test_error']:.2f} |")
    checks = [d["self_similarity"] for by in results["cells"].values()
              for r in by.values() for d in r.get("diagnostics", []) if "self_similarity" in d]
    if checks:
        lines += ["", "## Shifted self-similarity (Wu et al.'s augmented matrix)", "",
                  f"Over {len(checks)} refit models: largest change of a test row "
                  f"{max(c['max_row_change'] for c in checks):.3g}, of a decision value "
                  f"{max(c['max_decision_change'] for c in checks):.3g}; delta' - delta in "
                  f"[{min(c['delta_aug_minus_delta'][0] for c in checks):.3g}, "
                  f"{max(c['delta_aug_minus_delta'][1] for c in checks):.3g}]."]
    lines += ["", "## Outcome" + (outcome if outcome else "\n\n(to be written)\n")]
    md.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
