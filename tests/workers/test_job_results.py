"""Job states in a real Redis: a retrying task's late RETRY never hides its finished next attempt.

A task publishes its retry before it records RETRY; with a back-off of 0 s the next attempt
can finish first. These tests write the states in that order (and one write between the
backend's read and its write) and read them back as users do, through ``CeleryJobs``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from celery import states

from memory_platform import Settings
from memory_platform.celery_results import FinishedStateRedisBackend
from memory_platform.jobs import CeleryJobs, record_job_owner

pytestmark = pytest.mark.workers


@pytest.fixture
def jobs(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[CeleryJobs]:
    redis.Redis.from_url(redis_url).flushall()
    monkeypatch.setenv("MEMORY_REDIS_URL", redis_url)
    runner = CeleryJobs(Settings(_env_file=None))
    yield runner
    runner.close()


def backend(jobs: CeleryJobs) -> Any:
    return jobs._app.backend


def test_the_configured_result_backend_is_the_guarded_one(jobs: CeleryJobs) -> None:
    assert isinstance(backend(jobs), FinishedStateRedisBackend)


@pytest.mark.parametrize("final", [states.SUCCESS, states.FAILURE])
def test_a_late_retry_does_not_replace_a_finished_attempt(jobs: CeleryJobs, final: str) -> None:
    results = backend(jobs)
    results.store_result("job-1", None, states.STARTED)
    if final == states.SUCCESS:
        results.mark_as_done("job-1", {"status": "done"})
    else:
        results.mark_as_failure("job-1", ValueError("the LLM gave no valid answer"))

    results.mark_as_retry("job-1", RuntimeError("rate limited"))  # the first attempt, late

    assert jobs.status("job-1")["state"] == final


def test_a_retry_of_a_running_job_is_still_shown(jobs: CeleryJobs) -> None:
    results = backend(jobs)
    results.store_result("job-2", None, states.STARTED)

    results.mark_as_retry("job-2", RuntimeError("rate limited"))

    assert jobs.status("job-2")["state"] == states.RETRY


def test_a_success_written_between_the_read_and_the_write_wins(
    jobs: CeleryJobs, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next attempt finishes while the late RETRY is being written: the write is
    retried on the new value (a WATCHed transaction), not written over it."""
    results = backend(jobs)
    results.store_result("job-3", None, states.STARTED)
    other_worker = FinishedStateRedisBackend(app=jobs._app, url=redis_url)
    decode = results.decode
    interleaved: list[bool] = []

    def decode_then_let_the_next_attempt_finish(payload: Any) -> Any:
        meta = decode(payload)
        if not interleaved:
            interleaved.append(True)
            other_worker.mark_as_done("job-3", {"status": "done"})
        return meta

    monkeypatch.setattr(results, "decode", decode_then_let_the_next_attempt_finish)
    results.mark_as_retry("job-3", RuntimeError("rate limited"))

    assert interleaved  # the write really ran between the read and the set
    assert jobs.status("job-3")["state"] == states.SUCCESS


@pytest.mark.parametrize("final", [states.SUCCESS, states.FAILURE, states.RETRY])
def test_a_job_still_running_when_its_user_is_deleted_stores_no_result(
    jobs: CeleryJobs, final: str
) -> None:
    """Deleting a user deletes their jobs' results, but a job that was running stores its
    result when it returns, after the deletion (a consolidation's report quotes memories):
    it is dropped. Another user's job is stored as ever, and the same job id queued again
    for a user made again stores its result."""
    results, client = backend(jobs), jobs._redis()
    for job, user in (("job-carol", "carol"), ("job-dave", "dave")):
        record_job_owner(client, job, user)
        results.store_result(job, None, states.STARTED)
    jobs.forget_owner("carol")

    def finish(job: str) -> None:
        if final == states.SUCCESS:
            results.mark_as_done(job, {"conflicts": ["black coffee"]})
        elif final == states.FAILURE:
            results.mark_as_failure(job, ValueError("black coffee"))
        else:
            results.mark_as_retry(job, RuntimeError("black coffee"))

    finish("job-carol")
    finish("job-dave")
    assert not client.exists(results.get_key_for_task("job-carol"))
    assert jobs.status("job-dave")["state"] == final

    record_job_owner(client, "job-carol", "carol")  # carol again, the same session ended
    finish("job-carol")
    assert jobs.status("job-carol")["state"] == final


def test_a_dead_workers_hold_on_the_task_restore_sweep_expires_soon(jobs: CeleryJobs) -> None:
    # kombu reads these options by name and ignores ones it does not know: check what the
    # Redis channel of a real connection was given
    settings = Settings(_env_file=None)
    with jobs._app.connection_for_write() as connection:
        channel: Any = connection.default_channel
        assert channel.visibility_timeout == settings.worker.visibility_timeout
        assert channel.unacked_restore_interval == settings.worker.restore_interval
        # a worker killed inside a sweep holds its mutex this long (kombu's default is 300 s)
        assert channel.unacked_mutex_expire <= 30
        held = channel.client.lock(channel.unacked_mutex_key, timeout=channel.unacked_mutex_expire)
        assert held.acquire(blocking=False)  # and then the holder dies without releasing it
        assert 0 < channel.client.ttl(channel.unacked_mutex_key) <= 30
