"""Long-running services and store setup: ``serve``, ``worker``, ``beat``, ``mcp``, ``init-db``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..config import machine_timezone
from ..errors import ConfigurationError
from .common import (
    DbOption,
    console,
    err_console,
    fail,
    open_platform,
    settings_for,
    user_errors,
)


def serve(
    db: DbOption = None,
    host: Annotated[str | None, typer.Option(help="bind address (default: api.host)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default: api.port, 8000)")] = None,
) -> None:
    """Run the HTTP API (FastAPI on uvicorn). API keys come from MEMORY_API__KEYS."""
    try:
        import uvicorn

        from ..api import create_app
    except ImportError as exc:
        raise fail("the HTTP API needs its extra: pip install 'memory-platform[api]'") from exc
    with user_errors():
        settings = settings_for(db)
        app = create_app(settings=settings)
    uvicorn.run(
        app,
        host=host or settings.api.host,
        port=port or settings.api.port,
        log_level="info",
        proxy_headers=True,
    )


def _celery_app() -> object:
    with user_errors():
        if not settings_for(None).redis_url:
            raise ConfigurationError(
                "workers need Redis: set MEMORY_REDIS_URL (e.g. redis://localhost:6379/0)"
            )
    try:
        from workers.celery_app import app
    except ImportError as exc:
        raise fail("the workers need their extra: pip install 'memory-platform[workers]'") from exc
    return app


def worker(
    queues: Annotated[str, typer.Option(help="comma-separated queues to consume")] = (
        "extraction,consolidation"
    ),
    concurrency: Annotated[int, typer.Option(min=1, help="parallel tasks")] = 2,
    pool: Annotated[str, typer.Option(help="prefork, threads or solo")] = "prefork",
    name: Annotated[str | None, typer.Option(help="node name (default: celery@hostname)")] = None,
    loglevel: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING")] = "INFO",
) -> None:
    """Run a Celery worker on the queues (needs MEMORY_REDIS_URL)."""
    app = _celery_app()
    argv = ["worker", "-Q", queues, f"--concurrency={concurrency}", f"--pool={pool}"]
    argv += [f"--loglevel={loglevel}", "--without-gossip"]
    if name:
        argv += ["-n", name]
    app.worker_main(argv=argv)  # type: ignore[attr-defined]


def beat(
    schedule: Annotated[
        str, typer.Option(help="file where beat keeps its last run times")
    ] = "celerybeat-schedule",
    loglevel: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING")] = "INFO",
) -> None:
    """Run Celery beat: consolidation every interval_hours, daily maintenance (one replica)."""
    app = _celery_app()
    app.start(argv=["beat", f"--schedule={schedule}", f"--loglevel={loglevel}"])  # type: ignore[attr-defined]


def init_db(db: DbOption = None) -> None:
    """Create or migrate the store's schema (tables, indexes, vector indexes); idempotent."""
    with open_platform(db) as mp:
        settings = mp.settings
        where = (
            f"SQLite at {settings.sqlite_path}"
            if settings.backend == "sqlite"
            else f"Neo4j at {settings.neo4j_uri} (database {settings.neo4j_database})"
        )
        users = sum(1 for _ in mp.store.iter_users())
        signature = mp.store.signature
    console.print(f"schema ready: {where}; {users} users; vectors: {signature}", highlight=False)


def prepare() -> None:
    """Unpack the models and the dictionary's tables into the model cache now, so that no
    later process waits for them in its first search; checks the models load offline."""
    from ..prepare import prepare_model_cache

    with user_errors():
        done = prepare_model_cache(settings_for(None))
    model = done.embedder or "a remote endpoint (not called)"
    console.print(f"embedding model: {model}", highlight=False)
    if not done.dictionary:
        console.print("Chinese-English dictionary: not installed (no gloss, no names)")
    if done.directory is None:
        console.print(
            "model cache: off (MEMORY_MODEL_CACHE_DIR is empty): every process unpacks the"
            " models and reads the dictionary itself",
            highlight=False,
        )
        return
    tables = [f for f in done.files if f.name.startswith("cedict-")]
    if done.dictionary and not tables:
        raise fail(f"the model cache at {done.directory} could not be written")
    console.print(f"model cache: {done.directory}", highlight=False)
    for path in done.files:
        console.print(f"  {path.name}  {path.stat().st_size / 1e6:.1f} MB", highlight=False)


def _own_computers_zone(db: DbOption) -> dict[str, Any]:
    """The time zone setting of a server one person runs on their own computer: the
    computer's zone where the configuration names none (``MEMORY_TIMEZONE``, ``.env``,
    the config file), so that their "yesterday" is not UTC's."""
    with user_errors():
        configured = "timezone" in settings_for(db).model_fields_set
    name = None if configured else machine_timezone()
    if name is None:
        return {}
    err_console.print(
        f"times with no zone are read in {name}, this computer's time zone "
        "(MEMORY_TIMEZONE sets another)",
        highlight=False,
    )
    return {"timezone": name}


def mcp(
    transport: Annotated[
        str, typer.Option(help="stdio (a desktop or IDE host) or http (streamable HTTP)")
    ] = "stdio",
    db: DbOption = None,
    user: Annotated[
        str | None,
        typer.Option(help="whose memory, over stdio (default: MEMORY_MCP_USER)"),
    ] = None,
    lang: Annotated[str, typer.Option(help="tool descriptions in en or zh")] = "en",
    host: Annotated[str, typer.Option(help="bind address for http")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port for http")] = 8765,
) -> None:
    """Run the MCP server: memory tools and resources for MCP hosts and agents.

    Over stdio the user is fixed (--user or MEMORY_MCP_USER), and their days are this
    computer's (its time zone, unless MEMORY_TIMEZONE names one). Over http every
    request carries X-API-Key and X-Memory-User, checked against MEMORY_API__KEYS like
    the API.
    """
    import os

    try:
        import anyio

        from ..integrations.mcp_server import MemoryMcp, http_app, run_stdio
    except ImportError as exc:
        raise fail("the MCP server needs its extra: pip install 'memory-platform[mcp]'") from exc
    if transport not in ("stdio", "http"):
        raise fail("--transport must be stdio or http")
    if lang not in ("en", "zh"):
        raise fail("--lang must be en or zh")
    who = user or os.environ.get("MEMORY_MCP_USER")
    if transport == "stdio" and not who:
        raise fail("over stdio the server needs a user: --user or MEMORY_MCP_USER")
    zone = _own_computers_zone(db) if transport == "stdio" else {}
    with open_platform(db, **zone) as mp:
        mp.warm_up()
        tools = MemoryMcp(mp, lang)  # type: ignore[arg-type]
        if transport == "stdio":
            assert who is not None
            with user_errors():
                anyio.run(run_stdio, tools, who)
            return
        import uvicorn

        from ..api.auth import KeyRing

        with user_errors():
            keys = KeyRing(mp.settings.api)
            app = http_app(tools, keys, host=host)
        uvicorn.run(app, host=host, port=port, log_level="info")
