"""LangChain adapter (``langchain-core`` only): tools, a retriever and a chat history.

- :func:`memory_tools` gives the three memory tools bound to one user, with the design's
  exact JSON schemas, for ``model.bind_tools(tools)`` and any tool-calling agent loop.
  A tool never raises on bad arguments: it returns the platform's JSON result, whose
  ``error`` tells the model what to fix.
- :class:`MemoryRetriever` is a ``BaseRetriever``: ``Document``s with the score, layer,
  graph distance and score components in ``metadata``.
- :class:`MemoryChatMessageHistory` records a session's messages (episodes plus the
  short-term buffer) and :meth:`~MemoryChatMessageHistory.end_session` queues the
  session's knowledge extraction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict, Field

from ..platform import MemoryPlatform
from ..retrieval import SearchResult
from ..retrieval.context import relation_label

__all__ = ["MemoryChatMessageHistory", "MemoryRetriever", "MemoryTool", "memory_tools"]


class MemoryTool(BaseTool):
    """One memory tool call bound to a user; the result is the platform's JSON.

    A result with ``success: false`` comes back as a ``ToolMessage`` with
    ``status="error"`` (the same JSON as content), so agent loops that route on the status
    see the failure; nothing is raised to the caller.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    platform: MemoryPlatform = Field(exclude=True)
    user_id: str
    reference_time: datetime | None = None
    handle_tool_error: bool = True

    def _run(self, *args: Any, run_manager: Any = None, **arguments: Any) -> str:
        result = self.platform.execute_tool(
            self.user_id, self.name, arguments, reference_time=self.reference_time
        )
        text = json.dumps(result, ensure_ascii=False, default=str)
        if result.get("success") is False:
            raise ToolException(text)
        return text


def memory_tools(
    platform: MemoryPlatform,
    user_id: str,
    *,
    lang: Literal["zh", "en"] = "en",
    reference_time: datetime | None = None,
    extended: bool = False,
) -> list[BaseTool]:
    """``create_memory``, ``link_memories`` and ``search_memories`` for one user (with
    ``extended``, also ``update_memory`` and ``forget_memory``).

    Args:
        platform: the memory platform the tools write to and read from.
        user_id: whose memory; every call is confined to it.
        lang: the language of the tool descriptions the model sees.
        reference_time: when the conversation happens (relative times such as 昨晚 or
            "yesterday" resolve to it); default: the moment of each call.
        extended: also give the model the tools that correct and forget memories.
    """
    return [
        MemoryTool(
            name=definition["function"]["name"],
            description=definition["function"]["description"],
            args_schema=definition["function"]["parameters"],
            platform=platform,
            user_id=user_id,
            reference_time=reference_time,
        )
        for definition in platform.tool_definitions(lang, extended=extended)
    ]


def result_document(result: SearchResult) -> Document:
    """A search result as a ``Document``: its text, and everything else as metadata."""
    metadata: dict[str, Any] = {
        "id": result.id,
        "kind": result.kind,
        "layer": result.layer,
        "score": result.score,
        "relevance": result.relevance,
        "graph_distance": result.graph_distance,
        "time": result.time,
        "components": result.components.model_dump(),
        "metadata": result.metadata,
    }
    if result.memory_type is not None:
        metadata["memory_type"] = str(result.memory_type)
    if result.path:
        last = result.path[-1]
        metadata["relation"] = relation_label(last.relation, last.direction)
    return Document(id=result.id, page_content=result.text, metadata=metadata)


class MemoryRetriever(BaseRetriever):
    """Hybrid, graph-expanded search over one user's memory as a LangChain retriever.

    ``k`` is how many documents at most (LangChain's usual name; also accepted per call,
    ``retriever.invoke(query, k=3)``). ``search_kwargs`` go to
    :meth:`MemoryPlatform.search` (``expand_depth``, ``mode``, ``memory_types``,
    ``time_range``, ``min_relevance`` for the relevance floor, ...). Each document's
    metadata carries its ``relevance``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    platform: MemoryPlatform = Field(exclude=True)
    user_id: str
    k: int = Field(10, ge=1, le=100)
    search_kwargs: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        options = {"max_results": self.k, **self.search_kwargs, **kwargs}
        if "k" in options:
            options["max_results"] = options.pop("k")
        results = self.platform.search(self.user_id, query, **options)
        return [result_document(r) for r in results][: options["max_results"]]


_ROLE_OF = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


class MemoryChatMessageHistory(BaseChatMessageHistory):
    """A chat session's history kept by the platform.

    Messages are stored as episodes (searchable at once) and kept in the session's
    short-term buffer, which ``messages`` reads back. ``clear()`` empties the buffer only:
    what was said stays in long-term memory. ``end_session()`` queues extraction.
    """

    def __init__(self, platform: MemoryPlatform, user_id: str, session_id: str) -> None:
        self.platform = platform
        self.user_id = user_id
        self.session_id = session_id

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        out: list[BaseMessage] = []
        for m in self.platform.recent_messages(self.user_id, self.session_id):
            extra = {"id": m.episode_id, "response_metadata": {"timestamp": m.timestamp}}
            if m.role == "assistant":
                out.append(AIMessage(content=m.content, **extra))
            elif m.role == "system":
                out.append(SystemMessage(content=m.content, **extra))
            elif m.role == "tool":
                out.append(ToolMessage(content=m.content, tool_call_id=m.episode_id, **extra))
            else:
                out.append(HumanMessage(content=m.content, **extra))
        return out

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = [
            {"role": _ROLE_OF.get(m.type, "user"), "content": m.text}
            for m in messages
            if m.text.strip()  # an AI message that only calls tools has no text to keep
        ]
        if batch:
            self.platform.add_messages(self.user_id, self.session_id, batch)

    def clear(self) -> None:
        self.platform.clear_recent(self.user_id, self.session_id)

    def end_session(self) -> str:
        """The session is over: queue its knowledge extraction; returns the job id."""
        return self.platform.end_session(self.user_id, self.session_id)
