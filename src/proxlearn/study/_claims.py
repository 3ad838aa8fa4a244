"""The founding papers' qualitative conclusions, checked on our numbers.

Every claim a paper makes in its text about which method wins where is listed
with the reading we test (the papers' words are rarely a number) and a verdict
"holds" / "does NOT hold" with the values it rests on, or "not run". Means are
paired: over the partitions every compared method has.

=================  =========================================================
Paper              Where the claims come from
=================  =========================================================
Chen et al. 2009   sec. 7.3-8
Chen thesis 2010   sec. 5.3-5.4 and ch. 7
Gu & Guo 2012      sec. 5-6
Kundu et al. 2010  sec. 5-6
Zhuang 2011        ch. 3-5 conclusions
=================  =========================================================

The project notes each reading was taken from: docs/methods.md, "Study
reference notes: the papers' claims". The report lists each claim with holds /
fails, not only those that hold. Each paper's claims live in its plugin package
(:mod:`proxlearn.study.papers`); this module holds the checker they share.
"""
from __future__ import annotations

import numpy as np

from ._report import _common_partitions, not_worse_than_best

__all__ = ["competition_ranks"]


class _Checker:
    """Paired means from the sections' studies, and the (text, verdict) they give."""

    def __init__(self, sections: dict):
        self.sections = sections

    def errors(self, key, ds, methods):
        study = self.sections.get(key, {}).get("_study")
        if study is None:
            return None
        errs = _common_partitions(study, ds, list(methods))
        if not errs or any(errs[m].size == 0 for m in methods):
            return None
        return errs

    def means(self, key, ds, methods):
        errs = self.errors(key, ds, methods)
        if errs is None:
            return [None] * len(methods), 0
        return [float(errs[m].mean()) for m in methods], next(iter(errs.values())).size

    def check(self, text, key, ds, methods, holds):
        values, R = self.means(key, ds, methods)
        if any(v is None for v in values):
            return (text, "not run")
        vals = ", ".join(f"{m} {v:.2f}" for m, v in zip(methods, values))
        verdict = "holds" if holds(*values) else "does NOT hold"
        return (text, f"{verdict} ({vals}; {R} common partition{'s' if R > 1 else ''})")

    def check_sets(self, text, key, datasets, methods, holds, describe=None):
        """One verdict over several data sets: holds when ``holds`` is true on each."""
        parts, ok, ran = [], True, 0
        for ds in datasets:
            values, R = self.means(key, ds, methods)
            if any(v is None for v in values):
                continue
            ran += 1
            good = holds(*values)
            ok &= good
            what = describe(*values) if describe else ", ".join(f"{v:.2f}" for v in values)
            parts.append(f"{ds}: {what}{'' if good else ' (fails)'}")
        if not ran:
            return (text, "not run")
        return (text, f"{'holds' if ok else 'does NOT hold'} ({'; '.join(parts)})")

    def top(self, key, ds, methods):
        """(the methods not significantly worse than the best (one-sided Wilcoxon, 5%),
        their paired means, the number of common partitions); ``(None, None, 0)``
        when not run."""
        errs = self.errors(key, ds, methods)
        if errs is None:
            return None, None, 0
        return (not_worse_than_best(errs), [float(errs[m].mean()) for m in methods],
                next(iter(errs.values())).size)


def competition_ranks(values, higher_is_better=True) -> np.ndarray:
    """Ranks with ties sharing the best rank and the next rank skipped (1, 2, 2, 4),
    as Zhuang's Table 4.2 ranks its methods."""
    v = np.asarray(values, dtype=float)
    better = (v[None, :] > v[:, None]) if higher_is_better else (v[None, :] < v[:, None])
    return 1 + better.sum(axis=1)


