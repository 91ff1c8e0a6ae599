"""What every command shares: consoles, the one-line error exit, opening the platform."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console

from ..config import Settings, load_settings
from ..errors import MemoryPlatformError
from ..models import invalid_input_from

console = Console(soft_wrap=True)  # one message, one line; tables still fit the terminal
err_console = Console(stderr=True, soft_wrap=True)

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db", help="SQLite file to use (default: MEMORY_SQLITE_PATH, or the configured backend)"
    ),
]
UserOption = Annotated[str, typer.Option("--user", "-u", help="whose memory")]
JsonFlag = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]


def fail(message: str) -> typer.Exit:
    """Print one red line to stderr; the caller raises the returned exit (code 1)."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code=1)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the platform's errors, bad files and bad values into one line and exit 1."""
    try:
        yield
    except MemoryPlatformError as exc:
        raise fail(str(exc)) from exc
    except ValidationError as exc:
        raise fail(str(invalid_input_from(exc))) from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise fail(str(exc)) from exc


def settings_for(db: Path | None, *, existing: bool = False, **overrides: Any) -> Settings:
    """Settings from the environment, with ``--db`` selecting an embedded store file.

    With ``existing`` (commands that only read or change what is stored), an embedded
    store file that does not exist is refused instead of being created empty.
    """
    if db is not None:
        overrides.update(backend="sqlite", sqlite_path=db)
    settings = load_settings(**overrides)
    if existing and settings.backend == "sqlite" and not Path(settings.sqlite_path).is_file():
        raise fail(
            f"no memory store at {settings.sqlite_path}: check --db / MEMORY_SQLITE_PATH "
            "(ingest, import or init-db create one)"
        )
    return settings


@contextmanager
def open_platform(db: Path | None, *, existing: bool = False, **overrides: Any) -> Iterator[Any]:
    """A :class:`MemoryPlatform` for one command, closed (indexing finished) at the end.

    With ``existing``, an embedded store file that does not exist is refused
    (:func:`settings_for`).
    """
    from ..platform import MemoryPlatform

    with user_errors():
        settings = settings_for(db, existing=existing, **overrides)
        with MemoryPlatform(settings) as mp:
            yield mp


def print_json(value: Any) -> None:
    """JSON on stdout (unicode kept), for ``--json`` and for piping."""
    print(json.dumps(value, ensure_ascii=False, indent=2, default=str))
