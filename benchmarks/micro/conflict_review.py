"""Reviewing the conflicts an older consolidation recorded: a store consolidated by the
code before 2026-12-01 (``--against``, a checkout of it), reviewed by this tree.

One user of the bench workload (``populate``, seed 11) is consolidated by the older code;
this tree then reviews its conflicts (``review_conflicts``) and consolidates what was
reinstated. The memories left invalid are compared, by text, with those of the same
workload consolidated by this tree alone: a review that reinstates exactly what today's
rules would not have invalidated leaves the same ones. ::

    git worktree add /tmp/before fbbfea3^
    .venv/bin/python benchmarks/micro/conflict_review.py --against /tmp/before
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "conflict_review.md"
MEMORIES = 1000

_CONSOLIDATED = """
import json, sys
from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.workload import populate
mp = MemoryPlatform(Settings(sqlite_path=sys.argv[1], _env_file=None))
populate(mp.store, mp.embedder, int(sys.argv[2]), user_id="u", seed=11)
report = mp.consolidate("u")
invalid = sorted(m.text for m in mp.store.list_memories("u", limit=100_000) if m.invalid_at)
mp.close()
print(json.dumps({"conflicts": report["conflicts"], "invalid": invalid}))
"""

_REVIEWED = """
import json, sys, time
from collections import Counter
from memory_platform import MemoryPlatform, Settings
mp = MemoryPlatform(Settings(sqlite_path=sys.argv[1], _env_file=None))
dry = mp.review_conflicts("u", dry_run=True)
started = time.perf_counter()
review = mp.review_conflicts("u")
seconds = time.perf_counter() - started
again = mp.consolidate("u")
invalid = sorted(m.text for m in mp.store.list_memories("u", limit=100_000) if m.invalid_at)
mp.close()
print(json.dumps({
    "dry_run_reinstated": dry["reinstated"], "recorded": review["conflicts"],
    "reinstated": review["reinstated"], "seconds": seconds,
    "reasons": Counter(d["reason"] for d in review["details"]),
    "conflicts_again": again["conflicts"], "invalid": invalid,
}))
"""


def main() -> None:
    args = checkouts.comparison_parser(__doc__, OUT, store=False).parse_args()
    trees = checkouts.trees(args.against)
    commits = checkouts.commits(trees)
    with tempfile.TemporaryDirectory() as folder:
        old_store, new_store = Path(folder) / "old.db", Path(folder) / "new.db"
        old = checkouts.run_on(trees["before"], _CONSOLIDATED, str(old_store), str(MEMORIES))
        reviewed = checkouts.run_on(trees["now"], _REVIEWED, str(old_store))
        today = checkouts.run_on(trees["now"], _CONSOLIDATED, str(new_store), str(MEMORIES))
    lines = [
        "| what | figure |",
        "|---|---|",
        f"| conflicts the older consolidation recorded | {old['conflicts']} |",
        f"| memories it left invalid | {len(old['invalid'])} |",
        f"| reinstated by the review (its dry run said) | {reviewed['reinstated']}"
        f" ({reviewed['dry_run_reinstated']}) |",
        *(
            f"| of the conflicts reviewed: {reason} | {count} |"
            for reason, count in sorted(reviewed["reasons"].items())
        ),
        f"| review, seconds | {reviewed['seconds']:.2f} |",
        f"| conflicts of the consolidation after the review | {reviewed['conflicts_again']} |",
        f"| memories left invalid after it | {len(reviewed['invalid'])} |",
        f"| memories today's consolidation alone leaves invalid | {len(today['invalid'])} |",
        f"| the same memories, by text | {'yes' if reviewed['invalid'] == today['invalid'] else 'no'} |",
    ]
    what = (
        f"{MEMORIES:,} memories of one user; the older code at {commits['before']}, this tree "
        f"at {commits['now']} and its working tree."
    )
    checkouts.write_report(args.out, __doc__, what, lines)


if __name__ == "__main__":
    main()
