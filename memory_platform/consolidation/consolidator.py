"""Consolidation of a user's staged memories (seed 000 §12.4): merge, link, resolve, settle.

For each batch of staged memories, oldest first:

1. make sure their nodes are embedded, then merge duplicate topic and object nodes;
2. discover relations: memories now sharing a node get ``RELATED_TO``; time-adjacent
   memories of one session get ``CAUSES`` when the later states the earlier as its reason
   (or, with an LLM configured, when the LLM says one caused the other);
3. detect conflicts with the user's valid memories: the older memory gets ``invalid_at``
   and the newer one ``SUPERSEDES`` and ``CONFLICTS_WITH`` edges to it; nothing is
   deleted (an LLM, when configured, also judges same-topic pairs of states the rules
   pass over; events never conflict: each happened at its time);
4. mark the batch consolidated.

Every step is idempotent: links are upserts, merged nodes are gone, and invalidated
memories stay invalid, so a run interrupted half-way is simply run again. An LLM that
does not answer (an outage, a rate limit: :class:`~memory_platform.llm.LLMUnavailableError`)
stops the run before its batch is marked consolidated, so the judgements it owes are
asked when the run is retried (the workers' back-off) rather than never; an answer that
is no judgement, or a refused request, skips that one judgement (counted in the report).

``forget`` and corrections take no lock, so a chat may forget, correct or retract a
memory while the run waits for the LLM: a judgement or a write about a memory gone
meanwhile is skipped and the memory counted in the report (``forgotten_meanwhile``), and
the run goes on with the others. A conflict is resolved in one store transaction
(:meth:`~memory_platform.store.GraphStore.supersede_memory`) that writes nothing unless
both memories are still current, so a memory is never invalidated by one the user forgot
or corrected, nor is a correction's own ``invalid_at`` overwritten (``changed_meanwhile``).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TypeVar

from pydantic import BaseModel, Field

from ..config import Settings
from ..errors import ConflictError, JobStopped, MemoryPlatformError, NotFoundError
from ..llm import LLMClient
from ..models import LinkType, Memory, MemoryLink, MemoryStatus, NodeType
from ..privacy import loggable
from ..store import GraphStore, MemoryRecord
from .merging import NodeMerger
from .rules import (
    MemoryParts,
    causal_by_wording,
    comparable_topics,
    conflict_between,
    is_state,
    parts_of,
    rules_can_judge,
)

__all__ = ["LLM_CONFIDENCE", "RULES_CONFIDENCE", "ConsolidationReport", "Consolidator"]

log = logging.getLogger(__name__)

_RELATED_PER_MEMORY = 3

LLM_CONFLICT_QUESTIONS = 5
"""How many same-topic states the LLM is asked about for one memory: those nearest it in
time. A newer value contradicts the one it replaces, the value just before it; asking
about every state of the topic cost a question per memory of the user's history (2,886
questions consolidating 1,000 bench memories, growing with the square of their number)."""


RULES_CONFIDENCE = 0.9
"""The confidence of the links of a conflict the rules found; one the LLM judged gets
:data:`LLM_CONFIDENCE`. Neither is tuned: they say, on the links, who judged."""
LLM_CONFIDENCE = 0.7


class ConsolidationReport(BaseModel):
    """What one consolidation run did."""

    user_id: str
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    finished_at: datetime | None = None
    memories: int = 0
    batches: int = 0
    nodes_checked: int = 0
    nodes_merged: int = 0
    merges_rejected_by_context: int = 0
    related_links: int = 0
    causal_links: int = 0
    conflicts: int = 0
    llm: str = "not configured: rule-based discovery and conflict detection only"
    llm_skipped: int = 0
    """LLM judgements skipped: the answer was no valid judgement, or the request was
    refused (a wrong model or key); the rules alone decided those pairs."""
    forgotten_meanwhile: int = 0
    """Memories the user forgot while the run went on: what the run would have done
    with them (a judgement, a link, a conflict, marking them consolidated) was skipped."""
    changed_meanwhile: int = 0
    """Memories the user corrected or retracted while the run went on: they were not
    judged again, and no conflict with them was written (a correction's new version is
    staged, so this run or the next judges it)."""
    conflict_details: list[dict[str, str]] = Field(default_factory=list)


class _Causal(BaseModel):
    causal: bool
    confidence: float = Field(0.6, ge=0, le=1)


class _Contradiction(BaseModel):
    contradicts: bool


_Judgement = TypeVar("_Judgement", _Causal, _Contradiction)


class Consolidator:
    """Consolidates one user at a time; callers serialise runs per user."""

    def __init__(
        self,
        store: GraphStore,
        settings: Settings,
        llm: LLMClient | None = None,
        ensure_embedded: Callable[[str], object] = lambda _user: None,
        understands: Callable[[str], bool] = lambda _text: True,
    ) -> None:
        self._store = store
        self._settings = settings
        self._llm = llm
        self._ensure_embedded = ensure_embedded
        self._merger = NodeMerger(store, settings.node_merger, understands=understands)
        self._skipped = 0
        self._forgotten: set[str] = set()
        self._changed: set[str] = set()
        self._judged: set[frozenset[str]] = set()  # pairs the LLM judged in this run

    def run(self, user_id: str) -> ConsolidationReport:
        """Consolidate every staged memory of the user; returns the counts."""
        report = ConsolidationReport(user_id=user_id)
        self._skipped = 0
        self._forgotten = set()
        self._changed = set()
        self._judged = set()
        if self._llm is not None:
            report.llm = f"used ({self._llm.model}) for causality and conflict adjudication"
        batch_size = self._settings.consolidation.batch_size
        while True:
            staged = self._store.list_staged(user_id, limit=batch_size)
            if not staged:
                break
            self._batch(user_id, staged, report)
            report.batches += 1
            report.memories += len(staged)
        report.llm_skipped = self._skipped
        report.forgotten_meanwhile = len(self._forgotten)
        report.changed_meanwhile = len(self._changed)
        report.finished_at = datetime.now(UTC)
        log.info("consolidated %s: %s", user_id, report.model_dump(exclude={"conflict_details"}))
        return report

    def _records(self, user_id: str, memories: list[Memory]) -> list[MemoryRecord]:
        records = [self._store.get_memory(user_id, m.id) for m in memories]
        return [r for r in records if r is not None]

    def _batch(self, user_id: str, staged: list[Memory], report: ConsolidationReport) -> None:
        self._ensure_embedded(user_id)
        records = self._records(user_id, staged)
        nodes = [n for r in records for n in r.nodes if n.kind in (NodeType.TOPIC, NodeType.OBJECT)]
        stats = self._merger.merge_new_nodes(user_id, nodes)
        report.nodes_checked += stats.checked
        report.nodes_merged += len(stats.merged_ids)
        report.merges_rejected_by_context += stats.rejected_by_context
        records = self._records(user_id, staged)  # after merging, nodes may be shared
        if self._settings.consolidation.enable_auto_discovery:
            report.related_links += self._link_shared(user_id, records)
            report.causal_links += self._link_causes(user_id, records)
        if self._settings.consolidation.enable_conflict_detection:
            self._resolve_conflicts(user_id, records, report)
        for memory in staged:
            consolidated = partial(
                self._store.update_memory, user_id, memory.id, status=MemoryStatus.CONSOLIDATED
            )
            self._unless_forgotten(user_id, consolidated)

    def _unless_forgotten(self, user_id: str, write: Callable[[], object]) -> bool:
        """Make one write about memories this run read earlier; False, with nothing
        written, when the user forgot one of them meanwhile (the store's ``NotFoundError``
        for a memory: each write checks its memories exist, in its transaction)."""
        try:
            write()
        except NotFoundError as exc:
            if exc.kind != "memory":
                raise
            self._forgotten.add(exc.identifier)
            log.info("consolidation of %s: memory %s forgotten meanwhile", user_id, exc.identifier)
            return False
        return True

    def _current(self, user_id: str, *memories: Memory) -> set[str]:
        """The ids of ``memories`` still stored and current, read again now; one the user
        forgot, corrected or retracted since the run read it is noted for the report."""
        fresh = {m.id: m for m in self._store.get_memories(user_id, [m.id for m in memories])}
        for memory in memories:
            now = fresh.get(memory.id)
            if now is None:
                self._forgotten.add(memory.id)
            elif now.invalid_at is not None and memory.invalid_at is None:
                self._changed.add(memory.id)
        return {i for i, m in fresh.items() if m.invalid_at is None}

    # -- discovery ---------------------------------------------------------------------

    def _link_shared(self, user_id: str, records: list[MemoryRecord]) -> int:
        cap = self._settings.retrieval.hub_degree_cap
        created = 0
        for record in records:
            shared_ids = [n.id for n in record.nodes if n.kind in (NodeType.TOPIC, NodeType.OBJECT)]
            others: list[str] = []
            for memory_ids in self._store.memories_for_nodes(user_id, shared_ids).values():
                if len(memory_ids) > cap:
                    continue  # a hub relates everything to everything: no evidence
                others.extend(m for m in memory_ids if m != record.memory.id and m not in others)
            for other in others[:_RELATED_PER_MEMORY]:
                if self._already_linked(user_id, record.memory.id, other):
                    continue
                link = MemoryLink(
                    user_id=user_id,
                    source_id=record.memory.id,
                    target_id=other,
                    type=LinkType.RELATED_TO,
                    importance=0.4,
                    discovered=True,
                    confidence=0.6,
                )
                created += self._unless_forgotten(user_id, partial(self._store.add_link, link))
        return created

    def _already_linked(self, user_id: str, a: str, b: str) -> bool:
        return any(
            {link.source_id, link.target_id} == {a, b} for link in self._store.get_links(user_id, a)
        )

    def _link_causes(self, user_id: str, records: list[MemoryRecord]) -> int:
        window = timedelta(seconds=self._settings.consolidation.temporal_window_seconds)
        ordered = sorted((r.memory for r in records), key=lambda m: (m.created_at, m.id))
        created = 0
        for earlier, later in itertools.pairwise(ordered):
            if later.created_at - earlier.created_at > window:
                continue
            if earlier.session_id != later.session_id:
                continue
            # linked already (a run retried after an outage): no LLM call to ask again
            if self._already_linked(user_id, earlier.id, later.id):
                continue
            confidence = self._causality(earlier, later)
            if confidence is None:
                continue
            link = MemoryLink(
                user_id=user_id,
                source_id=earlier.id,
                target_id=later.id,
                type=LinkType.CAUSES,
                importance=0.5,
                discovered=True,
                confidence=confidence,
            )
            created += self._unless_forgotten(user_id, partial(self._store.add_link, link))
        return created

    def _causality(self, earlier: Memory, later: Memory) -> float | None:
        if causal_by_wording(earlier, later):
            return 0.8
        answer = self._ask(
            "Do these two memories of one person stand in a cause-effect relation, with A the "
            'cause of B? Answer with JSON {"causal": true or false, "confidence": 0 to 1}.',
            earlier,
            later,
            _Causal,
        )
        return answer.confidence if answer is not None and answer.causal else None

    def _ask(
        self, question: str, a: Memory, b: Memory, model: type[_Judgement]
    ) -> _Judgement | None:
        """One LLM judgement of memories A and B; None when no LLM is configured, its
        answer is none, or A or B is no longer current: the user forgot, corrected or
        retracted it since the run read it (it is not shown to the LLM; counted in
        ``forgotten_meanwhile`` or ``changed_meanwhile``).

        Raises:
            LLMUnavailableError: the LLM did not answer (worth retrying the run).
            JobStopped: the user is being deleted (the run stops here).
        """
        if self._llm is None or len(self._current(a.user_id, a, b)) < 2:
            return None
        prompt = f"{question}\nA: {a.text}\nB: {b.text}"
        try:
            return self._llm.complete_json([{"role": "user", "content": prompt}], model)
        except MemoryPlatformError as exc:
            if exc.is_retryable() or isinstance(exc, JobStopped):
                raise
            self._skipped += 1
            log.warning("LLM judgement skipped (%s): %s", model.__name__, loggable(str(exc)))
            return None

    # -- conflicts ---------------------------------------------------------------------

    def _resolve_conflicts(
        self, user_id: str, records: list[MemoryRecord], report: ConsolidationReport
    ) -> None:
        for record in records:
            mine = parts_of(record)
            if mine.memory.invalid_at is not None or not mine.topic or not is_state(mine):
                continue  # an event conflicts with nothing: no candidates to read
            by_rules = rules_can_judge(mine.topic)
            if self._llm is None and not by_rules:
                continue  # nothing could judge a conflict of this topic
            questions = 0
            for other in self._same_subject_candidates(user_id, mine, same_object=by_rules):
                reason = conflict_between(mine, other)
                may_ask = reason is None and questions < LLM_CONFLICT_QUESTIONS
                if may_ask and self._llm_may_judge(mine, other):
                    questions += 1
                    reason = self._llm_conflict(mine, other)
                if reason is not None and self._settle(user_id, mine, other, reason, report):
                    break  # mine is no longer current: nothing left to compare it with
                if not by_rules and questions == LLM_CONFLICT_QUESTIONS:
                    break  # only the LLM judges this topic, and it has had its questions

    def _settle(
        self,
        user_id: str,
        mine: MemoryParts,
        other: MemoryParts,
        reason: str,
        report: ConsolidationReport,
    ) -> bool:
        """The older of two conflicting memories superseded by the newer; whether ``mine``
        is no longer current after (the older one, or forgotten or corrected meanwhile)."""
        newer, older = sorted((mine, other), key=lambda p: _when(p.memory), reverse=True)
        if older.memory.invalid_at is not None:
            return False
        try:
            self._supersede(user_id, newer, older, reason)
        except (ConflictError, NotFoundError) as exc:
            if isinstance(exc, NotFoundError) and exc.kind != "memory":
                raise
            # one of the two was forgotten, corrected or retracted meanwhile
            return mine.memory.id not in self._current(user_id, newer.memory, older.memory)
        report.conflicts += 1
        report.conflict_details.append(
            {"kept": newer.memory.text, "invalidated": older.memory.text, "reason": reason}
        )
        return older is mine

    def _supersede(self, user_id: str, newer: MemoryParts, older: MemoryParts, reason: str) -> None:
        """The newer memory supersedes the older, in one store transaction that writes
        nothing unless both are still current (neither forgotten, corrected nor retracted
        while the LLM judged them)."""
        links = [
            MemoryLink(
                user_id=user_id,
                source_id=newer.memory.id,
                target_id=older.memory.id,
                type=kind,
                importance=0.7,
                discovered=True,
                confidence=RULES_CONFIDENCE if reason != "llm" else LLM_CONFIDENCE,
            )
            for kind in (LinkType.SUPERSEDES, LinkType.CONFLICTS_WITH)
        ]
        self._store.supersede_memory(
            user_id, newer.memory.id, older.memory.id, at=_when(newer.memory), links=links
        )

    def _same_subject_candidates(
        self, user_id: str, mine: MemoryParts, *, same_object: bool
    ) -> Iterator[MemoryParts]:
        """Valid states (an event conflicts with nothing) of the same subject whose topic
        has the same name, an opposite opinion's name or another spelling of its
        single-valued relation, nearest in time to ``mine`` first; without
        ``same_object``, none that holds ``mine``'s object node (where only the LLM
        judges, it is asked about other values alone). Only those that share the subject
        and a topic node are read in full, one read each as it is reached: a caller that
        stops early (the LLM's questions spent) does not read a long history of the
        topic."""
        if mine.subject_id is None:
            return
        names = comparable_topics(mine.topic)
        topic_ids = [n.id for n in self._store.find_nodes(user_id, NodeType.TOPIC, sorted(names))]
        # without same_object, memories of mine's own value: nothing for the LLM to judge
        left_out = [] if same_object or mine.object_id is None else [mine.object_id]
        holding = self._store.memories_for_nodes(user_id, [*topic_ids, mine.subject_id, *left_out])
        memory_ids = {m for node in topic_ids for m in holding.get(node, [])}
        memory_ids &= set(holding.get(mine.subject_id, []))
        memory_ids -= {m for node in left_out for m in holding.get(node, [])}
        memory_ids.discard(mine.memory.id)
        when = _when(mine.memory)
        states = [
            m
            for m in self._store.get_memories(user_id, sorted(memory_ids))
            if m.invalid_at is None and is_state(m)
        ]
        for memory in sorted(states, key=lambda m: (abs(_when(m) - when), m.id)):
            record = self._store.get_memory(user_id, memory.id)
            if record is None or record.memory.invalid_at is not None:
                continue  # forgotten or invalidated since the list was read
            parts = parts_of(record)
            if parts.subject_id == mine.subject_id:
                yield parts

    def _llm_may_judge(self, a: MemoryParts, b: MemoryParts) -> bool:
        """Whether the LLM is to judge the pair: two states of one topic, of two values,
        not judged yet in this run (two staged memories meet from either side)."""
        return (
            self._llm is not None
            and a.topic == b.topic
            and a.object != b.object
            and is_state(a)
            and is_state(b)
            and frozenset((a.memory.id, b.memory.id)) not in self._judged
        )

    def _llm_conflict(self, a: MemoryParts, b: MemoryParts) -> str | None:
        self._judged.add(frozenset((a.memory.id, b.memory.id)))
        answer = self._ask(
            "Do these two memories about the same person contradict each other, so that only "
            'one can be true now? Answer with JSON {"contradicts": true or false}.',
            a.memory,
            b.memory,
            _Contradiction,
        )
        return "llm" if answer is not None and answer.contradicts else None


def _when(memory: Memory) -> datetime:
    return memory.event_time or memory.created_at
