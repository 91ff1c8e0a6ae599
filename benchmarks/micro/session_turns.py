"""Storing one turn in a long session, in order and late: this tree against another
(``--against``, a checkout of an older commit), in fresh processes that alternate, three of
each.

Each process writes one session of 50,000 turns (one user, 30 s apart) to a new SQLite
file, then stores 30 turns one at a time after the session's last, and 30 said in its
middle (a turn stored late), timing each ``add_episodes`` call; the median in
milliseconds of each kind, and how many late turns the chain leads on to the stored turn
said after them (before, each was linked after the late turn stored before it, if any). ::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/micro/session_turns.py --against /tmp/before
"""

from __future__ import annotations

from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "session_turns.md"
TURNS = 50_000

_RUN = """
import json, statistics, sys, tempfile, time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from memory_platform.models import Episode
from memory_platform.store import EmbeddingSignature
from memory_platform.store.sqlite import SQLiteGraphStore

turns = int(sys.argv[1])
start = datetime(2024, 1, 1, tzinfo=UTC)
with tempfile.TemporaryDirectory() as folder:
    store = SQLiteGraphStore(Path(folder) / "s.db", EmbeddingSignature(model="m", dimension=384))
    for first in range(0, turns, 1000):
        store.add_episodes([
            Episode(user_id="u", session_id="s", text=f"turn {n} about the weather",
                    timestamp=start + timedelta(seconds=30 * n))
            for n in range(first, first + 1000)
        ])

    def timed(at):
        times, ids = [], []
        for i in range(30):
            turn = Episode(user_id="u", session_id="s", text=f"one more {i}", timestamp=at(i))
            started = time.perf_counter()
            store.add_episodes([turn])
            times.append((time.perf_counter() - started) * 1000)
            ids.append(turn.id)
        return statistics.median(times), ids

    in_order, _ = timed(lambda i: start + timedelta(seconds=30 * turns + i))
    late, ids = timed(lambda i: start + timedelta(seconds=30 * (turns // 2 + 7 * i) + 7))
    nexts = store.next_episode_ids("u", ids)
    placed = sum(1 for i in ids if nexts.get(i) not in (None, *ids))  # a stored turn next
    store.close()
print(json.dumps({"in_order": in_order, "late": late, "late_placed": placed}))
"""


def main() -> None:
    parser = checkouts.comparison_parser(__doc__, OUT, store=False)
    args = parser.parse_args()
    trees = checkouts.trees(args.against)
    runs = checkouts.alternate(trees, _RUN, str(TURNS))
    commits = checkouts.commits(trees)
    lines = [
        "| code | a turn in order, median ms | a late turn, median ms | late turns followed by the stored turn said after them (of 30) |",
        "|---|---|---|---|",
    ]
    for name, results in runs.items():
        cells = [", ".join(f"{r[key]:.2f}" for r in results) for key in ("in_order", "late")]
        joined = ", ".join(str(r["late_placed"]) for r in results)
        lines.append(f"| {name} | {cells[0]} | {cells[1]} | {joined} |")
    what = (
        f"one session of {TURNS:,} turns; the code before at {commits['before']}, now at "
        f"{commits['now']} and its working tree."
    )
    checkouts.write_report(args.out, __doc__, what, lines)


if __name__ == "__main__":
    main()
