"""Handing the memory a big load freed back to the system.

glibc keeps what a thread frees in that thread's malloc arena, for that arena's next
allocations. The first search of a big user builds their lexical index on a loading
thread (``HybridRetriever._warm_loads``); the build's temporaries, once freed, stayed
resident in that thread's arena while the searches after it allocated in their own: a
process serving 10,000 memories peaked 13 MB higher than when the build shared a thread
with the later lookups (``benchmarks/results/fresh_process.md``). ``malloc_trim`` returns
the free pages of every arena.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

__all__ = ["release_freed_memory"]


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        process = ctypes.CDLL(None)  # the C library the interpreter runs on
    except OSError:
        return None
    trim = getattr(process, "malloc_trim", None)  # glibc only
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_TRIM = _malloc_trim()


def release_freed_memory() -> bool:
    """Return the free memory of every malloc arena to the system: a few milliseconds,
    for after a load that freed much. False where the C library cannot (not glibc)."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
