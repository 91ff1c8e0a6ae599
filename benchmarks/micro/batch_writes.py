"""Microbenchmark: writing batches into a fresh embedded store: ``write_memories`` (1,000
memories of one user per batch, Chinese and English words) and ``add_episodes`` (the dev
sets' turns, a conversation per batch). No vectors are made: what is timed is the rows
and the lexical index. Used to measure writing a batch's lexical documents together.

    .venv/bin/python benchmarks/micro/batch_writes.py            # this checkout
    .venv/bin/python benchmarks/micro/batch_writes.py OTHER_DIR  # another checkout's code

Run two checkouts alternately, twice each, and compare medians.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])

from scratch import scratch_store

from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.builder import build_memory
from memory_platform.models import Episode, MemorySubgraph
from memory_platform.tools.arguments import CreateMemoryArgs

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
WORDS = ["咖啡", "工作", "小明", "喜欢", "运动", "心情", "跑步", "北京", "猫", "音乐"]


def _memory_batches(batches: int, size: int = 1000) -> list[list[MemorySubgraph]]:
    rng = random.Random(1)
    words = WORDS + [f"word{i}" for i in range(2000)]
    return [
        [
            build_memory(
                "u",
                CreateMemoryArgs(
                    subject="小明",
                    memory_type="事实",
                    topic=" ".join(rng.choices(words, k=2)),
                    object=" ".join(rng.choices(words, k=6)),
                ),
            )
            for _ in range(size)
        ]
        for _ in range(batches)
    ]


def _turn_batches() -> list[list[Episode]]:
    batches = []
    for data in (load_locomo(DATA / "locomo_dev.json"), load_madial(DATA / "madial_zh_dev.json")):
        for user, turns in data.episodes.items():
            batches.append(
                [
                    Episode(
                        user_id=user,
                        session_id=t.get("session_id"),
                        speaker=t.get("speaker"),
                        text=t["text"],
                        timestamp=t["timestamp"],
                    )
                    for t in turns
                ]
            )
    return batches


def main() -> None:
    memories = _memory_batches(10)
    turns = _turn_batches()
    with scratch_store() as store:
        memory_s = []
        for subgraphs in memories:
            started = time.perf_counter()
            store.write_memories(subgraphs)
            memory_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        for episodes in turns:
            store.add_episodes(episodes)
        turns_s = time.perf_counter() - started
    count = sum(len(b) for b in turns)
    print(
        f"write_memories: median {statistics.median(memory_s) * 1000:.0f} ms per 1,000 memories"
        f" ({[round(s * 1000) for s in memory_s]}); add_episodes: {count} turns in"
        f" {turns_s:.2f} s ({count / turns_s:,.0f} turns/s)"
    )


if __name__ == "__main__":
    main()
