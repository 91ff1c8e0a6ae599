"""A fresh process's first search and peak memory on a store of ``memory-platform bench``:
this tree against another (``--against``, a checkout of an older commit), in fresh
processes that alternate, four of each.

Each process does what the latency bench's fresh-process probe does (open the store,
answer a first search of the measured user, then its depth-2 searches) and reports the
cold start and the peak RSS; ``--malloc-arenas N`` runs both with ``MALLOC_ARENA_MAX=N``
(glibc), which tells memory left in a thread's malloc arena from memory in use. ::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/micro/fresh_process.py --store bench-10k.db \\
        --against /tmp/before
"""

from __future__ import annotations

import os
from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "fresh_process.md"
RUNS = 4

_RUN = """
import json, sys, time
started = time.perf_counter()
from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.latency import QUERIES
from memory_platform.bench.metrics import peak_rss_mb

mp = MemoryPlatform(Settings(sqlite_path=sys.argv[1], _env_file=None))
mp.search(sys.argv[2], "what did I buy at the supermarket", record_access=False)
cold = time.perf_counter() - started
for query in QUERIES:
    mp.search(sys.argv[2], query, expand_depth=2, mode="deep", record_access=False)
mp.close()
print(json.dumps({"cold": cold, "rss_mb": peak_rss_mb()}))
"""


def main() -> None:
    parser = checkouts.comparison_parser(__doc__, OUT)
    parser.add_argument("--user", default="bench-user")
    parser.add_argument("--malloc-arenas", type=int, default=None)
    args = parser.parse_args()
    if args.malloc_arenas is not None:
        os.environ["MALLOC_ARENA_MAX"] = str(args.malloc_arenas)  # the children inherit it
    trees = checkouts.trees(args.against)
    commits = checkouts.commits(trees)
    cold: dict[str, list[str]] = {name: [] for name in trees}
    rss: dict[str, list[str]] = {name: [] for name in trees}
    for _ in range(RUNS):
        for name, code in trees.items():
            result = checkouts.run_on(code, _RUN, str(args.store.resolve()), args.user)
            cold[name].append(f"{float(result['cold']):.2f}")
            rss[name].append(f"{float(result['rss_mb']):.1f}")
            print(name, cold[name][-1], rss[name][-1], flush=True)
    lines = ["| code | cold start s | peak RSS MB |", "|---|---|---|"]
    for name in trees:
        lines.append(f"| {name} | {', '.join(cold[name])} | {', '.join(rss[name])} |")
    arenas = (
        f"MALLOC_ARENA_MAX={args.malloc_arenas}"
        if args.malloc_arenas is not None
        else "glibc's default malloc arenas"
    )
    checkouts.write_report(
        args.out,
        __doc__,
        f"user {args.user!r} of `{args.store.name}`, {arenas}; the code before at "
        f"{commits['before']}, now at {commits['now']} and its working tree.",
        lines,
    )


if __name__ == "__main__":
    main()
