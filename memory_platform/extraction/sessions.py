"""Extraction runs (seed 001 §4): which turns of a session one reads, whether they were
read before, and writing what the LLM gave as a knowledge version and memories.

A recorded session is extracted a span at a time: each run reads the turns after the
last run's, shows the ones before as context, and is a version keyed by its last turn
(:func:`~.extractor.extraction_ids`), so a session continued after it ended gives its new
turns when it ends again. Messages handed in (``extract_knowledge``) are one version of
the whole session, as recorded sessions were before 2026-11-27: such a session, resumed,
gives the turns said after that version was made. Either way a version is written once,
and records when the last turn it read was said (``through``), so the turns read stay
known when that turn is forgotten or deleted (:func:`extracted_before`).

``forget`` takes no lock, so a user may forget a turn while the LLM reads it: a recorded
session's extraction checks, once the LLM has answered, that every turn it showed is
still stored, and asks again without the forgotten one otherwise, so what the user forgot
does not come back as memories written after the forgetting.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from datetime import UTC, datetime, tzinfo

from ..builder import build_memory
from ..clock import said_at
from ..config import Settings
from ..errors import ConflictError
from ..layers import MID_TERM_SPEAKER
from ..llm import LLMClient
from ..models import MAX_ID_CHARS, TOLD_BY_KEY, Episode, KnowledgeVersion, Message
from ..privacy import SENSITIVE_KEY, with_sensitivity
from ..store import GraphStore
from ..store.base import memory_document
from .extractor import ExtractionReport, SessionExtractor, Turn, extraction_ids, speaker_label

__all__ = ["SessionExtractions"]

log = logging.getLogger(__name__)

_ROLES = {"user", "assistant", "system", "tool"}

_ATTEMPTS = 3
"""Extractions asked of one session while its turns are being forgotten under them."""


class _TurnForgotten(Exception):
    """A turn the LLM was shown was forgotten before its memories were written."""


def extracted_before(
    turns: Sequence[Episode], spans: Mapping[str, int], read_through: Mapping[str, datetime]
) -> tuple[int, str | None]:
    """How many of the session's first ``turns`` earlier extractions read, and the
    version that read the last of them.

    ``spans`` maps the version id an extraction through each turn would have to that
    turn's index; ``read_through`` maps each version of the session to when the last
    turn it read was said (:meth:`~memory_platform.store.GraphStore.session_read_through`).
    A version named by a turn still there read the turns up to it; one whose last turn
    was deleted since (forgotten, purged), or that read the session whole, read the turns
    said by its time.
    """
    start, version = 0, None
    for version_id, through in read_through.items():
        if version_id in spans:
            read = spans[version_id] + 1
        else:
            read = sum(1 for turn in turns if turn.timestamp <= through)
        if read > start:
            start, version = read, version_id
    return start, version


def _told_by(turns: Sequence[int], sources: Sequence[str]) -> dict[str, list[str]]:
    """The metadata naming the episodes an extracted item comes from (none when the
    turns are no stored episodes: messages handed in)."""
    if not sources or not turns:
        return {}
    return {TOLD_BY_KEY: sorted({sources[i] for i in turns})}


def said(episode: Episode, zone: tzinfo = UTC) -> Turn:
    """A recorded turn as extraction reads it, so that who said what survives a
    conversation of several people: a chat message's role, after its name if it had one
    (``Alice (user)``); a turn recorded with no role, its speaker (``Caroline``), else the
    user's. Its time is on the clock it was said on (:func:`~memory_platform.clock.said_at`),
    else of ``zone`` (the deployment's): the day the LLM and the relative words it writes
    (昨天) are read in."""
    role = episode.metadata.get("role")
    if role in _ROLES:
        who = speaker_label(role, (episode.speaker or "")[:MAX_ID_CHARS] or None)
    else:
        who = episode.speaker or "user"
    return Turn(who, episode.text, said_at(episode, zone))


class SessionExtractions:
    """Runs extractions for the platform: reads the store, asks the LLM, writes once."""

    def __init__(
        self,
        store: GraphStore,
        llm: LLMClient | None,
        settings: Settings,
        written: Callable[[str], object],
    ) -> None:
        self._store = store
        self._llm = llm
        self._settings = settings
        self._written = written  # told the user whose memories were written (to embed them)

    def turns(self, user: str, session_id: str) -> list[Episode]:
        """The session's turns an extraction reads, in order. Not its episodes kept out of
        search (records, not something said: what they hold must not come back into
        search as extracted memories) or expired (gone, if not yet deleted), nor its
        mid-term summaries (they retell turns that are read themselves)."""
        now = datetime.now(UTC)
        return [
            e
            for e in self._store.session_episodes(user, session_id)
            if e.searchable and not e.expired(now) and e.speaker != MID_TERM_SPEAKER
        ]

    def recorded(self, user: str, session_id: str) -> ExtractionReport:
        """The recorded session's turns not extracted before; ``duplicate`` when there are
        none, ``skipped`` when the session has no turns (or its turns were being forgotten
        while each of a few extractions read them)."""
        for _ in range(_ATTEMPTS):
            try:
                return self._recorded_once(user, session_id)
            except _TurnForgotten:
                log.info("a turn of %s/%s was forgotten while extracted; asking again", user,
                         session_id)  # fmt: skip
        return ExtractionReport(
            user_id=user,
            session_id=session_id,
            status="skipped",
            reason="its turns were being forgotten while they were extracted; end it again",
        )

    def _recorded_once(self, user: str, session_id: str) -> ExtractionReport:
        episodes = self.turns(user, session_id)
        if not episodes:
            return ExtractionReport(
                user_id=user,
                session_id=session_id,
                status="skipped",
                reason="the session has no messages",
            )
        spans = {extraction_ids(user, session_id, e.id)[0]: i for i, e in enumerate(episodes)}
        read_through = self._store.session_read_through(user, session_id)
        start, version = extracted_before(episodes, spans, read_through)
        if start == len(episodes):
            return ExtractionReport(
                user_id=user, session_id=session_id, status="duplicate", version_id=version,
                reason="every turn of this session was extracted before",
            )  # fmt: skip
        messages = [said(e, self._settings.zone) for e in episodes]
        ids = extraction_ids(user, session_id, episodes[-1].id)
        shown = [e.id for e in episodes]
        return self.run(
            user, session_id, messages[start:], ids, earlier=messages[:start], shown=shown,
            sources=shown[start:],
        )  # fmt: skip

    def given(
        self, user: str, session_id: str, messages: list[Message], shown: Sequence[str] = ()
    ) -> ExtractionReport:
        """Messages handed in, as one version of the whole session. ``shown``: the stored
        episodes they are, one per message (a promoted summary), which the items name;
        ``skipped``, with nothing written, when one was forgotten while the LLM read it."""
        turns = [Turn.of(m, self._settings.zone) for m in messages]
        ids = extraction_ids(user, session_id)
        sources = shown if len(shown) == len(turns) else ()
        try:
            return self.run(user, session_id, turns, ids, shown=shown, sources=sources)
        except _TurnForgotten:
            return ExtractionReport(
                user_id=user,
                session_id=session_id,
                status="skipped",
                reason="what it read was forgotten while it was extracted",
            )

    def run(
        self,
        user: str,
        session_id: str,
        transcript: list[Turn],
        ids: tuple[str, str],
        earlier: Sequence[Turn] = (),
        shown: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> ExtractionReport:
        """One extraction, written under the version id and memory id prefix ``ids``,
        once. ``earlier`` turns (of a resumed session, extracted before) are shown to the
        LLM as context only. ``shown``: the ids of the stored episodes the turns are;
        one forgotten by the time the LLM answers raises :class:`_TurnForgotten`, with
        nothing written. ``sources``: the episode of each of ``transcript``'s turns (a
        recorded session), named in the metadata (``episode_ids``) of each item that
        comes from it, so forgetting the turn forgets the item."""
        version_id, memory_prefix = ids
        if self._llm is None:
            log.info("extraction of %s/%s skipped: no LLM configured", user, session_id)
            return ExtractionReport(
                user_id=user,
                session_id=session_id,
                status="skipped",
                reason="no LLM configured (MEMORY_LLM_BASE_URL); nothing extracted",
            )
        if self._store.knowledge_version_ids(user, [version_id]):
            return ExtractionReport(
                user_id=user, session_id=session_id, status="duplicate", version_id=version_id,
                reason="this session was extracted before",
            )  # fmt: skip
        extractor = SessionExtractor(self._llm, self._settings.knowledge.prompt_language)
        extraction = extractor.extract(transcript, earlier)
        if shown and len(self._store.get_episodes(user, shown)) < len(set(shown)):
            raise _TurnForgotten
        categories = self._settings.privacy.memory_categories
        points = []
        for cited in extraction.points:  # the LLM's flag wins; the rule list decides without one
            point = cited.item
            flag = point.metadata.pop(SENSITIVE_KEY, None)
            point.metadata = with_sensitivity(
                point.metadata, point.content, flag if isinstance(flag, bool) else None, categories
            ) | _told_by(cited.turns, sources)
            points.append(point)
        reference = max((m.timestamp for m in transcript), default=None)
        memory_ids = []
        for index, sourced in enumerate(extraction.memories):
            args = sourced.item
            graph = build_memory(user, args, reference, session_id=session_id, source="extraction")
            graph.memory.id = f"{memory_prefix}{index:08x}"
            graph.memory.metadata = with_sensitivity(
                graph.memory.metadata, memory_document(graph.memory), args.sensitive, categories
            ) | _told_by(sourced.turns, sources)
            with suppress(ConflictError):  # written by an earlier, interrupted attempt
                self._store.write_memory(graph)
            memory_ids.append(graph.memory.id)
        self._store.add_knowledge_version(
            KnowledgeVersion(
                version_id=version_id,
                user_id=user,
                session_id=session_id,
                points=points,
                through=reference,
            )
        )
        self._written(user)
        return ExtractionReport(
            user_id=user,
            session_id=session_id,
            status="done",
            version_id=version_id,
            knowledge_points=len(points),
            memory_ids=memory_ids,
            rejected=extraction.rejected,
        )
