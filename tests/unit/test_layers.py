"""Short-term buffer, mid-term summaries, promotion and decay refresh (in process)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memory_platform import MemoryPlatform, MemoryStatus, Settings
from memory_platform.embeddings import Embedder
from memory_platform.errors import QueueUnavailable
from memory_platform.layers import (
    MID_TERM_SPEAKER,
    BufferedMessage,
    LocalShortTerm,
    recent_from_episodes,
)
from memory_platform.llm import LLMUnavailableError
from memory_platform.midterm import archive_faded
from memory_platform.models import Episode
from memory_platform.tools import ForgetMemoryArgs
from tests.support.jobs import meanwhile_held
from tests.support.net import free_port
from tests.support.openai_stub import OpenAIStub

USER = "layers-user"
T0 = datetime(2025, 11, 5, 9, tzinfo=UTC)


def messages(n: int, start: int = 0) -> list[dict]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"message {i} about hiking trips",
            "timestamp": T0 + timedelta(minutes=i),
        }
        for i in range(start, start + n)
    ]


@pytest.fixture
def mp(tmp_path: Path, embedder: Embedder, stub: OpenAIStub) -> Iterator[MemoryPlatform]:
    settings = Settings(
        sqlite_path=tmp_path / "m.db",
        llm_base_url=stub.base_url,
        short_term={"capacity": 5, "overflow_batch": 3, "promote_after_accesses": 2},
        _env_file=None,
    )
    platform = MemoryPlatform(settings, embedder=embedder)
    yield platform
    platform.close()


def _wait_for_summary(mp: MemoryPlatform) -> list:
    mp.wait_for_jobs()  # the summary is written by an in-process background job
    return mp.store.find_episodes(USER, MID_TERM_SPEAKER)


def test_buffer_keeps_the_latest_and_summarises_the_oldest_batch(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    stub.reply(
        json.dumps(
            {
                "summary": "They planned hiking trips.",
                "keywords": ["hiking", "trip"],
                "importance": 0.7,
            }
        )
    )

    ids = mp.add_messages(USER, "s1", messages(6))

    recent = mp.recent_messages(USER, "s1")
    assert [m.episode_id for m in recent] == ids[3:]  # 6 > capacity 5: the oldest batch of 3 left
    [summary] = _wait_for_summary(mp)
    assert summary.text == "They planned hiking trips." and summary.keywords == ["hiking", "trip"]
    assert summary.importance == pytest.approx(0.7) and summary.session_id == "s1"
    assert summary.metadata["episode_ids"] == ids[:3]
    assert summary.metadata["time_range"] == [
        T0.isoformat(),
        (T0 + timedelta(minutes=2)).isoformat(),
    ]
    assert mp.stats(USER).episodes == 7  # every message kept, plus the summary
    assert "message 0 about hiking trips" in stub.requests[0]["body"]["messages"][1]["content"]


def test_a_deleted_users_buffers_go_and_a_deleted_message_is_not_shown(
    mp: MemoryPlatform,
) -> None:
    """The in-process buffer: deleting a user drops each of their sessions' buffers (and
    no other user's); a message whose episode was deleted is not shown."""
    ids = mp.add_messages(USER, "s1", messages(2))
    mp.add_messages(USER, "s2", messages(1))
    [other] = mp.add_messages("other-user", "s1", messages(1))

    mp.delete_episodes(USER, [ids[0]])
    assert [m.episode_id for m in mp.recent_messages(USER, "s1")] == [ids[1]]

    mp.delete_user(USER)
    assert mp.recent_messages(USER, "s1") == mp.recent_messages(USER, "s2") == []
    assert [m.episode_id for m in mp.recent_messages("other-user", "s1")] == [other]


def test_a_summary_leaves_out_what_is_kept_out_of_search_or_expired(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps({"summary": "They talked.", "keywords": [], "importance": 0.5}))
    ids = mp.add_messages(USER, "s9", messages(2))
    past = datetime.now(UTC) - timedelta(minutes=1)
    record, gone = mp.add_episodes(USER, [
        {"text": "raw tool output: order 4411", "metadata": {"searchable": False}},
        {"text": "my one-time code is 8812", "expires_at": past},
    ])  # fmt: skip

    assert mp.summarize_messages(USER, "s9", [*ids, record, gone])["status"] == "done"
    transcript = stub.requests[0]["body"]["messages"][1]["content"]
    assert "message 0 about hiking trips" in transcript and "order 4411" not in transcript
    assert "8812" not in transcript


def summary_reply(text: str) -> str:
    return json.dumps({"summary": text, "keywords": [], "importance": 0.5})


def test_forgetting_a_message_forgets_the_summaries_that_retell_it(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """A mid-term summary is searched and retells its messages: forgetting one of them
    forgets the summary too (before, "forget what I said" left its retelling findable).
    The batch's other messages and another batch's summary stay."""
    stub.reply(summary_reply("They planned a secret trip to Lisbon."))
    first = mp.add_messages(USER, "s1", messages(3))
    second = mp.add_messages(USER, "s2", messages(3, start=3))
    assert mp.summarize_messages(USER, "s1", first)["status"] == "done"
    stub.reply(summary_reply("They compared hiking boots."))
    assert mp.summarize_messages(USER, "s2", second)["status"] == "done"
    [lisbon] = [s for s in mp.store.find_episodes(USER, MID_TERM_SPEAKER) if "Lisbon" in s.text]
    mp.wait_for_jobs()  # embedded, so that search could find it by meaning too

    result = mp.forget_tool(USER, ForgetMemoryArgs(memory_description=first[1]))

    assert result["success"] and result["summaries_removed"] == 1
    assert set(result["forgotten"]) == {first[1], lisbon.id}
    assert mp.store.get_episodes(USER, [lisbon.id]) == []
    assert not any("Lisbon" in r.text for r in mp.search(USER, "trip to Lisbon"))
    assert [s.text for s in mp.store.find_episodes(USER, MID_TERM_SPEAKER)] == [
        "They compared hiking boots."
    ]
    assert len(mp.store.get_episodes(USER, [*first, *second])) == 5
    [audit] = mp.audit_log(USER)
    assert audit.counts["summaries"] == 1 and lisbon.id in audit.target_ids


def test_a_message_forgotten_while_it_is_summarised_is_left_out_of_the_summary(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """``forget`` takes no lock: a message forgotten while the LLM summarises its batch
    makes the summary be asked again without it; the summary written retells only the
    messages left (before, it retold the forgotten one, which was gone)."""
    ids = mp.add_messages(USER, "s1", [
        {"role": "user", "content": "my PIN is 4471", "timestamp": T0},
        *messages(2, start=1),
    ])  # fmt: skip
    release = threading.Event()
    stub.reply(summary_reply("The PIN is 4471; they talked about hiking."), hold=release)
    stub.reply(summary_reply("They talked about hiking trips."))

    outcome = meanwhile_held(
        stub.holding,
        release,
        lambda: mp.summarize_messages(USER, "s1", ids),
        lambda: mp.forget(USER, ids[0]),
    )

    assert outcome["status"] == "done" and outcome["messages"] == 2
    [summary] = mp.store.find_episodes(USER, MID_TERM_SPEAKER)
    assert summary.text == "They talked about hiking trips."
    assert summary.metadata["episode_ids"] == ids[1:]
    asked_again = stub.requests[-1]["body"]["messages"][1]["content"]
    assert "4471" not in asked_again and "message 1 about hiking trips" in asked_again


def test_a_summary_reads_its_messages_in_order_on_their_clock_and_is_made_once(
    tmp_path: Path, embedder: Embedder, stub: OpenAIStub
) -> None:
    """Imported history may be stored out of order: the LLM reads the messages in the
    order they were said, each on the clock it was said on (else the deployment's), and
    the summary is dated by the last one, on its clock. Asked again for the same
    messages, in any order, the summary is not made (nor the LLM asked) twice."""
    settings = Settings(
        sqlite_path=tmp_path / "m.db", llm_base_url=stub.base_url,
        timezone="America/New_York", _env_file=None,
    )  # fmt: skip
    shanghai = timezone(timedelta(hours=8))
    said = [
        ("Ann", "we booked the flight", datetime(2025, 11, 5, 21, 30, tzinfo=shanghai)),
        ("Bo", "where should we go?", datetime(2025, 11, 5, 20, 0, tzinfo=shanghai)),
        ("Ann", "Lisbon, in spring", datetime(2025, 11, 5, 13, 0, tzinfo=UTC)),  # an instant
    ]
    stub.reply(summary_reply("They booked a spring flight to Lisbon."))
    with MemoryPlatform(settings, embedder=embedder) as mp:
        ids = mp.add_episodes(USER, [
            {"text": text, "speaker": who, "timestamp": when, "session_id": "s1"}
            for who, text, when in said
        ])  # fmt: skip
        done = mp.summarize_messages(USER, "s1", ids)
        again = mp.summarize_messages(USER, "s1", ids[::-1])
        [summary] = mp.store.find_episodes(USER, MID_TERM_SPEAKER)

    transcript = stub.requests[0]["body"]["messages"][1]["content"].splitlines()
    assert transcript == [
        "[2025-11-05 20:00] Bo: where should we go?",
        "[2025-11-05 08:00] Ann: Lisbon, in spring",  # New York's clock
        "[2025-11-05 21:30] Ann: we booked the flight",
    ]
    assert again == {"status": "duplicate", "episode_id": done["episode_id"]}
    assert len(stub.requests) == 1
    assert summary.timestamp == said[0][2] and summary.metadata["utc_offset"] == "+08:00"
    assert [datetime.fromisoformat(t) for t in summary.metadata["time_range"]] == [
        said[1][2], said[0][2],
    ]  # fmt: skip


def test_summaries_recalled_often_are_promoted_once(mp: MemoryPlatform, stub: OpenAIStub) -> None:
    stub.reply(
        json.dumps(
            {
                "summary": "The user loves hiking in the Alps.",
                "keywords": ["hiking"],
                "importance": 0.8,
            }
        )
    )
    mp.add_messages(USER, "s1", messages(6))
    [summary] = _wait_for_summary(mp)
    mp.store.record_episode_access(USER, [summary.id])
    mp.store.record_episode_access(USER, [summary.id])
    stub.reply(json.dumps({
        "knowledge": [{"content": "The user loves hiking in the Alps", "type": "WorldModel", "score": 70}],
        "memories": [{"subject": "I", "memory_type": "fact", "topic": "loves", "object": "hiking in the Alps"}],
    }))  # fmt: skip

    first = mp.promote_summaries(USER)
    second = mp.promote_summaries(USER)

    assert first == {"promoted": 1, "already": 0, "skipped": 0, "failed": 0}
    assert second == {"promoted": 0, "already": 1, "skipped": 0, "failed": 0}
    assert mp.stats(USER).memories == 1
    assert [p.content for p in mp.latest_knowledge(USER)] == ["The user loves hiking in the Alps"]


def summary_to_promote(mp: MemoryPlatform, stub: OpenAIStub, text: str) -> list[str]:
    """Three messages summarised as ``text``, the summary recalled often enough to be
    promoted by the next daily task; returns the messages' ids."""
    stub.reply(summary_reply(text))
    ids = mp.add_messages(USER, "s1", messages(3))
    assert mp.summarize_messages(USER, "s1", ids)["status"] == "done"
    [summary] = mp.store.find_episodes(USER, MID_TERM_SPEAKER)
    for _ in range(2):  # promote_after_accesses
        mp.store.record_episode_access(USER, [summary.id])
    return ids


def test_forgetting_a_message_forgets_what_its_summary_was_promoted_into(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """A promoted summary's memories and knowledge come from the summary; forgetting a
    message it retells forgets the summary and them (before, they stayed searchable)."""
    ids = summary_to_promote(mp, stub, "The user's PIN is 4471.")
    stub.reply(json.dumps({
        "knowledge": [{"content": "The user's PIN is 4471", "type": "WorldModel", "score": 90}],
        "memories": [{"subject": "I", "memory_type": "fact", "topic": "PIN", "object": "4471"}],
    }))  # fmt: skip
    assert mp.promote_summaries(USER)["promoted"] == 1
    assert mp.stats(USER).memories == 1

    result = mp.forget_tool(USER, ForgetMemoryArgs(memory_description=ids[0]))

    assert result["summaries_removed"] == 1 and result["memories_removed"] == 1
    assert result["knowledge_points_removed"] == 1
    assert mp.stats(USER).memories == 0 and mp.latest_knowledge(USER, min_score=0) == []


def test_a_summary_forgotten_while_it_is_promoted_gives_no_memory(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """Forgetting a message forgets the summary that retells it; when that happens while
    the summary is being promoted, nothing the LLM drew from it is written."""
    ids = summary_to_promote(mp, stub, "The user's PIN is 4471.")
    release = threading.Event()
    stub.reply(json.dumps({
        "knowledge": [{"content": "The user's PIN is 4471", "type": "WorldModel", "score": 90}],
        "memories": [{"subject": "I", "memory_type": "fact", "topic": "PIN", "object": "4471"}],
    }), hold=release)  # fmt: skip

    counts = meanwhile_held(
        stub.holding, release, lambda: mp.promote_summaries(USER), lambda: mp.forget(USER, ids[0])
    )

    assert counts == {"promoted": 0, "already": 0, "skipped": 1, "failed": 0}
    assert mp.stats(USER).memories == 0 and mp.latest_knowledge(USER) == []


@pytest.mark.parametrize("llm", ["garbage", "outage"])
def test_the_daily_purge_of_expired_messages_does_not_wait_for_the_llm(
    mp: MemoryPlatform, stub: OpenAIStub, llm: str
) -> None:
    """Promotion is the daily task's one step that asks the LLM; it runs last, so an LLM
    that answers garbage or not at all does not keep an expired message (a one-time code)
    in the store. Garbage fails that summary's promotion alone (counted, not retried);
    an outage fails the task, to be retried, once the purges are done."""
    summary_to_promote(mp, stub, "They talked about hiking trips.")
    [code] = mp.add_episodes(USER, [
        {"text": "my one-time code is 8812", "expires_at": datetime.now(UTC) - timedelta(minutes=1)},
    ])  # fmt: skip
    for _ in range(9):  # every attempt of the LLM client, and of its transport
        if llm == "garbage":
            stub.reply("no JSON here")
        else:
            stub.fail(503, "overloaded")

    if llm == "garbage":
        report = mp.daily_maintenance(USER)
        assert report["promotion"] == {"promoted": 0, "already": 0, "skipped": 0, "failed": 1}
        assert report["expired"] == {"purged": 1}
    else:
        with pytest.raises(LLMUnavailableError):
            mp.daily_maintenance(USER)

    assert mp.store.get_episodes(USER, [code]) == []
    assert mp.stats(USER).memories == 0


def test_searching_counts_episode_accesses(mp: MemoryPlatform) -> None:
    ids = mp.add_messages(USER, "s1", messages(2))
    mp.wait_for_indexing(USER)
    mp.search(USER, "hiking trips", kinds=("episode",))
    mp._retriever.close()  # flush the background access writes
    assert {e.access_count for e in mp.store.get_episodes(USER, ids)} == {1}


def test_without_an_llm_the_summary_is_skipped_and_nothing_lost(platform: MemoryPlatform) -> None:
    ids = platform.add_messages(USER, "s1", messages(3))
    assert platform.summarize_messages(USER, "s1", ids)["status"] == "skipped"
    assert platform.stats(USER).episodes == 3


def test_local_buffer_expires_after_its_ttl() -> None:
    now = [1000.0]
    buffer = LocalShortTerm(capacity=10, ttl_seconds=60, batch=2, clock=lambda: now[0])
    item = BufferedMessage(episode_id="e1", role="user", content="hi", timestamp=T0)
    assert buffer.push("u", "s", [item]) == []
    now[0] += 59
    assert len(buffer.recent("u", "s")) == 1
    now[0] += 2
    assert buffer.recent("u", "s") == []

    buffer.push("u", "s", [item])
    now[0] += 59
    buffer.push("u", "s", [item.model_copy(update={"episode_id": "e2"})])
    now[0] += 59  # two minutes after the first message, one after the last: still live
    assert [m.episode_id for m in buffer.recent("u", "s")] == ["e1", "e2"]


def test_faded_memories_are_archived_and_hidden_from_search(platform: MemoryPlatform) -> None:
    old = platform.create_memory(
        USER,
        subject="I",
        memory_type="event",
        topic="ate",
        object="a sandwich",
        importance=0.2,
        reference_time=T0 - timedelta(days=400),
    )
    fresh = platform.create_memory(
        USER,
        subject="I",
        memory_type="event",
        topic="ate",
        object="a sandwich again",
        importance=0.2,
        reference_time=T0,
    )
    kept = platform.create_memory(
        USER,
        subject="I",
        memory_type="relation",
        topic="married",
        object="Sam",
        importance=0.9,
        reference_time=T0 - timedelta(days=400),
    )
    platform.consolidate(USER)

    report = platform.refresh_decay(USER, now=T0)

    assert report == {"checked": 3, "archived": 1}
    assert platform.get_memory(USER, old).memory.status == MemoryStatus.ARCHIVED
    assert platform.get_memory(USER, fresh).memory.status == MemoryStatus.CONSOLIDATED
    assert platform.get_memory(USER, kept).memory.status == MemoryStatus.CONSOLIDATED
    platform.wait_for_indexing(USER)
    assert old not in [r.id for r in platform.search(USER, "sandwich")]
    assert old in [r.id for r in platform.search(USER, "sandwich", include_invalid=True)]


def test_use_keeps_a_memory_from_fading_and_every_page_is_checked(
    platform: MemoryPlatform,
) -> None:
    """Strength is importance · recency · (1 + ln(1 + accesses)): of two like events 50 days
    old, the one recalled 20 times stays (0.066 against the floor's 0.05) and the other
    (0.016) is archived. Archiving shrinks the list it pages through, and no memory after
    an archived one may be skipped."""

    def sandwich(n: int) -> str:
        return platform.create_memory(
            USER,
            subject="I",
            memory_type="event",
            topic="ate",
            object=f"sandwich number {n}",
            importance=0.2,
            reference_time=T0 - timedelta(days=50),
        )

    used, unused = sandwich(0), sandwich(1)
    platform.consolidate(USER)
    for _ in range(20):
        platform.store.record_access(USER, [used], T0 - timedelta(days=50))

    assert platform.refresh_decay(USER, now=T0) == {"checked": 2, "archived": 1}
    assert platform.get_memory(USER, used).memory.status == MemoryStatus.CONSOLIDATED
    assert platform.get_memory(USER, unused).memory.status == MemoryStatus.ARCHIVED

    faded = [sandwich(n) for n in range(2, 7)]
    platform.consolidate(USER)
    rates = platform.settings.retrieval.decay_rates
    report = archive_faded(platform.store, USER, T0, rates, floor=0.05, page_size=2)

    assert report == {"checked": 6, "archived": 5}
    statuses = {platform.get_memory(USER, m).memory.status for m in faded}
    assert statuses == {MemoryStatus.ARCHIVED}


def _turn(i: int, at: datetime, role: str | None = "user", **fields: object) -> Episode:
    metadata = {"role": role} if role else {}
    return Episode(id=f"t{i}", user_id=USER, session_id="s", text=f"turn {i}", timestamp=at,
                   metadata=metadata, **fields)  # fmt: skip


def test_the_buffer_rebuilt_from_stored_turns_keeps_the_latest_unbroken_run() -> None:
    """What ``recent_messages`` shows while Redis does not answer: the latest chat
    messages, at most the capacity, back to the first silence longer than the buffer's
    time-to-live (the buffer expired there); summaries and notes (no role) and expired
    items are not messages."""
    now = T0 + timedelta(hours=5)
    quiet = timedelta(minutes=60)
    stored = [  # newest first, as the store reads them
        _turn(9, now - timedelta(minutes=1)),
        _turn(8, now - timedelta(minutes=2), role=None),  # a mid-term summary
        _turn(7, now - timedelta(minutes=3), role="assistant"),
        _turn(6, now - timedelta(minutes=4), expires_at=now - timedelta(seconds=1)),
        _turn(5, now - timedelta(minutes=50)),
        _turn(4, now - timedelta(minutes=100)),  # older than the quiet spell, but no gap is
        _turn(3, now - timedelta(minutes=200)),  # before a silence of 100 minutes
        _turn(2, now - timedelta(minutes=201)),
    ]

    rebuilt = recent_from_episodes(stored, capacity=10, quiet=quiet, now=now)
    assert [(m.episode_id, m.role) for m in rebuilt] == [
        ("t4", "user"), ("t5", "user"), ("t7", "assistant"), ("t9", "user"),
    ]  # fmt: skip
    assert rebuilt[-1].content == "turn 9" and rebuilt[-1].timestamp == stored[0].timestamp
    capped = recent_from_episodes(stored, capacity=2, quiet=quiet, now=now)
    assert [m.episode_id for m in capped] == ["t7", "t9"]
    later = now + timedelta(minutes=61)  # the session has been quiet since turn 9
    assert recent_from_episodes(stored, capacity=10, quiet=quiet, now=later) == []


def test_recent_messages_come_from_the_store_while_redis_does_not_answer(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Every message is stored before it is buffered, so a chat whose Redis is down still
    reads its session's latest messages, its own session's alone, and the call does not
    fail; what was deleted is not shown."""
    settings = Settings(
        sqlite_path=tmp_path / "down.db",
        redis_url=f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        short_term={"capacity": 3},
        _env_file=None,
    )
    said = [
        {"role": r, "content": f"{r} says {i}"} for i, r in enumerate(["user", "assistant"] * 2)
    ]
    with MemoryPlatform(settings, embedder=embedder) as mp:
        ids = mp.add_messages(USER, "s1", said)
        mp.add_messages(USER, "s2", [{"role": "user", "content": "another session"}])
        mp.add_messages("someone-else", "s1", [{"role": "user", "content": "not yours"}])
        with pytest.raises(QueueUnavailable):
            mp._short_term.recent(USER, "s1")  # the buffer itself cannot be read

        recent = mp.recent_messages(USER, "s1")
        assert [(m.episode_id, m.role, m.content) for m in recent] == [
            (ids[1], "assistant", "assistant says 1"),
            (ids[2], "user", "user says 2"),
            (ids[3], "assistant", "assistant says 3"),
        ]  # the capacity's worth, oldest first
        mp.delete_episodes(USER, [ids[2]])
        assert [m.episode_id for m in mp.recent_messages(USER, "s1")] == [ids[0], ids[1], ids[3]]
