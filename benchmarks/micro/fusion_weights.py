"""How the episode weights of the fusion were chosen: leave one conversation out.

An episode's strength is its own two-channel match plus ``_CONTEXT`` times its best
adjacent turn's and ``_MENTION`` when the question names its speaker
(``memory_platform/retrieval/retriever.py``). Both are chosen on LoCoMo dev, but a figure
measured on the conversations a weight was chosen on flatters it. So each conversation is
measured with the pair that is best on the other four, and the mean over the five held-out
figures is the estimate to expect on conversations never seen.

Every question's candidates (both channels' seeds with their features, as the retriever
builds them) are collected once; a grid of weights then only re-sorts them, after the
relevance floor, exactly as ``HybridRetriever`` does. The script checks that the shipped
weights reproduce the retriever's own strengths before it trusts the grid.

    .venv/bin/python benchmarks/micro/fusion_weights.py               # about 6 minutes
    .venv/bin/python benchmarks/micro/fusion_weights.py --db eval.db  # a store of `eval --workdir`
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from memory_platform import MemoryPlatform
from memory_platform.bench.calibrate import store_sets
from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.config import RetrievalSettings, load_settings
from memory_platform.embeddings import clip_query
from memory_platform.models import VectorKind
from memory_platform.retrieval import retriever
from memory_platform.retrieval.relevance import (
    Background,
    RelevanceModel,
    query_language,
    relevance_model_for,
)
from memory_platform.retrieval.scoring import distance_factor, graph_proximity
from memory_platform.textutil import plain_transcript, word_tokens
from memory_platform.timeparse import without_dates

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
OUT = Path(__file__).resolve().parents[1] / "results" / "fusion_weights.md"
_ONE_HOP = distance_factor(graph_proximity(1), RetrievalSettings())
"""What one hop from a match scales a score by (``scoring.weighted_score``)."""
CONTEXTS = (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6)
MENTIONS = (0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


@dataclass
class Candidate:
    gold_id: str
    id: str
    next_id: str | None
    own: float
    context: float
    mention: float
    dated: float
    strength: float
    passes: bool
    relevance: tuple[float, int, int, float, bool] = (0.0, 0, 0, 0.0, False)
    """The relevance model's evidence (lift, matched words, query words, cosine, whether
    the question names only what the memory never held), so that another model can
    decide the floor again (``relevance_loco.py``)."""

    def strength_with(self, context: float, mention: float) -> float:
        return self.own + context * self.context + mention * self.mention + self.dated

    def passes_with(self, model: RelevanceModel, floor: float) -> bool:
        relevance = model.score(*self.relevance)
        return relevance >= floor and relevance > 0


@dataclass
class Question:
    set_name: str
    user: str
    gold: frozenset[str]
    candidates: list[Candidate]

    def recall(
        self, context: float, mention: float, passing: frozenset[int] | None = None
    ) -> float:
        """Recall@10 at these weights; ``passing`` (candidate indexes) replaces the
        shipped floor's decision. A turn next to a passing one in its session is ranked
        among them one hop away, as ``retriever._context_turns`` shows it."""
        matches = [
            c
            for i, c in enumerate(self.candidates)
            if (c.passes if passing is None else i in passing)
        ]
        next_of = {c.id: c.next_id for c in self.candidates if c.next_id}
        near = retriever.turns_beside([c.id for c in matches], next_of)
        beside = [c for c in self.candidates if c.id in near]
        ranked = sorted(
            [(c.strength_with(context, mention), c) for c in matches]
            + [(c.strength_with(context, mention) * _ONE_HOP, c) for c in beside],
            key=lambda pair: -pair[0],
        )[:10]
        return len({c.gold_id for _, c in ranked} & self.gold) / len(self.gold)


def collect(mp: MemoryPlatform, user: str, query: str) -> list[Candidate]:
    """The episode candidates of one search, with the retriever's own features (its steps
    are private: this script follows ``HybridRetriever._search_store``)."""
    r = mp._retriever
    plan = r.plan(query, "auto", 1)
    kinds = {VectorKind.MEMORY, VectorKind.EPISODE}
    vector = r._recent.query(user, clip_query(plain_transcript(plan.semantic_query)))
    pool = r._pool(10)  # the evaluation's page of ten
    lexical = r._lexical(user, plan.semantic_query, kinds, True, pool)
    found = r._seed(user, plan.semantic_query, vector, lexical, kinds, True, pool)
    episodes = [c for c in found.values() if c.episode is not None]
    r._relate(user, plan.semantic_query, vector, episodes, plan.semantic_query)
    words = len(set(word_tokens(without_dates(plan.semantic_query))))
    background = Background.of(vector, r._background(query_language(plan.semantic_query)))
    before = {c.id: c.strength for c in episodes}
    r._favour_named_dates(query, episodes, datetime.now(UTC))
    floor = mp.settings.retrieval.relevance_floor
    return [
        Candidate(
            gold_id=str(c.episode.metadata.get("gold_id")),
            id=c.id,
            next_id=c.next_id,
            own=c.own,
            context=c.context,
            mention=c.mention,
            dated=c.strength - before[c.id],
            strength=c.strength,
            passes=c.relevance >= floor and c.relevance > 0,
            relevance=(
                c.lift,
                c.matched,
                words,
                c.similarity if c.has_similarity else background.mean,
                c.unknown_names,
            ),
        )
        for c in episodes
        if c.episode is not None
    ]


@dataclass
class Gathered:
    questions: list[Question]
    model: RelevanceModel
    """The shipped relevance model of the embedder that made the store."""
    floor: float


def gather(db: Path | None) -> Gathered:
    locomo = load_locomo(DATA / "locomo_dev.json")
    madial = load_madial(DATA / "madial_zh_dev.json")
    with tempfile.TemporaryDirectory() as tmp:
        path = db or Path(tmp) / "fusion.db"
        with MemoryPlatform(load_settings(backend="sqlite", sqlite_path=path)) as mp:
            if db is None:
                store_sets(mp, (locomo, madial))
            questions = []
            for data in (locomo, madial):
                for q in data.questions:
                    if q.category in data.scored_categories:
                        candidates = collect(mp, q.user_id, q.question)
                        questions.append(Question(data.name, q.user_id, q.gold, candidates))
            model = relevance_model_for(mp.embedder.model_name)
            floor = mp.settings.retrieval.relevance_floor
    return Gathered(questions, model, floor)


def check_shipped(questions: list[Question], model: RelevanceModel, floor: float) -> None:
    """The re-sorting must be the retriever's own arithmetic at the shipped weights, and
    the floor decided again with the shipped model its own decision."""
    shipped = (retriever._CONTEXT, retriever._MENTION)
    worst = max(
        abs(c.strength_with(*shipped) - c.strength) for q in questions for c in q.candidates
    )
    if worst > 1e-9:
        raise SystemExit(f"the grid's strength differs from the retriever's by {worst}")
    if any(c.passes_with(model, floor) != c.passes for q in questions for c in q.candidates):
        raise SystemExit("the floor decided again differs from the retriever's")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="reuse a store holding both dev sets")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    gathered = gather(args.db)
    questions = gathered.questions
    check_shipped(questions, gathered.model, gathered.floor)
    grid = list(itertools.product(CONTEXTS, MENTIONS))
    locomo = [q for q in questions if q.set_name == "locomo_dev"]
    madial = [q for q in questions if q.set_name != "locomo_dev"]
    users = sorted({q.user for q in locomo})
    recall = {g: {u: [q.recall(*g) for q in locomo if q.user == u] for u in users} for g in grid}

    def mean(g: tuple[float, float], chosen: list[str]) -> float:
        return float(np.mean([x for u in chosen for x in recall[g][u]]))

    shipped = (retriever._CONTEXT, retriever._MENTION)
    lines = [
        "LoCoMo dev recall@10 (categories 1-4) by episode weights, each conversation held "
        "out in turn (`benchmarks/micro/fusion_weights.py`; relevance floor "
        "as shipped).",
        "",
        "| held-out conversation | weights best on the other four (context, mention) | "
        "held-out recall@10 | at the shipped weights | at 0.15, 0.15 (before) |",
        "|---|---|---|---|---|",
    ]
    held_out = []
    for user in users:
        others = [u for u in users if u != user]
        best = max(grid, key=lambda g: mean(g, others))
        held_out.append((mean(best, [user]), len(recall[best][user])))
        lines.append(
            f"| {user} | {best[0]}, {best[1]} | {mean(best, [user]):.3f} | "
            f"{mean(shipped, [user]):.3f} | {mean((0.15, 0.15), [user]):.3f} |"
        )
    estimate = sum(m * n for m, n in held_out) / sum(n for _, n in held_out)
    lines += [
        "",
        f"Leave-one-conversation-out estimate: {estimate:.3f}; all five at the shipped "
        f"weights {shipped}: {mean(shipped, users):.3f}; at 0.15, 0.15: "
        f"{mean((0.15, 0.15), users):.3f}. MADial zh dev (no sessions, no speakers): "
        f"{np.mean([q.recall(*shipped) for q in madial]):.3f} at the shipped weights, "
        f"{np.mean([q.recall(0.15, 0.15) for q in madial]):.3f} before.",
        "",
        "All five conversations, by weights (rows: context; columns: mention):",
        "",
        "| context | " + " | ".join(str(m) for m in MENTIONS) + " |",
        "|---|" + "---|" * len(MENTIONS),
    ]
    for c in CONTEXTS:
        lines.append(
            f"| {c} | " + " | ".join(f"{mean((c, m), users):.3f}" for m in MENTIONS) + " |"
        )
    table = "\n".join(lines)
    print(table)
    args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
