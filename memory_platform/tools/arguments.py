"""Pydantic models of the tools' arguments: the edge where LLM output is validated.

Enum fields accept the seed's Chinese values and their English equivalents, and their
errors list both, so an LLM holding either variant of the schema can correct itself.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from ..models import MAX_CONTENT_CHARS, MAX_TEXT_CHARS, MemoryType, RelationType, UpdateAction

__all__ = [
    "CreateMemoryArgs",
    "ForgetMemoryArgs",
    "LinkMemoriesArgs",
    "SearchMemoriesArgs",
    "TimeRangeArgs",
    "UpdateMemoryArgs",
]

MAX_ATTRIBUTES = 20


def _enum(enum: type[Any], value: Any) -> Any:
    if isinstance(value, enum):
        return value
    try:
        return enum(value)
    except (ValueError, TypeError):
        allowed = " / ".join(enum.accepted())
        raise ValueError(f"{value!r} is not allowed; use one of: {allowed}") from None


def _memory_type(value: Any) -> MemoryType:
    return _enum(MemoryType, value)  # type: ignore[no-any-return]


def _relation_type(value: Any) -> RelationType:
    return _enum(RelationType, value)  # type: ignore[no-any-return]


def _update_action(value: Any) -> UpdateAction:
    return _enum(UpdateAction, value)  # type: ignore[no-any-return]


def _stripped(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


ShortText = Annotated[
    str, BeforeValidator(_stripped), Field(min_length=1, max_length=MAX_CONTENT_CHARS)
]
LongText = Annotated[
    str, BeforeValidator(_stripped), Field(min_length=1, max_length=MAX_TEXT_CHARS)
]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class CreateMemoryArgs(_Args):
    """Arguments of ``create_memory`` (seed 000 §4.2, Appendix A)."""

    subject: ShortText
    memory_type: Annotated[MemoryType, BeforeValidator(_memory_type)]
    topic: ShortText
    object: ShortText | None = None
    attributes: dict[str, str] = Field(default_factory=dict)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    sensitive: bool | None = None

    @field_validator("object", mode="before")
    @classmethod
    def _empty_object_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("attributes", mode="before")
    @classmethod
    def _attributes(cls, value: Any) -> Any:
        return {k: v for k, v in clean_attributes(value).items() if v}


def clean_attributes(value: Any) -> dict[str, str]:
    """Validate an attribute map from an LLM: string keys of 1-64 characters, string (or
    number) values, stripped; an empty value is kept as "" for the caller to interpret."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError('must be an object of key-value pairs, e.g. {"时间": "今天"}')
    if len(value) > MAX_ATTRIBUTES:
        raise ValueError(f"at most {MAX_ATTRIBUTES} attributes")
    out: dict[str, str] = {}
    for key, raw in value.items():
        name = str(key).strip()
        if not name or len(name) > 64:
            raise ValueError("attribute names must have 1 to 64 characters")
        if raw is None:
            out[name] = ""
            continue
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise ValueError(f"attribute {name!r} must be a string")
        text = str(raw).strip()
        if len(text) > MAX_CONTENT_CHARS:
            raise ValueError(f"attribute {name!r} is longer than {MAX_CONTENT_CHARS} characters")
        out[name] = text
    return out


class LinkMemoriesArgs(_Args):
    """Arguments of ``link_memories`` (seed 000 §4.3, Appendix A)."""

    source_memory_description: LongText
    target_memory_description: LongText
    relation_type: Annotated[RelationType, BeforeValidator(_relation_type)]
    importance: float = Field(0.6, ge=0.0, le=1.0)


class TimeRangeArgs(_Args):
    """A time range; each end may be absolute or relative (``上周一``, ``yesterday``)."""

    start: ShortText | None = None
    end: ShortText | None = None


class SearchMemoriesArgs(_Args):
    """Arguments of ``search_memories`` (seed 000 §4.4, Appendix A)."""

    query: LongText
    memory_types: list[Annotated[MemoryType, BeforeValidator(_memory_type)]] | None = None
    time_range: TimeRangeArgs | None = None
    max_results: int = Field(10, ge=1, le=100)
    expand_depth: int = Field(1, ge=0, le=2)
    min_relevance: float | None = Field(None, ge=0, le=1)
    include_sensitive: bool = False


class UpdateMemoryArgs(_Args):
    """Arguments of ``update_memory``: correct or retract a memory (seed 000 §9.3).

    Attributes given replace those of the same name in any case (a time key, 时间 or
    date, replaces the memory's time); an empty value removes one.
    """

    memory_description: LongText
    action: Annotated[UpdateAction, BeforeValidator(_update_action)] = UpdateAction.CORRECT
    object: ShortText | None = None
    attributes: dict[str, str] | None = None
    importance: float | None = Field(None, ge=0.0, le=1.0)
    memory_type: Annotated[MemoryType, BeforeValidator(_memory_type)] | None = None
    sensitive: bool | None = None
    reason: LongText | None = None

    @field_validator("attributes", mode="before")
    @classmethod
    def _attributes(cls, value: Any) -> Any:
        return None if value is None else clean_attributes(value)

    @field_validator("reason", "object", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    def changes_anything(self) -> bool:
        """Whether a correction says what to change."""
        return any(
            v is not None
            for v in (
                self.object,
                self.attributes,
                self.importance,
                self.memory_type,
                self.sensitive,
            )
        )


class ForgetMemoryArgs(_Args):
    """Arguments of ``forget_memory``: delete a memory for good (seed 000 §9.2)."""

    memory_description: LongText
