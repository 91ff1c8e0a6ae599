"""The background work through a real redis-server and a real Celery worker process.

The LLM is the scripted OpenAI-compatible stub on 127.0.0.1, so the worker runs the real
``openai`` client. Each test starts its own worker against a fresh SQLite file.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import signal
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis

from memory_platform import (
    MemoryPlatform,
    NotFoundError,
    Settings,
    TransientStorageError,
    UserBusy,
)
from memory_platform.jobs import stop_key
from memory_platform.store.base import EmbeddingSignature
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.store.sqlite_driver import sqlite3
from tests.support.files import stored_bytes
from tests.support.jobs import wait_for
from tests.support.openai_stub import OpenAIStub
from tests.unit.test_in_process_jobs import JUDGED, delete_once_asked_to_stop, staged_moods
from tests.workers.worker import Worker

pytestmark = pytest.mark.workers

GOOD = {
    "knowledge": [
        {
            "content": "The user plans a trip to Chengdu and loves hotpot",
            "type": "WorldModel",
            "score": 80,
        }
    ],
    "memories": [
        {
            "subject": "I",
            "memory_type": "event",
            "topic": "will travel to",
            "object": "Chengdu",
            "importance": 0.6,
        }
    ],
}
MESSAGES = [
    {
        "role": "user",
        "content": "Next week I'm off to Chengdu, can't wait for the hotpot",
        "timestamp": datetime(2025, 11, 5, 9, tzinfo=UTC),
    },
    {
        "role": "assistant",
        "content": "Enjoy the trip!",
        "timestamp": datetime(2025, 11, 5, 9, 1, tzinfo=UTC),
    },
]


def end_session_and_wait_for_the_llm(client: MemoryPlatform, stub: OpenAIStub) -> str:
    """Record alice's session, end it, and return the job id once a worker asks the LLM.

    The deadline only turns a worker that never starts into a failure; it is generous
    because a busy machine loads the model slowly.
    """
    client.add_messages("alice", "s1", MESSAGES)
    job = client.end_session("alice", "s1")
    deadline = time.monotonic() + 180
    while stub.chat_requests() == 0:
        assert time.monotonic() < deadline, "the worker never called the LLM"
        time.sleep(0.2)
    return job


def test_session_end_extracts_knowledge_visible_to_search(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD))
    client.add_messages("alice", "s1", MESSAGES)

    job = client.end_session("alice", "s1")
    status = wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"})

    assert status["state"] == "SUCCESS", status
    assert status["result"]["status"] == "done"
    assert [p.content for p in client.latest_knowledge("alice")] == [
        GOOD["knowledge"][0]["content"]
    ]
    assert client.wait_for_indexing("alice")
    hits = client.search("alice", "when is the Chengdu trip?", kinds=("memory",))
    assert hits[0].id == status["result"]["memory_ids"][0]


def test_the_same_session_ended_twice_is_extracted_once(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD))
    client.add_messages("alice", "s1", MESSAGES)

    first, second = client.end_session("alice", "s1"), client.end_session("alice", "s1")
    assert first == second  # one job id, delivered to the workers twice
    wait_for(lambda: client.job_status(first), {"SUCCESS", "FAILURE"})
    while len(worker.finished_runs(first)) < 2:  # both deliveries, not a guess of how long
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
        time.sleep(0.1)

    runs = worker.finished_runs(first)
    assert sum("'duplicate'" in run for run in runs) == 1, runs  # the second did nothing
    assert stub.chat_requests() == 1
    assert client.stats("alice").knowledge_versions == 1 and client.stats("alice").memories == 1


def test_rate_limits_are_retried_until_done(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    for _ in range(3):  # the client's own 2 retries fail too: the task retries with back-off
        stub.fail(429, "rate limited")
    stub.reply(json.dumps(GOOD))
    client.add_messages("alice", "s1", MESSAGES)

    job = client.end_session("alice", "s1")
    status = wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"})

    assert status["state"] == "SUCCESS", status
    assert stub.chat_requests() == 4
    assert client.stats("alice").knowledge_versions == 1


def test_every_error_that_may_pass_is_retried_by_the_workers() -> None:
    """An error class that says trying again may succeed (``is_retryable``: an LLM, a
    store or a Redis that does not answer, a busy user) is one the tasks retry with
    back-off, not a failed job."""
    import memory_platform.llm  # noqa: F401 - defines LLMUnavailableError
    from memory_platform.errors import MemoryPlatformError
    from workers.tasks import RETRYABLE

    def subclasses(cls: type) -> list[type]:
        return [cls, *itertools.chain.from_iterable(subclasses(c) for c in cls.__subclasses__())]

    may_pass = [
        cls
        for cls in subclasses(MemoryPlatformError)
        if cls.is_retryable is not MemoryPlatformError.is_retryable
    ]
    assert len(may_pass) >= 4
    assert [cls.__name__ for cls in may_pass if not issubclass(cls, RETRYABLE)] == []


def test_garbage_answers_fail_the_job_and_write_nothing(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    for _ in range(3):
        stub.reply("sorry, I cannot produce JSON today")
    client.add_messages("alice", "s1", MESSAGES)

    job = client.end_session("alice", "s1")
    status = wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"})

    assert status["state"] == "FAILURE"
    assert "no valid answer" in status["error"]
    assert client.stats("alice").knowledge_versions == 0 and client.stats("alice").memories == 0


def test_a_killed_worker_task_is_redelivered_and_completes_once(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD), delay=30)  # the worker dies while waiting for this one
    stub.reply(json.dumps(GOOD))
    job = end_session_and_wait_for_the_llm(client, stub)

    worker.kill()
    assert client.job_status(job)["state"] != "SUCCESS"
    worker.start()
    try:
        status = wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"}, timeout=180)
    except AssertionError:
        print(worker.log_tail())
        raise

    assert status["state"] == "SUCCESS", status
    assert stub.chat_requests() == 2
    assert client.stats("alice").knowledge_versions == 1 and client.stats("alice").memories == 1


def test_a_pool_child_killed_mid_task_under_default_settings_finishes_once(
    client: MemoryPlatform, env: dict[str, str], tmp_path: Path, stub: OpenAIStub
) -> None:
    # The shipped defaults: prefork pool, per-user lock timeout and wait as configured.
    assert not any(key.startswith("MEMORY_WORKER__LOCK") for key in env)
    stub.reply(json.dumps(GOOD), delay=60)  # the pool child dies while waiting for this one
    stub.reply(json.dumps(GOOD))
    prefork = Worker(env, tmp_path / "prefork.log", pool="prefork")
    prefork.start()
    try:
        job = end_session_and_wait_for_the_llm(client, stub)
        children = prefork.pool_children()
        assert children, "the prefork pool has no children"
        for pid in children:  # the one holding alice's lock dies without releasing it
            os.kill(pid, signal.SIGKILL)

        status = wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"}, timeout=120)
        if status["state"] != "SUCCESS":
            print(prefork.log_tail())
    finally:
        prefork.stop()

    assert status["state"] == "SUCCESS", status
    assert stub.chat_requests() == 2  # the killed attempt and the redelivered one
    stats = client.stats("alice")
    assert stats.knowledge_versions == 1 and stats.memories == 1


def test_concurrent_consolidations_of_one_user_are_serialised(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    for _ in range(200):  # every causal / contradiction judgement: "no"
        stub.reply(json.dumps({"causal": False, "contradicts": False}))
    for topic in ("coffee", "Coffee", "tea", "jazz", "running shoes", "running shoe"):
        client.create_memory("alice", subject="I", memory_type="fact", topic="likes", object=topic)

    jobs = [client.enqueue_consolidation("alice") for _ in range(2)]
    results = [
        wait_for(lambda j=j: client.job_status(j), {"SUCCESS", "FAILURE"})["result"] for j in jobs
    ]

    assert sorted(r["memories"] for r in results) == [0, 6]  # the second found nothing left
    # every run the worker finished (a redelivered copy included) held the user's lock:
    # none overlaps another
    runs = sorted(
        (
            ast.literal_eval(line.split("s: ", 1)[1])
            for job in jobs
            for line in worker.finished_runs(job)
        ),
        key=lambda r: r["started_at"],
    )
    assert len(runs) >= 2
    for before, after in itertools.pairwise(runs):
        assert before["finished_at"] <= after["started_at"], runs
    assert sum(run["memories"] for run in runs) == 6  # consolidated once
    assert client.stats("alice").staged == 0


def test_deleting_a_user_deletes_their_job_results_and_no_one_elses(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    """A job's result stays in Redis for a week and may quote memories (a consolidation's
    conflicts); deleting the user deletes their results and records of whose jobs they
    were, and another user's stay."""
    for _ in range(20):
        stub.reply(json.dumps({"causal": False, "contradicts": False}))
    for user in ("carol", "dave"):
        for topic in ("likes", "hates"):
            client.create_memory(user, subject="I", memory_type="opinion", topic=topic,
                                 object="black coffee")  # fmt: skip
    jobs = {user: client.enqueue_consolidation(user) for user in ("carol", "dave")}
    for user, job in jobs.items():
        status = wait_for(lambda j=job, u=user: client.job_status(j, u), {"SUCCESS", "FAILURE"})
        assert status["state"] == "SUCCESS" and "black coffee" in json.dumps(status["result"])
    results = redis.Redis.from_url(client.settings.redis_url or "")

    client.delete_user("carol")

    assert not results.exists(f"celery-task-meta-{jobs['carol']}")
    with pytest.raises(NotFoundError):
        client.job_status(jobs["carol"], "carol")
    assert results.exists(f"celery-task-meta-{jobs['dave']}")
    assert client.job_status(jobs["dave"], "dave")["state"] == "SUCCESS"


def test_deleting_a_user_waits_for_a_task_of_theirs_that_a_worker_runs(
    env: dict[str, str], client: MemoryPlatform, worker: Worker, stub: OpenAIStub,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A worker's extraction waiting for the LLM holds the user's Redis lock, and so does
    a deletion of the user (in the API's process): deleted under the task, the session
    would have come back as the memories the task wrote after. Here the deletion does not
    wait (``lock_wait`` 0) and deletes nothing; once the task is done it takes all."""
    release = threading.Event()
    stub.reply(json.dumps(GOOD), hold=release)
    monkeypatch.setenv("MEMORY_WORKER__LOCK_WAIT", "0")
    impatient = MemoryPlatform(Settings(_env_file=None), embedder=client.embedder)
    try:
        client.add_messages("alice", "s1", MESSAGES)
        job = client.end_session("alice", "s1")
        assert stub.holding.wait(180)  # the worker's task is asking the LLM
        try:
            with pytest.raises(UserBusy, match="try again"):
                impatient.delete_user("alice")
            assert impatient.stats("alice").episodes == len(MESSAGES)  # nothing deleted
        finally:
            release.set()
        status = wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"})
        assert status["state"] == "SUCCESS" and status["result"]["status"] == "done", status

        impatient.delete_user("alice")
        stats = impatient.stats("alice")
        assert (stats.memories, stats.episodes, stats.knowledge_versions) == (0, 0, 0)
    finally:
        impatient.close()


def test_deleting_a_user_stops_a_workers_task_of_theirs_at_its_next_llm_call(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    """A worker's consolidation asks the LLM about pair after pair; a deletion of its user
    (in the API's process) waiting for the user's lock asks it, through Redis, to stop,
    and it stops at its next call instead of asking about every pair left: the deletion
    waits for one call, not the whole task."""
    for _ in range(40):
        stub.reply(JUDGED)
    staged_moods(client, "control")
    client.consolidate("control")  # in this process: how many calls the whole job makes
    whole_job = stub.chat_requests()
    assert whole_job >= 3

    stub.replies.clear()
    release = threading.Event()
    stub.reply(JUDGED, hold=release)
    for _ in range(40):
        stub.reply(JUDGED)
    staged_moods(client, "alice")
    stub.holding.clear()
    job = client.enqueue_consolidation("alice")
    assert stub.holding.wait(180)  # the worker's task asks about its first pair
    results = redis.Redis.from_url(client.settings.redis_url or "")

    def asked() -> bool:  # the deletion's request, in Redis for every worker to read
        return bool(results.exists(stop_key("alice")))

    assert delete_once_asked_to_stop(client, "alice", asked, release) is None

    # the stopped task is queued again, to run once the deletion is over: it finds its
    # user deleted and runs nothing (its "dropped" answer is not stored either)
    assert finished_runs_of(worker, job) == 1
    assert stub.chat_requests() == whole_job + 1  # the held call, and no other
    stats = client.stats("alice")
    assert (stats.memories, stats.episodes) == (0, 0)
    assert not results.exists(stop_key("alice"))  # the request went with the deletion
    assert not results.exists(f"celery-task-meta-{job}")
    assert client.stats("control").memories == 5


def finished_runs_of(worker: Worker, job: str, deadline: float = 180) -> int:
    """How many runs of the job succeeded, once one has (the deadline only turns a task
    that never finishes into a failure)."""
    give_up = time.monotonic() + deadline
    while not worker.finished_runs(job):
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
        assert time.monotonic() < give_up, worker.log_tail()
        time.sleep(0.1)
    return len(worker.finished_runs(job))


def test_a_task_queued_before_its_users_deletion_runs_nothing(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    """Alice's consolidation is queued while her deletion holds her lock; the deletion
    marks her jobs dropped and lets go. The worker's task then runs nothing (no LLM call,
    nothing written) and its answer is not stored."""
    staged_moods(client, "alice")
    results = redis.Redis.from_url(client.settings.redis_url or "")
    with client._jobs.exclusive("alice", stop_running=True):  # as delete_user holds it
        job = client.enqueue_consolidation("alice")
        client.store.delete_user("alice")
        client._jobs.forget_owner("alice")
    assert finished_runs_of(worker, job) == 1
    assert "'dropped'" in worker.finished_runs(job)[0]
    assert stub.chat_requests() == 0
    assert client.stats("alice").memories == 0
    assert not results.exists(f"celery-task-meta-{job}")


def test_a_workers_task_stopped_by_a_deletion_that_failed_runs_again_and_finishes(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    """A deletion of alice asks the worker's consolidation to stop, and it stops at its
    next LLM call; the deletion then finds the file locked by another writer past its busy
    wait and deletes nothing. The task is queued again and, once the deletion is over,
    consolidates alice's memories: nothing is lost to a deletion that did not happen."""
    release = threading.Event()
    stub.reply(JUDGED, hold=release)
    for _ in range(80):
        stub.reply(JUDGED)
    staged_moods(client, "alice")
    job = client.enqueue_consolidation("alice")
    assert stub.holding.wait(180)  # the worker's task asks about its first pair
    settings = client.settings
    signature = EmbeddingSignature(model=settings.embedding_model, dimension=settings.embedding_dim)
    impatient = MemoryPlatform(  # deletes through a store that waits 0.1 s for the file
        settings,
        embedder=client.embedder,
        store=SQLiteGraphStore(settings.sqlite_path, signature, busy_timeout_ms=100),
    )
    writer = sqlite3.connect(settings.sqlite_path or "", isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # another writer holds the file
        results = redis.Redis.from_url(settings.redis_url or "")
        failed = delete_once_asked_to_stop(
            impatient, "alice", lambda: bool(results.exists(stop_key("alice"))), release
        )
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        impatient.close()
    assert isinstance(failed, TransientStorageError) and "busy" in str(failed)

    status = wait_for(lambda: client.job_status(job, "alice"), {"SUCCESS", "FAILURE"}, 180)
    assert status["state"] == "SUCCESS" and status["result"]["memories"] == 5, status
    stats = client.stats("alice")
    assert (stats.memories, stats.staged) == (5, 0)


def test_a_deleted_users_results_of_jobs_beat_queued_are_deleted_too(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    """Beat's consolidation of every user queues one job per user; each is recorded as
    the user's, as the platform's own jobs are, so deleting the user deletes its result,
    which quotes the memories in conflict (it was kept a week)."""
    from memory_platform.jobs import TASK_CONSOLIDATE, TASK_CONSOLIDATE_ALL, fresh_job_id

    for _ in range(20):
        stub.reply(json.dumps({"causal": False, "contradicts": False}))
    for topic in ("likes", "hates"):
        client.create_memory("carol", subject="I", memory_type="opinion", topic=topic,
                             object="black coffee")  # fmt: skip
    job = client._jobs.submit(TASK_CONSOLIDATE_ALL, [], fresh_job_id("consolidate-all"))
    assert wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"})["result"] == {
        "queued": 1
    }
    while worker.succeeded(TASK_CONSOLIDATE) < 1:  # carol's, not a guess of how long
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
        time.sleep(0.1)
    results = redis.Redis.from_url(client.settings.redis_url or "")

    def quoting() -> list[bytes]:
        return [key for key in results.scan_iter("celery-task-meta-*")
                if b"black coffee" in (results.get(key) or b"")]  # fmt: skip

    assert quoting()
    client.delete_user("carol")
    assert quoting() == []


def test_a_job_queued_by_another_client_is_recorded_by_the_worker_as_its_users(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    """A chat backend in another language queues the task's JSON straight to Redis, with
    no record of whose job it is: the worker records it as it starts, so the user's
    deletion deletes its result (a consolidation's report quotes memories)."""
    from celery import Celery

    from memory_platform.jobs import TASK_CONSOLIDATE

    for _ in range(20):
        stub.reply(json.dumps({"causal": False, "contradicts": False}))
    for topic in ("likes", "hates"):
        client.create_memory("erin", subject="I", memory_type="opinion", topic=topic,
                             object="black coffee")  # fmt: skip
    other = Celery("another-backend", broker=client.settings.redis_url)
    other.send_task(TASK_CONSOLIDATE, args=["erin"], task_id="sent-by-another-client",
                    queue="consolidation")  # fmt: skip
    status = wait_for(lambda: client._jobs.status("sent-by-another-client"), {"SUCCESS", "FAILURE"})
    assert status["state"] == "SUCCESS" and "black coffee" in json.dumps(status["result"])
    assert client._jobs.owner("sent-by-another-client") == "erin"

    client.delete_user("erin")
    assert client._jobs.status("sent-by-another-client")["state"] == "PENDING"  # no result
    assert client._jobs.owner("sent-by-another-client") is None


def test_beat_schedules_consolidation_that_a_worker_runs(
    env: dict[str, str], client: MemoryPlatform, worker: Worker, tmp_path
) -> None:
    client.execute_tool(
        "alice",
        "create_memory",
        {"subject": "我", "memory_type": "观点", "topic": "喜欢", "object": "Coffee"},
    )
    assert client.stats("alice").staged == 1
    beat = Worker(
        {**env, "MEMORY_CONSOLIDATION__INTERVAL_HOURS": "0.0005"}, tmp_path / "beat.log", "beat"
    )
    beat.start()  # consolidate_all every 1.8 s
    try:
        deadline = time.monotonic() + 90
        while client.stats("alice").staged:
            assert time.monotonic() < deadline, beat.log_tail() + worker.log_tail()
            time.sleep(0.5)
    finally:
        beat.stop()
    assert "memory.consolidate_all" in beat.log_tail()


def test_daily_maintenance_is_queued_for_every_user(client: MemoryPlatform, worker: Worker) -> None:
    """Beat's daily task queues one maintenance per user of the store (read a page of
    users at a time) and the worker runs each; a turn deleted plainly before, with no
    merge of the full-text index since, left no word in the embedded store's file."""
    from memory_platform.jobs import TASK_MAINTAIN, TASK_MAINTAIN_ALL, fresh_job_id

    for user in ("alice", "bob", "carol"):
        client.add_episode(user, f"{user} keeps a diary")
    [gone] = client.add_episodes("alice", [{"text": "a note on zqxjvarkelmundo"}])
    client.delete_episodes("alice", [gone])  # a plain delete, not a forget
    job = client._jobs.submit(TASK_MAINTAIN_ALL, [], fresh_job_id("maintain"))
    status = wait_for(lambda: client.job_status(job), {"SUCCESS", "FAILURE"})

    assert status["state"] == "SUCCESS", status
    assert status["result"] == {"queued": 3}
    while worker.succeeded(TASK_MAINTAIN) < 3:  # each user's, not a guess of how long
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
        time.sleep(0.1)
    client.wait_for_indexing()
    path, conn = client.settings.sqlite_path, client.store._conn()
    while conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]:  # 1: not all of it
        time.sleep(0.05)  # a write of the worker's or this process's is still going on
    stored = stored_bytes(path)
    assert b"varkelmundo" not in stored
