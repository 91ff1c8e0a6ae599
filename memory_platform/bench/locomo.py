"""LoCoMo (Maharana et al., ACL 2024) as an evaluation set: does search find the evidence?

Every turn of a conversation is stored as an episode the way the documentation tells a
user to: the text as said (with a shared image's caption), the speaker in ``speaker``,
the session's date as the timestamp and the ``dia_id`` in the metadata. The evaluation
itself is :mod:`memory_platform.bench.retrieval_eval`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .retrieval_eval import EvalQuestion, EvalSet

__all__ = ["CATEGORIES", "load_locomo"]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}  # fmt: skip


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
    """Evidence ids with the dataset's known quirks fixed: several ids in one string, with
    or without anything between them (``D8:6; D9:17``, ``D4:4,D4:6``, ``D10:19D10:20``),
    ``D:11:26``, ``D30:05``; a string holding no id (``D``) gives none."""
    return {
        f"D{int(session)}:{int(turn)}"
        for item in raw
        for session, turn in re.findall(r"D:?(\d+):(\d+)", item)
    }


def _turn_id(dia_id: str) -> str:
    """A turn's id as evidence names it; an id in no known shape is kept as it is."""
    normal = normalize_dia_ids([dia_id])
    return normal.pop() if len(normal) == 1 else dia_id.strip()


def _sessions(conversation: dict[str, Any]) -> Iterator[tuple[int, datetime, list[dict[str, Any]]]]:
    for key, turns in conversation.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            yield n, session_time(conversation[f"session_{n}_date_time"]), turns


def load_locomo(path: Path, limit: int | None = None) -> EvalSet:
    """Episodes per conversation (``add_episodes`` dicts) and the questions with evidence."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not (isinstance(data, list) and all(isinstance(s, dict) for s in data)):
        raise ValueError(
            f"{path} is not in LoCoMo's layout: a JSON list of conversation objects "
            "(as data/locomo10.json of snap-research/LoCoMo)"
        )
    episodes: dict[str, list[dict[str, Any]]] = {}
    questions: list[EvalQuestion] = []
    for sample in data[:limit]:
        user = f"locomo-{sample['sample_id']}"
        items = []
        for n, start, turns in _sessions(sample["conversation"]):
            for i, turn in enumerate(turns):
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                items.append(
                    {
                        "text": text,
                        "timestamp": start + timedelta(seconds=30 * i),
                        "session_id": f"session_{n}",
                        "speaker": turn["speaker"],
                        "metadata": {"gold_id": _turn_id(turn["dia_id"])},
                    }
                )
        episodes[user] = items
        known = {item["metadata"]["gold_id"] for item in items}
        for qa in sample["qa"]:
            evidence = frozenset(normalize_dia_ids(qa.get("evidence", [])) & known)
            if evidence:
                questions.append(EvalQuestion(user, qa["question"], int(qa["category"]), evidence))
    return EvalSet(
        "locomo_dev",
        episodes,
        questions,
        categories={str(k): f"{k} {v}" for k, v in CATEGORIES.items()},
        scored_categories=(1, 2, 3, 4),
        scored_label="1-4 (all but adversarial)",
    )
