"""How the micro benchmarks time a call: each run on its own, in milliseconds, and the
median and 90th percentile they report (a benchmark's figures, never a test's)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence


def milliseconds(
    call: Callable[[], object], runs: int, before: Callable[[], object] = lambda: None
) -> list[float]:
    """The time of each of ``runs`` calls, in milliseconds; ``before`` runs, untimed,
    before each (to clear a cache, say)."""
    times = []
    for _ in range(runs):
        before()
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def median_p90(times: Sequence[float]) -> tuple[float, float]:
    """The median and the 90th percentile of ``times``."""
    return statistics.median(times), statistics.quantiles(times, n=10)[-1]
