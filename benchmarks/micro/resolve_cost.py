"""Microbenchmark: what finding the memory a description means costs (``link_memories``,
``update_memory`` and ``forget_memory`` all start there: ``linking.resolve_memory``).

A description is embedded, and its candidates are the user's memories nearest to it and
those holding its words. Those found by their words alone were embedded again on every
call, though their vectors are stored; they are now compared through the stored vectors
(``GraphStore.similarities``), and only a memory not embedded yet is embedded. The
baseline, in the same run, is the call as before: the same call plus embedding those
memories' texts, which is what it did beyond it. A third row resolves each description a
second time through the same :class:`~memory_platform.recent_vectors.RecentVectors`, as
the platform does when an agent describes one memory in call after call (a link from A
to B, then from B to C): its vector is kept, not embedded again.

One user of 10,000 memories (the bench workload's, with embeddings) in a fresh SQLite
file; each description is the first two thirds of a memory's words. Results:
``results/resolve_cost.md``. ::

    .venv/bin/python benchmarks/micro/resolve_cost.py [MEMORIES]   # 10,000: about a minute
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from timing import median_p90

from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.workload import populate
from memory_platform.embeddings import clip_query
from memory_platform.linking import resolve_memory
from memory_platform.models import VectorKind
from memory_platform.recent_vectors import RecentVectors

USER = "bench-user"
DESCRIPTIONS = 41


def found_by_words_alone(mp: MemoryPlatform, description: str) -> list[str]:
    """The texts of the candidates the vector search does not reach: what was embedded
    again before."""
    vector = mp.embedder.embed([clip_query(description, keep="start")])[0]
    near = {h.ref_id for h in mp.store.vector_search(USER, VectorKind.MEMORY, vector, k=10)}
    lexical = [
        h.ref_id for h in mp.store.lexical_search(USER, description, [VectorKind.MEMORY], 10)
    ]
    return [m.text for m in mp.store.get_memories(USER, [i for i in lexical if i not in near])]


def main(memories: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None))
        populate(mp.store, mp.embedder, memories, user_id=USER)
        sample = random.Random(7).sample(mp.store.list_memories(USER, limit=memories), DESCRIPTIONS)
        descriptions = [
            " ".join(m.text.split()[: max(2, len(m.text.split()) * 2 // 3)]) for m in sample
        ]

        def fresh() -> RecentVectors:  # nothing asked before: the description is embedded
            return RecentVectors(mp.embedder)

        resolve_memory(mp.store, fresh(), USER, descriptions[0])  # load the store's caches
        now, before, repeated, extra = [], [], [], []
        recent = fresh()
        for description in descriptions:
            again = found_by_words_alone(mp, description)
            extra.append(len(again))
            started = time.perf_counter()
            resolve_memory(mp.store, fresh(), USER, description)
            now.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            resolve_memory(mp.store, fresh(), USER, description)
            if again:
                mp.embedder.embed(again)
            before.append((time.perf_counter() - started) * 1000)
            resolve_memory(mp.store, recent, USER, description)  # described a first time
            started = time.perf_counter()
            resolve_memory(mp.store, recent, USER, description)  # and in the next call
            repeated.append((time.perf_counter() - started) * 1000)
        mp.close()
    print(f"| resolving a description, user of {memories:,} memories | median ms | p90 ms |")
    print("|---|---|---|")
    for name, times in (
        ("stored vectors (now)", now),
        ("embedded again (before)", before),
        ("the same description again (its vector kept, `RecentVectors`)", repeated),
    ):
        median, p90 = median_p90(times)
        print(f"| {name} | {median:.1f} | {p90:.1f} |")
    print(
        f"\n{DESCRIPTIONS} descriptions; candidates found by their words alone, embedded "
        f"again before: {sum(extra) / len(extra):.1f} per description."
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
