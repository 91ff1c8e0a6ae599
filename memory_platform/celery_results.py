"""Celery's Redis result backend with two races closed: a late "retry" never hides a
finished job, and a job whose user was deleted while it ran stores no result.

A task that retries publishes its next attempt first and records RETRY after. With a short
back-off (the jitter can make it 0 s) the next attempt can start, finish and record SUCCESS
or FAILURE in between; the late RETRY then replaces it and the job reads RETRY for ever.
A loaded 2-core CI machine hit this: ``job_status`` said RETRY two minutes after the job
had succeeded. Celery refuses to overwrite SUCCESS, but reads and writes in two steps, and
lets RETRY replace FAILURE. Here RETRY is written in one Redis transaction, and only while
the stored state is not a finished one.

Deleting a user deletes the results of their jobs (a consolidation's report quotes
memories), but a job that was running stores its result when it returns, after the
deletion: the result stayed for a week. The deletion marks each of the user's jobs first
(:func:`memory_platform.jobs.dropped_job_key`), and a result is written in a transaction
that watches the mark and writes nothing once it is set.

Loaded by Celery from the ``result_backend`` setting (``module:Class+redis://…``), so
importing it needs Celery; the embedded default never does.
"""

from __future__ import annotations

from typing import Any

from celery import states
from celery.backends.redis import RedisBackend

from .jobs import dropped_job_key

__all__ = ["FinishedStateRedisBackend"]


class FinishedStateRedisBackend(RedisBackend):  # type: ignore[misc]
    """The Redis result backend, except that RETRY never replaces SUCCESS, FAILURE or
    REVOKED, and that a job marked dropped (its user deleted) stores nothing."""

    def _set_with_state(self, key: bytes, value: Any, state: str) -> Any:
        if not key.startswith(self.task_keyprefix):  # not a task's result
            return super()._set_with_state(key, value, state)
        if isinstance(value, str) and len(value) > self._MAX_STR_VALUE_SIZE:
            return super()._set_with_state(key, value, state)  # refused there, as before
        expires = self.expires
        if state == states.FAILURE:  # result_failure_expires, Celery 5.5 and later
            expires = getattr(self, "failure_expires", expires)
        return self.ensure(self._set_unless_settled, (key, value, state, expires))

    def _set_unless_settled(self, key: bytes, value: Any, state: str, expires: Any) -> None:
        job_id = key[len(self.task_keyprefix) :].decode()
        dropped = dropped_job_key(job_id)

        def write(pipe: Any) -> None:
            # both keys watched: a write to either between these reads and the set retries
            if pipe.exists(dropped):
                return
            if state == states.RETRY:
                stored = pipe.get(key)
                if stored is not None and self.decode(stored).get("status") in states.READY_STATES:
                    return
            pipe.multi()
            pipe.set(key, value, ex=expires or None)
            pipe.publish(key, value)  # what RedisBackend does: waiting clients are told

        self.client.transaction(write, dropped, key)
