"""An MCP server (official ``mcp`` SDK) over the platform: memory tools and resources.

Tools: the design's ``create_memory``, ``link_memories`` and ``search_memories`` (exact
Appendix A schemas, Chinese or English descriptions) plus ``get_memory``,
``list_memories``, ``delete_memory`` and ``get_context``. Each result is the JSON the
tool executor returns; bad input is ``{"success": false, "error": ...}`` marked as a tool
error, never a protocol error, so the model can read it and retry.

Resources: ``memory://recent`` (the user's newest memories) and
``memory://knowledge/latest`` (the latest knowledge version's points).

Identity: over stdio the user is fixed by configuration (a desktop or IDE host runs one
server per person). Over streamable HTTP every request carries ``X-API-Key`` and
``X-Memory-User``; the key must be configured (``MEMORY_API__KEYS``) with a pattern that
matches the user, exactly as for the HTTP API, or the request is refused with 401 / 403
before the MCP session sees it. A request may name its user's time zone
(``X-Memory-Timezone: Asia/Shanghai``): its tools read "today", 昨天 and times with no
zone in it instead of the deployment's (``MEMORY_TIMEZONE``); an unknown name is refused
with 400.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from .._version import __version__
from ..api.auth import KeyRing
from ..config import known_timezone
from ..errors import MemoryPlatformError, NotFoundError
from ..models import check_identifier
from ..platform import MemoryPlatform

__all__ = ["TIMEZONE_HEADER", "USER_HEADER", "MemoryMcp", "build_server", "http_app", "run_stdio"]

INSTRUCTIONS = (
    "Long-term memory: create, link and search the user's memories. When the user says "
    'what they are called, store it with create_memory {"subject": "user", '
    '"memory_type": "fact", "topic": "name", "object": <the name>} (a nickname as '
    '"nickname"): searches then tell questions about other people from questions about '
    "the user."
)
"""What a host's model is told about this server at the start (MCP ``instructions``)."""

USER_HEADER = "x-memory-user"
TIMEZONE_HEADER = "x-memory-timezone"
KEY_HEADER = "x-api-key"
RECENT_URI = "memory://recent"
KNOWLEDGE_URI = "memory://knowledge/latest"

_EXTRA_TEXT = {
    "zh": {
        "get_memory": "按 id 读取一条记忆:主体、主题、对象、属性和它的关联",
        "list_memories": "按时间从新到旧列出记忆",
        "delete_memory": "按 id 永久删除一条记忆及其关联",
        "get_context": "为一个问题检索记忆,返回可直接放进提示词的两层 <memory_context> 文本",
        "memory_id": "记忆 id(create_memory 或 search_memories 返回的 id)",
        "limit": "最多返回多少条",
        "offset": "跳过最新的多少条",
        "query": "问题或关键词",
        "max_results": "最多返回多少条记忆",
    },
    "en": {
        "get_memory": "Read one memory by id: subject, topic, object, attributes and links",
        "list_memories": "List memories, newest first",
        "delete_memory": "Delete one memory and its links for good, by id",
        "get_context": "Search memory for a question and return the two-layer <memory_context> text for a prompt",
        "memory_id": "Memory id (as returned by create_memory or search_memories)",
        "limit": "How many at most",
        "offset": "How many of the newest to skip",
        "query": "A question or keywords",
        "max_results": "Maximum number of memories to return",
    },
}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _integer_schema(
    description: str, default: int, minimum: int, maximum: int | None = None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": minimum, "default": default}
    if maximum is not None:
        schema["maximum"] = maximum
    return {**schema, "description": description}


class MemoryMcp:
    """The tools and resources, transport-free: every call names its user, none raises."""

    def __init__(self, platform: MemoryPlatform, lang: Literal["zh", "en"] = "en") -> None:
        self.platform = platform
        self.lang = lang

    def tools(self) -> list[types.Tool]:
        """The five memory tools plus get, list, delete and context, with their schemas."""
        t = _EXTRA_TEXT[self.lang]
        memory_id = {"type": "string", "description": t["memory_id"]}
        out = [
            types.Tool(
                name=d["function"]["name"],
                description=d["function"]["description"],
                input_schema=d["function"]["parameters"],
            )
            for d in self.platform.tool_definitions(self.lang, extended=True)
        ]
        out += [
            types.Tool(
                name="get_memory",
                description=t["get_memory"],
                input_schema=_schema({"memory_id": memory_id}, ["memory_id"]),
            ),
            types.Tool(
                name="list_memories",
                description=t["list_memories"],
                input_schema=_schema(
                    {
                        "limit": _integer_schema(t["limit"], 20, 1, 100),
                        "offset": _integer_schema(t["offset"], 0, 0),
                    },
                    [],
                ),
            ),
            types.Tool(
                name="delete_memory",
                description=t["delete_memory"],
                input_schema=_schema({"memory_id": memory_id}, ["memory_id"]),
            ),
            types.Tool(
                name="get_context",
                description=t["get_context"],
                input_schema=_schema(
                    {
                        "query": {"type": "string", "description": t["query"]},
                        "max_results": _integer_schema(t["max_results"], 10, 1, 100),
                    },
                    ["query"],
                ),
            ),
        ]
        return out

    def call(
        self, user: str, name: str, arguments: dict[str, Any] | None, now: datetime | None = None
    ) -> dict[str, Any]:
        """Run one tool for the user; failures come back as ``success: false``."""
        args = arguments or {}
        extra = _EXTRA_CALLS.get(name)
        if extra is None:
            return self.platform.execute_tool(user, name, args, reference_time=now)
        if not isinstance(args, dict):
            return {"success": False, "error": f"{name}'s arguments must be a JSON object"}
        try:
            return extra(self, user, args)
        except MemoryPlatformError as exc:
            return {"success": False, "error": str(exc)}
        except (TypeError, ValueError) as exc:
            return {"success": False, "error": f"invalid arguments: {exc}"}

    def _get(self, user: str, args: dict[str, Any]) -> dict[str, Any]:
        record = self.platform.get_memory(user, _text(args, "memory_id"))
        return {"success": True, "memory": record.model_dump(mode="json")}

    def _list(self, user: str, args: dict[str, Any]) -> dict[str, Any]:
        limit = _integer(args, "limit", 20, 1, 100)
        offset = _integer(args, "offset", 0, 0, 10**9)
        return {"success": True, "memories": self.recent(user, limit, offset)}

    def _delete(self, user: str, args: dict[str, Any]) -> dict[str, Any]:
        memory_id = _text(args, "memory_id")
        self.platform.delete_memory(user, memory_id)
        return {"success": True, "deleted": memory_id}

    def _context(self, user: str, args: dict[str, Any]) -> dict[str, Any]:
        results = self.platform.search(
            user, _text(args, "query"), max_results=_integer(args, "max_results", 10, 1, 100)
        )
        return {
            "success": True,
            "count": len(results),
            "context": self.platform.format_context(results),
        }

    def recent(self, user: str, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """The user's memories, newest first."""
        total = self.platform.stats(user).memories
        start = max(total - offset - limit, 0)
        count = max(min(limit, total - offset), 0)
        if count == 0:
            return []
        page = self.platform.list_memories(user, limit=count, offset=start)
        return [
            {
                "id": m.id,
                "text": m.text,
                "memory_type": m.memory_type.value,
                "created_at": m.created_at.isoformat(),
                "event_time": m.event_time.isoformat() if m.event_time else None,
                "importance": m.importance,
            }
            for m in reversed(page)
        ]

    def resources(self) -> list[types.Resource]:
        """The resources every user has."""
        return [
            types.Resource(
                uri=RECENT_URI,
                name="recent-memories",
                description="The 20 newest memories, as JSON",
                mime_type="application/json",
            ),
            types.Resource(
                uri=KNOWLEDGE_URI,
                name="latest-knowledge",
                description="The latest knowledge version's points, best first, as JSON",
                mime_type="application/json",
            ),
        ]

    def read(self, user: str, uri: str) -> str:
        """A resource's JSON text for the user.

        Raises:
            NotFoundError: no such resource.
        """
        if uri == RECENT_URI:
            return _dumps(self.recent(user))
        if uri == KNOWLEDGE_URI:
            points = self.platform.latest_knowledge(user)
            return _dumps([p.model_dump(mode="json") for p in points])
        raise NotFoundError("resource", uri)


_EXTRA_CALLS: dict[str, Callable[[MemoryMcp, str, dict[str, Any]], dict[str, Any]]] = {
    "get_memory": MemoryMcp._get,
    "list_memories": MemoryMcp._list,
    "delete_memory": MemoryMcp._delete,
    "get_context": MemoryMcp._context,
}


def _text(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string")
    return value.strip()


def _integer(args: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = args.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer between {low} and {high}")
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


UserOf = Callable[[ServerRequestContext[Any, Any]], str]
NowOf = Callable[[ServerRequestContext[Any, Any]], datetime | None]


def build_server(
    tools: MemoryMcp, user_of: UserOf, now_of: NowOf = lambda _ctx: None
) -> Server[Any]:
    """A low-level MCP server whose handlers run the platform off the event loop;
    ``now_of`` gives a request's time in its user's zone (None: the deployment's)."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools.tools())

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        user = user_of(ctx)
        result = await anyio.to_thread.run_sync(
            tools.call, user, params.name, dict(params.arguments or {}), now_of(ctx)
        )
        return types.CallToolResult(
            content=[types.TextContent(text=_dumps(result))],
            structured_content=result,
            is_error=result.get("success") is False,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=tools.resources())

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        user = user_of(ctx)
        text = await anyio.to_thread.run_sync(tools.read, user, str(params.uri))
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=str(params.uri), mime_type="application/json", text=text
                )
            ]
        )

    return Server(
        "memory-platform",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def fixed_user(user: str) -> UserOf:
    """Every request is this user's (stdio)."""
    checked = check_identifier(user, "user")
    return lambda _ctx: checked


def header_user(ctx: ServerRequestContext[Any, Any]) -> str:
    """The user named by the HTTP request (already checked against the key by the app)."""
    headers = getattr(ctx.request, "headers", None) or {}
    return check_identifier(headers.get(USER_HEADER, ""), "user")


def header_now(ctx: ServerRequestContext[Any, Any]) -> datetime | None:
    """Now in the time zone the HTTP request names (already checked by the app), or None
    where it names none: the deployment's."""
    headers = getattr(ctx.request, "headers", None) or {}
    name = headers.get(TIMEZONE_HEADER)
    return datetime.now(ZoneInfo(name.strip())) if name else None


ASGIApp = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]


def http_app(tools: MemoryMcp, keys: KeyRing, path: str = "/mcp", host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP app: every request needs a key that may act for its user."""
    server = build_server(tools, header_user, header_now)
    inner = server.streamable_http_app(streamable_http_path=path, host=host)

    async def guarded(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await inner(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        patterns = keys.patterns(headers.get(KEY_HEADER))
        user = headers.get(USER_HEADER, "")
        if patterns is None:
            await _refuse(send, 401, f"a valid {KEY_HEADER} header is required")
            return
        try:
            check_identifier(user, "user")
        except MemoryPlatformError:
            await _refuse(send, 400, f"the {USER_HEADER} header must name the user")
            return
        if not keys.allows(patterns, user):
            await _refuse(send, 403, f"this key may not act for user {user!r}")
            return
        zone = headers.get(TIMEZONE_HEADER)
        if zone is not None and known_timezone(zone.strip()) is None:
            await _refuse(
                send,
                400,
                f"the {TIMEZONE_HEADER} header must name an IANA time zone such as "
                f"Asia/Shanghai or Europe/Berlin, not {zone!r}",
            )
            return
        await inner(scope, receive, send)

    return _WithLifespan(guarded, inner)


async def run_stdio(tools: MemoryMcp, user: str) -> None:
    """Serve one host over stdin/stdout until it closes the pipe."""
    from mcp.server.stdio import stdio_server

    server = build_server(tools, fixed_user(user))
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class _WithLifespan:
    """Runs the guard for requests and the inner app's lifespan (its session manager)."""

    def __init__(self, guard: ASGIApp, inner: Any) -> None:
        self._guard = guard
        self._inner = inner

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._inner(scope, receive, send)
            return
        await self._guard(scope, receive, send)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = json.dumps({"success": False, "error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
