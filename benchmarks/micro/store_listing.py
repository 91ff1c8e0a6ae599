"""Microbenchmark: listing a LangGraph store namespace (``store.search(ns)`` with no
query) for a user who also has many turns of chat.

The store's items are episodes of the user beside the chat's turns. A listing without a
query reads the items of the user; it read every episode of the user to find them. The
user here has 20 items in ``("u", "profile")`` and 1,000 to 100,000 turns of chat in
sessions of 1,000; the listing only reads the store, so the platform object given to
``MemoryPlatformStore`` is the SQLite store alone (nothing is embedded). Median of 7
listings, after one to warm up. ::

    .venv/bin/python benchmarks/micro/store_listing.py  # about a minute

Writes a Markdown table (default ``benchmarks/results/store_listing.md``).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from report import Report, out_path

from memory_platform.integrations.langgraph_store import MemoryPlatformStore
from memory_platform.models import Episode
from memory_platform.store import EmbeddingSignature, GraphStore
from memory_platform.store.sqlite import SQLiteGraphStore

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "store_listing.md"
TURNS = (1_000, 10_000, 100_000)
ITEMS = 20
T0 = datetime(2025, 1, 1, tzinfo=UTC)


class StoreOnly:
    """What ``MemoryPlatformStore`` uses of a platform to put and list: the store."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def replace_episode(self, episode: Episode, replacing: Sequence[str] = ()) -> str:
        return self.store.add_episodes([episode], replacing=[episode.id, *replacing])[0]


def listing_ms(turns: int, workdir: Path) -> tuple[float, int]:
    """Median milliseconds of a listing of the profile namespace, and the items listed."""
    store = SQLiteGraphStore(workdir / "m.db", EmbeddingSignature(model="x", dimension=384))
    try:
        for start in range(0, turns, 1000):
            store.add_episodes(
                [
                    Episode(
                        user_id="u",
                        session_id=f"s{start}",
                        text=f"chat turn {i} about the day",
                        timestamp=T0 + timedelta(seconds=i),
                    )
                    for i in range(start, start + 1000)
                ]
            )
        lg = MemoryPlatformStore(StoreOnly(store))  # type: ignore[arg-type]
        for i in range(ITEMS):
            lg.put(("u", "profile"), f"k{i}", {"fact": f"fact number {i}"})
        listed = len(lg.search(("u", "profile"), limit=100))
        times = []
        for _ in range(8):
            started = time.perf_counter()
            lg.search(("u", "profile"), limit=100)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times[1:]), listed
    finally:
        store.close()


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    table = Report(
        f"Listing a LangGraph store namespace of {ITEMS} items for a user with turns of chat "
        "(`benchmarks/micro/store_listing.py`): median of 7 listings.",
        ["turns of chat", "items listed", "listing ms"],
    )
    for turns in TURNS:
        with tempfile.TemporaryDirectory() as tmp:
            ms, listed = listing_ms(turns, Path(tmp))
        table.add(turns, listed, f"{ms:.2f}")
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()
