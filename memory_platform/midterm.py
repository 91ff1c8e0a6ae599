"""Mid-term memory and forgetting (seed 002 §2.3, seed 000 §5.3).

Messages pushed out of the short-term buffer are summarised by the LLM into a mid-term
episode; consolidated memories whose strength has faded are archived. The facade calls
these with its store and settings; the daily worker task runs them per user.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Sequence
from contextlib import suppress
from datetime import UTC, datetime, tzinfo
from typing import Any

from .builder import episode_time_text
from .clock import clock_entry
from .errors import ConflictError
from .layers import MID_TERM_SPEAKER, Summary
from .llm import LLMClient
from .models import TOLD_BY_KEY, Episode, MemoryStatus
from .retrieval.scoring import recency
from .store import GraphStore

__all__ = ["SUMMARY_PROMPT", "archive_faded", "summarize_episodes"]

log = logging.getLogger(__name__)

SUMMARY_PROMPT = (
    "Summarise this stretch of a conversation for the user's long-term memory. Answer with one "
    'JSON object: {"summary": "a few sentences in the language of the conversation", '
    '"keywords": ["up to ten keywords"], "importance": 0 to 1}.'
)

_SUMMARY_ATTEMPTS = 3
"""Summaries asked of one batch while its messages are being forgotten under it."""


def summarize_episodes(
    store: GraphStore,
    llm: LLMClient | None,
    user: str,
    session_id: str,
    episode_ids: Sequence[str],
    zone: tzinfo = UTC,
) -> dict[str, Any]:
    """Summarise stored messages into one mid-term episode; the LLM reads their times on
    the clock each was said on, else of ``zone`` (the deployment's), and the summary
    keeps its last message's (:mod:`~memory_platform.clock`).

    Idempotent: the same messages give the same summary id and are summarised once.
    Without an LLM it reports ``skipped``; the messages stay stored as episodes. Episodes
    kept out of search, or expired, are not summarised (the summary is searched). A
    message forgotten while the LLM summarised it (``forget`` takes no lock) makes the
    summary be asked again without it; one forgotten later takes the summaries that
    retell it along (:func:`~.forgetting.forget_episodes`).
    """
    for _ in range(_SUMMARY_ATTEMPTS):
        now = datetime.now(UTC)
        episodes = sorted(
            (
                e
                for e in store.get_episodes(user, episode_ids)
                if e.searchable and not e.expired(now)
            ),
            key=lambda e: (e.timestamp, e.id),
        )
        if not episodes:
            return {"status": "skipped", "reason": "no such messages"}
        if llm is None:
            log.info("summary of %d messages of %s skipped: no LLM configured", len(episodes), user)
            return {"status": "skipped", "reason": "no LLM configured (MEMORY_LLM_BASE_URL)"}
        summary_id = uuid.uuid5(
            uuid.NAMESPACE_URL, "summary|" + "|".join([user, *(e.id for e in episodes)])
        ).hex
        if store.get_episodes(user, [summary_id]):
            return {"status": "duplicate", "episode_id": summary_id}
        transcript = "\n".join(
            f"[{episode_time_text(e, zone)}] {e.speaker}: {e.text}" for e in episodes
        )
        summary = llm.complete_json(
            [
                {"role": "system", "content": SUMMARY_PROMPT},
                {"role": "user", "content": transcript[-60_000:]},
            ],
            Summary,
        )
        if len(store.get_episodes(user, [e.id for e in episodes])) < len(episodes):
            log.info("a message of %s was forgotten while summarised; asking again", user)
            continue
        episode = Episode(
            id=summary_id,
            user_id=user,
            session_id=session_id,
            text=summary.summary,
            speaker=MID_TERM_SPEAKER,
            timestamp=episodes[-1].timestamp,
            keywords=summary.keywords,
            importance=summary.importance,
            metadata={
                "layer": "mid_term",
                "time_range": [
                    episodes[0].timestamp.isoformat(),
                    episodes[-1].timestamp.isoformat(),
                ],
                TOLD_BY_KEY: [e.id for e in episodes],
            }
            | clock_entry(episodes[-1].metadata),
        )
        with suppress(ConflictError):  # a concurrent run wrote it first
            store.add_episodes([episode])
        return {"status": "done", "episode_id": summary_id, "messages": len(episodes)}
    return {"status": "skipped", "reason": "its messages were being forgotten while summarised"}


def archive_faded(
    store: GraphStore,
    user: str,
    now: datetime,
    rates: dict[str, float],
    floor: float,
    page_size: int = 500,
) -> dict[str, int]:
    """Archive consolidated memories whose strength fell below ``floor``.

    strength = importance · exp(-λ · days) · (1 + ln(1 + accesses)), with λ by memory type.
    An archived memory is kept, but hidden from search unless ``include_invalid=True``.
    The memories are read ``page_size`` at a time.
    """
    archived = checked = 0
    offset = 0
    while page := store.list_memories(
        user, MemoryStatus.CONSOLIDATED, limit=page_size, offset=offset
    ):
        offset += len(page)
        for memory in page:
            checked += 1
            strength = (
                memory.importance
                * recency(
                    memory.event_time or memory.created_at, now, memory.memory_type.value, rates
                )
                * (1 + math.log1p(memory.access_count))
            )
            if strength < floor:
                store.update_memory(user, memory.id, status=MemoryStatus.ARCHIVED)
                archived += 1
                offset -= 1  # the page shrank under us
    return {"checked": checked, "archived": archived}
