"""The embedded default's job runner retries what may pass, as the Celery workers do."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_platform import (
    InvalidInputError,
    MemoryPlatform,
    Settings,
    TransientStorageError,
    UserBusy,
)
from memory_platform.builder import build_memory
from memory_platform.embeddings import Embedder
from memory_platform.errors import JobStopped
from memory_platform.jobs import InProcessJobs, UserLocks, stop_if_asked, stoppable
from memory_platform.llm import LLMUnavailableError
from memory_platform.store import open_store
from memory_platform.store.base import EmbeddingSignature
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.store.sqlite_driver import sqlite3
from memory_platform.tools.arguments import CreateMemoryArgs
from memory_platform.transfer import dump_line, export_user, import_records, parse_lines
from tests.support.jobs import wait_for, wait_until
from tests.support.openai_stub import OpenAIStub
from tests.unit.test_extraction import GOOD, MESSAGES, USER


def failing(times: int, error: Exception) -> tuple[Callable[[], str], list[int]]:
    """A job that raises ``error`` the first ``times`` calls, then returns ``"done"``."""
    calls: list[int] = []

    def job() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "done"

    return job, calls


def run(job: Callable[[], Any], **options: Any) -> dict[str, Any]:
    jobs = InProcessJobs({"t": job}, **options)
    try:
        job_id = jobs.submit("t", [], "job-1")
        jobs.wait()
        return jobs.status(job_id)
    finally:
        jobs.close()


def test_an_error_that_may_pass_is_retried_until_the_job_is_done() -> None:
    job, calls = failing(2, LLMUnavailableError("LLM endpoint unavailable: 429"))
    status = run(job, backoff=0.001)
    assert (status["state"], status["result"], len(calls)) == ("SUCCESS", "done", 3)


def test_an_error_that_will_not_pass_fails_the_job_at_once() -> None:
    job, calls = failing(1, InvalidInputError("must not be empty", "text"))
    status = run(job, backoff=0.001)
    assert status["state"] == "FAILURE" and "must not be empty" in status["error"]
    assert len(calls) == 1


def test_retries_stop_after_the_last_one() -> None:
    job, calls = failing(10, LLMUnavailableError("LLM endpoint unavailable: 503"))
    status = run(job, backoff=0.001, max_retries=2)
    assert status["state"] == "FAILURE" and "503" in status["error"]
    assert len(calls) == 3


def test_a_job_waiting_to_be_retried_says_so_and_closing_ends_the_wait() -> None:
    job, calls = failing(1, LLMUnavailableError("LLM endpoint unavailable: timeout"))
    jobs = InProcessJobs({"t": job}, backoff=3600)
    job_id = jobs.submit("t", [], "job-1")
    waiting = wait_for(lambda: jobs.status(job_id), {"RETRY", "SUCCESS", "FAILURE"})
    assert waiting["state"] == "RETRY" and "timeout" in waiting["error"]
    jobs.close()  # an hour's back-off left: closing gives up on it now
    status = jobs.status(job_id)
    assert status["state"] == "FAILURE" and "timeout" in status["error"] and len(calls) == 1


@pytest.fixture
def mp(tmp_path: Path, embedder: Embedder, stub: OpenAIStub) -> Iterator[MemoryPlatform]:
    settings = Settings(sqlite_path=tmp_path / "m.db", llm_base_url=stub.base_url, _env_file=None)
    with MemoryPlatform(settings, embedder=embedder) as platform:
        yield platform


@pytest.mark.slow
def test_a_session_ended_while_the_llm_is_rate_limited_is_extracted_later(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """Through the real openai client: its own two retries meet 429 too, the job waits
    and runs again (the first back-off, 2 s), and the session is extracted once."""
    for _ in range(3):
        stub.fail(429, "rate limited")
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    mp.add_messages(USER, "s1", MESSAGES)
    job = mp.end_session(USER, "s1")
    status = wait_for(lambda: mp.job_status(job))
    assert status["state"] == "SUCCESS" and status["result"]["status"] == "done", status
    assert stub.chat_requests() == 4 and mp.stats(USER).knowledge_versions == 1


def test_a_user_is_not_deleted_under_a_job_that_would_write_after_the_deletion(
    tmp_path: Path, embedder: Embedder, stub: OpenAIStub
) -> None:
    """An extraction waiting for the LLM holds its user's lock: deleting the user then
    waits for it (here not at all, ``lock_wait`` 0) and deletes nothing, where it had
    deleted the session under the job, which then wrote the memories it extracted for a
    deleted user. Once the job is done the deletion takes everything, its work too."""
    settings = Settings(
        sqlite_path=tmp_path / "m.db",
        llm_base_url=stub.base_url,
        worker={"lock_wait": 0},
        _env_file=None,
    )
    release = threading.Event()
    stub.reply(json.dumps(GOOD, ensure_ascii=False), hold=release)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        mp.add_messages(USER, "s1", MESSAGES)
        job = mp.end_session(USER, "s1")
        assert stub.holding.wait(180)  # the extraction is asking the LLM
        try:
            with pytest.raises(UserBusy, match="try again"):
                mp.delete_user(USER)
            assert mp.stats(USER).episodes == len(MESSAGES)  # nothing was deleted
        finally:
            release.set()
        status = wait_for(lambda: mp.job_status(job))
        assert status["state"] == "SUCCESS" and status["result"]["status"] == "done", status
        assert mp.stats(USER).memories > 0

        mp.delete_user(USER)
        stats = mp.stats(USER)
        assert (stats.memories, stats.episodes, stats.knowledge_versions) == (0, 0, 0)


def test_a_users_lock_is_held_against_that_user_alone_and_passed_on_when_let_go() -> None:
    locks = UserLocks()
    taken = threading.Event()
    with locks.hold("alice", wait=0):
        busy: list[bool] = []

        def elsewhere() -> None:  # another thread: a job, a deletion
            try:
                with locks.hold("alice", wait=0):
                    busy.append(False)
            except UserBusy:
                busy.append(True)

        other = threading.Thread(target=elsewhere)
        other.start()
        other.join(180)
        assert busy == [True]
        with locks.hold("alice", wait=0):  # held by this context already (a job calling
            pass  # the facade's consolidate): taken again at once, not waited for
        with locks.hold("bob", wait=0):  # another user's work goes on
            pass

        def next_holder() -> None:
            with locks.hold("alice", wait=60):
                taken.set()

        waiter = threading.Thread(target=next_holder)
        waiter.start()
    waiter.join(180)
    assert taken.is_set()
    with locks.hold("alice", wait=0):  # and let go again
        pass


class Clock:
    """A clock the test moves (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_finished_jobs_record_is_kept_for_its_time_then_dropped() -> None:
    """As Celery keeps results a week, the embedded runner keeps a finished job's state,
    result, owner and idempotency key for ``keep_seconds``, then drops them: a server
    running for months does not hold every job it ran."""
    clock = Clock()
    jobs = InProcessJobs({"t": lambda: "done"}, keep_seconds=100, clock=clock)
    try:
        first = jobs.job_id_for("x", "session-1")
        jobs.submit("t", [], first, owner="alice")
        jobs.wait()
        clock.now = 60
        second = jobs.job_id_for("x", "session-2")
        jobs.submit("t", [], second, owner="alice")
        jobs.wait()
        assert jobs.status(first)["state"] == "SUCCESS"  # 60 s old, kept

        clock.now = 130  # the first finished 130 s ago, the second 70 s ago
        jobs.submit("t", [], jobs.job_id_for("x", "session-3"))
        jobs.wait()
        assert jobs.status(first)["state"] == "UNKNOWN" and jobs.owner(first) is None
        assert jobs.job_id_for("x", "session-1") != first  # its key went with it
        assert jobs.status(second)["state"] == "SUCCESS" and jobs.owner(second) == "alice"
        assert jobs.job_id_for("x", "session-2") == second
    finally:
        jobs.close()


def test_forgetting_an_owner_drops_their_jobs_records_and_no_one_elses() -> None:
    """A deleted user's finished jobs go at once (their results may quote memories); one
    still running goes when it finishes; another user's stay."""
    gate = threading.Event()
    jobs = InProcessJobs({"t": lambda: "report", "slow": gate.wait})
    try:
        done = jobs.submit("t", [], "done-1", owner="alice")
        theirs = jobs.submit("t", [], "theirs-1", owner="bob")
        jobs.wait()
        running = jobs.submit("slow", [], "running-1", owner="alice")

        assert jobs.forget_owner("alice") == 2
        assert jobs.status(done)["state"] == "UNKNOWN" and jobs.owner(done) is None
        assert jobs.status(running)["state"] == "PENDING"
        gate.set()
        jobs.wait()
        assert jobs.status(running)["state"] == "UNKNOWN" and jobs.owner(running) is None
        assert jobs.status(theirs)["state"] == "SUCCESS" and jobs.owner(theirs) == "bob"
        assert jobs.forget_owner("alice") == 0
    finally:
        gate.set()
        jobs.close()


def test_a_job_submitted_again_is_one_job_while_it_runs_and_runs_anew_after() -> None:
    """An idempotency key's job id submitted while its job runs is that job; submitted
    after it finished, it runs again, and its record is not dropped while it runs for
    having finished long ago the first time."""
    gate = threading.Event()
    runs: list[int] = []

    def job() -> str:
        runs.append(1)
        gate.wait()
        return "done"

    clock = Clock()
    jobs = InProcessJobs({"t": job, "quick": lambda: "done"}, keep_seconds=100, clock=clock)
    try:
        jobs.submit("t", [], "job-1")
        jobs.submit("t", [], "job-1")  # running: the same job
        gate.set()
        jobs.wait()
        assert len(runs) == 1

        gate.clear()
        clock.now = 50
        jobs.submit("t", [], "job-1")  # finished: it runs again
        clock.now = 120  # 120 s after its first run finished
        jobs.submit("quick", [], "job-2")  # drops what has been kept long enough
        assert jobs.status("job-1")["state"] == "PENDING"
        gate.set()
        jobs.wait()
        assert len(runs) == 2 and jobs.status("job-1")["state"] == "SUCCESS"
    finally:
        gate.set()
        jobs.close()


def test_a_job_of_a_user_created_again_after_their_deletion_runs() -> None:
    """A deletion drops the deleted user's jobs, those still running when they end; a job
    submitted for the same user id afterwards is the new user's, and runs."""
    gate = threading.Event()
    runs: list[str] = []
    jobs = InProcessJobs({"slow": gate.wait, "t": runs.append})
    try:
        jobs.submit("slow", [], "old-1", owner="alice")
        assert jobs.forget_owner("alice") == 1  # deleted while it runs
        new = jobs.submit("t", ["new"], "new-1", owner="alice")
        gate.set()
        jobs.wait()
        assert runs == ["new"] and jobs.status(new)["state"] == "SUCCESS"
    finally:
        gate.set()
        jobs.close()


JUDGED = json.dumps({"causal": False, "contradicts": False})
"""A judgement of the consolidation's LLM: neither a cause nor a conflict."""


def staged_moods(mp: MemoryPlatform, user: str) -> None:
    """Memories of one session close in time, whose pairs the consolidation asks the LLM
    about one by one (a cause? a conflict?)."""
    for topic, thing in [("likes", "tea"), ("hates", "tea"), ("likes", "rain"),
                         ("hates", "rain"), ("misses", "home")]:  # fmt: skip
        mp.create_memory(user, subject="I", memory_type="opinion", topic=topic, object=thing,
                         session_id="s1")  # fmt: skip


def delete_once_asked_to_stop(
    mp: MemoryPlatform, user: str, asked: Callable[[], bool], release: threading.Event
) -> Exception | None:
    """Delete ``user`` while the LLM holds a call of their job: once the deletion has asked
    the job to stop (``asked()``), let the call go; the deletion then finishes. Returns
    what the deletion raised, if anything."""
    raised: list[Exception] = []

    def delete() -> None:
        try:
            mp.delete_user(user)
        except Exception as exc:
            raised.append(exc)

    deletion = threading.Thread(target=delete)
    try:
        deletion.start()
        assert wait_until(asked, timeout=180)
    finally:
        release.set()
    deletion.join(180)
    assert not deletion.is_alive()
    return raised[0] if raised else None


def test_deleting_a_user_stops_their_running_job_at_its_next_llm_call(
    tmp_path: Path, embedder: Embedder, stub: OpenAIStub
) -> None:
    """A consolidation asks the LLM about pair after pair; a deletion of its user waiting
    for it asks it to stop, and it stops at its next call (``JobStopped``) instead of
    asking about every pair left, so the deletion waits for one call, not the job. What
    the job wrote before goes with the user."""
    settings = Settings(sqlite_path=tmp_path / "m.db", llm_base_url=stub.base_url, _env_file=None)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        for _ in range(40):
            stub.reply(JUDGED)
        staged_moods(mp, "control")
        mp.consolidate("control")
        whole_job = stub.chat_requests()
        assert whole_job >= 3  # the pairs a consolidation of these memories asks about

        stub.replies.clear()
        release = threading.Event()
        stub.reply(JUDGED, hold=release)
        for _ in range(40):
            stub.reply(JUDGED)
        staged_moods(mp, USER)
        stub.holding.clear()
        mp.enqueue_consolidation(USER)
        assert stub.holding.wait(180)  # the job is asking about its first pair
        assert (
            delete_once_asked_to_stop(mp, USER, lambda: mp._jobs.stop_requested(USER), release)
            is None
        )

        assert stub.chat_requests() == whole_job + 1  # the held call, and no other
        stats = mp.stats(USER)
        assert (stats.memories, stats.episodes) == (0, 0)
        assert mp.stats("control").memories == 5


def delete_from_pool(
    jobs: InProcessJobs,
    user: str,
    go: threading.Event,
    deletion: Callable[[], None],
    meanwhile: Callable[[], None] = lambda: None,
) -> Exception | None:
    """Run ``deletion`` as a deletion of ``user`` runs (holding the user's lock, asking
    their running job to stop) while the job waits for ``go``; once the deletion asks,
    run ``meanwhile`` and let the job go on. Returns what the deletion raised, if anything."""
    raised: list[Exception] = []

    def delete() -> None:
        try:
            with jobs.exclusive(user, stop_running=True):
                deletion()
        except Exception as exc:
            raised.append(exc)

    thread = threading.Thread(target=delete)
    thread.start()
    try:
        assert wait_until(lambda: jobs.stop_requested(user), timeout=180)
        meanwhile()
    finally:
        go.set()
    thread.join(180)
    assert not thread.is_alive()
    return raised[0] if raised else None


def test_a_stop_request_reaches_the_job_of_its_user_alone() -> None:
    """Deleting alice stops alice's running job at its next step, and the job goes with
    her (it is not run again: there is nothing left to work on); bob's job, running
    beside it, and code outside any job (a search asking its planner) go on."""
    go = threading.Event()
    started = {"alice": threading.Event(), "bob": threading.Event()}
    runs: Counter[str] = Counter()

    def step(user: str) -> str:
        runs[user] += 1
        started[user].set()
        go.wait(180)
        stop_if_asked()  # where a job would ask the LLM
        return "done"

    jobs = InProcessJobs({"t": step})
    try:
        ids = {user: jobs.submit("t", [user], f"job-{user}", owner=user) for user in started}
        assert all(event.wait(180) for event in started.values())

        def meanwhile() -> None:
            assert not jobs.stop_requested("bob")
            stop_if_asked()  # outside a job: nothing to stop

        # as MemoryPlatform.delete_user does: forget the user's jobs under the lock
        assert delete_from_pool(jobs, "alice", go, lambda: jobs.forget_owner("alice"),
                                meanwhile) is None  # fmt: skip
        jobs.wait()
        alice, bob = jobs.status(ids["alice"]), jobs.status(ids["bob"])
        assert alice["state"] == "UNKNOWN"  # her job's record went with her
        assert bob["state"] == "SUCCESS" and bob["result"] == "done"
        assert runs == {"alice": 1, "bob": 1}
        assert not jobs.stop_requested("alice")  # the request went with the deletion
    finally:
        jobs.close()


def test_a_job_stopped_by_a_deletion_that_fails_runs_again_once_it_is_over() -> None:
    """A deletion asks alice's running job to stop, and the job stops at its next step;
    the deletion then fails (the store did not answer) and deleted nothing. The job is
    not lost: once the deletion is over it runs again, and finishes."""
    go, started = threading.Event(), threading.Event()
    runs: list[int] = []

    def step() -> str:
        runs.append(1)
        started.set()
        go.wait(180)
        stop_if_asked()
        return "done"

    jobs = InProcessJobs({"t": step})
    try:
        job = jobs.submit("t", [], "job-1", owner="alice")
        assert started.wait(180)

        def failing_deletion() -> None:
            raise TransientStorageError("database busy: the deletion wrote nothing")

        failed = delete_from_pool(jobs, "alice", go, failing_deletion)
        jobs.wait()
        assert isinstance(failed, TransientStorageError)
        status = jobs.status(job)
        assert (status["state"], status["result"]) == ("SUCCESS", "done"), status
        assert len(runs) == 2  # stopped once, then run whole
    finally:
        jobs.close()


def test_a_consolidation_stopped_by_a_deletion_that_failed_is_not_lost(
    tmp_path: Path, embedder: Embedder, stub: OpenAIStub
) -> None:
    """The user's consolidation asks the LLM about pair after pair; a deletion of the user
    asks it to stop, and it stops. The deletion then finds the file locked by another
    writer past its busy wait and deletes nothing (``TransientStorageError``). The job
    runs again once the deletion is over and consolidates the memories: the user's
    memories are all there, consolidated, none left staged."""
    settings = Settings(sqlite_path=tmp_path / "m.db", llm_base_url=stub.base_url, _env_file=None)
    signature = EmbeddingSignature(model=settings.embedding_model, dimension=settings.embedding_dim)
    store = SQLiteGraphStore(settings.sqlite_path, signature, busy_timeout_ms=100)
    with MemoryPlatform(settings, embedder=embedder, store=store) as mp:
        release = threading.Event()
        stub.reply(JUDGED, hold=release)
        for _ in range(80):  # the stopped run's pairs and the whole run's again
            stub.reply(JUDGED)
        staged_moods(mp, USER)
        job = mp.enqueue_consolidation(USER)
        assert stub.holding.wait(180)  # the job asks about its first pair
        writer = sqlite3.connect(settings.sqlite_path, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")  # another writer holds the file
        try:
            failed = delete_once_asked_to_stop(
                mp, USER, lambda: mp._jobs.stop_requested(USER), release
            )
        finally:
            writer.execute("ROLLBACK")
            writer.close()
        assert isinstance(failed, TransientStorageError) and "busy" in str(failed)

        status = wait_for(lambda: mp.job_status(job, USER), {"SUCCESS", "FAILURE"})
        assert status["state"] == "SUCCESS", status
        assert status["result"]["memories"] == 5
        stats = mp.stats(USER)
        assert (stats.memories, stats.staged) == (5, 0)


def test_a_job_queued_before_its_users_deletion_runs_nothing() -> None:
    """Alice's job is queued while her deletion holds her lock, and waits for it; the
    deletion forgets her jobs and lets go. The job then does not run on what is left
    (nothing), and its record goes with her."""
    runs: list[str] = []
    holding, queued = threading.Event(), threading.Event()
    jobs = InProcessJobs({"t": runs.append})
    try:

        def delete_alice() -> None:  # as MemoryPlatform.delete_user does
            with jobs.exclusive("alice", stop_running=True):
                holding.set()
                assert queued.wait(180)
                jobs.forget_owner("alice")

        deletion = threading.Thread(target=delete_alice)
        deletion.start()
        assert holding.wait(180)
        job = jobs.submit("t", ["job"], "job-1", owner="alice")  # waits for the lock
        queued.set()
        deletion.join(180)
        jobs.wait()
        assert runs == []
        assert jobs.status(job)["state"] == "UNKNOWN"
    finally:
        jobs.close()


def test_a_consolidation_called_directly_is_serialised_and_stopped_as_a_job_is(
    tmp_path: Path, embedder: Embedder, stub: OpenAIStub
) -> None:
    """``mp.consolidate`` called by a script or the CLI, not queued: it takes the user's
    lock as the jobs do, so it waits for their running job (here not at all: UserBusy)
    instead of working beside it, and a deletion of the user stops it at its next LLM
    call (``JobStopped``) as it stops a job. An import into the user takes the lock too:
    it writes nothing beside the job (nor beside a deletion)."""
    settings = Settings(
        sqlite_path=tmp_path / "m.db",
        llm_base_url=stub.base_url,
        worker={"lock_wait": 0},
        _env_file=None,
    )
    elsewhere = settings.model_copy(update={"sqlite_path": tmp_path / "other.db"})
    with MemoryPlatform(elsewhere, embedder=embedder) as other:  # the user's memory elsewhere
        other.create_memory(USER, subject="I", memory_type="fact", topic="lives in",
                            object="Lisbon")  # fmt: skip
        exported = other.export_user(USER)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        release = threading.Event()
        stub.reply(json.dumps(GOOD, ensure_ascii=False), hold=release)
        mp.add_messages(USER, "s1", MESSAGES)
        job = mp.end_session(USER, "s1")
        assert stub.holding.wait(180)  # the extraction job is asking the LLM
        try:
            with pytest.raises(UserBusy):
                mp.consolidate(USER)
            with pytest.raises(UserBusy):
                mp.import_user(exported, USER)
            assert mp.stats(USER).memories == 0  # the import wrote nothing
        finally:
            release.set()
        assert wait_for(lambda: mp.job_status(job))["state"] == "SUCCESS"
        written = mp.stats(USER).memories
        assert mp.import_user(exported, USER).user_id == USER  # once the job is done
        assert mp.stats(USER).memories == written + 1

    patient = settings.model_copy(update={"worker": settings.worker.model_copy(
        update={"lock_wait": 600})})  # fmt: skip
    with MemoryPlatform(patient, embedder=embedder) as mp:
        staged_moods(mp, USER)
        before = stub.chat_requests()
        release = threading.Event()
        stub.holding.clear()
        stub.reply(JUDGED, hold=release)
        for _ in range(40):
            stub.reply(JUDGED)
        outcome: list[BaseException | dict[str, Any]] = []

        def consolidate() -> None:
            try:
                outcome.append(mp.consolidate(USER))
            except BaseException as exc:
                outcome.append(exc)

        direct = threading.Thread(target=consolidate)
        direct.start()
        assert stub.holding.wait(180)  # the consolidation asks about its first pair
        assert (
            delete_once_asked_to_stop(mp, USER, lambda: mp._jobs.stop_requested(USER), release)
            is None
        )
        direct.join(180)
        [stopped] = outcome
        assert isinstance(stopped, JobStopped) and "being deleted" in str(stopped)
        assert stub.chat_requests() == before + 1
        assert mp.stats(USER).memories == 0


def exported_user(tmp_path: Path, memories: int) -> list[str]:
    """The export of a user with this many memories, written straight to a store of its
    own (no embedding: an import rebuilds vectors anyway)."""
    store = open_store(Settings(sqlite_path=tmp_path / "source.db", _env_file=None))
    try:
        graphs = [
            build_memory(USER, CreateMemoryArgs(subject="I", memory_type="fact",
                                                topic="visited", object=f"town {i}"))
            for i in range(memories)
        ]  # fmt: skip
        store.write_memories(graphs)
        return [dump_line(record) for record in export_user(store, USER)]
    finally:
        store.close()


def test_an_import_stops_before_its_next_page_once_its_user_is_being_deleted(
    tmp_path: Path,
) -> None:
    """An import writes a page of 500 records at a time and makes no LLM call: it looks
    for a stop request before each page, so a deletion waits for one page, not the whole
    import. What it wrote stays until the deletion; run again, it skips it."""
    records = parse_lines(exported_user(tmp_path, 700))
    asked = iter([False, True])  # a deletion starts waiting while the first page is written
    store = open_store(Settings(sqlite_path=tmp_path / "target.db", _env_file=None))
    try:
        with pytest.raises(JobStopped), stoppable(USER, lambda: next(asked)):
            import_records(store, records, USER)
        assert store.stats(USER).memories == 500

        report = import_records(store, records, USER)  # not stopped: the rest
        assert (report.imported["memory"], report.skipped["memory"]) == (200, 500)
    finally:
        store.close()


def test_a_deletion_stops_an_import_called_directly(tmp_path: Path, embedder: Embedder) -> None:
    """``import_user`` runs as a job: it holds the user's lock and stops for a deletion of
    the user (before, it only held the lock, so the deletion waited out the import)."""
    exported = exported_user(tmp_path, 3)
    settings = Settings(sqlite_path=tmp_path / "m.db", _env_file=None)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        holding, go = threading.Event(), threading.Event()
        outcome: list[BaseException | object] = []

        def job_that_imports() -> None:  # the lock is held first, as a running job holds it
            with mp._jobs.exclusive(USER):
                holding.set()
                go.wait(180)
                try:
                    outcome.append(mp.import_user(exported, USER))
                except BaseException as exc:
                    outcome.append(exc)

        running = threading.Thread(target=job_that_imports)
        running.start()
        assert holding.wait(180)
        deletion = threading.Thread(target=mp.delete_user, args=(USER,))
        deletion.start()
        try:
            assert wait_until(lambda: mp._jobs.stop_requested(USER), timeout=180)
        finally:
            go.set()
        running.join(180)
        deletion.join(180)
        [stopped] = outcome
        assert isinstance(stopped, JobStopped)
        assert mp.stats(USER).memories == 0
