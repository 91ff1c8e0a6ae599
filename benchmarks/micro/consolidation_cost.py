"""What consolidating a user's staged memories costs on the embedded store: the code of
this tree against another's (``--against``, a checkout of an older commit), in fresh
processes that alternate, three of each.

Each process writes ``--memories`` staged memories of the bench workload for one user
(ten subjects, Chinese and English, every type; ``bench.workload.populate``) into a
fresh SQLite file, then times ``MemoryPlatform.consolidate`` and notes how many memories
it read in full (``get_memory``) and how many conflicts it reported. With ``--llm`` the
platform has an LLM: the tests' scripted OpenAI-compatible server, answering no to every
question (no cause, no contradiction), and the questions it was asked are counted. ::

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/micro/consolidation_cost.py --against /tmp/before
    .venv/bin/python benchmarks/micro/consolidation_cost.py --against /tmp/before --llm \\
        --memories 3000 --out benchmarks/results/consolidation_llm_questions.md
"""

from __future__ import annotations

import statistics
from pathlib import Path

import checkouts

OUT = Path(__file__).resolve().parents[1] / "results" / "consolidation_cost.md"

_RUN = """
import contextlib, json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, ".")  # the tree's tests: their scripted LLM
from memory_platform import MemoryPlatform, Settings
from memory_platform.bench.workload import populate
from tests.support.openai_stub import OpenAIStub

memories, with_llm = int(sys.argv[1]), sys.argv[2] == "llm"
with contextlib.ExitStack() as stack:
    folder = stack.enter_context(tempfile.TemporaryDirectory())
    llm = {}
    if with_llm:
        stub = stack.enter_context(OpenAIStub())
        for _ in range(20 * memories):
            stub.reply(json.dumps({"causal": False, "confidence": 0, "contradicts": False}))
        llm = {"llm_base_url": stub.base_url}
    mp = MemoryPlatform(Settings(sqlite_path=Path(folder) / "m.db", _env_file=None, **llm))
    populate(mp.store, mp.embedder, memories, user_id="u", seed=0, words={})
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
    asked = [r["body"]["messages"][0]["content"] for r in stub.requests] if with_llm else []
print(json.dumps({"seconds": seconds, "reads": reads, "conflicts": report["conflicts"],
                  "conflict questions": sum("contradict" in q for q in asked),
                  "other questions": sum("contradict" not in q for q in asked)}))
"""


def main() -> None:
    parser = checkouts.comparison_parser(__doc__, OUT, store=False)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--llm", action="store_true", help="with the scripted LLM")
    args = parser.parse_args()
    trees = checkouts.trees(args.against)
    commits = checkouts.commits(trees)
    runs: dict[str, list[dict[str, float]]] = checkouts.alternate(
        trees, _RUN, str(args.memories), "llm" if args.llm else "none"
    )
    lines = [
        f"| code | consolidating {args.memories:,} memories, s (median; runs) "
        "| memories read in full | conflicts reported | LLM questions: conflict / other |",
        "|---|---|---|---|---|",
    ]
    for name, results in runs.items():
        seconds = ", ".join(f"{r['seconds']:.1f}" for r in results)
        middle = statistics.median(r["seconds"] for r in results)
        first = results[0]
        lines.append(
            f"| {name} | {middle:.1f} ({seconds}) | {first['reads']:,.0f} "
            f"| {first['conflicts']:.0f} "
            f"| {first['conflict questions']:,.0f} / {first['other questions']:,.0f} |"
        )
    llm = "the scripted LLM answering no" if args.llm else "no LLM configured"
    checkouts.write_report(
        args.out,
        __doc__,
        f"the code before at {commits['before']}, now at {commits['now']} and its working "
        f"tree; {llm}.",
        lines,
    )


if __name__ == "__main__":
    main()
