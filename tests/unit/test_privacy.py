"""The sensitivity rules (zh and en), log redaction, and the extraction LLM's flag."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_platform import ExtractionError, MemoryPlatform, Settings
from memory_platform.embeddings import Embedder
from memory_platform.privacy import (
    classify,
    is_sensitive,
    loggable,
    mark_sensitive,
    with_sensitivity,
)
from tests.support.openai_stub import OpenAIStub


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I was diagnosed with diabetes last year", ["health"]),
        ("我上周确诊了抑郁症", ["health"]),
        ("my salary is 120k", ["finances"]),
        ("我的信用卡账单还没还", ["finances"]),
        ("card 4111 1111 1111 1111", ["finances"]),
        ("the wifi password is tulip-42", ["credentials"]),
        ("我的支付宝密码是 8 位", ["credentials"]),
        ("my SSN is 078-05-1120", ["identity"]),
        ("身份证号 11010519491231002X", ["identity"]),
        ("11010519491231002X", ["identity"]),  # a resident identity number alone
        ("my id is 110105194912310021.", ["identity"]),
        ("my passport number and my bank account", ["finances", "identity"]),
    ],
)
def test_the_rule_list_recognises_each_category(text: str, expected: list[str]) -> None:
    assert classify(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I love coffee",
        "pin the poster to the wall",
        "spinning class on Tuesday",
        "call me at 13800138000",
        "order 1101051949123100211 has shipped",  # 19 digits: no identity number
        "我今天吃了白米饭",
        "Caroline went to a support group",
    ],
)
def test_everyday_text_is_not_sensitive(text: str) -> None:
    assert classify(text) == []


def test_the_caller_decides_before_the_rules() -> None:
    assert with_sensitivity({}, "my password is x", False, ["credentials"]) == {}
    marked = with_sensitivity({"a": 1}, "I like tea", True, ["credentials"])
    assert marked == {"a": 1, "sensitive": True, "sensitive_categories": []}
    ruled = with_sensitivity(None, "my password is x", None, ["credentials"])
    assert ruled == {"sensitive": True, "sensitive_categories": ["credentials"]}
    assert with_sensitivity(None, "my password is x", None, ["health"]) == {}  # not configured
    marked_before = {"sensitive": True, "sensitive_categories": ["health"]}
    kept = with_sensitivity(marked_before, "I like tea", None, ["credentials"])
    assert kept == marked_before  # no rule matches now, and nobody said otherwise


def test_marking_adds_categories_and_unmarking_clears_them() -> None:
    """Marking an item again adds categories to those it had; unmarking leaves no flag
    and no categories; only the flag True marks an item (metadata of one's own that says
    "sensitive": "no" does not)."""
    once = mark_sensitive({"a": 1}, ["health"])
    twice = mark_sensitive(once, ["identity"])
    cleared = mark_sensitive(twice, sensitive=False)

    assert twice == {"a": 1, "sensitive": True, "sensitive_categories": ["health", "identity"]}
    assert cleared == {"a": 1} and not is_sensitive(cleared)
    assert is_sensitive(twice) and not is_sensitive({"sensitive": "no"})


def test_log_lines_never_carry_sensitive_text() -> None:
    assert loggable("a" * 500) == "a" * 200
    line = loggable("my password is hunter2")
    assert "hunter2" not in line and "credentials" in line


@pytest.fixture
def mp(tmp_path: Path, embedder: Embedder, stub: OpenAIStub) -> Iterator[MemoryPlatform]:
    settings = Settings(
        sqlite_path=tmp_path / "m.db", llm_base_url=stub.base_url, llm_max_retries=2, _env_file=None
    )
    platform = MemoryPlatform(settings, embedder=embedder)
    yield platform
    platform.close()


MESSAGES = [
    {
        "role": "user",
        "content": "医生说我有点焦虑,另外我喜欢爬山",
        "timestamp": datetime(2025, 11, 5, tzinfo=UTC),
    }
]


def test_extraction_marks_what_the_llm_or_the_rules_call_sensitive(
    mp: MemoryPlatform, stub: OpenAIStub
) -> None:
    answer = {
        "knowledge": [
            {
                "content": "用户最近焦虑,在看医生",
                "type": "WorldModel",
                "score": 90,
                "sensitive": True,
            },
            {"content": "用户确诊了焦虑症", "type": "WorldModel", "score": 85},
            {"content": "用户喜欢爬山", "type": "WorldModel", "score": 80},
            {
                "content": "用户会在服药前问医生",
                "type": "WorldModel",
                "score": 70,
                "sensitive": False,
            },
        ],
        "memories": [
            {
                "subject": "我",
                "memory_type": "事实",
                "topic": "情绪",
                "object": "焦虑",
                "sensitive": True,
            },
            {"subject": "我", "memory_type": "事实", "topic": "爱好", "object": "爬山"},
        ],
    }
    stub.reply(json.dumps(answer, ensure_ascii=False))
    report = mp.extract_knowledge("u1", "s1", MESSAGES)
    assert report.status == "done"
    every = mp.latest_knowledge("u1", top_k=10, include_sensitive=True)
    flags = {p.content: p.sensitive for p in every}
    assert flags == {
        "用户最近焦虑,在看医生": True,
        "用户确诊了焦虑症": True,
        "用户喜欢爬山": False,
        "用户会在服药前问医生": False,  # the LLM's no wins over the rule's 服药
    }
    shared = {p.content for p in mp.latest_knowledge("u1", top_k=10)}
    assert shared == {"用户喜欢爬山", "用户会在服药前问医生"}
    memories = {m.text: m.sensitive for m in mp.list_memories("u1")}
    assert memories == {"我 情绪 焦虑": True, "我 爱好 爬山": False}


def test_a_rejected_llm_answer_is_logged_without_its_secrets(
    mp: MemoryPlatform, stub: OpenAIStub, caplog: pytest.LogCaptureFixture
) -> None:
    for _ in range(2):
        stub.reply("not json: the user's password is hunter2")
    with caplog.at_level(logging.WARNING), pytest.raises(ExtractionError):
        mp.extract_knowledge("u1", "s2", MESSAGES)
    assert "LLM answer rejected" in caplog.text
    assert "hunter2" not in caplog.text
