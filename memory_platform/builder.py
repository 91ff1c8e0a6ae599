"""Turns validated ``create_memory`` arguments into a memory subgraph (seed 000 §3, §4).

``(Subject)-[:MEMORY_TYPE]->(Topic)-[:CORE_RELATION]->(Object)``, each attribute as
``(Topic)-[:ATTRIBUTE {key}]->(Value)``, all included by one ``Memory`` hub with a readable
``text`` and a short ``title``. Subjects are resolved to one node per user and name: "我",
"用户", "I" or "me" said by the user are the user's own node, "你" or "you" the
assistant's. Topics, objects and values are new nodes; consolidation merges them later.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, tzinfo

from .clock import said_at
from .models import (
    ContentNode,
    EdgeType,
    Episode,
    Memory,
    MemoryStatus,
    MemorySubgraph,
    MemoryType,
    NodeType,
    StructuralEdge,
)
from .textutil import has_cjk, normalize_name
from .timeparse import normalize_time
from .tools.arguments import CreateMemoryArgs

__all__ = [
    "ASSISTANT_SUBJECT",
    "SELF_SUBJECT",
    "TIME_KEYS",
    "TIME_METADATA",
    "about_owner",
    "build_memory",
    "episode_time_text",
    "is_time_key",
    "memory_time_text",
    "subject_node_id",
]

SELF_SUBJECT = "user"
"""Content of the node that stands for the user themself."""
ASSISTANT_SUBJECT = "assistant"
"""Content of the node that stands for the AI assistant."""

_SELF_WORDS = {"我", "用户", "本人", "自己", "我自己", "i", "me", "myself", "user", "theuser"}
_SELF_PREFIXES = tuple(
    f"{word} " for word in sorted({*_SELF_WORDS - {"theuser"}, "the user"}, key=len, reverse=True)
)
"""A self subject as the first words of a memory's text (``_describe`` puts the subject
first, as written, then a space)."""
_ASSISTANT_WORDS = {"你", "助手", "ai助手", "ai", "assistant", "you", "theassistant"}
TIME_KEYS = {"时间", "日期", "time", "date", "when"}
TIME_METADATA = ("time_original", "time_partial", "time_span", "time_unparsed")
"""Metadata :func:`build_memory` derives from a time attribute: how it was read."""


def is_time_key(key: str) -> bool:
    """Whether an attribute's key names the memory's time (时间, date, "Time")."""
    return key.strip().lower() in TIME_KEYS


_SUBJECT_NAMESPACE = uuid.UUID("6f1c2c8e-5b7a-4f0e-9f43-9f3f1f4d2a10")

_CORE_RELATION = {
    MemoryType.EVENT: ("做", "did"),
    MemoryType.FACT: ("是", "is"),
    MemoryType.RELATION: ("有", "has"),
    MemoryType.OPINION: ("认为", "thinks"),
}


def canonical_subject(subject: str) -> str:
    """The content of a subject's node: the user's or the assistant's, or the name."""
    key = normalize_name(subject)
    if key in _SELF_WORDS:
        return SELF_SUBJECT
    if key in _ASSISTANT_WORDS:
        return ASSISTANT_SUBJECT
    return subject.strip()


def about_owner(text: str) -> bool:
    """Whether a memory's readable text (as :func:`build_memory` writes it, the subject
    first) is about the user themself: its subject is "user", "I", 我 or the like."""
    folded = text.casefold()
    return any(folded.startswith(form) for form in _SELF_PREFIXES)


def subject_node_id(user_id: str, subject: str) -> str:
    """The stable id of a user's subject node: the same name gives the same node."""
    key = normalize_name(canonical_subject(subject)) or subject.strip()
    return uuid.uuid5(_SUBJECT_NAMESPACE, f"{user_id}\x00{key}").hex


def memory_time_text(memory: Memory, zone: tzinfo = UTC) -> str:
    """When a memory happened, as written in its time attribute, else its date in
    ``zone`` (the asker's: a memory of 07:00 in Shanghai is not of the day before)."""
    written = next((v for k, v in memory.attributes.items() if is_time_key(k)), None)
    return written or (memory.event_time or memory.created_at).astimezone(zone).date().isoformat()


def episode_time_text(episode: Episode, zone: tzinfo = UTC) -> str:
    """When an episode was said, to the minute, on the clock it was said on where that
    was recorded (:func:`~memory_platform.clock.said_at`: its 昨天 is read from this
    time), else on the clock of ``zone`` (the asker's)."""
    return said_at(episode, zone).strftime("%Y-%m-%d %H:%M")


def _is_chinese(*parts: str | None) -> bool:
    return has_cjk(*parts)


def build_memory(
    user_id: str,
    args: CreateMemoryArgs,
    reference_time: datetime | None = None,
    session_id: str | None = None,
    source: str | None = None,
) -> MemorySubgraph:
    """Build the staged subgraph of one ``create_memory`` call.

    Args:
        user_id: the owner.
        args: validated tool arguments.
        reference_time: when the message was sent; relative times are resolved against
            it (naive datetimes are taken as UTC). Defaults to now.
        session_id: the chat session the memory came from, if known.
        source: where the memory came from (``tool``, ``extraction``, ...).
    """
    ref = reference_time or datetime.now(UTC)
    if ref.tzinfo is None:
        ref = ref.replace(tzinfo=UTC)
    zh = _is_chinese(args.subject, args.topic, args.object)

    attributes: dict[str, str] = {}
    event_time: datetime | None = None
    metadata: dict[str, object] = {}
    for key, value in args.attributes.items():
        if is_time_key(key):
            parsed = normalize_time(value, ref)
            attributes[key] = parsed.text
            if parsed.partial:  # keep the words; the coarse span only dates the event
                attributes[key] = value
                event_time = parsed.start
                metadata["time_partial"] = value
                metadata["time_span"] = parsed.text
            elif parsed.parsed:
                event_time = parsed.start
                if parsed.text != value:
                    metadata["time_original"] = value
            else:
                metadata["time_unparsed"] = value
        else:
            attributes[key] = value

    subject = ContentNode(
        id=subject_node_id(user_id, args.subject),
        user_id=user_id,
        kind=NodeType.SUBJECT,
        content=canonical_subject(args.subject),
        created_at=ref,
    )
    topic = ContentNode(user_id=user_id, kind=NodeType.TOPIC, content=args.topic, created_at=ref)
    nodes = [subject, topic]
    edges = [
        StructuralEdge(
            src_id=subject.id,
            dst_id=topic.id,
            type=EdgeType.MEMORY_TYPE,
            label=args.memory_type.zh if zh else args.memory_type.value,
        )
    ]
    if args.object:
        obj = ContentNode(
            user_id=user_id, kind=NodeType.OBJECT, content=args.object, created_at=ref
        )
        nodes.append(obj)
        zh_rel, en_rel = _CORE_RELATION[args.memory_type]
        edges.append(
            StructuralEdge(
                src_id=topic.id,
                dst_id=obj.id,
                type=EdgeType.CORE_RELATION,
                label=zh_rel if zh else en_rel,
            )
        )
    for key, value in attributes.items():
        node = ContentNode(user_id=user_id, kind=NodeType.VALUE, content=value, created_at=ref)
        nodes.append(node)
        edges.append(
            StructuralEdge(src_id=topic.id, dst_id=node.id, type=EdgeType.ATTRIBUTE, label=key)
        )

    title, text = _describe(args.subject, args.topic, args.object, attributes, zh)
    memory = Memory(
        user_id=user_id,
        memory_type=args.memory_type,
        title=title,
        text=text,
        importance=args.importance,
        status=MemoryStatus.STAGED,
        created_at=ref,
        event_time=event_time,
        valid_from=event_time or ref,
        session_id=session_id,
        source=source,
        attributes=attributes,
        metadata=metadata,
    )
    return MemorySubgraph(memory=memory, nodes=nodes, edges=edges)


def _describe(
    subject: str, topic: str, obj: str | None, attributes: dict[str, str], zh: bool
) -> tuple[str, str]:
    """A short title and a readable sentence for the memory hub."""
    parts = [p.strip() for p in (subject, topic, obj) if p]
    title = ("" if zh else " ").join(parts)
    if len(title) > 200:
        title = title[:199] + "…"
    text = " ".join(parts)
    if attributes:
        if zh:
            text += "（" + "；".join(f"{k}：{v}" for k, v in attributes.items()) + "）"
        else:
            text += " (" + "; ".join(f"{k}: {v}" for k, v in attributes.items()) + ")"
    return title, text
