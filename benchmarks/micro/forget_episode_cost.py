"""Microbenchmark: what forgetting one turn costs now that forgetting takes along what was
extracted from it (``forgetting.extracted_from``), found by the store's index of items by
the turns they name (``GraphStore.told_by``).

One user of 10,000 memories (the bench workload's, with embeddings) in a fresh SQLite
file. Turns are forgotten one at a time: turns of a session no extraction read, turns of
one an extraction read that nothing was extracted from, and turns a memory was extracted
from (forgetting one deletes that memory). The baseline, in the same run, is what finding
those memories cost before the index: reading every memory of the user to keep those
whose metadata names the turn. Results: ``results/forget_episode_cost.md``.

    .venv/bin/python benchmarks/micro/forget_episode_cost.py [MEMORIES]   # 10,000: ~30 s
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from timing import median_p90, milliseconds

from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.workload import populate
from memory_platform.builder import build_memory
from memory_platform.models import TOLD_BY_KEY, KnowledgeVersion, episodes_named
from memory_platform.tools.arguments import CreateMemoryArgs

USER = "bench-user"
RUNS = 21


def turns(mp: MemoryPlatform, session: str, *, told: bool = False) -> list[str]:
    """``RUNS`` new turns of ``session``; with ``told``, a memory extracted from each."""
    ids = mp.add_episodes(USER, [{"text": f"turn {n}", "session_id": session} for n in range(RUNS)])
    for n, episode_id in enumerate(ids if told else []):
        args = CreateMemoryArgs(subject="我", memory_type="事件", topic="去", object=f"地方{n}")
        graph = build_memory(USER, args, session_id=session, source="extraction")
        graph.memory.metadata = {TOLD_BY_KEY: [episode_id]}
        mp.store.write_memory(graph)
    return ids


def forget_each(mp: MemoryPlatform, ids: list[str]) -> list[float]:
    """Milliseconds to forget each turn, one at a time."""
    times = []
    for episode_id in ids:
        started = time.perf_counter()
        report = mp.forget(USER, episode_id)
        times.append((time.perf_counter() - started) * 1000)
        assert report.forgotten_ids == [episode_id]
    return times


def read_every_memory(mp: MemoryPlatform, episode_id: str) -> list[str]:
    """The memories naming the turn, found as before the index (the baseline)."""
    told: list[str] = []
    offset = 0
    while page := mp.store.list_memories(USER, limit=500, offset=offset):
        offset += len(page)
        told += [m.id for m in page if episode_id in episodes_named(m.metadata)]
    return told


def main(memories: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None))
        populate(mp.store, mp.embedder, memories, user_id=USER)
        mp.store.add_knowledge_version(KnowledgeVersion(user_id=USER, session_id="extracted"))
        told = turns(mp, "extracted", told=True)
        baseline = milliseconds(lambda: read_every_memory(mp, told[0]), RUNS)
        rows = [
            ("a turn of a session no extraction read", forget_each(mp, turns(mp, "chatting"))),
            ("a turn of a session an extraction read, nothing extracted from it",
             forget_each(mp, turns(mp, "extracted"))),
            ("a turn a memory was extracted from (forgotten with it)", forget_each(mp, told)),
            ("baseline: finding that memory by reading every memory, as before the index",
             baseline),
        ]  # fmt: skip
        mp.close()
    print(f"| forgetting one turn, user of {memories:,} memories | median ms | p90 ms |")
    print("|---|---|---|")
    for name, times in rows:
        median, p90 = median_p90(times)
        print(f"| {name} | {median:.1f} | {p90:.1f} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
