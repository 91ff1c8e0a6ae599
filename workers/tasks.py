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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from celery import current_task

from memory_platform import (
    BackendUnavailable,
    MemoryPlatform,
    QueueUnavailable,
    TransientStorageError,
)
from memory_platform.errors import JobStopped
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
    dropped_job_key,
    fresh_job_id,
    record_job_owner,
    redis_answers,
    redis_user_lock,
    stop_requested_in,
    stoppable,
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


def platform() -> MemoryPlatform:
    """One facade per worker process, opened on first use."""
    global _platform
    with _platform_lock:
        if _platform is None:
            _platform = MemoryPlatform.from_env()
        return _platform


class JobDropped(Exception):
    """The job's user was deleted after it was queued: there is nothing left to work on,
    and its result would not be stored."""


@contextmanager
def user_lock(user_id: str) -> Iterator[None]:
    """Serialise the work of one user across all workers, and with the user's deletion
    (the user's Redis lock, :func:`memory_platform.jobs.redis_user_lock`); a deletion
    waiting for the lock asks the task to stop at its next LLM call
    (:func:`memory_platform.jobs.stoppable`).

    Under the lock, the job is recorded as the user's, if whoever queued it did not (a
    Celery client in another language), so deleting the user deletes its result too: a
    deletion holds the same lock, so it cannot run between the check and the record. A
    job whose user was deleted since it was queued (or since a deletion stopped it) runs
    nothing: :class:`JobDropped`."""
    settings = platform().settings.worker
    client = app.backend.client  # the result backend's Redis connection
    job_id = current_task.request.id if current_task else None
    with (
        redis_user_lock(client, user_id, settings.lock_timeout, settings.lock_wait),
        stoppable(user_id, lambda: stop_requested_in(client, user_id)),
    ):
        if job_id:
            with redis_answers("recording whose job it is"):
                if client.exists(dropped_job_key(job_id)):
                    raise JobDropped(f"user {user_id} was deleted; the job was dropped")
                record_job_owner(client, job_id, user_id, queued=False)
        yield


def as_user(task: Any, user_id: str, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``work`` under the user's lock (:func:`user_lock`). A task a deletion of its
    user stopped (:class:`JobStopped`) is queued again, to run once the deletion is over:
    it then finds itself dropped if the user was deleted, and does its work if the
    deletion failed (nothing was deleted), so no job is lost to a deletion that did not
    happen. A stop is queued again however many retries the task has had."""
    try:
        with user_lock(user_id):
            return work()
    except JobDropped:
        log.info("job of deleted user %s dropped", user_id)
        return {"status": "dropped"}
    except JobStopped as exc:
        raise task.retry(
            exc=exc,
            countdown=RETRY_BACKOFF,
            max_retries=(task.request.retries or 0) + 1,
        ) from exc


@app.task(name=TASK_EXTRACT, **_RETRY)
def extract_session(self: Any, user_id: str, session_id: str) -> dict[str, Any]:
    """Session end: knowledge version and memories from the recorded messages."""
    return as_user(self, user_id, lambda: platform().extract_session(user_id, session_id))


@app.task(name=TASK_CONSOLIDATE, **_RETRY)
def consolidate_user(self: Any, user_id: str) -> dict[str, Any]:
    """Merge, link and resolve a user's staged memories."""
    return as_user(self, user_id, lambda: platform().consolidate(user_id))


@app.task(name=TASK_CONSOLIDATE_ALL, bind=True)
def consolidate_all(self: Any) -> dict[str, Any]:
    """Beat: queue a consolidation for every user with staged memories."""
    return _queue_each(consolidate_user, platform().store.iter_users(staged=True))


@app.task(name=TASK_SUMMARIZE, **_RETRY)
def summarize_messages(
    self: Any, user_id: str, session_id: str, episode_ids: list[str]
) -> dict[str, Any]:
    """Short-term overflow: summarise the batch into a mid-term episode."""
    return as_user(
        self, user_id, lambda: platform().summarize_messages(user_id, session_id, episode_ids)
    )


@app.task(name=TASK_MAINTAIN, **_RETRY)
def daily_maintenance(self: Any, user_id: str) -> dict[str, Any]:
    """Decay refresh and promotion of often-recalled summaries, for one user."""
    return as_user(self, user_id, lambda: platform().daily_maintenance(user_id))


@app.task(name=TASK_MAINTAIN_ALL, bind=True)
def daily_maintenance_all(self: Any) -> dict[str, Any]:
    """Beat (daily): queue the maintenance of every user."""
    return _queue_each(daily_maintenance, platform().store.iter_users())


def _queue_each(task: Any, users: Iterator[str]) -> dict[str, Any]:
    """Queue ``task`` for each user as the pages of users are read, each job recorded as
    the user's (as the platform's own are), so deleting the user deletes its result (a
    consolidation's report quotes memories); how many were queued."""
    queued = 0
    prefix = task.name.rsplit(".", 1)[-1]
    for user in users:
        job_id = fresh_job_id(prefix)
        record_job_owner(app.backend.client, job_id, user)
        task.apply_async(args=[user], task_id=job_id)
        queued += 1
    return {"queued": queued}
