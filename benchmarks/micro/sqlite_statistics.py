"""Microbenchmark: what SQLite statistics (``ANALYZE``) would do to the embedded store's
plans.

The store keeps no statistics: with none, SQLite's planner takes ``user_id = ?`` for about
ten rows (so items asked for by id are looked up with ``+user_id``,
``lookup_by_ids.py``). Statistics would tell it the truth about users, and could change
plans anywhere, so this measures them on a realistic store before anything relies on
them, and finds where a tool that ANALYZEs the file (``PRAGMA optimize``, a browser) would
hurt.

A copy of a store of ``memory-platform bench --scale 100k`` (1,002 users, 200,000
memories, a user of 100,000 turns) serves a workload in this process with every
statement traced: searches at each depth of the measured user, the chatty user and a
small one (access recorded), memories created, linked, updated, forgotten, deleted and
listed, turns added to a session and deleted, and a small user's consolidation, decay,
maintenance and export. A second copy is then ANALYZEd (``analysis_limit`` 1,000, as
``PRAGMA optimize`` does), and each distinct statement is explained on both: those whose
plan differs are run on both copies, alternating, 20 times each (median and 90th
percentile, ms). The statement that finds the stored turn a new one follows is also run
as it was when it asked for a turn with no next (``next_id IS NULL``). ::

    .venv/bin/python benchmarks/micro/sqlite_statistics.py --store bench-100k.db [--out FILE]

Writes a Markdown table (default ``benchmarks/results/sqlite_statistics.md``).
"""

from __future__ import annotations

import argparse
import functools
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from report import Report
from timing import median_p90, milliseconds

from memory_platform.store.sqlite_driver import sqlite3

RESULTS = Path(__file__).resolve().parents[1] / "results" / "sqlite_statistics.md"
RUNS = 20
SMALL = "tenant-00010"


def traced(path: Path) -> list[str]:
    """The distinct statements, as run, of the workload on the store at ``path``: every
    connection the store opens meanwhile traces what it runs."""
    statements: dict[str, None] = {}
    lock = threading.Lock()
    connect = sqlite3.connect  # the driver's, which the store calls

    def tracing(*args: Any, **kwargs: Any) -> Any:
        conn = connect(*args, **kwargs)

        def keep(statement: str) -> None:
            with lock:
                statements.setdefault(statement, None)

        conn.set_trace_callback(keep)
        return conn

    setattr(sqlite3, "connect", tracing)  # noqa: B010
    try:
        _workload(path)
    finally:
        setattr(sqlite3, "connect", connect)  # noqa: B010
    return list(statements)


def _workload(path: Path) -> None:
    from memory_platform import MemoryPlatform, Settings
    from memory_platform.bench.latency import CHAT_USER
    from memory_platform.bench.workload import QUERIES

    with MemoryPlatform(Settings(sqlite_path=path, _env_file=None)) as mp:
        for query in QUERIES:
            for depth in (0, 1, 2):
                mp.search("bench-user", query, expand_depth=depth, mode="deep" if depth else "fast")
            mp.search(CHAT_USER, query)
            mp.search(SMALL, query)
        mp.wait_for_access()
        ids = [mp.create_memory("bench-user", "我", "事件", f"统计{n}", "计划") for n in range(6)]
        mp.wait_for_indexing("bench-user")
        assert mp.link_memories("bench-user", ids[0], ids[1], "CAUSES")["success"]
        mp.update_memory("bench-user", ids[2], importance=0.9)
        mp.forget("bench-user", ids[3])
        mp.delete_memory("bench-user", ids[4])
        mp.list_memories("bench-user")
        mp.memory_history("bench-user", ids[2])
        turns = mp.add_episodes(
            CHAT_USER,
            [{"text": f"I went hiking {n}", "session_id": "chat-7", "speaker": "Ann"} for n in range(20)],
        )  # fmt: skip
        mp.wait_for_indexing(CHAT_USER)
        mp.delete_episodes(CHAT_USER, turns[:3])
        mp.consolidate(SMALL)
        mp.refresh_decay(SMALL)
        mp.daily_maintenance(SMALL)
        list(mp.iter_export(SMALL))


def plan(conn: sqlite3.Connection, statement: str) -> str | None:
    """SQLite's plan of a statement, None for one that has none to show."""
    if not re.match(r"\s*(SELECT|UPDATE|DELETE|INSERT|WITH|REPLACE)", statement, re.I):
        return None
    try:
        return " | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement))
    except sqlite3.Error:  # a temporary table of the workload's own transaction
        return None


def shape(statement: str) -> str:
    """The statement with its values left out, to count statements of one shape once."""
    statement = re.sub(r"'[^']*'|\b\d+(\.\d+)?\b", "?", statement)
    return re.sub(r"\s+", " ", re.sub(r"(\?,\s*)+\?", "?...", statement)).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a store of `bench --scale`")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        plain, analyzed = Path(folder) / "plain.db", Path(folder) / "analyzed.db"
        shutil.copyfile(args.store, plain)
        statements = traced(plain)
        shutil.copyfile(plain, analyzed)
        with sqlite3.connect(analyzed) as conn:
            started = time.perf_counter()
            conn.execute("PRAGMA analysis_limit = 1000")
            conn.execute("ANALYZE")
            analyze_seconds = time.perf_counter() - started
        old = sqlite3.connect(f"file:{plain}?mode=ro", uri=True)
        new = sqlite3.connect(f"file:{analyzed}?mode=ro", uri=True)
        differ: dict[str, str] = {}
        explained = 0
        for statement in statements:
            before = plan(old, statement)
            if before is None:
                continue
            explained += 1
            if plan(new, statement) != before:
                differ.setdefault(shape(statement), statement)
        tails = [s for s in statements if "FROM episodes" in s and _asks_tail(s)]
        if tails:  # the statement a new turn of a session runs, as it is and as it was
            differ["the turn before a new one, as it is"] = tails[0]
            differ["the turn before a new one, as it was (next_id IS NULL)"] = re.sub(
                r"(timestamp <= \S+) AND id NOT IN",
                r"\1 AND next_id IS NULL AND id NOT IN",
                tails[0],
            )
        report = Report(
            f"SQLite statistics on a copy of `{args.store.name}` (`benchmarks/micro/"
            f"sqlite_statistics.py`): {len(statements)} distinct statements traced, "
            f"{explained} with a plan; ANALYZE took {analyze_seconds:.2f} s. The statements "
            "whose plan differs with statistics, and the stored turn a new one follows found"
            " as it is and as it was, each run on the store without them and with them,"
            f" alternating, {RUNS} times; median / 90th percentile, ms:",
            ["statement", "plan without statistics", "plan with them", "without", "with"],
        )
        for label, statement in differ.items():
            timed: dict[str, list[float]] = {"without": [], "with": []}
            for _ in range(RUNS):
                for key, conn in (("without", old), ("with", new)):
                    timed[key] += milliseconds(functools.partial(_rows, conn, statement), 1)
            cells = [f"{m:.3f} / {p:.3f}" for m, p in map(median_p90, timed.values())]
            first = [_first_difference(plan(old, statement), plan(new, statement))]
            report.add(f"`{_short(label)}`", *first[0], *cells)
        report.write(args.out)


def _asks_tail(statement: str) -> bool:
    """Whether a statement on episodes finds the stored turn a new one follows."""
    return re.search(r"timestamp <= \S+ AND id NOT IN", statement) is not None


def _short(label: str) -> str:
    """A statement's shape with its column lists left out, cut at 140 characters."""
    return re.sub(r"SELECT (?!value\b)[^()]*? FROM", "SELECT … FROM", label)[:140]


def _rows(conn: sqlite3.Connection, statement: str) -> list[object]:
    return conn.execute(statement).fetchall()


def _first_difference(before: str | None, after: str | None) -> tuple[str, str]:
    """The first step where two plans part, each side's."""
    a, b = (before or "").split(" | "), (after or "").split(" | ")
    for x, y in zip(a, b, strict=False):
        if x != y:
            return x, y
    return a[0], b[0]


if __name__ == "__main__":
    main()
