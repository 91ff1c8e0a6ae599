"""Rule-based relation discovery and conflict detection (seed 000 §12.4.3, §9.2).

Conflicts: the same subject holding opposite opinions about the same thing (喜欢 vs 讨厌,
like vs hate), or two values of a single-valued fact (where someone lives, their job,
age, name). Only states can supersede one another: an event does not make an earlier one
untrue (overtime on Monday, a meeting on Friday; a stay in Berlin, then one in Paris), so
a pair of which either is an event never conflicts (:func:`is_state`; nor is it put to
the LLM). Causes: a later memory whose stated reason (原因 / reason attribute) matches an
earlier one of the same session. An LLM, when configured, adjudicates the cases these
rules cannot see; the rules keep working without one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import ContentNode, Memory, MemoryType, NodeType
from ..store import MemoryRecord
from ..textutil import normalize_name, word_tokens

__all__ = [
    "MemoryParts",
    "causal_by_wording",
    "comparable_topics",
    "conflict_between",
    "is_state",
    "parts_of",
    "rules_can_judge",
    "single_valued_relation",
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
_SINGLE_VALUED_GROUPS: dict[str, tuple[str, ...]] = {
    # one relation, however it is written: Chinese and English, verb forms, spacing
    "residence": (
        "住址", "住在", "住", "住于", "居住", "居住在", "居住地", "现居", "lives in", "live in",
        "living in", "lived in", "lives", "live", "resides in", "reside in", "residence",
        "address", "home", "based in",
    ),
    "hometown": ("家乡", "老家", "hometown", "comes from", "come from", "is from"),
    # not 工作 (work: "工作 压力很大" says how work goes) nor 当 (serve as: 当志愿者 and
    # 当老师 both hold): the LLM, when configured, judges those
    "occupation": (
        "职业", "是一名", "occupation", "job", "profession", "works as", "work as",
        "working as",
    ),
    "employer": (
        "工作单位", "就职于", "在职于", "works at", "work at", "working at", "works for",
        "work for", "employer",
    ),
    "age": ("年龄", "岁数", "age"),
    "birthday": ("生日", "出生日期", "birthday", "date of birth", "born on"),
    "name": ("名字", "姓名", "叫", "name", "is called", "called"),
    "height": ("身高", "height"),
    "weight": ("体重", "weight"),
    "marital status": ("婚姻状况", "marital status"),
}  # fmt: skip
_RELATION_OF: dict[str, str] = {
    normalize_name(spelling): relation
    for relation, spellings in _SINGLE_VALUED_GROUPS.items()
    for spelling in spellings
}
"""Normalised topic -> the single-valued relation it names."""


def single_valued_relation(topic: str) -> str | None:
    """The single-valued relation a (normalised) topic names, in any of its spellings."""
    return _RELATION_OF.get(normalize_name(topic))


_REASON_KEYS = {"原因", "因为", "reason", "because", "cause"}


@dataclass(frozen=True)
class MemoryParts:
    """The parts of a memory the rules compare."""

    memory: Memory
    subject_id: str | None
    topic: str
    object: str | None
    topic_id: str | None
    object_id: str | None = None


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
        object_id=obj.id if obj else None,
    )


def _polarity(topic: str) -> int:
    if topic in _POSITIVE:
        return 1
    if topic in _NEGATIVE:
        return -1
    return 0


def comparable_topics(topic: str) -> set[str]:
    """Topic names a memory with this topic may conflict with: itself, its opposites and
    the other spellings of its single-valued relation."""
    names = {topic}
    if topic in _POSITIVE:
        names |= _NEGATIVE
    elif topic in _NEGATIVE:
        names |= _POSITIVE
    relation = single_valued_relation(topic)
    if relation is not None:
        names |= {spelling for spelling, other in _RELATION_OF.items() if other == relation}
    return names


def rules_can_judge(topic: str) -> bool:
    """Whether these rules can find a conflict for a memory of this (normalised) topic: an
    opinion that has opposites, or a single-valued relation. Otherwise only an LLM can,
    and with none configured no other memory need be read."""
    return _polarity(topic) != 0 or single_valued_relation(topic) is not None


def is_state(item: MemoryParts | Memory) -> bool:
    """Whether the memory says how things are, not what happened (an event, true of its
    time for good): only a state can be made untrue by a newer memory."""
    memory = item.memory if isinstance(item, MemoryParts) else item
    return memory.memory_type != MemoryType.EVENT


def conflict_between(a: MemoryParts, b: MemoryParts) -> str | None:
    """Why two memories contradict each other, or None when they do not."""
    if a.subject_id is None or a.subject_id != b.subject_id or a.memory.id == b.memory.id:
        return None
    if not (is_state(a) and is_state(b)):
        return None
    pa, pb = _polarity(a.topic), _polarity(b.topic)
    if pa and pb and pa != pb and a.object and a.object == b.object:
        return "opposite opinions about the same thing"
    relation = single_valued_relation(a.topic)
    if (
        relation is not None
        and relation == single_valued_relation(b.topic)
        and a.object
        and b.object
        and a.object != b.object
    ):
        return f"two values of a single-valued fact ({relation})"
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
