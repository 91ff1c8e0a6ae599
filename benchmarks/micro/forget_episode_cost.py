"""Microbenchmark: what forgetting one turn costs once forgetting takes along what was
extracted from it (``forgetting.extracted_from``).

One user of 10,000 memories (the bench workload's, with embeddings) in a fresh SQLite
file. Turns of two sessions are forgotten one at a time: one session no extraction read
(the store's knowledge versions say so: nothing is read beyond that), and one an
extraction read (every memory and knowledge version of the user is read to find the
items naming the turn). Results: ``results/forget_episode_cost.md``.

    .venv/bin/python benchmarks/micro/forget_episode_cost.py     # about a minute
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from timing import median_p90

from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.workload import populate
from memory_platform.models import KnowledgeVersion

USER = "bench-user"
RUNS = 21


def forget_turns(mp: MemoryPlatform, session: str) -> list[float]:
    """Milliseconds to forget each of ``RUNS`` turns of ``session``, one at a time."""
    ids = mp.add_episodes(USER, [{"text": f"turn {n}", "session_id": session} for n in range(RUNS)])
    times = []
    for episode_id in ids:
        started = time.perf_counter()
        mp.forget(USER, episode_id)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None))
        populate(mp.store, mp.embedder, 10_000, user_id=USER)
        mp.store.add_knowledge_version(KnowledgeVersion(user_id=USER, session_id="extracted"))
        rows = [
            ("a session no extraction read", forget_turns(mp, "chatting")),
            ("a session an extraction read", forget_turns(mp, "extracted")),
        ]
        mp.close()
    print("| forgetting one turn, user of 10,000 memories | median ms | p90 ms |")
    print("|---|---|---|")
    for name, times in rows:
        median, p90 = median_p90(times)
        print(f"| {name} | {median:.1f} | {p90:.1f} |")


if __name__ == "__main__":
    main()
