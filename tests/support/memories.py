"""Writing memories in tests: ``create(mp, user, subject=..., topic=..., object=...)``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory_platform import MemoryPlatform
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
