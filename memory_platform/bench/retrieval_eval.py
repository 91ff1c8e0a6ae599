"""Retrieval quality as a user gets it: ingest through the public API, search with defaults.

One runner serves every data set (LoCoMo in English, MADial-Bench in Chinese). Each set
is ingested with ``mp.add_episodes`` exactly as the documentation says (the text as said,
the speaker in ``speaker``), and each question is searched with ``mp.search`` and its
defaults. In the same run, on the same store:

- ``bm25 (words)``: the platform's lexical index alone;
- ``bm25 (bigrams)``: BM25 (k1 1.2, b 0.75) over character bigrams, computed here;
- ``dense``: the episode vectors alone (query role for asymmetric models);
- ``platform``: ``mp.search(user, question)`` with access recording off;
- ``off-topic``: every question asked of another user's memory; the figure is the number
  of direct results per question (nothing relevant exists there, so 0 is right). MADial's
  questions are asked of a LoCoMo user when both sets run; a MADial file holding both of
  the benchmark's users also gets the figure asked of its other user, in the same
  language (``off_topic_same_set``);
- ``after use``: every question asked once with access recording on (the default), then
  the platform figures measured again on the same questions;
- ``intervals``: 95% bootstrap intervals over questions for the platform's recall@10 and
  the off-topic figure, and for the per-question differences between the platform and
  each baseline and between after use and before.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import load_settings
from ..embeddings import embed_queries
from ..models import VectorKind
from ..platform import MemoryPlatform
from .metrics import bootstrap_interval, machine_description, ranking_metrics

__all__ = ["EvalQuestion", "EvalSet", "bigram_bm25", "evaluate_set", "markdown", "run_eval"]

Ranker = Callable[["EvalQuestion"], list[str]]


@dataclass(frozen=True)
class EvalQuestion:
    """One question of one user with the gold ids of its evidence."""

    user_id: str
    question: str
    category: int
    gold: frozenset[str]


@dataclass
class EvalSet:
    """Episodes per user (``add_episodes`` dicts whose metadata holds ``gold_id``)."""

    name: str
    episodes: dict[str, list[dict[str, Any]]]
    questions: list[EvalQuestion]
    categories: dict[str, str] = field(default_factory=dict)
    scored_categories: tuple[int, ...] = (0,)
    scored_label: str = "all"


def _bigrams(text: str) -> list[str]:
    chars = [c for c in text.lower() if not c.isspace()]
    return [a + b for a, b in itertools.pairwise(chars)]


def bigram_bm25(
    documents: dict[str, str], k1: float = 1.2, b: float = 0.75
) -> Callable[[str, int], list[str]]:
    """A BM25 ranker over character bigrams (the MADial baseline); returns ids best first."""
    bags = {ref: Counter(_bigrams(text)) for ref, text in documents.items()}
    lengths = {ref: sum(bag.values()) for ref, bag in bags.items()}
    average = sum(lengths.values()) / max(len(lengths), 1)
    df: Counter[str] = Counter()
    for bag in bags.values():
        df.update(bag.keys())
    n = len(bags)

    def rank(query: str, k: int) -> list[str]:
        terms = set(_bigrams(query))
        scores: dict[str, float] = {}
        for ref, bag in bags.items():
            total = 0.0
            for term in terms & bag.keys():
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                tf = bag[term]
                total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[ref] / average))
            if total > 0:
                scores[ref] = total
        return sorted(scores, key=lambda ref: (-scores[ref], ref))[:k]

    return rank


def _summarise(
    rank: Ranker, questions: Sequence[EvalQuestion], scored: tuple[int, ...]
) -> tuple[dict[str, Any], list[float]]:
    """Mean metrics per category and over the scored ones (with the 95% bootstrap interval
    of recall@10), and each scored question's recall@10 in question order."""
    per_cat: dict[str, list[dict[str, float]]] = defaultdict(list)
    recalls: list[float] = []
    for q in questions:
        scores = ranking_metrics(rank(q), set(q.gold))
        per_cat[str(q.category)].append(scores)
        if q.category in scored:
            per_cat["all"].append(scores)
            recalls.append(scores["recall@10"])
    summary: dict[str, Any] = {
        cat: {"n": len(rows), **{k: round(sum(r[k] for r in rows) / len(rows), 4) for k in rows[0]}}
        for cat, rows in sorted(per_cat.items())
    }
    if recalls:
        summary["all"]["recall@10 95% CI"] = _rounded(bootstrap_interval(recalls))
    return summary, recalls


def _rounded(interval: tuple[float, float]) -> list[float]:
    return [round(interval[0], 4), round(interval[1], 4)]


AFTER_USE = "platform, after one pass of use"


def _differences(recalls: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
    """The platform's recall@10 against each baseline, and after use against before, as
    the mean of per-question differences with its 95% bootstrap interval: whether a
    margin is more than the luck of which questions were asked."""
    platform = recalls.get("platform")
    if platform is None:
        return {}
    pairs = [
        (f"platform - {name}", platform, values)
        for name, values in recalls.items()
        if name not in ("platform", AFTER_USE)
    ]
    if AFTER_USE in recalls:
        pairs.append(("after one pass of use - platform", recalls[AFTER_USE], platform))
    out: dict[str, dict[str, Any]] = {}
    for label, first, second in pairs:
        diffs = [a - b for a, b in zip(first, second, strict=True)]
        if diffs:
            out[label] = {
                "mean": round(sum(diffs) / len(diffs), 4),
                "95% CI": _rounded(bootstrap_interval(diffs)),
            }
    return out


def evaluate_set(
    mp: MemoryPlatform,
    data: EvalSet,
    progress: Callable[[str], None] = lambda _msg: None,
    off_topic_users: Sequence[str] = (),
    platform_only: bool = False,
) -> dict[str, Any]:
    """Ingest the set into ``mp`` and measure every method; returns the report section.

    ``off_topic_users`` are users of the same store whose memory holds nothing relevant to
    this set's questions (another conversation, another language); with none, each
    question is asked of the next user of the set. ``platform_only`` measures the platform
    alone (no baselines, off-topic or after-use pass): what a backend comparison needs.
    """
    started = time.perf_counter()
    gold_of: dict[str, str] = {}
    texts: dict[str, dict[str, str]] = {}
    turns = sum(len(v) for v in data.episodes.values())
    progress(f"{data.name}: ingesting {turns} episodes of {len(data.episodes)} users")
    for number, (user, items) in enumerate(data.episodes.items(), start=1):
        mp.delete_user(user)
        ids = mp.add_episodes(user, items)
        for ref, item in zip(ids, items, strict=True):
            gold_of[ref] = item["metadata"]["gold_id"]
            texts.setdefault(user, {})[ref] = item["text"]
        mp.wait_for_indexing(user, timeout=3600)  # embedding is most of the time: say so
        progress(
            f"{data.name}: {user} stored and embedded ({len(items)} episodes, "
            f"user {number} of {len(data.episodes)}, {time.perf_counter() - started:.0f} s)"
        )
    mp.wait_for_indexing(timeout=3600)
    report: dict[str, Any] = {
        "categories": data.categories,
        "scored_label": data.scored_label,
        "questions": len(data.questions),
        "users": len(data.episodes),
        "ingest": {"episodes": turns, "seconds": round(time.perf_counter() - started, 2)},
    }
    progress(f"{data.name}: ingested {turns} episodes of {len(data.episodes)} users")

    asked = [] if platform_only else [q.question for q in data.questions]
    question_vectors = dict(zip(asked, embed_queries(mp.embedder, asked), strict=True))
    bigram_rankers = {user: bigram_bm25(docs) for user, docs in texts.items()}

    def words(q: EvalQuestion) -> list[str]:
        hits = mp.store.lexical_search(q.user_id, q.question, kinds=[VectorKind.EPISODE], k=10)
        return [gold_of[h.ref_id] for h in hits]

    def bigrams(q: EvalQuestion) -> list[str]:
        return [gold_of[ref] for ref in bigram_rankers[q.user_id](q.question, 10)]

    def dense(q: EvalQuestion) -> list[str]:
        vector = question_vectors[q.question]
        hits = mp.store.vector_search(q.user_id, VectorKind.EPISODE, vector, k=10)
        return [gold_of[h.ref_id] for h in hits]

    def platform(record_access: bool) -> Ranker:
        def rank(q: EvalQuestion) -> list[str]:
            results = mp.search(q.user_id, q.question, record_access=record_access)
            return [gold_of[r.id] for r in results if r.id in gold_of]

        return rank

    methods: dict[str, Ranker] = {
        "bm25 (words)": words,
        "bm25 (bigrams)": bigrams,
        "dense": dense,
        "platform": platform(False),
    }
    if platform_only:
        methods = {"platform": methods["platform"]}
    report["methods"] = {}
    recalls: dict[str, list[float]] = {}
    for name, rank in methods.items():
        clock = time.perf_counter()
        report["methods"][name], recalls[name] = _summarise(
            rank, data.questions, data.scored_categories
        )
        report["methods"][name]["seconds"] = round(time.perf_counter() - clock, 2)
        progress(f"{data.name} {name}: recall@10 {report['methods'][name]['all']['recall@10']:.3f}")

    # per conversation: how far the figure moves from one user to the next (and what a
    # backend comparison must hold for each of them, not only on average)
    by_user: dict[str, list[float]] = {}
    scored = [q for q in data.questions if q.category in data.scored_categories]
    for q, recall in zip(scored, recalls["platform"], strict=True):
        by_user.setdefault(q.user_id, []).append(recall)
    report["per_user"] = {
        user: {"n": len(values), "recall@10": round(sum(values) / len(values), 4)}
        for user, values in by_user.items()
    }
    if platform_only:
        return report
    report |= _off_topic_figures(mp, data, off_topic_users, progress)

    for q in data.questions:  # one pass of ordinary use, access recorded
        mp.search(q.user_id, q.question)
    mp.wait_for_access()
    report["methods"][AFTER_USE], recalls[AFTER_USE] = _summarise(
        platform(False), data.questions, data.scored_categories
    )
    after = report["methods"][AFTER_USE]["all"]["recall@10"]
    progress(f"{data.name} after use: recall@10 {after:.3f}")
    report["differences"] = _differences(recalls)
    return report


def _off_topic_figures(
    mp: MemoryPlatform,
    data: EvalSet,
    other_users: Sequence[str],
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """``off_topic``, and ``off_topic_same_set`` when the questions went to another set's
    users though their own set has several: a stranger in the same language and of the
    same kind, whose figure is reported beside the other, never hidden by it."""
    figures = {"off_topic": _off_topic(mp, data, other_users)}
    if other_users and len(data.episodes) > 1:
        figures["off_topic_same_set"] = _off_topic(mp, data, ())
    for key, figure in figures.items():
        label = "off-topic" if key == "off_topic" else "off-topic within the set"
        progress(f"{data.name} {label}: {figure['direct_per_query']:.2f} direct/query")
    return figures


def _off_topic(mp: MemoryPlatform, data: EvalSet, other_users: Sequence[str]) -> dict[str, Any]:
    """Direct results per question asked of a user whose memory holds nothing relevant,
    with the 95% bootstrap interval over questions."""
    users = list(data.episodes)
    counts: list[int] = []
    for q in data.questions:
        if other_users:
            targets = list(other_users)
        elif len(users) > 1:
            targets = [users[(users.index(q.user_id) + 1) % len(users)]]
        else:
            continue
        for target in targets:
            results = mp.search(target, q.question, record_access=False)
            counts.append(sum(1 for r in results if r.layer == "direct"))
    if not counts:
        return {"queries": 0, "direct_per_query": 0.0}
    return {
        "queries": len(counts),
        "direct_per_query": round(sum(counts) / len(counts), 3),
        "95% CI": [round(x, 3) for x in bootstrap_interval(counts)],
    }


def markdown(report: dict[str, Any]) -> str:
    """Per-set tables of the report."""
    lines: list[str] = []
    for name, section in report["sets"].items():
        categories = section.get("categories", {})
        source = f" ({section['file']})" if "file" in section else ""
        lines += [
            f"### {name}{source}: "
            f"{section['users']} users, {section['questions']} questions, "
            f"{section['ingest']['episodes']} episodes ingested in {section['ingest']['seconds']} s",
            "",
            "| method | category | n | recall@5 | recall@10 | MRR | all evidence@10 |",
            "|---|---|---|---|---|---|---|",
        ]
        for method, cats in section["methods"].items():
            for cat, row in cats.items():
                if not isinstance(row, dict):
                    continue
                label = (
                    section.get("scored_label", "all") if cat == "all" else categories.get(cat, cat)
                )
                lines.append(
                    f"| {method} | {label} | {row['n']} | {row['recall@5']:.3f} | "
                    f"{row['recall@10']:.3f} | {row['mrr']:.3f} | {row['all@10']:.3f} |"
                )
        lines.append("")
        lines += _interval_lines(section)
        lines += _off_topic_lines(
            section.get("off_topic"), "asked of a user whose memory holds nothing relevant"
        )
        lines += _off_topic_lines(
            section.get("off_topic_same_set"),
            "asked of the next user of the same set instead",
            "Off-topic within the set",
        )
        per_user = section.get("per_user", {})
        if len(per_user) > 1:
            figures = ", ".join(
                f"{user} {row['recall@10']:.3f} ({row['n']})" for user, row in per_user.items()
            )
            lines += [f"Platform recall@10 per user (questions): {figures}.", ""]
    return "\n".join(lines).rstrip()


def _off_topic_lines(off: dict[str, Any] | None, asked: str, title: str = "Off-topic") -> list[str]:
    """One off-topic figure with its interval, or why there is none."""
    if off is None:
        return []
    if not off["queries"]:
        return [f"{title}: not measured (no other user to ask).", ""]
    interval = off.get("95% CI")
    spread = "" if interval is None else f" (95% interval {interval[0]:.2f}-{interval[1]:.2f})"
    return [
        f"{title}: {off['direct_per_query']:.2f} direct results per question{spread} "
        f"{asked} ({off['queries']} questions).",
        "",
    ]


def _interval_lines(section: dict[str, Any]) -> list[str]:
    """The platform's recall@10 interval and the paired differences, where the report has
    them (reports before 2026-11-25 do not)."""
    platform = section["methods"].get("platform", {}).get("all", {})
    interval = platform.get("recall@10 95% CI")
    if interval is None:
        return []
    text = (
        f"Recall@10 ({section.get('scored_label', 'all')}), with its 95% bootstrap interval "
        f"over questions: platform {platform['recall@10']:.3f} "
        f"({interval[0]:.3f}-{interval[1]:.3f})"
    )
    differences = section.get("differences", {})
    if differences:
        text += "; per question, " + "; ".join(
            f"{label} {d['mean']:+.3f} ({d['95% CI'][0]:+.3f} to {d['95% CI'][1]:+.3f})"
            for label, d in differences.items()
        )
    return [text + ".", ""]


def run_eval(
    locomo: Path | None,
    madial: Path | None,
    workdir: Path,
    progress: Callable[[str], None] = lambda _msg: None,
    backend: str = "sqlite",
    limit: int | None = None,
    platform_only: bool = False,
) -> dict[str, Any]:
    """Evaluate the given sets in one fresh store (or the configured Neo4j) and report.

    MADial's off-topic questions are asked of the LoCoMo users when both sets run.
    """
    from .locomo import load_locomo
    from .madial import load_madial

    sets: list[tuple[EvalSet, Path]] = []
    if locomo is not None:
        sets.append((load_locomo(locomo, limit), locomo))
    if madial is not None:
        sets.append((load_madial(madial), madial))
    if not sets:
        raise ValueError("no data set to evaluate")
    if backend == "neo4j":
        settings = load_settings(backend="neo4j")
    else:
        for old in workdir.glob("eval.db*"):
            old.unlink()
        settings = load_settings(backend="sqlite", sqlite_path=workdir / "eval.db")
    report: dict[str, Any] = {
        "backend": backend,
        "machine": machine_description(),
        "embedder": settings.embedding_model,
        "relevance_floor": settings.retrieval.relevance_floor,
        "sets": {},
    }
    with MemoryPlatform(settings) as mp:
        locomo_users: list[str] = []
        for data, path in sets:
            others = locomo_users[:1] if data.name != "locomo_dev" else []
            report["sets"][data.name] = {
                "file": str(path),
                **evaluate_set(
                    mp, data, progress, off_topic_users=others, platform_only=platform_only
                ),
            }
            if data.name == "locomo_dev":
                locomo_users = list(data.episodes)
    return report
