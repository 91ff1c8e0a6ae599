"""Whether the relevance model should be fitted on the candidates of the search's pool.

The shipped relevance model was fitted on each channel's first 50 candidates, the pool a
search fused then (``memory_platform.bench.calibrate``); since 2026-11-29 a search fuses
each channel's first 100. Here the model is fitted again on the same store, exactly as
the calibration fits it, once on pools of 50 and once on pools of 100, and the shipped
model and both fits search the dev questions at a few floors: recall@10 (categories 1-4
on LoCoMo) and the direct results each question gets from an unrelated memory
(off-topic: LoCoMo the next conversation, MADial the first LoCoMo user), as the
calibration's curve measures them; then the fit on 100 against the shipped model per
question at the shipped floor, with its 95% bootstrap interval. Only dev data is read. ::

    .venv/bin/python benchmarks/micro/relevance_pool.py --db eval.db  # a store of `eval --workdir`
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import checkouts
from relevance_loco import fitted

from memory_platform import MemoryPlatform
from memory_platform.bench import calibrate
from memory_platform.bench.metrics import bootstrap_interval
from memory_platform.bench.retrieval_eval import EvalSet
from memory_platform.config import Settings
from memory_platform.retrieval import HybridRetriever
from memory_platform.retrieval.relevance import RelevanceModel, relevance_model_for

OUT = Path(__file__).resolve().parents[1] / "results" / "relevance_pool.md"
POOLS = (50, 100)
FLOORS = (0.02, 0.05, 0.1)


def fit_on_pool(mp: MemoryPlatform, sets: Sequence[EvalSet], pool: int) -> RelevanceModel:
    """The calibration's fit on each channel's first ``pool`` candidates."""
    locomo, madial = sets
    users = list(locomo.episodes)
    rows: list[calibrate.Row] = []
    for i, user in enumerate(users):
        part = EvalSet(
            locomo.name, locomo.episodes, [q for q in locomo.questions if q.user_id == user]
        )
        rows += calibrate.collect(mp, part, users[(i + 1) % len(users)], k=pool)
    rows += calibrate.collect(mp, madial, users[0], k=pool)
    return fitted(rows)


def measured(
    mp: MemoryPlatform, model: RelevanceModel, sets: Sequence[EvalSet]
) -> dict[str, tuple[dict[float, list[float]], dict[float, float]]]:
    """Per set: each floor's recall@10 of every scored question, and its mean off-topic
    direct results per question (searched once without a floor, as the calibration does)."""
    settings = mp.settings.retrieval.model_copy(update={"relevance_floor": 0.0})
    retriever = HybridRetriever(mp.store, mp.embedder, settings, relevance=model)
    users = list(sets[0].episodes)
    out = {}
    try:
        for data in sets:
            recall: dict[float, list[float]] = {f: [] for f in FLOORS}
            off: dict[float, list[int]] = {f: [] for f in FLOORS}
            for q in data.questions:
                other = users[0]  # MADial's questions asked of an English memory
                if data is sets[0]:  # LoCoMo's of the next conversation's
                    other = users[(users.index(q.user_id) + 1) % len(users)]
                mine, theirs = (
                    retriever.search(user, q.question, max_results=30, mode="fast", record_access=False)
                    for user in (q.user_id, other)
                )  # fmt: skip
                for floor in FLOORS:
                    if q.category in data.scored_categories:
                        kept = [r for r in mine if r.relevance >= floor][:10]
                        found = {r.metadata.get("gold_id") for r in kept}
                        recall[floor].append(len(found & q.gold) / len(q.gold))
                    off[floor].append(min(10, sum(1 for r in theirs if r.relevance >= floor)))
            out[data.name] = (recall, {f: sum(v) / len(v) for f, v in off.items()})
    finally:
        retriever.close()
    return out


def main() -> None:
    args = checkouts.eval_store_parser(__doc__, OUT).parse_args()
    sets = checkouts.dev_sets()
    with MemoryPlatform(Settings(backend="sqlite", sqlite_path=args.db, _env_file=None)) as mp:
        shipped_floor = mp.settings.retrieval.relevance_floor
        models = {"shipped": relevance_model_for(mp.embedder.model_name)}
        for pool in POOLS:
            models[f"fitted on pools of {pool}"] = fit_on_pool(mp, sets, pool)
            print(pool, models[f"fitted on pools of {pool}"])
        results = {name: measured(mp, model, sets) for name, model in models.items()}
    lines = ["| model | bias | lift | ln(1 + matched words) | cosine |", "|---|---|---|---|---|"]
    for name, m in models.items():
        lines.append(f"| {name} | {m.bias} | {m.lift} | {m.matched} | {m.cosine} |")
    lines += ["", "| model | floor | " + " | ".join(
        f"{d.name} recall@10 | {d.name} off-topic direct/q" for d in sets
    ) + " |", "|---|---|" + "---|---|" * len(sets)]  # fmt: skip
    for name in models:
        for floor in FLOORS:
            cells = []
            for data in sets:
                recall, off = results[name][data.name]
                cells.append(f"{sum(recall[floor]) / len(recall[floor]):.4f} | {off[floor]:.3f}")
            lines.append(f"| {name} | {floor} | " + " | ".join(cells) + " |")
    refit = f"fitted on pools of {POOLS[-1]}"
    lines += [
        "",
        f"The fit on pools of {POOLS[-1]} against the shipped model at the shipped floor"
        f" ({shipped_floor}), per question (recall@10):",
        "",
        "| set | difference (95% interval) | questions better / worse |",
        "|---|---|---|",
    ]
    for data in sets:
        before = results["shipped"][data.name][0][shipped_floor]
        after = results[refit][data.name][0][shipped_floor]
        diffs = [b - a for a, b in zip(before, after, strict=True)]
        low, high = bootstrap_interval(diffs)
        lines.append(
            f"| {data.name} | {sum(diffs) / len(diffs):+.4f} ({low:+.4f} to {high:+.4f})"
            f" | {sum(d > 0 for d in diffs)} / {sum(d < 0 for d in diffs)} |"
        )
    checkouts.write_report(args.out, __doc__, f"pools {', '.join(map(str, POOLS))}.", lines)


if __name__ == "__main__":
    main()
