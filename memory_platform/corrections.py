"""Correcting and retracting memories without losing what was there (seed 000 §9.3).

A correction never overwrites in place: it writes a new version of the memory with the
changed fields, links it ``(new)-[:SUPERSEDES]->(old)``, copies the old version's links
to other memories, and invalidates the old version (``invalid_at``). Both versions record
the change (who, when, why) in their metadata under ``change`` / ``superseded_by``, so
the history reads back from either end. Search shows the current version only; the old
ones stay readable through :func:`memory_history` and ``include_invalid``.

A retraction ("that never happened") invalidates the memory and records why, deleting
nothing. Forgetting for real is :mod:`memory_platform.forgetting`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel

from .builder import ASSISTANT_SUBJECT, SELF_SUBJECT, TIME_METADATA, build_memory, is_time_key
from .errors import ConflictError, InvalidInputError, NotFoundError
from .models import LinkType, Memory, MemoryLink, NodeType, validated
from .privacy import SensitiveCategory, with_sensitivity
from .store import GraphStore, MemoryRecord
from .textutil import has_cjk
from .tools.arguments import CreateMemoryArgs, UpdateMemoryArgs

__all__ = [
    "MemoryChange",
    "MemoryVersion",
    "correct_memory",
    "memory_history",
    "retract_memory",
    "version_records",
]

_BOOKKEEPING = ("change", "supersedes", "superseded_by", "retracted")
"""Metadata of one version's place in the history, never carried to the next."""
_CHANGED_MEANWHILE = (
    "this memory was corrected, retracted or contradicted while this change was made; "
    "nothing was changed: read its current version and change that"
)


class MemoryChange(BaseModel):
    """One change made to a memory: what, by whom, when and why."""

    action: Literal["correct", "retract"]
    by: str
    at: datetime
    reason: str | None = None
    fields: list[str] = []


class MemoryVersion(BaseModel):
    """One version in a memory's history, oldest first.

    ``change`` says how this version came to be (a correction) and ``ended`` how it
    stopped being current (superseded by a correction, or retracted). A version a
    consolidation found contradicted names the memory that did in ``superseded_by``,
    with no ``ended``: no one changed it.
    """

    memory: Memory
    current: bool
    change: MemoryChange | None = None
    ended: MemoryChange | None = None
    superseded_by: str | None = None


def _content(record: MemoryRecord, kind: NodeType) -> str | None:
    for node in record.nodes:
        if node.kind == kind:
            return node.content
    return None


def _written_subject(record: MemoryRecord) -> str | None:
    """The subject as a caller would write it: the node holds the canonical form
    (``user`` for 我 / I), which would not read right in the corrected text."""
    content = _content(record, NodeType.SUBJECT)
    zh = has_cjk(record.memory.text)
    if content == SELF_SUBJECT:
        return "我" if zh else "I"
    if content == ASSISTANT_SUBJECT:
        return "你" if zh else "you"
    return content


def _attribute_key(key: str) -> str:
    """Which attribute a key names: "Time" corrects "time", and any time key (时间, date)
    the memory's one time; else two would disagree and the old one would be read."""
    return "time" if is_time_key(key) else key.strip().casefold()


def _corrected_args(record: MemoryRecord, args: UpdateMemoryArgs) -> CreateMemoryArgs:
    """The old version's arguments with the correction applied."""
    old = record.memory
    attributes = dict(old.attributes)
    for key, value in (args.attributes or {}).items():
        for same in [k for k in attributes if _attribute_key(k) == _attribute_key(key)]:
            del attributes[same]
        if value:
            attributes[key] = value
    subject = _written_subject(record)
    topic = _content(record, NodeType.TOPIC)
    if subject is None or topic is None:
        raise InvalidInputError(
            "this memory has no subject or topic to rebuild it from; retract it and create "
            "the right one instead",
            "memory_description",
        )
    return CreateMemoryArgs(
        subject=subject,
        memory_type=args.memory_type or old.memory_type,
        topic=topic,
        object=args.object if args.object is not None else _content(record, NodeType.OBJECT),
        attributes=attributes,
        importance=old.importance if args.importance is None else args.importance,
    )


def correct_memory(
    store: GraphStore,
    record: MemoryRecord,
    args: UpdateMemoryArgs,
    *,
    by: str,
    categories: Iterable[SensitiveCategory | str],
    now: datetime | None = None,
    notify: Callable[[str], object] = lambda user: None,
) -> tuple[Memory, MemoryChange]:
    """Write the corrected version of ``record`` and supersede the old one.

    If anything after writing the new version fails, the new version is removed again,
    so the old one stays current.

    Returns:
        The new version and the change recorded on both versions.

    Raises:
        InvalidInputError: the memory is not current, or the correction changes nothing.
        ConflictError: another change superseded it since ``record`` was read (two
            corrections at once); the new version is removed again.
    """
    old = record.memory
    if old.invalid_at is not None:
        raise InvalidInputError(
            "this memory is no longer current (it was corrected, retracted or contradicted); "
            "correct its current version",
            "memory_description",
        )
    if not args.changes_anything():
        raise InvalidInputError(
            "nothing to correct: give object, attributes, importance, memory_type or "
            "sensitive; to withdraw the memory use action 'retract'",
            "action",
        )
    now = _aware(now)
    fields = [
        name
        for name in ("object", "attributes", "importance", "memory_type", "sensitive")
        if getattr(args, name) is not None
    ]
    change = MemoryChange(action="correct", by=by, at=now, reason=args.reason, fields=fields)
    created = _corrected_args(record, args)
    # relative times in the old attributes meant "relative to when they were said"
    retimed = any(_attribute_key(k) == "time" for k in args.attributes or {})
    graph = build_memory(
        old.user_id,
        created,
        reference_time=now if retimed else old.created_at,
        session_id=old.session_id,
        source="correction",
    )
    new = graph.memory
    # a new time is read anew: how the old one was read ("上个月", partly) no longer holds
    dropped = _BOOKKEEPING + TIME_METADATA if retimed else _BOOKKEEPING
    inherited = {k: v for k, v in old.metadata.items() if k not in dropped}
    sensitive = args.sensitive if args.sensitive is not None else (old.sensitive or None)
    new.metadata = with_sensitivity(
        {**inherited, **new.metadata}, new.text, sensitive, categories
    ) | {"supersedes": old.id, "change": change.model_dump(mode="json")}
    store.write_memory(graph)
    try:
        store.add_link(
            validated(
                MemoryLink,
                user_id=old.user_id,
                source_id=new.id,
                target_id=old.id,
                type=LinkType.SUPERSEDES,
                importance=old.importance,
                created_at=now,
            )
        )
        for link in record.links:
            if link.type in (LinkType.SUPERSEDES, LinkType.CONFLICTS_WITH):
                continue
            source = new.id if link.source_id == old.id else link.source_id
            target = new.id if link.target_id == old.id else link.target_id
            store.add_link(link.model_copy(update={"source_id": source, "target_id": target}))
        store.update_memory(
            old.user_id,
            old.id,
            invalid_at=now,
            metadata={**old.metadata, "superseded_by": new.id},
            only_if_current=True,  # not if another correction superseded it meanwhile
        )
    except ConflictError as exc:
        store.delete_memory(old.user_id, new.id)
        raise ConflictError(_CHANGED_MEANWHILE) from exc
    except Exception:
        store.delete_memory(old.user_id, new.id)
        raise
    notify(old.user_id)
    return new, change


def retract_memory(
    store: GraphStore, memory: Memory, *, by: str, reason: str | None, now: datetime | None = None
) -> tuple[Memory, MemoryChange]:
    """Invalidate a memory that should never have been stored; nothing is deleted.

    Raises:
        InvalidInputError: the memory is not current.
        ConflictError: another change superseded it since ``memory`` was read.
    """
    if memory.invalid_at is not None:
        raise InvalidInputError(
            "this memory is already not current (corrected, retracted or contradicted)",
            "memory_description",
        )
    now = _aware(now)
    change = MemoryChange(action="retract", by=by, at=now, reason=reason)
    try:
        updated = store.update_memory(
            memory.user_id,
            memory.id,
            invalid_at=now,
            metadata={**memory.metadata, "retracted": change.model_dump(mode="json")},
            only_if_current=True,
        )
    except ConflictError as exc:
        raise ConflictError(_CHANGED_MEANWHILE) from exc
    return updated, change


def _aware(when: datetime | None) -> datetime:
    """The time of a change: the message's (naive means UTC), else now."""
    when = when or datetime.now(UTC)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _change(metadata: dict[str, Any], key: str) -> MemoryChange | None:
    raw = metadata.get(key)
    return MemoryChange.model_validate(raw) if isinstance(raw, dict) else None


def version_records(store: GraphStore, user_id: str, memory_id: str) -> list[MemoryRecord]:
    """Every version of a memory with its nodes and links, oldest first, found by
    following a correction's ``SUPERSEDES`` from any one of them. A consolidation's
    (a *discovered* link) joins two memories that contradict each other, not two
    versions of one: forgetting either must leave the other.

    Raises:
        NotFoundError: no such memory for this user.
    """
    start = store.get_memory(user_id, memory_id)
    if start is None:
        raise NotFoundError("memory", memory_id)
    records = {start.memory.id: start}
    frontier = [start]
    while frontier:
        record = frontier.pop()
        for link in record.links:
            if link.type != LinkType.SUPERSEDES or link.discovered:
                continue
            for other in (link.source_id, link.target_id):
                if other not in records:
                    found = store.get_memory(user_id, other)
                    if found is not None:
                        records[other] = found
                        frontier.append(found)
    return sorted(records.values(), key=lambda r: (r.memory.created_at, r.memory.id))


def memory_history(store: GraphStore, user_id: str, memory_id: str) -> list[MemoryVersion]:
    """Every version of a memory, oldest first, with how each began and ended.

    Raises:
        NotFoundError: no such memory for this user.
    """
    ordered = version_records(store, user_id, memory_id)
    records = {r.memory.id: r for r in ordered}
    newer = {
        link.target_id: link.source_id
        for record in ordered
        for link in record.links
        if link.type == LinkType.SUPERSEDES
    }
    versions = []
    for record in ordered:
        m = record.memory
        successor = newer.get(m.id)
        ended = (
            _change(records[successor].memory.metadata, "change")
            if successor in records
            else _change(m.metadata, "retracted")
        )
        versions.append(
            MemoryVersion(
                memory=m,
                current=m.invalid_at is None,
                change=_change(m.metadata, "change"),
                ended=ended,
                superseded_by=successor,
            )
        )
    return versions
