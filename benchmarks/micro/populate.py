"""Microbenchmark: the benchmark's population of one user's memories (composed vectors,
causal links) into a fresh embedded store, in memories per second. Used to measure
batched writes (``write_memories``) against one transaction per memory.

    .venv/bin/python benchmarks/micro/populate.py            # this checkout
    .venv/bin/python benchmarks/micro/populate.py OTHER_DIR  # another checkout's code

Run two checkouts alternately, twice each, and compare medians.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])

from memory_platform.bench.workload import populate
from memory_platform.config import load_settings
from memory_platform.embeddings import make_embedder
from memory_platform.store import open_store

MEMORIES = 3000


def main() -> None:
    settings = load_settings(backend="sqlite", sqlite_path=Path(tempfile.mkdtemp()) / "p.db")
    embedder = make_embedder(settings)
    words: dict[str, Any] = {}
    store = open_store(settings)
    populate(store, embedder, 200, user_id="warm-up", words=words)  # fill the word cache
    rates = []
    for run in range(3):
        start = time.perf_counter()
        populate(store, embedder, MEMORIES, user_id=f"user-{run}", words=words, seed=5)
        rates.append(MEMORIES / (time.perf_counter() - start))
    store.close()
    print(f"memories/s per run: {[round(r) for r in rates]}; median {statistics.median(rates):.0f}")


if __name__ == "__main__":
    main()
