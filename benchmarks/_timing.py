"""Timing helper shared by the benchmark scripts (run them as ``python benchmarks/<name>.py``)."""

import time

import numpy as np


def timed(fn, repeats, clock=time.perf_counter):
    """Median of ``repeats`` timings of ``fn()`` (by ``clock``) and its last result."""
    times, out = [], None
    for _ in range(repeats):
        t = clock()
        out = fn()
        times.append(clock() - t)
    return float(np.median(times)), out
