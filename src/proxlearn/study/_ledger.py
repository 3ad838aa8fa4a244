"""The verdict ledger: one status for every published number the report targets.

The report's section tables show our rows; a paper row that none of them
computes would otherwise simply be absent, and a number printed by two papers
(Chen et al. 2009 Table 3 and the thesis's Table 5.3 share rows) would be
counted twice or once depending on the table. The ledger walks the targets
instead (``study/data/targets.csv``: every row of every table we reproduce) and
gives each exactly one status:

=============  ===========================================================
``agrees``     the agreement rule holds (:func:`~proxlearn.study.agreement`)
``DIFFERS``    it does not
``no verdict`` we ran it but no sigma is known (the paper prints no spread and
               we have fewer than ``MIN_OWN_SIGMA_PARTITIONS`` partitions)
``not run``    no result; ``reason`` says why (data missing, method not
               implemented, a cost limit, section not in this report)
=============  ===========================================================

Why a ledger: docs/methods.md, "Study reference notes: the verdict ledger".

**Two readings**. Where an estimator's default differs from the
paper's literal text (SimpleNPKL's Laplacian, ESKL's directions and start, ...),
a section may compute the same paper row under both: rows carry ``reading``
(``"text"`` when absent), or a study method is named ``<paper method>@<reading>``
(e.g. ``eskl-l2@default``). :func:`verdict_ledger` with ``reading="text"`` judges
the text rows only (the ledger the report has always had); with
``reading="default"`` it judges each target by its default-reading row where one
exists and by the text row elsewhere (there the two readings coincide), so both
ledgers count every target once.
"""
from __future__ import annotations

from dataclasses import dataclass

from ._report import PaperValue, agreement, target_sigma

__all__ = ["LedgerEntry", "reading_of", "verdict_ledger"]

#: the study rows' metric name -> the targets' metric name
_METRIC = {"error": "error_pct", "accuracy": "accuracy_pct"}


@dataclass(frozen=True)
class LedgerEntry:
    target: PaperValue
    status: str  # "agrees", "DIFFERS", "no verdict", "not run"
    section: str | None = None
    ours: float | None = None
    n_partitions: int | None = None
    sigma: float | None = None
    sigma_source: str | None = None
    reason: str = ""
    reading: str = "text"

    @property
    def gap(self) -> float | None:
        return None if self.ours is None else self.ours - self.target.mean


def digits_agree(ours: float, paper: float, digits: int) -> bool:
    """Deterministic cells (leave-one-out, whole data set) agree to the printed digits."""
    return round(ours, digits) == round(paper, digits)


def spread_agree(ours: float, paper: float, paper_std: float | None,
                 our_std: float | None) -> bool:
    """Random rows of Table 5.1 (LP over draws): within 2 of the larger spread."""
    return abs(ours - paper) <= 2 * max(paper_std or 0.0, our_std or 0.0)


def reading_of(method: str, row: dict | None = None) -> tuple[str, str]:
    """``(paper method, reading)`` of a row: ``row["reading"]`` when it says, else the
    part of ``method`` after ``@`` (``"eskl-l2@default"`` -> ``("eskl-l2", "default")``),
    else ``"text"``."""
    base, _, suffix = (method or "").partition("@")
    reading = (row or {}).get("reading") or suffix or "text"
    return (base if suffix else method), reading


def _observations(key: str, spec, out: dict) -> list[dict]:
    """Every computed number of one section, in the targets' vocabulary."""
    obs = []
    aliases = getattr(spec, "aliases", {}) or {}
    protocol = out.get("protocol", getattr(spec, "protocol", None))
    for r in out.get("rows", []):
        base = dict(section=key, protocol=protocol, dataset=r.get("dataset"), reading="text")
        if protocol == "loo":
            for metric, digits in (("perplexity", 2), ("nce", 4)):
                obs.append(dict(base, method=r["method"], metric=metric, mean=r[metric],
                                R=1, rule=("digits", digits), not_run=None))
            continue
        if protocol == "full-data":
            rule = ("spread", None) if r.get("paper_std") else (
                "digits", 1 if r["metric"].endswith("pct") else 3)
            obs.append(dict(base, method=r["method"], metric=r["metric"], mean=r["mean"],
                            R=r.get("n_draws", 1), std=r.get("std"), rule=rule, not_run=None))
            continue
        metric = r.get("metric")
        if protocol == "zhuang2011-ch3":
            metric = "rand_pct"
        metric = _METRIC.get(metric, metric)
        alias = aliases.get((r.get("dataset"), r.get("method")))
        method, reading = reading_of(r.get("method"), r)
        obs.append(dict(base, method=alias or method, aliased=alias is not None,
                        **{"reading": reading},
                        metric=metric, mean=r.get("mean"),
                        R=r.get("n_partitions") or 0, own_table=r.get("paper_table"),
                        own_paper=r.get("paper"), agrees=r.get("agrees"),
                        sigma=r.get("sigma"), sigma_source=r.get("sigma_source"),
                        rule=("row", None), not_run=r.get("not_run")))
    return obs


def _judge(t: PaperValue, o: dict, targets) -> LedgerEntry:
    common = dict(target=t, section=o["section"], ours=o["mean"], n_partitions=o["R"],
                  reading=o.get("reading", "text"))
    if o["mean"] is None:
        return LedgerEntry(t, "not run", o["section"], reason=o.get("not_run") or "no result",
                           reading=o.get("reading", "text"))
    kind, digits = o["rule"]
    if kind == "digits":
        ok = digits_agree(o["mean"], t.mean, digits)
        return LedgerEntry(**common, status="agrees" if ok else "DIFFERS",
                           sigma_source=f"printed digits ({digits})")
    if kind == "spread":
        ok = spread_agree(o["mean"], t.mean, t.std, o.get("std"))
        return LedgerEntry(**common, status="agrees" if ok else "DIFFERS",
                           sigma=max(t.std or 0.0, o.get("std") or 0.0),
                           sigma_source="max(paper, ours) std, 2 of it")
    own = (o.get("own_table") or "").split(" (")[0] == f"{t.source} {t.table}" \
        and o.get("own_paper") == t.mean
    if own:
        agrees, sigma, source = o["agrees"], o["sigma"], o["sigma_source"]
    else:  # the row was compared with another paper's copy of this number
        sigma, source = target_sigma(t, targets)
        if sigma is None and o.get("sigma_source") == "ours":
            sigma, source = o["sigma"], "ours"
        agrees = agreement(o["mean"], t.mean, sigma, o["R"])
    status = "no verdict" if agrees is None else ("agrees" if agrees else "DIFFERS")
    return LedgerEntry(**common, status=status, sigma=sigma, sigma_source=source)


def _not_run_reason(t: PaperValue, specs, sections: dict) -> tuple[str | None, str]:
    for s in specs:  # a data set a section leaves out on purpose, with its reason
        if s.protocol == t.protocol and t.dataset in getattr(s, "not_run", {}):
            return s.key, s.not_run[t.dataset]
    owners = [s for s in specs if s.protocol == t.protocol and t.dataset in s.datasets]
    if not owners:
        return None, "no section of the report runs this data set"
    # the section that lists the method first (Zhuang's Tables 4.2 and 5.2 share sets)
    owners.sort(key=lambda s: t.method not in (set(s.methods) | set(s.aliases.values())))
    for s in owners:
        out = sections.get(s.key)
        if out is None:
            continue
        for m in out.get("missing_data", []):
            if m.split(" ")[0] == t.dataset:
                return s.key, "data missing: " + m[len(t.dataset):].strip(" ()")
        if t.method in out.get("not_registered", []):
            return s.key, "method not implemented"
        paper_methods = set(s.methods) | set(s.aliases.values())
        if t.method in paper_methods:
            return s.key, "no partition finished (see the section's note)"
    ran = [s.key for s in owners if s.key in sections]
    if not ran:
        return owners[0].key, f"section {owners[0].key} not in this report"
    return ran[0], "not among the section's methods"


def verdict_ledger(sections: dict, specs, targets, reading: str = "text") -> list[LedgerEntry]:
    """One :class:`LedgerEntry` per target row, in targets.csv order.

    Parameters
    ----------
    sections : dict
        Section key -> the section's output (``rows``, ``missing_data``, ...), as
        the report holds them.
    specs : sequence of Section
        The report's section definitions (protocol, data sets, methods, aliases).
    targets : list of PaperValue
    reading : str, default="text"
        ``"text"``: judge the rows computed under the papers' literal reading only.
        Another reading: judge each target by its row under that reading where one
        exists, else by its text row (the module docstring).
    """
    by_key = {s.key: s for s in specs}
    obs = []
    for key, out in sections.items():
        if isinstance(out, dict) and key in by_key:
            obs += _observations(key, by_key[key], out)
    if reading == "text":
        obs = [o for o in obs if o["reading"] == "text"]
    else:
        obs = [o for o in obs if o["reading"] in ("text", reading)]
    index: dict[tuple, list[dict]] = {}
    for o in obs:
        index.setdefault((o["protocol"], o["dataset"], o["method"], o["metric"]), []).append(o)
    entries = []
    for t in targets:
        cands = index.get((t.protocol, t.dataset, t.method, t.metric), [])
        ran = [o for o in cands if o["mean"] is not None]
        if not ran:
            if cands:  # a row that says why it was not run
                entries.append(_judge(t, cands[0], targets))
                continue
            section, reason = _not_run_reason(t, specs, sections)
            entries.append(LedgerEntry(t, "not run", section, reason=reason))
            continue
        # prefer the row a section declares to be the paper's (an alias: e.g. the
        # thesis's protein-2 SimSVM rows are our flip variant), then the section whose
        # own comparison is this paper's number, then the one named after this paper,
        # then the most partitions
        def rank(o):
            own = (o.get("own_table") or "").split(" (")[0] == f"{t.source} {t.table}"
            return (o["reading"] != reading, not o.get("aliased"), not own,
                    not o["section"].startswith(t.source), -o["R"])

        entries.append(_judge(t, min(ran, key=rank), targets))
    return entries


_STATUSES = ("agrees", "DIFFERS", "no verdict", "not run")


def _counts(entries):
    """``{(paper, table): {status: count}}`` and the totals per status."""
    tables: dict[tuple[str, str], dict[str, int]] = {}
    for e in entries:
        c = tables.setdefault((e.target.source, e.target.table), {})
        c[e.status] = c.get(e.status, 0) + 1
    return tables, {s: sum(c.get(s, 0) for c in tables.values()) for s in _STATUSES}


def _readings_markdown(entries, default_entries) -> list[str]:
    """Both ledgers' totals, and every target judged by a default-reading row."""
    _, text_total = _counts(entries)
    _, total = _counts(default_entries)
    def key(t):
        return (t.source, t.table, t.protocol, t.dataset, t.method, t.metric)

    by_target = {key(e.target): e for e in entries}
    moved = [(by_target.get(key(d.target)), d) for d in default_entries if d.reading != "text"]
    lines = ["", "### The same ledger under the estimators' defaults", "",
             "Where an estimator's default differs from the paper's literal text (docs/methods.md "
             "says which and why), a section may compute the paper's row under both readings. "
             "Judging each target by its default-reading row where one exists (and by its text "
             "row elsewhere, where the readings coincide): "
             + ", ".join(f"{total[s]} {s}" for s in _STATUSES)
             + " (the papers' text, above: "
             + ", ".join(f"{text_total[s]} {s}" for s in _STATUSES) + ")."]
    if not moved:
        return lines + ["", "No section of this report computed a paper row under a default "
                        "reading.", ""]
    lines += ["", f"{len(moved)} targets have a default-reading row:", "",
              "| paper table | section | data set | method | paper | text: ours, verdict "
              "| default: ours, verdict |", "|---|---|---|---|---|---|---|"]

    def cell(e):
        if e is None or e.ours is None:
            return "not run"
        return f"{e.ours:.4g}, {e.status}"

    for t_e, d in moved:
        t = d.target
        lines.append(f"| {t.source} {t.table} | {d.section} | {t.dataset} | {t.method} | "
                     f"{t.mean:.4g} | {cell(t_e)} | {cell(d)} |")
    return lines + [""]


def ledger_markdown(entries: list[LedgerEntry],
                    default_entries: list[LedgerEntry] | None = None) -> list[str]:
    """The summary per paper table, every disagreement, and every target not run;
    with ``default_entries`` (:func:`verdict_ledger` under ``reading="default"``) also
    that ledger's totals and every target it judged by a default-reading row."""
    tables, total = _counts(entries)
    statuses = _STATUSES
    lines = ["## Every paper row: the verdict ledger", "",
             f"Each of the {len(entries)} published numbers the report targets "
             "(study/data/targets.csv) has exactly one status; a number two papers print is "
             "judged once, against the row that computes it. Totals, rows computed under "
             "the papers' text: "
             + ", ".join(f"{total[s]} {s}" for s in statuses) + ".", "",
             "| paper | table | rows | agree | differ | no verdict | not run |",
             "|---|---|---|---|---|---|---|"]
    for (src, tab), c in tables.items():
        lines.append(f"| {src} | {tab} | {sum(c.values())} | "
                     + " | ".join(str(c.get(s, 0)) for s in statuses) + " |")
    if default_entries is not None:
        lines += _readings_markdown(entries, default_entries)
    lines += ["", "## Disagreements", ""]
    diff = [e for e in entries if e.status == "DIFFERS"]
    if diff:
        lines += ["| paper table | section | data set | method | metric | R | ours | paper | gap "
                  "| sigma used |", "|---|---|---|---|---|---|---|---|---|---|"]
        for e in diff:
            t = e.target
            sig = "" if e.sigma is None else f"{e.sigma:.2f} "
            lines.append(f"| {t.source} {t.table} | {e.section} | {t.dataset} | {t.method} | "
                         f"{t.metric} | {e.n_partitions} | {e.ours:.4g} | {t.mean:.4g} | "
                         f"{e.gap:+.4g} | {sig}({e.sigma_source}) |")
    else:
        lines.append("None among the cells run.")
    not_run = [e for e in entries if e.status == "not run"]
    lines += ["", "## Paper rows not run", ""]
    if not_run:
        groups: dict[tuple, list[str]] = {}
        for e in not_run:
            t = e.target
            groups.setdefault((t.source, t.table, e.section, e.reason), []).append(
                f"{t.dataset}/{t.method}")
        lines += ["| paper table | section | rows | reason |", "|---|---|---|---|"]
        for (src, tab, sec, reason), rows in groups.items():
            lines.append(f"| {src} {tab} | {sec or ''} | {len(rows)}: {', '.join(rows)} | "
                         f"{reason} |")
    else:
        lines.append("None: every target row has a result.")
    nv = [e for e in entries if e.status == "no verdict"]
    if nv:
        lines += ["", "Rows run without a verdict (no sigma: the paper prints no spread and we "
                  "have too few partitions): "
                  + ", ".join(f"{e.target.source} {e.target.table} {e.target.dataset}/"
                              f"{e.target.method}" for e in nv) + "."]
    lines.append("")
    return lines
