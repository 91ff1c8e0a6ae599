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

    ``path`` is the evaluation's one-object file (as ``../shared/data/madial_zh_dev.json``),
    or the benchmark as published: its ``data/ch`` folder, or either of the two files in it
    (the other is found beside it), see :func:`read_madial`.

    Each ``user-id`` of the data is its own platform user, ``madial-zh-<user-id>`` (1 in
    the dev set): a dialogue is asked of its own user's memories and its gold ids are
    looked up among them only, so data holding both users of the benchmark is measured per
    user (the evaluation then asks each question of the other user for the off-topic
    figure). Data without ``user-id`` fields holds user 1.
    """
    data = read_madial(Path(path))
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


def read_madial(path: Path) -> dict[str, list[dict[str, Any]]]:
    """``{"memories": [...], "dialogues": [...]}`` from any of the layouts the data comes in.

    - the evaluation's file: one JSON object holding both lists;
    - the benchmark's repository (hejunqing/MADial-Bench): the folder ``data/ch`` with
      ``MADial-Bench-zh-memory.json`` (JSON Lines, one ``{id: memory}`` per line) and
      ``MADial-Bench-zh-dialogue.json`` (JSON Lines, one dialogue per line), or either of
      the two files, the other found beside it by its name. A JSON list works as well as
      JSON Lines.
    """
    pair = _benchmark_files(path)
    if pair is None:
        data = _parse_json(path)
        if not (
            isinstance(data, dict)
            and isinstance(data.get("memories"), list)
            and isinstance(data.get("dialogues"), list)
        ):
            raise ValueError(
                f"{path} is not in a MADial layout: one JSON object with the lists 'memories' "
                "and 'dialogues' (as ../shared/data/madial_zh_dev.json), or the benchmark's "
                f"data/ch folder holding {MEMORY_FILE} and {DIALOGUE_FILE}"
            )
        return {"memories": data["memories"], "dialogues": data["dialogues"]}
    memories, dialogues = pair
    return {
        "memories": [_unwrap_memory(r, memories) for r in _records(memories)],
        "dialogues": _records(dialogues),
    }


MEMORY_FILE = "MADial-Bench-zh-memory.json"
DIALOGUE_FILE = "MADial-Bench-zh-dialogue.json"
_PART = re.compile(r"(?P<stem>.+)-(?P<part>memory|dialogue)(?P<suffix>\.jsonl?)", re.I)


def _benchmark_files(path: Path) -> tuple[Path, Path] | None:
    """The memory and dialogue files when ``path`` names the benchmark's layout, else None."""
    if path.is_dir():
        pair = (path / MEMORY_FILE, path / DIALOGUE_FILE)
    else:
        m = _PART.fullmatch(path.name)
        if m is None:
            return None
        stem, suffix = m["stem"], m["suffix"]
        pair = (
            path.with_name(f"{stem}-memory{suffix}"),
            path.with_name(f"{stem}-dialogue{suffix}"),
        )
    missing = [p for p in pair if not p.is_file()]
    if missing:
        raise ValueError(
            f"no {missing[0].name} in {missing[0].parent}: the benchmark's layout needs its "
            "memory file and its dialogue file side by side"
        )
    return pair


def _parse_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON ({exc})") from exc


def _records(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file (or of a JSON list)."""
    text = path.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:  # JSON Lines: one value per line
        records = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {number}: not JSON ({exc.msg})") from exc
    else:  # a JSON list, or a file of one line
        records = whole if isinstance(whole, list) else [whole]
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise ValueError(f"{path}, record {number}: a JSON object was expected")
    return records


def _unwrap_memory(record: dict[str, Any], path: Path) -> dict[str, Any]:
    """A memory of the benchmark's file, written ``{id: {...}}``, as one flat record."""
    if len(record) == 1:
        ((key, inner),) = record.items()
        if isinstance(inner, dict):
            return {"id": key, **inner}
    if "event" not in record:
        raise ValueError(f"{path}: a memory is neither {{id: memory}} nor a memory with 'event'")
    return record


def _user(record: dict[str, Any], only: str | None) -> str:
    """The platform user of a memory or dialogue; a dialogue without ``user-id`` belongs to
    the file's only user (user 1 when the file holds several)."""
    owner = record.get("user-id")
    if owner is None and only is not None:
        return only
    return f"madial-zh-{owner if owner is not None else 1}"
