"""Retrieval quality on LoCoMo (Maharana et al., ACL 2024): does search find the evidence?

Every turn of a conversation is stored as an episode (``mp.add_episodes``) with its
session date; each question is searched (``mp.search``) and the ranked ``dia_id``s are
compared with the question's evidence turns. BM25-only and vector-only baselines, and
the platform with each fusion method, run in the same process on the same store.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..config import Settings, load_settings
from ..models import VectorKind
from ..platform import MemoryPlatform
from ..retrieval import HybridRetriever
from .metrics import machine_description, ranking_metrics

__all__ = ["LocomoQuestion", "load_locomo", "run_locomo"]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}  # fmt: skip


@dataclass(frozen=True)
class LocomoQuestion:
    """One question with the dia_ids of its evidence turns."""

    user_id: str
    question: str
    category: int
    evidence: frozenset[str]


def session_time(text: str) -> datetime:
    """Parse LoCoMo's ``1:56 pm on 8 May, 2023``."""
    m = _DATE.search(text)
    if not m:
        raise ValueError(f"unrecognised session date {text!r}")
    hour, minute = int(m.group(1)) % 12, int(m.group(2))
    if m.group(3).lower() == "pm":
        hour += 12
    return datetime(
        int(m.group(6)), _MONTHS[m.group(5).lower()], int(m.group(4)), hour, minute, tzinfo=UTC
    )


def normalize_dia_ids(raw: Sequence[str]) -> set[str]:
    """Evidence ids with the dataset's known quirks fixed (glued ids, ``D:11:26``, ``D30:05``)."""
    out = set()
    for item in raw:
        for part in re.split(r"[;\s]+", item):
            m = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
            if m:
                out.add(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def _sessions(conversation: dict[str, Any]) -> Iterator[tuple[int, datetime, list[dict[str, Any]]]]:
    for key, turns in conversation.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            yield n, session_time(conversation[f"session_{n}_date_time"]), turns


def load_locomo(
    path: Path, limit: int | None = None
) -> tuple[dict[str, list[dict[str, Any]]], list[LocomoQuestion]]:
    """Episodes per conversation (``add_episodes`` dicts) and the questions."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    episodes: dict[str, list[dict[str, Any]]] = {}
    questions: list[LocomoQuestion] = []
    for sample in data[:limit]:
        user = f"locomo-{sample['sample_id']}"
        items = []
        for n, start, turns in _sessions(sample["conversation"]):
            for i, turn in enumerate(turns):
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                items.append(
                    {
                        "text": text,
                        "timestamp": start + timedelta(seconds=30 * i),
                        "session_id": f"session_{n}",
                        "speaker": turn["speaker"],
                        "metadata": {"dia_id": normalize_dia_ids([turn["dia_id"]]).pop()},
                    }
                )
        episodes[user] = items
        known = {item["metadata"]["dia_id"] for item in items}
        for qa in sample["qa"]:
            evidence = frozenset(normalize_dia_ids(qa.get("evidence", [])) & known)
            if evidence:
                questions.append(
                    LocomoQuestion(user, qa["question"], int(qa["category"]), evidence)
                )
    return episodes, questions


Ranker = Callable[[LocomoQuestion], list[str]]


def _evaluate(rank: Ranker, questions: Sequence[LocomoQuestion]) -> dict[str, Any]:
    per_cat: dict[str, list[dict[str, float]]] = defaultdict(list)
    for q in questions:
        scores = ranking_metrics(rank(q), set(q.evidence))
        per_cat[str(q.category)].append(scores)
        if q.category in (1, 2, 3, 4):
            per_cat["1-4"].append(scores)
    return {
        cat: {"n": len(rows), **{k: round(sum(r[k] for r in rows) / len(rows), 4) for k in rows[0]}}
        for cat, rows in sorted(per_cat.items())
    }


def run_locomo(
    data: Path,
    workdir: Path,
    limit: int | None = None,
    progress: Callable[[str], None] = lambda _msg: None,
    backend: str = "sqlite",
) -> dict[str, Any]:
    """Ingest, search every question with every method, and return the metrics.

    ``backend="neo4j"`` uses the configured Neo4j (``MEMORY_NEO4J_URI``); the
    conversations' users are deleted there first.
    """
    episodes, questions = load_locomo(data, limit)
    if backend == "neo4j":
        settings = load_settings(backend="neo4j")
    else:
        settings = Settings(backend="sqlite", sqlite_path=workdir / "locomo.db", _env_file=None)
        for old in workdir.glob("locomo.db*"):
            old.unlink()
    report: dict[str, Any] = {
        "dataset": Path(data).name,
        "backend": backend,
        "conversations": len(episodes),
        "questions": len(questions),
        "machine": machine_description(),
    }
    with MemoryPlatform(settings) as mp:
        for user in episodes:
            mp.delete_user(user)
        started = time.perf_counter()
        dia: dict[str, str] = {}
        for user, items in episodes.items():
            ids = mp.add_episodes(user, items)
            dia.update(
                {eid: item["metadata"]["dia_id"] for eid, item in zip(ids, items, strict=True)}
            )
        mp.wait_for_indexing(timeout=3600)
        turns = sum(len(v) for v in episodes.values())
        report["ingest"] = {"episodes": turns, "seconds": round(time.perf_counter() - started, 2)}
        progress(f"ingested {turns} turns of {len(episodes)} conversations")

        vectors = dict(
            zip(
                (q.question for q in questions),
                mp.embedder.embed([q.question for q in questions]),
                strict=True,
            )
        )

        def bm25(q: LocomoQuestion) -> list[str]:
            hits = mp.store.lexical_search(q.user_id, q.question, kinds=[VectorKind.EPISODE], k=10)
            return [dia[h.ref_id] for h in hits]

        def vector(q: LocomoQuestion) -> list[str]:
            hits = mp.store.vector_search(q.user_id, VectorKind.EPISODE, vectors[q.question], k=10)
            return [dia[h.ref_id] for h in hits]

        def platform_with(fusion: str) -> Ranker:
            retrieval = settings.retrieval.model_copy(update={"fusion": fusion})
            retriever = HybridRetriever(mp.store, mp.embedder, retrieval)

            def rank(q: LocomoQuestion) -> list[str]:
                results = retriever.search(
                    q.user_id, q.question, max_results=10, kinds=("episode",), record_access=False
                )
                return [dia[r.id] for r in results]

            return rank

        methods: dict[str, Ranker] = {
            "bm25": bm25,
            "vector": vector,
            "platform (blend)": platform_with("blend"),
            "platform (rrf)": platform_with("rrf"),
        }
        report["methods"] = {}
        for name, rank in methods.items():
            started = time.perf_counter()
            report["methods"][name] = _evaluate(rank, questions)
            progress(
                f"{name}: recall@10 (cat 1-4) {report['methods'][name]['1-4']['recall@10']:.3f}"
            )
            report["methods"][name]["seconds"] = round(time.perf_counter() - started, 2)
    return report


def markdown(report: dict[str, Any]) -> str:
    """A per-category table of the report."""
    lines = [
        f"LoCoMo dev: {report['conversations']} conversations, {report['questions']} questions with evidence, "
        f"{report['ingest']['episodes']} turns ingested in {report['ingest']['seconds']} s",
        "",
        "| method | category | n | recall@5 | recall@10 | MRR | all evidence@10 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, cats in report["methods"].items():
        for cat, row in cats.items():
            if not isinstance(row, dict):
                continue
            label = (
                "1-4 (all but adversarial)"
                if cat == "1-4"
                else f"{cat} {CATEGORIES.get(int(cat), '')}"
            )
            lines.append(
                f"| {name} | {label} | {row['n']} | {row['recall@5']:.3f} | {row['recall@10']:.3f} | {row['mrr']:.3f} | {row['all@10']:.3f} |"
            )
    return "\n".join(lines)
