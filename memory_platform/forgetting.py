"""Forgetting for real (seed 000 §9.2): nothing of a forgotten memory stays reachable.

Forgetting a memory deletes every version of it (its corrections' ``SUPERSEDES`` chain;
a memory a consolidation found contradicting it is another memory and stays), its links,
the content nodes no other memory includes, its vectors and lexical entries, and the
knowledge points derived from it; forgetting an episode deletes it with its vectors,
index entries and media file, and the mid-term summaries that retell it (a summary
names the messages it retells; its words cannot be told apart by message, so it goes
whole, while the other messages it retells stay stored), and the memories and knowledge
points extracted from it: a recorded session's extraction names, in each item's
metadata, the turns it comes from (those the LLM cites, joined by those that say the
most of it when no cited turn says as much). A purge of expired episodes keeps what was
extracted from them: expiry ends the record of what was said, not what was learnt from
it. Each call leaves one
:class:`AuditEntry` (ids and counts, never content).
:func:`purge_archived` applies the same to archived memories past a configured age.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel

from .builder import is_time_key
from .corrections import version_records
from .errors import NotFoundError
from .layers import MID_TERM_SPEAKER
from .models import AuditEntry, Episode, KnowledgePoint, MemoryStatus, NodeType, episodes_named
from .store import GraphStore, MemoryRecord
from .textutil import distinctive_terms, mentions

__all__ = [
    "ForgetReport",
    "derived_knowledge",
    "forget_episodes",
    "forget_memory",
    "purge_archived",
    "purge_expired",
    "retelling_summaries",
]


class ForgetReport(BaseModel):
    """What one forgetting removed; the audit record holds the same ids and counts."""

    user_id: str
    target_kind: str
    forgotten_ids: list[str]
    knowledge_points: int = 0
    media_files: int = 0
    summaries: int = 0
    """Mid-term summaries forgotten with the episodes because they retell one."""
    memories: list[str] = []
    """Memories (every version) forgotten with the episodes because they were extracted
    from one (:func:`extracted_from`)."""
    audit_id: str


def _terms(record: MemoryRecord) -> set[str]:
    """The distinctive words of a memory a knowledge point would repeat: its object (or
    topic when it has none) and its non-time attribute values."""
    parts = [n.content for n in record.nodes if n.kind == NodeType.OBJECT]
    if not parts:
        parts = [n.content for n in record.nodes if n.kind == NodeType.TOPIC]
    parts += [v for k, v in record.memory.attributes.items() if not is_time_key(k)]
    return distinctive_terms(parts)


def derived_knowledge(
    store: GraphStore, user_id: str, records: Sequence[MemoryRecord]
) -> list[KnowledgePoint]:
    """Knowledge points derived from the memories: those whose metadata names one of them
    (``memory_ids``) and those that repeat one's object or attribute values."""
    if not records:
        return []  # nothing to derive from: no knowledge version need be read
    ids = {r.memory.id for r in records}
    terms = set().union(*(_terms(r) for r in records))
    found: dict[str, KnowledgePoint] = {}
    for version in store.knowledge_versions(user_id, limit=1_000_000):
        for point in version.points:
            named = set(point.metadata.get("memory_ids") or []) & ids
            if named or any(mentions(point.content, t) for t in terms):
                found[point.id] = point
    return list(found.values())


def retelling_summaries(
    store: GraphStore, user_id: str, episodes: Sequence[Episode]
) -> list[Episode]:
    """The user's mid-term summaries that retell one of the episodes: those whose
    ``metadata["episode_ids"]`` names it (how :func:`~.midterm.summarize_episodes`
    records what it summarised). Every summary of the user is read, as
    :func:`derived_knowledge` reads every knowledge version: forgetting is rare."""
    ids = {e.id for e in episodes if e.speaker != MID_TERM_SPEAKER}
    if not ids:
        return []
    return [
        summary
        for summary in store.find_episodes(user_id, MID_TERM_SPEAKER, limit=1_000_000)
        if ids & episodes_named(summary.metadata)
    ]


def _audited(
    store: GraphStore,
    user_id: str,
    action: Literal["forget", "purge"],
    kind: Literal["memory", "episode"],
    ids: list[str],
    actor: str | None,
    now: datetime | None,
    counts: dict[str, int],
) -> ForgetReport:
    """Record what was just forgotten (ids and counts, no content) and report it."""
    entry = AuditEntry(
        user_id=user_id,
        action=action,
        target_kind=kind,
        target_ids=ids,
        at=now or datetime.now(UTC),
        actor=actor,
        counts=counts,
    )
    store.add_audit(entry)
    return ForgetReport(user_id=user_id, target_kind=kind, forgotten_ids=ids, audit_id=entry.id)


def forget_memory(
    store: GraphStore,
    user_id: str,
    memory_id: str,
    *,
    actor: str | None = None,
    action: Literal["forget", "purge"] = "forget",
    now: datetime | None = None,
) -> ForgetReport:
    """Delete a memory with all its versions and derived knowledge; audit it.

    Raises:
        NotFoundError: no such memory for this user.
    """
    records = version_records(store, user_id, memory_id)
    return _forget_versions(store, user_id, records, actor=actor, action=action, now=now)


def _forget_versions(
    store: GraphStore,
    user_id: str,
    records: Sequence[MemoryRecord],
    *,
    actor: str | None,
    action: Literal["forget", "purge"],
    now: datetime | None,
) -> ForgetReport:
    """Delete the versions of one memory with their derived knowledge; audit it."""
    ids, removed = _delete_memories(store, user_id, records)
    counts = {"memories": len(ids), "knowledge_points": removed}
    report = _audited(store, user_id, action, "memory", ids, actor, now, counts)
    return report.model_copy(update={"knowledge_points": removed})


def _delete_memories(
    store: GraphStore,
    user_id: str,
    records: Sequence[MemoryRecord],
    point_ids: Sequence[str] = (),
) -> tuple[list[str], int]:
    """Delete the memories with the knowledge derived from them and the knowledge points
    ``point_ids``; returns the memory ids and how many knowledge points were deleted."""
    derived = {p.id for p in derived_knowledge(store, user_id, records)} | set(point_ids)
    for record in records:
        store.delete_memory(user_id, record.memory.id)
    return [r.memory.id for r in records], store.delete_knowledge(user_id, sorted(derived))


def extracted_from(
    store: GraphStore, user_id: str, episodes: Sequence[Episode]
) -> tuple[list[MemoryRecord], list[str]]:
    """The memories (with all their versions) and the ids of the knowledge points
    extracted or promoted from the episodes: those whose metadata names one
    (:data:`~.models.TOLD_BY_KEY`, written by a recorded session's extraction), as the
    store's index of them says (:meth:`~.store.GraphStore.told_by`)."""
    told = store.told_by(user_id, [e.id for e in episodes])
    records: dict[str, MemoryRecord] = {}
    for memory_id in told.memory_ids:
        if memory_id not in records:
            with suppress(NotFoundError):  # forgotten meanwhile
                records |= {r.memory.id: r for r in version_records(store, user_id, memory_id)}
    return list(records.values()), told.knowledge_ids


def forget_episodes(
    store: GraphStore,
    user_id: str,
    episode_ids: Iterable[str],
    *,
    actor: str | None = None,
    release_media: Callable[[str, list[str]], int] = lambda user, ids: 0,
    now: datetime | None = None,
    action: Literal["forget", "purge"] = "forget",
) -> ForgetReport:
    """Delete episodes with the mid-term summaries that retell them (and, through
    ``release_media``, media files no episode uses any more); audit it. Forgotten (not
    purged for their expiry), they and those summaries take along the memories and
    knowledge points extracted or promoted from them (:func:`extracted_from`). Unknown
    ids are ignored; the report lists what existed."""
    wanted = list(dict.fromkeys(episode_ids))
    existing = store.get_episodes(user_id, wanted)
    summaries = [s for s in retelling_summaries(store, user_id, existing) if s.id not in wanted]
    ids = [e.id for e in [*existing, *summaries]]
    store.delete_episodes(user_id, ids)
    memories: list[str] = []
    knowledge = 0
    if action == "forget":  # after the episodes: an extraction under way then writes nothing
        records, points = extracted_from(store, user_id, [*existing, *summaries])
        memories, knowledge = _delete_memories(store, user_id, records, points)
    hashes = [
        str(e.metadata["media"]["sha256"])
        for e in existing
        if isinstance(e.metadata.get("media"), dict) and "sha256" in e.metadata["media"]
    ]
    files = release_media(user_id, hashes) if hashes else 0
    counts = {
        "episodes": len(ids),
        "media_files": files,
        "summaries": len(summaries),
        "memories": len(memories),
        "knowledge_points": knowledge,
    }
    report = _audited(store, user_id, action, "episode", ids, actor, now, counts)
    return report.model_copy(
        update={
            "media_files": files,
            "summaries": len(summaries),
            "memories": memories,
            "knowledge_points": knowledge,
        }
    )


def purge_expired(
    store: GraphStore,
    user_id: str,
    now: datetime | None = None,
    release_media: Callable[[str, list[str]], int] = lambda user, ids: 0,
) -> dict[str, int]:
    """Delete the user's episodes whose expiry (``expires_at``) has come, a page
    at a time, each page audited as a purge; returns how many were purged."""
    now = now or datetime.now(UTC)
    purged = 0
    while ids := store.expired_episode_ids(user_id, now, limit=500):
        report = forget_episodes(
            store, user_id, ids, actor="expiry", release_media=release_media, now=now,
            action="purge",
        )  # fmt: skip
        if not report.forgotten_ids:
            break  # deleted meanwhile by another process
        purged += len(report.forgotten_ids)
    return {"purged": purged}


def purge_archived(
    store: GraphStore, user_id: str, older_than_days: float, now: datetime | None = None
) -> dict[str, int]:
    """Forget archived memories not used for ``older_than_days`` (the decay policy's
    explicit end); returns how many were checked and how many memories (each with all
    its versions) were purged.

    A memory goes only when every version of it is archived and unused for that long:
    the faded old version of a corrected memory, or the loser of a conflict, is history
    of a memory still in use (before 2026-12-02, purging it took the current version
    along, as forgetting any version does)."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(days=older_than_days)
    stale: dict[str, None] = {}
    offset = 0
    while page := store.list_memories(user_id, MemoryStatus.ARCHIVED, limit=500, offset=offset):
        offset += len(page)
        stale.update((m.id, None) for m in page if (m.last_accessed or m.created_at) < cutoff)
    purged = 0
    seen: set[str] = set()
    for memory_id in stale:
        if memory_id in seen:
            continue  # a version of a memory judged already
        try:
            records = version_records(store, user_id, memory_id)
        except NotFoundError:
            continue  # forgotten meanwhile
        seen.update(r.memory.id for r in records)
        if all(r.memory.id in stale for r in records):
            _forget_versions(store, user_id, records, actor="purge", action="purge", now=now)
            purged += 1
    return {"checked": offset, "purged": purged}
