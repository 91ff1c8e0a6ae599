"""Celery tasks: thin wrappers that take ids, call the facade and return small JSON.

Every task is idempotent (extraction is keyed by user and session, consolidation finds
nothing to redo), so they acknowledge late and are redelivered if a worker dies. Tasks of
one user are serialised by a Redis lock; LLM rate limits, timeouts, transient storage
failures and a Redis that does not answer when a task queues another are retried with
exponential back-off.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from redis import Redis
from redis.lock import Lock

from memory_platform import (
    BackendUnavailable,
    MemoryPlatform,
    QueueUnavailable,
    TransientStorageError,
)
from memory_platform.jobs import (
    MAX_RETRIES,
    RETRY_BACKOFF,
    RETRY_BACKOFF_MAX,
    TASK_CONSOLIDATE,
    TASK_CONSOLIDATE_ALL,
    TASK_EXTRACT,
    TASK_MAINTAIN,
    TASK_MAINTAIN_ALL,
    TASK_SUMMARIZE,
)
from memory_platform.llm import LLMUnavailableError

from .celery_app import app

log = logging.getLogger(__name__)

RETRYABLE = (LLMUnavailableError, TransientStorageError, BackendUnavailable, QueueUnavailable)
_RETRY = {
    "bind": True,
    "acks_late": True,
    "autoretry_for": RETRYABLE,
    "retry_backoff": RETRY_BACKOFF,
    "retry_backoff_max": RETRY_BACKOFF_MAX,
    "retry_jitter": True,
    "max_retries": MAX_RETRIES,
}

_platform: MemoryPlatform | None = None
_platform_lock = threading.Lock()


class UserBusy(TransientStorageError):
    """Another task holds this user's lock; retried later."""


def platform() -> MemoryPlatform:
    """One facade per worker process, opened on first use."""
    global _platform
    with _platform_lock:
        if _platform is None:
            _platform = MemoryPlatform.from_env()
        return _platform


def renewable_lock(client: Redis, user_id: str, ttl: float, wait: float) -> Lock:
    """The Redis lock of one user's work, renewable from the heartbeat thread.

    redis-py keeps a lock's token thread-local by default: renewed from any thread but
    the one that took it, it fails, the lock expires under a long task (an LLM-bound
    consolidation), and a second task of the same user runs alongside it. The token is
    shared instead; each lock object serves one task.
    """
    lock: Lock = client.lock(
        f"memory-platform:lock:{user_id}",
        timeout=ttl,
        blocking_timeout=wait,
        thread_local=False,
    )
    return lock


@contextmanager
def user_lock(user_id: str) -> Iterator[None]:
    """Serialise the work of one user across all workers (a Redis lock).

    The lock lives ``lock_timeout`` seconds past its last renewal and a heartbeat thread
    renews it every third of that while the task runs: a live task keeps it however long
    the LLM takes, and a worker killed mid-task (SIGKILL, OOM) frees it within
    ``lock_timeout``, so the redelivered task takes over instead of failing "busy".
    """
    mp = platform()
    ttl = mp.settings.worker.lock_timeout
    client = app.backend.client  # the result backend's Redis connection
    lock = renewable_lock(client, user_id, ttl, mp.settings.worker.lock_wait)
    if not lock.acquire():
        raise UserBusy(f"user {user_id} is busy")
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(ttl / 3):
            try:
                lock.reacquire()
            except Exception:  # lost it (Redis restarted): the work is idempotent
                log.warning("could not renew the lock of %s", user_id, exc_info=True)
                return

    beat = threading.Thread(target=heartbeat, name=f"lock-heartbeat-{user_id}", daemon=True)
    beat.start()
    try:
        yield
    finally:
        stop.set()
        beat.join()
        try:
            lock.release()
        except Exception:  # the lock expired meanwhile; the work is done and idempotent
            log.warning("lock of %s had expired before release", user_id)


@app.task(name=TASK_EXTRACT, **_RETRY)
def extract_session(self: Any, user_id: str, session_id: str) -> dict[str, Any]:
    """Session end: knowledge version and memories from the recorded messages."""
    with user_lock(user_id):
        return platform().extract_session(user_id, session_id)


@app.task(name=TASK_CONSOLIDATE, **_RETRY)
def consolidate_user(self: Any, user_id: str) -> dict[str, Any]:
    """Merge, link and resolve a user's staged memories."""
    with user_lock(user_id):
        return platform().consolidate(user_id)


@app.task(name=TASK_CONSOLIDATE_ALL, bind=True)
def consolidate_all(self: Any) -> dict[str, Any]:
    """Beat: queue a consolidation for every user with staged memories."""
    return _queue_each(consolidate_user, platform().store.iter_users(staged=True))


@app.task(name=TASK_SUMMARIZE, **_RETRY)
def summarize_messages(
    self: Any, user_id: str, session_id: str, episode_ids: list[str]
) -> dict[str, Any]:
    """Short-term overflow: summarise the batch into a mid-term episode."""
    return platform().summarize_messages(user_id, session_id, episode_ids)


@app.task(name=TASK_MAINTAIN, **_RETRY)
def daily_maintenance(self: Any, user_id: str) -> dict[str, Any]:
    """Decay refresh and promotion of often-recalled summaries, for one user."""
    with user_lock(user_id):
        return platform().daily_maintenance(user_id)


@app.task(name=TASK_MAINTAIN_ALL, bind=True)
def daily_maintenance_all(self: Any) -> dict[str, Any]:
    """Beat (daily): queue the maintenance of every user."""
    return _queue_each(daily_maintenance, platform().store.iter_users())


def _queue_each(task: Any, users: Iterator[str]) -> dict[str, Any]:
    """Queue ``task`` for each user as the pages of users are read; how many were queued."""
    queued = 0
    for user in users:
        task.delay(user)
        queued += 1
    return {"queued": queued}
