"""Microbenchmark: which of a big user's episodes have expired? (``expired_episode_ids``).

The daily maintenance asks it of every user, and the LangGraph store's TTL sweep of every
user each interval. 100,000 turns of one user, 1,000 of them LangGraph-style items with an
expiry (half of those past), are written to a fresh SQLite file (no vectors needed); then
the median of 50 lookups with the partial index ``episodes_expiry`` (schema v11), and of
50 with it dropped (every turn of the user read through the user's index).

    .venv/bin/python benchmarks/micro/expired_lookup.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/expired_lookup.md``).
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime, timedelta
from pathlib import Path

from report import Report, out_path
from scratch import scratch_store
from timing import median_p90, milliseconds

from memory_platform.models import Episode
from memory_platform.store.sqlite import SQLiteGraphStore

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "expired_lookup.md"
TURNS = 100_000
EXPIRING = 1_000
LOOKUPS = 50
NOW = datetime(2026, 1, 1, tzinfo=UTC)
INTRO = (
    "Which episodes have expired (`expired_episode_ids(user, now)`), for one user with"
    f" {TURNS:,} turns of which {EXPIRING:,} expire ({EXPIRING // 2:,} already), in SQLite"
    f" (`benchmarks/micro/expired_lookup.py`), median and 90th percentile of {LOOKUPS} lookups:"
)
COLUMNS = ["index", "found", "median ms", "p90 ms"]


def _populate(store: SQLiteGraphStore) -> None:
    every = TURNS // EXPIRING
    for session in range(TURNS // 1000):
        batch = []
        for i in range(1000):
            n = session * 1000 + i
            expiry = NOW + timedelta(hours=(n // every) % 2 * 48 - 24) if n % every == 0 else None
            batch.append(
                Episode(
                    user_id="u",
                    session_id=f"s{session}",
                    text=f"turn {n} about the weather and the weekend",
                    timestamp=NOW - timedelta(days=30, minutes=-n),
                    metadata={"source": "chat"},
                    expires_at=expiry,
                )
            )
        store.add_episodes(batch)


def main() -> None:
    out = out_path(__doc__, RESULTS)
    with scratch_store() as store:
        _populate(store)
        report = Report(INTRO, COLUMNS)
        lookup = functools.partial(store.expired_episode_ids, "u", NOW, 1000)
        for label in (
            "episodes_expiry (partial, expiring episodes only)",
            "none (the user's index: every turn read)",
        ):
            if label.startswith("none"):
                store._conn().execute("DROP INDEX episodes_expiry")
            found = len(lookup())
            median, p90 = median_p90(milliseconds(lookup, LOOKUPS))
            report.add(label, found, f"{median:.3f}", f"{p90:.3f}")
    report.write(out)


if __name__ == "__main__":
    main()
