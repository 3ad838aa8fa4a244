"""Every public estimator at its defaults against its simple baseline on real data (issue 40).

One row per (estimator, data set): the mean score over 5 random stratified
splits (the same splits for every column), its standard error, the baseline's,
and a verdict from the paired differences ``d_k = score_k - baseline_k``:
*better* / *worse* when ``|mean d| > 2 se(d)``, else *tied*. The panel (data
sets, splits, baselines, scores) is in ``_defaults_panel.py``.

Each cell (estimator, data set, split) runs in a worker process under a time
limit (``--timeout``; a cell over it is recorded as ``timeout > T s`` and the
remaining splits of that row are skipped) and is cached on disk as JSON, keyed by
the git revision of ``src/proxlearn`` (plus a hash of uncommitted changes), so a
rerun resumes and a rerun after a fix recomputes. Cheap estimators run first,
expensive ones (tier 2) last; ``--budget`` stops starting cells after that many
seconds of wall time.

Run (from the repository root, one BLAS thread)::

    python benchmarks/bench_defaults.py --jobs 1 --timeout 120 --budget 2400
    python benchmarks/bench_defaults.py --report docs/_defaults_table.md
    python benchmarks/bench_defaults.py --estimators ESKL REKL --datasets protein-2 --splits 0 1

``--list`` prints the panel. ``--tiers 0 1`` restricts to cheap/medium estimators.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

# the cells are cached under this tree's revision: import this tree's proxlearn, not an
# installed copy of another checkout (a venv's editable install points elsewhere)
from _bench_env import REPO  # noqa: I001  (first: threads and sys.path before numpy)

import numpy as np  # noqa: E402

import _defaults_panel as panel  # noqa: E402


def source_revision():
    """Last commit touching src/proxlearn, plus a hash of its uncommitted diff."""
    def git(*args):
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True,
                              text=True, check=True).stdout
    rev = git("log", "-1", "--format=%H", "--", "src/proxlearn").strip()[:12]
    diff = git("diff", "HEAD", "--", "src/proxlearn")
    if diff:
        rev += "-dirty" + hashlib.sha1(diff.encode()).hexdigest()[:8]
    return f"{rev}-p{panel.PANEL_VERSION}"


def default_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "proxlearn" / "bench_defaults"


class Cache:
    def __init__(self, root, rev):
        self.root = Path(root) / rev

    def path(self, est, ds, k):
        safe = est.replace("/", "_")
        return self.root / safe / ds / f"split{k}.json"

    def get(self, est, ds, k):
        p = self.path(est, ds, k)
        if p.exists():
            return json.loads(p.read_text())
        return None

    def put(self, est, ds, k, res):
        p = self.path(est, ds, k)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(res, indent=1))
        tmp.replace(p)


class LayeredCache:
    """Read-only view of several revisions' caches for the report (``--rev A,B``):
    each (estimator, data set) row comes whole from the first revision that ran it
    (all its splits from one revision); ``rev_of`` lists the revisions an
    estimator's rows came from."""

    def __init__(self, root, revs):
        self.caches = [Cache(root, r) for r in revs]
        self.revs = list(revs)
        self._of = {}

    def _index(self, est, ds):
        if (est, ds) not in self._of:
            safe = est.replace("/", "_")
            self._of[est, ds] = next((i for i, c in enumerate(self.caches)
                                      if (c.root / safe / ds).is_dir()), 0)
        return self._of[est, ds]

    def rev_of(self, est):
        used = sorted({i for (e, _), i in self._of.items() if e == est})
        return ", ".join(self.revs[i] for i in used)

    def get(self, est, ds, k):
        return self.caches[self._index(est, ds)].get(est, ds, k)


# --------------------------------------------------------------------------- workers

def _worker_main(conn):
    while True:
        msg = conn.recv()
        if msg is None:
            return
        try:
            res = panel.run_cell(*msg)
        except Exception as exc:  # recorded in the table, never raised
            res = {"status": "error", "error": f"{type(exc).__name__}: {exc}"[:400]}
        conn.send(res)


class Worker:
    """A forked process that runs cells one at a time; killed and replaced on timeout."""

    def __init__(self):
        import multiprocessing as mp
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()

    def run(self, cell, timeout):
        self.conn.send(cell)
        if self.conn.poll(timeout):
            try:
                return self.conn.recv(), True
            except EOFError:
                self.proc.join()
                return {"status": "error", "error": f"worker died (exit {self.proc.exitcode})"}, False
        self.proc.kill()
        self.proc.join()
        return {"status": "timeout", "limit": timeout}, False

    def close(self):
        if self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


def _needs_run(res, timeout):
    if res is None:
        return True
    if res["status"] == "timeout":
        return res.get("limit", 0) < timeout  # retry under a larger limit
    return False


def plan(args):
    """Cells in running order: by tier, then estimator, data set (small first), split."""
    rows = []
    for est, spec in panel.SPECS.items():
        if args.estimators and est not in args.estimators:
            continue
        if args.tiers is not None and spec.tier not in args.tiers:
            continue
        for ds in panel.FAMILY_SETS[spec.family]:
            if args.datasets and ds not in args.datasets:
                continue
            if panel.applies(est, ds) is not None:  # reported as "does not apply"
                continue
            rows.append((spec.tier, est, ds))
    def size(ds, fam):
        return len(panel.load(fam, ds)[1])
    # cheap tiers estimator by estimator; the expensive tier smallest data set first, every
    # estimator in turn, so that a budget cut leaves each of them some rows
    return sorted(rows, key=lambda r: (r[0], r[1]) if r[0] < 2 else
                  (r[0], size(r[2], panel.SPECS[r[1]].family), r[2], r[1]))


def run(args, cache):
    import threading
    rows = plan(args)
    splits = args.splits if args.splits is not None else list(range(panel.N_SPLITS))
    t_start = time.perf_counter()
    lock = threading.Lock()
    queue = list(rows)
    counts = {"done": 0, "cached": 0, "timeout": 0, "error": 0}

    def worker_loop():
        w = Worker()
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    tier, est, ds = queue.pop(0)
                for k in splits:
                    if args.budget and time.perf_counter() - t_start > args.budget:
                        return
                    res = cache.get(est, ds, k)
                    if not _needs_run(res, args.timeout):
                        with lock:
                            counts["cached"] += 1
                        if res["status"] == "timeout":
                            break
                        continue
                    res, alive = w.run((est, ds, k), args.timeout)
                    if not alive:
                        w.close()
                        w = Worker()
                    res.update(estimator=est, dataset=ds, split=k)
                    cache.put(est, ds, k, res)
                    with lock:
                        counts["done"] += 1
                        if res["status"] in ("timeout", "error"):
                            counts[res["status"]] += 1
                        el = time.perf_counter() - t_start
                        msg = (f"{res['score']:6.1f} {res['seconds']:7.2f}s"
                               if res["status"] == "ok" else
                               f"{res['status']} {res.get('error', '')[:80]}")
                        print(f"[{el:7.0f}s] {est:32s} {ds:18s} split {k}: {msg}", flush=True)
                    if res["status"] in ("timeout", "error"):
                        break  # the row has no verdict: do not spend the other splits
        finally:
            w.close()

    threads = [threading.Thread(target=worker_loop) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"cells computed {counts['done']} (timeouts {counts['timeout']}, errors "
          f"{counts['error']}), cached {counts['cached']}, wall {time.perf_counter() - t_start:.0f} s")


# --------------------------------------------------------------------------- report

def _scores(cache, est, ds):
    out = []
    for k in range(panel.N_SPLITS):
        res = cache.get(est, ds, k)
        out.append(res)
    return out


def _row_status(results):
    """``(scores or None, status text)`` of one column."""
    bad = [r for r in results if r is not None and r["status"] != "ok"]
    if bad:
        r = bad[0]
        if r["status"] == "timeout":
            return None, f"timeout > {r['limit']:g} s"
        if r["status"] == "n/a":
            return None, "n/a"
        return None, "error: " + r.get("error", "?").split("\n")[0][:90]
    done = [r for r in results if r is not None]
    if len(done) < len(results):
        return None, f"not run ({len(done)}/{len(results)} splits)"
    return np.array([r["score"] for r in done]), ""


def verdict(a, b):
    d = a - b
    se = d.std(ddof=1) / np.sqrt(len(d))
    if abs(d.mean()) <= 2 * se or np.isclose(d.mean(), 0.0, atol=1e-12):
        return "tied", d.mean(), se
    return ("better" if d.mean() > 0 else "worse"), d.mean(), se


def _fmt(s):
    return f"{s.mean():.1f} ± {s.std(ddof=1) / np.sqrt(len(s)):.1f}"


def report(cache, rev, args):
    fam_titles = {"sim": "Single similarity matrix (accuracy %, 70/30 splits)",
                  "multi": "Stacks of similarity matrices (accuracy %, 70/30 splits)",
                  "feat": "Features, z-scored on the training part (accuracy %, 70/30 splits)",
                  "clust": ("Clustering the 70 % part of each split, z-scored "
                            f"(Rand index x100; constraints r = {panel.CONSTRAINT_R})"),
                  "embed": (f"Embeddings of a fresh stratified subsample of {panel.MAX_N_EMBED} "
                            "per split, z-scored (n_components = 2)")}
    layered = isinstance(cache, LayeredCache)
    lines = [(f"Source revision `{rev}`" if not layered else
              f"Source revisions `{'`, `'.join(cache.revs)}` (each row from the first of them "
              "that ran it: column 'revision')") +
             f"; {panel.N_SPLITS} splits; cells over "
             f"{panel.MAX_N} samples subsampled (stratified) first; mean ± standard error; "
             "verdict from the paired differences (tied: within 2 standard errors).", ""]
    summary = {}
    for fam in ("sim", "multi", "feat", "clust", "embed"):
        prim, secs = panel.BASELINES[fam]
        lines += [f"#### {fam_titles[fam]}", ""]
        head = ["estimator", "data set", "score", "baseline", "difference", "verdict"]
        if fam == "sim":
            head += ["k-NN", "vs k-NN"]
        if fam == "multi":
            head += ["best single clip SVM (in hindsight)", "vs best single"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        ests = [e for e, s in panel.SPECS.items() if s.family == fam and
                (s.role == "estimator" or e in ("SimilaritySVC", "SimilarityKNeighborsClassifier"))]
        for est in sorted(ests, key=str.lower):
            base = panel.primary_baseline(est)
            for ds in panel.FAMILY_SETS[fam]:
                a, st = _row_status(_scores(cache, est, ds))
                why_not = panel.applies(est, ds)
                if why_not is not None:
                    a, st = None, f"does not apply: {why_not}"
                b, stb = _row_status(_scores(cache, base, ds))
                row = [est if est != base else f"{est} (the baseline)", ds]
                summ = summary.setdefault(est, {"better": 0, "tied": 0, "worse": 0, "none": [],
                                                "family": fam, "metric": panel.metric_name(fam, est),
                                                "seconds": []})
                summ["seconds"] += [r["seconds"] for r in _scores(cache, est, ds)
                                    if r is not None and r["status"] == "ok"]
                if a is None or b is None:
                    why = st or ("baseline " + stb)
                    row += [why, "" if b is None else _fmt(b), "", ""]
                    if why_not is not None:
                        summ.setdefault("n/a", []).append(ds)
                    else:
                        summ["none"].append(f"{ds}: {why}")
                else:
                    v, dm, dse = verdict(a, b)
                    if est == base:
                        v = "baseline"
                    else:
                        summ[v] += 1
                    row += [_fmt(a), _fmt(b), f"{dm:+.1f} ± {dse:.1f}",
                            f"**{v}**" if v == "worse" else v]
                if fam == "sim":
                    c, stc = _row_status(_scores(cache, secs[0], ds))
                    if a is not None and c is not None:
                        vv = verdict(a, c)[0] if est != secs[0] else "baseline"
                        row += [_fmt(c), vv]
                    else:
                        row += ["" if c is None else _fmt(c), ""]
                if fam == "multi":
                    singles = [(_row_status(_scores(cache, s, ds))[0], s) for s in secs]
                    singles = [(s, n) for s, n in singles if s is not None]
                    if a is not None and singles:
                        best, bn = max(singles, key=lambda t: t[0].mean())
                        row += [f"{_fmt(best)} (matrix {bn[-2]})", verdict(a, best)[0]]
                    else:
                        row += ["", ""]
                lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    rows_text, lines = lines[2:], lines[:2]
    lines += ["#### Per estimator", "",
              "| estimator | family | score | better | tied | worse | worse / rows with a verdict "
              "| median s per cell | rows without a verdict | flag |" +
              (" revision |" if layered else ""),
              "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if layered else "")]
    for est, s in sorted(summary.items(), key=lambda t: (t[1]["family"], t[0].lower())):
        if panel.SPECS[est].role == "baseline":
            continue
        n = s["better"] + s["tied"] + s["worse"]
        flag = "worse on > 1/4" if n and s["worse"] > n / 4 else ""
        if not n:
            flag = "no verdict"
        if flag and est in panel.LOSS_REASONS:
            flag += ": " + panel.LOSS_REASONS[est]
        none = "; ".join(x[:70] for x in s["none"]) if len(s["none"]) <= 3 else (
            f"{len(s['none'])}: " + "; ".join(sorted(set(x.split(': ', 1)[1][:60]
                                                         for x in s['none']))))
        if s.get("n/a"):  # the reasons are in the rows
            none = "; ".join(x for x in (none, f"does not apply to {len(s['n/a'])}: "
                                         + ", ".join(s["n/a"])) if x)
        med = f"{np.median(s['seconds']):.2f}" if s["seconds"] else ""
        lines.append(f"| {est} | {s['family']} | {s['metric']} | {s['better']} | {s['tied']} | "
                     f"{s['worse']} | {s['worse']}/{n} | {med} | {none} | {flag} |" +
                     (f" {cache.rev_of(est)} |" if layered else ""))
    lines += [""] + rows_text
    notes = {}
    for fam in panel.FAMILY_SETS:
        base = panel.BASELINES[fam][0]
        for ds in panel.FAMILY_SETS[fam]:
            r = cache.get(base, ds, 0)
            if r and r.get("status") == "ok":
                note = r.get("note") or ""
                if fam in ("feat", "clust") and r["n"] > panel.MAX_N:
                    note = f"subsampled {r['n']} -> {panel.MAX_N}"
                if fam == "embed":
                    note = f"{min(r['n'], panel.MAX_N_EMBED)} per split"
                key = f"{ds} ({fam})" if ds in notes or fam in ("clust", "embed") else ds
                notes[key] = f"n = {r['n']}" + (f" ({note})" if note else "")
    lines += ["", "Data sets (n after the cap): " + "; ".join(f"{d}: {t}" for d, t in notes.items()),
              "", "What each row runs:", ""]
    for est, spec in panel.SPECS.items():
        if spec.label:
            lines.append(f"- `{est}`: `{spec.label}`")
    text = "\n".join(lines) + "\n"
    if args.report == "-":
        print(text)
    else:
        Path(args.report).write_text(text)
        print(f"wrote {args.report}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--estimators", nargs="*")
    ap.add_argument("--datasets", nargs="*")
    ap.add_argument("--splits", nargs="*", type=int)
    ap.add_argument("--tiers", nargs="*", type=int)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per cell")
    ap.add_argument("--budget", type=float, default=0.0,
                    help="stop starting cells after this many seconds (0: no limit)")
    ap.add_argument("--cache-dir", default=str(default_cache_dir()))
    ap.add_argument("--rev", help="report the cache of this revision key (default: current); "
                    "'A,B': each row from the first of these that ran it")
    ap.add_argument("--report", help="write the Markdown table to this file ('-': stdout)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    unknown = set(args.estimators or ()) - set(panel.SPECS)
    if unknown:
        ap.error(f"unknown estimators {sorted(unknown)}; --list shows the panel")
    rev = args.rev or source_revision()
    if "," in rev:
        if not args.report:
            ap.error("several revisions (--rev A,B) are for --report only")
        cache = LayeredCache(args.cache_dir, rev.split(","))
    else:
        cache = Cache(args.cache_dir, rev)
    if args.list:
        for est, spec in panel.SPECS.items():
            print(f"{spec.family:6s} tier {spec.tier} {spec.role:9s} {est}")
        for fam, sets in panel.FAMILY_SETS.items():
            print(fam, ", ".join(sets))
        return
    if args.report:
        report(cache, rev, args)
        return
    import proxlearn
    if not Path(proxlearn.__file__).resolve().is_relative_to(REPO / "src"):
        sys.exit(f"proxlearn is imported from {proxlearn.__file__}, not {REPO / 'src'}: "
                 "the cache key would not describe the code that ran")
    print(f"revision {rev}; proxlearn from {proxlearn.__file__}; cache {cache.root}", flush=True)
    run(args, cache)


if __name__ == "__main__":
    main()
