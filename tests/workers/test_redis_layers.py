"""The short-term buffer in a real Redis, and its overflow summarised by a real worker."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
import redis

from memory_platform import MemoryPlatform
from memory_platform.embeddings import Embedder
from memory_platform.layers import MID_TERM_SPEAKER, BufferedMessage, RedisShortTerm
from tests.support.net import free_port
from tests.support.openai_stub import OpenAIStub
from tests.workers.worker import Worker

pytestmark = pytest.mark.workers

T0 = datetime(2025, 11, 5, 9, tzinfo=UTC)


def item(i: int) -> BufferedMessage:
    return BufferedMessage(
        episode_id=f"e{i:04d}", role="user", content=f"m{i}", timestamp=T0 + timedelta(seconds=i)
    )


def test_redis_buffer_caps_expires_and_pops_each_message_once(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    buffer = RedisShortTerm(client, capacity=10, ttl_seconds=60, batch=4)

    assert buffer.push("u", "s", [item(i) for i in range(8)]) == []
    popped = buffer.push("u", "s", [item(i) for i in range(8, 14)])

    assert [m.episode_id for m in popped] == ["e0000", "e0001", "e0002", "e0003"]
    assert [m.episode_id for m in buffer.recent("u", "s")] == [f"e{i:04d}" for i in range(4, 14)]
    assert 0 < client.ttl(RedisShortTerm.key("u", "s")) <= 60

    # many writers at once: every message is either still buffered or popped exactly once
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: buffer.push("u", "s", [item(i)]), range(100, 200)))
    popped_again = [m.episode_id for batch in results for m in batch]
    kept = [m.episode_id for m in buffer.recent("u", "s")]
    assert len(popped_again) == len(set(popped_again))
    assert sorted(popped_again + kept) == sorted(
        [f"e{i:04d}" for i in range(4, 14)] + [f"e{i:04d}" for i in range(100, 200)]
    )
    assert len(kept) <= 10


def test_deleting_a_user_deletes_their_buffers_and_no_one_elses(client: MemoryPlatform) -> None:
    """Every session buffer of a deleted user goes (they hold the latest messages' text),
    found by a key pattern in which the glob characters of a user id are literal: users
    whose ids that pattern would otherwise match keep theirs. A message whose episode was
    deleted is not shown, though its buffer keeps it until it expires."""
    redis_client = redis.Redis.from_url(client.settings.redis_url or "")
    users = ["a*", "a*b", "ab", "a?", "a\\"]
    for user in users:
        for session in ("s1", "s2"):
            client.add_messages(user, session, [{"role": "user", "content": f"{user} {session}"}])
    [kept, gone] = client.add_messages("ab", "s3", [{"role": "user", "content": "keep"},
                                                   {"role": "user", "content": "drop"}])  # fmt: skip

    for deleted in ("a*", "a?", "a\\"):
        client.delete_user(deleted)
        client.delete_user(deleted)  # again: nothing left to delete
    client.delete_episodes("ab", [gone])

    for user in ("a*", "a?", "a\\"):
        for session in ("s1", "s2"):
            assert client.recent_messages(user, session) == []
            assert not redis_client.exists(RedisShortTerm.key(user, session))
    for user in ("a*b", "ab"):
        for session in ("s1", "s2"):
            [message] = client.recent_messages(user, session)
            assert message.content == f"{user} {session}"
    assert [m.episode_id for m in client.recent_messages("ab", "s3")] == [kept]
    assert redis_client.llen(RedisShortTerm.key("ab", "s3")) == 2  # until it expires


def test_overflow_is_summarised_by_the_worker(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.reply(
        json.dumps(
            {"summary": "Planning a trip to Chengdu.", "keywords": ["Chengdu"], "importance": 0.6}
        )
    )
    client._short_term._capacity = 4  # type: ignore[attr-defined]  # a small buffer for the test
    client._short_term._batch = 3  # type: ignore[attr-defined]

    ids = client.add_messages(
        "alice",
        "s1",
        [
            {
                "role": "user",
                "content": f"line {i} about Chengdu",
                "timestamp": T0 + timedelta(minutes=i),
            }
            for i in range(5)
        ],
    )

    deadline = time.monotonic() + 90
    while not client.store.find_episodes("alice", MID_TERM_SPEAKER):
        assert time.monotonic() < deadline, worker.log_tail()
        time.sleep(0.3)
    [summary] = client.store.find_episodes("alice", MID_TERM_SPEAKER)
    assert (
        summary.text == "Planning a trip to Chengdu." and summary.metadata["episode_ids"] == ids[:3]
    )
    assert [m.episode_id for m in client.recent_messages("alice", "s1")] == ids[3:]


def test_a_server_that_loses_redis_shows_what_the_buffer_holds(
    client: MemoryPlatform, embedder: Embedder
) -> None:
    """Two servers on one store; the second cannot reach Redis. Its ``recent_messages``,
    rebuilt from the stored messages, is what the first reads from the buffer, a
    summary in the session notwithstanding."""
    said = [
        {"role": r, "content": f"{r} line {i}"} for i, r in enumerate(["user", "assistant"] * 3)
    ]
    client.add_messages("carol", "s1", said)
    client.add_episodes(
        "carol", [{"text": "They talked.", "session_id": "s1", "speaker": MID_TERM_SPEAKER}]
    )
    unreachable = f"redis://127.0.0.1:{free_port()}/0"
    with MemoryPlatform(
        client.settings.model_copy(update={"redis_url": unreachable}), embedder=embedder
    ) as cut_off:
        buffered = client.recent_messages("carol", "s1")
        assert [m.content for m in buffered] == [m["content"] for m in said]
        assert cut_off.recent_messages("carol", "s1") == buffered
