"""Writing memories in tests: ``create(mp, user, subject=..., topic=..., object=...)``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory_platform import MemoryPlatform
from memory_platform.models import LinkType, MemoryLink
from memory_platform.tools.arguments import CreateMemoryArgs

CST = timezone(timedelta(hours=8))
T0 = datetime(2025, 11, 5, 10, 0, tzinfo=CST)


def create(
    mp: MemoryPlatform, user: str, when: datetime = T0, session: str | None = None, **args: object
) -> str:
    """Write one memory through the facade as a tool call would; returns its id."""
    record = mp.create_memory_record(
        user, CreateMemoryArgs.model_validate(args), reference_time=when, session_id=session
    )
    return record.memory.id


def causal_pair(mp: MemoryPlatform, user: str) -> tuple[str, str]:
    """Two memories of one session twenty minutes apart whose wording states no cause:
    only an LLM judges whether the first caused the second. Returns their ids."""
    first = create(mp, user, session="s", subject="I", memory_type="event", topic="skipped",
                   object="lunch")  # fmt: skip
    then = create(mp, user, T0 + timedelta(minutes=20), session="s", subject="I",
                  memory_type="fact", topic="felt", object="dizzy")  # fmt: skip
    return first, then


def superseded_as_before(
    mp: MemoryPlatform, user: str, newer: str, older: str, confidence: float
) -> None:
    """The two links and the ``invalid_at`` a consolidation before 2026-12-01 wrote for a
    conflict (``confidence``: who judged it)."""
    mp.store.supersede_memory(
        user, newer, older, at=mp.get_memory(user, newer).memory.created_at,
        links=[
            MemoryLink(user_id=user, source_id=newer, target_id=older, type=kind,
                       importance=0.7, discovered=True, confidence=confidence)
            for kind in (LinkType.SUPERSEDES, LinkType.CONFLICTS_WITH)
        ],
    )  # fmt: skip
