"""Microbenchmark: what deleting a user costs once the full-text index is merged in the
same call (``SQLiteGraphStore.delete_user``; FTS5's ``optimize``, so no deleted word is
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
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.textutil import user_token

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
    """On a copy of the file: the deletion's statements without the merge, as it was
    before, then the merge alone; each in milliseconds, through the store's own connection
    (its pragmas)."""
    tables = ("memories", "nodes", "memory_nodes", "edges", "links", "episodes",
              "knowledge_versions", "knowledge", "vectors", "pending_vectors",
              "media_vectors", "audit_log")  # fmt: skip
    store = SQLiteGraphStore(path, SIGNATURE)
    conn = store._conn()
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    for table in tables:
        conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user,))
    conn.execute("DELETE FROM lexical WHERE utok = ?", (user_token(user),))
    conn.execute("DELETE FROM lexical_docs WHERE user_id = ?", (user,))
    conn.execute("COMMIT")
    deleted = time.perf_counter()
    conn.execute("INSERT INTO lexical(lexical) VALUES ('optimize')")
    merged = time.perf_counter()
    store.close()
    return (deleted - started) * 1000, (merged - deleted) * 1000


def main() -> None:
    turns = _turns()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "micro.db"
        store = SQLiteGraphStore(path, SIGNATURE)
        for number in range(USERS):
            user = f"user{number}"
            for start in range(0, PER_USER, 1000):
                store.add_episodes(
                    [
                        Episode(user_id=user, text=turns[(start + i + number) % len(turns)])
                        for i in range(1000)
                    ]
                )
        store.close()
        size = path.stat().st_size / 1e6
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
        ("without the merge (before)", unmerged),
        ("the merge alone, after it", merge_alone),
        ("with the merge (now)", merged),
    ]
    lines = [
        f"Deleting one user of {PER_USER:,} episodes from an embedded store of {USERS} such"
        f" users ({USERS * PER_USER:,} episodes, {size:.0f} MB at the start), each user but the"
        " last in turn (`benchmarks/micro/delete_user_cost.py`).",
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
