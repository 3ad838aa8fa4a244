"""Figures of the result pages, drawn while the site builds (matplotlib's plot directive).

``docs/reproduction-figures.rst`` and ``docs/scaling.rst`` call these functions
from ``.. plot::`` blocks:

* :func:`agreement_figure`: per paper, our mean against the paper's value for
  every cell of the reproduction report that has one, read from
  ``docs/reproduction.json`` (written by the report's command; read only here);
* :func:`verdict_summary_figure`: the verdict counts of every section;
* :func:`npkl_scaling_figure`: SimpleNPKL's fit time against N, as the
  reproduction study measured it (``zhuang2011-ch3``'s ``scaling``);
* :func:`spectrum_growth_figure`: the three spectrum-correction paths of
  ``benchmarks/bench_growth.py`` timed at small n during the build (a few
  seconds of CPU).

The agreement rule is the study's (:func:`proxlearn.study.agreement`): a cell
agrees when ``|ours - paper| <= 2 sqrt(2 / R) sigma`` with ``R`` our
partitions and ``sigma`` the paper's standard deviation (our own where the
paper gives none). The vertical bar drawn at each of our means is that
interval, so a cell agrees exactly when its bar crosses the diagonal.
"""

from __future__ import annotations

import json
import math
import time
from functools import lru_cache
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

HERE = Path(__file__).resolve().parent
REPORT = HERE.parent / "reproduction.json"

#: verdict -> (label, colour)
VERDICTS = {
    True: ("agrees", "#1a9850"),
    False: ("disagrees", "#d73027"),
    None: ("no verdict (no sigma)", "#999999"),
}

#: paper -> sections of the report, in the report's order
PAPERS = {
    "chen2009": ("chen2009", "chen2009-rbf-squared"),
    "chen2010": ("chen2010",),
    "gu2012": ("gu2012", "gu2012-synthetic"),
    "kundu2010": ("kundu2010", "kundu2010-uci"),
    "zhuang2011": ("zhuang2011-mkl", "zhuang2011-umkl", "zhuang2011-ch3",
                   "zhuang2011-ch3-embed"),
}

METRIC_LABELS = {
    "error": "test error (%)",
    "accuracy": "test accuracy (%)",
    "rand_pct": "Rand index (%)",
    "accuracy_pct": "accuracy (%)",
}


@lru_cache(maxsize=1)
def load_report(path=REPORT):
    """The sections of the reproduction report (``reproduction.json``)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)["sections"]


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def compared_rows(section, sections=None):
    """The rows of ``section`` that have both our mean and the paper's value.

    Each is returned as a dict with ``ours``, ``paper``, ``tolerance`` (the
    half-width of the agreement interval, ``None`` without a sigma), ``verdict``
    (True, False or None), ``metric``, ``dataset`` and ``method``.
    """
    sections = load_report() if sections is None else sections
    out = []
    for r in sections.get(section, {}).get("rows", []):
        if not (_number(r.get("mean")) and _number(r.get("paper"))):
            continue
        sigma, parts = r.get("sigma"), r.get("n_partitions")
        tol = 2.0 * math.sqrt(2.0 / parts) * sigma if _number(sigma) and parts else None
        out.append({"ours": float(r["mean"]), "paper": float(r["paper"]), "tolerance": tol,
                    "verdict": r.get("agrees"), "metric": r.get("metric"),
                    "dataset": r.get("dataset"), "method": r.get("method")})
    return out


def _agreement_panel(ax, section, rows):
    lo = min(min(r["paper"], r["ours"] - (r["tolerance"] or 0)) for r in rows)
    hi = max(max(r["paper"], r["ours"] + (r["tolerance"] or 0)) for r in rows)
    pad = 0.05 * (hi - lo or 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="k", lw=0.6, zorder=1)
    counts = {}
    for verdict, (label, colour) in VERDICTS.items():
        sel = [r for r in rows if r["verdict"] is verdict]
        counts[verdict] = len(sel)
        if not sel:
            continue
        x = [r["paper"] for r in sel]
        y = [r["ours"] for r in sel]
        err = [r["tolerance"] or 0.0 for r in sel]
        ax.errorbar(x, y, yerr=err, fmt="o", ms=3.5, color=colour, ecolor=colour,
                    elinewidth=0.8, capsize=1.5, alpha=0.85, zorder=2,
                    label=f"{label}: {len(sel)}")
    metrics = sorted({r["metric"] for r in rows if r["metric"]})
    unit = ", ".join(METRIC_LABELS.get(m, m) for m in metrics)
    ax.set(xlim=(lo - pad, hi + pad), ylim=(lo - pad, hi + pad),
           xlabel=f"paper: {unit}", ylabel=f"ours: {unit}")
    ax.set_aspect("equal")
    ax.set_title(f"{section} ({len(rows)} cells)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    return counts


def agreement_figure(paper, sections=None):
    """One panel per section of ``paper``: ours against the paper's value."""
    names = [s for s in PAPERS[paper] if compared_rows(s, sections)]
    ncols = min(2, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 4.6 * nrows), squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        _agreement_panel(ax, name, compared_rows(name, sections))
    fig.tight_layout()
    return fig


def verdict_counts(sections=None):
    """``{section: {True: n, False: n, None: n}}`` over the compared rows."""
    sections = load_report() if sections is None else sections
    out = {}
    for names in PAPERS.values():
        for name in names:
            rows = compared_rows(name, sections)
            if rows:
                out[name] = {v: sum(r["verdict"] is v for r in rows) for v in VERDICTS}
    return out


def verdict_summary_figure(sections=None):
    """Stacked horizontal bars: the verdicts of each section's compared cells."""
    counts = verdict_counts(sections)
    names = list(counts)
    fig, ax = plt.subplots(figsize=(7.5, 0.35 * len(names) + 1.2))
    left = np.zeros(len(names))
    for verdict, (label, colour) in VERDICTS.items():
        n = np.array([counts[s][verdict] for s in names], dtype=float)
        ax.barh(names, n, left=left, color=colour, label=label)
        left += n
    ax.invert_yaxis()
    ax.set_xlabel("cells compared with the paper")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


def _log_n_axis(ax, ns):
    """Log axis in n with the measured sizes as plain tick labels."""
    from matplotlib.ticker import NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(list(ns), [f"{int(n):,}" for n in ns])
    ax.xaxis.set_minor_formatter(NullFormatter())


def growth_exponent(n, seconds):
    """Least-squares slope of log(seconds) on log(n)."""
    return float(np.polyfit(np.log(n), np.log(seconds), 1)[0])


def npkl_scaling_figure(sections=None):
    """SimpleNPKL's kernel-learning time against N (Adult a1a, the study's scaling run)."""
    sections = load_report() if sections is None else sections
    scaling = sections.get("zhuang2011-ch3", {}).get("scaling") or {}
    fig, ax = plt.subplots(figsize=(6.2, 4.2))
    ns = sorted({float(p[0]) for data in scaling.values() for p in data["points"]})
    _log_n_axis(ax, ns)
    for method, data in scaling.items():
        pts = np.array([p[:2] for p in data["points"]], dtype=float)
        ax.plot(pts[:, 0], pts[:, 1], "o-",
                  label=f"{method}: N^{growth_exponent(pts[:, 0], pts[:, 1]):.2f}")
    if scaling:
        first = np.array(next(iter(scaling.values()))["points"][0][:2], dtype=float)
        n = np.array([first[0], 6400.0])
        ax.plot(n, first[1] * (n / first[0]) ** 1.7, "k:", lw=1,
                  label="N^1.7 (the thesis, a1a-a5a)")
    ax.set(xlabel="N (points)", ylabel="kernel learning (s)",
           title="SimpleNPKL on Adult (reproduction study)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    return fig


def indefinite_data(n, seed=0):
    """A Gaussian of the L1 distance on 3 Gaussian classes in 10-D (indefinite)."""
    from scipy.spatial.distance import pdist, squareform

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10)) + 1.5 * rng.integers(0, 3, n)[:, None]
    D = squareform(pdist(X, "cityblock"))
    return np.exp(-(D / np.median(D)) ** 2)


def measure_spectrum_growth(sizes=(250, 500, 1000, 2000), repeats=3, k=100, m=200):
    """Median process-CPU seconds of a clip fit per path and n (paths in rotating order).

    Returns ``{path: [seconds per size]}`` for ``dense`` (every eigenpair),
    ``arpack`` (the ``k`` leading ones) and ``nystroem`` (``m`` landmarks).
    """
    from threadpoolctl import threadpool_limits

    from proxlearn.kernel_approximation import NystroemSpectrum
    from proxlearn.transforms import SpectrumTransformer

    makers = {
        "dense": lambda: SpectrumTransformer("clip", eigen_solver="dense"),
        "arpack": lambda: SpectrumTransformer("clip", eigen_solver="arpack",
                                              n_components=k, random_state=0),
        "nystroem": lambda: NystroemSpectrum("clip", n_components=m, random_state=0),
    }
    names = list(makers)
    out = {name: [] for name in names}
    with threadpool_limits(1):
        for n in sizes:
            S = indefinite_data(n)
            times = {name: [] for name in names}
            for rep in range(repeats):
                for name in names[rep % 3:] + names[:rep % 3]:
                    t = time.process_time()
                    makers[name]().fit(S)
                    times[name].append(time.process_time() - t)
            for name in names:
                out[name].append(float(np.median(times[name])))
    return out


def spectrum_growth_figure(sizes=(250, 500, 1000, 2000), repeats=3):
    """Time against n of the three clip paths, measured now (see the module docstring)."""
    measured = measure_spectrum_growth(sizes, repeats)
    labels = {"dense": "dense eigendecomposition", "arpack": "ARPACK, k = 100",
              "nystroem": "Nystroem, m = 200"}
    fig, ax = plt.subplots(figsize=(6.2, 4.2))
    _log_n_axis(ax, sizes)
    for name, seconds in measured.items():
        ax.plot(sizes, seconds, "o-",
                  label=f"{labels[name]}: n^{growth_exponent(sizes, seconds):.2f}")
    ax.set(xlabel="n (training objects)", ylabel="fit, process CPU (s)",
           title="Clip correction of an n x n similarity (1 BLAS thread)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    return fig
