"""Tables and plots of a study, next to the papers' numbers.

* Significance (Chen et al. 2009, section 7.2): the best method (lowest mean
  error) and every method whose paired per-partition errors are not
  significantly worse by a one-sided Wilcoxon signed-rank test at 5% are marked
  (bold in the terminal, Markdown and LaTeX).
* Agreement with a paper (docs/methods.md, "Study reference notes: agreement
  rule"): with R partitions,
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
    """The papers' numbers shipped with proxlearn.

    Returns
    -------
    list of PaperValue
        One per published number of the package data file ``targets.csv``.

    See Also
    --------
    summary_rows : Sets a study's rows beside these numbers.

    Examples
    --------
    >>> from proxlearn.study import load_targets
    >>> row = load_targets()[0]
    >>> row.source, row.dataset, row.method, row.mean
    ('chen2009', 'aural_sonar', 'knn', 17.0)
    """
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


#: Tables whose printed +- values we read as standard errors over this many
#: partitions (docs/methods.md, "Study reference notes: standard-error tables").
STANDARD_ERROR_TABLES = {("gu2012", "2"): 50, ("gu2012", "3"): 50}


def _paper_cell(targets, protocol, dataset, method, metric="error_pct"):
    """The first matching paper value, the sigma the agreement rule uses, and its source.

    sigma is the row's std; else the largest std in the same table and data set
    ("paper column"); a printed standard error over R partitions is turned into
    a std by multiplying with sqrt(R) ("paper SE x sqrt(R)"). When the paper
    prints no spread at all for that column, the caller falls back to our own
    per-partition std ("ours").
    """
    rows = [
        t
        for t in targets
        if t.protocol == protocol
        and t.dataset == dataset
        and t.method == method
        and t.metric == metric
    ]
    if not rows:
        return None, None, None
    return (rows[0], *target_sigma(rows[0], targets))


def target_sigma(row: PaperValue, targets) -> tuple[float | None, str | None]:
    """The sigma the agreement rule uses for one paper value, and where it came from
    (the rule of :func:`_paper_cell`, for a given row of targets.csv)."""
    sigma, source = row.std, "paper"
    if sigma is None:
        same_col = [
            t.std
            for t in targets
            if t.table == row.table
            and t.dataset == row.dataset
            and t.metric == row.metric
            and t.std is not None
        ]
        sigma, source = (max(same_col), "paper column") if same_col else (None, None)
    reps = STANDARD_ERROR_TABLES.get((row.source, row.table))
    if sigma is not None and reps:
        sigma, source = sigma * math.sqrt(reps), f"paper SE x sqrt({reps})"
    return sigma, source


def agreement(ours: float, paper: float, sigma: float | None, n_partitions: int) -> bool | None:
    """The reference agreement rule; ``None`` when no sigma is known.

    ``|ours - paper| <= 2 * sqrt(2 / n_partitions) * sigma``.

    Parameters
    ----------
    ours, paper : float
        Our mean and the paper's value.
    sigma : float or None
        The paper's standard deviation.
    n_partitions : int
        Partitions behind ``ours``.

    Returns
    -------
    bool or None

    See Also
    --------
    summary_rows : Applies the rule to every row of a study.

    Examples
    --------
    >>> from proxlearn.study import agreement
    >>> agreement(12.0, 10.0, 4.0, 20), agreement(12.0, 10.0, 2.0, 20), agreement(12.0, 10.0, None, 20)
    (True, False, None)
    """
    if sigma is None:
        return None
    return abs(ours - paper) <= 2.0 * math.sqrt(2.0 / n_partitions) * sigma


def min_partitions_for_significance(alpha: float = 0.05) -> int:
    """Fewest partitions at which :func:`not_worse_than_best` can find a method
    significantly worse: the smallest one-sided Wilcoxon p-value over ``n`` pairs
    is ``2^-n``, so below this every method is "not significantly worse"."""
    return int(math.floor(-math.log2(alpha))) + 1


def not_worse_than_best(errors: dict[str, np.ndarray], alpha: float = 0.05) -> set[str]:
    """Methods not significantly worse than the best (one-sided Wilcoxon).

    Parameters
    ----------
    errors : dict of str to array
        Per-partition errors of each method, paired by partition.
    alpha : float, default=0.05
        Significance level of the one-sided Wilcoxon signed-rank test.

    Returns
    -------
    set of str
        The best method (lowest mean error) and every method whose p-value is
        at least ``alpha``.

    See Also
    --------
    summary_rows : Marks these methods ``best``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.study import not_worse_than_best
    >>> errs = {"a": np.arange(10.0), "b": np.arange(10.0) + 5, "c": np.arange(10.0)[::-1]}
    >>> sorted(not_worse_than_best(errs))
    ['a', 'c']
    """
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


#: Our own per-partition std stands in for a missing paper sigma only from this
#: many partitions on (fewer cannot estimate a spread; the verdict is then n/a).
MIN_OWN_SIGMA_PARTITIONS = 5


def _primary_metric(result: StudyResult) -> tuple[str, str]:
    """(our metric, the papers' metric name) that a protocol's tables report."""
    if "accuracy" in result.protocol.metrics:
        return "accuracy", "accuracy_pct"
    return "error", "error_pct"


def _common_partitions(result: StudyResult, dataset: str, methods) -> dict[str, np.ndarray]:
    """Per-method errors on the partitions every method has (paired for Wilcoxon)."""
    parts = {m: {c.partition: c.error for c in result.cells if c.dataset == dataset and c.method == m}
             for m in methods}
    common = sorted(set.intersection(*(set(p) for p in parts.values()))) if parts else []
    if not common:
        return {}
    return {m: np.array([parts[m][i] for i in common]) for m in methods}


def summary_rows(result: StudyResult, targets=None) -> list[dict]:
    """One row per (data set, method) with ours, the paper's value and the verdict.

    The compared metric is the test error in %, or the accuracy in % for
    protocols whose paper reports accuracy (``kundu2010``; its rows also carry
    ``f_score``). ``sigma_source`` says where the agreement rule's sigma came
    from (see :func:`_paper_cell`); "ours" means the paper printed no spread and
    our own per-partition std was used.

    Parameters
    ----------
    result : StudyResult
    targets : list of PaperValue, optional
        The papers' numbers (default: :func:`load_targets`).

    Returns
    -------
    list of dict
        Keys ``dataset``, ``method``, ``metric``, ``n_partitions``, ``mean``,
        ``std``, ``best``, ``paper``, ``paper_std``, ``paper_table``, ``gap``,
        ``sigma``, ``sigma_source``, ``agrees``, ``partial`` (and ``f_score``).

    See Also
    --------
    to_markdown, to_latex, rich_table : The rows as a table.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, run_study, summary_rows
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> [(r["method"], round(r["mean"], 2), r["best"]) for r in summary_rows(result)]
    [('knn', 8.33, True), ('svm-clip', 0.0, True)]
    """
    targets = load_targets() if targets is None else targets
    rows = []
    metric, paper_metric = _primary_metric(result)
    for ds in result.datasets:
        errs = {m: result.errors(ds, m) for m in result.methods if result.errors(ds, m).size}
        bold = not_worse_than_best(_common_partitions(result, ds, list(errs)))
        for m in errs:
            vals = result.metric(ds, m, metric)
            R = vals.size  # partitions actually run (a partial run may have fewer)
            paper, sigma, source = _paper_cell(targets, result.protocol.name, ds, m, paper_metric)
            mean = float(vals.mean())
            std = float(vals.std(ddof=1)) if vals.size > 1 else 0.0
            if paper is not None and sigma is None and vals.size >= MIN_OWN_SIGMA_PARTITIONS:
                sigma, source = std, "ours"
            row = {
                "dataset": ds,
                "method": m,
                "metric": metric,
                "n_partitions": R,
                "mean": mean,
                "std": std,
                "best": m in bold,
                "paper": None if paper is None else paper.mean,
                "paper_std": None if paper is None else paper.std,
                "paper_table": None if paper is None else f"{paper.source} {paper.table}",
                "gap": None if paper is None else mean - paper.mean,
                "sigma": sigma,
                "sigma_source": source,
                "agrees": None if paper is None else agreement(mean, paper.mean, sigma, R),
            }
            row["partial"] = R != result.protocol.n_splits
            if "f_score" in result.protocol.metrics:
                f = result.metric(ds, m, "f_score")
                row["f_score"] = float(np.nanmean(f)) if f.size else None
            rows.append(row)
    return rows


#: How to read the verdict column; printed under every table that has one.
VERDICT_NOTE = (
    "verdict: 'agrees' when |ours - paper| <= 2 sqrt(2/R) sigma (R partitions, sigma the "
    "paper's std), 'DIFFERS' otherwise, 'n/a' without any std; 'agrees*' / 'DIFFERS*': the "
    "paper prints no std, so our own std over the partitions was used as sigma."
)


def _has_verdicts(rows) -> bool:
    return any(r["paper"] is not None for r in rows)


def _fmt_paper(r) -> tuple[str, str, str]:
    if r["paper"] is None:
        return "", "", ""
    p = f"{r['paper']:.2f}" + ("" if r["paper_std"] is None else f" ({r['paper_std']:.2f})")
    verdict = {True: "agrees", False: "DIFFERS", None: "n/a"}[r["agrees"]]
    if r["agrees"] is not None and r.get("sigma_source") == "ours":
        verdict += "*"  # the paper prints no spread: our own std was used
    return p, f"{r['gap']:+.2f}", verdict


def _columns(rows) -> tuple[list[str], bool]:
    has_f = any("f_score" in r for r in rows)
    metric = rows[0]["metric"] if rows else "error"
    ours = f"ours {'accuracy' if metric == 'accuracy' else 'error'} % mean (std)"
    cols = ["data set", "method", ours] + (["F-score %"] if has_f else []) + ["paper", "gap", "verdict"]
    return cols, has_f


def _cells(r, has_f, bold, plain=str) -> list[str]:
    """The row's cells; ``bold`` formats the best method's value, ``plain`` the rest."""
    ours = f"{r['mean']:.2f} ({r['std']:.2f})"
    if r.get("partial"):
        ours += f" [R={r['n_partitions']}]"
    ours = bold(ours) if r["best"] else plain(ours)
    extra = [("" if r.get("f_score") is None else f"{r['f_score']:.2f}")] if has_f else []
    return [plain(r["dataset"]), plain(r["method"]), ours,
            *map(plain, extra), *map(plain, _fmt_paper(r))]


def _title(result: StudyResult, rows) -> str:
    metric = rows[0]["metric"] if rows else "error"
    what = "test accuracy" if metric == "accuracy" else "test error"
    return (
        f"protocol {result.protocol.name}: {what} % over {result.protocol.n_splits} partitions "
        "(bold: best and not significantly worse, one-sided Wilcoxon 5%)"
    )


def rich_table(result: StudyResult, rows=None):
    """A rich Table: mean (std) per data set and method, best in bold, paper columns.

    Parameters
    ----------
    result : StudyResult
    rows : list of dict, optional
        :func:`summary_rows` of ``result`` (computed when not given).

    Returns
    -------
    rich.table.Table

    See Also
    --------
    to_markdown, to_latex : The same table as text.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, rich_table, run_study
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> rich_table(result).row_count
    2
    """
    from rich.table import Table

    rows = summary_rows(result) if rows is None else rows
    cols, has_f = _columns(rows)
    from rich.markup import escape

    table = Table(title=escape(_title(result, rows)),
                  caption=escape(VERDICT_NOTE) if _has_verdicts(rows) else None)
    for col in cols:
        table.add_column(col, justify="left" if col in ("data set", "method") else "right")
    for r in rows:  # escaped: "[R=3]" or a name with brackets is text, not rich markup
        table.add_row(*_cells(r, has_f, lambda x: f"[bold]{escape(x)}[/bold]", escape))
    return table


def to_markdown(result: StudyResult, rows=None) -> str:
    """Markdown table of :func:`summary_rows` (best in bold).

    A verdict marked ``*`` used our own std because the paper prints none.

    Parameters
    ----------
    result : StudyResult
    rows : list of dict, optional
        :func:`summary_rows` of ``result`` (computed when not given).

    Returns
    -------
    str

    See Also
    --------
    to_latex, rich_table : The same table in other forms.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, run_study, to_markdown
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> print(to_markdown(result).splitlines()[2])
    | gu-guo-synthetic(sigma2=2, eta=20) | knn | **8.33 (11.79)** |  |  |  |
    """
    rows = summary_rows(result) if rows is None else rows
    cols, has_f = _columns(rows)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_cells(r, has_f, lambda x: f"**{x}**")) + " |")
    if _has_verdicts(rows):
        lines += ["", VERDICT_NOTE]
    return "\n".join(lines) + "\n"


def to_latex(result: StudyResult, rows=None) -> str:
    """LaTeX tabular of :func:`summary_rows` (best in bold).

    Parameters
    ----------
    result : StudyResult
    rows : list of dict, optional
        :func:`summary_rows` of ``result`` (computed when not given).

    Returns
    -------
    str

    See Also
    --------
    to_markdown, rich_table : The same table in other forms.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, run_study, to_latex
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> print(to_latex(result).splitlines()[0])
    \\begin{tabular}{llrrrl}
    """
    rows = summary_rows(result) if rows is None else rows
    cols, has_f = _columns(rows)

    def esc(s):
        return str(s).replace("_", r"\_").replace("%", r"\%")

    lines = [
        r"\begin{tabular}{ll" + "r" * (len(cols) - 3) + "l}",
        r"\hline",
        " & ".join(esc(c) for c in cols) + r" \\",
        r"\hline",
    ]
    for r in rows:
        cells = _cells(r, has_f, lambda x: rf"\textbf{{{x}}}")
        lines.append(" & ".join(esc(c) if not c.startswith("\\textbf") else c for c in cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    if _has_verdicts(rows):
        lines.append("% " + VERDICT_NOTE)
    return "\n".join(lines) + "\n"


def plot_errors(result: StudyResult, path) -> None:
    """One panel per data set: mean test error with std error bars per method.

    Parameters
    ----------
    result : StudyResult
    path : str or Path
        The image file written (format from the suffix).

    See Also
    --------
    to_markdown : The numbers as a table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> from proxlearn.study import get_protocol, plot_errors, run_study
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> result = run_study([ds], ["knn", "svm-clip"], get_protocol("custom", n_splits=2, cv=2))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     plot_errors(result, Path(tmp) / "errors.png")
    ...     (Path(tmp) / "errors.png").stat().st_size > 0
    True
    """
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
