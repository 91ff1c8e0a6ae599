"""Microbenchmark: exact vector search of one user's 1,000 memory vectors through the
SQLite store's vector cache. Used to check that the cache's LRU bookkeeping costs nothing
measurable.

    .venv/bin/python benchmarks/micro/vector_cache.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from scratch import scratch_store

from memory_platform.builder import build_memory
from memory_platform.models import VectorKind
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.tools.arguments import CreateMemoryArgs


def main() -> None:
    with scratch_store() as store:
        _measure(store)


def _measure(store: SQLiteGraphStore) -> None:
    rng = np.random.default_rng(1)
    vectors = {}
    for i in range(1000):
        graph = build_memory("u", CreateMemoryArgs(subject="我", memory_type="事件", topic=f"t{i}"))
        store.write_memory(graph)
        vectors[graph.memory.id] = rng.standard_normal(384)
    store.set_embeddings("u", VectorKind.MEMORY, vectors)
    query = rng.standard_normal(384)
    for _ in range(200):  # warm the cache
        store.vector_search("u", VectorKind.MEMORY, query, k=10)
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(2000):
            store.vector_search("u", VectorKind.MEMORY, query, k=10)
        runs.append((time.perf_counter() - started) / 2000 * 1e6)
    print(
        f"vector_search, 1,000 vectors: median {statistics.median(runs):.1f} µs per call "
        f"over 5 runs of 2,000 ({', '.join(f'{r:.1f}' for r in runs)})"
    )


if __name__ == "__main__":
    main()
