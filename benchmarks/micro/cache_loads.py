"""What a big user's first search in a process loads into the embedded store's caches, and
what that costs in time and peak memory: the code of this tree against another's
(``--against``, a checkout of an older commit), in fresh processes that alternate, three
of each.

Each process opens the store (``memory-platform bench --scale 100k`` leaves one in its
``--workdir``), notes its peak RSS, then loads the measured user's memory, topic and
object matrices one after the other (``GraphStore.warm_vectors``) and builds the user's
lexical index (a ``lexical_search``), timing each, and notes its peak RSS again: what
loading added to the peak is the second figure less the first. (A search does the two
sides on two threads.) ::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/micro/cache_loads.py --store bench-100k.db --against /tmp/before
"""

from __future__ import annotations

import statistics
from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "cache_loads.md"
KINDS = ("memory", "topic", "object", "lexical")

_LOAD = """
import json, sys, time
from pathlib import Path
from memory_platform.bench.metrics import peak_rss_mb as peak
from memory_platform.config import Settings
from memory_platform.models import VectorKind
from memory_platform.store import open_store

settings = Settings(backend="sqlite", sqlite_path=Path(sys.argv[1]), _env_file=None)
store = open_store(settings)
out = {"opened MB": peak()}
for kind in ("memory", "topic", "object"):
    started = time.perf_counter()
    store.warm_vectors(sys.argv[2], [VectorKind(kind)])
    out[kind] = (time.perf_counter() - started) * 1000
started = time.perf_counter()
store.lexical_search(sys.argv[2], "what did I buy", [VectorKind.MEMORY, VectorKind.EPISODE], 50)
out["lexical"] = (time.perf_counter() - started) * 1000
out["loaded MB"] = peak()
store.close()
print(json.dumps(out))
"""


def main() -> None:
    parser = checkouts.comparison_parser(__doc__, OUT)
    parser.add_argument("--user", default="bench-user")
    args = parser.parse_args()
    trees = checkouts.trees(args.against)
    commits = checkouts.commits(trees)
    runs: dict[str, list[dict[str, float]]] = checkouts.alternate(
        trees, _LOAD, str(args.store), args.user
    )
    lines = [
        "| code | memory ms | topic ms | object ms | lexical index ms | peak RSS added, MB |",
        "|---|---|---|---|---|---|",
    ]
    for name, results in runs.items():
        cells = [", ".join(f"{r[kind]:.0f}" for r in results) for kind in KINDS]
        added = ", ".join(f"{r['loaded MB'] - r['opened MB']:.0f}" for r in results)
        lines.append(f"| {name} | {' | '.join(cells)} | {added} |")
    medians = {
        name: statistics.median(sum(r[kind] for kind in KINDS) for r in results)
        for name, results in runs.items()
    }
    checkouts.write_report(
        args.out,
        __doc__,
        f"user {args.user!r} of `{args.store.name}`; the code before at {commits['before']}, "
        f"now at {commits['now']} and its working tree. Median of the four loads together: "
        f"{medians['before']:.0f} ms before, {medians['now']:.0f} ms now.",
        lines,
    )


if __name__ == "__main__":
    main()
