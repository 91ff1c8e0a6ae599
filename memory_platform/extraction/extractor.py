"""Session-end extraction (seed 001): a finished conversation becomes knowledge and memories.

The transcript goes to the LLM with a prompt asking for one JSON object: knowledge
points (WorldModel / ExperientialKnowledge / OtherKnowledge, each scored 0-100) and
memories in the ``create_memory`` schema, each citing the numbered turns it comes from
(:class:`Sourced`: what forgetting a turn takes along). The answer's shape is checked by
the LLM client, which asks again on a malformed answer (up to ``llm_max_retries``
attempts); each item is then validated on its own (seed 001 §4.5) and every rejected
item is reported with its reason, never dropped silently. Writing happens only after
validation, under ids derived from the user and session, so extracting the same session
twice writes once.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError, field_validator

from ..builder import is_time_key
from ..clock import on_said_clock
from ..llm import LLMClient
from ..models import KnowledgePoint, KnowledgeType, Message
from ..privacy import SENSITIVE_KEY
from ..textutil import distinctive_terms, mentions, word_tokens
from ..tools.arguments import CreateMemoryArgs
from ..tools.schemas import memory_type_description

__all__ = [
    "Extraction",
    "ExtractionReport",
    "SessionExtractor",
    "Sourced",
    "Turn",
    "extraction_ids",
    "speaker_label",
]

_NAMESPACE = uuid.UUID("0b4c4a4e-2f4f-4a59-9a31-1f8b8f0f5e21")
_MAX_TRANSCRIPT_CHARS = 60_000
_MAX_EARLIER_CHARS = 6_000
"""How much of a resumed session's earlier turns is shown beside its new ones: the last
few exchanges, enough for "it" and "that trip" to be understood, not a second transcript."""

_EARLIER_HEADINGS = {
    "zh": ("此前的对话(已整理过,只用来理解下文,不要再从中提取):", "新的对话(只从这里提取):"),
    "en": (
        "Earlier in this conversation (already remembered: read it only to understand what"
        " follows, extract nothing from it):",
        "New since then (extract from these turns only):",
    ),
}

_PROMPT_TEXT = {
    "zh": """你负责在一次对话结束后整理用户的长期记忆。阅读对话记录,只输出一个 JSON 对象:
{"knowledge": [{"content": "一句完整的知识", "type": "WorldModel | ExperientialKnowledge | OtherKnowledge", "score": 0-100 的整数, "sensitive": true/false, "turns": [出处编号]}],
 "memories": [{"subject": "我/人名", "memory_type": "事件/事实/关系/观点", "topic": "主题", "object": "客体(可省略)",
               "attributes": {"时间": "..."}, "importance": 0-1, "sensitive": true/false, "turns": [出处编号]}]}
turns 列出该条内容出自哪几句对话:每句开头括号里的编号,如 (3)。
memory_type:{memory_types}。
WorldModel=关于世界、领域或用户的稳定认知;ExperientialKnowledge=从交互中总结的方法和经验;OtherKnowledge=其他值得记住的信息。
score 表示重要性:越重要越高。涉及健康、财务、账号密码、证件号码等隐私的条目标记 "sensitive": true。
用户说出自己的名字或昵称时,记为 {"subject": "我", "memory_type": "事实", "topic": "名字"(或 "昵称"), "object": 名字本身}。没有可提取的内容时返回空列表。""",
    "en": """You maintain a user's long-term memory after a conversation ends. Read the transcript and output one JSON object:
{"knowledge": [{"content": "one complete statement", "type": "WorldModel | ExperientialKnowledge | OtherKnowledge", "score": integer 0-100, "sensitive": true/false, "turns": [numbers]}],
 "memories": [{"subject": "I / a name", "memory_type": "event/fact/relation/opinion", "topic": "...", "object": "... (optional)",
               "attributes": {"time": "..."}, "importance": 0-1, "sensitive": true/false, "turns": [numbers]}]}
"turns" lists the turns each item comes from: the number in brackets that starts each turn, such as (3).
{memory_types}.
WorldModel = stable beliefs about the world, a domain or the user; ExperientialKnowledge = methods and lessons learned
from the interaction; OtherKnowledge = anything else worth remembering. score = importance, higher is more important.
Mark items about health, finances, credentials or identity numbers "sensitive": true.
When the user says what they are called, record it as {"subject": "I", "memory_type": "fact", "topic": "name"
(or "nickname"), "object": the name itself}. Return empty lists when there is nothing to keep.""",
}

_LANGUAGES: tuple[Literal["zh", "en"], ...] = ("zh", "en")
_PROMPT = {
    lang: _PROMPT_TEXT[lang].replace("{memory_types}", memory_type_description(lang))
    for lang in _LANGUAGES
}
"""The system prompt per language, the memory types defined as the tools define them."""


class _Answer(BaseModel):
    """The answer's outer shape; items are validated one by one afterwards."""

    knowledge: list[Any] = Field(default_factory=list)
    memories: list[Any] = Field(default_factory=list)


class _KnowledgeItem(BaseModel):
    """A knowledge point as the LLM must give it (seed 001 §4.5)."""

    content: str = Field(min_length=1, max_length=20_000)
    type: Literal["WorldModel", "ExperientialKnowledge", "OtherKnowledge"]
    score: int = Field(ge=0, le=100)
    metadata: dict[str, Any] = Field(default_factory=dict)
    sensitive: bool | None = None

    @field_validator("score", mode="before")
    @classmethod
    def _integer(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("score must be an integer from 0 to 100")
        return value

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content must not be blank")
        return value.strip()


class ExtractionReport(BaseModel):
    """What one extraction did; ``status`` is done, duplicate, skipped or failed."""

    user_id: str
    session_id: str
    status: Literal["done", "duplicate", "skipped", "failed"]
    reason: str = ""
    version_id: str | None = None
    knowledge_points: int = 0
    memory_ids: list[str] = Field(default_factory=list)
    rejected: list[dict[str, Any]] = Field(default_factory=list)


def extraction_ids(user_id: str, session_id: str, through: str | None = None) -> tuple[str, str]:
    """The knowledge version id and the memory id prefix of a session's extraction: of
    the whole session as given (messages passed in, and recorded sessions extracted before
    2026-11-27), or of its recorded turns up to the turn ``through``."""
    key = f"{user_id}\x00{session_id}" + ("" if through is None else f"\x00{through}")
    base = uuid.uuid5(_NAMESPACE, key).hex
    return base, base[:24]


def speaker_label(role: str, name: str | None) -> str:
    """Who said a chat message: its role, after the name given (``Alice (user)``)."""
    return f"{name} ({role})" if name and name != role else role


@dataclass(frozen=True)
class Turn:
    """One turn of a transcript as the LLM reads it: who said it, when, and what."""

    speaker: str
    content: str
    timestamp: datetime

    @classmethod
    def of(cls, message: Message, zone: tzinfo = UTC) -> Turn:
        """A chat message's turn (:func:`speaker_label`), its time on the clock it names,
        else of ``zone`` (the deployment's: :func:`~memory_platform.clock.on_said_clock`):
        the day the LLM reads, and its 昨天 is counted from."""
        return cls(
            speaker_label(message.role, message.name),
            message.content,
            on_said_clock(message.timestamp, zone),
        )

    def line(self, number: int | None = None) -> str:
        """The turn as the transcript shows it; ``number``: its number, which the LLM
        cites as where an item comes from."""
        said = f"[{self.timestamp:%Y-%m-%d %H:%M}] {self.speaker}: {self.content}"
        return said if number is None else f"({number}) {said}"


def _tail(lines: Sequence[str], limit: int) -> str:
    """The last lines that fit in ``limit`` characters (at least the last one, cut)."""
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > limit:
            if not kept:
                kept.append(line[-limit:])
            break
        kept.append(line)
    return "\n".join(reversed(kept))


def _brief(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors()
    )


T = TypeVar("T")


@dataclass(frozen=True)
class Sourced(Generic[T]):
    """An extracted item and the indexes of the transcript's turns it comes from: those
    the LLM cited, else the only turn there is, else (a memory) the turns that say its
    distinctive words; none when nothing tells. A memory whose cited turns say none of
    its distinctive words while another turn does comes from both (:func:`_sources`)."""

    item: T
    turns: tuple[int, ...] = ()


@dataclass
class Extraction:
    """What one extraction gave: valid items with their turns, and the rejected items."""

    points: list[Sourced[KnowledgePoint]] = field(default_factory=list)
    memories: list[Sourced[CreateMemoryArgs]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)


class SessionExtractor:
    """Asks the LLM for a session's knowledge and memories and validates the answer."""

    def __init__(self, llm: LLMClient, lang: Literal["zh", "en"] = "zh") -> None:
        self._llm = llm
        self._lang = lang

    def transcript(self, turns: Sequence[Turn], earlier: Sequence[Turn] = ()) -> str:
        """What the LLM is given: the turns' last :data:`_MAX_TRANSCRIPT_CHARS`, after
        the earlier turns' last :data:`_MAX_EARLIER_CHARS` under a heading of their own."""
        new = _tail([t.line(n) for n, t in enumerate(turns, start=1)], _MAX_TRANSCRIPT_CHARS)
        context = _tail([t.line() for t in earlier], _MAX_EARLIER_CHARS)
        if not context:
            return new
        before, since = _EARLIER_HEADINGS[self._lang]
        return f"{before}\n{context}\n\n{since}\n{new}"

    def extract(self, turns: Sequence[Turn], earlier: Sequence[Turn] = ()) -> Extraction:
        """Valid knowledge points and memory arguments, each with the turns it comes
        from, and the rejected items, from ``turns``; ``earlier`` (a resumed session's
        turns extracted before) is shown as context only.

        Raises:
            ExtractionError: the LLM never returned a JSON object of the right shape.
            LLMUnavailableError: the endpoint failed (retry later).
        """
        answer = self._llm.complete_json(
            [
                {"role": "system", "content": _PROMPT[self._lang]},
                {"role": "user", "content": self.transcript(turns, earlier)},
            ],
            _Answer,
        )
        out = Extraction()
        whole = (0,) if len(turns) == 1 else ()  # what one turn gives comes from it
        for index, given in enumerate(answer.knowledge):
            cited, item = _cited(given, len(turns))
            try:
                valid = _KnowledgeItem.model_validate(item)
            except ValidationError as exc:
                out.rejected.append(
                    {"kind": "knowledge", "index": index, "item": given, "error": _brief(exc)}
                )
                continue
            point = KnowledgePoint(
                content=valid.content,
                type=KnowledgeType(valid.type),
                score=valid.score,
                metadata=valid.metadata
                | ({SENSITIVE_KEY: valid.sensitive} if valid.sensitive is not None else {}),
            )
            said = _words_said(point.content, turns)
            out.points.append(Sourced(point, _sources(cited or whole, said)))
        for index, given in enumerate(answer.memories):
            cited, item = _cited(given, len(turns))
            try:
                args = CreateMemoryArgs.model_validate(item)
            except ValidationError as exc:
                out.rejected.append(
                    {"kind": "memory", "index": index, "item": given, "error": _brief(exc)}
                )
                continue
            out.memories.append(Sourced(args, _sources(cited or whole, _said(args, turns))))
        return out


def _cited(item: Any, count: int) -> tuple[tuple[int, ...], Any]:
    """The turn indexes an item cites in ``turns`` (numbers from 1 to ``count``; others
    are ignored), and the item without them."""
    if not isinstance(item, dict) or "turns" not in item:
        return (), item
    rest = {k: v for k, v in item.items() if k != "turns"}
    numbers = item["turns"] if isinstance(item["turns"], list) else [item["turns"]]
    cited = {
        int(n)
        for n in numbers
        if (isinstance(n, int) and not isinstance(n, bool)) or (isinstance(n, str) and n.isdigit())
    }
    return tuple(sorted(n - 1 for n in cited if 1 <= n <= count)), rest


def _sources(cited: tuple[int, ...], said: Sequence[int]) -> tuple[int, ...]:
    """The turns an item comes from, given how much of it each turn says: those cited,
    joined by the turns that say the most of it when no cited turn says as much (an LLM
    that cites the question for what the answer said); with none cited, the turns that
    say the most of it (none when no turn says any).

    Forgetting a turn takes along what names it, so an item tied to the wrong turn would
    outlive "forget what I said". Joining, not replacing, keeps every turn either side
    points at: forgetting any of them forgets the item."""
    most = max(said, default=0)
    saying = tuple(i for i, count in enumerate(said) if count == most) if most else ()
    if not cited:
        return saying
    if most > max(said[i] for i in cited):
        return tuple(sorted({*cited, *saying}))
    return cited


def _words_said(content: str, turns: Sequence[Turn]) -> list[int]:
    """For each turn, how many of a knowledge point's words it says (stop words left
    out): a point is a sentence of its own, not a turn's words, so it is matched by the
    words it shares with each turn."""
    words = set(word_tokens(content))
    return [len(words.intersection(word_tokens(turn.content))) for turn in turns]


def _said(args: CreateMemoryArgs, turns: Sequence[Turn]) -> list[int]:
    """For each turn, how many of a memory's distinctive words it says (its object, or its
    topic without one, and its non-time attribute values)."""
    parts = [args.object or args.topic]
    parts += [v for k, v in args.attributes.items() if not is_time_key(k)]
    terms = distinctive_terms(parts)
    return [sum(mentions(turn.content, term) for term in terms) for turn in turns]
