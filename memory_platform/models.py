"""The graph model as pydantic types: enums that accept the seed's Chinese and English
values, and the records every backend stores and returns."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from .errors import InvalidInputError
from .privacy import is_sensitive

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_TEXT_CHARS",
    "TOLD_BY_KEY",
    "AuditEntry",
    "ContentNode",
    "EdgeType",
    "Episode",
    "ExpansionHit",
    "KnowledgePoint",
    "KnowledgeType",
    "KnowledgeVersion",
    "LexicalHit",
    "LinkType",
    "Memory",
    "MemoryLink",
    "MemoryStatus",
    "MemorySubgraph",
    "MemoryType",
    "Message",
    "NodeType",
    "PathStep",
    "RelationType",
    "StructuralEdge",
    "UpdateAction",
    "VectorHit",
    "VectorKind",
    "episodes_named",
    "invalid_input_from",
    "new_id",
    "utc",
    "utcnow",
    "validated",
]

MAX_CONTENT_CHARS = 1_000
"""Longest subject, topic, object or attribute value accepted."""
MAX_TEXT_CHARS = 20_000
"""Longest memory text, episode or knowledge content accepted."""
MAX_ID_CHARS = 128

SEARCHABLE_KEY = "searchable"
"""Metadata key: ``False`` keeps an episode out of every search (see :attr:`Episode.searchable`)."""


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC (the only kind of time stored)."""
    return datetime.now(UTC)


_id_lock = threading.Lock()
_last_id_ms = 0
_id_counter = 0


def new_id() -> str:
    """A fresh id: 32 hex characters that sort in creation order (as UUIDv7 does).

    48 bits of milliseconds, a 16-bit counter for ids made in the same millisecond by
    this process, then 64 random bits; so listings ordered by id follow write order.
    """
    global _last_id_ms, _id_counter
    with _id_lock:
        now_ms = time.time_ns() // 1_000_000
        if now_ms <= _last_id_ms:
            _id_counter += 1
            now_ms = _last_id_ms
        else:
            _id_counter = 0
            _last_id_ms = now_ms
        counter = _id_counter & 0xFFFF
    return f"{now_ms:012x}{counter:04x}{secrets.randbits(64):016x}"


def utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive datetime is taken to be UTC already (as everywhere in the
    platform), never the machine's local time.

    Raises:
        InvalidInputError: the time has no UTC date (``0001-01-01T00:00+01:00`` falls in
            year 0); a ValueError, so a pydantic model reports it as invalid input.
    """
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise InvalidInputError(f"{value.isoformat()} is out of the range of dates in UTC") from exc


def _as_utc(value: datetime | None) -> datetime | None:
    return None if value is None else utc(value)


def _as_given(value: datetime) -> datetime:
    """A time kept as the caller gave it: one with no zone for the platform to read in
    the deployment's time zone (``MEMORY_TIMEZONE``), which a model does not know, and
    a zoned one on its own clock (:mod:`memory_platform.clock`), once it is known to
    have a date in UTC."""
    if value.tzinfo is not None:
        utc(value)
    return value


def valid_unicode(text: str) -> bool:
    """Whether a string is text either store can keep: no lone surrogate (half of a
    UTF-16 pair, which a JSON ``\\ud800`` escape gives Python and UTF-8 cannot encode)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_identifier(value: object, field: str) -> str:
    """A user or session id as stored: a non-blank string of at most 128 printable
    characters (no control characters, no lone surrogates), stripped of outer spaces.

    Raises:
        InvalidInputError: naming ``field`` and what is wrong.
    """
    from .errors import InvalidInputError

    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError("must be a non-empty string", field)
    if len(value) > MAX_ID_CHARS:
        raise InvalidInputError(f"longer than {MAX_ID_CHARS} characters", field)
    if not value.isprintable():  # control characters, and lone surrogates (category Cs)
        raise InvalidInputError("must not contain control characters or lone surrogates", field)
    return value.strip()


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or blank")
    return value.strip()


UserId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS), AfterValidator(_not_blank)]
Identifier = Annotated[
    str, Field(min_length=1, max_length=MAX_ID_CHARS), AfterValidator(_not_blank)
]
Content = Annotated[
    str, Field(min_length=1, max_length=MAX_CONTENT_CHARS), AfterValidator(_not_blank)
]
Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS), AfterValidator(_not_blank)]
UtcDatetime = Annotated[datetime, AfterValidator(_as_utc)]
GivenDatetime = Annotated[datetime, AfterValidator(_as_given)]
"""A time as a caller gives it: on the clock it names, or with none for the platform to
read in the deployment's time zone (``MEMORY_TIMEZONE``)."""
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class _BilingualEnum(StrEnum):
    """A string enum whose members also answer to their Chinese label and aliases."""

    @classmethod
    def _labels(cls) -> dict[str, str]:
        """Map of alias (Chinese or English, lower-case) to member value."""
        return {}

    @classmethod
    def _missing_(cls, value: object) -> Self | None:
        if isinstance(value, str):
            key = value.strip().lower()
            for member in cls:
                if member.value == key or member.name.lower() == key:
                    return member
            target = cls._labels().get(key)
            if target is not None:
                return cls(target)
        return None

    @classmethod
    def accepted(cls) -> list[str]:
        """Every spelling accepted on input, for error messages."""
        return [m.value for m in cls] + list(cls._labels())


class MemoryType(_BilingualEnum):
    """What kind of memory (seed 000 §3.2)."""

    EVENT = "event"
    FACT = "fact"
    RELATION = "relation"
    OPINION = "opinion"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {"事件": "event", "事实": "fact", "关系": "relation", "观点": "opinion"}

    @property
    def zh(self) -> str:
        return {v: k for k, v in self._labels().items()}[self.value]


class NodeType(_BilingualEnum):
    """Content node kinds (seed 000 §3.1); the value is also the Neo4j label."""

    SUBJECT = "Subject"
    TOPIC = "Topic"
    OBJECT = "Object"
    ATTRIBUTE = "Attribute"
    VALUE = "Value"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {
            "主体": "Subject",
            "主题": "Topic",
            "客体": "Object",
            "属性": "Attribute",
            "值": "Value",
            "subject": "Subject",
            "topic": "Topic",
            "object": "Object",
            "attribute": "Attribute",
            "value": "Value",
        }


class EdgeType(_BilingualEnum):
    """Every relationship type in the graph; the value is the Neo4j relationship type."""

    MEMORY_TYPE = "MEMORY_TYPE"
    CORE_RELATION = "CORE_RELATION"
    ATTRIBUTE = "ATTRIBUTE"
    INCLUDES = "INCLUDES"
    CAUSES = "CAUSES"
    REFERS_TO = "REFERS_TO"
    RELATED_TO = "RELATED_TO"
    CONFLICTS_WITH = "CONFLICTS_WITH"
    SUPERSEDES = "SUPERSEDES"
    NEXT = "NEXT"
    MENTIONS = "MENTIONS"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {
            "记忆类型": "MEMORY_TYPE",
            "核心关系": "CORE_RELATION",
            "属性关系": "ATTRIBUTE",
            "因果关系": "CAUSES",
            "引用关系": "REFERS_TO",
        }


class LinkType(_BilingualEnum):
    """Memory-to-memory relationship types (a subset of :class:`EdgeType`)."""

    CAUSES = "CAUSES"
    REFERS_TO = "REFERS_TO"
    RELATED_TO = "RELATED_TO"
    CONFLICTS_WITH = "CONFLICTS_WITH"
    SUPERSEDES = "SUPERSEDES"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {"因果关系": "CAUSES", "引用关系": "REFERS_TO", "相关": "RELATED_TO"}


class RelationType(_BilingualEnum):
    """``link_memories`` relation types (seed 000 §4.3); each maps to a :class:`LinkType`.

    In every example of the seed the source memory is the cause or the thing cited,
    so all of them keep the source → target direction.
    """

    BECAUSE = "because"
    SO = "so"
    CAUSES = "causes"
    CITES = "cites"
    BASED_ON = "based_on"
    RELATED = "related"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {
            "因为": "because",
            "所以": "so",
            "导致": "causes",
            "引用": "cites",
            "基于": "based_on",
            "相关": "related",
            "cause": "causes",
            "based on": "based_on",
            "related_to": "related",
            "refers_to": "cites",
        }

    @property
    def zh(self) -> str:
        return {
            "because": "因为",
            "so": "所以",
            "causes": "导致",
            "cites": "引用",
            "based_on": "基于",
            "related": "相关",
        }[self.value]

    @property
    def link_type(self) -> LinkType:
        if self in (RelationType.BECAUSE, RelationType.SO, RelationType.CAUSES):
            return LinkType.CAUSES
        if self in (RelationType.CITES, RelationType.BASED_ON):
            return LinkType.REFERS_TO
        return LinkType.RELATED_TO


class MemoryStatus(_BilingualEnum):
    """Lifecycle of a memory (seed 000 §12.2)."""

    STAGED = "staged"
    CONSOLIDATED = "consolidated"
    ARCHIVED = "archived"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {"未整理": "staged", "已整理": "consolidated", "归档": "archived"}


class UpdateAction(_BilingualEnum):
    """What ``update_memory`` does to a memory (seed 000 §9.3)."""

    CORRECT = "correct"
    RETRACT = "retract"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {"纠正": "correct", "更正": "correct", "撤回": "retract"}


class VectorKind(StrEnum):
    """What an embedding belongs to; each kind has its own vector index."""

    TOPIC = "topic"
    OBJECT = "object"
    MEMORY = "memory"
    EPISODE = "episode"
    KNOWLEDGE = "knowledge"


class KnowledgeType(_BilingualEnum):
    """Knowledge point categories of seed 001."""

    WORLD_MODEL = "WorldModel"
    EXPERIENTIAL = "ExperientialKnowledge"
    OTHER = "OtherKnowledge"

    @classmethod
    def _labels(cls) -> dict[str, str]:
        return {
            "worldmodel": "WorldModel",
            "experientialknowledge": "ExperientialKnowledge",
            "otherknowledge": "OtherKnowledge",
            "世界模型": "WorldModel",
            "经验知识": "ExperientialKnowledge",
            "其他知识": "OtherKnowledge",
        }


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)


class ContentNode(_Model):
    """A Subject, Topic, Object or Value node; shared between memories once merged."""

    id: Identifier = Field(default_factory=new_id)
    user_id: UserId
    kind: NodeType
    content: Content
    created_at: UtcDatetime = Field(default_factory=utcnow)
    merged_from: list[str] = Field(default_factory=list)


class StructuralEdge(_Model):
    """An edge inside one memory's subgraph: MEMORY_TYPE, CORE_RELATION or ATTRIBUTE.

    ``label`` is the memory type, the relation word or the attribute key.
    """

    src_id: Identifier
    dst_id: Identifier
    type: EdgeType
    label: Content

    @field_validator("type")
    @classmethod
    def _structural(cls, value: EdgeType) -> EdgeType:
        if value not in (EdgeType.MEMORY_TYPE, EdgeType.CORE_RELATION, EdgeType.ATTRIBUTE):
            raise ValueError("a structural edge is MEMORY_TYPE, CORE_RELATION or ATTRIBUTE")
        return value


class Memory(_Model):
    """The hub of one memory (``:Memory``)."""

    id: Identifier = Field(default_factory=new_id)
    user_id: UserId
    memory_type: MemoryType
    title: Content
    text: Text
    importance: Unit = 0.5
    status: MemoryStatus = MemoryStatus.STAGED
    created_at: UtcDatetime = Field(default_factory=utcnow)
    event_time: UtcDatetime | None = None
    last_accessed: UtcDatetime | None = None
    access_count: int = Field(0, ge=0)
    valid_from: UtcDatetime | None = None
    invalid_at: UtcDatetime | None = None
    session_id: str | None = Field(None, max_length=MAX_ID_CHARS)
    source: str | None = Field(None, max_length=MAX_CONTENT_CHARS)
    attributes: dict[str, str] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def sensitive(self) -> bool:
        """Marked sensitive (see :mod:`memory_platform.privacy`)."""
        return is_sensitive(self.metadata)


class MemorySubgraph(_Model):
    """One memory with its content nodes and structural edges, written as a unit."""

    memory: Memory
    nodes: list[ContentNode] = Field(min_length=1)
    edges: list[StructuralEdge] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> MemorySubgraph:
        user = self.memory.user_id
        ids = [n.id for n in self.nodes]
        if len(set(ids)) != len(ids):
            raise ValueError("node ids must be unique within a memory")
        for node in self.nodes:
            if node.user_id != user:
                raise ValueError(f"node {node.id} belongs to another user than its memory")
        known = set(ids)
        for edge in self.edges:
            if edge.src_id not in known or edge.dst_id not in known:
                raise ValueError("every edge must join two nodes of the same memory")
        return self

    def node(self, kind: NodeType) -> ContentNode | None:
        """The first node of a kind, if any."""
        return next((n for n in self.nodes if n.kind == kind), None)


class MemoryLink(_Model):
    """A memory-to-memory relationship (CAUSES, REFERS_TO, ...)."""

    user_id: UserId
    source_id: Identifier
    target_id: Identifier
    type: LinkType
    importance: Unit = 0.6
    discovered: bool = False
    confidence: Unit = 1.0
    created_at: UtcDatetime = Field(default_factory=utcnow)

    @model_validator(mode="after")
    def _no_self_loop(self) -> MemoryLink:
        if self.source_id == self.target_id:
            raise ValueError("a memory cannot be linked to itself")
        return self


TOLD_BY_KEY = "episode_ids"
"""The metadata key of what retells stored episodes (a mid-term summary, a memory or a
knowledge point extracted from a session) naming them: forgetting one forgets it."""


def episodes_named(metadata: Mapping[str, Any]) -> set[str]:
    """The episodes an item's metadata names under :data:`TOLD_BY_KEY`: the strings of a
    list there (anything else names none; the SQLite store's index reads it the same way)."""
    value = metadata.get(TOLD_BY_KEY)
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


class Episode(_Model):
    """A raw or summarised piece of conversation (seeds 002 / 003)."""

    id: Identifier = Field(default_factory=new_id)
    user_id: UserId
    text: Text
    session_id: str | None = Field(None, max_length=MAX_ID_CHARS)
    speaker: str | None = Field(None, max_length=MAX_CONTENT_CHARS)
    timestamp: UtcDatetime = Field(default_factory=utcnow)
    keywords: list[str] = Field(default_factory=list)
    importance: Unit = 0.5
    access_count: int = Field(0, ge=0)
    metadata: dict[str, Any] = Field(default_factory=dict)
    expires_at: UtcDatetime | None = None
    """When the episode ends (a LangGraph item's TTL): from then on no search matches it,
    nor does a session's extraction or summary read it, and the daily maintenance deletes
    it (``purge_expired``)."""

    @property
    def sensitive(self) -> bool:
        """Marked sensitive (see :mod:`memory_platform.privacy`)."""
        return is_sensitive(self.metadata)

    def expired(self, now: datetime) -> bool:
        """Whether the episode's expiry (:attr:`expires_at`) has come by ``now``."""
        return self.expires_at is not None and self.expires_at <= now

    @property
    def searchable(self) -> bool:
        """False when its metadata says ``"searchable": false``: the episode is kept, read,
        listed and exported, but neither embedded nor indexed for words, so no search
        matches it and it takes no search's place (a record that is not something said,
        such as a LangGraph item put with ``index=False``). In a session it keeps its place
        among the turns, but its words are no context of the turns around it either, and
        the session's extraction and summaries leave it out."""
        return self.metadata.get(SEARCHABLE_KEY) is not False


class KnowledgePoint(_Model):
    """One extracted piece of knowledge with a 0-100 score (seed 001)."""

    id: Identifier = Field(default_factory=new_id)
    content: Text
    type: KnowledgeType = KnowledgeType.OTHER
    score: float = Field(50.0, ge=0, le=100)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def sensitive(self) -> bool:
        """Marked sensitive (see :mod:`memory_platform.privacy`)."""
        return is_sensitive(self.metadata)


class KnowledgeVersion(_Model):
    """The knowledge extracted from one session: a new version per extraction."""

    version_id: Identifier = Field(default_factory=new_id)
    user_id: UserId
    session_id: str | None = Field(None, max_length=MAX_ID_CHARS)
    created_at: UtcDatetime = Field(default_factory=utcnow)
    points: list[KnowledgePoint] = Field(default_factory=list)
    through: UtcDatetime | None = None
    """When the last turn its extraction read was said (a recorded session's span); the
    session's turns said by then were read, even once that turn is deleted."""


class AuditEntry(_Model):
    """A record that something was forgotten or purged: what kind, which ids, when and
    by whom, with counts; never the content itself (seed 000 §9.2)."""

    id: Identifier = Field(default_factory=new_id)
    user_id: UserId
    action: Literal["forget", "purge"]
    target_kind: Literal["memory", "episode"]
    target_ids: list[str] = Field(default_factory=list)
    at: UtcDatetime = Field(default_factory=utcnow)
    actor: str | None = Field(None, max_length=MAX_ID_CHARS)
    counts: dict[str, int] = Field(default_factory=dict)


class Message(_Model):
    """One chat message handed to the platform by a chat backend. A ``timestamp`` with no
    zone stays so here; the platform reads it in the deployment's time zone. One with a
    UTC offset other than zero is kept on that clock, the user's, for the LLM to read
    the message on (:mod:`memory_platform.clock`)."""

    role: Literal["user", "assistant", "system", "tool"]
    content: Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
    timestamp: GivenDatetime = Field(
        default_factory=utcnow,
        description="when it was said, on the user's clock (+08:00); no zone: MEMORY_TIMEZONE's",
    )
    name: str | None = Field(None, max_length=MAX_ID_CHARS)


class VectorHit(BaseModel):
    """A nearest-neighbour answer: the id of what matched and its cosine similarity."""

    ref_id: str
    score: float


class LexicalHit(BaseModel):
    """A lexical answer; ``score`` is higher-is-better (negated BM25 or Lucene score)."""

    kind: VectorKind
    ref_id: str
    score: float


class PathStep(BaseModel):
    """One hop of an expansion path.

    ``relation`` is a :class:`LinkType` value or ``SHARED_NODE``; ``direction`` tells
    whether the link was followed along (``out``) or against (``in``) its arrow;
    ``via`` names the shared node's content for ``SHARED_NODE`` hops; ``weight`` is the
    link's importance times its confidence, or one over the shared node's degree.
    """

    from_id: str
    to_id: str
    relation: str
    direction: Literal["out", "in", "both"]
    via: str | None = None
    weight: float = 1.0


class ExpansionHit(BaseModel):
    """A memory reached from the seeds, with its graph distance and one shortest path."""

    memory_id: str
    distance: int
    path: list[PathStep]


M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], /, **values: Any) -> M:
    """Build a model, turning pydantic's error into :class:`InvalidInputError`.

    The message names each bad field and says what it must be, in words an LLM
    or a person can act on.
    """
    try:
        return model(**values)
    except ValidationError as exc:
        raise invalid_input_from(exc) from exc


def invalid_input_from(exc: ValidationError) -> InvalidInputError:
    """One readable :class:`InvalidInputError` from a pydantic validation error, naming
    the field when one field is wrong."""
    errors = [
        (".".join(str(p) for p in err["loc"]), err["msg"].removeprefix("Value error, "))
        for err in exc.errors()
    ]
    fields = {loc for loc, _ in errors}
    if len(fields) == 1 and (field := fields.pop()):
        return InvalidInputError("; ".join(msg for _, msg in errors), field)
    return InvalidInputError("; ".join(f"{loc}: {msg}" if loc else msg for loc, msg in errors))
