"""Conflicts an older consolidation recorded, judged again under today's rules.

Until 2026-12-01 the rules invalidated the older of two memories whose topics named one
single-valued relation with different objects, events included, and took 工作 (work) and
当 (serve as) for spellings of an occupation: a week of work events (我 工作 加班, then
我 工作 开会) lost all but the last to one consolidation. Such memories stay invalid,
hidden from every search, until reviewed. :func:`review_conflicts` reads each memory a
consolidation superseded (a *discovered* ``SUPERSEDES`` link: a person's correction is
never touched) and reinstates it where today's consolidation would not have invalidated
it: either memory is an event (events never conflict), or the rules judged the pair (the
links' confidence says who judged) and find no conflict now. A pair of states the LLM
judged is kept. Reinstated memories are staged again, so the next consolidation judges
them as it judges a new memory, asking the LLM where one is configured.

Reviewing again changes nothing more: a reinstated memory has no such link left.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from ..models import LinkType, Memory
from ..store import GraphStore, MemoryRecord
from .consolidator import LLM_CONFIDENCE
from .rules import conflict_between, is_state, parts_of

__all__ = ["ConflictReview", "ReviewedConflict", "review_conflicts"]

_PAGE = 500


class ReviewedConflict(BaseModel):
    """One recorded conflict and what the review made of it (``reinstated``: would be,
    in a dry run)."""

    invalidated: str
    kept: str
    judged_by: str
    reinstated: bool
    reason: str


class ConflictReview(BaseModel):
    """What one review of a user's recorded conflicts found and changed."""

    user_id: str
    dry_run: bool
    conflicts: int = 0
    reinstated: int = 0
    details: list[ReviewedConflict] = []


def review_conflicts(store: GraphStore, user_id: str, *, dry_run: bool = False) -> ConflictReview:
    """Judge each conflict a consolidation recorded for the user again, and reinstate the
    memories today's rules would not have invalidated (with ``dry_run``, say which and
    change nothing)."""
    review = ConflictReview(user_id=user_id, dry_run=dry_run)
    for older in list(_invalid_memories(store, user_id)):
        for link in store.get_links(user_id, older.id):
            if (
                link.type != LinkType.SUPERSEDES
                or not link.discovered
                or link.target_id != older.id
            ):
                continue
            judged_by = "llm" if link.confidence <= LLM_CONFIDENCE else "rules"
            newer = store.get_memory(user_id, link.source_id)
            record = store.get_memory(user_id, older.id)  # with its nodes, for the rules
            if newer is None or record is None:
                continue  # forgotten meanwhile
            reason, reinstate = _verdict(newer, record, judged_by)
            if reinstate and not dry_run:
                reinstate = store.reinstate_memory(user_id, newer.memory.id, older.id)
            review.conflicts += 1
            review.reinstated += reinstate
            review.details.append(
                ReviewedConflict(
                    invalidated=older.text,
                    kept=newer.memory.text,
                    judged_by=judged_by,
                    reinstated=reinstate,
                    reason=reason,
                )
            )
    return review


def _invalid_memories(store: GraphStore, user_id: str) -> Iterator[Memory]:
    """The user's memories that are not current, page by page."""
    offset = 0
    while page := store.list_memories(user_id, limit=_PAGE, offset=offset):
        yield from (m for m in page if m.invalid_at is not None)
        offset += len(page)


def _verdict(newer: MemoryRecord, older: MemoryRecord, judged_by: str) -> tuple[str, bool]:
    """Why the older of a recorded conflict should be current again (True) or stay
    superseded (False), as today's consolidation would judge the pair."""
    if not (is_state(newer.memory) and is_state(older.memory)):
        return "an event conflicts with nothing", True
    if judged_by == "llm":
        return "the LLM judged these two states to conflict", False
    reason = conflict_between(parts_of(newer), parts_of(older))
    if reason is None:
        return "today's rules find no conflict", True
    return f"today's rules still find one: {reason}", False
