"""Routes of the HTTP API, versioned under ``/v1``; every route goes through the facade.

Each ``/v1/users/{user_id}/...`` route first checks the API key against the user id, so
one key can never reach another user's data. Platform errors become 4xx/5xx JSON bodies
``{"error": ..., "field": ...}``; request validation errors are 422 with the same shape.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Body, Depends, FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from .._version import __version__
from ..config import Settings, load_settings
from ..corrections import MemoryVersion
from ..errors import (
    BackendUnavailable,
    ConflictError,
    InvalidInputError,
    JobStopped,
    MemoryPlatformError,
    NotFoundError,
    QueueUnavailable,
    TransientStorageError,
)
from ..llm import LLMUnavailableError
from ..media.library import MediaMemory
from ..models import AuditEntry, Memory, MemoryStatus
from ..platform import MemoryPlatform
from ..store import MemoryRecord, StoreStats
from ..tools.arguments import (
    CreateMemoryArgs,
    ForgetMemoryArgs,
    LinkMemoriesArgs,
    UpdateMemoryArgs,
)
from ..transfer import ImportReport
from .auth import KeyRing
from .limits import BodySizeLimit
from .schemas import (
    EpisodesRequest,
    ErrorBody,
    JobAccepted,
    JobStatus,
    KnowledgeResponse,
    MessagesRequest,
    MessagesResponse,
    RecentMessages,
    SearchRequest,
    SearchResponse,
    ToolCallsRequest,
)

_log = logging.getLogger("memory_platform.api")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="an API key")
_bearer = HTTPBearer(auto_error=False, description="the same API key as a bearer token")

_STATUS: list[tuple[type[Exception], int]] = [
    (InvalidInputError, 422),
    (NotFoundError, 404),
    (ConflictError, 409),
    (JobStopped, 409),  # an import meeting the deletion of its user
    (BackendUnavailable, 503),
    (TransientStorageError, 503),
    (LLMUnavailableError, 503),
    (QueueUnavailable, 503),
]  # anything else of the platform is a 500 with its message
RETRY_AFTER_SECONDS = 5
"""The ``Retry-After`` of a 503 (RFC 9110 §10.2.3): the platform's own waits on a service
that does not answer (Redis' client, the store's connection) are about this long, so a
client asking sooner would mostly meet the same outage."""
_RETRY_HEADER = {"Retry-After": str(RETRY_AFTER_SECONDS)}
_RETRY_AFTER: dict[str, Any] = {
    "Retry-After": {
        "description": "seconds to wait before asking again",
        "schema": {"type": "integer"},
    }
}
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 403, 404, 409, 422)
}
_ERRORS[503] = {"model": ErrorBody, "headers": _RETRY_AFTER}


def create_app(platform: MemoryPlatform | None = None, settings: Settings | None = None) -> FastAPI:
    """The API over ``platform`` (kept open), or over one opened from ``settings`` (or the
    environment) at start-up and closed at shutdown.

    Raises:
        ConfigurationError: no API keys configured and anonymous access not allowed.
    """
    config = platform.settings if platform is not None else (settings or load_settings())
    keys = KeyRing(config.api)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = platform is None
        app.state.platform = platform if platform is not None else MemoryPlatform(config)
        # Serve at once, but load the models now: /ready says 503 until they are in, and
        # the first search no longer waits seconds for them.
        app.state.platform.start_warm_up()
        try:
            yield
        finally:
            if owned:
                app.state.platform.close()

    app = FastAPI(
        title="memory-platform",
        version=__version__,
        summary="Knowledge-graph long-term memory for LLM agents.",
        lifespan=lifespan,
    )
    app.state.keys = keys
    if platform is not None:
        app.state.platform = platform
    _install_error_handlers(app)
    app.add_middleware(
        BodySizeLimit,
        limit=config.api.max_body_bytes,
        import_limit=config.api.max_import_bytes,
        media_limit=config.media.max_bytes,  # add_media refuses larger files with a message
    )
    app.include_router(_system_routes())
    app.include_router(_user_routes(), prefix="/v1")
    return app


def _attachment(filename: str) -> str:
    """A Content-Disposition for any file name: an ASCII fallback plus the UTF-8 name
    (RFC 6266), since user ids may be Chinese."""
    fallback = "".join(c if " " <= c <= "~" and c not in '"\\' else "_" for c in filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def _mp(request: Request) -> MemoryPlatform:
    return request.app.state.platform  # type: ignore[no-any-return]


Platform = Annotated[MemoryPlatform, Depends(_mp)]


def _authorize(
    request: Request,
    user_id: str,
    api_key: Annotated[str | None, Depends(_api_key)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    keys: KeyRing = request.app.state.keys
    patterns = keys.patterns(api_key or (bearer.credentials if bearer else None))
    if patterns is None:
        raise _HTTPError(401, "missing or unknown API key (X-API-Key or Bearer)")
    if not keys.allows(patterns, user_id):
        raise _HTTPError(403, f"this API key may not access user {user_id!r}")
    return user_id


User = Annotated[str, Depends(_authorize)]
"""The path's user id, once the request's API key is allowed to access it."""
ReferenceTime = Annotated[
    datetime | None,
    Query(
        description="when the user's message was sent; relative times resolve to it "
        "on the clock its offset names (+08:00); with no zone on the deployment's "
        "(MEMORY_TIMEZONE); in UTC (Z), or not given, on the clock the user's latest "
        "message time named, else the deployment's"
    ),
]


class _HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(_HTTPError)
    async def _http_error(request: Request, exc: _HTTPError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()]
        first = exc.errors()[0]["loc"] if exc.errors() else ()
        return JSONResponse(
            {"error": "; ".join(problems), "field": ".".join(str(p) for p in first) or None},
            status_code=422,
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        _log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(
            {"error": f"internal error ({type(exc).__name__}); the server log has the details"},
            status_code=500,
        )

    @app.exception_handler(MemoryPlatformError)
    async def _platform_error(request: Request, exc: MemoryPlatformError) -> JSONResponse:
        status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)
        field = exc.field if isinstance(exc, InvalidInputError) else None
        headers = _RETRY_HEADER if status == 503 else None
        return JSONResponse(
            {"error": str(exc), "field": field}, status_code=status, headers=headers
        )


def _system_routes() -> APIRouter:
    router = APIRouter(tags=["system"])

    @router.get("/health", summary="Liveness: the process answers")
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @router.get(
        "/ready",
        summary="Readiness: store, Redis and workers",
        responses={
            503: {"description": "the store or Redis does not answer", "headers": _RETRY_AFTER}
        },
    )
    def ready(mp: Platform) -> JSONResponse:
        report = mp.health()
        if report["ready"]:
            return JSONResponse(report)
        return JSONResponse(report, status_code=503, headers=_RETRY_HEADER)

    @router.get("/v1/tools", summary="The tool definitions to pass to an LLM as `tools=`")
    def tools(
        mp: Platform, lang: Literal["zh", "en"] = "zh", extended: bool = False
    ) -> list[dict[str, Any]]:
        return mp.tool_definitions(lang, extended=extended)

    return router


def _user_routes() -> APIRouter:
    router = APIRouter(prefix="/users/{user_id}", responses=_ERRORS)

    @router.post("/tools/{name}", tags=["tools"], summary="Run one tool call")
    def execute_tool(
        user_id: User,
        name: str,
        mp: Platform,
        arguments: Annotated[dict[str, Any], Body(description="the call's arguments")],
        reference_time: ReferenceTime = None,
    ) -> dict[str, Any]:
        """Always 200: the result is for the LLM, ``{"success": false, "error"}`` on bad
        arguments."""
        return mp.execute_tool(user_id, name, arguments, reference_time)

    @router.post("/tool-calls", tags=["tools"], summary="Run every tool call of a message")
    def tool_calls(
        user_id: User, body: ToolCallsRequest, mp: Platform, reference_time: ReferenceTime = None
    ) -> list[dict[str, Any]]:
        """The ``role: tool`` messages to append to the conversation."""
        return mp.handle_tool_calls(user_id, body.message.model_dump(), reference_time)

    @router.post("/memories", status_code=201, tags=["memories"], summary="Create a memory")
    def create_memory(
        user_id: User,
        args: CreateMemoryArgs,
        mp: Platform,
        reference_time: ReferenceTime = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        return mp.create_memory_record(user_id, args, reference_time, session_id, source="api")

    @router.get("/memories", tags=["memories"], summary="List memories, oldest first")
    def list_memories(
        user_id: User,
        mp: Platform,
        status: MemoryStatus | None = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        offset: Annotated[int, Query(ge=0, le=10**12)] = 0,
    ) -> list[Memory]:
        return mp.list_memories(user_id, status, limit=limit, offset=offset)

    @router.get("/memories/{memory_id}", tags=["memories"], summary="A memory and its graph")
    def get_memory(user_id: User, memory_id: str, mp: Platform) -> MemoryRecord:
        return mp.get_memory(user_id, memory_id)

    @router.delete(
        "/memories/{memory_id}", status_code=204, tags=["memories"], summary="Delete a memory"
    )
    def delete_memory(user_id: User, memory_id: str, mp: Platform) -> Response:
        mp.delete_memory(user_id, memory_id)
        return Response(status_code=204)

    @router.post("/memories/update", tags=["memories"], summary="Correct or retract a memory")
    def update_memory(
        user_id: User, args: UpdateMemoryArgs, mp: Platform, reference_time: ReferenceTime = None
    ) -> JSONResponse:
        """200 with the new version (correct) or the invalidated memory (retract); 422 with
        candidates when the description is ambiguous. Nothing is overwritten."""
        result = mp.update_memory_tool(
            user_id, args, changed_by="api", reference_time=reference_time
        )
        return JSONResponse(result, status_code=200 if result.get("success") else 422)

    @router.get(
        "/memories/{memory_id}/history", tags=["memories"], summary="Every version of a memory"
    )
    def memory_history(user_id: User, memory_id: str, mp: Platform) -> list[MemoryVersion]:
        return mp.memory_history(user_id, memory_id)

    @router.post("/forget", tags=["memories"], summary="Forget a memory or episode for good")
    def forget(
        user_id: User, args: ForgetMemoryArgs, mp: Platform, reference_time: ReferenceTime = None
    ) -> JSONResponse:
        """Deletes every version, derived knowledge, vectors and index entries (an
        episode: with the mid-term summaries that retell it and the memories and
        knowledge extracted from it); leaves an audit record without content. 422 with
        candidates when the description is ambiguous."""
        result = mp.forget_tool(user_id, args, reference_time=reference_time)
        return JSONResponse(result, status_code=200 if result.get("success") else 422)

    @router.get("/audit", tags=["users"], summary="Forgetting and purging records, newest first")
    def audit(
        user_id: User, mp: Platform, limit: Annotated[int, Query(ge=1, le=10_000)] = 100
    ) -> list[AuditEntry]:
        return mp.audit_log(user_id, limit)

    @router.post(
        "/media",
        status_code=201,
        tags=["memories"],
        summary="Remember an image or a sound (raw bytes body)",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/octet-stream": {"schema": {"type": "string"}}},
            }
        },
    )
    async def add_media(
        user_id: User,
        request: Request,
        modality: Literal["image", "audio"] = "image",
        description: Annotated[str | None, Query(max_length=20_000)] = None,
        timestamp: datetime | None = None,
        session_id: str | None = None,
        sensitive: bool | None = None,
    ) -> MediaMemory:
        """The body is the file's bytes; its type is read from them, not from headers."""
        data = await request.body()
        return await run_in_threadpool(
            _mp(request).add_media,
            user_id,
            data,
            modality,
            description,
            timestamp,
            session_id=session_id,
            sensitive=sensitive,
        )

    @router.post(
        "/episodes",
        status_code=201,
        tags=["memories"],
        summary="Store turns of a conversation or notes as episodes",
    )
    def add_episodes(user_id: User, body: EpisodesRequest, mp: Platform) -> MessagesResponse:
        """Each episode is searchable (kind ``episode``) once embedded; a turn that opens
        with its speaker and has none gets it filled in, as ``mp.add_episodes`` does."""
        episodes = [e.model_dump(exclude_none=True) for e in body.episodes]
        return MessagesResponse(episode_ids=mp.add_episodes(user_id, episodes))

    @router.post("/links", tags=["memories"], summary="Link two memories")
    def link(
        user_id: User, args: LinkMemoriesArgs, mp: Platform, reference_time: ReferenceTime = None
    ) -> JSONResponse:
        """200 with both memory ids; 422 with candidates when a description is ambiguous."""
        result = mp.link_memories(
            user_id,
            args.source_memory_description,
            args.target_memory_description,
            args.relation_type,
            args.importance,
            reference_time,
        )
        return JSONResponse(result, status_code=200 if result.get("success") else 422)

    @router.post("/search", tags=["search"], summary="Search with graph expansion")
    def search(
        user_id: User, body: SearchRequest, mp: Platform, reference_time: ReferenceTime = None
    ) -> SearchResponse:
        results = mp.search(
            user_id,
            body.query,
            memory_types=[t.value for t in body.memory_types] if body.memory_types else None,
            time_range=body.time_range.model_dump() if body.time_range else None,
            max_results=body.max_results,
            expand_depth=body.expand_depth,
            mode=body.mode,
            relation_types=body.relation_types,
            include_invalid=body.include_invalid,
            kinds=body.kinds,
            reference_time=reference_time,
            record_access=body.record_access,
            min_relevance=body.min_relevance,
            include_sensitive=body.include_sensitive,
        )
        return SearchResponse(
            results=results,
            context=mp.format_context(results, include_sensitive=body.include_sensitive),
        )

    _add_session_routes(router)

    @router.get("/stats", tags=["users"], summary="Counts of what the user holds")
    def stats(user_id: User, mp: Platform) -> StoreStats:
        return mp.stats(user_id)

    @router.get(
        "/export",
        tags=["users"],
        summary="Everything of the user as JSON Lines",
        response_class=StreamingResponse,
        responses={200: {"content": {"application/x-ndjson": {}}}},
    )
    def export(user_id: User, mp: Platform) -> StreamingResponse:
        lines = mp.iter_export(user_id)

        def body() -> Iterator[str]:
            for line in lines:
                yield line + "\n"

        return StreamingResponse(
            body(),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": _attachment(f"{user_id}.jsonl")},
        )

    @router.post(
        "/import",
        tags=["users"],
        summary="Import an export (JSON Lines body)",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        },
    )
    async def import_user(user_id: User, request: Request) -> ImportReport:
        """Validated whole before anything is written; what exists is skipped."""
        raw = await request.body()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError("the body is not UTF-8 text", "body") from exc
        return await run_in_threadpool(_mp(request).import_user, text.splitlines(), user_id)

    @router.delete("", status_code=204, tags=["users"], summary="Delete everything of a user")
    def delete_user(
        user_id: User,
        mp: Platform,
        confirm: Annotated[
            str,
            Query(
                max_length=128,
                description="must repeat the user id: a request that lost its path (a client "
                "normalising /memories/.. away) never deletes a whole user",
            ),
        ],
    ) -> Response:
        if confirm != user_id:
            raise InvalidInputError(
                "deleting a whole user needs ?confirm=<the same user id>", "confirm"
            )
        mp.delete_user(user_id)
        return Response(status_code=204)

    return router


def _add_session_routes(router: APIRouter) -> None:
    """Chat sessions, the jobs they start and the knowledge they give."""

    @router.post(
        "/sessions/{session_id}/messages",
        status_code=201,
        tags=["sessions"],
        summary="Record chat messages",
    )
    def add_messages(
        user_id: User, session_id: str, body: MessagesRequest, mp: Platform
    ) -> MessagesResponse:
        return MessagesResponse(episode_ids=mp.add_messages(user_id, session_id, body.messages))

    @router.get(
        "/sessions/{session_id}/messages", tags=["sessions"], summary="The short-term buffer"
    )
    def recent(user_id: User, session_id: str, mp: Platform) -> RecentMessages:
        return RecentMessages(messages=mp.recent_messages(user_id, session_id))

    @router.post(
        "/sessions/{session_id}/end",
        status_code=202,
        tags=["sessions"],
        summary="End a session: queue its knowledge extraction",
    )
    def end_session(user_id: User, session_id: str, mp: Platform) -> JobAccepted:
        return JobAccepted(job_id=mp.end_session(user_id, session_id))

    @router.post("/consolidate", status_code=202, tags=["jobs"], summary="Queue consolidation")
    def consolidate(user_id: User, mp: Platform) -> JobAccepted:
        return JobAccepted(job_id=mp.enqueue_consolidation(user_id))

    @router.get("/jobs/{job_id}", tags=["jobs"], summary="State and result of a job")
    def job(user_id: User, job_id: str, mp: Platform) -> JobStatus:
        return JobStatus.model_validate(mp.job_status(job_id, user_id=user_id))

    @router.get("/knowledge/latest", tags=["knowledge"], summary="The newest knowledge points")
    def latest(
        user_id: User,
        mp: Platform,
        top_k: Annotated[int | None, Query(ge=1, le=1000)] = None,
        min_score: Annotated[float | None, Query(ge=0, le=100)] = None,
        include_sensitive: bool = False,
    ) -> KnowledgeResponse:
        return KnowledgeResponse(
            points=mp.latest_knowledge(user_id, top_k, min_score, include_sensitive)
        )

    @router.get("/knowledge/sample", tags=["knowledge"], summary="Points sampled by score")
    def sample(
        user_id: User,
        mp: Platform,
        top_k: Annotated[int | None, Query(ge=1, le=1000)] = None,
        min_score: Annotated[float | None, Query(ge=0, le=100)] = None,
        seed: int | None = None,
        include_sensitive: bool = False,
    ) -> KnowledgeResponse:
        return KnowledgeResponse(
            points=mp.sample_knowledge(user_id, top_k, min_score, seed, include_sensitive)
        )
