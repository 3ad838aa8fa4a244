"""Tables and plots of a study, next to the papers' numbers.

* Significance (Chen et al. 2009, section 7.2): the best method (lowest mean
  error) and every method whose paired per-partition errors are not
  significantly worse by a one-sided Wilcoxon signed-rank test at 5% are marked
  (bold in the terminal, Markdown and LaTeX).
* Agreement with a paper (../shared/reference/README.md): with R partitions,
  ``|ours - paper| <= 2 * sqrt(2 / R) * sigma`` where sigma is the paper row's
  std, or the largest std in the same table and data set when the row has none.
  The papers' numbers are kept in the package data file ``targets.csv``.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from importlib import resources

import numpy as np
from scipy.stats import wilcoxon

from ._runner import StudyResult

__all__ = ["PaperValue", "agreement", "load_targets", "not_worse_than_best", "summary_rows"]


@dataclass(frozen=True)
class PaperValue:
    """One published number (a row of targets.csv)."""

    source: str
    table: str
    protocol: str
    dataset: str
    method: str
    metric: str
    mean: float
    std: float | None
    note: str


def load_targets() -> list[PaperValue]:
    """The papers' numbers shipped with proxlearn."""
    text = resources.files("proxlearn.study").joinpath("data/targets.csv").read_text()
    rows = []
    for r in csv.DictReader(text.splitlines()):
        rows.append(
            PaperValue(
                r["source"],
                r["table"],
                r["protocol"],
                r["dataset"],
                r["method"],
                r["metric"],
                float(r["mean"]),
                float(r["std"]) if r["std"] else None,
                r["note"],
            )
        )
    return rows


def _paper_cell(targets, protocol, dataset, method, metric="error_pct"):
    """The first matching paper value and the sigma the agreement rule uses."""
    rows = [
        t
        for t in targets
        if t.protocol == protocol
        and t.dataset == dataset
        and t.method == method
        and t.metric == metric
    ]
    if not rows:
        return None, None
    row = rows[0]
    sigma = row.std
    if sigma is None:
        same_col = [
            t.std
            for t in targets
            if t.table == row.table
            and t.dataset == dataset
            and t.metric == metric
            and t.std is not None
        ]
        sigma = max(same_col) if same_col else None
    return row, sigma


def agreement(ours: float, paper: float, sigma: float | None, n_partitions: int) -> bool | None:
    """The reference agreement rule; ``None`` when no sigma is known."""
    if sigma is None:
        return None
    return abs(ours - paper) <= 2.0 * math.sqrt(2.0 / n_partitions) * sigma


def not_worse_than_best(errors: dict[str, np.ndarray], alpha: float = 0.05) -> set[str]:
    """Methods not significantly worse than the best (one-sided Wilcoxon)."""
    if not errors:
        return set()
    best = min(errors, key=lambda m: float(np.mean(errors[m])))
    keep = {best}
    for m, e in errors.items():
        if m == best:
            continue
        d = np.asarray(e) - np.asarray(errors[best])
        if np.all(d == 0) or d.size < 2:
            keep.add(m)
            continue
        p = wilcoxon(e, errors[best], alternative="greater", zero_method="zsplit").pvalue
        if p >= alpha:
            keep.add(m)
    return keep


def summary_rows(result: StudyResult, targets=None) -> list[dict]:
    """One row per (data set, method) with ours, the paper's value and the verdict."""
    targets = load_targets() if targets is None else targets
    rows = []
    R = result.protocol.n_splits
    for ds in result.datasets:
        errs = {m: result.errors(ds, m) for m in result.methods if result.errors(ds, m).size}
        bold = not_worse_than_best(errs)
        for m, e in errs.items():
            paper, sigma = _paper_cell(targets, result.protocol.name, ds, m)
            mean = float(e.mean())
            std = float(e.std(ddof=1)) if e.size > 1 else 0.0
            rows.append(
                {
                    "dataset": ds,
                    "method": m,
                    "mean": mean,
                    "std": std,
                    "best": m in bold,
                    "paper": None if paper is None else paper.mean,
                    "paper_std": None if paper is None else paper.std,
                    "paper_table": None if paper is None else f"{paper.source} {paper.table}",
                    "gap": None if paper is None else mean - paper.mean,
                    "agrees": None if paper is None else agreement(mean, paper.mean, sigma, R),
                }
            )
    return rows


def _fmt_paper(r) -> tuple[str, str, str]:
    if r["paper"] is None:
        return "", "", ""
    p = f"{r['paper']:.2f}" + ("" if r["paper_std"] is None else f" ({r['paper_std']:.2f})")
    verdict = {True: "agrees", False: "DIFFERS", None: "n/a"}[r["agrees"]]
    return p, f"{r['gap']:+.2f}", verdict


def rich_table(result: StudyResult, rows=None):
    """A rich Table: mean (std) per data set and method, best in bold, paper columns."""
    from rich.table import Table

    rows = summary_rows(result) if rows is None else rows
    table = Table(
        title=f"protocol {result.protocol.name}: test error % over "
        f"{result.protocol.n_splits} partitions (bold: best and not significantly worse)"
    )
    for col in ("data set", "method", "ours mean (std)", "paper", "gap", "verdict"):
        table.add_column(col, justify="left" if col in ("data set", "method") else "right")
    for r in rows:
        ours = f"{r['mean']:.2f} ({r['std']:.2f})"
        if r["best"]:
            ours = f"[bold]{ours}[/bold]"
        table.add_row(r["dataset"], r["method"], ours, *_fmt_paper(r))
    return table


def to_markdown(result: StudyResult, rows=None) -> str:
    """Markdown table of :func:`summary_rows` (best in bold)."""
    rows = summary_rows(result) if rows is None else rows
    lines = [
        "| data set | method | ours mean (std) | paper | gap | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        ours = f"{r['mean']:.2f} ({r['std']:.2f})"
        if r["best"]:
            ours = f"**{ours}**"
        lines.append(f"| {r['dataset']} | {r['method']} | {ours} | " + " | ".join(_fmt_paper(r)) + " |")
    return "\n".join(lines) + "\n"


def to_latex(result: StudyResult, rows=None) -> str:
    """LaTeX tabular of :func:`summary_rows` (best in bold)."""
    rows = summary_rows(result) if rows is None else rows

    def esc(s):
        return str(s).replace("_", r"\_")

    lines = [r"\begin{tabular}{llrrrl}", r"\hline", r"data set & method & ours & paper & gap & verdict \\", r"\hline"]
    for r in rows:
        ours = f"{r['mean']:.2f} ({r['std']:.2f})"
        if r["best"]:
            ours = rf"\textbf{{{ours}}}"
        p, g, v = _fmt_paper(r)
        lines.append(f"{esc(r['dataset'])} & {esc(r['method'])} & {ours} & {p} & {g} & {v} \\\\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def plot_errors(result: StudyResult, path) -> None:
    """One panel per data set: mean test error with std error bars per method."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    datasets = result.datasets
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(max(4.0, 0.5 * len(result.methods) + 2) * len(datasets), 4), squeeze=False
    )
    for ax, ds in zip(axes[0], datasets, strict=True):
        methods = [m for m in result.methods if result.errors(ds, m).size]
        means = [result.errors(ds, m).mean() for m in methods]
        stds = [result.errors(ds, m).std(ddof=1) if result.errors(ds, m).size > 1 else 0 for m in methods]
        ax.bar(range(len(methods)), means, yerr=stds, capsize=3, color="tab:blue", alpha=0.8)
        ax.set_xticks(range(len(methods)), methods, rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("test error (%)")
        ax.set_title(ds)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
