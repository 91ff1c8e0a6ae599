"""Ranking metrics and latency summaries shared by the evaluations and benchmarks."""

from __future__ import annotations

import resource
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "bootstrap_interval",
    "cpu_description",
    "latency_summary",
    "machine_description",
    "peak_rss_mb",
    "ranking_metrics",
]


def peak_rss_mb() -> float:
    """This process's peak resident memory, in MB.

    Linux's ``ru_maxrss`` survives ``execve``: a probe started by a large benchmark process
    would report the parent's size. ``VmHWM`` belongs to the process's own address space,
    so it is read first; ``ru_maxrss`` is the fallback where there is no ``/proc``.
    """
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        status = ""
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine_description() -> dict[str, Any]:
    """What the numbers were measured on."""
    import os
    import platform
    import sys

    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        **cpu_description(_read_cpuinfo()),
    }


_VECTOR_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni")
"""Instruction sets that numeric libraries pick their kernels by. An Intel Xeon and an AMD
EPYC, both 2 cores, gave different MADial dev figures (recall@10 0.777 against 0.768, each
repeated exactly on its own machine), which the old description could not tell apart; so
a report names what it can of its CPU."""


def _read_cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""  # not Linux: the platform module's description stands alone


def cpu_description(cpuinfo: str) -> dict[str, Any]:
    """The CPU's model name and vector extensions, from Linux's ``/proc/cpuinfo`` text."""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            if fields:
                break  # the first CPU's block is enough: the others repeat it
            continue
        fields.setdefault(key.strip(), value.strip())
    described: dict[str, Any] = {}
    if fields.get("model name"):
        described["cpu"] = fields["model name"]
    if "flags" in fields:
        flags = set(fields["flags"].split())
        described["vector_extensions"] = [f for f in _VECTOR_FLAGS if f in flags]
    return described


def ranking_metrics(ranked: Sequence[str], relevant: set[str]) -> dict[str, float]:
    """recall@5, recall@10, MRR and all-evidence@10 of one ranked list."""
    if not relevant:
        raise ValueError("no relevant items to measure against")
    first = next((i for i, item in enumerate(ranked) if item in relevant), None)
    top5, top10 = set(ranked[:5]), set(ranked[:10])
    return {
        "recall@5": len(relevant & top5) / len(relevant),
        "recall@10": len(relevant & top10) / len(relevant),
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
        "all@10": float(relevant <= top10),
    }


def bootstrap_interval(
    values: Sequence[float], *, level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of ``values`` (one per question).

    It says how far the mean could move had other questions of the same users been asked;
    it cannot say how far other users would move it (a per-user breakdown shows that).
    Paired figures (one method against another on the same questions) take the interval
    of the per-question differences. Seeded, so a report is reproducible.
    """
    import numpy as np

    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        raise ValueError("no values to resample")
    if not 0.0 < level < 1.0:
        raise ValueError("level must lie between 0 and 1")
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def latency_summary(samples_ms: Sequence[float]) -> dict[str, float]:
    """Median, p95 and mean of latencies in milliseconds."""
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(p95, 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
    }
