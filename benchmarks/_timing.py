"""Helpers shared by the benchmark scripts (run them as ``python benchmarks/<name>.py``)."""

import time
from pathlib import Path

import numpy as np
import scipy.io


def timed(fn, repeats, clock=time.perf_counter):
    """Median of ``repeats`` timings of ``fn()`` (by ``clock``) and its last result."""
    times, out = [], None
    for _ in range(repeats):
        t = clock()
        out = fn()
        times.append(clock() - t)
    return float(np.median(times)), out


def uw_problem(name, data_dir):
    """A binary UW data set as ``(S, y)`` with ``y`` in {-1, +1} (``+1`` for the
    larger label), read from ``data_dir/<name>.mat``; None if the file is absent."""
    path = Path(data_dir) / f"{name}.mat"
    if not path.exists():
        return None
    d = scipy.io.loadmat(path)
    lab = d["C"].ravel()
    return d["A"].astype(float), np.where(lab == lab.max(), 1.0, -1.0)


def timed_alternating(fns, repeats, clock=time.perf_counter):
    """Medians of ``repeats`` timings of each of ``fns`` (a dict name -> callable),
    run in alternation (A B A B ..., the order rotated each round so no method is
    always first), and the last result of each: the machine's load drifts over
    a run, and timing A ``repeats`` times then B would charge the drift to one
    side. Returns ``({name: median seconds}, {name: last result})``."""
    names = list(fns)
    times = {k: [] for k in names}
    out = {}
    for r in range(repeats):
        for k in names[r % len(names):] + names[: r % len(names)]:
            t = clock()
            out[k] = fns[k]()
            times[k].append(clock() - t)
    return {k: float(np.median(v)) for k, v in times.items()}, out
