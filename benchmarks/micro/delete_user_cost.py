"""Microbenchmark: what deleting leaves no word in the embedded store's full-text index
for: one turn (FTS5 deletes its words with it, ``secure-delete``) against the merge of the
whole index that did it before, and a user (one merge in ``delete_user``) against letting
FTS5 delete each of the user's documents' words.

Ten users of 10,000 episodes each (100,000 in all, LoCoMo dev's turns over again, no
vectors needed) are written to a fresh SQLite file. Turns of the last user are deleted
one at a time, alternately as the store does now and as it did before (FTS5's option off,
then ``optimize``). Then each user but the last in turn: on a copy of the file taken just
before, the deletion with FTS5 deleting word by word; then the store's ``delete_user``.
Results: ``results/delete_user_cost.md``.

    .venv/bin/python benchmarks/micro/delete_user_cost.py     # under a minute
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from scratch import SIGNATURE
from timing import median_p90

from memory_platform.models import Episode
from memory_platform.store import sqlite
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.store.sqlite_driver import sqlite3
from memory_platform.textutil import user_token

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
USERS = 10
PER_USER = 10_000
TURNS = 20


def _turns() -> list[str]:
    conversations = json.loads(DATA.read_text())
    return [
        turn["text"]
        for conversation in conversations
        for key, turns in conversation["conversation"].items()
        if key.startswith("session_") and isinstance(turns, list)
        for turn in turns
    ]


def _word_by_word(conn: sqlite3.Connection, user: str) -> None:
    """``delete_user``'s full-text deletion without its merge: FTS5 deletes each
    document's words (``secure-delete`` stays on)."""
    conn.execute("DELETE FROM lexical WHERE utok = ?", (user_token(user),))


def _timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def _delete_as_before(store: SQLiteGraphStore, user: str, ref: str) -> None:
    """A deletion as the store made it before FTS5's option: the words left in the
    segments, then the whole index merged (what ``forget`` ran after it)."""
    with store._tx() as conn:
        conn.execute("INSERT INTO lexical(lexical, rank) VALUES ('secure-delete', 0)")
    store.delete_episodes(user, [ref])
    with store._tx() as conn:
        conn.execute("INSERT INTO lexical(lexical) VALUES ('optimize')")
        conn.execute("INSERT INTO lexical(lexical, rank) VALUES ('secure-delete', 1)")


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
        last = f"user{USERS - 1}"
        now_turn, before_turn = [], []
        for first, second in zip(kept[0 : 2 * TURNS : 2], kept[1 : 2 * TURNS : 2], strict=True):
            now_turn.append(_timed(partial(store.delete_episodes, last, [first])))
            before_turn.append(_timed(partial(_delete_as_before, store, last, second)))
        store.close()
        now_user, word_user = [], []
        for number in range(USERS - 1):
            user = f"user{number}"
            copy = Path(folder) / "copy.db"
            shutil.copy(path, copy)
            other = SQLiteGraphStore(copy, SIGNATURE)
            merged = sqlite._delete_user_documents
            sqlite._delete_user_documents = _word_by_word
            try:
                word_user.append(_timed(partial(other.delete_user, user)))
            finally:
                sqlite._delete_user_documents = merged
            other.close()
            for file in Path(folder).glob("copy.db*"):
                file.unlink()
            store = SQLiteGraphStore(path, SIGNATURE)
            now_user.append(_timed(partial(store.delete_user, user)))
            store.close()
    rows = [
        ("one turn: FTS5 deletes its words with it (now)", now_turn),
        ("one turn: words left, then the index merged (before)", before_turn),
        ("a user: one merge of the index (`delete_user`)", now_user),
        ("a user: FTS5 deletes each document's words (not taken)", word_user),
    ]
    lines = [
        f"Deleting from an embedded store of {USERS} users of {PER_USER:,} episodes each"
        f" ({USERS * PER_USER:,} episodes, {size:.0f} MB): {2 * TURNS} single turns of the"
        " last user, alternately as now and as before, then each user but the last in turn"
        " (`benchmarks/micro/delete_user_cost.py`). Every row leaves no word of what was"
        " deleted in the file.",
        "",
        "| deletion | median ms | p90 ms |",
        "|---|---|---|",
        *(
            f"| {name} | {median_p90(times)[0]:.1f} | {median_p90(times)[1]:.1f} |"
            for name, times in rows
        ),
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
