"""Tool schemas, the executor's answers to bad input, and OpenAI message handling."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from openai.types.chat import ChatCompletionMessage

from memory_platform import MemoryPlatform
from memory_platform.builder import ASSISTANT_SUBJECT, SELF_SUBJECT
from memory_platform.linking import resolve_memory
from memory_platform.models import NodeType, VectorKind
from memory_platform.recent_vectors import RecentVectors
from memory_platform.tools import system_prompt, tool_definitions
from tests.support.embedders import CountingEmbedder

REF = datetime(2025, 11, 5, 10, 0, tzinfo=UTC)
USER = "tool-user"


def props(definition: dict[str, Any]) -> dict[str, Any]:
    return definition["function"]["parameters"]["properties"]


def test_chinese_definitions_match_appendix_a() -> None:
    create, link, search = tool_definitions("zh")

    assert [d["type"] for d in (create, link, search)] == ["function"] * 3
    assert create["function"]["name"] == "create_memory"
    assert create["function"]["parameters"]["required"] == ["subject", "memory_type", "topic"]
    assert props(create)["memory_type"]["enum"] == ["事件", "事实", "关系", "观点"]
    assert props(create)["attributes"]["additionalProperties"] == {"type": "string"}
    importance = props(create)["importance"]
    assert (importance["minimum"], importance["maximum"], importance["default"]) == (0, 1, 0.5)
    assert link["function"]["parameters"]["required"] == [
        "source_memory_description",
        "target_memory_description",
        "relation_type",
    ]
    assert props(link)["relation_type"]["enum"] == ["因为", "所以", "导致", "引用", "基于", "相关"]
    assert props(link)["importance"]["default"] == 0.6
    assert search["function"]["parameters"]["required"] == ["query"]
    assert props(search)["memory_types"]["items"]["enum"] == ["事件", "事实", "关系", "观点"]
    assert set(props(search)["time_range"]["properties"]) == {"start", "end"}
    assert props(search)["max_results"]["default"] == 10
    assert props(search)["expand_depth"]["default"] == 1


def test_english_definitions_have_the_same_shape() -> None:
    zh, en = tool_definitions("zh"), tool_definitions("en")

    for a, b in zip(zh, en, strict=True):
        assert a["function"]["name"] == b["function"]["name"]
        assert a["function"]["parameters"]["required"] == b["function"]["parameters"]["required"]
        assert set(props(a)) == set(props(b))
    assert props(en[0])["memory_type"]["enum"] == ["event", "fact", "relation", "opinion"]
    assert props(en[1])["relation_type"]["enum"] == [
        "because",
        "so",
        "causes",
        "cites",
        "based_on",
        "related",
    ]
    with pytest.raises(ValueError, match="zh"):
        tool_definitions("fr")  # type: ignore[arg-type]


def test_definitions_are_copies() -> None:
    tool_definitions("zh")[0]["function"]["name"] = "changed"
    assert tool_definitions("zh")[0]["function"]["name"] == "create_memory"


def test_system_prompt_carries_rules_and_examples() -> None:
    zh = system_prompt("zh", today=REF.date())
    en = system_prompt("en", today=REF.date(), examples=False)

    assert "2025-11-05" in zh and "create_memory" in zh and "我今天早上8点吃了面包" in zh
    assert "link_memories" in en and "Today is 2025-11-05" in en and "我今天" not in en


def test_english_values_work_with_chinese_definitions(platform: MemoryPlatform) -> None:
    first = platform.execute_tool(
        USER,
        "create_memory",
        {"subject": "I", "memory_type": "fact", "topic": "mood", "object": "bad"},
        REF,
    )
    second = platform.execute_tool(
        USER,
        "create_memory",
        {"subject": "我", "memory_type": "事件", "topic": "sleep", "object": "badly"},
        REF,
    )
    linked = platform.execute_tool(
        USER,
        "link_memories",
        {
            "source_memory_description": "sleep badly",
            "target_memory_description": "mood bad",
            "relation_type": "because",
        },
        REF,
    )

    assert first["success"] and second["success"]
    assert linked["success"], linked
    assert (linked["source_memory_id"], linked["relation"]) == (second["memory_id"], "CAUSES")


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("forget_everything", {}, "unknown tool 'forget_everything'"),
        ("create_memory", '{"subject": "我", "memory_type": ', "not valid JSON"),
        ("create_memory", "[1, 2]", "must be a JSON object"),
        ("create_memory", {"memory_type": "事件", "topic": "吃饭"}, "'subject' is required"),
        (
            "create_memory",
            {"subject": "我", "memory_type": "心情", "topic": "x"},
            "事件 / 事实 / 关系 / 观点",
        ),
        (
            "create_memory",
            {"subject": "我", "memory_type": "事件", "topic": "x", "importance": 1.5},
            "'importance'",
        ),
        (
            "create_memory",
            {"subject": "我", "memory_type": "事件", "topic": "x", "importance": "high"},
            "'importance'",
        ),
        (
            "create_memory",
            {"subject": "   ", "memory_type": "事件", "topic": "x"},
            "'subject' must not be empty",
        ),
        (
            "create_memory",
            {"subject": "我", "memory_type": "事件", "topic": "x" * 1001},
            "'topic' is 1001 characters long; at most 1000 are allowed",
        ),
        ("search_memories", {"query": " "}, "'query' must not be empty"),
        ("search_memories", {"query": "x", "expand_depth": 3}, "'expand_depth'"),
        (
            "create_memory",
            {
                "subject": "我",
                "memory_type": "事件",
                "topic": "x",
                "attributes": {f"k{i}": "v" for i in range(21)},
            },
            "at most 20 attributes",
        ),
        (
            "create_memory",
            {"subject": "我", "memory_type": "事件", "topic": "x", "attributes": {"k" * 65: "v"}},
            "attribute names must have 1 to 64 characters",
        ),
        (
            "create_memory",
            {"subject": "我", "memory_type": "事件", "topic": "x", "attributes": {"完成": True}},
            "attribute '完成' must be a string",
        ),
        (
            "create_memory",
            {
                "subject": "我",
                "memory_type": "事件",
                "topic": "x",
                "attributes": {"备注": "x" * 1001},
            },
            "attribute '备注' is longer than 1000 characters",
        ),
        (
            "create_memory",
            {"subject": "我", "memory_type": "事件", "topic": "x", "attributes": "今天"},
            "'attributes'",
        ),
        (
            "create_memory",
            {"subject": "我", "memory_type": "事件", "topic": "x", "mood": "sad"},
            "'mood' is not a parameter",
        ),
        (
            "link_memories",
            {
                "source_memory_description": "a",
                "target_memory_description": "b",
                "relation_type": "爱",
            },
            "因为 / 所以 / 导致",
        ),
        (
            "link_memories",
            {"source_memory_description": "a", "relation_type": "导致"},
            "'target_memory_description' is required",
        ),
    ],
)
def test_bad_input_returns_an_actionable_error_and_writes_nothing(
    platform: MemoryPlatform, name: str, arguments: Any, expected: str
) -> None:
    result = platform.execute_tool(USER, name, arguments, REF)

    assert result["success"] is False
    assert expected in result["error"]
    assert platform.stats(USER).memories == 0
    assert platform.stats(USER).nodes == {}


def test_what_an_llm_leaves_empty_is_left_out_and_a_number_is_its_text(
    platform: MemoryPlatform,
) -> None:
    """LLMs send "" or null for what they have nothing for: a blank object is no object,
    empty attributes are none, and a number is kept as its text."""
    result = platform.execute_tool(
        USER,
        "create_memory",
        {
            "subject": "我",
            "memory_type": "事件",
            "topic": "跑步",
            "object": "  ",
            "attributes": {"地点": "", "心情": None, "公里": 5},
        },
        REF,
    )

    assert result["success"], result
    record = platform.get_memory(USER, result["memory_id"])
    assert record.memory.attributes == {"公里": "5"}
    assert NodeType.OBJECT not in {node.kind for node in record.nodes}


def test_empty_user_id_is_an_error_not_a_crash(platform: MemoryPlatform) -> None:
    result = platform.execute_tool(
        " ", "create_memory", {"subject": "我", "memory_type": "事件", "topic": "x"}
    )
    assert result == {"success": False, "error": "user_id must be a non-empty string"}


def test_unmatched_link_lists_candidates_and_writes_no_link(platform: MemoryPlatform) -> None:
    for topic in ("跑步", "游泳"):
        platform.execute_tool(
            USER, "create_memory", {"subject": "我", "memory_type": "事件", "topic": topic}, REF
        )

    vague = platform.execute_tool(
        USER,
        "link_memories",
        {
            "source_memory_description": "我运动",
            "target_memory_description": "我跑步",
            "relation_type": "相关",
        },
        REF,
    )
    unknown = platform.execute_tool(
        USER,
        "link_memories",
        {
            "source_memory_description": "quarterly tax filing deadline",
            "target_memory_description": "我跑步",
            "relation_type": "相关",
        },
        REF,
    )

    for result in (vague, unknown):
        assert result["success"] is False
        assert "cannot tell which memory" in result["error"]
    assert {c["text"] for c in vague["candidates"]} <= {"我 跑步", "我 游泳"}
    assert "the best match is too weak" in unknown["error"]  # not guessed
    assert platform.stats(USER).links == 0


def test_link_to_the_same_memory_is_refused(platform: MemoryPlatform) -> None:
    platform.execute_tool(
        USER,
        "create_memory",
        {"subject": "我", "memory_type": "事件", "topic": "跑步", "object": "五公里"},
        REF,
    )
    result = platform.execute_tool(
        USER,
        "link_memories",
        {
            "source_memory_description": "我跑步五公里",
            "target_memory_description": "跑步五公里",
            "relation_type": "导致",
        },
        REF,
    )
    assert result["success"] is False
    assert "same memory" in result["error"]


def test_unparseable_time_is_kept_and_flagged(platform: MemoryPlatform) -> None:
    result = platform.execute_tool(
        USER,
        "create_memory",
        {
            "subject": "我",
            "memory_type": "事件",
            "topic": "搬家",
            "attributes": {"时间": "春天的某个时候"},
        },
        REF,
    )

    assert result["success"]
    assert result["attributes"] == {"时间": "春天的某个时候"}
    assert "not understood" in result["warning"]
    memory = platform.get_memory(USER, result["memory_id"]).memory
    assert memory.event_time is None
    assert memory.metadata["time_unparsed"] == "春天的某个时候"


@pytest.mark.parametrize(
    ("words", "expected"),
    [(["我", "用户", "I", "me"], SELF_SUBJECT), (["你", "you", "助手"], ASSISTANT_SUBJECT)],
)
def test_self_and_assistant_subjects_resolve_to_one_node(
    platform: MemoryPlatform, words: list[str], expected: str
) -> None:
    ids = set()
    for i, word in enumerate(words):
        result = platform.execute_tool(
            USER, "create_memory", {"subject": word, "memory_type": "fact", "topic": f"t{i}"}, REF
        )
        record = platform.get_memory(USER, result["memory_id"])
        subject = next(n for n in record.nodes if n.kind == NodeType.SUBJECT)
        assert subject.content == expected
        ids.add(subject.id)
    assert len(ids) == 1


def _openai_message(calls: list[tuple[str, str, str]]) -> ChatCompletionMessage:
    return ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
                for cid, name, args in calls
            ],
        }
    )


def test_assistant_message_with_tool_calls_yields_tool_messages(platform: MemoryPlatform) -> None:
    good = json.dumps(
        {
            "subject": "我",
            "memory_type": "事件",
            "topic": "吃饭",
            "object": "面条",
            "attributes": {"时间": "昨天"},
        },
        ensure_ascii=False,
    )
    message = _openai_message(
        [("call_1", "create_memory", good), ("call_2", "create_memory", "{broken")]
    )

    replies = platform.handle_tool_calls(USER, message, reference_time=REF)
    as_dict = platform.handle_tool_calls(USER, message.model_dump(), reference_time=REF)

    assert [r["role"] for r in replies] == ["tool", "tool"]
    assert [r["tool_call_id"] for r in replies] == ["call_1", "call_2"]
    first, second = (json.loads(r["content"]) for r in replies)
    assert first["success"] and first["attributes"] == {"时间": "2025-11-04"}
    assert second["success"] is False and "not valid JSON" in second["error"]
    assert json.loads(as_dict[0]["content"])["success"]
    assert platform.stats(USER).memories == 2
    assert platform.handle_tool_calls(USER, {"role": "assistant", "content": "hi"}) == []


def test_a_description_is_compared_with_the_stored_vectors_not_re_embedded(
    platform: MemoryPlatform,
) -> None:
    foods = ["noodles", "dumplings", "pizza", "tacos", "curry", "salad", "ramen", "pasta",
             "a burger", "pho", "paella", "risotto"]  # fmt: skip
    pieces = ["scales", "a waltz", "Chopin", "a sonata", "jazz", "a duet", "Bach", "etudes"]
    memories = [("user", "ate", food) for food in foods]
    memories += [("Anna", "played piano", piece) for piece in pieces]
    memories.append(("Anna", "ate", "sushi"))
    for subject, topic, obj in memories:
        args = {"subject": subject, "memory_type": "event", "topic": topic, "object": obj}
        assert platform.execute_tool(USER, "create_memory", args, REF)["success"]
    platform.wait_for_indexing(USER)
    description = "Anna ate sushi"
    counting = CountingEmbedder(platform.embedder)
    query = counting.inner.embed([description])[0]
    nearest = {h.ref_id for h in platform.store.vector_search(USER, VectorKind.MEMORY, query, k=10)}
    lexical = {h.ref_id for h in platform.store.lexical_search(
        USER, description, kinds=[VectorKind.MEMORY], k=10)}  # fmt: skip
    assert lexical - nearest  # some candidates are found only by their words

    found = resolve_memory(platform.store, RecentVectors(counting), USER, description, REF)

    assert found.memory is not None and found.memory.text == "Anna ate sushi"
    assert counting.embedded == [description]  # the memories' vectors are read, not remade
    stored = platform.store.similarities(
        USER, VectorKind.MEMORY, [c.memory.id for c in found.candidates], query
    )
    # the same cosines, summed in another order: equal to float32's precision, not to the
    # last digit (rounding both to 6 places split 0.9999805 once)
    assert {c.memory.id: c.semantic for c in found.candidates} == pytest.approx(
        {ref: max(cosine, 0.0) for ref, cosine in stored.items()}, abs=1e-5
    )
