"""Record what every public estimator outputs at its defaults, and compare two records.

A change that only moves code (issue 36, the renovation) must not change a number.
This script is the check: record a snapshot before the change, another after it,
and compare them.

    python scripts/behaviour.py record before.npz
    ... change the code ...
    python scripts/behaviour.py record after.npz
    python scripts/behaviour.py compare before.npz after.npz     # exit 1 on a difference

What is recorded: every public estimator of the subpackages of
tests/_estimators.LEARNER_PACKAGES (discovered from their ``__all__``), at its defaults (the cheap grids of tests/_estimators.CHEAP,
``random_state=0``), fitted on the suite's common problem (tests/_estimators.py:
features, an indefinite similarity, an RBF kernel; a stack of the two), with two
and with three classes; its predictions, decision values and probabilities on
held-out rows, its transform of the training and the held-out rows, its cluster
labels or its embedding (a regressor, input kind "sim-reg": its predictions of a
real-valued target of the features, tests/_estimators.regression_target); an outlier
detector's labels in {-1, +1}, decision values and scores on held-out rows (the LOF at its
default novelty=False: its training labels and negative_outlier_factor_). An estimator that refuses an input is recorded with the
exception's class and message, so a refusal that changes is a difference too.

``record --study`` adds the reproduction study: for every section run by the
study runner, every data set found (../shared/data; missing ones are skipped and
listed) and every registered method, the behaviour probe of the cell cache keys
(``proxlearn.study._runner.method_behaviour_fingerprint``: the cell's nested CV,
refit and test outputs on the first samples of each class), recorded as its hash
(outputs rounded to 8 significant digits). About 2 CPU minutes more.

``compare`` requires labels to be equal and floating outputs to agree within
``--rtol`` relative to the largest magnitude of the array (default 1e-12; BLAS
kernels of other CPUs differ in the last bits, so compare records of one machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

PROBLEMS = {"binary": 2, "three-class": 3}
N_TRAIN, N_TEST = 30, 12


def _estimators(names=None):
    from sklearn.base import BaseEstimator

    from _estimators import LEARNER_PACKAGES, learners

    found = learners(BaseEstimator, LEARNER_PACKAGES)
    found.pop("KernelBank", None)  # a bank of base kernels: its stacks feed the [bank] learners
    if names:
        unknown = sorted(set(names) - set(found))
        if unknown:
            raise SystemExit(f"unknown estimator(s) {unknown}; known: {sorted(found)}")
        found = {n: found[n] for n in names}
    return found


def _study_probes(seconds):
    """The behaviour probe of every (study section, data set, method) cell family."""
    from proxlearn.study._methods import METHODS
    from proxlearn.study._protocols import PROTOCOLS, get_protocol
    from proxlearn.study._reproduce import SECTIONS, _load
    from proxlearn.study._runner import method_behaviour_fingerprint

    out, missing = {}, set()
    for sec in SECTIONS:
        if sec.protocol not in PROTOCOLS:
            continue  # custom runners (leave-one-out, whole data, chapter 3)
        protocol = get_protocol(sec.protocol)
        datasets, absent = _load(sec.datasets, None)
        missing.update(absent)
        for data in datasets:
            for m in sec.methods:
                if m not in METHODS and f"{m}-{data.name}" not in METHODS:
                    continue
                start = time.process_time()
                fp = method_behaviour_fingerprint(m, data.name, data.matrix, data.labels,
                                                  protocol, getattr(data, "pairwise", True))
                key = f"study/{sec.key}/{data.name}/{m}"
                seconds[key] = time.process_time() - start
                out[key] = np.array(fp)
    if missing:
        print(f"study data not found (skipped): {sorted(missing)}")
    return out


def record(path, names=None, study=False):
    """Fit every estimator on each problem and write its outputs to ``path`` (.npz)."""
    from _estimators import common_problem, fit_outputs

    out, seconds = {}, {}
    for problem, n_classes in PROBLEMS.items():
        data = common_problem(N_TRAIN, N_TEST, n_classes=n_classes)
        for name, (cls, kind) in sorted(_estimators(names).items()):
            start = time.process_time()
            try:
                result = fit_outputs(name, cls, kind, data, N_TRAIN, extras=True)
            except Exception as exc:  # noqa: BLE001 - a refusal is behaviour too
                result = {"error": np.array(f"{type(exc).__name__}: {exc}")}
            seconds[f"{problem}/{name}"] = time.process_time() - start
            for key, value in result.items():
                out[f"{problem}/{name}/{key}"] = np.asarray(value)
    if study:
        out.update(_study_probes(seconds))
    np.savez_compressed(path, **out)
    slow = sorted(seconds.items(), key=lambda kv: -kv[1])[:5]
    print(f"{len(out)} outputs of {len(seconds)} fits written to {path}; slowest: "
          + ", ".join(f"{k} {v:.1f} s" for k, v in slow))


def _differs(a, b, rtol):
    if a.shape != b.shape:
        return f"shape {a.shape} -> {b.shape}"
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        scale = max(float(np.max(np.abs(a), initial=0.0)), 1e-300)
        gap = float(np.max(np.abs(a - b), initial=0.0)) / scale
        return f"relative difference {gap:.2e}" if not gap <= rtol else None
    return None if np.array_equal(a, b) else f"{int(np.sum(a != b))} of {a.size} entries differ"


def compare(before, after, rtol=1e-12):
    """Print every output that differs; return the number of differences."""
    a, b = np.load(before), np.load(after)
    problems = []
    for key in sorted(set(a.files) | set(b.files)):
        if key not in b.files:
            problems.append(f"{key}: missing after")
        elif key not in a.files:
            problems.append(f"{key}: new after")
        else:
            why = _differs(a[key], b[key], rtol)
            if why:
                problems.append(f"{key}: {why}")
    for line in problems:
        print(line)
    print(f"{len(problems)} of {len(set(a.files) | set(b.files))} outputs differ "
          f"(rtol {rtol:g})")
    return len(problems)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="fit every estimator and write its outputs")
    rec.add_argument("path")
    rec.add_argument("--estimators", nargs="*", help="only these (default: all)")
    rec.add_argument("--study", action="store_true",
                     help="also the behaviour probe of every reproduction study cell family")
    cmp_ = sub.add_parser("compare", help="compare two records; exit 1 on a difference")
    cmp_.add_argument("before")
    cmp_.add_argument("after")
    cmp_.add_argument("--rtol", type=float, default=1e-12)
    args = ap.parse_args(argv)
    if args.command == "record":
        record(args.path, args.estimators, args.study)
        return 0
    return 1 if compare(args.before, args.after, args.rtol) else 0


if __name__ == "__main__":
    raise SystemExit(main())
