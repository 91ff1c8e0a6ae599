"""Export and import of one user's memory as JSON Lines.

A file is a header line, then one line per memory (its hub, nodes and structural edges),
link, episode and knowledge version, then an ``end`` line with the counts. The end line
lets an import tell a complete file from a truncated one. Everything stored is carried
except vectors and lexical index entries: they are derived from the text and rebuilt on
import by the embedding indexer, with whatever model the target store is configured for.

An import validates the whole file before writing anything, keeps every id, and skips
what the target already holds, so an interrupted import can simply be run again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from .errors import ConflictError, InvalidInputError
from .jobs import stop_if_asked
from .models import (
    ContentNode,
    Episode,
    KnowledgeVersion,
    Memory,
    MemoryLink,
    MemorySubgraph,
    StructuralEdge,
    check_identifier,
    invalid_input_from,
)
from .store.base import GraphStore

FORMAT = "memory-platform/export"
VERSION = 1
_PAGE = 500


class HeaderRecord(BaseModel):
    type: Literal["header"] = "header"
    format: Literal["memory-platform/export"] = "memory-platform/export"
    version: int = VERSION
    user_id: str
    exported_at: datetime
    embedding_model: str | None = None


class MemoryRecordLine(BaseModel):
    type: Literal["memory"] = "memory"
    sensitive: bool = False
    memory: Memory
    nodes: list[ContentNode]
    edges: list[StructuralEdge]


class LinkRecord(BaseModel):
    type: Literal["link"] = "link"
    link: MemoryLink


class EpisodeRecord(BaseModel):
    type: Literal["episode"] = "episode"
    sensitive: bool = False
    episode: Episode


class KnowledgeRecord(BaseModel):
    type: Literal["knowledge"] = "knowledge"
    version: KnowledgeVersion


class EndRecord(BaseModel):
    type: Literal["end"] = "end"
    counts: dict[str, int]
    sensitive: int = 0
    """How many memory and episode lines are marked sensitive (handle the file so)."""


ExportRecord = Annotated[
    HeaderRecord | MemoryRecordLine | LinkRecord | EpisodeRecord | KnowledgeRecord | EndRecord,
    Field(discriminator="type"),
]
_RECORD: TypeAdapter[ExportRecord] = TypeAdapter(ExportRecord)


class ImportReport(BaseModel):
    """What an import wrote, and what it found already present and skipped."""

    user_id: str
    imported: dict[str, int] = Field(default_factory=dict)
    skipped: dict[str, int] = Field(default_factory=dict)


def export_user(store: GraphStore, user_id: str) -> Iterator[BaseModel]:
    """Every record of a user's export, in a stable order (same store, same lines)."""
    yield HeaderRecord(
        user_id=user_id, exported_at=datetime.now(UTC), embedding_model=store.signature.model
    )
    counts = {"memory": 0, "link": 0, "episode": 0, "knowledge": 0}
    sensitive = 0
    links: dict[tuple[str, str, str], MemoryLink] = {}
    offset = 0
    while page := store.list_memories(user_id, limit=_PAGE, offset=offset):
        offset += len(page)
        for memory in page:
            record = store.get_memory(user_id, memory.id)
            if record is None:  # deleted while exporting
                continue
            counts["memory"] += 1
            sensitive += record.memory.sensitive
            yield MemoryRecordLine(
                sensitive=record.memory.sensitive,
                memory=record.memory,
                nodes=sorted(record.nodes, key=lambda n: n.id),
                edges=sorted(record.edges, key=lambda e: (e.src_id, e.dst_id, e.type, e.label)),
            )
            for link in record.links:
                links[(link.source_id, link.target_id, link.type.value)] = link
    for key in sorted(links):
        counts["link"] += 1
        yield LinkRecord(link=links[key])
    offset = 0
    while episodes := store.list_episodes(user_id, limit=_PAGE, offset=offset):
        offset += len(episodes)
        for episode in episodes:
            counts["episode"] += 1
            sensitive += episode.sensitive
            yield EpisodeRecord(sensitive=episode.sensitive, episode=episode)
    for version in reversed(store.knowledge_versions(user_id, limit=1_000_000)):
        counts["knowledge"] += 1
        yield KnowledgeRecord(version=version)
    yield EndRecord(counts=counts, sensitive=sensitive)


def dump_line(record: BaseModel) -> str:
    """One JSON Lines line (no newline) for a record."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)


def parse_lines(lines: Iterable[str | Mapping[str, Any]]) -> list[ExportRecord]:
    """Validate a whole export (its lines, or the lines parsed into dicts): header first,
    end last with matching counts.

    Raises:
        InvalidInputError: naming the first bad line and what is wrong with it.
    """
    records: list[ExportRecord] = []
    for number, line in enumerate(lines, start=1):
        if isinstance(line, str) and not line.strip():
            continue
        try:
            if isinstance(line, str):
                records.append(_RECORD.validate_json(line))
            else:
                records.append(_RECORD.validate_python(line))
        except ValidationError as exc:
            raise InvalidInputError(f"line {number}: {invalid_input_from(exc)}", "import") from exc
        try:  # what the store would refuse (NaN in metadata) stops the import before any write
            json.dumps(records[-1].model_dump(), allow_nan=False, default=str)
        except ValueError as exc:
            raise InvalidInputError(
                f"line {number}: not JSON the store can keep (NaN or an infinite number)",
                "import",
            ) from exc
    if not records or not isinstance(records[0], HeaderRecord):
        raise InvalidInputError("not a memory-platform export: no header line", "import")
    if records[0].version != VERSION:
        raise InvalidInputError(
            f"export format version {records[0].version}; this release reads {VERSION}", "import"
        )
    if not isinstance(records[-1], EndRecord):
        raise InvalidInputError("the file is truncated: no end line", "import")
    found: dict[str, int] = {"memory": 0, "link": 0, "episode": 0, "knowledge": 0}
    for record in records[1:-1]:
        if isinstance(record, HeaderRecord | EndRecord):
            raise InvalidInputError("header or end line in the middle of the file", "import")
        found[record.type] += 1
    if found != records[-1].counts:
        raise InvalidInputError(
            f"the end line counts {records[-1].counts} but the file holds {found}", "import"
        )
    return records


def import_user_id(records: list[ExportRecord], user_id: str | None = None) -> str:
    """The user an import of validated ``records`` writes: ``user_id``, else the exported
    user (its header's)."""
    header = records[0]
    assert isinstance(header, HeaderRecord)
    return check_identifier(user_id or header.user_id, "user_id")


def import_records(
    store: GraphStore, records: list[ExportRecord], user_id: str | None = None
) -> ImportReport:
    """Write validated records (see :func:`parse_lines`) for ``user_id`` (default: the
    exported user), keeping ids and skipping what is already there.

    All or nothing: when an id turns out to belong to another user of the store, what
    this import wrote is removed again before the :class:`ConflictError` is raised.
    Run as a job (:func:`~.jobs.stoppable`), it stops before its next page once the user
    is being deleted (:class:`~.errors.JobStopped`); what it wrote goes with the user.
    """
    user = import_user_id(records, user_id)
    report = ImportReport(user_id=user)
    imported = dict.fromkeys(("memory", "link", "episode", "knowledge"), 0)
    skipped = dict(imported)
    written_memories: list[str] = []
    written_episodes: list[str] = []

    def owned(model: Any) -> Any:
        return model.model_copy(update={"user_id": user})

    memories = [r for r in records if isinstance(r, MemoryRecordLine)]
    present = {m.id for m in store.get_memories(user, [r.memory.id for r in memories])}
    fresh = [line for line in memories if line.memory.id not in present]
    skipped["memory"] = len(memories) - len(fresh)
    try:
        for start in range(0, len(fresh), _PAGE):  # one transaction per page of memories
            stop_if_asked()
            page = fresh[start : start + _PAGE]
            store.write_memories(
                [
                    MemorySubgraph(
                        memory=owned(line.memory),
                        nodes=[owned(n) for n in line.nodes],
                        edges=line.edges,
                    )
                    for line in page
                ]
            )
            written_memories += [line.memory.id for line in page]
        imported["memory"] = len(fresh)
        existing: dict[str, set[tuple[str, str, str]]] = {}
        for r in records:
            if isinstance(r, LinkRecord):
                link = r.link
                if link.source_id not in existing:
                    existing[link.source_id] = {
                        (k.source_id, k.target_id, k.type.value)
                        for k in store.get_links(user, link.source_id)
                    }
                if (link.source_id, link.target_id, link.type.value) in existing[link.source_id]:
                    skipped["link"] += 1
                    continue
                store.add_link(owned(link))
                imported["link"] += 1
        episodes = [owned(r.episode) for r in records if isinstance(r, EpisodeRecord)]
        have = {e.id for e in store.get_episodes(user, [e.id for e in episodes])}
        new = [e for e in episodes if e.id not in have]
        for start in range(0, len(new), _PAGE):
            stop_if_asked()
            batch = new[start : start + _PAGE]
            store.add_episodes(batch)
            written_episodes += [e.id for e in batch]
        imported["episode"], skipped["episode"] = len(new), len(episodes) - len(new)
        known = store.knowledge_version_ids(
            user, [r.version.version_id for r in records if isinstance(r, KnowledgeRecord)]
        )
        for r in records:
            if isinstance(r, KnowledgeRecord):
                if r.version.version_id in known:
                    skipped["knowledge"] += 1
                else:
                    store.add_knowledge_version(owned(r.version))
                    imported["knowledge"] += 1
    except ConflictError as exc:
        for memory_id in written_memories:
            store.delete_memory(user, memory_id)
        store.delete_episodes(user, written_episodes)
        raise ConflictError(
            f"{exc}: nothing was imported (an import keeps ids: import another user's "
            "export into a different store)"
        ) from exc
    report.imported, report.skipped = imported, skipped
    return report
