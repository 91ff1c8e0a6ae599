"""What the relevance floor does on a conversation its model was not fitted on.

The relevance model behind the floor is fitted on every dev conversation
(``memory_platform.bench.calibrate``), so the dev figures at the floor are measured on
its own training data. Here each LoCoMo dev conversation is held out in turn: the model
is fitted, exactly as the calibration fits it, on the other four conversations and
MADial, and the held-out conversation's questions are searched with it at the shipped
floor, for recall@10 (categories 1-4) and for the direct results they get from the next
conversation's memory (off-topic). The weighted mean over the five is beside the shipped
model's on the same questions; MADial is measured with the model fitted on LoCoMo alone. Then both things fitted on dev are held out at once: each
conversation's floor decided by its held-out model, and its episode weights the best on
the other four under that model (``fusion_weights.py``'s candidates, re-sorted): the
estimate to expect on conversations never seen. Only dev data is read. ::

    .venv/bin/python benchmarks/micro/relevance_loco.py               # about 12 minutes
    .venv/bin/python benchmarks/micro/relevance_loco.py --db eval.db  # a store of `eval --workdir`
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from dataclasses import replace
from pathlib import Path

import fusion_weights
import numpy as np

from memory_platform import MemoryPlatform
from memory_platform.bench import calibrate
from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.bench.retrieval_eval import EvalSet
from memory_platform.config import load_settings
from memory_platform.retrieval.relevance import RelevanceModel, relevance_model_for

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
OUT = Path(__file__).resolve().parents[1] / "results" / "relevance_loco.md"


def fitted(rows: list[calibrate.Row]) -> RelevanceModel:
    """The calibration's fit: gold evidence against an unrelated memory's candidates."""
    fit = [r for r in rows if r.label or not r.on_topic]
    x = np.array([[r.lift, np.log1p(r.matched), r.cosine] for r in fit])
    y = np.array([float(r.label) for r in fit])
    return RelevanceModel(*(round(float(v), 3) for v in calibrate.fit_logistic(x, y)))


def both_held_out(
    gathered: fusion_weights.Gathered, models: dict[str, RelevanceModel]
) -> list[tuple[str, tuple[float, float], float, int]]:
    """Each conversation with its held-out relevance model deciding the floor for every
    conversation's candidates, and the episode weights best on the other four under it:
    (conversation, weights, held-out recall@10, questions)."""
    questions = [q for q in gathered.questions if q.set_name == "locomo_dev"]
    grid = list(itertools.product(fusion_weights.CONTEXTS, fusion_weights.MENTIONS))
    out = []
    for user, model in models.items():
        passing = [
            frozenset(i for i, c in enumerate(q.candidates) if c.passes_with(model, gathered.floor))
            for q in questions
        ]
        asked = list(zip(questions, passing, strict=True))
        best = max(grid, key=lambda g: _mean_recall(asked, g, user, held_out=False))
        held = _mean_recall(asked, best, user, held_out=True)
        out.append((user, best, held, sum(q.user == user for q in questions)))
    return out


def _mean_recall(
    asked: list[tuple[fusion_weights.Question, frozenset[int]]],
    weights: tuple[float, float],
    user: str,
    held_out: bool,
) -> float:
    """Recall@10 over the held-out conversation's questions, or over the others'."""
    return float(np.mean([q.recall(*weights, p) for q, p in asked if (q.user == user) == held_out]))


def madial_held_out(
    mp: MemoryPlatform,
    madial: EvalSet,
    english: list[calibrate.Row],
    other_user: str,
    floor: float,
    shipped: RelevanceModel,
) -> dict[str, dict[str, float]]:
    """MADial's dialogues are the fit's only Chinese positives. Each half of them (three
    seeded splits) is measured with the model fitted on LoCoMo (``english``) and the other
    half, and all of them with the model fitted on LoCoMo alone; off-topic questions are
    asked of ``other_user``'s English memory."""
    zh_other = {u: other_user for u in madial.episodes}

    def curve(data: EvalSet, model: RelevanceModel) -> dict[str, float]:
        return calibrate._curve(mp, model, [(data, zh_other)], (floor,))[madial.name][0]

    halves_measured = []
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(len(madial.questions))
        halves = [order[: len(order) // 2], order[len(order) // 2 :]]
        for mine, other in (halves, halves[::-1]):
            fit_on = replace(madial, questions=[madial.questions[i] for i in other])
            asked = replace(madial, questions=[madial.questions[i] for i in mine])
            model = fitted(english + calibrate.collect(mp, fit_on, other_user))
            halves_measured.append((len(mine), curve(asked, model), curve(asked, shipped)))
    total = sum(n for n, *_ in halves_measured)
    return {
        "held out": curve(madial, fitted(english)),
        "shipped": curve(madial, shipped),
        "halves": {
            name: sum(n * c[i]["recall@10"] for n, *c in halves_measured) / total
            for i, name in enumerate(("held out", "shipped"))
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="reuse a store holding both dev sets")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    locomo = load_locomo(DATA / "locomo_dev.json")
    madial = load_madial(DATA / "madial_zh_dev.json")
    users = list(locomo.episodes)
    next_user = {u: users[(i + 1) % len(users)] for i, u in enumerate(users)}
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "loco.db"
        with MemoryPlatform(load_settings(backend="sqlite", sqlite_path=path)) as mp:
            if args.db is None:
                calibrate.store_sets(mp, (locomo, madial))
            floor = mp.settings.retrieval.relevance_floor
            shipped = relevance_model_for(mp.embedder.model_name)

            def only(user: str) -> EvalSet:
                asked = [q for q in locomo.questions if q.user_id == user]
                return replace(locomo, questions=asked)

            rows = {u: calibrate.collect(mp, only(u), next_user[u]) for u in users}
            rows["madial"] = calibrate.collect(mp, madial, users[0])
            results = []
            for user in users:
                model = fitted([r for u, part in rows.items() if u != user for r in part])
                measured = {}
                for name, m in (("held out", model), ("shipped", shipped)):
                    curve = calibrate._curve(mp, m, [(only(user), next_user)], (floor,))
                    measured[name] = curve[locomo.name][0]
                asked = only(user).questions
                scored = sum(1 for q in asked if q.category in locomo.scored_categories)
                results.append((user, model, (scored, len(asked)), measured))
            english = [r for u, part in rows.items() if u != "madial" for r in part]
            zh_model = fitted(english)
            zh = madial_held_out(mp, madial, english, users[0], floor, shipped)
        gathered = fusion_weights.gather(path)
        fusion_weights.check_shipped(gathered.questions, gathered.model, gathered.floor)
        joint = both_held_out(gathered, {u: m for u, m, _, _ in results})
    lines = [
        "LoCoMo dev, each conversation measured with the relevance model fitted without it "
        f"(`benchmarks/micro/relevance_loco.py`; floor {floor}, the shipped fusion weights). "
        "Recall@10 over categories 1-4 / off-topic direct results per question asked of the "
        "next conversation's memory:",
        "",
        "| held-out conversation | model fitted on the others (bias, lift, matched, cosine) "
        "| held-out model | shipped model |",
        "|---|---|---|---|",
    ]
    for user, model, _, measured in results:
        cells = [
            f"{measured[n]['recall@10']:.3f} / {measured[n]['off_topic_direct']:.2f}"
            for n in ("held out", "shipped")
        ]
        lines.append(
            f"| {user} | {model.bias}, {model.lift}, {model.matched}, {model.cosine} | "
            + " | ".join(cells)
            + " |"
        )
    scored_total = sum(n[0] for _, _, n, _ in results)
    asked_total = sum(n[1] for _, _, n, _ in results)
    estimate = {
        name: (
            sum(m[name]["recall@10"] * n[0] for _, _, n, m in results) / scored_total,
            sum(m[name]["off_topic_direct"] * n[1] for _, _, n, m in results) / asked_total,
        )
        for name in ("held out", "shipped")
    }
    lines += [
        "",
        f"Leave-one-conversation-out estimate: recall@10 {estimate['held out'][0]:.3f}, "
        f"off-topic {estimate['held out'][1]:.2f} direct results per question; the shipped "
        f"model on the same questions: {estimate['shipped'][0]:.3f}, "
        f"{estimate['shipped'][1]:.2f}.",
        "",
        "With the episode weights of the fusion held out too (each conversation measured "
        "with its held-out model and the weights best on the other four, as "
        "`fusion_weights.py` chooses them): "
        + ", ".join(f"{user} {recall:.3f} at {weights}" for user, weights, recall, _ in joint)
        + f"; recall@10 {sum(r * n for _, _, r, n in joint) / sum(n for *_, n in joint):.3f}.",
    ]
    lines += [
        "",
        "MADial-Bench zh dev with the model fitted on LoCoMo alone "
        f"({zh_model.bias}, {zh_model.lift}, {zh_model.matched}, {zh_model.cosine}), "
        "so that no Chinese question it is measured on was fitted: recall@10 "
        f"{zh['held out']['recall@10']:.3f}, off-topic {zh['held out']['off_topic_direct']:.2f} "
        "direct results per question asked of an English memory; the shipped model: "
        f"{zh['shipped']['recall@10']:.3f}, {zh['shipped']['off_topic_direct']:.2f}. "
        "Each half of its dialogues (three seeded splits) measured with the model fitted on "
        "LoCoMo and the other half: recall@10 "
        f"{zh['halves']['held out']:.3f}; the shipped model on the same halves: "
        f"{zh['halves']['shipped']:.3f}.",
    ]
    table = "\n".join(lines)
    print(table)
    args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
