"""Celery's Redis result backend with one race closed: a late "retry" never hides a finished job.

A task that retries publishes its next attempt first and records RETRY after. With a short
back-off (the jitter can make it 0 s) the next attempt can start, finish and record SUCCESS
or FAILURE in between; the late RETRY then replaces it and the job reads RETRY for ever.
A loaded 2-core CI machine hit this: ``job_status`` said RETRY two minutes after the job
had succeeded. Celery refuses to overwrite SUCCESS, but reads and writes in two steps, and
lets RETRY replace FAILURE. Here RETRY is written in one Redis transaction, and only while
the stored state is not a finished one.

Loaded by Celery from the ``result_backend`` setting (``module:Class+redis://…``), so
importing it needs Celery; the embedded default never does.
"""

from __future__ import annotations

from typing import Any

from celery import states
from celery.backends.redis import RedisBackend

__all__ = ["FinishedStateRedisBackend"]


class FinishedStateRedisBackend(RedisBackend):  # type: ignore[misc]
    """The Redis result backend, except that RETRY never replaces SUCCESS, FAILURE or REVOKED."""

    def _set_with_state(self, key: str, value: Any, state: str) -> Any:
        if state != states.RETRY:
            return super()._set_with_state(key, value, state)
        return self.ensure(self._set_unless_finished, (key, value))

    def _set_unless_finished(self, key: str, value: Any) -> None:
        def write(pipe: Any) -> None:
            stored = pipe.get(key)  # watched: a write between this read and the set retries
            if stored is not None and self.decode(stored).get("status") in states.READY_STATES:
                return
            pipe.multi()
            pipe.set(key, value, ex=self.expires or None)
            pipe.publish(key, value)  # what RedisBackend does: waiting clients are told

        self.client.transaction(write, key)
