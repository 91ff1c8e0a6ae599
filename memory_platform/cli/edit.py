"""Changing memory by hand: ``correct``, ``retract``, ``history``, ``forget``, ``purge``,
``audit`` and ``add-media``. Nothing is overwritten; only ``forget`` and ``purge`` delete."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..tools.arguments import ForgetMemoryArgs
from .common import DbOption, JsonFlag, UserOption, console, fail, open_platform, print_json

ReasonOption = Annotated[str | None, typer.Option(help="why (kept in the history)")]
Description = Annotated[str, typer.Argument(help="the memory's description, or its id")]


def _attributes(pairs: list[str] | None) -> dict[str, str] | None:
    if not pairs:
        return None
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise fail(f"--attr takes key=value (an empty value removes it), not {pair!r}")
        out[key.strip()] = value.strip()
    return out


def _report(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(result)
        if not result.get("success"):
            raise typer.Exit(code=1)
        return
    if not result.get("success"):
        lines = [result.get("error", "failed")]
        lines += [f"  {c['memory_id']}  {c['text']}" for c in result.get("candidates", [])]
        raise fail("\n".join(lines))
    console.print(result.get("message") or "done", highlight=False)
    for key in ("previous_text", "text"):
        if key in result:
            console.print(f"{key.replace('_', ' ')}: {result[key]}", highlight=False)
    console.print(f"memory id: {result['memory_id']}", highlight=False)


def correct(
    description: Description,
    user: UserOption,
    object_: Annotated[str | None, typer.Option("--object", help="the corrected object")] = None,
    attr: Annotated[
        list[str] | None, typer.Option("--attr", help="key=value to correct (repeatable)")
    ] = None,
    importance: Annotated[float | None, typer.Option(min=0.0, max=1.0)] = None,
    memory_type: Annotated[str | None, typer.Option("--type", help="the corrected type")] = None,
    sensitive: Annotated[
        bool | None, typer.Option("--sensitive/--not-sensitive", help="mark it private or not")
    ] = None,
    reason: ReasonOption = None,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Correct a memory: a new version supersedes it; the old one stays in the history."""
    with open_platform(db, existing=True) as mp:
        result = mp.update_memory(
            user,
            description,
            "correct",
            object=object_,
            attributes=_attributes(attr),
            importance=importance,
            memory_type=memory_type,
            sensitive=sensitive,
            reason=reason,
            changed_by="cli",
        )
    _report(result, as_json)


def retract(
    description: Description,
    user: UserOption,
    reason: ReasonOption = None,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Retract a memory that is not true: it is invalidated, not deleted."""
    with open_platform(db, existing=True) as mp:
        result = mp.update_memory(user, description, "retract", reason=reason, changed_by="cli")
    _report(result, as_json)


def history(
    memory_id: Annotated[str, typer.Argument(help="the id of any version")],
    user: UserOption,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Every version of a memory, oldest first: who changed it, when (UTC) and why."""
    with open_platform(db, existing=True) as mp:
        versions = mp.memory_history(user, memory_id)
    if as_json:
        print_json([v.model_dump(mode="json") for v in versions])
        return
    table = Table(title=f"history of {memory_id}")
    for column in ("#", "id", "text", "current", "how it ended"):
        table.add_column(column, overflow="fold")
    for index, version in enumerate(versions, start=1):
        ended = version.ended
        how = (
            f"{ended.action} by {ended.by} at {ended.at:%Y-%m-%d %H:%M}"
            + (f": {ended.reason}" if ended.reason else "")
            if ended
            else ""
        )
        table.add_row(
            str(index),
            version.memory.id,
            version.memory.text,
            "yes" if version.current else "",
            how,
        )
    console.print(table)


def forget(
    description: Description,
    user: UserOption,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")] = False,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Delete a memory (all versions, derived knowledge) or an episode (with the mid-term
    summaries that retell it and what was extracted from it) for good; an audit record
    without content stays."""
    if not yes and not typer.confirm(f"forget {description!r} of {user} for good?"):
        raise typer.Exit(code=1)
    with open_platform(db, existing=True) as mp:
        result = mp.forget_tool(user, ForgetMemoryArgs(memory_description=description))
    if as_json or not result.get("success"):
        _report(result, as_json)  # the JSON, or the error with its candidates
        return
    summaries, memories = result["summaries_removed"], result["memories_removed"]
    console.print(
        f"forgotten {result['kind']} {', '.join(result['forgotten'])}; "
        + (f"{memories} memory(ies) extracted from it removed; " if memories else "")
        + f"{result['knowledge_points_removed']} knowledge point(s) removed; "
        + (f"{summaries} mid-term summary(ies) that retold it removed; " if summaries else "")
        + f"audit record {result['audit_id']}",
        highlight=False,
    )


def delete_user(
    user: UserOption,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="do not ask to type the user id again")
    ] = False,
    db: DbOption = None,
) -> None:
    """Delete everything of a user for good: memories, episodes, knowledge, media files,
    and (with Redis) their short-term buffers and job results. Asks for the user id again
    first; `export` keeps a copy."""
    if not yes and typer.prompt(f"type {user!r} again to delete everything of it") != user:
        raise fail("the id typed again differs: nothing was deleted")
    with open_platform(db, existing=True) as mp:
        held = mp.stats(user)
        mp.delete_user(user)
    if not (held.memories or held.episodes or held.knowledge_versions):
        console.print(f"nothing was stored for {user}", highlight=False)
        return
    console.print(
        f"deleted {user}: {held.memories} memories, {held.episodes} episodes, "
        f"{held.knowledge_versions} knowledge versions",
        highlight=False,
    )


def purge(
    user: UserOption,
    older_than_days: Annotated[
        float | None,
        typer.Option(min=0.001, help="default: privacy.purge_archived_after_days"),
    ] = None,
    expired: Annotated[
        bool, typer.Option("--expired", help="delete the episodes whose expires_at has come")
    ] = False,
    db: DbOption = None,
) -> None:
    """Forget archived memories unused for longer than the given age, and with --expired
    the episodes whose expiry has come (the daily maintenance does both). What is purged
    leaves no word in an embedded store's file."""
    with open_platform(db, existing=True) as mp:
        ageless = older_than_days is None and mp.settings.privacy.purge_archived_after_days is None
        if ageless and not expired:
            raise fail(
                "give --older-than-days (or set privacy.purge_archived_after_days, "
                "MEMORY_PRIVACY__PURGE_ARCHIVED_AFTER_DAYS), or --expired"
            )
        if not ageless:
            report = mp.purge_archived(user, older_than_days)
            console.print(
                f"checked {report['checked']} archived memories, purged {report['purged']}",
                highlight=False,
            )
        if expired:
            gone = mp.purge_expired(user)["purged"]
            console.print(f"purged {gone} expired episode(s)", highlight=False)


def audit(
    user: UserOption,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 100,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """The user's forgetting and purging records, newest first (ids and counts only)."""
    with open_platform(db, existing=True) as mp:
        entries = mp.audit_log(user, limit)
    if as_json:
        print_json([e.model_dump(mode="json") for e in entries])
        return
    table = Table(title=f"audit of {user}")
    for column in ("time (UTC)", "action", "kind", "ids", "counts", "by"):
        table.add_column(column, overflow="fold")
    for e in entries:
        table.add_row(
            f"{e.at:%Y-%m-%d %H:%M}",
            e.action,
            e.target_kind,
            ", ".join(e.target_ids),
            ", ".join(f"{k} {v}" for k, v in e.counts.items()),
            e.actor or "",
        )
    console.print(table)


def add_media(
    path: Annotated[Path, typer.Argument(help="an image or audio file")],
    user: UserOption,
    modality: Annotated[str, typer.Option(help="image or audio")] = "image",
    description: Annotated[
        str | None, typer.Option(help="what it shows or says (needed without an encoder)")
    ] = None,
    sensitive: Annotated[bool | None, typer.Option("--sensitive/--not-sensitive")] = None,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Remember an image or a sound: stored by reference, searchable by its description."""
    if modality not in ("image", "audio"):
        raise fail("--modality must be image or audio")
    with open_platform(db) as mp:
        stored = mp.add_media(
            user,
            path,
            modality,
            description,
            sensitive=sensitive,
        )
    if as_json:
        print_json(stored.model_dump(mode="json"))
        return
    console.print(
        f"remembered {stored.modality} {stored.episode_id} ({stored.mime}, {stored.size} bytes): "
        f"{stored.description}",
        highlight=False,
    )
