"""Short- and mid-term layers (seed 002; seed 003 §2.1 working memory).

Short term: the latest messages of each session, capacity-bounded (default 200) and
expiring after a quiet spell (default 60 minutes), in Redis when configured, else in
process. Priority is recency: when the buffer overflows, its oldest batch (default 50)
leaves it and is summarised by the LLM into a mid-term episode (summary, keywords, time
range, importance). Every message is also stored as an episode when it arrives, so
nothing is lost if a summary cannot be made. Summaries recalled often enough (default 10
accesses) are promoted into the graph by the daily task.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic import BaseModel, Field

from .config import Settings
from .jobs import redis_answers
from .models import Episode

__all__ = [
    "MID_TERM_SPEAKER",
    "BufferedMessage",
    "LocalShortTerm",
    "RedisShortTerm",
    "ShortTermBuffer",
    "Summary",
    "promotion_session",
    "recent_from_episodes",
    "short_term_buffer",
]

MID_TERM_SPEAKER = "mid-term summary"
"""The speaker of mid-term summary episodes, by which they are found again."""


def promotion_session(summary_id: str) -> str:
    """The session a summary's promotion into the graph is extracted as."""
    return f"promoted:{summary_id}"


class BufferedMessage(BaseModel):
    """A message in the short-term buffer; ``episode_id`` is where it is stored for good."""

    episode_id: str
    role: str
    content: str
    timestamp: datetime


class Summary(BaseModel):
    """What the LLM makes of an overflowing batch of messages."""

    summary: str = Field(min_length=1, max_length=4000)
    keywords: list[str] = Field(default_factory=list, max_length=20)
    importance: float = Field(0.5, ge=0.0, le=1.0)


class ShortTermBuffer(Protocol):
    """The latest messages of each session."""

    def push(
        self, user_id: str, session_id: str, items: list[BufferedMessage]
    ) -> list[BufferedMessage]:
        """Append messages; returns the oldest ones pushed out by overflow (in batches)."""
        ...

    def recent(self, user_id: str, session_id: str) -> list[BufferedMessage]:
        """The buffered messages, oldest first (empty once expired)."""
        ...

    def clear(self, user_id: str, session_id: str) -> None: ...

    def forget_user(self, user_id: str) -> int:
        """Drop every session buffer of a user (the user is deleted); returns how many."""
        ...


class LocalShortTerm:
    """The buffer in this process (the embedded default)."""

    def __init__(
        self,
        capacity: int,
        ttl_seconds: float,
        batch: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._capacity, self._ttl, self._batch = capacity, ttl_seconds, batch
        self._clock = clock  # seconds; tests pass their own to move time
        self._sessions: dict[tuple[str, str], tuple[float, deque[BufferedMessage]]] = {}
        self._lock = threading.Lock()

    def _live(self, key: tuple[str, str]) -> deque[BufferedMessage]:
        touched, items = self._sessions.get(key, (0.0, deque()))
        if self._clock() - touched > self._ttl:
            items = deque()
        return items

    def push(
        self, user_id: str, session_id: str, items: list[BufferedMessage]
    ) -> list[BufferedMessage]:
        key = (user_id, session_id)
        with self._lock:
            buffer = self._live(key)
            buffer.extend(items)
            overflow: list[BufferedMessage] = []
            while len(buffer) > self._capacity:
                overflow.extend(buffer.popleft() for _ in range(min(self._batch, len(buffer))))
            self._sessions[key] = (self._clock(), buffer)
            return overflow

    def recent(self, user_id: str, session_id: str) -> list[BufferedMessage]:
        with self._lock:
            return list(self._live((user_id, session_id)))

    def clear(self, user_id: str, session_id: str) -> None:
        with self._lock:
            self._sessions.pop((user_id, session_id), None)

    def forget_user(self, user_id: str) -> int:
        with self._lock:
            keys = [key for key in self._sessions if key[0] == user_id]
            for key in keys:
                del self._sessions[key]
            return len(keys)


_REDIS_TIMEOUT = 5.0
"""Seconds the short-term buffer waits for Redis to connect or answer (its calls are one
list operation each)."""

# Append, refresh the time-to-live, and pop whole batches from the head while the list is
# over capacity, atomically: two chat servers pushing to one session never both summarise
# the same messages.
_PUSH = """
for i = 1, #ARGV - 3 do redis.call('RPUSH', KEYS[1], ARGV[i]) end
local capacity = tonumber(ARGV[#ARGV - 2])
local batch = tonumber(ARGV[#ARGV - 1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[#ARGV]))
local out = {}
while redis.call('LLEN', KEYS[1]) > capacity do
  local head = redis.call('LRANGE', KEYS[1], 0, batch - 1)
  redis.call('LTRIM', KEYS[1], batch, -1)
  for _, item in ipairs(head) do table.insert(out, item) end
end
return out
"""


_GLOB = frozenset("*?[]\\")
"""Characters Redis' key patterns give a meaning (a user id may hold any of them)."""


class RedisShortTerm:
    """The buffer in Redis: a list per session, shared by every process of the platform."""

    def __init__(self, client: Any, capacity: int, ttl_seconds: int, batch: int) -> None:
        self._client = client
        self._capacity, self._ttl, self._batch = capacity, ttl_seconds, batch
        self._push = client.register_script(_PUSH)

    @staticmethod
    def key(user_id: str, session_id: str) -> str:
        return f"memory-platform:stm:{json.dumps([user_id, session_id], ensure_ascii=False)}"

    def push(
        self, user_id: str, session_id: str, items: list[BufferedMessage]
    ) -> list[BufferedMessage]:
        if not items:
            return []
        args = [m.model_dump_json() for m in items] + [self._capacity, self._batch, self._ttl]
        with redis_answers("adding to the short-term buffer"):
            popped = self._push(keys=[self.key(user_id, session_id)], args=args)
        return [BufferedMessage.model_validate_json(raw) for raw in popped]

    def recent(self, user_id: str, session_id: str) -> list[BufferedMessage]:
        with redis_answers("reading the short-term buffer"):
            raw = self._client.lrange(self.key(user_id, session_id), 0, -1)
        return [BufferedMessage.model_validate_json(item) for item in raw]

    def clear(self, user_id: str, session_id: str) -> None:
        with redis_answers("clearing the short-term buffer"):
            self._client.delete(self.key(user_id, session_id))

    def forget_user(self, user_id: str) -> int:
        # every key :meth:`key` makes for the user: ``…:stm:["<user>", `` then the session
        prefix = self.key(user_id, "").removesuffix(json.dumps("") + "]")
        pattern = "".join("\\" + c if c in _GLOB else c for c in prefix) + "*"
        deleted = 0
        with redis_answers("deleting the user's short-term buffers"):
            batch: list[bytes] = []
            for key in self._client.scan_iter(match=pattern, count=1000):
                batch.append(key)
                if len(batch) == 500:
                    deleted += int(self._client.delete(*batch))
                    batch = []
            if batch:
                deleted += int(self._client.delete(*batch))
        return deleted


def recent_from_episodes(
    newest_first: Iterable[Episode], capacity: int, quiet: timedelta, now: datetime
) -> list[BufferedMessage]:
    """What the short-term buffer would hold, rebuilt from a session's stored episodes
    (newest first), for when the buffer cannot be read (Redis does not answer).

    Every message is stored as an episode when it arrives, so the buffer's content is
    there: the latest ``capacity`` chat messages (episodes with a ``role``; not
    summaries, notes or expired items), as long as none is followed by a silence longer
    than ``quiet``, the buffer's time-to-live, counted from ``now`` for the latest.
    Message times stand in for arrival times, which are not stored: history imported
    with old times reads as expired. Overflow is not replayed, so this may hold up to a
    batch more than the buffer did. Oldest first, as :meth:`ShortTermBuffer.recent`."""
    out: list[BufferedMessage] = []
    later = now
    for episode in newest_first:
        role = episode.metadata.get("role")
        if not isinstance(role, str) or episode.expired(now):
            continue
        if later - episode.timestamp > quiet or len(out) == capacity:
            break
        out.append(
            BufferedMessage(
                episode_id=episode.id,
                role=role,
                content=episode.text,
                timestamp=episode.timestamp,
            )
        )
        later = episode.timestamp
    return out[::-1]


def short_term_buffer(settings: Settings) -> ShortTermBuffer:
    """The short-term buffer: in Redis when configured, else in this process."""
    config = settings.short_term
    ttl = int(config.ttl_minutes * 60)
    if settings.redis_url:
        import redis

        # a Redis that stops answering fails a chat request in seconds, not never
        client = redis.Redis.from_url(
            settings.redis_url, socket_connect_timeout=_REDIS_TIMEOUT, socket_timeout=_REDIS_TIMEOUT
        )
        return RedisShortTerm(client, config.capacity, max(ttl, 1), config.overflow_batch)
    return LocalShortTerm(config.capacity, ttl, config.overflow_batch)
