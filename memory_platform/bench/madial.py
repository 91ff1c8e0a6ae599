"""MADial-Bench (He et al., NAACL 2025), Chinese set: does search recall the right memories?

Protocol of ``shared/data/README.md``: each memory's ``event`` text is stored as an
episode of the user, timestamped with its ``time`` and keeping its ``id`` in the
metadata; a dialogue's query is ``dialogue[1 : test-turn[0]]`` joined; the gold set is
``relevant-id``; the figure is recall@10 averaged over dialogues.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .retrieval_eval import EvalQuestion, EvalSet

__all__ = ["load_madial"]


_YMD = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})(?:\s*[-/.月]\s*(\d{1,2}))?")


def _date(text: str) -> datetime:
    """A memory's ``time``: ISO-like dates with or without a clock time, or a year and month
    (or year, month and day) written with other separators, 年 and 月 included."""
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%Y/%m/%d", "%Y.%m.%d"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    m = _YMD.search(text)
    if m:
        try:
            return datetime(int(m[1]), int(m[2]), int(m[3] or 1), tzinfo=UTC)
        except ValueError:
            pass
    raise ValueError(f"unrecognised memory time {text!r}")


def _turn_text(turn: Any) -> str:
    if isinstance(turn, dict):
        return str(turn.get("content") or turn.get("text") or "")
    return str(turn)


def load_madial(path: Path) -> EvalSet:
    """The stored episodes (``add_episodes`` dicts, gold id in metadata) and the dialogues.

    Each ``user-id`` of the file is its own platform user, ``madial-zh-<user-id>`` (1 in the
    dev set): a dialogue is asked of its own user's memories and its gold ids are looked up
    among them only, so a file holding both users of the benchmark is measured per user (the
    evaluation then asks each question of the other user for the off-topic figure). A file
    without ``user-id`` fields holds user 1.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not (
        isinstance(data, dict)
        and isinstance(data.get("memories"), list)
        and isinstance(data.get("dialogues"), list)
    ):
        raise ValueError(
            f"{path} is not in the evaluation's MADial layout: one JSON object with the "
            "lists 'memories' and 'dialogues' (as ../shared/data/madial_zh_dev.json)"
        )
    episodes: dict[str, list[dict[str, Any]]] = {}
    for memory in data["memories"]:
        episodes.setdefault(_user(memory, None), []).append(
            {
                "text": memory["event"],
                "timestamp": _date(str(memory["time"])),
                "metadata": {"gold_id": str(memory["id"])},
            }
        )
    only = next(iter(episodes)) if len(episodes) == 1 else None
    known = {
        user: {item["metadata"]["gold_id"] for item in items} for user, items in episodes.items()
    }
    questions = []
    for dialogue in data["dialogues"]:
        user = _user(dialogue, only)
        turn = dialogue["test-turn"]
        end = int(turn[0] if isinstance(turn, list) else turn)
        query = "\n".join(_turn_text(t).strip() for t in dialogue["dialogue"][1:end]).strip()
        gold = frozenset(str(g) for g in dialogue["relevant-id"]) & known.get(user, set())
        if query and gold:
            questions.append(EvalQuestion(user, query, 0, gold))
    return EvalSet("madial_zh_dev", episodes, questions)


def _user(record: dict[str, Any], only: str | None) -> str:
    """The platform user of a memory or dialogue; a dialogue without ``user-id`` belongs to
    the file's only user (user 1 when the file holds several)."""
    owner = record.get("user-id")
    if owner is None and only is not None:
        return only
    return f"madial-zh-{owner if owner is not None else 1}"
