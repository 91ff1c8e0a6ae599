"""Other users' searches while a big user's first search in the process loads its caches:
the code of this tree against another's (``--against``, a checkout of an older commit), in
fresh processes that alternate, three of each.

Each process opens the store (``memory-platform bench --scale 100k`` leaves one in its
``--workdir``) and searches a small user of it (``--small``) in a loop on one thread; a
second later it makes the big user's first search (depth 2) on another, or, with
``--big-searches N``, N of them at once on N threads (an agent's parallel tool calls).
Reported: how long the first search took (the slowest of the N), and the small user's
searches that ran meanwhile: their count, median and slowest. ``--small colliding`` picks, in each process, a tenant whose
memory matrix fell in the big user's lock when the caches spread their keys over 64
locks by hash (until 2026-11-29): the user such a stripe held up. ::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/micro/concurrent_first_load.py --store bench-100k.db \\
        --against /tmp/before
"""

from __future__ import annotations

import statistics
from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "concurrent_first_load.md"

_RUN = """
import json, sys, threading, time
from pathlib import Path
from memory_platform import MemoryPlatform
from memory_platform.config import Settings

path, big, small, many = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
if small == "colliding":  # a tenant whose memory matrix had the big user's lock of 64
    small = next(
        name for name in (f"tenant-{i:05d}" for i in range(1000))
        if hash((name, "memory")) % 64 == hash((big, "memory")) % 64
    )
with MemoryPlatform(Settings(backend="sqlite", sqlite_path=path, _env_file=None)) as mp:
    mp.warm_up()
    for _ in range(5):
        mp.search(small, "what did I eat", record_access=False)
    times, stop = [], threading.Event()
    def loop():
        while not stop.is_set():
            mp.clear_query_cache()
            started = time.perf_counter()
            mp.search(small, "what did I eat", record_access=False)
            times.append((time.perf_counter() - started) * 1000)
    thread = threading.Thread(target=loop)
    thread.start()
    time.sleep(1.0)
    before = len(times)
    started = time.perf_counter()
    bigs = [
        threading.Thread(
            target=mp.search,
            args=(big, f"what did I buy at the supermarket {i}"),
            kwargs={"expand_depth": 2, "record_access": False},
        )
        for i in range(many)
    ]
    for search in bigs:
        search.start()
    for search in bigs:
        search.join()
    first = time.perf_counter() - started
    stop.set()
    thread.join()
    print(json.dumps({"first s": first, "during": times[before:], "small": small}))
"""


def main() -> None:
    parser = checkouts.comparison_parser(__doc__, OUT)
    parser.add_argument("--big", default="bench-user")
    parser.add_argument(
        "--small",
        default="tenant-00001",
        help="the small user, or `colliding`: in each process, a tenant whose memory matrix "
        "fell in the big user's stripe when the caches spread their keys over 64 locks",
    )
    parser.add_argument(
        "--big-searches", type=int, default=1, help="the big user's first searches at once"
    )
    args = parser.parse_args()
    trees = checkouts.trees(args.against)
    commits = checkouts.commits(trees)
    lines = [
        "| code | big user's first search s (the slowest of those at once) | the small user's searches meanwhile: count, "
        "median / slowest ms |",
        "|---|---|---|",
    ]
    rows: dict[str, list[str]] = {name: [] for name in trees}
    firsts: dict[str, list[str]] = {name: [] for name in trees}
    for _ in range(3):
        for name, code in trees.items():
            result = checkouts.run_on(
                code, _RUN, str(args.store), args.big, args.small, str(args.big_searches)
            )
            during = [float(t) for t in result["during"]]
            firsts[name].append(f"{float(result['first s']):.2f}")
            rows[name].append(
                f"{len(during)}, {statistics.median(during):.0f} / {max(during):.0f}"
                if during
                else "none"
            )
            print(name, firsts[name][-1], rows[name][-1], flush=True)
    for name in trees:
        lines.append(f"| {name} | {', '.join(firsts[name])} | {'; '.join(rows[name])} |")
    small = (
        "a tenant whose memory matrix fell in the big user's stripe of the 64 locks by hash"
        " of code before 2026-11-29 (picked in each process)"
        if args.small == "colliding"
        else repr(args.small)
    )
    checkouts.write_report(
        args.out,
        __doc__,
        f"big user {args.big!r} ({args.big_searches} first searches at once), small user "
        f"{small} of `{args.store.name}`; the code "
        f"before at {commits['before']}, now at {commits['now']} and its working tree.",
        lines,
    )


if __name__ == "__main__":
    main()
