"""Store reads per search, counted: what a search costs in round trips on Neo4j.

Each call into the store contract is a round trip to the server on Neo4j (its seed
statement also holds the lexical lookup that SQLite makes beside it), so the number a
search makes is a cost that a timing on SQLite hides. This counts the calls a search
makes (not those one read makes inside another), exactly and on any machine, for the
dev sets' questions asked of their own memory and of another's:
MADial's dialogues (user 1) and the first LoCoMo conversation's questions (conv-26),
each asked of its own user and of the other set's (a stranger's memory). ::

    .venv/bin/python benchmarks/micro/search_reads.py [--out FILE]

About a minute (conv-26's 419 turns are embedded first). Writes a Markdown table
(default ``benchmarks/results/search_reads.md``): reads per search, by method.
"""

from __future__ import annotations

import functools
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import Report, out_path

from memory_platform import MemoryPlatform
from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.config import load_settings
from memory_platform.store.base import GraphStore

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2] / "shared" / "data"
RESULTS = HERE.parent / "results" / "search_reads.md"
READS = (
    "get_memory",
    "get_memories",
    "get_episodes",
    "session_episodes",
    "get_nodes",
    "find_nodes",
    "find_episodes",
    "memories_for_nodes",
    "get_links",
    "get_vectors",
    "similarities",
    "load_candidates",
    "seed_search",
    "vector_search",
    "vector_search_many",
    "lexical_search",
    "expand",
    "expand_each",
    "next_episode_ids",
)
"""The contract's reads a search may make (those a store does not have are skipped)."""

INTRO = (
    "Store reads per search (`benchmarks/micro/search_reads.py`: calls into the store"
    " contract on SQLite, most a round trip each on Neo4j), `mp.search` with its"
    " defaults:"
)
"""The report's opening paragraph."""
COLUMNS = ["questions, asked of", "searches", "reads per search", "by method"]


def counting(store_type: type[GraphStore], reads: Counter[str]) -> None:
    """Count every call of the store's read methods in ``reads`` (by method name), but
    not the reads one makes inside another (SQLite's seed search runs its vector
    searches itself; on Neo4j it is one statement)."""
    inside = threading.local()
    for name in READS:
        method = getattr(store_type, name, None)
        if method is None:
            continue

        def counted(method: Callable[..., Any] = method, name: str = name) -> Callable[..., Any]:
            @functools.wraps(method)
            def read(self: GraphStore, *args: Any, **kwargs: Any) -> Any:
                depth = getattr(inside, "depth", 0)
                if depth == 0:
                    reads[name] += 1
                inside.depth = depth + 1
                try:
                    return method(self, *args, **kwargs)
                finally:
                    inside.depth = depth

            return read

        setattr(store_type, name, counted())


def main() -> None:
    out = out_path(__doc__, RESULTS)
    madial = load_madial(DATA / "madial_zh_dev.json")
    locomo = load_locomo(DATA / "locomo_dev.json", limit=1)
    reads: Counter[str] = Counter()
    report = Report(INTRO, COLUMNS)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(backend="sqlite", sqlite_path=Path(tmp) / "reads.db")
        with MemoryPlatform(settings) as mp:
            for data in (madial, locomo):
                for user, items in data.episodes.items():
                    mp.add_episodes(user, items)
            mp.wait_for_indexing()
            counting(type(mp.store), reads)
            madial_user = next(iter(madial.episodes))
            locomo_user = next(iter(locomo.episodes))
            cases = (
                ("MADial dialogues, their own user", madial, None),
                ("MADial dialogues, a LoCoMo user", madial, locomo_user),
                ("LoCoMo conv-26 questions, their own user", locomo, None),
                ("LoCoMo conv-26 questions, the MADial user", locomo, madial_user),
            )
            for label, data, other in cases:
                reads.clear()
                for q in data.questions:
                    mp.search(other or q.user_id, q.question, record_access=False)
                n = len(data.questions)
                by_method = ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(reads.items()))
                report.add(label, n, f"{sum(reads.values()) / n:.2f}", by_method)
    report.write(out)


if __name__ == "__main__":
    main()
