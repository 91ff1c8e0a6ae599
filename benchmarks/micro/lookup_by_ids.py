"""Microbenchmark: a big user's items looked up by id, with ``+user_id`` and without.

With no statistics SQLite's planner takes ``user_id = ?`` for about ten rows, so for five
ids or more a ``WHERE user_id = ? AND id IN (...)`` walked the user's index rather than
look each id up. A search reads its candidate turns (``get_episodes``) and their next
turns (``next_episode_ids``) so, and records the access of what it returned
(``record_access``, ``record_episode_access``, in the background); consolidation reads
nodes (``get_nodes``), and the indexer checks each batch's owners (``set_embeddings``).

One user with 100,000 memories (the benchmark's workload, ``bench.workload.populate``)
and 100,000 turns is written to a fresh SQLite file; each statement is then run as it was
(``user_id = ?``) and as it is (``+user_id = ?``) for 10 and for 50 random ids of the
user, alternating, 50 times each; the median and 90th percentile in milliseconds.

    .venv/bin/python benchmarks/micro/lookup_by_ids.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/lookup_by_ids.md``).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from latest_turns import _write
from report import Report, out_path
from timing import median_p90

from memory_platform.bench.workload import populate
from memory_platform.config import load_settings
from memory_platform.embeddings import make_embedder
from memory_platform.store import open_store
from memory_platform.store.sqlite import SQLiteGraphStore

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "lookup_by_ids.md"
ITEMS = 100_000
RUNS = 50
USER = "big"
STATEMENTS = {  # what asks it: (table, the statement; {plus}: "+" now, "" before)
    "get_episodes (a search's candidates)": (
        "episodes", "SELECT * FROM episodes WHERE {plus}user_id = ? AND id IN ({ids})"),
    "next_episode_ids (a search's candidates)": (
        "episodes",
        "SELECT id, next_id FROM episodes WHERE {plus}user_id = ? AND next_id IS NOT NULL"
        " AND id IN ({ids})"),
    "record_episode_access (after a search)": (
        "episodes",
        "UPDATE episodes SET access_count = access_count + 0 WHERE {plus}user_id = ? AND id IN ({ids})"),
    "record_access (after a search)": (
        "memories",
        "UPDATE memories SET access_count = access_count + 0 WHERE {plus}user_id = ? AND id IN ({ids})"),
    "get_nodes (consolidation merging nodes)": (
        "nodes", "SELECT * FROM nodes n WHERE {plus}n.user_id = ? AND n.id IN ({ids})"),
    "set_embeddings (the indexer, topic nodes)": (
        "nodes", "SELECT id FROM nodes WHERE {plus}user_id = ? AND kind = 'Topic' AND id IN ({ids})"),
}  # fmt: skip
INTRO = (
    f"Items of a user with {ITEMS:,} memories and {ITEMS:,} turns looked up by id in SQLite"
    " (`benchmarks/micro/lookup_by_ids.py`), each statement as it was (`user_id = ?`, which"
    " the planner served from the user's index) and as it is (`+user_id = ?`: by id),"
    f" alternating; median / 90th percentile of {RUNS} runs, milliseconds:"
)
COLUMNS = ["statement", "ids", "before", "now"]


def main() -> None:
    out = out_path(__doc__, RESULTS)
    report = Report(INTRO, COLUMNS)
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(backend="sqlite", sqlite_path=Path(folder) / "ids.db")
        embedder = make_embedder(settings)
        store = open_store(settings)
        assert isinstance(store, SQLiteGraphStore)
        populate(store, embedder, ITEMS, user_id=USER)
        _write(store, USER, ITEMS, {"role": "user"})
        conn = store._conn()
        owned = {
            table: [
                r[0] for r in conn.execute(f"SELECT id FROM {table} WHERE +user_id = ?", (USER,))
            ]
            for table in ("episodes", "memories", "nodes")
        }
        topics = [r[0] for r in conn.execute("SELECT id FROM nodes WHERE kind = 'Topic'")]
        rng = random.Random(5)
        for label, (table, template) in STATEMENTS.items():
            pool = topics if "'Topic'" in template else owned[table]
            for count in (10, 50):
                times: dict[str, list[float]] = {"before": [], "now": []}
                for _ in range(RUNS):
                    ids = rng.sample(pool, count)
                    for version, plus in (("before", ""), ("now", "+")):
                        sql = template.format(plus=plus, ids=",".join("?" * count))
                        started = time.perf_counter()
                        conn.execute(sql, (USER, *ids)).fetchall()
                        times[version].append((time.perf_counter() - started) * 1000)
                cells = [f"{m:.3f} / {p:.3f}" for m, p in map(median_p90, times.values())]
                report.add(label, count, *cells)
        store.close()
    report.write(out)


if __name__ == "__main__":
    main()
