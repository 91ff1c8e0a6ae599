"""Rule-based relation discovery and conflict detection (seed 000 §12.4.3, §9.2).

Conflicts: the same subject holding opposite opinions about the same thing (喜欢 vs 讨厌,
like vs hate), or two values of a single-valued fact (where someone lives, their job,
age, name). Causes: a later memory whose stated reason (原因 / reason attribute) matches
an earlier one of the same session. An LLM, when configured, adjudicates the cases these
rules cannot see; the rules keep working without one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import ContentNode, Memory, NodeType
from ..store import MemoryRecord
from ..textutil import normalize_name, word_tokens

__all__ = [
    "MemoryParts",
    "causal_by_wording",
    "comparable_topics",
    "conflict_between",
    "parts_of",
]

_POSITIVE = {
    "喜欢",
    "爱",
    "喜爱",
    "热爱",
    "钟爱",
    "like",
    "likes",
    "love",
    "loves",
    "enjoy",
    "enjoys",
}
_NEGATIVE = {
    "讨厌", "不喜欢", "厌恶", "恨", "反感", "hate", "hates", "dislike", "dislikes",
    "notlike", "doesnotlike", "dontlike",
}  # fmt: skip
_SINGLE_VALUED = {
    "住址", "住在", "居住地", "家乡", "职业", "工作", "工作单位", "年龄", "生日", "名字",
    "姓名", "身高", "体重", "婚姻状况", "livesin", "lives", "address", "home", "job",
    "occupation", "worksat", "age", "birthday", "name", "height", "weight",
}  # fmt: skip
_REASON_KEYS = {"原因", "因为", "reason", "because", "cause"}


@dataclass(frozen=True)
class MemoryParts:
    """The parts of a memory the rules compare."""

    memory: Memory
    subject_id: str | None
    topic: str
    object: str | None
    topic_id: str | None


def parts_of(record: MemoryRecord) -> MemoryParts:
    """Subject id, normalised topic and object of a memory."""

    def first(kind: NodeType) -> ContentNode | None:
        return next((n for n in record.nodes if n.kind == kind), None)

    subject, topic, obj = first(NodeType.SUBJECT), first(NodeType.TOPIC), first(NodeType.OBJECT)
    return MemoryParts(
        memory=record.memory,
        subject_id=subject.id if subject else None,
        topic=normalize_name(topic.content) if topic else "",
        object=normalize_name(obj.content) if obj else None,
        topic_id=topic.id if topic else None,
    )


def _polarity(topic: str) -> int:
    if topic in _POSITIVE:
        return 1
    if topic in _NEGATIVE:
        return -1
    return 0


def comparable_topics(topic: str) -> set[str]:
    """Topic names a memory with this topic may conflict with: itself and its opposites."""
    names = {topic}
    if topic in _POSITIVE:
        names |= _NEGATIVE
    elif topic in _NEGATIVE:
        names |= _POSITIVE
    return names


def conflict_between(a: MemoryParts, b: MemoryParts) -> str | None:
    """Why two memories contradict each other, or None when they do not."""
    if a.subject_id is None or a.subject_id != b.subject_id or a.memory.id == b.memory.id:
        return None
    pa, pb = _polarity(a.topic), _polarity(b.topic)
    if pa and pb and pa != pb and a.object and a.object == b.object:
        return "opposite opinions about the same thing"
    if (
        a.topic == b.topic
        and a.topic in _SINGLE_VALUED
        and a.object
        and b.object
        and a.object != b.object
    ):
        return "two values of a single-valued fact"
    return None


def causal_by_wording(earlier: Memory, later: Memory) -> bool:
    """Whether the later memory states the earlier one as its reason."""
    reasons = [v for k, v in later.attributes.items() if k.strip().lower() in _REASON_KEYS]
    if not reasons:
        return False
    cause = set(word_tokens(earlier.text))
    for reason in reasons:
        words = set(word_tokens(reason))
        if words and len(words & cause) / len(words) >= 0.5:
            return True
    return False
