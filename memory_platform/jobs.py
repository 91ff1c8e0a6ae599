"""Where slow work runs: Celery workers fed by Redis, or a small in-process pool.

With ``MEMORY_REDIS_URL`` set, jobs are Celery tasks sent by name (chat backends in other
languages can send the same JSON payloads to Redis; see docs/workers.md); without it, the
same service calls run on a local thread pool so the embedded default needs no server.
Both answer :meth:`status` with one shape: ``{"job_id", "state", "result", "error"}``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from .config import Settings
from .errors import (
    ConfigurationError,
    JobStopped,
    MemoryPlatformError,
    QueueUnavailable,
    UserBusy,
)

if TYPE_CHECKING:
    from redis import Redis
    from redis.lock import Lock

__all__ = [
    "CONSOLIDATION_QUEUE",
    "EXTRACTION_QUEUE",
    "MAX_RETRIES",
    "RETRY_BACKOFF",
    "RETRY_BACKOFF_MAX",
    "CeleryJobs",
    "InProcessJobs",
    "JobRunner",
    "UserLocks",
    "celery_config",
    "dropped_job_key",
    "record_job_owner",
    "redis_answers",
    "redis_user_lock",
    "renewable_lock",
    "stop_if_asked",
    "stop_key",
    "stop_requested_in",
    "stoppable",
]

log = logging.getLogger(__name__)

EXTRACTION_QUEUE = "extraction"
CONSOLIDATION_QUEUE = "consolidation"

RESULT_BACKEND = "memory_platform.celery_results:FinishedStateRedisBackend"
"""Celery's Redis result backend, except that a late RETRY never hides a finished job (named,
not imported: the embedded default runs without Celery)."""

TASK_EXTRACT = "memory.extract_session"
TASK_CONSOLIDATE = "memory.consolidate_user"
TASK_CONSOLIDATE_ALL = "memory.consolidate_all"
TASK_SUMMARIZE = "memory.summarize_messages"
TASK_MAINTAIN = "memory.daily_maintenance"
TASK_MAINTAIN_ALL = "memory.daily_maintenance_all"


MAX_RETRIES = 5
RETRY_BACKOFF = 2.0
RETRY_BACKOFF_MAX = 300.0
"""A job whose error may pass (:meth:`MemoryPlatformError.is_retryable`: an LLM, a store
or Redis that does not answer) is tried again up to ``MAX_RETRIES`` times, waiting
``RETRY_BACKOFF`` seconds doubled at each retry, at most ``RETRY_BACKOFF_MAX``: on the
workers (Celery's back-off, with jitter) and in process alike."""

_RESTORE_MUTEX_SECONDS = 30
"""How long a dead worker's hold on the sweep that restores unacknowledged tasks lasts."""


@cache
def _unreachable() -> tuple[type[BaseException], ...]:
    """The errors that mean Redis did not answer: redis-py's connection errors and
    timeouts, and kombu's when a task could not be published (imported only once a Redis
    is configured: the embedded default has neither)."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    errors: tuple[type[BaseException], ...] = (RedisConnectionError, RedisTimeoutError)
    try:
        from kombu.exceptions import OperationalError
    except ImportError:  # the short-term buffer needs redis-py alone
        return errors
    return (*errors, OperationalError)


@contextmanager
def redis_answers(doing: str) -> Iterator[None]:
    """Run a Redis call; if Redis does not answer, raise :class:`QueueUnavailable` naming
    what was being done, where a caller gets a 503 to retry, not an internal error."""
    try:
        yield
    except Exception as exc:
        if not isinstance(exc, _unreachable()):
            raise
        raise QueueUnavailable(
            f"Redis does not answer ({doing}): {str(exc).rstrip('.')}; retry once it is back"
        ) from exc


def celery_config(settings: Settings) -> dict[str, Any]:
    """Celery settings shared by the workers and the clients that enqueue."""
    hours = settings.consolidation.interval_hours
    return {
        "broker_url": settings.redis_url,
        "result_backend": f"{RESULT_BACKEND}+{settings.redis_url}",
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "task_acks_late": True,  # tasks are idempotent: redeliver if a worker dies
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_track_started": True,
        "result_expires": 7 * 24 * 3600,
        "broker_connection_retry_on_startup": True,
        "broker_transport_options": {
            "visibility_timeout": settings.worker.visibility_timeout,
            # look for tasks of dead workers every restore_interval seconds
            "unacked_restore_interval": settings.worker.restore_interval,
            "unacked_restore_throttle": 1,
            # a worker killed while it holds the restore sweep's mutex blocks every other
            # worker's sweeps until the mutex expires (kombu's default: 300 s); a sweep
            # takes milliseconds
            "unacked_mutex_expire": _RESTORE_MUTEX_SECONDS,
        },
        "task_default_queue": CONSOLIDATION_QUEUE,
        "task_routes": {
            TASK_EXTRACT: {"queue": EXTRACTION_QUEUE},
            TASK_CONSOLIDATE: {"queue": CONSOLIDATION_QUEUE},
            TASK_CONSOLIDATE_ALL: {"queue": CONSOLIDATION_QUEUE},
            TASK_SUMMARIZE: {"queue": EXTRACTION_QUEUE},
            TASK_MAINTAIN: {"queue": CONSOLIDATION_QUEUE},
            TASK_MAINTAIN_ALL: {"queue": CONSOLIDATION_QUEUE},
        },
        "beat_schedule": {
            "consolidate-all": {"task": TASK_CONSOLIDATE_ALL, "schedule": hours * 3600.0},
            "daily-maintenance": {
                "task": TASK_MAINTAIN_ALL,
                "schedule": settings.consolidation.decay_refresh_hours * 3600.0,
            },
        },
    }


def _busy(user_id: str) -> UserBusy:
    """What waiting for a user's lock past the wait raises, in process or with Redis."""
    return UserBusy(f"other work on user {user_id} is running; try again once it is done")


_HELD: ContextVar[frozenset[tuple[str, str]]] = ContextVar(
    "memory_platform_held_user_locks", default=frozenset()
)
"""The users' locks this context holds, by (the lock's kind, user): work that holds its
user's lock (a worker's task) may call what takes it (``MemoryPlatform.consolidate``)."""


@contextmanager
def _held(kind: str, user_id: str) -> Iterator[bool]:
    """Mark the user's lock of ``kind`` held for the block; yields whether it already was
    (then the caller takes nothing)."""
    held = _HELD.get()
    if (kind, user_id) in held:
        yield True
        return
    token = _HELD.set(held | {(kind, user_id)})
    try:
        yield False
    finally:
        _HELD.reset(token)


def renewable_lock(client: Redis, user_id: str, ttl: float, wait: float) -> Lock:
    """The Redis lock of one user's work, renewable from the heartbeat thread.

    redis-py keeps a lock's token thread-local by default: renewed from any thread but
    the one that took it, it fails, the lock expires under a long task (an LLM-bound
    consolidation), and a second task of the same user runs alongside it. The token is
    shared instead; each lock object serves one holder.
    """
    lock: Lock = client.lock(
        f"memory-platform:lock:{user_id}",
        timeout=ttl,
        blocking_timeout=wait,
        thread_local=False,
    )
    return lock


@contextmanager
def redis_user_lock(client: Redis, user_id: str, ttl: float, wait: float) -> Iterator[None]:
    """Hold the user's Redis lock (waiting up to ``wait`` seconds, else :class:`UserBusy`),
    the one every worker task of the user holds, for as long as the block runs.

    The lock lives ``ttl`` seconds past its last renewal and a heartbeat thread renews it
    every third of that: a live holder keeps it however long the LLM takes, and a worker
    killed mid-task (SIGKILL, OOM) frees it within ``ttl``.
    """
    with _held("redis", user_id) as already:
        if already:  # this context holds it (a task calling the facade): nothing to take
            yield
            return
        with _holding_redis_lock(client, user_id, ttl, wait):
            yield


@contextmanager
def _holding_redis_lock(client: Redis, user_id: str, ttl: float, wait: float) -> Iterator[None]:
    lock = renewable_lock(client, user_id, ttl, wait)
    with redis_answers(f"taking the lock of user {user_id}"):
        taken = lock.acquire()
    if not taken:
        raise _busy(user_id)
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


_STOPPABLE: ContextVar[tuple[str, Callable[[], bool]] | None] = ContextVar(
    "memory_platform_stoppable", default=None
)
"""The user of the job running in this context, and whether a deletion of theirs asks
it to stop (set by :func:`stoppable`)."""


@contextmanager
def stoppable(user_id: str, asked: Callable[[], bool]) -> Iterator[None]:
    """Run a job of ``user_id`` that stops at its next step once ``asked()`` is true (a
    deletion of the user waits for it): each step calls :func:`stop_if_asked`."""
    token = _STOPPABLE.set((user_id, asked))
    try:
        yield
    finally:
        _STOPPABLE.reset(token)


def stop_if_asked() -> None:
    """Where a job is about to take a long step (an LLM call): raise :class:`JobStopped`
    if its user is being deleted. Outside a job (a search's planner) it does nothing."""
    running = _STOPPABLE.get()
    if running is not None and running[1]():
        raise JobStopped(f"user {running[0]} is being deleted; the job stopped")


def stop_key(user_id: str) -> str:
    """The Redis key that asks the running task of a user to stop: a count of the
    deletions of the user waiting for its lock."""
    return f"memory-platform:stop:{json.dumps(user_id, ensure_ascii=False)}"


@contextmanager
def _asking_to_stop(
    client: Redis, user_id: str, expire_seconds: float
) -> Iterator[Callable[[], None]]:
    """While the block runs, ask the user's running task (on any worker) to stop at its
    next step; yields the withdrawal, to make before the user's lock is let go (a task
    that takes the lock next is not asked), else made on leaving. The request expires by
    itself if its process dies."""
    key = stop_key(user_id)
    with redis_answers(f"asking the jobs of user {user_id} to stop"):
        pipe = client.pipeline()
        pipe.incr(key)
        pipe.expire(key, max(1, int(expire_seconds)))
        pipe.execute()
    pending = [True]

    def withdraw() -> None:
        if not pending:
            return
        pending.clear()
        try:
            if client.decr(key) <= 0:
                client.delete(key)
        except Exception:  # Redis went away: the request expires by itself
            log.warning("could not withdraw the stop request of %s", user_id, exc_info=True)

    try:
        yield withdraw
    finally:
        withdraw()


def stop_requested_in(client: Redis, user_id: str) -> bool:
    """Whether a deletion asks the user's running task to stop; a Redis that does not
    answer asks nothing (the task goes on, as it would have)."""
    try:
        return bool(client.exists(stop_key(user_id)))
    except Exception:
        log.warning("could not read the stop request of %s", user_id, exc_info=True)
        return False


class UserLocks:
    """One lock per user for the jobs of one process, the in-process counterpart of the
    workers' Redis lock: held while a job of the user runs, and by work that must not
    interleave with one (deleting the user). Only the users held are kept."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held: set[str] = set()

    @contextmanager
    def hold(self, user_id: str, wait: float) -> Iterator[None]:
        """Hold the user's lock, waiting up to ``wait`` seconds, else :class:`UserBusy`;
        held already in this context (a job calling the facade), it takes nothing."""
        with _held(f"in-process-{id(self)}", user_id) as already:
            if already:
                yield
                return
            with self._taken(user_id, wait):
                yield

    @contextmanager
    def _taken(self, user_id: str, wait: float) -> Iterator[None]:
        with self._changed:
            if not self._changed.wait_for(lambda: user_id not in self._held, timeout=wait):
                raise _busy(user_id)
            self._held.add(user_id)
        try:
            yield
        finally:
            with self._changed:
                self._held.discard(user_id)
                self._changed.notify_all()


JOB_RECORD_SECONDS = 7 * 24 * 3600
"""How long job owners and idempotency keys are kept (as long as Celery keeps results)."""


def fresh_job_id(prefix: str) -> str:
    """An unguessable job id: knowing a user and a session does not tell it."""
    return f"{prefix}-{secrets.token_hex(16)}"


class JobRunner(Protocol):
    """Runs named jobs and reports on them.

    Every job a user causes records its owner when it is enqueued; status reads on a
    user's behalf check it, so another user cannot see a pending or failed job either.
    """

    def job_id_for(self, prefix: str, key: str) -> str:
        """The job id for an idempotency key: fresh the first time, the same after."""
        ...

    def submit(self, name: str, args: list[Any], job_id: str, owner: str | None = None) -> str: ...

    def owner(self, job_id: str) -> str | None: ...

    def status(self, job_id: str) -> dict[str, Any]: ...

    def health(self) -> dict[str, Any]: ...

    def forget_owner(self, owner: str) -> int:
        """Delete the records of a user's jobs, and the results they keep (a consolidation's
        report quotes memories): the user is deleted. Returns how many were found."""
        ...

    def exclusive(
        self, user_id: str, *, stop_running: bool = False
    ) -> AbstractContextManager[None]:
        """Hold the lock a job of the user holds while it runs, for work that must not
        interleave with one: a deletion of the user waits for a running job, which would
        otherwise write what it made after the deletion, and a job waits for it. Waits
        ``worker.lock_wait`` seconds at most, then raises :class:`UserBusy`.

        With ``stop_running`` (a deletion), the running job is asked to stop at its next
        step (:class:`JobStopped`), so the wait is for one step, not for the whole job: a
        consolidation asking the LLM about hundreds of pairs."""
        ...

    def stop_requested(self, user_id: str) -> bool:
        """Whether a deletion of the user waits for their running job, which should stop
        at its next step (see :meth:`exclusive`)."""
        ...

    def wait(self) -> None:
        """Block until the jobs submitted so far have finished, where they run in this
        process; a runner whose jobs run on workers returns at once."""
        ...

    def close(self) -> None: ...


class InProcessJobs:
    """A two-thread pool running the service calls directly (embedded default), retried
    as the workers retry them (:data:`MAX_RETRIES`).

    A finished job's record (its state, result and owner, and its idempotency key) is kept
    :data:`JOB_RECORD_SECONDS`, as Celery keeps results, then dropped: a server that runs
    for months does not hold every job it ever ran.
    """

    def __init__(
        self,
        handlers: dict[str, Any],
        *,
        max_retries: int = MAX_RETRIES,
        backoff: float = RETRY_BACKOFF,
        keep_seconds: float = JOB_RECORD_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        lock_wait: float = 60.0,
    ) -> None:
        self._handlers = handlers
        self._user_locks, self._lock_wait = UserLocks(), lock_wait
        self._max_retries, self._backoff = max_retries, backoff
        self._keep, self._clock = keep_seconds, clock  # tests pass their own clock
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memory-job")
        self._jobs: dict[str, Future[Any]] = {}
        self._owners: dict[str, str] = {}
        self._keys: dict[str, str] = {}  # idempotency key -> job id
        self._key_of: dict[str, str] = {}  # and back
        self._finished: dict[str, float] = {}  # job id -> when it finished, in that order
        self._forgotten: set[str] = set()  # owners deleted while a job of theirs ran
        self._retrying: dict[str, str] = {}  # job id -> the error it waits to retry after
        self._stopping: Counter[str] = Counter()  # user -> deletions waiting for their job
        self._closing = threading.Event()
        self._lock = threading.Lock()

    def job_id_for(self, prefix: str, key: str) -> str:
        with self._lock:
            job_id = self._keys.get(key)
            if job_id is None:
                job_id = self._keys[key] = fresh_job_id(prefix)
                self._key_of[job_id] = key
            return job_id

    def submit(self, name: str, args: list[Any], job_id: str, owner: str | None = None) -> str:
        with self._lock:
            self._drop_expired()
            if owner is not None:
                self._owners[job_id] = owner
                self._forgotten.discard(owner)
            existing = self._jobs.get(job_id)
            if existing is not None and not existing.done():
                return job_id  # the same job is already queued or running
            self._finished.pop(job_id, None)
            self._jobs[job_id] = self._pool.submit(self._run, job_id, self._handlers[name], args)
        return job_id

    def _finish(self, job_id: str) -> None:
        """Note when a job finished; drop its record at once if its owner was deleted."""
        with self._lock:
            owner = self._owners.get(job_id)
            if owner is None or owner not in self._forgotten:
                self._finished[job_id] = self._clock()
                return
            self._drop([job_id])
            if owner not in self._owners.values():  # the deleted user's last job
                self._forgotten.discard(owner)

    def _drop_expired(self) -> None:
        """Drop the records of jobs finished longer ago than they are kept (lock held):
        the oldest first, as they finished, up to the first one still kept."""
        cutoff = self._clock() - self._keep
        expired = []
        for job_id, at in self._finished.items():
            if at > cutoff:
                break
            expired.append(job_id)
        self._drop(expired)

    def _drop(self, job_ids: list[str]) -> None:
        """Forget jobs: state, result, owner and idempotency key (lock held)."""
        for job_id in job_ids:
            self._jobs.pop(job_id, None)
            self._owners.pop(job_id, None)
            self._finished.pop(job_id, None)
            key = self._key_of.pop(job_id, None)
            if key is not None:
                self._keys.pop(key, None)

    def forget_owner(self, owner: str) -> int:
        with self._lock:
            mine = [job for job, who in self._owners.items() if who == owner]
            done = [job for job in mine if job in self._finished]
            self._drop(done)
            if len(done) < len(mine):  # running: dropped when they finish
                self._forgotten.add(owner)
            return len(mine)

    def _run(self, job_id: str, handler: Any, args: list[Any]) -> Any:
        """Run a job (noting when it finished); an error that may pass is retried after a
        back-off, which closing the runner cuts short (the job then fails with that
        error)."""
        try:
            return self._attempts(job_id, handler, args)
        finally:
            self._finish(job_id)

    @contextmanager
    def exclusive(self, user_id: str, *, stop_running: bool = False) -> Iterator[None]:
        asking = stop_running
        if asking:
            with self._lock:
                self._stopping[user_id] += 1

        def withdraw() -> None:  # before the lock is let go: a job taking it next goes on
            nonlocal asking
            if asking:
                asking = False
                with self._lock:
                    self._stopping[user_id] -= 1
                    if self._stopping[user_id] <= 0:
                        del self._stopping[user_id]

        try:
            with self._user_locks.hold(user_id, self._lock_wait):
                try:
                    yield
                finally:
                    withdraw()
        finally:
            withdraw()

    def stop_requested(self, user_id: str) -> bool:
        """Whether a deletion of the user waits for their running job to stop."""
        with self._lock:
            return self._stopping[user_id] > 0

    def _attempts(self, job_id: str, handler: Any, args: list[Any]) -> Any:
        owner = self.owner(job_id)
        attempt = 0
        while True:
            try:  # a job of a user holds the user's lock, as a worker's task does
                if owner is None:
                    return handler(*args)
                with self.exclusive(owner), stoppable(owner, lambda: self.stop_requested(owner)):
                    if self._deleted(owner):  # since the job was queued: nothing to work on
                        raise JobStopped(f"user {owner} was deleted; the job was dropped")
                    return handler(*args)
            except JobStopped:
                if not self._after_deletion(owner):
                    raise  # its user is deleted: the job is dropped with them
                continue  # the deletion failed: run again, as the job was never stopped
            except MemoryPlatformError as exc:
                if not exc.is_retryable() or attempt == self._max_retries:
                    raise
                delay = min(self._backoff * 2**attempt, RETRY_BACKOFF_MAX)
                log.warning("job %s: %s; retrying in %.0f s", job_id, exc, delay)
                with self._lock:
                    self._retrying[job_id] = str(exc)
                closing = self._closing.wait(delay)
                with self._lock:
                    self._retrying.pop(job_id, None)
                if closing:
                    raise
                attempt += 1

    def _after_deletion(self, owner: str | None) -> bool:
        """Wait until no deletion of ``owner`` asks their job to stop any more; whether the
        user is still there (the deletion failed, or gave up waiting), so that the job a
        deletion stopped runs again rather than being lost. Closing the runner gives up
        the wait (False)."""
        while owner is not None and self.stop_requested(owner):
            if self._closing.wait(0.05):
                return False
        return owner is not None and not self._deleted(owner)

    def _deleted(self, owner: str) -> bool:
        """Whether the user was deleted while a job of theirs was queued or running."""
        with self._lock:
            return owner in self._forgotten

    def owner(self, job_id: str) -> str | None:
        with self._lock:
            return self._owners.get(job_id)

    def status(self, job_id: str) -> dict[str, Any]:
        with self._lock:
            future = self._jobs.get(job_id)
        if future is None:
            return {"job_id": job_id, "state": "UNKNOWN", "result": None, "error": None}
        if not future.done():
            with self._lock:
                waiting = self._retrying.get(job_id)
            if waiting is not None:  # as Celery shows a job between its attempts
                return {"job_id": job_id, "state": "RETRY", "result": None, "error": waiting}
            return {"job_id": job_id, "state": "PENDING", "result": None, "error": None}
        error = future.exception()
        if error is not None:
            return {"job_id": job_id, "state": "FAILURE", "result": None, "error": str(error)}
        return {"job_id": job_id, "state": "SUCCESS", "result": future.result(), "error": None}

    def health(self) -> dict[str, Any]:
        """Always ready: the jobs run on this process's own threads."""
        return {
            "redis": {"ok": True, "detail": "not configured: jobs run in process"},
            "workers": {"ok": True, "mode": "in-process", "count": 1, "names": []},
        }

    def wait(self) -> None:
        with self._lock:
            pending = list(self._jobs.values())
        wait_all(pending)

    def close(self) -> None:
        self._closing.set()  # a job waiting to be retried gives up now
        self._pool.shutdown(wait=True)


def _owner_key(job_id: str) -> str:
    """The Redis key of a job's owner."""
    return f"memory-platform:job-owner:{job_id}"


def _owner_jobs_key(owner: str) -> str:
    """The Redis key of the set of a user's jobs (since 2026-11-27), by which deleting
    the user finds their results."""
    return f"memory-platform:owner-jobs:{json.dumps(owner, ensure_ascii=False)}"


def dropped_job_key(job_id: str) -> str:
    """The Redis key that marks a job whose user was deleted: the result backend
    (:mod:`memory_platform.celery_results`) stores no result of it, however late the job
    finishes; queueing the job id again clears it."""
    return f"memory-platform:job-dropped:{job_id}"


def record_job_owner(client: Redis, job_id: str, owner: str, *, queued: bool = True) -> None:
    """Record whose job it is: status reads on a user's behalf check it, and deleting the
    user finds the job by it (and its result).

    ``queued``: recorded as the job is queued, before it can run; a job id asked for again
    (by a user made again) loses its mark as dropped. Otherwise recorded as a worker starts
    a job queued without a record (by a Celery client in another language), unless it is
    recorded already or marked dropped (its user was deleted since it was queued).
    """
    jobs = _owner_jobs_key(owner)
    if not queued and client.exists(_owner_key(job_id), dropped_job_key(job_id)):
        return
    pipe = client.pipeline()
    pipe.set(_owner_key(job_id), owner, ex=JOB_RECORD_SECONDS)
    pipe.sadd(jobs, job_id)
    pipe.expire(jobs, JOB_RECORD_SECONDS)
    if queued:
        pipe.delete(dropped_job_key(job_id))
    pipe.execute()


class CeleryJobs:
    """Sends jobs to the Celery workers by task name; needs only the broker."""

    def __init__(self, settings: Settings) -> None:
        try:
            from celery import Celery
        except ImportError as exc:
            raise ConfigurationError(
                "redis_url (MEMORY_REDIS_URL) is set but Celery is not installed: "
                "pip install 'memory-platform[workers]', or unset MEMORY_REDIS_URL to run jobs in process"
            ) from exc

        self._app = Celery("memory_platform_client", set_as_current=False)
        self._app.conf.update(celery_config(settings))
        self._worker = settings.worker

    def _redis(self) -> Any:
        return self._app.backend.client  # the result backend's Redis connection

    def job_id_for(self, prefix: str, key: str) -> str:
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        slot = f"memory-platform:job-key:{digest}"
        fresh = fresh_job_id(prefix)
        with redis_answers(f"naming the {prefix} job"):
            if self._redis().set(slot, fresh, nx=True, ex=JOB_RECORD_SECONDS):
                return fresh
            existing = self._redis().get(slot)
        return existing.decode() if existing else fresh

    def submit(self, name: str, args: list[Any], job_id: str, owner: str | None = None) -> str:
        with redis_answers(f"queueing {name}"):
            if owner is not None:
                record_job_owner(self._redis(), job_id, owner)
            self._app.send_task(name, args=args, task_id=job_id)
        return job_id

    def forget_owner(self, owner: str) -> int:
        jobs = _owner_jobs_key(owner)
        with redis_answers("deleting the user's job records"):
            job_ids = [raw.decode() for raw in self._redis().smembers(jobs)]
            if job_ids:  # first: a job still running must not store its result after this
                pipe = self._redis().pipeline()
                for job in job_ids:
                    pipe.set(dropped_job_key(job), 1, ex=JOB_RECORD_SECONDS)
                pipe.execute()
            keys = [self._app.backend.get_key_for_task(job) for job in job_ids]
            keys += [_owner_key(job) for job in job_ids]
            for start in range(0, len(keys), 500):
                self._redis().delete(*keys[start : start + 500])
            self._redis().delete(jobs)
        return len(job_ids)

    @contextmanager
    def exclusive(self, user_id: str, *, stop_running: bool = False) -> Iterator[None]:
        client, worker = self._redis(), self._worker
        with (
            _asking_to_stop(client, user_id, worker.lock_wait + 60)
            if stop_running
            else nullcontext(lambda: None) as withdraw,
            redis_user_lock(client, user_id, worker.lock_timeout, worker.lock_wait),
        ):
            try:
                yield
            finally:
                withdraw()  # before the lock is let go: a task taking it next goes on

    def stop_requested(self, user_id: str) -> bool:
        return stop_requested_in(self._redis(), user_id)

    def owner(self, job_id: str) -> str | None:
        with redis_answers("reading whose job it is"):
            value = self._redis().get(_owner_key(job_id))
        return value.decode() if value else None

    def status(self, job_id: str) -> dict[str, Any]:
        result = self._app.AsyncResult(job_id)
        with redis_answers("reading a job's state"):
            state = str(result.state)
            payload = result.result if state == "SUCCESS" else None
            error = str(result.result) if state == "FAILURE" else None
        return {"job_id": job_id, "state": state, "result": payload, "error": error}

    def health(self, timeout: float = 1.0) -> dict[str, Any]:
        """Whether the broker answers and which workers reply to a ping."""
        try:
            with self._app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, timeout=timeout)
        except Exception as exc:  # any broker failure means "not ready"
            return {
                "redis": {"ok": False, "detail": f"broker unreachable: {exc}"},
                "workers": {"ok": False, "mode": "celery", "count": 0, "names": []},
            }
        replies = self._app.control.ping(timeout=timeout) or []
        names = sorted(name for reply in replies for name in reply)
        return {
            "redis": {"ok": True, "detail": "broker answers"},
            "workers": {"ok": bool(names), "mode": "celery", "count": len(names), "names": names},
        }

    def wait(self) -> None:
        """The jobs run on the workers: poll ``status`` for one of them."""

    def close(self) -> None:
        self._app.close()
