"""Request and response bodies of the HTTP API (the tool argument models are reused)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..layers import BufferedMessage
from ..models import KnowledgePoint, Message
from ..retrieval import SearchResult
from ..tools.arguments import SearchMemoriesArgs


class SearchRequest(SearchMemoriesArgs):
    """``search_memories`` arguments plus the options of :meth:`MemoryPlatform.search`."""

    mode: Literal["auto", "fast", "deep"] = "auto"
    relation_types: list[str] | None = None
    include_invalid: bool = False
    kinds: tuple[Literal["memory", "episode"], ...] = ("memory", "episode")
    record_access: bool = True


class SearchResponse(BaseModel):
    results: list[SearchResult]
    context: str = Field(description="the <memory_context> block for a prompt, two layers")


class MessagesRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    messages: list[Message] = Field(min_length=1, max_length=1000)


class EpisodeIn(BaseModel):
    """One episode as :meth:`MemoryPlatform.add_episodes` takes it: a turn of a
    conversation or a note, who said it, metadata returned unchanged by search
    (``"searchable": false`` keeps it out of search), and when it ends, if it does."""

    model_config = ConfigDict(extra="forbid")

    text: str
    timestamp: datetime | None = Field(
        None,
        description="when it was said (default: now); an offset other than UTC's names the "
        "speaker's clock (+08:00), on which the workers read the turn",
    )
    session_id: str | None = None
    speaker: str | None = Field(None, description="who said it, not pasted into the text")
    metadata: dict[str, Any] | None = None
    keywords: list[str] | None = None
    importance: float | None = Field(None, ge=0, le=1)
    expires_at: datetime | None = Field(
        None, description="from then on no search matches it; the daily maintenance deletes it"
    )


class EpisodesRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    episodes: list[EpisodeIn] = Field(min_length=1, max_length=1000)


class MessagesResponse(BaseModel):
    """The ids of the episodes stored, in order (messages are stored as episodes)."""

    episode_ids: list[str]


class RecentMessages(BaseModel):
    messages: list[BufferedMessage]


class JobAccepted(BaseModel):
    job_id: str


class JobStatus(BaseModel):
    job_id: str
    state: str
    result: Any = None
    error: str | None = None


class KnowledgeResponse(BaseModel):
    points: list[KnowledgePoint]


class FunctionCall(BaseModel):
    name: str = Field(max_length=200)
    arguments: str | dict[str, Any] | None = Field(
        None, description="the JSON string an LLM sends, or the parsed object"
    )


class ToolCall(BaseModel):
    id: str = Field(max_length=200)
    type: Literal["function"] = "function"
    function: FunctionCall


class AssistantMessage(BaseModel):
    """An OpenAI-style assistant message; only its tool calls are used."""

    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list, max_length=100)


class ToolCallsRequest(BaseModel):
    message: AssistantMessage


class ErrorBody(BaseModel):
    error: str
    field: str | None = None
