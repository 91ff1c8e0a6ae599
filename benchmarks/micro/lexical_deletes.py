"""Microbenchmark: a big user's first lexical search after a deletion, against building
the user's in-memory lexical index from scratch (``store/lexical_cache.py``).

100,000 memories of one user (Zipf-distributed words, no vectors needed) are written to a
fresh SQLite file; then one build, and five rounds of "delete a memory, search".

    .venv/bin/python benchmarks/micro/lexical_deletes.py
"""

from __future__ import annotations

import random
import statistics

from scratch import scratch_store
from timing import milliseconds

from memory_platform.builder import build_memory
from memory_platform.models import VectorKind
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.tools.arguments import CreateMemoryArgs

MEMORIES = 100_000
QUERY = "咖啡 工作"


def _populate(store: SQLiteGraphStore) -> None:
    rng = random.Random(1)
    words = [f"w{i}" for i in range(5000)] + ["咖啡", "工作", "小明", "喜欢", "运动", "心情"]
    weights = [1 / (rank + 1) for rank in range(len(words))]
    for _ in range(MEMORIES // 1000):
        store.write_memories(
            [
                build_memory(
                    "u",
                    CreateMemoryArgs(
                        subject="小明",
                        memory_type="事实",
                        topic=" ".join(rng.choices(words, weights, k=2)),
                        object=" ".join(rng.choices(words, weights, k=6)),
                    ),
                )
                for _ in range(1000)
            ]
        )


def _timed_search(store: SQLiteGraphStore) -> float:
    (ms,) = milliseconds(lambda: store.lexical_search("u", QUERY, [VectorKind.MEMORY], 10), 1)
    return ms


def main() -> None:
    with scratch_store() as store:
        _measure(store)


def _measure(store: SQLiteGraphStore) -> None:
    _populate(store)
    build_ms = _timed_search(store)
    doomed = [m.id for m in store.list_memories("u", limit=5)]
    after_delete = []
    for memory_id in doomed:
        store.delete_memory("u", memory_id)
        after_delete.append(_timed_search(store))
    steady = [_timed_search(store) for _ in range(20)]
    print(f"build of the index (first search): {build_ms:.0f} ms")
    print(f"first search after a deletion: median {statistics.median(after_delete):.1f} ms")
    print(f"search with the index up to date: median {statistics.median(steady):.1f} ms")


if __name__ == "__main__":
    main()
