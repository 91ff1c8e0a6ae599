"""``MemoryPlatform``: the one entry point integrations, the CLI and the workers call."""

from __future__ import annotations

import gc
import logging
import random
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from .builder import build_memory
from .clock import UTC_OFFSET_KEY, named_offset, names_clock, parse_offset, said_at, said_zone
from .config import Settings, load_settings
from .consolidation import Consolidator
from .consolidation.review import review_conflicts
from .corrections import MemoryVersion, correct_memory, memory_history, retract_memory
from .embeddings import Embedder, coverage, make_embedder
from .errors import (
    InvalidInputError,
    JobStopped,
    MemoryPlatformError,
    NotFoundError,
    QueueUnavailable,
)
from .extraction import ExtractionReport, latest_points, sample_points
from .extraction.sessions import SessionExtractions
from .forgetting import (
    ForgetReport,
    forget_episodes,
    forget_memory,
    purge_archived,
    purge_expired,
)
from .indexing import EmbeddingIndexer
from .jobs import (
    TASK_CONSOLIDATE,
    TASK_EXTRACT,
    TASK_SUMMARIZE,
    CeleryJobs,
    InProcessJobs,
    JobRunner,
    fresh_job_id,
    stoppable,
)
from .layers import (
    MID_TERM_SPEAKER,
    BufferedMessage,
    promotion_session,
    recent_from_episodes,
    short_term_buffer,
)
from .linking import resolve_memory
from .llm import LLMClient
from .media import MediaFiles, MediaLibrary
from .media.encoders import make_encoders
from .media.library import MediaMemory
from .midterm import archive_faded, summarize_episodes
from .models import (
    SEARCHABLE_KEY,
    AuditEntry,
    Episode,
    KnowledgePoint,
    Memory,
    MemoryLink,
    MemoryStatus,
    MemoryType,
    Message,
    RelationType,
    UpdateAction,
    check_identifier,
    invalid_input_from,
    utc,
    valid_unicode,
    validated,
)
from .privacy import SENSITIVE_KEY, loggable, with_sensitivity
from .recent_vectors import RecentVectors
from .retrieval import HybridRetriever, SearchResult, format_context
from .retrieval.context import relation_label
from .retrieval.gloss import person_name
from .retrieval.planner import LLMQueryPlanner
from .retrieval.retriever import TimeWindow
from .speaker_tags import StoredSpeakers, pasted_speakers
from .store import STALE_LEXICAL_INDEX_SHORT, GraphStore, MemoryRecord, StoreStats, open_store
from .store.base import memory_document
from .textutil import clear_text_caches, has_cjk, lexical_signature, lexical_tokens
from .timeparse import normalize_time
from .tools.arguments import (
    CreateMemoryArgs,
    ForgetMemoryArgs,
    LinkMemoriesArgs,
    SearchMemoriesArgs,
    UpdateMemoryArgs,
)
from .tools.executor import ToolExecutor
from .tools.prompts import system_prompt
from .tools.schemas import tool_definitions
from .transfer import (
    ImportReport,
    dump_line,
    export_user,
    import_records,
    import_user_id,
    parse_lines,
)

__all__ = ["MemoryPlatform"]

log = logging.getLogger(__name__)

_FULL_COVERAGE = 0.999
"""Vector similarity is trusted only for texts the embedder knows every token of."""

_MAX_DAYS = 100_000
"""Longer than any memory is kept (about 270 years): ``now - days`` stays a date."""
_EPISODE_KEYS = {
    "text",
    "timestamp",
    "session_id",
    "speaker",
    "metadata",
    "keywords",
    "importance",
    "expires_at",
    "id",
}


def _time_bound(value: Any, field: str, now: datetime, end: bool, zone: tzinfo) -> datetime | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, datetime):
        return utc(_in_zone(value, zone))
    if not isinstance(value, str):
        raise InvalidInputError("must be a datetime or a time expression", field)
    parsed = normalize_time(value, now)
    if not parsed.parsed or parsed.start is None:
        raise InvalidInputError(
            f"cannot understand {value!r}; use a date such as 2025-11-05 or words such as "
            "上周一 / yesterday",
            field,
        )
    if end:
        return parsed.end or parsed.start
    return parsed.start


def _whole(value: object, field: str, low: int, high: int) -> int:
    """A whole-number argument within ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(f"must be a whole number between {low:,} and {high:,}", field)
    return value


def _listed(value: object, field: str, what: str) -> list[Any]:
    """A list argument: a list, tuple or set (a lone string or dict is not one)."""
    if not isinstance(value, list | tuple | set | frozenset):
        raise InvalidInputError(f"must be a list of {what}", field)
    return list(value)


def _messages(value: object, zone: tzinfo) -> list[Message]:
    """Chat messages: a list of :class:`Message` or dicts, each validated (an error names
    its index), a timestamp with no zone read in ``zone``."""
    out: list[Message] = []
    for index, raw in enumerate(_listed(value, "messages", "messages")):
        if not isinstance(raw, Message | Mapping):
            raise InvalidInputError("each message must be a dict", f"messages[{index}]")
        try:
            message = raw if isinstance(raw, Message) else Message.model_validate(dict(raw))
        except ValidationError as exc:
            raise _invalid_item(exc, f"messages[{index}]") from exc
        if message.timestamp.tzinfo is None:
            try:
                when = utc(_in_zone(message.timestamp, zone))
            except InvalidInputError as exc:
                raise InvalidInputError(exc.message, f"messages[{index}].timestamp") from exc
            message = message.model_copy(update={"timestamp": when})
        out.append(message)
    return out


def _with_said_clock(
    metadata: dict[str, Any], timestamp: datetime | None, index: int
) -> dict[str, Any]:
    """An episode's metadata with the clock it was said on (:mod:`.clock`): the offset
    its timestamp names, unless the metadata records one already (an exported episode
    imported again, its time in UTC); one that is no offset is refused."""
    if UTC_OFFSET_KEY in metadata:
        try:
            parse_offset(metadata[UTC_OFFSET_KEY])
        except ValueError as exc:
            raise InvalidInputError(
                str(exc), f"episodes[{index}].metadata.{UTC_OFFSET_KEY}"
            ) from exc
    elif timestamp is not None and (offset := named_offset(timestamp)):
        metadata[UTC_OFFSET_KEY] = offset
    return metadata


def _invalid_item(exc: ValidationError, where: str) -> InvalidInputError:
    """A list item's validation error, its field named under the item's (``messages[2].timestamp``)."""
    error = invalid_input_from(exc)
    return InvalidInputError(error.message, where + (f".{error.field}" if error.field else ""))


def _id(value: object, field: str) -> str:
    """An id to look up: a non-empty string of valid Unicode."""
    if not isinstance(value, str) or not value or not valid_unicode(value):
        raise InvalidInputError("must be an id (a non-empty string)", field)
    return value


def _ids(value: object, field: str) -> list[str]:
    """A list of ids: non-empty strings of valid Unicode."""
    ids = _listed(value, field, "ids")
    if not all(isinstance(ref, str) and ref and valid_unicode(ref) for ref in ids):
        raise InvalidInputError("must be a list of ids (non-empty strings)", field)
    return ids


def _moment(value: object, field: str, zone: tzinfo) -> datetime | None:
    """A time argument ("now" for a search or a purge): a datetime, in its own zone (the
    user's "today" and "yesterday" are read in it) or in ``zone`` (the deployment's)
    when it names none, or None for the present moment."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidInputError(f"must be a datetime, not {type(value).__name__}", field)
    return _in_zone(value, zone)


def _in_zone(value: datetime, zone: tzinfo) -> datetime:
    """``value`` as given if it names a zone, else read in ``zone`` (the deployment's)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=zone)


def _time_window(
    time_range: Mapping[str, Any] | tuple[Any, Any] | None, now: datetime, zone: tzinfo
) -> TimeWindow | None:
    """A filter window from ``{"start", "end"}`` or a pair; an end date includes its day,
    and a datetime with no zone is in ``zone``."""
    if time_range is None:
        return None
    if isinstance(time_range, Mapping):
        unknown = set(time_range) - {"start", "end"}
        if unknown:
            raise InvalidInputError(f"unknown keys {sorted(unknown)}", "time_range")
        start, end = time_range.get("start"), time_range.get("end")
    elif isinstance(time_range, list | tuple) and len(time_range) == 2:
        start, end = time_range
    else:
        raise InvalidInputError(
            'must be {"start": ..., "end": ...} or a (start, end) pair', "time_range"
        )
    window = TimeWindow(
        _time_bound(start, "time_range.start", now, end=False, zone=zone),
        _time_bound(end, "time_range.end", now, end=True, zone=zone),
    )
    if window.start and window.end and window.start >= window.end:
        raise InvalidInputError("start must be before end", "time_range")
    return None if window.start is None and window.end is None else window


def _parse_timestamp(value: datetime | str | None, field: str = "timestamp") -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidInputError(f"not an ISO-8601 time: {value!r}", field) from exc
    raise InvalidInputError("must be a datetime or an ISO-8601 string", field)


def _media_folder(settings: Settings) -> Path:
    """Where media bytes go: the configured folder, else beside the SQLite file."""
    if settings.media.folder is not None:
        return settings.media.folder
    if settings.backend == "sqlite":
        return settings.sqlite_path.with_name(settings.sqlite_path.name + ".media")
    return Path("media")


class MemoryPlatform:
    """Long-term memory for LLM agents on a graph store.

    Args:
        settings: configuration; defaults to :meth:`Settings` read from the environment.
        embedder: the embedder to use instead of the one the settings describe (share
            one loaded model between several platforms).
        store: an open store to use instead of opening the configured one (the caller
            keeps ownership: :meth:`close` leaves it open).

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        store: GraphStore | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.embedder: Embedder = embedder or make_embedder(self.settings)
        self._owns_store = store is None
        self.store: GraphStore = store or open_store(self.settings)
        self._warm_up: threading.Thread | None = None
        self._indexer = EmbeddingIndexer(
            self.store, self.embedder, batch_size=self.settings.embedding_batch_size
        )
        self._tools = ToolExecutor(self)
        self.llm = LLMClient.from_settings(self.settings)
        self._extractions = SessionExtractions(
            self.store, self.llm, self.settings, written=self._indexer.notify
        )
        self._recent_vectors = RecentVectors(self.embedder)
        self._retriever = HybridRetriever(
            self.store,
            self.embedder,
            self.settings.retrieval,
            planner=LLMQueryPlanner(self.llm.with_budget(self.settings.retrieval.planner_timeout))
            if self.llm is not None and self.settings.retrieval.llm_planner
            else None,
            recent=self._recent_vectors,
        )
        self._jobs: JobRunner = (
            CeleryJobs(self.settings)
            if self.settings.redis_url
            else InProcessJobs(
                {
                    TASK_EXTRACT: self.extract_session,
                    TASK_CONSOLIDATE: self.consolidate,
                    TASK_SUMMARIZE: self.summarize_messages,
                },
                lock_wait=self.settings.worker.lock_wait,
            )
        )
        self._short_term = short_term_buffer(self.settings)
        self._media = MediaLibrary(
            self.store,
            MediaFiles(_media_folder(self.settings)),
            make_encoders(self.settings),
            write_episode=lambda user, episode: self.add_episodes(user, [episode])[0],
            max_bytes=self.settings.media.max_bytes,
            min_similarity=self.settings.media.min_similarity,
        )
        # Items left without vectors by an earlier crash get embedded in the background.
        self._indexer.notify(None)

    @classmethod
    def from_env(cls, **overrides: Any) -> MemoryPlatform:
        """A platform configured from ``MEMORY_*`` variables, ``.env`` and the TOML file.

        Raises:
            ConfigurationError: a setting is invalid; the message names it.
        """
        return cls(load_settings(**overrides))

    def __enter__(self) -> MemoryPlatform:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Finish queued work and close the store (if this platform opened it)."""
        self._jobs.close()
        self._indexer.close(wait=True)
        self._retriever.close()
        if self._owns_store:
            self.store.close()

    # -- tools ---------------------------------------------------------------------------

    def tool_definitions(
        self, lang: Literal["zh", "en"] = "zh", extended: bool = False
    ) -> list[dict[str, Any]]:
        """The memory tools in OpenAI ``tools`` format: seed 000 Appendix A's three, plus
        ``update_memory`` and ``forget_memory`` with ``extended=True``."""
        if lang not in ("zh", "en"):
            raise InvalidInputError("use zh or en", "lang")
        return tool_definitions(lang, extended=extended)

    def system_prompt(
        self,
        lang: Literal["zh", "en"] = "zh",
        examples: bool = True,
        extended: bool = False,
        user_id: str | None = None,
    ) -> str:
        """The prompt kit that teaches an agent the tools (:func:`memory_platform.system_prompt`),
        stating today's date on the clock of ``user_id`` (:meth:`user_clock`), else in the
        deployment's time zone: the day the user calls today."""
        zone = self.settings.zone if user_id is None else self.user_clock(user_id)
        today = datetime.now(zone).date()
        return system_prompt(lang, today=today, examples=examples, extended=extended)

    def user_clock(self, user_id: str) -> tzinfo:
        """The clock a call for the user that names none is read on (its "today", 昨天
        and the times results show): the one the user's latest turn recording a clock
        was said on (a message time a chat backend sent as ``…+08:00``:
        :mod:`memory_platform.clock`), else the deployment's ``timezone``. One indexed
        read (``GraphStore.latest_offset``)."""
        offset = self.store.latest_offset(self._user(user_id))
        return said_zone({UTC_OFFSET_KEY: offset}, self.settings.zone)

    def execute_tool(
        self,
        user_id: str,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        reference_time: datetime | None = None,
    ) -> dict[str, Any]:
        """Run one tool call for a user; bad input returns ``{"success": False, "error": ...}``.

        Args:
            user_id: whose memory.
            name: ``create_memory``, ``link_memories`` or ``search_memories``.
            arguments: the call's arguments, as a dict or the JSON string an LLM sends.
            reference_time: when the user's message was sent (relative times resolve
                against it); defaults to now.
        """
        return self._tools.execute(user_id, name, arguments, reference_time)

    def handle_tool_calls(
        self, user_id: str, message: Any, reference_time: datetime | None = None
    ) -> list[dict[str, Any]]:
        """Run all tool calls of an assistant message; returns the ``role: tool`` replies."""
        return self._tools.handle_tool_calls(user_id, message, reference_time)

    # -- writing memories --------------------------------------------------------------

    def create_memory(
        self,
        user_id: str,
        subject: str,
        memory_type: str,
        topic: str,
        object: str | None = None,
        attributes: Mapping[str, str] | None = None,
        importance: float = 0.5,
        reference_time: datetime | None = None,
        session_id: str | None = None,
        sensitive: bool | None = None,
    ) -> str:
        """Write a staged memory and return its id; embeddings follow in the background.

        ``sensitive`` marks it private (True) or not (False); by default the rule list of
        ``privacy.memory_categories`` decides (see :mod:`memory_platform.privacy`).

        Raises:
            InvalidInputError: an argument is missing, empty, too long or out of range.
        """
        args = validated(
            CreateMemoryArgs,
            subject=subject,
            memory_type=memory_type,
            topic=topic,
            object=object,
            attributes={} if attributes is None else attributes,
            importance=importance,
            sensitive=sensitive,
        )
        return self.create_memory_record(
            user_id, args, reference_time=reference_time, session_id=session_id
        ).memory.id

    def create_memory_record(
        self,
        user_id: str,
        args: CreateMemoryArgs,
        reference_time: datetime | None = None,
        session_id: str | None = None,
        source: str = "tool",
    ) -> MemoryRecord:
        """Like :meth:`create_memory` from validated arguments; returns what was written."""
        user = self._user(user_id)
        if session_id is not None:
            session_id = check_identifier(session_id, "session_id")
        reference_time = self._message_time(reference_time, user=user)
        graph = build_memory(user, args, reference_time, session_id=session_id, source=source)
        graph.memory.metadata = with_sensitivity(
            graph.memory.metadata,
            memory_document(graph.memory),
            args.sensitive,
            self.settings.privacy.memory_categories,
        )
        self.store.write_memory(graph)
        self._indexer.notify(user)
        return MemoryRecord(memory=graph.memory, nodes=graph.nodes, edges=graph.edges)

    def link_memories(
        self,
        user_id: str,
        source_memory_description: str,
        target_memory_description: str,
        relation_type: str | RelationType,
        importance: float = 0.6,
        reference_time: datetime | None = None,
    ) -> dict[str, Any]:
        """Link two existing memories found by description (or id).

        Returns the tool result: on success the two memory ids and the relation; when a
        description matches nothing clearly, ``success`` is False and the candidates are
        listed so the caller can be more specific.
        """
        user = self._user(user_id)
        args = validated(
            LinkMemoriesArgs,
            source_memory_description=source_memory_description,
            target_memory_description=target_memory_description,
            relation_type=relation_type,
            importance=importance,
        )
        relation, importance = args.relation_type, args.importance
        reference_time = self._message_time(reference_time, user=user)
        ends = {}
        for role, description in (
            ("source", args.source_memory_description),
            ("target", args.target_memory_description),
        ):
            found = self._resolve(user, description, role, reference_time)
            if isinstance(found, dict):
                return found
            ends[role] = found
        source, target = ends["source"], ends["target"]
        if source.id == target.id:
            return {
                "success": False,
                "error": "both descriptions point to the same memory "
                f"({source.text!r}); describe two different memories",
            }
        link = validated(
            MemoryLink,
            user_id=user,
            source_id=source.id,
            target_id=target.id,
            type=relation.link_type,
            importance=importance,
        )
        self.store.add_link(link)
        return {
            "success": True,
            "source_memory_id": source.id,
            "target_memory_id": target.id,
            "source_text": source.text,
            "target_text": target.text,
            "relation": relation.link_type.value,
            # answered in the words the caller used: 导致 for 导致, causes for causes
            "relation_type": relation.zh if has_cjk(str(relation_type)) else relation.value,
        }

    def _resolve(
        self,
        user: str,
        description: Any,
        role: str,
        reference_time: datetime | None,
        current_only: bool = False,
    ) -> Memory | dict[str, Any]:
        """The memory a description (or id) means, or the tool's failure answer listing
        candidates when it is unclear. ``role`` names the argument in messages."""
        field = "memory_description" if role == "memory" else f"{role}_memory_description"
        if not isinstance(description, str) or not description.strip():
            raise InvalidInputError("must be a non-empty description", field)
        self._indexer.flush(user, timeout=30.0)
        found = resolve_memory(
            self.store, self._recent_vectors, user, description, reference_time, current_only
        )
        if found.memory is None:
            return {
                "success": False,
                "error": f"cannot tell which memory the {role} description {description!r} "
                f"means: {found.reason}. Describe it more precisely or pass its memory_id.",
                "candidates": [
                    {"memory_id": c.memory.id, "text": c.memory.text, "score": round(c.score, 3)}
                    for c in found.candidates
                ],
            }
        return found.memory

    # -- correcting and forgetting (seed 000 §9.2, §9.3) ----------------------------------

    def update_memory(
        self,
        user_id: str,
        memory_description: str,
        action: str = "correct",
        *,
        object: str | None = None,
        attributes: Mapping[str, str | None] | None = None,
        importance: float | None = None,
        memory_type: str | None = None,
        sensitive: bool | None = None,
        reason: str | None = None,
        changed_by: str = "user",
        reference_time: datetime | None = None,
    ) -> dict[str, Any]:
        """Correct or retract a memory found by description (or id), as the
        ``update_memory`` tool does.

        A correction writes a new version and supersedes the old one, which stays
        readable in :meth:`memory_history`; a retraction invalidates the memory. Nothing
        is deleted (that is :meth:`forget`).

        Returns:
            The tool result: ``success``, the memory ids and the change; when the
            description is unclear, ``success`` is False with candidates.

        Raises:
            InvalidInputError: an argument is invalid, or the correction changes nothing.
        """
        args = validated(
            UpdateMemoryArgs,
            memory_description=memory_description,
            action=action,
            object=object,
            attributes=attributes,
            importance=importance,
            memory_type=memory_type,
            sensitive=sensitive,
            reason=reason,
        )
        return self.update_memory_tool(
            user_id, args, changed_by=changed_by, reference_time=reference_time
        )

    def update_memory_tool(
        self,
        user_id: str,
        args: UpdateMemoryArgs,
        changed_by: str = "agent",
        reference_time: datetime | None = None,
    ) -> dict[str, Any]:
        """:meth:`update_memory` from validated tool arguments."""
        user = self._user(user_id)
        changed_by = check_identifier(changed_by, "changed_by")
        reference_time = self._message_time(reference_time, user=user)
        found = self._resolve(user, args.memory_description, "memory", reference_time, True)
        if isinstance(found, dict):
            return found
        if args.action == UpdateAction.RETRACT:
            memory, change = retract_memory(
                self.store, found, by=changed_by, reason=args.reason, now=reference_time
            )
            return {
                "success": True,
                "action": "retract",
                "memory_id": memory.id,
                "text": memory.text,
                "change": change.model_dump(mode="json"),
                "message": "记忆已撤回(保留在历史中)"
                if has_cjk(memory.text)
                else "memory retracted; it stays in the history",
            }
        record = self.get_memory(user, found.id)
        new, change = correct_memory(
            self.store,
            record,
            args,
            by=changed_by,
            categories=self.settings.privacy.memory_categories,
            now=reference_time,
            notify=self._indexer.notify,
        )
        return {
            "success": True,
            "action": "correct",
            "memory_id": new.id,
            "supersedes": record.memory.id,
            "text": new.text,
            "previous_text": record.memory.text,
            "change": change.model_dump(mode="json"),
            "message": "记忆已更正,旧版本保留在历史中"
            if has_cjk(new.text)
            else "memory corrected; the old version stays in the history",
        }

    def memory_history(self, user_id: str, memory_id: str) -> list[MemoryVersion]:
        """Every version of a memory, oldest first, with who changed it, when and why.

        Raises:
            NotFoundError: no such memory for this user.
        """
        return memory_history(self.store, self._user(user_id), _id(memory_id, "memory_id"))

    def forget(self, user_id: str, item_id: str, *, actor: str | None = None) -> ForgetReport:
        """Delete a memory (every version, its nodes no other memory uses, vectors, lexical
        entries and derived knowledge) or an episode (with its media file, the mid-term
        summaries that retell it, and the memories and knowledge points extracted from
        it) for good, leaving an audit record without content. None of its words is left in the
        embedded store's file either.

        Raises:
            NotFoundError: the user has no memory or episode with this id.
        """
        user = self._user(user_id)
        item_id = check_identifier(item_id, "item_id")
        if actor is not None:
            actor = check_identifier(actor, "actor")
        if self.store.get_memories(user, [item_id]):
            report = forget_memory(self.store, user, item_id, actor=actor)
        elif self.store.get_episodes(user, [item_id]):
            report = forget_episodes(
                self.store, user, [item_id], actor=actor, release_media=self._media.release
            )
        else:
            raise NotFoundError("memory or episode", item_id)
        self._forget_text(user)
        return report

    def forget_tool(
        self, user_id: str, args: ForgetMemoryArgs, reference_time: datetime | None = None
    ) -> dict[str, Any]:
        """The ``forget_memory`` tool: find the memory by description (or id), forget it."""
        user = self._user(user_id)
        reference_time = self._message_time(reference_time, user=user)
        if self.store.get_episodes(user, [args.memory_description]):
            found_id = args.memory_description
        else:
            found = self._resolve(user, args.memory_description, "memory", reference_time)
            if isinstance(found, dict):
                return found
            found_id = found.id
        report = self.forget(user, found_id, actor="agent")
        return {
            "success": True,
            "forgotten": report.forgotten_ids,
            "kind": report.target_kind,
            "knowledge_points_removed": report.knowledge_points,
            "summaries_removed": report.summaries,
            "memories_removed": len(report.memories),
            "audit_id": report.audit_id,
        }

    def purge_archived(self, user_id: str, older_than_days: float | None = None) -> dict[str, int]:
        """Forget archived memories unused for ``older_than_days`` (default
        ``privacy.purge_archived_after_days``; with neither set nothing is purged)."""
        days = self.settings.privacy.purge_archived_after_days
        days = days if older_than_days is None else older_than_days
        if days is None:
            return {"checked": 0, "purged": 0}
        if isinstance(days, bool) or not isinstance(days, int | float) or not 0 < days < _MAX_DAYS:
            raise InvalidInputError(
                f"must be a positive number of days, under {_MAX_DAYS:,}", "older_than_days"
            )
        user = self._user(user_id)
        purged = purge_archived(self.store, user, days)
        if purged["purged"]:
            self._forget_text(user)
        return purged

    def purge_expired(self, user_id: str, now: datetime | None = None) -> dict[str, int]:
        """Delete the user's episodes whose expiry (``expires_at``, a LangGraph item's
        TTL) has come; search stopped matching them then. The daily maintenance
        runs it; each deletion is in the audit log (``purge``, actor ``expiry``)."""
        user = self._user(user_id)
        at = _moment(now, "now", self.settings.zone)
        purged = purge_expired(self.store, user, at, release_media=self._media.release)
        if purged["purged"]:
            self._forget_text(user)
        return purged

    def _forget_text(self, user: str) -> None:
        """Drop what the process kept of a user's deleted text: the vectors of their recent
        questions and descriptions (which may name it) and the caches of tokenised text,
        every user's (:func:`~memory_platform.textutil.clear_text_caches`)."""
        self._recent_vectors.forget_user(user)
        clear_text_caches()

    def audit_log(self, user_id: str, limit: int = 100) -> list[AuditEntry]:
        """The user's forgetting and purging records, newest first (ids, never content)."""
        return self.store.audit_log(self._user(user_id), _whole(limit, "limit", 1, 10_000))

    # -- perceptual memory (seed 003 §2.4) ----------------------------------------------

    def add_media(
        self,
        user_id: str,
        media: bytes | str | Path,
        modality: Literal["image", "audio"] = "image",
        description: str | None = None,
        timestamp: datetime | str | None = None,
        *,
        session_id: str | None = None,
        sensitive: bool | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> MediaMemory:
        """Remember an image or a sound: the bytes go to ``media.folder`` by content hash,
        the graph gets an episode whose text is the description (the caller's, else the
        configured encoder's) and, with an embedding encoder, the medium's vector.

        Raises:
            InvalidInputError: unknown modality, unsupported or mismatched type, oversize,
                unreadable or empty media, or no description (none given, no encoder).
            LLMUnavailableError: the describing endpoint failed; nothing was written.
        """
        user = self._user(user_id)
        return self._media.add(
            user,
            media,
            modality,
            description=description,
            timestamp=timestamp,
            session_id=session_id,
            sensitive=sensitive,
            metadata=metadata,
        )

    # -- episodes ------------------------------------------------------------------------

    def add_episode(
        self,
        user_id: str,
        text: str,
        timestamp: datetime | str | None = None,
        session_id: str | None = None,
        speaker: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expires_at: datetime | str | None = None,
    ) -> str:
        """Store a piece of conversation; it becomes searchable (kind ``episode``)."""
        return self.add_episodes(
            user_id,
            [
                {
                    "text": text,
                    "timestamp": timestamp,
                    "session_id": session_id,
                    "speaker": speaker,
                    "metadata": metadata,
                    "expires_at": expires_at,
                }
            ],
        )[0]

    def add_episodes(self, user_id: str, episodes: Sequence[Mapping[str, Any]]) -> list[str]:
        """Store many episodes at once (imports, benchmarks); returns their ids in order.

        Each episode is a dict with :meth:`add_episode`'s keyword names; ``timestamp``
        and ``expires_at`` are datetimes or ISO-8601 strings (in the deployment's
        ``timezone``, UTC unless set, when they name no zone), ``metadata`` any JSON-able
        dict. A turn
        without ``speaker`` whose text opens with one ("Caroline: …", stored with other
        turns of hers in its session, or a turn of hers already stored) gets it filled in
        (:mod:`memory_platform.speaker_tags`); its text is kept as given. Her first turn,
        stored before a second showed the tag names someone, is given it then. Metadata
        ``"searchable": false`` keeps an episode out of every search (it is still read,
        listed and exported); ``"sensitive": true`` hides it unless asked for. From
        ``expires_at`` on no search matches an episode, and the daily maintenance deletes
        it (:meth:`purge_expired`).
        """
        user = self._user(user_id)
        items: list[Episode] = []
        for index, raw in enumerate(_listed(episodes, "episodes", "episodes (dicts)")):
            if not isinstance(raw, Mapping):
                raise InvalidInputError("each episode must be a dict", f"episodes[{index}]")
            unknown = set(raw) - _EPISODE_KEYS
            if unknown:
                raise InvalidInputError(f"unknown keys {sorted(unknown)}", f"episodes[{index}]")
            values = {k: v for k, v in raw.items() if v is not None}
            given: dict[str, datetime | None] = {}
            for key in ("timestamp", "expires_at"):
                if key in values:  # a time with no zone is in the deployment's
                    given[key] = _parse_timestamp(values[key], f"episodes[{index}].{key}")
                    values[key] = _moment(
                        given[key], f"episodes[{index}].{key}", self.settings.zone
                    )
            if not isinstance(values.get("metadata", {}), Mapping):
                raise InvalidInputError("must be a dict", f"episodes[{index}].metadata")
            metadata = _with_said_clock(
                dict(values.get("metadata") or {}), given.get("timestamp"), index
            )
            if not isinstance(metadata.get(SEARCHABLE_KEY, True), bool):
                raise InvalidInputError(
                    "must be true or false", f"episodes[{index}].metadata.{SEARCHABLE_KEY}"
                )
            explicit = metadata.get(SENSITIVE_KEY)
            values["metadata"] = with_sensitivity(
                metadata,
                str(values.get("text", "")),
                explicit if isinstance(explicit, bool) else None,
                self.settings.privacy.episode_categories,
            )
            try:
                items.append(Episode(user_id=user, **values))
            except ValidationError as exc:
                raise _invalid_item(exc, f"episodes[{index}]") from exc
        stored = StoredSpeakers(self.store, user)
        speakers = pasted_speakers(items, stored.speaks)
        # a speaker's first turn, stored before the tag was known to name one
        self.store.fill_episode_speakers(user, stored.first_turns(speakers))
        items = [
            item if speaker is None else item.model_copy(update={"speaker": speaker})
            for item, speaker in zip(items, speakers, strict=True)
        ]
        ids = self.store.add_episodes(items)
        self._indexer.notify(user)
        return ids

    def replace_episode(self, episode: Episode, replacing: Sequence[str] = ()) -> str:
        """Store an episode under the id the caller chose, replacing the user's episode
        with that id if there is one, and those with the ids in ``replacing`` (an
        integration's item moved to a new id), in one transaction: if the write fails,
        what it replaces is still there."""
        user = self._user(episode.user_id)
        [ref] = self.store.add_episodes([episode], replacing=[episode.id, *replacing])
        self._indexer.notify(user)
        return ref

    def delete_episodes(self, user_id: str, episode_ids: Sequence[str]) -> int:
        """Delete episodes of the user (with their vectors and index entries); returns how
        many there were."""
        user = self._user(user_id)
        deleted = self.store.delete_episodes(user, _ids(episode_ids, "episode_ids"))
        if deleted:
            self._forget_text(user)
        return deleted

    # -- searching -----------------------------------------------------------------------

    def search(
        self,
        user_id: str,
        query: str,
        memory_types: Sequence[str] | None = None,
        time_range: Mapping[str, Any] | tuple[Any, Any] | None = None,
        max_results: int = 10,
        expand_depth: int = 1,
        mode: Literal["fast", "deep", "auto"] = "auto",
        *,
        relation_types: Sequence[str] | None = None,
        include_invalid: bool = False,
        kinds: Sequence[Literal["memory", "episode"]] = ("memory", "episode"),
        reference_time: datetime | None = None,
        record_access: bool = True,
        min_relevance: float | None = None,
        include_sensitive: bool = False,
        episode_ids: Sequence[str] | None = None,
    ) -> list[SearchResult]:
        """Search a user's memories and episodes (seed 000 §5.2, §12.3; seed 004).

        Args:
            user_id: whose memory.
            query: a question or keywords, in Chinese or English.
            memory_types: only these types (事件/事实/关系/观点 or English); excludes episodes.
            time_range: ``{"start": ..., "end": ...}`` (or a pair); each end a datetime, an
                ISO date or a relative expression such as ``上周一`` or ``yesterday``.
            max_results: how many results at most (1-100).
            expand_depth: graph hops to follow from direct matches (0-2).
            mode: ``fast`` (no expansion), ``deep`` (always expand) or ``auto``.
            relation_types: follow only these link types (``CAUSES``, ... ``SHARED_NODE``).
            include_invalid: also return memories invalidated by a later conflict.
            kinds: which kinds of items to search.
            reference_time: "now" for relative time ranges and recency; defaults to now.
            record_access: count this search as an access of the direct matches returned.
            min_relevance: the relevance floor for this search (0-1); by default
                ``retrieval.relevance_floor``. Nothing below it is a match, and then
                nothing is returned; nor is an item of relevance 0 (every item, for a
                conversation of strangers) at a floor of 0.
            include_sensitive: also return items marked sensitive (see
                :mod:`memory_platform.privacy`); only when the user asked for them.
            episode_ids: search only among these episodes of the user (at most 100,000;
                an integration's items, such as a LangGraph namespace), as if they were
                the user's whole memory: those either channel would find among them are
                scored as any candidate is, whether or not the channels' first hits over
                the whole memory hold them, so the rest of the user's memory cannot crowd
                them out. Memories are left out, and so is any memory type (a planner's
                guess of one is ignored).

        Returns:
            Direct matches first, then graph-related memories (``layer="related"``), each
            with its score components.
        """
        user = self._user(user_id)
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("must be a non-empty string", "query")
        if not valid_unicode(query):
            raise InvalidInputError(
                "must be valid Unicode text (it holds a lone surrogate)", "query"
            )
        types = None
        if isinstance(memory_types, str):  # one type named alone
            memory_types = [memory_types]
        if memory_types is not None and not isinstance(memory_types, list | tuple | set):
            raise InvalidInputError("must be a list of memory types", "memory_types")
        if memory_types:
            try:
                types = [MemoryType(t) for t in memory_types]
            except ValueError as exc:
                raise InvalidInputError(
                    f"use only: {' / '.join(MemoryType.accepted())}", "memory_types"
                ) from exc
        now = self._message_time(reference_time, user=user)
        window = _time_window(time_range, now, self.settings.zone)
        results = self._retriever.search(
            user,
            query.strip(),
            memory_types=types,
            window=window,
            max_results=max_results,
            expand_depth=expand_depth,
            mode=mode,
            relation_types=relation_types,
            include_invalid=include_invalid,
            kinds=kinds,
            now=now,
            record_access=record_access,
            min_relevance=min_relevance,
            include_sensitive=include_sensitive,
            episode_ids=episode_ids,
        )
        if types or "episode" not in kinds or not self._media.embeds_text:
            return results
        allowed = None if episode_ids is None else set(episode_ids)

        def admits(episode: Episode) -> bool:
            return (
                episode.searchable
                and not episode.expired(now)
                and (allowed is None or episode.id in allowed)
                and (include_sensitive or not episode.sensitive)
                and (window is None or window.contains(episode.timestamp))
            )

        return self._media.augment(
            user, query.strip(), results, max_results, admits, now.tzinfo or UTC
        )

    def clear_query_cache(self) -> None:
        """Forget the vectors of recent questions and descriptions, every user's (so a
        benchmark measures embedding too)."""
        self._recent_vectors.clear()

    def format_context(
        self, results: Sequence[SearchResult], include_sensitive: bool = False
    ) -> str:
        """The layered ``<memory_context>`` block for a prompt (seed 004 §2.4); sensitive
        results are left out unless ``include_sensitive`` is set."""
        listed = _listed(results, "results", "search results")
        if not all(isinstance(r, SearchResult) for r in listed):
            raise InvalidInputError("must be a list of search results (from search)", "results")
        return format_context(listed, include_sensitive=include_sensitive)

    def search_tool(
        self, user_id: str, args: SearchMemoriesArgs, reference_time: datetime | None = None
    ) -> dict[str, Any]:
        """The ``search_memories`` tool: results in a compact form plus the prompt block."""
        time_range = args.time_range.model_dump() if args.time_range else None
        results = self.search(
            user_id,
            args.query,
            memory_types=[t.value for t in args.memory_types] if args.memory_types else None,
            time_range=time_range,
            max_results=args.max_results,
            expand_depth=args.expand_depth,
            mode=self.settings.retrieval.default_mode,
            reference_time=reference_time,
            min_relevance=args.min_relevance,
            include_sensitive=args.include_sensitive,
        )
        return {
            "success": True,
            "count": len(results),
            "results": [
                {
                    "id": r.id,
                    "kind": r.kind,
                    "text": r.text,
                    "time": r.time,
                    "layer": r.layer,
                    "graph_distance": r.graph_distance,
                    "score": round(r.score, 4),
                    "relevance": round(r.relevance, 3),
                    **(
                        {"relation": relation_label(r.path[-1].relation, r.path[-1].direction)}
                        if r.path
                        else {}
                    ),
                }
                for r in results
            ],
            "context": format_context(results, include_sensitive=args.include_sensitive),
        }

    # -- chat sessions and jobs -----------------------------------------------------------

    def add_messages(
        self, user_id: str, session_id: str, messages: Sequence[Message | Mapping[str, Any]]
    ) -> list[str]:
        """Record chat messages of a session (as episodes, searchable right away).

        Each message is ``{"role", "content", "timestamp"?, "name"?}`` or a
        :class:`Message`; returns the episode ids.

        The messages are stored first and then added to the short-term buffer. If Redis
        (the buffer, and the queue of the summaries of what leaves it) does not answer,
        they stay stored and the call succeeds, with a warning logged: failing it would
        have the caller send them again, and store them twice. They are then missing
        from :meth:`recent_messages` (and from a mid-term summary).
        """
        user = self._user(user_id)
        session_id = check_identifier(session_id, "session_id")
        items: list[dict[str, Any]] = []
        for message in _messages(messages, self.settings.zone):
            if not message.content.strip():
                continue
            items.append(
                {
                    "text": message.content,
                    "timestamp": message.timestamp,
                    "session_id": session_id,
                    "speaker": message.name or message.role,
                    "metadata": {"role": message.role},
                }
            )
        ids = self.add_episodes(user, items)
        buffered = [
            BufferedMessage(
                episode_id=eid,
                role=item["metadata"]["role"],
                content=item["text"],
                timestamp=utc(item["timestamp"]),
            )
            for eid, item in zip(ids, items, strict=True)
        ]
        try:
            self._buffer(user, session_id, buffered)
        except QueueUnavailable as exc:
            log.warning(
                "stored %d messages of session %r of user %r; not in the short-term buffer: %s",
                len(ids), session_id, user, exc,
            )  # fmt: skip
        return ids

    def _buffer(self, user: str, session_id: str, messages: list[BufferedMessage]) -> None:
        """Add stored messages to the short-term buffer and queue the summary of those
        that leave it."""
        overflow = self._short_term.push(user, session_id, messages)
        batch = self.settings.short_term.overflow_batch
        for start in range(0, len(overflow), batch):
            chunk = [m.episode_id for m in overflow[start : start + batch]]
            job = "summarize-" + uuid.uuid5(uuid.NAMESPACE_URL, "|".join([user, *chunk])).hex
            self._jobs.submit(TASK_SUMMARIZE, [user, session_id, chunk], job, owner=user)

    def recent_messages(self, user_id: str, session_id: str) -> list[BufferedMessage]:
        """The session's short-term buffer: its latest messages, oldest first. A message
        whose episode was deleted since (``forget``, :meth:`delete_episodes`) is not
        shown, though the buffer keeps it until it expires.

        While Redis (the buffer) does not answer, the buffer is rebuilt from the stored
        messages, with a warning logged (:func:`~memory_platform.layers.recent_from_episodes`):
        a chat goes on with its context through an outage.
        """
        user = self._user(user_id)
        session_id = check_identifier(session_id, "session_id")
        try:
            buffered = self._short_term.recent(user, session_id)
        except QueueUnavailable as exc:
            log.warning(
                "read session %r of user %r from the store; the short-term buffer is "
                "unavailable: %s", session_id, user, exc,
            )  # fmt: skip
            return self._stored_recent(user, session_id)
        if not buffered:
            return []
        stored = {e.id for e in self.store.get_episodes(user, [m.episode_id for m in buffered])}
        return [m for m in buffered if m.episode_id in stored]

    def _stored_recent(self, user: str, session_id: str) -> list[BufferedMessage]:
        """The buffer's messages as the store has them (read: the latest two capacities'
        worth of the session's episodes, which summaries and notes may share)."""
        config = self.settings.short_term
        return recent_from_episodes(
            self.store.session_episodes(user, session_id, 2 * config.capacity, newest_first=True),
            config.capacity,
            timedelta(minutes=config.ttl_minutes),
            datetime.now(UTC),
        )

    def clear_recent(self, user_id: str, session_id: str) -> None:
        """Empty the session's short-term buffer; the messages stay stored as episodes."""
        session_id = check_identifier(session_id, "session_id")
        self._short_term.clear(self._user(user_id), session_id)

    def summarize_messages(
        self, user_id: str, session_id: str, episode_ids: Sequence[str]
    ) -> dict[str, Any]:
        """Summarise messages that left the short-term buffer into a mid-term episode.

        Idempotent: the same messages give the same summary id and are summarised once.
        Without an LLM it reports ``skipped``; the messages stay stored as episodes.
        """
        user = self._user(user_id)
        session_id = check_identifier(session_id, "session_id")
        episode_ids = _ids(episode_ids, "episode_ids")
        with self._as_job(user):
            outcome = summarize_episodes(
                self.store, self.llm, user, session_id, episode_ids, self.settings.zone
            )
        if outcome["status"] == "done":
            self._indexer.notify(user)
        return outcome

    def promote_summaries(self, user_id: str) -> dict[str, Any]:
        """Move mid-term summaries recalled often enough into the graph (seed 002 §2.3).

        Each summary goes through session extraction (knowledge and memories) once; later
        runs report it as already promoted. A summary forgotten while the LLM reads it (a
        message it retells was forgotten) is skipped, with nothing written; one the LLM
        gives no valid answer for, or refuses, is counted ``failed`` and the others go on.

        Raises:
            LLMUnavailableError: the LLM did not answer (worth retrying the run).
        """
        user = self._user(user_id)
        threshold = self.settings.short_term.promote_after_accesses
        counts = {"promoted": 0, "already": 0, "skipped": 0, "failed": 0}
        with self._as_job(user):
            for summary in self.store.find_episodes(user, MID_TERM_SPEAKER, min_access=threshold):
                when = said_at(summary, self.settings.zone)
                try:
                    report = self._extractions.given(
                        user,
                        promotion_session(summary.id),
                        [Message(role="user", content=summary.text, timestamp=when)],
                        shown=[summary.id],  # forgotten meanwhile (with a message it retells)
                    )
                except MemoryPlatformError as exc:
                    if exc.is_retryable() or isinstance(exc, JobStopped):
                        raise
                    log.warning("summary %s not promoted: %s", summary.id, loggable(str(exc)))
                    counts["failed"] += 1  # asked again at the next run
                    continue
                key = {"done": "promoted", "duplicate": "already"}.get(report.status, "skipped")
                counts[key] += 1
        return counts

    def refresh_decay(self, user_id: str, now: datetime | None = None) -> dict[str, int]:
        """Archive consolidated memories that have faded (seed 000 §5.3).

        strength = importance · exp(-λ · days) · (1 + ln(1 + accesses)); below
        ``consolidation.archive_below`` a memory is archived: kept, but hidden from search
        unless ``include_invalid=True``.
        """
        return archive_faded(
            self.store,
            self._user(user_id),
            self._message_time(now, "now"),
            self.settings.retrieval.decay_rates,
            self.settings.consolidation.archive_below,
        )

    def daily_maintenance(self, user_id: str) -> dict[str, Any]:
        """The daily task: decay refresh, the purge of long-archived memories when
        ``privacy.purge_archived_after_days`` is set and of expired episodes, then the
        promotion of mid-term summaries: last, as the one step that asks the LLM, so an
        LLM outage (``LLMUnavailableError``, retried) does not hold up the purges."""
        with self._as_job(self._user(user_id)):
            decay = self.refresh_decay(user_id)
            purge = self.purge_archived(user_id)
            expired = self.purge_expired(user_id)
            promotion = self.promote_summaries(user_id)
        return {"decay": decay, "promotion": promotion, "purge": purge, "expired": expired}

    def end_session(self, user_id: str, session_id: str) -> str:
        """The session is over: queue its knowledge extraction; returns the job id.

        Ending the same session again returns the same job id, and the extraction itself
        runs once (a repeated run reports ``duplicate``). A session continued after it
        ended and ended again is a new job: its new turns are extracted then.
        """
        user = self._user(user_id)
        session_id = check_identifier(session_id, "session_id")
        turns = self._extractions.turns(user, session_id)
        last = turns[-1].id if turns else ""
        job = self._jobs.job_id_for("extract", f"extract\x00{user}\x00{session_id}\x00{last}")
        return self._jobs.submit(TASK_EXTRACT, [user, session_id], job, owner=user)

    def enqueue_consolidation(self, user_id: str) -> str:
        """Queue a consolidation of the user (workers serialise them per user)."""
        user = self._user(user_id)
        return self._jobs.submit(TASK_CONSOLIDATE, [user], fresh_job_id("consolidate"), owner=user)

    def job_status(self, job_id: str, user_id: str | None = None) -> dict[str, Any]:
        """``{"job_id", "state", "result", "error"}``; state is Celery's (PENDING, STARTED,
        RETRY, SUCCESS, FAILURE) or UNKNOWN for a job this process never saw.

        With ``user_id`` (the HTTP API asks this way), only that user's own jobs are
        found: another user's job, pending or done, and an id never issued are alike
        "not found", so a status read tells nothing about other users.

        Raises:
            NotFoundError: with ``user_id``, the job is not one this user caused.
        """
        job_id = check_identifier(job_id, "job_id")
        if user_id is not None and self._jobs.owner(job_id) != self._user(user_id):
            raise NotFoundError("job", job_id)
        status = self._jobs.status(job_id)
        return status

    def warm_up(self) -> None:
        """Load now what the first request would otherwise wait for: the embedding model
        and the Chinese word segmenter (seconds on a cold machine), the table of the people
        CC-CEDICT names that every Chinese search reads (read from the dictionary once a
        machine, about a second), and the background sentences relevance is measured
        against.

        Then what start-up allocated (modules, models, tables: tens of thousands of objects
        that live as long as the process) is moved out of the garbage collector's way
        (``gc.freeze``, after a collection): a full collection walked it all, 35-70 ms on
        the development machine, and stopped a search about once in thirty. Servers call
        this before they report ready. What was alive then is afterwards reclaimed by
        reference counting only, so a program that makes and drops many platforms need
        not call it for each."""
        self.embedder.embed(["warm up", "预热模型"])
        lexical_tokens("预热 warm up")
        person_name("预热")
        self._retriever.warm_up()
        gc.collect()
        gc.freeze()

    def start_warm_up(self) -> threading.Thread:
        """:meth:`warm_up` on a background thread; :meth:`health` is not ready until it ends."""
        if self._warm_up is None:
            self._warm_up = threading.Thread(target=self.warm_up, name="warm-up", daemon=True)
            self._warm_up.start()
        return self._warm_up

    def health(self) -> dict[str, Any]:
        """Readiness of the parts a request needs: the store, Redis, the workers, the models.

        ``ready`` is False when the store or Redis does not answer, or while a warm-up
        started by :meth:`start_warm_up` is still loading the models; no worker running is
        reported but does not make the platform unready (jobs wait in the queue), nor does
        a lexical index tokenized otherwise than queries now are (``store.lexical_index``
        says so until ``memory-platform retokenize``).
        """
        try:
            self.store.list_users(limit=1)
            store: dict[str, Any] = {"ok": True, "backend": self.settings.backend}
            current = self.store.stored_lexical_signature() == lexical_signature()
            store["lexical_index"] = "current" if current else STALE_LEXICAL_INDEX_SHORT
        except Exception as exc:  # any failure here means "not ready"
            store = {"ok": False, "backend": self.settings.backend, "detail": str(exc)}
        jobs = self._jobs.health()
        loading = self._warm_up is not None and self._warm_up.is_alive()
        models = {"ok": not loading, "detail": "loading" if loading else "loaded"}
        ready = store["ok"] and jobs["redis"]["ok"] and models["ok"]
        return {"ready": ready, "store": store, "models": models, **jobs}

    def extract_session(self, user_id: str, session_id: str) -> dict[str, Any]:
        """Extract a recorded session now (what the worker's task runs): its turns not
        extracted before, the earlier ones shown as context, so a session continued after
        it ended gives its new turns when it ends again, and one ended again with nothing
        new reports ``duplicate`` (:mod:`~.extraction.sessions`)."""
        user = self._user(user_id)
        session_id = check_identifier(session_id, "session_id")
        with self._as_job(user):
            return self._extractions.recorded(user, session_id).model_dump(mode="json")

    # -- session-end extraction and knowledge -------------------------------------------

    def extract_knowledge(
        self,
        user_id: str,
        session_id: str,
        messages: Sequence[Message | Mapping[str, Any]],
    ) -> ExtractionReport:
        """Turn a finished session into a knowledge version and memories (seed 001).

        Idempotent per session: a second extraction of the same session reports
        ``duplicate`` and writes nothing. Without an LLM configured it reports ``skipped``.

        Raises:
            InvalidInputError: a message is malformed.
            LLMUnavailableError: the LLM endpoint failed; worth retrying later.
            ExtractionError: the LLM never answered in the required form.
            UserBusy: a job of the user ran past ``worker.lock_wait`` (this runs as one).
            JobStopped: the user is being deleted.
        """
        user = self._user(user_id)
        session_id = check_identifier(session_id, "session_id")
        transcript = _messages(messages, self.settings.zone)
        with self._as_job(user):
            return self._extractions.given(user, session_id, transcript)

    def latest_knowledge(
        self,
        user_id: str,
        top_k: int | None = None,
        min_score: float | None = None,
        include_sensitive: bool = False,
    ) -> list[KnowledgePoint]:
        """The newest knowledge version's points above the score threshold, best first;
        sensitive points only when ``include_sensitive`` is set."""
        top_k, min_score = self._knowledge_bounds(top_k, min_score)
        versions = self.store.knowledge_versions(self._user(user_id), limit=1)
        return latest_points(versions, top_k, min_score, include_sensitive=include_sensitive)

    def sample_knowledge(
        self,
        user_id: str,
        top_k: int | None = None,
        min_score: float | None = None,
        seed: int | None = None,
        include_sensitive: bool = False,
    ) -> list[KnowledgePoint]:
        """Points drawn with probability by score from the most recent versions (seed 001
        §5); sensitive points never, unless ``include_sensitive`` is set."""
        top_k, min_score = self._knowledge_bounds(top_k, min_score)
        recent = self.settings.knowledge.recent_versions
        versions = self.store.knowledge_versions(self._user(user_id), limit=recent)
        return sample_points(
            versions,
            top_k,
            min_score,
            random.Random(None if seed is None else _whole(seed, "seed", -(2**63), 2**63)),
            include_sensitive=include_sensitive,
        )

    def _knowledge_bounds(self, top_k: object, min_score: object) -> tuple[int, float]:
        """How many points at most (1-1,000) and the lowest score served (0-100), as the
        HTTP API bounds them; the configured defaults for None."""
        config = self.settings.knowledge
        k = config.default_top_k if top_k is None else _whole(top_k, "top_k", 1, 1000)
        if min_score is None:
            return k, config.min_score
        if (
            isinstance(min_score, bool)
            or not isinstance(min_score, int | float)
            or not 0 <= min_score <= 100  # NaN fails this too
        ):
            raise InvalidInputError("must be a number from 0 to 100", "min_score")
        return k, float(min_score)

    # -- consolidation -------------------------------------------------------------------

    def consolidate(self, user_id: str) -> dict[str, Any]:
        """Consolidate the user's staged memories now (seed 000 §12.4).

        Merges duplicate nodes, discovers relations, invalidates memories contradicted by
        newer ones (nothing is deleted) and marks the memories consolidated. Without an
        LLM configured, the rule-based parts run and the report says the LLM was not used.

        Returns:
            The report as a dict (see :class:`ConsolidationReport` for the fields).

        Raises:
            LLMUnavailableError: the LLM endpoint failed; the run carries on when called
                again.
            UserBusy: a job of the user ran past ``worker.lock_wait`` (this runs as one).
            JobStopped: the user is being deleted.
        """
        user = self._user(user_id)
        consolidator = Consolidator(
            self.store,
            self.settings,
            llm=self.llm,
            ensure_embedded=lambda u: self._indexer.flush(u, timeout=600),
            understands=lambda text: coverage(self.embedder, text) >= _FULL_COVERAGE,
        )
        with self._as_job(user):
            return consolidator.run(user).model_dump(mode="json")

    def review_conflicts(self, user_id: str, *, dry_run: bool = False) -> dict[str, Any]:
        """Judge the conflicts earlier consolidations recorded again, under today's rules,
        and make current again (staged, for the next consolidation) each memory they
        would not have invalidated: before 2026-12-01 events conflicted too, so a week of
        work events kept only its last. A person's correction is never undone; with
        ``dry_run`` nothing changes.

        Returns:
            The review as a dict (see :class:`~.consolidation.review.ConflictReview`).

        Raises:
            UserBusy: a job of the user ran past ``worker.lock_wait``.
            JobStopped: the user is being deleted.
        """
        user = self._user(user_id)
        with self._as_job(user):
            review = review_conflicts(self.store, user, dry_run=dry_run)
        return review.model_dump(mode="json")

    @contextmanager
    def _as_job(self, user: str) -> Iterator[None]:
        """Run work of the user as their jobs run, whoever calls it (a worker's task, the
        CLI, a script): holding the user's lock, so it never overlaps a job of theirs or
        their deletion (inside a job, which holds it already, nothing more is taken), and
        stopping at its next LLM call (``JobStopped``) once the user is being deleted."""
        with (
            self._jobs.exclusive(user),
            stoppable(user, lambda: self._jobs.stop_requested(user)),
        ):
            yield

    # -- reading and deleting --------------------------------------------------------

    def get_memory(self, user_id: str, memory_id: str) -> MemoryRecord:
        """A memory with its nodes, edges and links.

        Raises:
            NotFoundError: no such memory for this user.
        """
        record = self.store.get_memory(self._user(user_id), _id(memory_id, "memory_id"))
        if record is None:
            raise NotFoundError("memory", memory_id)
        return record

    def list_memories(
        self,
        user_id: str,
        status: MemoryStatus | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]:
        """A user's memories (hubs only), oldest first, optionally of one status.

        Raises:
            InvalidInputError: ``limit`` outside 1..10,000, ``offset`` outside 0..10**12,
                or ``status`` none of :class:`MemoryStatus`'s values.
        """
        if status is not None:
            try:
                status = MemoryStatus(status)
            except ValueError:
                known = ", ".join(s.value for s in MemoryStatus)
                raise InvalidInputError(f"must be one of {known}", "status") from None
        _whole(limit, "limit", 1, 10_000)
        _whole(offset, "offset", 0, 10**12)
        return self.store.list_memories(self._user(user_id), status, limit=limit, offset=offset)

    def delete_memory(self, user_id: str, memory_id: str) -> None:
        """Delete a memory, its links and the nodes no other memory uses.

        Raises:
            NotFoundError: no such memory for this user.
        """
        user = self._user(user_id)
        if not self.store.delete_memory(user, _id(memory_id, "memory_id")):
            raise NotFoundError("memory", memory_id)
        self._forget_text(user)

    def delete_user(self, user_id: str) -> None:
        """Delete everything stored for a user, media files included (after the accesses
        of searches already made are written, so none lands on what is imported next),
        the records of the user's jobs with the results they keep (a consolidation's
        report quotes memories), and the user's short-term buffers, which hold the latest
        messages' text.

        A job of the user that is running (an extraction waiting for the LLM) is waited
        for, up to ``worker.lock_wait`` seconds, as its jobs wait for each other: deleted
        under it, it would write what it made for the user after the deletion.

        Raises:
            UserBusy: a job of the user ran past the wait; nothing was deleted.
            QueueUnavailable: Redis did not answer; nothing was deleted if it did not
                answer at first, else the store and the files are deleted already. Calling
                again deletes the rest.
        """
        user = self._user(user_id)
        with self._jobs.exclusive(user, stop_running=True):
            self.wait_for_access()
            self.store.delete_user(user)
            self._media.files.remove_user(user)
            self._jobs.forget_owner(user)
            self._short_term.forget_user(user)
            self._forget_text(user)

    def export_user(self, user_id: str) -> list[str]:
        """A user's memories, links, episodes and knowledge as JSON Lines (one string per
        line, no newlines); see :mod:`memory_platform.transfer` for the format."""
        return list(self.iter_export(user_id))

    def iter_export(self, user_id: str) -> Iterator[str]:
        """:meth:`export_user` line by line, for streaming a large user (the user id is
        checked now, the lines are read as they are consumed). The accesses of searches
        already made are written first: an export holds what was used up to it."""
        user = self._user(user_id)
        self.wait_for_access()
        records = export_user(self.store, user)
        return (dump_line(record) for record in records)

    def import_user(
        self,
        data: str | Path | Iterable[str | Mapping[str, Any]],
        user_id: str | None = None,
    ) -> ImportReport:
        """Import an export for ``user_id`` (default: the user it was exported from).

        ``data`` is what :meth:`export_user` returned (lines, or their parsed dicts), the
        whole JSON Lines text, or a path to a ``.jsonl`` file. ``import_user(user_id,
        data)`` is accepted too, mirroring ``export_user(user_id)``. The file is validated
        whole before anything is written; ids are kept and what the store already holds is
        skipped, so a failed import can be run again. Vectors are rebuilt in the
        background (:meth:`wait_for_indexing` waits for them).

        The import holds the user's lock, as their jobs do: it waits for a running job of
        the user, and a deletion of the user stops it before its next page of 500 records
        (``JobStopped``; what it wrote is deleted with the user).

        Raises:
            InvalidInputError: the data is not a complete, valid export.
            ConflictError: an id in the file belongs to another user of this store.
            UserBusy: a job of the user ran past ``worker.lock_wait``; nothing was written.
            JobStopped: the user is being deleted.
        """
        if isinstance(data, str) and not data.lstrip().startswith("{"):
            other: Any = user_id
            if other is not None and not (
                isinstance(other, str) and not other.lstrip().startswith("{")
            ):
                data, user_id = other, str(data)  # called as import_user(user_id, data)
            elif Path(data).is_file():
                data = Path(data)
        if isinstance(data, Path):
            with data.open(encoding="utf-8") as handle:
                records = parse_lines(handle)
        elif isinstance(data, str):
            records = parse_lines(data.splitlines())
        elif isinstance(data, Iterable) and not isinstance(data, bytes | Mapping):
            records = parse_lines(data)
        else:
            raise InvalidInputError(
                "must be an export: its lines, its JSON Lines text or a path to its file", "data"
            )
        user = import_user_id(records, None if user_id is None else self._user(user_id))
        with self._as_job(user):  # never beside a job of the user; stops for their deletion
            report = import_records(self.store, records, user)
        self._indexer.notify(report.user_id)
        return report

    def stats(self, user_id: str | None = None) -> StoreStats:
        """Counts of what one user, or the whole store, holds."""
        return self.store.stats(None if user_id is None else self._user(user_id))

    def wait_for_access(self) -> None:
        """Wait until searches so far have recorded their accesses (they do it off-path)."""
        self._retriever.wait_for_access()

    def wait_for_jobs(self) -> None:
        """Wait until the background jobs started so far (mid-term summaries, extraction)
        have finished, when they run in this process (the embedded default); with Celery
        workers it returns at once: poll :meth:`job_status` instead."""
        self._jobs.wait()

    def wait_for_indexing(self, user_id: str | None = None, timeout: float | None = 60.0) -> bool:
        """Embed whatever is pending now; True when nothing is left pending (``timeout``
        None: however long the pass takes).

        Writes return before their embeddings exist; call this when a test, an import
        or a benchmark needs everything vector-searchable at once.
        """
        return self._indexer.flush(None if user_id is None else self._user(user_id), timeout)

    @staticmethod
    def _user(user_id: str) -> str:
        return check_identifier(user_id, "user_id")

    def _message_time(
        self, value: object, field: str = "reference_time", user: str | None = None
    ) -> datetime:
        """When the caller's message was sent, on the clock its "today" and 昨天 are read
        on: a time naming one (an offset other than UTC's, a named zone) on that clock,
        one with no zone in the deployment's ``timezone``; the present moment, or a time
        in UTC (an instant, not a clock: :func:`~memory_platform.clock.names_clock`), on
        the ``user``'s clock (:meth:`user_clock`), or the deployment's when no user is
        named."""
        if isinstance(value, datetime) and (value.tzinfo is None or names_clock(value)):
            return _in_zone(value, self.settings.zone)
        when = _moment(value, field, self.settings.zone)
        zone = self.user_clock(user) if user is not None else self.settings.zone
        return datetime.now(zone) if when is None else when.astimezone(zone)
