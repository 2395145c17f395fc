"""Timing helper shared by the benchmark scripts (imported as ``from _timing import best_of``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    """Best wall time of ``repeat`` calls of ``fn``, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def argsort_reference(repeat: int = 101) -> float:
    """Median time of one stable argsort of 100,000 floats: the reference the scripts print
    their ratios to (timed in the same run)."""
    import numpy as np

    x = np.random.default_rng(1).random(10**5)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        np.argsort(x, kind="stable")
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
