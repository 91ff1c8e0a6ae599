"""How deep each channel's pool of candidates is: recall on the dev sets against the time
a search takes at 100,000 memories.

A search fuses the ``vector_candidates`` best of each kind of vector and of the lexical
index (``retrieval.vector_candidates``). An item past a channel's pool gets no say from
that channel however well the other ranks it, so a pool that is a small share of a long
memory cuts evidence the fusion would have used. (Topic and object nodes, each a door to
up to 20 memories, keep at most 50 whatever the pool: ``retriever._NODE_POOL``.) Each
pool is measured here in one process on the same store:

- recall@10 of the dev questions as the evaluation asks them (``mp.search`` with its
  defaults), per LoCoMo conversation and for MADial, each pool's difference from the
  first with its 95% bootstrap interval over questions and the questions it finds more
  or less of; and off-topic, the direct results of each question asked of another user
  (LoCoMo the next conversation, MADial the first LoCoMo user), as the evaluation does;
- with ``--bench-db``, search time at depth 0 and 2 for the benchmark's big user and a
  tenant of it, the pools taking turns round by round.

Only dev data is read. ::

    .venv/bin/python benchmarks/micro/candidate_pool.py --eval-db eval.db \\
        --bench-db bench-100k.db        # stores of `eval --workdir` and `bench --workdir`
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import checkouts

from memory_platform import MemoryPlatform
from memory_platform.bench.metrics import bootstrap_interval, latency_summary
from memory_platform.bench.retrieval_eval import EvalSet
from memory_platform.bench.workload import QUERIES
from memory_platform.config import Settings

OUT = Path(__file__).resolve().parents[1] / "results" / "candidate_pool.md"
POOLS = (50, 100, 150, 200)
LATENCY_ROUNDS = 6


def _open(path: Path) -> MemoryPlatform:
    return MemoryPlatform(Settings(backend="sqlite", sqlite_path=path, _env_file=None))


def _recalls(mp: MemoryPlatform, data: EvalSet) -> list[tuple[str, float]]:
    """(user, recall@10) of each scored question, as the evaluation searches it."""
    out = []
    for q in data.questions:
        if q.category in data.scored_categories:
            found = mp.search(q.user_id, q.question, record_access=False)
            top = {r.metadata.get("gold_id") for r in found[:10]}
            out.append((q.user_id, len(top & set(q.gold)) / len(q.gold)))
    return out


def _off_topic(mp: MemoryPlatform, data: EvalSet, stranger: str | None) -> float:
    users = list(data.episodes)
    counts = []
    for q in data.questions:
        other = stranger or users[(users.index(q.user_id) + 1) % len(users)]
        found = mp.search(other, q.question, record_access=False)
        counts.append(sum(1 for r in found if r.layer == "direct"))
    return sum(counts) / len(counts)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def recall_lines(db: Path, pools: Sequence[int]) -> list[str]:
    sets = checkouts.dev_sets()
    per: dict[int, dict[str, list[tuple[str, float]]]] = {}
    off: dict[int, dict[str, float]] = {}
    with _open(db) as mp:
        stranger = next(iter(sets[0].episodes))
        for pool in pools:
            mp.settings.retrieval.vector_candidates = pool
            per[pool] = {data.name: _recalls(mp, data) for data in sets}
            off[pool] = {
                data.name: _off_topic(mp, data, None if data is sets[0] else stranger)
                for data in sets
            }
            print(pool, {n: round(_mean([r for _, r in v]), 4) for n, v in per[pool].items()})
    users = list(sets[0].episodes)
    lines = [
        "| pool | LoCoMo recall@10 | " + " | ".join(u.removeprefix("locomo-") for u in users)
        + " | LoCoMo off-topic | MADial recall@10 | MADial off-topic |",
        "|---|---|" + "---|" * len(users) + "---|---|---|",
    ]  # fmt: skip
    for pool in pools:
        loco, madial = per[pool]["locomo_dev"], per[pool]["madial_zh_dev"]
        by_user = [_mean([r for u, r in loco if u == user]) for user in users]
        lines.append(
            f"| {pool} | {_mean([r for _, r in loco]):.3f} | "
            + " | ".join(f"{v:.3f}" for v in by_user)
            + f" | {off[pool]['locomo_dev']:.2f} | {_mean([r for _, r in madial]):.3f}"
            f" | {off[pool]['madial_zh_dev']:.2f} |"
        )
    lines += ["", f"Each pool against {pools[0]}, per question (recall@10):", ""]
    lines += ["| pool | set | difference (95% interval) | questions better / worse |"]
    lines += ["|---|---|---|---|"]
    for pool in pools[1:]:
        for name in ("locomo_dev", "madial_zh_dev"):
            diffs = [
                b - a for (_, a), (_, b) in zip(per[pools[0]][name], per[pool][name], strict=True)
            ]
            low, high = bootstrap_interval(diffs)
            better, worse = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
            lines.append(
                f"| {pool} | {name} | {_mean(diffs):+.4f} ({low:+.4f} to {high:+.4f})"
                f" | {better} / {worse} |"
            )
    return lines


def latency_lines(db: Path, pools: Sequence[int], tenant: str) -> list[str]:
    users = ("bench-user", tenant)
    samples: dict[tuple[int, str, int], list[float]] = {}
    with _open(db) as mp:
        for user in users:  # the caches loaded before any search is timed
            mp.search(user, "warm up", expand_depth=2, mode="deep", record_access=False)
        for round_ in range(LATENCY_ROUNDS):
            for pool in pools if round_ % 2 == 0 else pools[::-1]:
                mp.settings.retrieval.vector_candidates = pool
                for user in users:
                    for depth in (0, 2):
                        for query in QUERIES:
                            mp.clear_query_cache()  # every search embeds its query
                            started = time.perf_counter()
                            mp.search(
                                user, query, expand_depth=depth,
                                mode="deep" if depth else "fast", record_access=False,
                            )  # fmt: skip
                            elapsed = (time.perf_counter() - started) * 1000
                            samples.setdefault((pool, user, depth), []).append(elapsed)
    lines = [
        f"Search time on `{db.name}`, the pools taking turns ({LATENCY_ROUNDS} rounds of the"
        f" benchmark's {len(QUERIES)} queries each), ms:",
        "",
        "| pool | user | depth 0 p50 / p95 | depth 2 p50 / p95 |",
        "|---|---|---|---|",
    ]
    for pool in pools:
        for user in users:
            cells = []
            for depth in (0, 2):
                s = latency_summary(samples[(pool, user, depth)])
                cells.append(f"{s['median_ms']:.1f} / {s['p95_ms']:.1f}")
            lines.append(f"| {pool} | {user} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-db", type=Path, required=True, help="a store of `eval --workdir`")
    parser.add_argument("--bench-db", type=Path, help="a store of `bench --scale 100k`")
    parser.add_argument("--tenant", default="tenant-00500", help="a small user of --bench-db")
    parser.add_argument("--pools", type=int, nargs="+", default=list(POOLS))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    lines = [
        "Recall@10 of the dev questions on the store `memory-platform eval` left (its pass"
        " of use recorded):",
        "",
        *recall_lines(args.eval_db, args.pools),
    ]
    if args.bench_db is not None:
        lines += ["", *latency_lines(args.bench_db, args.pools[:2], args.tenant)]
    checkouts.write_report(
        args.out, __doc__, "pools " + ", ".join(map(str, args.pools)) + ".", lines
    )


if __name__ == "__main__":
    main()
