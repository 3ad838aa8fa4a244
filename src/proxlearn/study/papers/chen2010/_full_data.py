"""Full-data reproductions: Chen (2010) thesis Tables 5.1 and 5.2 (SimSVM LP vs SOCP).

Protocol (thesis section 5.3.1): the whole Aural Sonar (n = 100) and Voting
(n = 435) sets, ``eta = gamma = 0.01``, ``h = ||alpha - alpha_clip||_1`` for
both the exact SOCP (5.31) and the random LP approximation (5.28) with
``p in {10, 50, 100, 200}`` basis draws per eigenvector, 10 runs each (the LP
is random; the SOCP is deterministic, its repeats only time it).

Metrics (Table 5.1): ``objective`` (optimal value in the normalisation
``(1/n) 1^T xi + eta c^T K c + gamma h``; for the LP its own optimal value),
``empirical_risk`` (mean training hinge loss), ``train_error_pct`` and
``time_ms`` (solver time, excluding the eigendecomposition and assembly).
Table 5.2: relative differences ``E_x = ||x - x0|| / ||x0|| * 100`` of the LP
solution from the SOCP one for the objective ``f``, the kernel coefficients
``c = U (diag(alpha) Lambda)^+ z``, the bias ``b`` and the spectrum weights
``alpha`` (over the kept eigen-directions).

The exact problem is also solved through its dual QP (``solver="dual-qp"``,
row ``simsvm-dualqp-l1``), whose ``certified_gap`` bounds the distance of its
objective from the optimum: a solver-independent check of the printed digits.

Our LP is the exactly equivalent compact form of (5.28) (see
:func:`proxlearn.kernel_learning._simsvm_socp.solve_simsvm_lp`): same optimum, much
faster than the thesis's ``n x kp`` LP, so our LP times are not comparable
with the thesis's.
"""

from __future__ import annotations

import numpy as np

from ...._validation import InvalidParameterError

__all__ = ["full_data_tables", "table_5_1", "table_5_2"]


def _load(item):
    """(name, S, y) from a data-set name, a SimilarityDataset or a tuple."""
    if isinstance(item, str):
        from ....datasets import load_dataset

        d = load_dataset(item)
        return item, np.asarray(d.matrix, dtype=np.float64), np.asarray(d.labels)
    if isinstance(item, tuple):
        name, S, y = item
        return name, np.asarray(S, dtype=np.float64), np.asarray(y)
    return item.name, np.asarray(item.matrix, dtype=np.float64), np.asarray(item.labels)


def _rel(x, x0):
    x, x0 = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(x0, float))
    return float(100.0 * np.linalg.norm(x - x0) / np.linalg.norm(x0))


def full_data_tables(
    datasets=("aural_sonar", "voting"),
    n_draws=10,
    p_values=(10, 50, 100, 200),
    eta=0.01,
    gamma=0.01,
    random_state=0,
    eig_tol=1e-6,
):
    """Compute Tables 5.1 and 5.2.

    Parameters
    ----------
    datasets : sequence
        Data-set names, SimilarityDatasets or ``(name, S, y)`` tuples.
    n_draws : int
        Runs per method (LP draws; SOCP repeats for timing).
    p_values : sequence of int
        LP basis sizes (empty: SOCP only).
    random_state : int
        Seeds the LP draws (draw ``r`` of ``p`` uses ``seed(random_state, p, r)``).

    Returns
    -------
    dict with ``"table_5_1"`` and ``"table_5_2"``: lists of row dicts
    ``{table, dataset, method, metric, mean, std, n_draws, seconds}`` where
    ``seconds`` is the mean solver time of the method's runs.

    See Also
    --------
    table_5_1, table_5_2 : One of the two tables.
    proxlearn.kernel_learning.SimSVM : The solvers compared.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> from proxlearn.study import full_data_tables
    >>> tables = full_data_tables([ds], n_draws=1, p_values=())
    >>> sorted({r["method"] for r in tables["table_5_1"]}), tables["table_5_2"]
    (['simsvm-dualqp-l1', 'simsvm-socp-l1'], [])
    """
    from ....kernel_learning._simsvm import SimSVM

    t51, t52 = [], []
    for item in datasets:
        name, S, y = _load(item)
        n_classes = np.unique(np.asarray(y)).size
        if len(p_values) and n_classes != 2:
            raise InvalidParameterError(
                f"data set {name!r} has {n_classes} classes, but the LP rows of Tables 5.1-5.2 "
                "compare the solutions of one two-class SimSVM (as the thesis's Aural Sonar "
                "and Voting): pass a two-class data set, or p_values=() for the SOCP and "
                "dual-QP rows only.")
        runs = {}
        base = None
        for r in range(n_draws):
            m = SimSVM(eta=eta, gamma=gamma, regularizer="l1-clip", solver="socp",
                       eig_tol=eig_tol).fit(S, y)
            runs.setdefault("simsvm-socp-l1", []).append(m)
            base = m
        for r in range(n_draws):
            # the same exact problem through its dual QP, with a certified gap
            m = SimSVM(eta=eta, gamma=gamma, regularizer="l1-clip", solver="dual-qp",
                       eig_tol=eig_tol).fit(S, y)
            runs.setdefault("simsvm-dualqp-l1", []).append(m)
        for p in p_values:
            for r in range(n_draws):
                seed = np.random.SeedSequence([int(random_state), int(p), r])
                rs = np.random.RandomState(np.random.MT19937(seed))
                m = SimSVM(eta=eta, gamma=gamma, regularizer="l1-clip", solver="lp",
                           n_basis=int(p), random_state=rs, eig_tol=eig_tol).fit(S, y)
                runs.setdefault(f"simsvm-lp-p{p}", []).append(m)
        for method, ms in runs.items():
            secs = np.array([float(m.fit_seconds_.sum()) for m in ms])
            vals = {
                "objective": [m.objective_ for m in ms],
                "empirical_risk": [m.empirical_risk_ for m in ms],
                "train_error_pct": [m.train_error_ for m in ms],
                "time_ms": list(1e3 * secs),
            }
            if method == "simsvm-dualqp-l1":
                vals["certified_gap"] = [float(m.duality_gap_.max()) for m in ms]
            t51 += _summary_rows("5.1", name, method, vals, float(secs.mean()))
            if method in ("simsvm-socp-l1", "simsvm-dualqp-l1"):
                continue
            keep = base.pair_models_[0].keep
            errs = {
                "E_f": [_rel(m.objective_, base.objective_) for m in ms],
                "E_c": [_rel(m.kernel_coef_[0], base.kernel_coef_[0]) for m in ms],
                "E_b": [_rel(m.intercept_[0], base.intercept_[0]) for m in ms],
                "E_alpha": [_rel(m.alpha_[keep], base.alpha_[keep]) for m in ms],
            }
            t52 += _summary_rows("5.2", name, method, errs, float(secs.mean()))
    return {"table_5_1": t51, "table_5_2": t52}


def table_5_1(datasets=("aural_sonar", "voting"), n_draws=10, random_state=0, **kwargs):
    """Rows of Chen (2010) Table 5.1 (see :func:`full_data_tables`).

    See Also
    --------
    full_data_tables : Both tables, and the parameters.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> from proxlearn.study import table_5_1
    >>> rows = table_5_1([ds], n_draws=1, p_values=())
    >>> sorted({r["metric"] for r in rows})
    ['certified_gap', 'empirical_risk', 'objective', 'time_ms', 'train_error_pct']
    """
    return full_data_tables(datasets, n_draws, random_state=random_state, **kwargs)["table_5_1"]


def table_5_2(datasets=("aural_sonar", "voting"), n_draws=10, random_state=0, **kwargs):
    """Rows of Chen (2010) Table 5.2 (relative differences LP vs SOCP, in %).

    See Also
    --------
    full_data_tables : Both tables, and the parameters.

    Examples
    --------
    The LP draws compare with the SOCP solution of the papers' data sets,
    which live outside the repository:

    >>> from proxlearn.study import table_5_2
    >>> rows = table_5_2(["aural_sonar"], n_draws=2)  # doctest: +SKIP
    >>> table_5_2([], n_draws=1)
    []
    """
    return full_data_tables(datasets, n_draws, random_state=random_state, **kwargs)["table_5_2"]


def _summary_rows(table, dataset, method, values, seconds):
    """One row per metric: mean and std of its per-draw values."""
    rows = []
    for metric, v in values.items():
        v = np.asarray(v, float)
        rows.append({
            "table": table, "dataset": dataset, "method": method, "metric": metric,
            "mean": float(v.mean()), "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
            "n_draws": v.size, "seconds": seconds,
        })
    return rows
