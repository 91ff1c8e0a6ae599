"""Inputs an outside attack and a new user's first hour found: each is a clear error or a
correct answer, never an exception escaping the tool contract (issue 14)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from memory_platform import InvalidInputError, MemoryPlatform
from memory_platform.timeparse import normalize_time

EDGE_FUTURE = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
EDGE_PAST = datetime(1, 1, 1, tzinfo=UTC)
REF = datetime(2025, 11, 5, 10, tzinfo=UTC)


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("search_memories", "[" * 1100 + "]" * 1100),
        ("search_memories", '{"query": ' + "[" * 5000 + "]" * 5000 + "}"),
        ("create_memory", {"subject": "I", "memory_type": _nested(1000), "topic": "t"}),
        ("link_memories", {"source_memory_description": _nested(50)}),
        (["create_memory"], {}),
        ({"name": "create_memory"}, {}),
        (None, None),
    ],
)
def test_hostile_arguments_come_back_as_errors(
    platform: MemoryPlatform, name: Any, arguments: Any
) -> None:
    result = platform.execute_tool("u", name, arguments)

    assert result["success"] is False
    assert isinstance(result["error"], str) and len(result["error"]) < 500
    assert platform.stats("u").memories == 0


def test_deep_nesting_is_named_in_the_error(platform: MemoryPlatform) -> None:
    result = platform.execute_tool("u", "search_memories", "[" * 1100 + "]" * 1100)
    assert "nest deeper" in result["error"]


def test_long_or_unprintable_session_ids_are_invalid_input(platform: MemoryPlatform) -> None:
    for bad in ("x" * 129, "s\ud800", "s\x00", "   "):
        with pytest.raises(InvalidInputError, match="session_id"):
            platform.create_memory("u", "I", "fact", "likes", "tea", session_id=bad)
        with pytest.raises(InvalidInputError, match="session_id"):
            platform.end_session("u", bad)
        with pytest.raises(InvalidInputError, match="session_id"):
            platform.add_messages("u", bad, [{"role": "user", "content": "hi"}])
    assert platform.stats("u").memories == 0
    with pytest.raises(InvalidInputError, match="user_id"):
        platform.end_session("u\udfff", "s1")


@pytest.mark.parametrize(
    ("reference", "word"), [(EDGE_FUTURE, "tomorrow"), (EDGE_PAST, "yesterday")]
)
def test_reference_times_at_the_calendar_edge_keep_the_words(
    platform: MemoryPlatform, reference: datetime, word: str
) -> None:
    created = platform.execute_tool(
        "u",
        "create_memory",
        {"subject": "I", "memory_type": "event", "topic": "fly to", "object": "Rome",
         "attributes": {"time": word}},
        reference_time=reference,
    )  # fmt: skip
    assert created["success"] is True, created
    assert "not understood" in created["warning"]
    found = platform.execute_tool(
        "u", "search_memories", {"query": f"{word} Rome"}, reference_time=reference
    )
    assert found["success"] is True, found
    linked = platform.execute_tool(
        "u",
        "link_memories",
        {"source_memory_description": f"{word} Rome", "target_memory_description": "x",
         "relation_type": "causes"},
        reference_time=reference,
    )  # fmt: skip
    assert linked["success"] is False and "internal" not in linked["error"]


@pytest.mark.parametrize(
    ("words", "text", "partial"),
    [
        ("下下个月", "2026-01", False),
        ("下个月", "2025-12", False),
        ("上个月15号", "2025-10-15", False),
        ("去年夏天", "2024 夏季", False),
        ("下下下周", "2025-11-24 ~ 2025-11-30", False),
        ("去年年底", "2024", True),
        ("上个月中旬", "2025-10", True),
    ],
)
def test_relative_times_are_read_whole_or_flagged(words: str, text: str, partial: bool) -> None:
    parsed = normalize_time(words, REF)
    assert parsed.parsed and parsed.text == text and parsed.partial is partial


def test_a_summer_starts_in_june() -> None:
    parsed = normalize_time("去年夏天", REF)
    assert parsed.start == datetime(2024, 6, 1, tzinfo=UTC)
    assert parsed.end == datetime(2024, 9, 1, tzinfo=UTC)


def test_partly_understood_times_keep_the_words_and_warn(platform: MemoryPlatform) -> None:
    result = platform.execute_tool(
        "u",
        "create_memory",
        {
            "subject": "我",
            "memory_type": "事件",
            "topic": "搬家",
            "attributes": {"时间": "去年年底"},
        },
        reference_time=REF,
    )
    assert result["success"] is True
    assert result["attributes"] == {"时间": "去年年底"}
    assert "partly understood" in result["warning"] and "2024" in result["warning"]
    assert result["event_time"].startswith("2024-01-01")


def test_answers_follow_the_language_of_the_call(platform: MemoryPlatform) -> None:
    english = platform.execute_tool(
        "u", "create_memory", {"subject": "I", "memory_type": "fact", "topic": "live in",
                               "object": "Berlin"})  # fmt: skip
    chinese = platform.execute_tool(
        "u", "create_memory", {"subject": "我", "memory_type": "事实", "topic": "喜欢",
                               "object": "咖啡"})  # fmt: skip
    assert english["message"] == "memory saved; it is consolidated in the background"
    assert chinese["message"] == "记忆已保存,将在后台整理"

    linked = platform.execute_tool(
        "u", "link_memories", {"source_memory_description": english["memory_id"],
                               "target_memory_description": chinese["memory_id"],
                               "relation_type": "causes"})  # fmt: skip
    assert linked["success"] and linked["relation_type"] == "causes"
    linked_zh = platform.link_memories("u", english["memory_id"], chinese["memory_id"], "导致")
    assert linked_zh["relation_type"] == "导致"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"mode": "slow"}, "mode"),
        ({"kinds": ["memory", "topic"]}, "kinds"),
        ({"kinds": "episode"}, "kinds"),
        ({"kinds": 1}, "kinds"),
        ({"reference_time": "2025-11-05"}, "reference_time"),
        ({"time_range": 5}, "time_range"),
        ({"time_range": ("2025-11-01", "2025-11-03", "2025-11-05")}, "time_range"),
        ({"memory_types": 3}, "memory_types"),
        ({"relation_types": 3}, "relation_types"),
        ({"episode_ids": 7}, "episode_ids"),
    ],
)
def test_search_arguments_of_the_wrong_kind_are_named(
    platform: MemoryPlatform, arguments: dict[str, Any], field: str
) -> None:
    """The Python API names the argument to fix, as the tools and HTTP do, instead of a
    TypeError from deep inside ("'int' object is not iterable")."""
    with pytest.raises(InvalidInputError) as raised:
        platform.search("u", "hiking", **arguments)
    assert raised.value.field == field


def test_one_memory_type_may_be_named_alone_and_times_name_their_zone(
    platform: MemoryPlatform,
) -> None:
    platform.add_episodes("u", [{"text": "I went hiking", "timestamp": REF}])
    platform.wait_for_indexing("u")
    assert platform.search("u", "hiking", memory_types="事件") == []  # episodes have no type
    naive = REF.replace(tzinfo=None)  # UTC, as everywhere
    found = platform.search("u", "hiking", time_range=(naive, naive.replace(hour=11)))
    assert [r.text for r in found] == ["I went hiking"]
    with pytest.raises(InvalidInputError, match="now: must be a datetime"):
        platform.purge_expired("u", now="2025-11-05")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda mp: mp.add_episodes("u", {"text": "a note"}), "episodes"),
        (lambda mp: mp.add_messages("u", "s", {"role": "user", "content": "hi"}), "messages"),
        (lambda mp: mp.add_messages("u", "s", ["hi"]), "messages[0]"),
        (lambda mp: mp.delete_episodes("u", "01a21bb5479800048d40f40ffc409880"), "episode_ids"),
        (lambda mp: mp.list_memories("u", limit="10"), "limit"),
        (lambda mp: mp.list_memories("u", offset=-1), "offset"),
        (lambda mp: mp.audit_log("u", limit=2.5), "limit"),
        (lambda mp: mp.purge_archived("u", older_than_days="30"), "older_than_days"),
        (lambda mp: mp.forget("u", ["01a21bb5479800048d40f40ffc409880"]), "item_id"),
        (lambda mp: mp.job_status(["extract-1"]), "job_id"),
        (lambda mp: mp.recent_messages("u", ["s"]), "session_id"),
        (lambda mp: mp.sample_knowledge("u", seed=[1]), "seed"),
        (lambda mp: mp.tool_definitions(lang="fr"), "lang"),
        (lambda mp: mp.link_memories("u", "a", "b", "CAUSES", importance="high"), "importance"),
    ],
)
def test_facade_arguments_of_the_wrong_kind_are_named(
    platform: MemoryPlatform, call: Callable[[MemoryPlatform], Any], field: str
) -> None:
    """A lone id where a list is wanted, a dict where a list of them is, a number as a
    string: each is an InvalidInputError naming the argument. ``delete_episodes`` given
    one id as a string deleted nothing and said 0; ``add_messages`` given one message
    raised a TypeError."""
    with pytest.raises(InvalidInputError) as raised:
        call(platform)
    assert raised.value.field == field, raised.value


def test_update_memory_attributes_must_be_a_mapping(platform: MemoryPlatform) -> None:
    platform.create_memory("u", "我", "事实", "喜欢", "咖啡")
    with pytest.raises(InvalidInputError, match="attributes"):
        platform.update_memory("u", "我 喜欢 咖啡", attributes=["浓度"])  # type: ignore[arg-type]
