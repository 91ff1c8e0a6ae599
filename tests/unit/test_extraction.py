"""Session-end extraction with a scripted OpenAI-compatible LLM, and knowledge serving."""

from __future__ import annotations

import itertools
import json
import random
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memory_platform import ExtractionError, MemoryPlatform, Settings
from memory_platform.embeddings import Embedder
from memory_platform.extraction import latest_points, sample_points
from memory_platform.extraction.extractor import _sources, _tail
from memory_platform.llm import LLMUnavailableError
from memory_platform.models import TOLD_BY_KEY, KnowledgePoint, KnowledgeType, KnowledgeVersion
from memory_platform.tools.arguments import ForgetMemoryArgs
from memory_platform.tools.schemas import memory_type_description
from tests.support.jobs import meanwhile_held
from tests.support.openai_stub import OpenAIStub

USER = "extract-user"
MESSAGES = [
    {
        "role": "user",
        "content": "我下周要去成都出差,顺便想吃火锅",
        "timestamp": datetime(2025, 11, 5, 9, tzinfo=UTC),
    },
    {
        "role": "assistant",
        "content": "好的,记下了",
        "timestamp": datetime(2025, 11, 5, 9, 1, tzinfo=UTC),
    },
]
GOOD = {
    "knowledge": [
        {"content": "用户喜欢吃辣,尤其是火锅", "type": "WorldModel", "score": 80},
        {"content": "出差前提醒用户订酒店", "type": "ExperientialKnowledge", "score": 60},
        {"content": "用户在成都有朋友", "type": "OtherKnowledge", "score": 10},
    ],
    "memories": [
        {
            "subject": "我",
            "memory_type": "事件",
            "topic": "出差",
            "object": "成都",
            "attributes": {"时间": "下周一"},
            "importance": 0.6,
        }
    ],
}


@pytest.fixture
def mp(tmp_path: Path, embedder: Embedder, stub: OpenAIStub) -> Iterator[MemoryPlatform]:
    settings = Settings(
        sqlite_path=tmp_path / "m.db", llm_base_url=stub.base_url, llm_max_retries=3, _env_file=None
    )
    platform = MemoryPlatform(settings, embedder=embedder)
    yield platform
    platform.close()


def test_a_session_becomes_knowledge_and_searchable_memories(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD, ensure_ascii=False))

    report = mp.extract_knowledge(USER, "s1", MESSAGES)

    assert (report.status, report.knowledge_points, report.rejected) == ("done", 3, [])
    assert len(report.memory_ids) == 1
    memory = mp.get_memory(USER, report.memory_ids[0]).memory
    assert memory.source == "extraction" and memory.session_id == "s1"
    assert memory.attributes == {"时间": "2025-11-10"}  # 下周一, from the session's last message
    latest = mp.latest_knowledge(USER)
    assert [p.content for p in latest] == [
        "用户喜欢吃辣,尤其是火锅",
        "出差前提醒用户订酒店",
    ]  # 10 < min score 20
    assert latest[0].type == KnowledgeType.WORLD_MODEL
    assert mp.wait_for_indexing(USER)
    assert mp.search(USER, "出差")[0].id == report.memory_ids[0]
    transcript = stub.requests[0]["body"]["messages"][1]["content"]
    assert "user: 我下周要去成都出差" in transcript
    # the LLM is told what an event is as agents are (consolidation never lets an event
    # supersede another, so a trip typed as a state could hide an earlier one)
    assert memory_type_description("zh") in stub.requests[0]["body"]["messages"][0]["content"]


def test_a_recorded_session_is_extracted_without_what_is_kept_out_of_search(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    turns = [
        {"text": m["content"], "session_id": "s2", "timestamp": m["timestamp"],
         "metadata": {"role": m["role"]}}
        for m in MESSAGES
    ]  # fmt: skip
    record = {"text": "原始工具输出：酒店订单 #4411", "session_id": "s2",
              "timestamp": datetime(2025, 11, 5, 9, 2, tzinfo=UTC),
              "metadata": {"searchable": False}}  # fmt: skip
    expired = {"text": "验证码是 8812", "session_id": "s2",
               "timestamp": datetime(2025, 11, 5, 9, 3, tzinfo=UTC),
               "expires_at": datetime(2025, 11, 5, 9, 8, tzinfo=UTC)}  # fmt: skip
    mp.add_episodes(USER, [*turns, record, expired])

    report = mp.extract_session(USER, "s2")

    assert report["status"] == "done"
    transcript = stub.requests[0]["body"]["messages"][1]["content"]
    assert "我下周要去成都出差" in transcript and "酒店订单" not in transcript
    assert "8812" not in transcript  # expired: gone, if not deleted yet


def test_a_turn_forgotten_while_it_is_extracted_gives_no_memory(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """``forget`` takes no lock: a turn forgotten while the LLM extracts its session
    makes the extraction be asked again without it, so nothing drawn from it is written
    after the user forgot it (before, the memories of the first answer were written)."""
    turns = mp.add_messages(USER, "s3", [
        {"role": "user", "content": "我的新银行卡密码是 4471", "timestamp": MESSAGES[0]["timestamp"]},
        *MESSAGES,
    ])  # fmt: skip
    secret = {
        "knowledge": [{"content": "用户的银行卡密码是 4471", "type": "WorldModel", "score": 90}],
        "memories": [{"subject": "我", "memory_type": "事实", "topic": "银行卡密码",
                      "object": "4471"}],
    }  # fmt: skip
    release = threading.Event()
    stub.reply(json.dumps(secret, ensure_ascii=False), hold=release)
    stub.reply(json.dumps(GOOD, ensure_ascii=False))

    report = meanwhile_held(
        stub.holding,
        release,
        lambda: mp.extract_session(USER, "s3"),
        lambda: mp.forget(USER, turns[0]),
    )

    assert report["status"] == "done" and stub.chat_requests() == 2
    asked_again = stub.requests[-1]["body"]["messages"][1]["content"]
    assert "4471" not in asked_again and "我下周要去成都出差" in asked_again
    texts = [m.text for m in mp.list_memories(USER)]
    assert texts and not any("4471" in t for t in texts)
    assert not any("4471" in p.content for p in mp.latest_knowledge(USER))


def test_the_same_session_is_extracted_once(mp: MemoryPlatform, stub: OpenAIStub) -> None:
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    first = mp.extract_knowledge(USER, "s1", MESSAGES)
    second = mp.extract_knowledge(USER, "s1", MESSAGES)

    assert (first.status, second.status) == ("done", "duplicate")
    assert len([r for r in stub.requests if r["path"].endswith("/chat/completions")]) == 1
    assert mp.stats(USER).knowledge_versions == 1 and mp.stats(USER).memories == 1


def test_a_session_extracted_long_ago_is_not_extracted_again(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """Ended again after 1,000 later sessions were extracted (the check once read only the
    latest 1,000 versions), a session is still "duplicate": no LLM call, nothing written."""
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    assert mp.extract_knowledge(USER, "s1", MESSAGES).status == "done"
    for number in range(1_000):
        mp.store.add_knowledge_version(
            KnowledgeVersion(user_id=USER, session_id=f"later-{number}", points=[])
        )

    again = mp.extract_knowledge(USER, "s1", MESSAGES)

    assert again.status == "duplicate"
    assert len([r for r in stub.requests if r["path"].endswith("/chat/completions")]) == 1
    assert mp.stats(USER).knowledge_versions == 1_001


def test_a_session_continued_after_it_ended_gives_its_new_turns_when_it_ends_again(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """A chat backend ends a thread, the user comes back to it, and it ends again: the
    turns said since are extracted (and only they, the earlier ones shown as context),
    into a version and memories of their own; ending it with nothing new is the same job
    and asks the LLM nothing."""
    later = {
        "knowledge": [{"content": "用户订好了成都的酒店", "type": "WorldModel", "score": 70}],
        "memories": [{"subject": "我", "memory_type": "事件", "topic": "预订", "object": "酒店"}],
    }
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    stub.reply(json.dumps(later, ensure_ascii=False))
    mp.add_messages(USER, "thread", MESSAGES)

    def ended() -> tuple[str, dict[str, Any]]:
        job = mp.end_session(USER, "thread")
        mp.wait_for_jobs()
        return job, mp.job_status(job)["result"]

    job, first = ended()
    again, repeated = ended()
    assert again == job and repeated["status"] == "duplicate"  # nothing new: the same job
    said = datetime(2025, 11, 6, 8, tzinfo=UTC)
    mp.add_messages(
        USER, "thread", [{"role": "user", "content": "酒店我已经订好了", "timestamp": said}]
    )
    resumed, second = ended()

    assert resumed != job  # new turns: a new job
    assert (first["status"], second["status"]) == ("done", "done")
    assert first["version_id"] != second["version_id"]
    assert not set(first["memory_ids"]) & set(second["memory_ids"])
    transcripts = [
        r["body"]["messages"][1]["content"]
        for r in stub.requests
        if r["path"].endswith("/chat/completions")
    ]
    assert len(transcripts) == 2  # the repeated end before the new turn asked nothing
    assert "成都出差" in transcripts[0] and "此前的对话" not in transcripts[0]
    earlier, since = transcripts[1].split("新的对话(只从这里提取):")
    assert earlier.startswith("此前的对话") and "user: 我下周要去成都出差" in earlier
    assert "酒店我已经订好了" in since and "成都出差" not in since  # only what was said since
    assert mp.extract_session(USER, "thread")["status"] == "duplicate"
    assert mp.stats(USER).knowledge_versions == 2


@pytest.mark.parametrize("deleted", ["forgotten", "deleted"])
def test_a_session_whose_last_extracted_turn_was_deleted_gives_only_its_new_turns(
    mp: MemoryPlatform, stub: OpenAIStub, deleted: str
) -> None:
    """The turn an extraction ended at is forgotten (or deleted), then the session goes
    on: its next extraction reads only the turns said since, where it read the whole
    session again and wrote its memories twice. Ended with nothing new, it asks nothing.
    The turns are said in 2025, long before the extractions run: what was read is told
    by when its turns were said, not by when the extraction ran."""
    nothing = json.dumps({"knowledge": [], "memories": []})
    for _ in range(3):
        stub.reply(nothing)
    hours = itertools.count(9)

    def say(*texts: str) -> list[str]:
        return mp.add_episodes(USER, [
            {"text": text, "session_id": "chat",
             "timestamp": datetime(2025, 11, 5, next(hours), tzinfo=UTC)}
            for text in texts
        ])  # fmt: skip

    say("我下周要去成都出差", "想顺便吃火锅")
    assert mp.extract_session(USER, "chat")["status"] == "done"
    last = say("酒店订在春熙路", "记得提醒我带伞")[-1]
    assert mp.extract_session(USER, "chat")["status"] == "done"
    if deleted == "forgotten":
        mp.forget(USER, last)
    else:
        mp.delete_episodes(USER, [last])

    assert mp.extract_session(USER, "chat")["status"] == "duplicate"
    say("航班改到了周二")
    assert mp.extract_session(USER, "chat")["status"] == "done"
    earlier, since = stub.requests[-1]["body"]["messages"][1]["content"].split("新的对话")
    assert "航班改到了周二" in since
    assert not any(text in since for text in ("成都出差", "火锅", "春熙路"))
    assert "春熙路" in earlier and "带伞" not in earlier + since
    assert stub.chat_requests() == 3


def test_a_resumed_session_shows_only_its_last_earlier_turns_as_context(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """A long session resumed is not sent whole again: the earlier turns shown are its
    last ones, whole, within the context's few thousand characters."""
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    start = datetime(2025, 11, 5, 9, tzinfo=UTC)
    long_chat = [  # twelve turns of 700 characters, more than the context holds, in few
        # tokens (a dash run is about one e5 token in 14 characters, " chat" one in 5: the
        # platform embeds each turn with its neighbours before it closes: 23 s against 7)
        {"text": f"第{n}轮:" + "-" * 695 + " chat", "session_id": "long",
         "timestamp": start.replace(minute=n)}
        for n in range(12)
    ]  # fmt: skip
    mp.add_episodes(USER, long_chat)
    assert mp.extract_session(USER, "long")["status"] == "done"
    mp.add_episodes(USER, [{"text": "最后一句", "session_id": "long",
                            "timestamp": start.replace(hour=10)}])  # fmt: skip

    assert mp.extract_session(USER, "long")["status"] == "done"
    earlier, since = stub.requests[-1]["body"]["messages"][1]["content"].split("新的对话")
    shown = [line for line in earlier.splitlines()[1:] if line]
    assert 0 < len(shown) < 12 and all(line.endswith("chat") for line in shown)
    assert shown[-1].startswith("[2025-11-05 09:11] user: 第11轮") and "最后一句" in since
    assert len(earlier) < 8_000


def test_who_said_what_reaches_the_llm_in_a_conversation_of_several_people(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """Turns recorded with their speaker (a conversation between two people) reach the
    LLM under that name, not all as "user"; a chat message named by its backend keeps its
    role beside the name, so the LLM still knows who the user is."""
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    said = datetime(2025, 11, 5, 9, tzinfo=UTC)
    mp.add_episodes(USER, [
        {"text": "I adopted a puppy last week", "speaker": "Caroline", "session_id": "two",
         "timestamp": said},
        {"text": "Congratulations! What breed?", "speaker": "Melanie", "session_id": "two",
         "timestamp": said},
    ])  # fmt: skip
    mp.add_messages(USER, "two", [
        {"role": "user", "name": "Caroline", "content": "A beagle", "timestamp": said},
        {"role": "assistant", "name": "Helper", "content": "Noted.", "timestamp": said},
        {"role": "assistant", "content": "Anything else?", "timestamp": said},
    ])  # fmt: skip

    assert mp.extract_session(USER, "two")["status"] == "done"
    transcript = stub.requests[0]["body"]["messages"][1]["content"]
    assert transcript.splitlines() == [
        "(1) [2025-11-05 09:00] Caroline: I adopted a puppy last week",
        "(2) [2025-11-05 09:00] Melanie: Congratulations! What breed?",
        "(3) [2025-11-05 09:00] Caroline (user): A beagle",
        "(4) [2025-11-05 09:00] Helper (assistant): Noted.",
        "(5) [2025-11-05 09:00] assistant: Anything else?",
    ]


def test_a_sessions_mid_term_summary_is_not_extracted_beside_its_turns(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """The summary of an overflowing buffer retells turns the session still records: an
    extraction reads the turns, not the summary too, and a summary written after the
    session ended does not make it a new extraction."""
    from memory_platform.layers import MID_TERM_SPEAKER

    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    mp.add_messages(USER, "s4", MESSAGES)
    summary = {"text": "摘要：用户要去成都出差", "session_id": "s4", "speaker": MID_TERM_SPEAKER,
               "timestamp": MESSAGES[-1]["timestamp"], "metadata": {"layer": "mid_term"}}  # fmt: skip
    mp.add_episodes(USER, [summary])

    assert mp.extract_session(USER, "s4")["status"] == "done"
    transcript = stub.requests[0]["body"]["messages"][1]["content"]
    assert "我下周要去成都出差" in transcript and "摘要" not in transcript
    mp.add_episodes(USER, [{**summary, "text": "摘要：又一段", "timestamp": datetime.now(UTC)}])
    assert mp.extract_session(USER, "s4")["status"] == "duplicate"


def test_a_session_extracted_whole_before_gives_the_turns_said_after_it(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """Sessions extracted before turns were tracked have one version for the whole session:
    ending one again with nothing said since extracts nothing; once it is resumed, the
    turns said after that version was made are extracted (the others shown as context)."""
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    mp.add_messages(USER, "old", MESSAGES)
    assert mp.extract_knowledge(USER, "old", MESSAGES).status == "done"  # the whole-session id

    assert mp.extract_session(USER, "old")["status"] == "duplicate"
    assert stub.chat_requests() == 1
    mp.add_messages(USER, "old", [{"role": "user", "content": "酒店我已经订好了"}])  # said now
    resumed = mp.extract_session(USER, "old")

    assert resumed["status"] == "done" and stub.chat_requests() == 2
    earlier, since = stub.requests[-1]["body"]["messages"][1]["content"].split("新的对话")
    assert "成都出差" in earlier and "酒店我已经订好了" in since and "成都出差" not in since
    assert mp.extract_session(USER, "old")["status"] == "duplicate"


def test_invalid_items_are_reported_and_the_valid_ones_kept(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    answer = {
        "knowledge": [
            {"content": "ok", "type": "WorldModel", "score": 50},
            {"content": "bad type", "type": "Gossip", "score": 50},
            {"content": "bad score", "type": "OtherKnowledge", "score": 150},
            {"content": "float score", "type": "OtherKnowledge", "score": 55.5},
            {"type": "OtherKnowledge", "score": 30},
            {"content": "   ", "type": "OtherKnowledge", "score": 30},
            {"content": "a yes for a score", "type": "OtherKnowledge", "score": True},
        ],
        "memories": [
            {"subject": "我", "memory_type": "心情", "topic": "x"},
            {"subject": "我", "memory_type": "fact", "topic": "喜欢", "object": "火锅"},
        ],
    }
    stub.reply(json.dumps(answer, ensure_ascii=False))

    report = mp.extract_knowledge(USER, "s2", MESSAGES)

    assert report.status == "done" and report.knowledge_points == 1 and len(report.memory_ids) == 1
    errors = {(r["kind"], r["index"]): r["error"] for r in report.rejected}
    assert "Gossip" in errors[("knowledge", 1)] or "type" in errors[("knowledge", 1)]
    assert "score" in errors[("knowledge", 2)] and "integer" in errors[("knowledge", 3)]
    assert "content" in errors[("knowledge", 4)] and "memory_type" in errors[("memory", 0)]
    assert "blank" in errors[("knowledge", 5)] and "integer" in errors[("knowledge", 6)]


def test_garbage_is_retried_then_fails_with_nothing_written(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    for _ in range(3):
        stub.reply("I am not JSON at all")

    with pytest.raises(ExtractionError, match="no valid answer"):
        mp.extract_knowledge(USER, "s3", MESSAGES)

    assert mp.stats(USER).knowledge_versions == 0 and mp.stats(USER).memories == 0
    assert len([r for r in stub.requests if r["path"].endswith("/chat/completions")]) == 3


def test_garbage_then_a_good_answer_succeeds(mp: MemoryPlatform, stub: OpenAIStub) -> None:
    stub.reply('{"knowledge": "not a list"}')
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    assert mp.extract_knowledge(USER, "s4", MESSAGES).status == "done"


def test_rate_limit_is_a_retryable_error(mp: MemoryPlatform, stub: OpenAIStub) -> None:
    for _ in range(5):
        stub.fail(429, "slow down")
    with pytest.raises(LLMUnavailableError) as info:
        mp.extract_knowledge(USER, "s5", MESSAGES)
    assert info.value.is_retryable()
    assert mp.stats(USER).knowledge_versions == 0


def test_without_an_llm_extraction_is_skipped(platform: MemoryPlatform) -> None:
    report = platform.extract_knowledge(USER, "s1", MESSAGES)
    assert report.status == "skipped" and "MEMORY_LLM_BASE_URL" in report.reason
    assert platform.stats(USER).knowledge_versions == 0


def test_weighted_sampling_prefers_high_scores_without_repeats() -> None:
    versions = [
        KnowledgeVersion(
            user_id="u",
            points=[KnowledgePoint(content=f"p{i}", score=s) for i, s in enumerate((90, 5, 50))],
        ),
        KnowledgeVersion(user_id="u", points=[KnowledgePoint(content="q", score=30)]),
    ]
    rng = random.Random(1)
    counts: dict[str, int] = {}
    for _ in range(2000):
        picked = sample_points(versions, 2, 20, rng)
        assert len(picked) == len({p.id for p in picked}) == 2
        for p in picked:
            counts[p.content] = counts.get(p.content, 0) + 1
    assert "p1" not in counts  # below the threshold
    assert counts["p0"] > counts["p2"] > counts["q"]
    assert [p.content for p in latest_points(versions, 5, 20)] == ["p0", "p2"]
    assert [p.content for p in latest_points(versions, 5, 50)] == ["p0", "p2"]  # 50 is kept
    assert sample_points(versions, 0, 20) == [] and latest_points([], 3, 0) == []


def test_a_long_transcript_keeps_its_last_lines_and_the_end_of_a_line_too_long() -> None:
    """What the LLM is shown of a session past its budget: the latest lines that fit, and
    of a last line longer than the budget, its end (what was said last)."""
    assert _tail(["ab", "cd"], 6) == "ab\ncd"  # each line with its newline
    assert _tail(["abc", "de"], 4) == "de"
    assert _tail(["first", "x" * 10 + "END"], 5) == "xxEND"


def test_a_cited_turn_is_kept_and_joined_only_by_turns_that_say_more() -> None:
    """``_sources(cited, said)``: a cited turn that says as much of the item as any turn
    stands alone; one that says less is joined by those that say the most; with none
    cited, the turns that say the most, and none where no turn says any of it."""
    assert _sources((0,), [1, 0, 1]) == (0,)
    assert _sources((1,), [1, 0, 2]) == (1, 2)
    assert _sources((), [0, 2, 2]) == (1, 2)
    assert _sources((), [0, 0]) == ()


# -- where each extracted item comes from, and forgetting it with its turn ------------

TRIP_SAID = datetime(2025, 11, 5, 9, tzinfo=UTC)
TRIP_TURNS = ["我下周要去成都出差", "顺便想去吃火锅", "对了,我女儿考上了大学"]


def recorded_trip(mp: MemoryPlatform, session: str = "trip") -> list[str]:
    """A recorded session of three turns, a minute apart; returns their episode ids."""
    return mp.add_episodes(USER, [
        {"text": text, "session_id": session, "timestamp": TRIP_SAID + timedelta(minutes=n)}
        for n, text in enumerate(TRIP_TURNS)
    ])  # fmt: skip


def memory_item(topic: str, obj: str, **extra: object) -> dict[str, object]:
    return {"subject": "我", "memory_type": "事件", "topic": topic, "object": obj, **extra}


def extracted(mp: MemoryPlatform, stub: OpenAIStub, answer: dict[str, object]) -> list[str]:
    stub.reply(json.dumps(answer, ensure_ascii=False))
    report = mp.extract_session(USER, "trip")
    assert report["status"] == "done" and not report["rejected"]
    return list(report["memory_ids"])


def test_each_turn_is_numbered_and_each_item_names_the_turns_it_cites(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    turns = recorded_trip(mp)
    trip, daughter = extracted(mp, stub, {
        "knowledge": [{"content": "用户的女儿刚考上大学", "type": "WorldModel", "score": 70,
                       "turns": [3]}],
        "memories": [memory_item("出差", "成都", turns=[1, 2]), memory_item("考上", "大学", turns=["3"])],
    })  # fmt: skip

    transcript = stub.requests[-1]["body"]["messages"][1]["content"].splitlines()
    assert [line[:4] for line in transcript] == ["(1) ", "(2) ", "(3) "]
    assert transcript[2].endswith("user: 对了,我女儿考上了大学")
    told = {m: mp.get_memory(USER, m).memory.metadata[TOLD_BY_KEY] for m in (trip, daughter)}
    assert told == {trip: sorted(turns[:2]), daughter: [turns[2]]}
    [point] = mp.latest_knowledge(USER, min_score=0)
    assert point.metadata[TOLD_BY_KEY] == [turns[2]]


def test_forgetting_a_turn_forgets_what_was_extracted_from_it_and_nothing_else(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    turns = recorded_trip(mp)
    trip, daughter = extracted(mp, stub, {
        "knowledge": [
            {"content": "用户的女儿刚考上大学", "type": "WorldModel", "score": 70, "turns": [3]},
            {"content": "用户喜欢吃辣", "type": "WorldModel", "score": 60, "turns": [2]},
        ],
        "memories": [memory_item("出差", "成都", turns=[1]), memory_item("考上", "大学", turns=[3])],
    })  # fmt: skip

    result = mp.forget_tool(USER, ForgetMemoryArgs(memory_description=turns[2]))

    assert result["success"] and result["memories_removed"] == 1
    assert result["knowledge_points_removed"] == 1
    assert [m.id for m in mp.list_memories(USER)] == [trip]
    assert [p.content for p in mp.latest_knowledge(USER, min_score=0)] == ["用户喜欢吃辣"]
    assert not mp.search(USER, "女儿考上大学", max_results=5)
    [entry] = mp.audit_log(USER)
    assert entry.counts["memories"] == 1 and entry.counts["knowledge_points"] == 1
    assert daughter not in str(entry.model_dump())  # ids of the episode, counts of the rest


def test_a_memory_the_llm_cites_no_turn_for_comes_from_the_turns_that_say_its_words(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """An LLM that ignores the instruction (or cites turns that do not exist): each
    memory is tied to the turns saying its object or attribute values; one whose words
    no turn says is tied to none, and forgetting a turn leaves it."""
    turns = recorded_trip(mp)
    hotpot, reunion, classmates = extracted(mp, stub, {
        "knowledge": [],
        "memories": [
            # its time (下周) is said by the first turn too: words of time tell no source
            memory_item("想吃", "火锅", turns=[0, 7, True], attributes={"时间": "下周"}),
            memory_item("计划", "家庭聚会"),
            memory_item("约了", "老同学", turns="3"),  # one turn, as text: still a citation
        ],
    })  # fmt: skip

    assert mp.get_memory(USER, hotpot).memory.metadata[TOLD_BY_KEY] == [turns[1]]
    assert mp.get_memory(USER, classmates).memory.metadata[TOLD_BY_KEY] == [turns[2]]
    assert TOLD_BY_KEY not in mp.get_memory(USER, reunion).memory.metadata
    for turn in turns:
        mp.forget(USER, turn)
    assert [m.id for m in mp.list_memories(USER)] == [reunion]


def test_a_memory_cited_to_turns_that_do_not_say_it_comes_from_the_turn_that_does_too(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """An LLM that cites the wrong turn (the question, say, for what the answer said):
    the turn that says the memory's object is named beside it, so forgetting that turn
    forgets the memory; so is a turn that says more of its words than the cited one. A
    citation that says it is kept as given."""
    turns = recorded_trip(mp)
    daughter, trip, food = extracted(mp, stub, {
        "knowledge": [],
        "memories": [
            memory_item("考上", "大学", turns=[1]),
            memory_item("出差", "成都", turns=[1]),
            memory_item("出行", "成都", attributes={"事由": "出差", "美食": "火锅"}, turns=[2]),
        ],
    })  # fmt: skip

    memories = (daughter, trip, food)
    told = {m: mp.get_memory(USER, m).memory.metadata[TOLD_BY_KEY] for m in memories}
    assert told == {
        daughter: sorted([turns[0], turns[2]]),
        trip: [turns[0]],
        food: sorted(turns[:2]),
    }
    mp.forget(USER, turns[2])
    assert {m.id for m in mp.list_memories(USER)} == {trip, food}
    mp.forget(USER, turns[0])
    assert not mp.list_memories(USER)


def test_a_knowledge_point_cited_wrongly_or_not_at_all_comes_from_the_turn_that_says_it(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """A knowledge point is a sentence of the LLM's, matched to the turns by the words it
    shares with each: one citing no turn is tied to the turn sharing the most, one citing
    a turn that says less of it than another names both, one citing the turn that says it
    is kept as given, and one no turn says any word of is tied to none."""
    turns = recorded_trip(mp)
    extracted(mp, stub, {
        "knowledge": [
            {"content": "用户的女儿刚考上大学", "type": "WorldModel", "score": 70},
            {"content": "用户喜欢吃火锅", "type": "WorldModel", "score": 60, "turns": [1]},
            {"content": "用户下周去成都出差", "type": "WorldModel", "score": 50, "turns": [1]},
            {"content": "规律作息有益健康", "type": "WorldModel", "score": 40},
        ],
        "memories": [],
    })  # fmt: skip

    told = {p.content: p.metadata.get(TOLD_BY_KEY) for p in mp.latest_knowledge(USER, min_score=0)}
    assert told == {
        "用户的女儿刚考上大学": [turns[2]],
        "用户喜欢吃火锅": sorted(turns[:2]),
        "用户下周去成都出差": [turns[0]],
        "规律作息有益健康": None,
    }
    mp.forget(USER, turns[2])
    mp.forget(USER, turns[1])
    left = [p.content for p in mp.latest_knowledge(USER, min_score=0)]
    assert sorted(left) == sorted(["用户下周去成都出差", "规律作息有益健康"])


def test_what_a_session_of_one_turn_gives_comes_from_that_turn(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """With one turn there is nowhere else an item can come from: one that cites no turn
    and says none of its words (a paraphrase, another language) is tied to it all the
    same, and goes when the turn is forgotten."""
    [turn] = mp.add_episodes(
        USER, [{"text": TRIP_TURNS[0], "session_id": "trip", "timestamp": TRIP_SAID}]
    )
    [memory] = extracted(mp, stub, {
        "knowledge": [{"content": "The user travels for work", "type": "WorldModel", "score": 50}],
        "memories": [memory_item("计划", "商务旅行")],
    })  # fmt: skip

    assert mp.get_memory(USER, memory).memory.metadata[TOLD_BY_KEY] == [turn]
    [point] = mp.latest_knowledge(USER, min_score=0)
    assert point.metadata[TOLD_BY_KEY] == [turn]


def test_a_purge_of_expired_turns_keeps_what_was_learnt_from_them(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    """Expiry ends the record of what was said: a deployment that keeps chat messages a
    month must not lose every memory extracted from them a month later."""
    ends = datetime.now(UTC) + timedelta(days=30)
    turns = mp.add_episodes(USER, [
        {"text": text, "session_id": "trip", "timestamp": TRIP_SAID + timedelta(minutes=n),
         "expires_at": ends}
        for n, text in enumerate(TRIP_TURNS)
    ])  # fmt: skip
    [trip] = extracted(
        mp, stub, {"knowledge": [], "memories": [memory_item("出差", "成都", turns=[1])]}
    )

    assert mp.purge_expired(USER, now=ends + timedelta(days=1))["purged"] == len(turns)

    assert [m.id for m in mp.list_memories(USER)] == [trip]
