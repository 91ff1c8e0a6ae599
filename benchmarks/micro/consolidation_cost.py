"""What consolidating a user's staged memories costs on the embedded store, with no LLM
configured (the default): the code of this tree against another's (``--against``, a
checkout of an older commit), in fresh processes that alternate, three of each.

Each process writes ``--memories`` staged memories of the bench workload for one user
(ten subjects, Chinese and English, every type; ``bench.workload.populate``) into a
fresh SQLite file, then times ``MemoryPlatform.consolidate`` and notes how many memories
it read in full (``get_memory``) and how many conflicts it reported. ::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/micro/consolidation_cost.py --against /tmp/before
"""

from __future__ import annotations

import statistics
from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "consolidation_cost.md"

_RUN = """
import json, sys, tempfile, time
from pathlib import Path
from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.workload import populate

with tempfile.TemporaryDirectory() as folder:
    mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None))
    populate(mp.store, mp.embedder, int(sys.argv[1]), user_id="u", seed=0, words={})
    reads = 0
    read = mp.store.get_memory

    def counted(*args, **kwargs):
        global reads
        reads += 1
        return read(*args, **kwargs)

    mp.store.get_memory = counted
    started = time.perf_counter()
    report = mp.consolidate("u")
    seconds = time.perf_counter() - started
    mp.close()
print(json.dumps({"seconds": seconds, "reads": reads, "conflicts": report["conflicts"],
                  "memories": report["memories"]}))
"""


def main() -> None:
    parser = checkouts.comparison_parser(__doc__, OUT, store=False)
    parser.add_argument("--memories", type=int, default=1000)
    args = parser.parse_args()
    trees = checkouts.trees(args.against)
    commits = checkouts.commits(trees)
    runs: dict[str, list[dict[str, float]]] = checkouts.alternate(trees, _RUN, str(args.memories))
    lines = [
        f"| code | consolidating {args.memories:,} memories, s (median; runs) "
        "| memories read in full | conflicts reported |",
        "|---|---|---|---|",
    ]
    for name, results in runs.items():
        seconds = ", ".join(f"{r['seconds']:.1f}" for r in results)
        middle = statistics.median(r["seconds"] for r in results)
        lines.append(
            f"| {name} | {middle:.1f} ({seconds}) "
            f"| {results[0]['reads']:,.0f} | {results[0]['conflicts']:.0f} |"
        )
    checkouts.write_report(
        args.out,
        __doc__,
        f"the code before at {commits['before']}, now at {commits['now']} and its working "
        "tree; no LLM configured.",
        lines,
    )


if __name__ == "__main__":
    main()
