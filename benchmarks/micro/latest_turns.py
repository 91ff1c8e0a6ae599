"""Microbenchmark: the clock a user's latest turn named (``GraphStore.latest_offset``).

Every tool call and search that names no clock asks it (``MemoryPlatform.user_clock``).
Two users of 100,000 turns each, one whose every turn records its clock (a chat backend
that sends ``…+08:00``) and one whose turns record none (times in UTC), and a user of 200
turns, are written to two fresh SQLite files: one with the partial index
``episodes_clock`` (schema v15), one with it dropped before the writes. Each reports the
time to write the big users' turns (the price of keeping the index) and the median and
90th percentile of 200 lookups for each user.

    .venv/bin/python benchmarks/micro/latest_turns.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/latest_turns.md``).
"""

from __future__ import annotations

import functools
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from report import Report, out_path
from scratch import scratch_store
from timing import median_p90, milliseconds

from memory_platform.models import Episode
from memory_platform.store.sqlite import SQLiteGraphStore

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "latest_turns.md"
TURNS = 100_000
SMALL = 200
LOOKUPS = 200
START = datetime(2026, 1, 1, tzinfo=UTC)
USERS = {  # user: (turns, the metadata of each)
    "clocked": (TURNS, {"role": "user", "utc_offset": "+08:00"}),
    "in-utc": (TURNS, {"role": "user"}),
    "small": (SMALL, {"role": "user", "utc_offset": "-05:00"}),
}
INTRO = (
    "The clock a user's latest turn named (`latest_offset(user)`, asked at every call that"
    " names none) in SQLite (`benchmarks/micro/latest_turns.py`), for a user with"
    f" {TURNS:,} turns that record their clock, one with {TURNS:,} that record none and"
    f" one with {SMALL}: the time to write the two big users' turns, and the median and"
    f" 90th percentile of {LOOKUPS} lookups in milliseconds:"
)
COLUMNS = ["index", "writing the turns s", *(f"{u} median / p90" for u in USERS)]


def _write(store: SQLiteGraphStore, user: str, turns: int, metadata: dict[str, str]) -> float:
    """Write ``turns`` turns of ``user`` in sessions of 1,000; the seconds it took."""
    started = time.perf_counter()
    for session in range(0, turns, 1000):
        store.add_episodes(
            [
                Episode(
                    user_id=user,
                    session_id=f"s{session}",
                    text=f"turn {n} about the weather and the weekend",
                    timestamp=START + timedelta(minutes=n),
                    metadata=metadata,
                )
                for n in range(session, min(session + 1000, turns))
            ]
        )
    return time.perf_counter() - started


def main() -> None:
    out = out_path(__doc__, RESULTS)
    report = Report(INTRO, COLUMNS)
    for label in ("episodes_clock (partial)", "none (the user's turns read newest first)"):
        with scratch_store() as store:
            if label.startswith("none"):
                store._conn().execute("DROP INDEX episodes_clock")
            seconds = sum(_write(store, user, n, meta) for user, (n, meta) in USERS.items())
            cells = []
            for user, (_, metadata) in USERS.items():
                lookup = functools.partial(store.latest_offset, user)
                assert lookup() == metadata.get("utc_offset")
                median, p90 = median_p90(milliseconds(lookup, LOOKUPS))
                cells.append(f"{median:.3f} / {p90:.3f}")
            report.add(label, f"{seconds:.1f}", *cells)
    report.write(out)


if __name__ == "__main__":
    main()
