"""Where the recall that is still missing sits: ranking, or the candidates.

Each dev question is searched as the evaluation searches it, but without a floor, without
graph expansion and for 100 results, and each gold item is placed: in the first ten, at
11-20, 21-50, 51-100, or not among the candidates at all. For LoCoMo, each gold turn
outside the first ten is also placed against them: in the same session as one of them,
within two turns of one, next to one (what adding a match's neighbouring turns to the
candidates could reach at most). Last, two changes of the query vector that need no
index change are measured on the dense channel alone, episodes only: pseudo-relevance
feedback (the query moved toward the mean of its first k hits, weight a, then searched
again) and, for a pasted conversation, each turn embedded alone (best or mean cosine
over the turns). Then the default search's first 40 results are put in other orders
(:func:`reorderings`: results alike or of one session spread out, first-person turns
of a named speaker raised). Only dev data is read. ::

    .venv/bin/python benchmarks/micro/recall_headroom.py --db eval.db  # a store of `eval --workdir`
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import checkouts
import numpy as np
import numpy.typing as npt

from memory_platform import MemoryPlatform
from memory_platform.bench.retrieval_eval import EvalQuestion, EvalSet
from memory_platform.config import load_settings
from memory_platform.embeddings import clip_query, embed_queries
from memory_platform.models import VectorKind
from memory_platform.retrieval.results import SearchResult
from memory_platform.textutil import plain_transcript

OUT = Path(__file__).resolve().parents[1] / "results" / "recall_headroom.md"
BANDS = ("1-10", "11-20", "21-50", "51-100", "not a candidate")
FEEDBACK = ((3, 0.3), (5, 0.3), (5, 0.5), (10, 0.3))
"""(k, a) of the pseudo-relevance feedback tried."""


def _band(rank: int | None) -> str:
    if rank is None:
        return BANDS[-1]
    return next(b for b, top in zip(BANDS, (10, 20, 50, 100), strict=False) if rank <= top)


def _turn(gold_id: str) -> tuple[int, int] | None:
    """(session, turn) of a LoCoMo dia_id such as D3:5."""
    try:
        session, turn = gold_id.removeprefix("D").split(":")
        return int(session), int(turn)
    except ValueError:
        return None


class Golds:
    """The gold id of each stored episode, read once per user."""

    def __init__(self, mp: MemoryPlatform) -> None:
        self._mp = mp
        self._ids: dict[tuple[str, str], str | None] = {}

    def __call__(self, user: str, refs: Sequence[str]) -> list[str | None]:
        missing = [r for r in refs if (user, r) not in self._ids]
        for episode in self._mp.store.get_episodes(user, missing) if missing else []:
            self._ids[(user, episode.id)] = episode.metadata.get("gold_id")
        return [self._ids.get((user, r)) for r in refs]


def placement(mp: MemoryPlatform, data: EvalSet) -> tuple[Counter[str], Counter[str]]:
    """Gold items by band of rank, and LoCoMo's missed gold turns by nearness to the
    first ten."""
    bands: Counter[str] = Counter()
    near: Counter[str] = Counter()
    for q in _scored(data):
        found = mp.search(
            q.user_id, q.question, max_results=100, expand_depth=0, min_relevance=0.0,
            record_access=False,
        )  # fmt: skip
        ranked = [r.metadata.get("gold_id") for r in found]
        top = [t for t in map(_turn, (g for g in ranked[:10] if g)) if t]
        for gold in q.gold:
            rank = ranked.index(gold) + 1 if gold in ranked else None
            bands[_band(rank)] += 1
            where = _turn(gold)
            if (rank is not None and rank <= 10) or where is None or data.name != "locomo_dev":
                continue
            gaps = [abs(where[1] - t[1]) for t in top if t[0] == where[0]]
            gap = min(gaps, default=None)
            near["next to one" if gap == 1 else "within two" if gap == 2 else
                 "same session" if gap is not None else "another session"] += 1  # fmt: skip
    return bands, near


def _scored(data: EvalSet) -> list[EvalQuestion]:
    return [q for q in data.questions if q.category in data.scored_categories]


def dense_variants(mp: MemoryPlatform, data: EvalSet) -> dict[str, float]:
    """Dense recall@10 (episodes) of the query vector as searched, with pseudo-relevance
    feedback, and, for conversations, of each turn embedded alone."""
    golds = Golds(mp)
    questions = _scored(data)
    vectors = embed_queries(
        mp.embedder, [clip_query(plain_transcript(q.question)) for q in questions]
    )

    def recall(rank: Callable[[EvalQuestion, npt.NDArray[np.float32]], list[str]]) -> float:
        got = [
            len(set(golds(q.user_id, rank(q, v))) & q.gold) / len(q.gold)
            for q, v in zip(questions, vectors, strict=True)
        ]
        return round(float(np.mean(got)), 3)

    def search(q: EvalQuestion, v: npt.ArrayLike, k: int = 10) -> list[str]:
        return [h.ref_id for h in mp.store.vector_search(q.user_id, VectorKind.EPISODE, v, k)]

    def feedback(k: int, a: float) -> Callable[[EvalQuestion, npt.NDArray[np.float32]], list[str]]:
        def rank(q: EvalQuestion, v: npt.NDArray[np.float32]) -> list[str]:
            first = search(q, v, k)
            stored = mp.store.get_vectors(q.user_id, VectorKind.EPISODE, first)
            moved = (1 - a) * v + a * np.mean([stored[r] for r in first if r in stored], axis=0)
            return search(q, moved / np.linalg.norm(moved))

        return rank

    out = {"as searched": recall(search)}
    for k, a in FEEDBACK:
        out[f"feedback k={k}, a={a}"] = recall(feedback(k, a))
    if data.name == "madial_zh_dev":
        out |= _per_turn(mp, questions, golds)
    return out


def _per_turn(mp: MemoryPlatform, questions: list[EvalQuestion], golds: Golds) -> dict[str, float]:
    """Each turn of a pasted conversation embedded alone, against every episode."""
    user = questions[0].user_id
    refs = [
        h.ref_id
        for h in mp.store.vector_search(
            user, VectorKind.EPISODE, np.ones(mp.embedder.dimension), 1000
        )
    ]
    stored = mp.store.get_vectors(user, VectorKind.EPISODE, refs)
    matrix = np.array([stored[r] for r in refs])
    ids = golds(user, refs)
    best: list[float] = []
    mean: list[float] = []
    for q in questions:
        turns = [t for t in plain_transcript(q.question).split("\n") if t.strip()]
        sims = embed_queries(mp.embedder, turns) @ matrix.T
        for pooled, into in ((sims.max(axis=0), best), (sims.mean(axis=0), mean)):
            top = {ids[i] for i in np.argsort(-pooled)[:10]}
            into.append(len(top & q.gold) / len(q.gold))
    return {
        "each turn alone, best cosine": round(float(np.mean(best)), 3),
        "each turn alone, mean cosine": round(float(np.mean(mean)), 3),
    }


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|our|us)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|you're|you've|you'd|your|yours|yourself)\b", re.I)


def _first_over_second(result: SearchResult) -> float:
    """How much more a turn says I than you, in [-1, 1] (English)."""
    first = len(_FIRST_PERSON.findall(result.text))
    second = len(_SECOND_PERSON.findall(result.text))
    return float(np.clip(first - second, -3, 3)) / 3


Order = Callable[[list[SearchResult]], list[int]]
"""Positions of a search's results in a new order."""
Penalty = Callable[[SearchResult, list[SearchResult]], float]
"""What a result loses for those already taken before it."""


def reorderings(mp: MemoryPlatform, data: EvalSet) -> dict[str, float]:
    """Recall@10 of the default search's first 40 results put in another order:
    maximal marginal relevance on the episode vectors (score share minus lam times the
    best cosine to a result already taken), a penalty for each result already taken
    from the same session, and, for a turn whose speaker the question names, a bonus
    for saying I more than you ("What has Melanie painted?" finds her turns about
    Caroline's paintings)."""
    golds = Golds(mp)
    rows = []
    vectors: dict[str, npt.NDArray[np.float32]] = {}
    for q in _scored(data):
        found = mp.search(q.user_id, q.question, max_results=40, record_access=False)
        refs = [r.id for r in found]
        vectors |= mp.store.get_vectors(q.user_id, VectorKind.EPISODE, refs)
        rows.append((q, found, golds(q.user_id, refs)))

    def recall(order: Order) -> float:
        got = [
            len({ids[i] for i in order(found)[:10]} & q.gold) / len(q.gold)
            for q, found, ids in rows
        ]
        return round(float(np.mean(got)), 3)

    def greedy(penalty: Penalty) -> Order:
        def order(found: list[SearchResult]) -> list[int]:
            top = max((r.score for r in found), default=1.0) or 1.0
            left, taken = list(range(len(found))), list[int]()
            while left and len(taken) < 10:
                chosen = [found[j] for j in taken]
                best = max(left, key=lambda i: found[i].score / top - penalty(found[i], chosen))
                taken.append(best)
                left.remove(best)
            return taken

        return order

    def redundancy(r: SearchResult, chosen: list[SearchResult]) -> float:
        if r.id not in vectors:
            return 0.0
        return max((float(vectors[r.id] @ vectors[c.id]) for c in chosen if c.id in vectors),
                   default=0.0)  # fmt: skip

    def same_session(r: SearchResult, chosen: list[SearchResult]) -> float:
        return sum(1.0 for c in chosen if r.session_id and c.session_id == r.session_id)

    def first_person(w: float) -> Order:
        def order(found: list[SearchResult]) -> list[int]:
            bonus = [w * _first_over_second(r) if r.components.mention else 0.0 for r in found]
            return sorted(range(len(found)), key=lambda i: -(found[i].score + bonus[i]))

        return order

    def times(lam: float, penalty: Penalty) -> Penalty:
        def weighted(r: SearchResult, chosen: list[SearchResult]) -> float:
            return lam * penalty(r, chosen)

        return weighted

    out = {"as ranked": recall(lambda found: list(range(len(found))))}
    for lam in (0.1, 0.3):
        out[f"MMR on the episode vectors, lam {lam}"] = recall(greedy(times(lam, redundancy)))
    for lam in (0.05, 0.2):
        out[f"minus {lam} for each result of its session already taken"] = recall(
            greedy(times(lam, same_session))
        )
    if data.name == "locomo_dev":
        for w in (0.05, 0.08, 0.1, 0.2):
            out[f"plus {w} for a named speaker's turn saying I more than you"] = recall(
                first_person(w)
            )
    return out


def main() -> None:
    args = checkouts.eval_store_parser(__doc__, OUT).parse_args()
    sets = checkouts.dev_sets()
    lines = [
        "Where the missing recall sits (`benchmarks/micro/recall_headroom.py`, on the store "
        "of `memory-platform eval`): each gold item's rank in a search without floor or "
        "expansion, for 100 results.",
        "",
        "| set | " + " | ".join(BANDS) + " |",
        "|---|" + "---|" * len(BANDS),
    ]
    near: Counter[str] = Counter()
    variants: dict[str, dict[str, float]] = {}
    orders: dict[str, dict[str, float]] = {}
    with MemoryPlatform(load_settings(backend="sqlite", sqlite_path=args.db)) as mp:
        for data in sets:
            bands, close = placement(mp, data)
            near += close
            lines.append(f"| {data.name} | " + " | ".join(str(bands[b]) for b in BANDS) + " |")
            variants[data.name] = dense_variants(mp, data)
            orders[data.name] = reorderings(mp, data)
    lines += [
        "",
        "LoCoMo's gold turns outside the first ten, by how near they are to one of them: "
        + ", ".join(f"{where} {n}" for where, n in near.most_common())
        + ".",
    ]
    lines += _table(
        "Dense recall@10 (episodes alone) of changes to the query vector:", "query vector", variants
    )
    lines += _table(
        "Recall@10 of the default search's first 40 results in another order (`reorderings`):",
        "order",
        orders,
    )
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def _table(title: str, label: str, columns: dict[str, dict[str, float]]) -> list[str]:
    """A titled table: a row per measured name, a column per set, – where a set has none."""
    names = list(dict.fromkeys(k for v in columns.values() for k in v))
    return [
        "",
        title,
        "",
        f"| {label} | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
        *(
            f"| {name} | "
            + " | ".join(f"{v[name]:.3f}" if name in v else "–" for v in columns.values())
            + " |"
            for name in names
        ),
    ]


if __name__ == "__main__":
    main()
