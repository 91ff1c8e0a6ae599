"""Microbenchmark: what deleting a user, or forgetting one turn, costs once the full-text
index is merged in the same call (``SQLiteGraphStore.delete_user``,
``compact_lexical_index`` after a ``forget``; FTS5's ``optimize``, so no deleted word is
left in the file).

Ten users of 10,000 episodes each (100,000 in all, LoCoMo dev's turns over again, no
vectors needed) are written to a fresh SQLite file; then each user but the last is
deleted in turn, timing the whole deletion and, on a copy of the file taken before, the
same deletion without the merge and then the merge alone. Results: ``results/delete_user_cost.md``.

    .venv/bin/python benchmarks/micro/delete_user_cost.py     # about two minutes
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from scratch import SIGNATURE
from timing import median_p90

from memory_platform.models import Episode
from memory_platform.store import sqlite
from memory_platform.store.sqlite import SQLiteGraphStore

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
USERS = 10
PER_USER = 10_000


def _turns() -> list[str]:
    conversations = json.loads(DATA.read_text())
    return [
        turn["text"]
        for conversation in conversations
        for key, turns in conversation["conversation"].items()
        if key.startswith("session_") and isinstance(turns, list)
        for turn in turns
    ]


def _unmerged_delete(path: Path, user: str) -> tuple[float, float]:
    """On a copy of the file: the store's deletion of the user with its merge left out, as
    it was before, then the merge alone; each in milliseconds."""
    store = SQLiteGraphStore(path, SIGNATURE)
    merge = sqlite._merge_lexical_segments
    sqlite._merge_lexical_segments = lambda conn: None
    try:
        started = time.perf_counter()
        store.delete_user(user)
        deleted = time.perf_counter()
    finally:
        sqlite._merge_lexical_segments = merge
    store.compact_lexical_index()
    merged = time.perf_counter()
    store.close()
    return (deleted - started) * 1000, (merged - deleted) * 1000


def main() -> None:
    turns = _turns()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "micro.db"
        store = SQLiteGraphStore(path, SIGNATURE)
        kept: list[str] = []
        for number in range(USERS):
            user = f"user{number}"
            for start in range(0, PER_USER, 1000):
                kept = store.add_episodes(
                    [
                        Episode(user_id=user, text=turns[(start + i + number) % len(turns)])
                        for i in range(1000)
                    ]
                )
        size = path.stat().st_size / 1e6
        one_deleted, one_merged = [], []
        for ref in kept[:9]:  # forgetting one turn of the last user: the delete, the merge
            started = time.perf_counter()
            store.delete_episodes(f"user{USERS - 1}", [ref])
            deleted = time.perf_counter()
            store.compact_lexical_index()
            one_deleted.append((deleted - started) * 1000)
            one_merged.append((time.perf_counter() - deleted) * 1000)
        store.close()
        merged, unmerged, merge_alone = [], [], []
        for number in range(USERS - 1):
            user = f"user{number}"
            copy = Path(folder) / "copy.db"
            shutil.copy(path, copy)
            before, merge = _unmerged_delete(copy, user)
            unmerged.append(before)
            merge_alone.append(merge)
            for file in Path(folder).glob("copy.db*"):
                file.unlink()
            store = SQLiteGraphStore(path, SIGNATURE)
            started = time.perf_counter()
            store.delete_user(user)
            merged.append((time.perf_counter() - started) * 1000)
            store.close()
    rows = [
        ("a user: without the merge (before)", unmerged),
        ("a user: the merge alone, after it", merge_alone),
        ("a user: with the merge (now)", merged),
        ("one turn (`forget`): the deletion", one_deleted),
        ("one turn (`forget`): the merge after it", one_merged),
    ]
    lines = [
        f"Deleting from an embedded store of {USERS} users of {PER_USER:,} episodes each"
        f" ({USERS * PER_USER:,} episodes, {size:.0f} MB): nine single turns of the last user"
        " (what `forget` deletes), then each user but the last in turn"
        " (`benchmarks/micro/delete_user_cost.py`).",
        "",
        "| deletion | median ms | p90 ms |",
        "|---|---|---|",
        *(
            f"| {name} | {median_p90(times)[0]:.0f} | {median_p90(times)[1]:.0f} |"
            for name, times in rows
        ),
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
