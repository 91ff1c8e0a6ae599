"""Microbenchmark: is this speaker one of a big user's? (``find_episodes``, one row).

A pasted conversation whose speaker no candidate shows is looked up among the user's
stored turns (``retrieval/people.py``): every stranger's conversation asks it, and the
platform's own mid-term summaries are found the same way. 100,000 turns of one user in
twenty speakers' names (no vectors needed) are written to a fresh SQLite file; then the
median of 50 lookups each of a speaker who has turns and of one who has none.

    .venv/bin/python benchmarks/micro/speaker_lookup.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/speaker_lookup.md``).
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
RESULTS = HERE.parent / "results" / "speaker_lookup.md"
TURNS = 100_000
SPEAKERS = [f"Speaker{i}" for i in range(20)]
LOOKUPS = 50
INTRO = (
    "Whether a speaker has a stored turn (`find_episodes(user, speaker, limit=1)`),"
    f" for one user with {TURNS:,} turns in SQLite (`benchmarks/micro/speaker_lookup.py`),"
    f" median and 90th percentile of {LOOKUPS} lookups:"
)
COLUMNS = ["speaker", "median ms", "p90 ms"]


def _populate(store: SQLiteGraphStore) -> None:
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for session in range(TURNS // 1000):
        store.add_episodes(
            [
                Episode(
                    user_id="u",
                    session_id=f"s{session}",
                    text=f"turn {session}-{i} about the weather and the weekend",
                    speaker=SPEAKERS[(session + i) % len(SPEAKERS)],
                    timestamp=start + timedelta(minutes=session * 1000 + i),
                )
                for i in range(1000)
            ]
        )


def main() -> None:
    out = out_path(__doc__, RESULTS)
    with scratch_store() as store:
        _populate(store)
        report = Report(INTRO, COLUMNS)
        for label, speaker in (("one with turns", SPEAKERS[7]), ("one with none", "Lisa")):
            lookup = functools.partial(store.find_episodes, "u", speaker, limit=1)
            median, p90 = median_p90(milliseconds(lookup, LOOKUPS))
            report.add(label, f"{median:.3f}", f"{p90:.3f}")
    report.write(out)


if __name__ == "__main__":
    main()
