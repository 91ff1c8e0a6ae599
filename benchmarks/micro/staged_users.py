"""Microbenchmark: which users have memories waiting for consolidation?
(``users_with_staged``, what the consolidation beat asks before it queues any work).

100,000 memories of 200 users are written to a fresh SQLite file, all consolidated but
three staged memories of each of five users, as a store looks between beats; then the
median and 90th percentile of 50 calls.

    .venv/bin/python benchmarks/micro/staged_users.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/staged_users.md``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from report import Report, out_path
from scratch import scratch_store
from timing import median_p90, milliseconds

from memory_platform.builder import build_memory
from memory_platform.models import MemoryStatus, MemorySubgraph
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.tools.arguments import CreateMemoryArgs

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "staged_users.md"
USERS = 200
PER_USER = 500
STAGED_USERS = 5
STAGED_EACH = 3
CALLS = 50
INTRO = (
    f"Users with staged memories (`users_with_staged()`), {USERS * PER_USER:,} memories of"
    f" {USERS} users in SQLite, {STAGED_EACH} staged memories each for {STAGED_USERS} of"
    f" them and the rest consolidated (`benchmarks/micro/staged_users.py`), median and 90th"
    f" percentile of {CALLS} calls:"
)
COLUMNS = ["users found", "median ms", "p90 ms"]


def _memory(user: int, i: int, staged: bool) -> MemorySubgraph:
    args = CreateMemoryArgs(subject="user", memory_type="fact", topic=f"hobby {i}", object="tea")
    when = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=i)
    graph = build_memory(f"user-{user}", args, reference_time=when)
    status = MemoryStatus.STAGED if staged else MemoryStatus.CONSOLIDATED
    return graph.model_copy(update={"memory": graph.memory.model_copy(update={"status": status})})


def _populate(store: SQLiteGraphStore) -> None:
    for user in range(USERS):
        staged = STAGED_EACH if user % (USERS // STAGED_USERS) == 0 else 0
        store.write_memories([_memory(user, i, i < staged) for i in range(PER_USER)])


def main() -> None:
    out = out_path(__doc__, RESULTS)
    with scratch_store() as store:
        _populate(store)
        found = store.users_with_staged()
        median, p90 = median_p90(milliseconds(store.users_with_staged, CALLS))
    report = Report(INTRO, COLUMNS)
    report.add(str(len(found)), f"{median:.3f}", f"{p90:.3f}")
    report.write(out)


if __name__ == "__main__":
    main()
