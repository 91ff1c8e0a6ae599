"""Fit the relevance model on the dev sets and choose the relevance floor.

``python -m memory_platform.bench.calibrate --out benchmarks/results/relevance_calibration``
(``--db eval.db`` measures a store of ``memory-platform eval --workdir`` instead of
ingesting both dev sets again, about 8 minutes of embedding)

For every dev question, the candidates the retriever would consider (vector and lexical
seeds of the asking user, and of another user whose memory holds nothing relevant) are
described by the features of :mod:`memory_platform.retrieval.relevance` and labelled by
the gold evidence. A logistic regression gives the coefficients, once with the
configured embedder's cosine as a feature (its own model) and once without (with e5
alone configured, that fit is the default for every other embedder, as they are single
models too); then, for the embedder's own model and a grid of
floors, recall@10 and the off-topic direct results per question are reported, with the
lowest floor that keeps off-topic at most ``--max-off-topic`` direct results per question
on every set (0.5 by default: half the target of at most 1 on unseen data, the rest is
margin) and the configured floor beside it. The default floor is at least that lowest
one; it may stand higher for what these sets do not measure (the README's Searching
section says why it does). Only dev data is read.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..config import RetrievalSettings, load_settings
from ..embeddings import embed_queries, query_text
from ..models import VectorKind
from ..platform import MemoryPlatform
from ..retrieval import HybridRetriever, SearchResult
from ..retrieval.relevance import (
    BACKGROUND,
    Background,
    RelevanceModel,
    matched_words,
    query_language,
)
from ..retrieval.retriever import turns_beside
from ..retrieval.scoring import graph_proximity, weighted_score
from ..store.base import episode_document
from ..textutil import lexical_tokens, word_tokens
from .locomo import load_locomo
from .madial import load_madial
from .retrieval_eval import EvalSet

__all__ = ["Row", "collect", "fit_logistic", "store_sets"]


@dataclass
class Row:
    """One candidate of one question: its features and whether it is gold evidence."""

    lift: float
    matched: int
    cosine: float
    on_topic: bool
    label: bool
    tokens: int = 0
    """Matched lexical-index tokens (a Chinese word's bigrams and characters included),
    the evidence before words replaced it: for comparing the two
    (``benchmarks/micro/zh_off_topic.py``)."""


def store_sets(mp: MemoryPlatform, sets: Sequence[EvalSet]) -> None:
    """Store every set's episodes, each user as the set names them, and wait until all
    are embedded: the store the calibration and the dev-set scripts measure."""
    for data in sets:
        for user, items in data.episodes.items():
            mp.add_episodes(user, items)
    mp.wait_for_indexing(timeout=3600)


def collect(mp: MemoryPlatform, data: EvalSet, other_user: str, k: int = 50) -> list[Row]:
    """The candidates of every question, from its own user and from ``other_user``: each
    channel's first ``k``, 50 as the shipped models were fitted (the search's pool was 50
    then; it is 100 since 2026-11-29, which adds weaker candidates of the same kinds: a
    fit on 100 searches the dev sets as the shipped one does, ``relevance_pool.md``)."""
    backgrounds = {lang: mp.embedder.embed(list(texts)) for lang, texts in BACKGROUND.items()}
    vectors = embed_queries(mp.embedder, [query_text(q.question) for q in data.questions])
    rows: list[Row] = []
    for q, vector in zip(data.questions, vectors, strict=True):
        bg = Background.of(vector, backgrounds[query_language(q.question)])
        words = word_tokens(q.question)
        tokens = set(lexical_tokens(q.question))
        for user, on_topic in ((q.user_id, True), (other_user, False)):
            dense = mp.store.vector_search(user, VectorKind.EPISODE, vector, k)
            lexical = mp.store.lexical_search(user, q.question, [VectorKind.EPISODE], k)
            ids = list(dict.fromkeys([h.ref_id for h in dense] + [h.ref_id for h in lexical]))
            stored = mp.store.get_vectors(user, VectorKind.EPISODE, ids)
            for e in mp.store.get_episodes(user, ids):
                if e.id in stored:
                    cosine = float(stored[e.id] @ vector)
                    document = episode_document(e)
                    rows.append(
                        Row(
                            bg.lift(cosine),
                            matched_words(words, document),
                            cosine,
                            on_topic,
                            on_topic and e.metadata.get("gold_id") in q.gold,
                            len(tokens & set(lexical_tokens(document))),
                        )
                    )
    return rows


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Newton's method for logistic regression; returns [bias, weights...]."""
    design = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(design.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(design @ w)))
        grad = design.T @ (p - y) + l2 * w
        hess = (design * (p * (1 - p))[:, None]).T @ design + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def _curve(
    mp: MemoryPlatform,
    model: RelevanceModel,
    sets: Sequence[tuple[EvalSet, dict[str, str]]],
    floors: Sequence[float],
) -> dict[str, list[dict[str, float]]]:
    """Recall@10 and off-topic direct results per question at each floor, as searched.

    Each question is searched once without a floor (the retriever with ``model``); a
    floor keeps the direct results at or above it and the turns beside them
    (:func:`_with_turns_beside`), so every floor is measured as a search at it shows.
    """
    settings = mp.settings.retrieval.model_copy(update={"relevance_floor": 0.0})
    retriever = HybridRetriever(mp.store, mp.embedder, settings, relevance=model)
    out: dict[str, list[dict[str, float]]] = {}
    try:
        for data, other_of in sets:
            recall: dict[float, list[float]] = {f: [] for f in floors}
            off: dict[float, list[int]] = {f: [] for f in floors}
            for q in data.questions:
                mine = retriever.search(
                    q.user_id, q.question, max_results=30, mode="fast", record_access=False
                )
                theirs = retriever.search(
                    other_of[q.user_id], q.question, max_results=30, mode="fast",
                    record_access=False,
                )  # fmt: skip
                next_of = mp.store.next_episode_ids(
                    q.user_id, [r.id for r in mine if r.kind == "episode"]
                )
                for floor in floors:
                    kept = _with_turns_beside(mine, floor, next_of, settings)
                    if q.category in data.scored_categories:
                        found = {r.metadata.get("gold_id") for r in kept}
                        recall[floor].append(len(found & q.gold) / len(q.gold))
                    off[floor].append(min(10, sum(1 for r in theirs if r.relevance >= floor)))
            out[data.name] = [
                {
                    "floor": f,
                    "recall@10": round(float(np.mean(recall[f])), 4),
                    "off_topic_direct": round(float(np.mean(off[f])), 3),
                }
                for f in floors
            ]
    finally:
        retriever.close()
    return out


def _with_turns_beside(
    found: list[SearchResult], floor: float, next_of: Mapping[str, str], settings: RetrievalSettings
) -> list[SearchResult]:
    """The first ten a search at ``floor`` shows, from the same search without a floor:
    the matches, and the turns beside them ranked one hop away (``turns_beside``)."""
    matches = [r for r in found if r.relevance >= floor]
    near = turns_beside([r.id for r in matches], next_of)
    ranked = [(r.score, r) for r in matches] + [
        (weighted_score(r.components.model_copy(update={"graph": graph_proximity(1)}), settings), r)
        for r in found
        if r.id in near
    ]
    ranked.sort(key=lambda pair: -pair[0])
    return [r for _, r in ranked[:10]]


def markdown(report: dict[str, Any]) -> str:
    """The coefficients and the trade-off curves."""
    c, a = report["coefficients"], report["agnostic"]
    lines = [
        "Relevance models fitted on the dev sets (logistic regression, "
        f"{report['rows']} labelled candidates). For {report['embedder']}, whose cosines "
        "they were fitted on:",
        "",
        f"P(real match) = σ({c['bias']:.3f} + {c['lift']:.3f}·lift + "
        f"{c['matched']:.3f}·ln(1 + matched words) + {c['cosine']:.3f}·cosine)",
        "",
        "The same rows without the cosine term (the model for any other embedder ships "
        "as this fit made with e5 alone, one model like the embedders it serves: "
        "`benchmarks/results/e5/`):",
        "",
        f"P(real match) = σ({a['bias']:.3f} + {a['lift']:.3f}·lift + "
        f"{a['matched']:.3f}·ln(1 + matched words))",
        "",
        f"The curve below is {report['embedder']}'s model, as searched:",
        "",
        "| floor | "
        + " | ".join(f"{n} recall@10 | {n} off-topic direct/q" for n in report["curves"])
        + " |",
        "|---|" + "---|---|" * len(report["curves"]),
    ]
    curves = list(report["curves"].values())
    for i, point in enumerate(curves[0]):
        cells = []
        for curve in curves:
            cells += [f"{curve[i]['recall@10']:.3f}", f"{curve[i]['off_topic_direct']:.2f}"]
        lines.append(f"| {point['floor']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"The rule ({report['rule']}) admits floors from {report['lowest_floor']}; the "
        f"shipped default is {report['shipped_floor']}"
        + (
            "."
            if report["shipped_floor"] == report["lowest_floor"]
            else " (the README, under Searching, says why)."
        ),
    ]
    return "\n".join(lines)


FLOORS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=Path("../shared/data/locomo_dev.json"))
    parser.add_argument("--madial", type=Path, default=Path("../shared/data/madial_zh_dev.json"))
    parser.add_argument("--out", type=Path, default=None, help="report path (.json, .md beside)")
    parser.add_argument(
        "--max-off-topic",
        type=float,
        default=0.5,
        help="off-topic direct results per question allowed on dev (half the target of 1 "
        "on unseen data; the rest is margin)",
    )
    parser.add_argument(
        "--db", type=Path, default=None, help="reuse a store holding both dev sets (eval --workdir)"
    )
    args = parser.parse_args(argv)
    locomo, madial = load_locomo(args.locomo), load_madial(args.madial)
    en_users = list(locomo.episodes)
    next_user = {u: en_users[(i + 1) % len(en_users)] for i, u in enumerate(en_users)}
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "calibrate.db"
        with MemoryPlatform(load_settings(backend="sqlite", sqlite_path=path)) as mp:
            shipped = mp.settings.retrieval.relevance_floor
            if args.db is None:
                store_sets(mp, (locomo, madial))
            rows: list[Row] = []
            for user in en_users:
                part = EvalSet(
                    locomo.name, locomo.episodes, [q for q in locomo.questions if q.user_id == user]
                )
                rows += collect(mp, part, next_user[user])
            rows += collect(mp, madial, en_users[0])
            # a real match (gold evidence) against the best of an unrelated memory; the
            # asking user's other candidates are neither, and stay out of the fit
            fit = [r for r in rows if r.label or not r.on_topic]
            x = np.array([[r.lift, np.log1p(r.matched), r.cosine] for r in fit])
            y = np.array([float(r.label) for r in fit])
            w = [round(float(v), 3) for v in fit_logistic(x, y)]
            model = RelevanceModel(*w)
            agnostic = RelevanceModel(
                *(round(float(v), 3) for v in fit_logistic(x[:, :2], y))
            )  # no cosine term: for embedders whose cosine scale this fit never saw
            embedder = mp.embedder.model_name
            curves = _curve(
                mp,
                model,
                [(locomo, next_user), (madial, {u: en_users[0] for u in madial.episodes})],
                FLOORS,
            )
    worst = [
        max(curve[i]["off_topic_direct"] for curve in curves.values()) for i in range(len(FLOORS))
    ]
    lowest = next(
        (f for f, o in zip(FLOORS, worst, strict=True) if o <= args.max_off_topic), FLOORS[-1]
    )
    report: dict[str, Any] = {
        "rows": len(fit),
        "embedder": embedder,
        "coefficients": {
            "bias": model.bias,
            "lift": model.lift,
            "matched": model.matched,
            "cosine": model.cosine,
        },
        "agnostic": {"bias": agnostic.bias, "lift": agnostic.lift, "matched": agnostic.matched},
        "curves": curves,
        "lowest_floor": lowest,
        "shipped_floor": shipped,
        "max_off_topic": args.max_off_topic,
        "rule": f"at most {args.max_off_topic} off-topic direct results per question on every set",
    }
    table = markdown(report)
    print(table)
    if args.out is not None:
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
        args.out.with_suffix(".md").write_text(table + "\n")


if __name__ == "__main__":
    main()
