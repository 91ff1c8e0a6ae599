"""Runs tool calls as an LLM sends them and answers in a form it can act on.

Nothing here raises on bad input: an unknown tool, malformed JSON, a missing field, a
wrong enum value or an out-of-range number comes back as ``{"success": false, "error":
...}`` saying what to fix. Validation happens before any write, and each memory is
written in one transaction, so a failed call writes nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from ..errors import MemoryPlatformError
from ..textutil import has_cjk
from .arguments import (
    CreateMemoryArgs,
    ForgetMemoryArgs,
    LinkMemoriesArgs,
    SearchMemoriesArgs,
    UpdateMemoryArgs,
)
from .schemas import TOOL_NAMES

if TYPE_CHECKING:
    from ..platform import MemoryPlatform

__all__ = ["ToolExecutor", "tool_error"]

log = logging.getLogger(__name__)

MAX_ARGUMENT_CHARS = 100_000
MAX_ARGUMENT_DEPTH = 8
"""Deepest nesting of lists and objects accepted in arguments (the schemas need 2)."""


def nesting_depth(value: Any, limit: int = MAX_ARGUMENT_DEPTH) -> int:
    """How deeply lists and objects nest in ``value``, counted without recursion and
    stopping once past ``limit`` (so a hostile 100,000-deep value costs nothing)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def tool_error(message: str, **extra: Any) -> dict[str, Any]:
    """A failed tool result."""
    return {"success": False, "error": message, **extra}


def _describe_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "arguments"
        kind = err["type"]
        if kind == "missing":
            parts.append(f"'{field}' is required")
        elif kind == "extra_forbidden":
            parts.append(f"'{field}' is not a parameter of this tool")
        elif kind == "too_short" and isinstance(err["input"], str):
            parts.append(f"'{field}' must not be empty")
        elif kind == "too_long" and isinstance(err["input"], str):
            ctx = err.get("ctx", {})
            length = ctx.get("actual_length", len(err["input"]))
            parts.append(
                f"'{field}' is {length} characters long; at most {ctx.get('max_length')} "
                "are allowed"
            )
        else:
            msg = err["msg"].removeprefix("Value error, ")
            parts.append(f"'{field}': {msg}")
    return "; ".join(parts)


class ToolExecutor:
    """Dispatches tool calls to a :class:`MemoryPlatform`."""

    def __init__(self, platform: MemoryPlatform) -> None:
        self._platform = platform
        self._handlers: dict[str, tuple[type[BaseModel], Callable[..., dict[str, Any]]]] = {
            "create_memory": (CreateMemoryArgs, self._create_memory),
            "link_memories": (LinkMemoriesArgs, self._link_memories),
            "search_memories": (SearchMemoriesArgs, self._search_memories),
            "update_memory": (UpdateMemoryArgs, self._update_memory),
            "forget_memory": (ForgetMemoryArgs, self._forget_memory),
        }

    def execute(
        self,
        user_id: str,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        reference_time: datetime | None = None,
    ) -> dict[str, Any]:
        """Run one tool call; always returns a result dict, never raises for bad input."""
        try:
            return self._execute(user_id, name, arguments, reference_time)
        except Exception as exc:  # the contract: never raise into the agent loop
            log.exception("tool call failed unexpectedly")
            return tool_error(f"internal error: {type(exc).__name__}", retryable=False)

    def _execute(
        self,
        user_id: str,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        reference_time: datetime | None,
    ) -> dict[str, Any]:
        if not isinstance(user_id, str) or not user_id.strip():
            return tool_error("user_id must be a non-empty string")
        if not isinstance(name, str) or name not in self._handlers:
            shown = repr(name)[:80] if isinstance(name, str) else type(name).__name__
            return tool_error(f"unknown tool {shown}; the memory tools are {', '.join(TOOL_NAMES)}")
        parsed = self._parse_arguments(arguments)
        if isinstance(parsed, str):
            return tool_error(parsed, tool=name)
        model, handler = self._handlers[name]
        try:
            args = model.model_validate(parsed)
        except ValidationError as exc:
            return tool_error(
                f"invalid arguments for {name}: {_describe_validation(exc)}", tool=name
            )
        try:
            return handler(user_id.strip(), args, reference_time)
        except MemoryPlatformError as exc:
            return tool_error(str(exc), tool=name, retryable=exc.is_retryable())
        except Exception as exc:  # never crash the agent loop; keep the trace in the log
            log.exception("tool %s failed unexpectedly", name)
            return tool_error(
                f"internal error in {name}: {type(exc).__name__}", tool=name, retryable=False
            )

    def handle_tool_calls(
        self, user_id: str, message: Any, reference_time: datetime | None = None
    ) -> list[dict[str, Any]]:
        """Run every tool call of an assistant message; returns the ``role: tool`` messages.

        ``message`` may be the ``openai`` SDK's message object or its dict form.
        Calls to tools that are not memory tools are answered with an error too, so the
        conversation stays well-formed; filter them out first to handle them yourself.
        """
        calls = (
            message.get("tool_calls")
            if isinstance(message, Mapping)
            else getattr(message, "tool_calls", None)
        )
        replies: list[dict[str, Any]] = []
        for call in calls or []:
            call_id, name, arguments = _unpack_call(call)
            result = self.execute(user_id, name, arguments, reference_time)
            replies.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": json.dumps(result, ensure_ascii=False),
                }
            )
        return replies

    # -- argument parsing ------------------------------------------------------------

    @staticmethod
    def _parse_arguments(arguments: Mapping[str, Any] | str | None) -> dict[str, Any] | str:
        if arguments is None:
            return {}
        if isinstance(arguments, str):
            if len(arguments) > MAX_ARGUMENT_CHARS:
                return f"arguments are longer than {MAX_ARGUMENT_CHARS} characters"
            if not arguments.strip():
                return {}
            try:
                value = json.loads(arguments)
            except json.JSONDecodeError as exc:
                return f"arguments are not valid JSON ({exc.msg} at position {exc.pos}); send a JSON object"
            except RecursionError:
                return f"arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels"
        else:
            value = arguments
        if not isinstance(value, Mapping):
            return "arguments must be a JSON object"
        if nesting_depth(value) > MAX_ARGUMENT_DEPTH:
            return f"arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels"
        return dict(value)

    # -- handlers ----------------------------------------------------------------------

    def _create_memory(
        self, user_id: str, args: CreateMemoryArgs, reference_time: datetime | None
    ) -> dict[str, Any]:
        record = self._platform.create_memory_record(user_id, args, reference_time=reference_time)
        memory = record.memory
        result: dict[str, Any] = {
            "success": True,
            "memory_id": memory.id,
            "status": memory.status.value,
            "title": memory.title,
            "text": memory.text,
            "message": "记忆已保存,将在后台整理"
            if has_cjk(memory.text)
            else "memory saved; it is consolidated in the background",
        }
        if memory.attributes:
            result["attributes"] = memory.attributes
        if memory.event_time is not None:
            result["event_time"] = memory.event_time.isoformat()
        unparsed = memory.metadata.get("time_unparsed")
        partial = memory.metadata.get("time_partial")
        if unparsed:
            result["warning"] = (
                f"time {unparsed!r} was not understood and is kept as written; "
                "give a date such as 2025-11-05 or a word such as 今天 / yesterday"
            )
        elif partial:
            result["warning"] = (
                f"time {partial!r} was only partly understood: it is kept as written and "
                f"dated to the span {memory.metadata.get('time_span')!r}; give an exact "
                "date such as 2025-11-05 if it matters"
            )
        return result

    def _link_memories(
        self, user_id: str, args: LinkMemoriesArgs, reference_time: datetime | None
    ) -> dict[str, Any]:
        return self._platform.link_memories(
            user_id,
            args.source_memory_description,
            args.target_memory_description,
            args.relation_type,
            importance=args.importance,
            reference_time=reference_time,
        )

    def _search_memories(
        self, user_id: str, args: SearchMemoriesArgs, reference_time: datetime | None
    ) -> dict[str, Any]:
        return self._platform.search_tool(user_id, args, reference_time=reference_time)

    def _update_memory(
        self, user_id: str, args: UpdateMemoryArgs, reference_time: datetime | None
    ) -> dict[str, Any]:
        return self._platform.update_memory_tool(user_id, args, reference_time=reference_time)

    def _forget_memory(
        self, user_id: str, args: ForgetMemoryArgs, reference_time: datetime | None
    ) -> dict[str, Any]:
        return self._platform.forget_tool(user_id, args, reference_time=reference_time)


def _unpack_call(call: Any) -> tuple[str, str, Any]:
    """(id, name, arguments) of a tool call, from the SDK object or its dict form."""
    if isinstance(call, Mapping):
        function = call.get("function") or {}
        return str(call.get("id", "")), str(function.get("name", "")), function.get("arguments")
    function = getattr(call, "function", None)
    return (
        str(getattr(call, "id", "")),
        str(getattr(function, "name", "")),
        getattr(function, "arguments", None),
    )
