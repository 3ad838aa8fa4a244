"""Reproduction studies: protocols, the method registry, nested CV runs and reports.

A study runs registered methods (:data:`METHODS`) on data sets under a
protocol (:data:`PROTOCOLS`: random partitions, inner cross-validation folds,
a grid set) and sets the errors beside the papers' numbers
(:func:`summary_rows`). :func:`reproduce` runs the papers' sections
(:data:`SECTIONS`, one plugin package per paper in ``study.papers``) and
writes the report.

Examples
--------
>>> from proxlearn.datasets import make_gu_guo_synthetic
>>> from proxlearn.study import get_protocol, run_study
>>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
>>> result = run_study([ds], ["svm-clip"], get_protocol("custom", n_splits=2, cv=2))
>>> result.errors(ds.name, "svm-clip").tolist()
[0.0, 0.0]
"""

from ._methods import METHODS, Method, get_method, register_method
from ._protocols import PROTOCOLS, Protocol, get_protocol, inner_folds, make_partitions
from ._report import (
    agreement,
    load_targets,
    not_worse_than_best,
    plot_errors,
    rich_table,
    summary_rows,
    to_latex,
    to_markdown,
)
from ._runner import CellResult, StudyResult, run_cell, run_study

# the papers' plugins register their methods on import (proxlearn.study.papers)
from .papers.chen2009._loo import (  # noqa: E402
    LOO_K,
    LOO_KRI_REG,
    loo_grid,
    loo_rows,
    loo_study,
    plot_perplexity_curves,
)
from .papers.chen2010._full_data import full_data_tables, table_5_1, table_5_2  # noqa: E402
from ._reproduce import SECTIONS, reproduce  # noqa: E402

__all__ = [
    "SECTIONS",
    "full_data_tables",
    "reproduce",
    "table_5_1",
    "table_5_2",
    "LOO_K",
    "LOO_KRI_REG",
    "loo_grid",
    "loo_rows",
    "loo_study",
    "plot_perplexity_curves",
    "METHODS",
    "PROTOCOLS",
    "CellResult",
    "Method",
    "Protocol",
    "StudyResult",
    "agreement",
    "get_method",
    "get_protocol",
    "inner_folds",
    "load_targets",
    "make_partitions",
    "not_worse_than_best",
    "plot_errors",
    "register_method",
    "rich_table",
    "run_cell",
    "run_study",
    "summary_rows",
    "to_latex",
    "to_markdown",
]
