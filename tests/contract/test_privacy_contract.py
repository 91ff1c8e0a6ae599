"""Sensitive memories stay out of default context, sampling and exports' blind spots on
every backend (seed 000 §9.2)."""

from __future__ import annotations

import json

import pytest

from memory_platform import MemoryPlatform
from memory_platform.models import KnowledgePoint, KnowledgeVersion

pytestmark = pytest.mark.contract


def test_sensitive_memories_need_an_explicit_ask(mp: MemoryPlatform, users) -> None:
    user = users()
    diagnosis = mp.execute_tool(
        user,
        "create_memory",
        {"subject": "我", "memory_type": "事实", "topic": "确诊", "object": "糖尿病"},
    )
    marked = mp.execute_tool(
        user,
        "create_memory",
        {"subject": "I", "memory_type": "fact", "topic": "likes", "object": "jazz records",
         "sensitive": True},
    )  # fmt: skip
    plain = mp.execute_tool(
        user,
        "create_memory",
        {"subject": "我", "memory_type": "事实", "topic": "喜欢", "object": "糖醋排骨"},
    )
    assert diagnosis["success"] and marked["success"] and plain["success"]
    record = mp.get_memory(user, diagnosis["memory_id"])
    assert record.memory.sensitive
    assert record.memory.metadata["sensitive_categories"] == ["health"]  # by the rule list
    assert mp.get_memory(user, marked["memory_id"]).memory.sensitive  # by the caller
    mp.wait_for_indexing(user)

    default = mp.search(user, "糖尿病", record_access=False, min_relevance=0.0)
    assert diagnosis["memory_id"] not in [r.id for r in default]
    asked = mp.search(user, "糖尿病", record_access=False, include_sensitive=True)
    assert asked[0].id == diagnosis["memory_id"] and asked[0].sensitive
    assert "糖尿病" not in mp.format_context(asked)  # context leaves it out unless asked
    assert "糖尿病" in mp.format_context(asked, include_sensitive=True)

    tool = mp.execute_tool(user, "search_memories", {"query": "jazz records"})
    assert marked["memory_id"] not in [r["id"] for r in tool["results"]]
    assert "jazz" not in tool["context"]
    tool = mp.execute_tool(
        user, "search_memories", {"query": "jazz records", "include_sensitive": True}
    )
    assert [r["id"] for r in tool["results"]][:1] == [marked["memory_id"]]
    assert "jazz" in tool["context"]

    exported = [json.loads(line) for line in mp.export_user(user)]
    flags = {r["memory"]["id"]: r["sensitive"] for r in exported if r["type"] == "memory"}
    assert flags == {
        diagnosis["memory_id"]: True,
        marked["memory_id"]: True,
        plain["memory_id"]: False,
    }
    assert exported[-1]["sensitive"] == 2


def test_a_correction_can_mark_or_clear_sensitivity(mp: MemoryPlatform, users) -> None:
    user = users()
    salary = mp.create_memory(user, "I", "fact", "salary", "120k a year")
    assert mp.get_memory(user, salary).memory.sensitive  # finances, by the rule list
    cleared = mp.update_memory(user, salary, sensitive=False, reason="the user shares it freely")
    assert not mp.get_memory(user, cleared["memory_id"]).memory.sensitive
    tea = mp.create_memory(user, "I", "fact", "drinks", "green tea")
    marked = mp.update_memory(user, tea, sensitive=True)
    assert mp.get_memory(user, marked["memory_id"]).memory.sensitive


def test_episodes_are_flagged_for_credentials_not_for_everyday_health_talk(
    mp: MemoryPlatform, users
) -> None:
    user = users()
    secret, chat, chosen = mp.add_episodes(
        user,
        [
            {"text": "my wifi password is tulip-42", "speaker": "user"},
            {"text": "my therapist says I should walk more", "speaker": "user"},
            {"text": "lunch was great", "speaker": "user", "metadata": {"sensitive": True}},
        ],
    )
    episodes = {e.id: e for e in mp.store.get_episodes(user, [secret, chat, chosen])}
    assert episodes[secret].metadata["sensitive_categories"] == ["credentials"]
    assert not episodes[chat].sensitive  # privacy.episode_categories: credentials, identity
    assert episodes[chosen].sensitive
    mp.wait_for_indexing(user)
    hits = [r.id for r in mp.search(user, "wifi password", record_access=False, min_relevance=0)]
    assert secret not in hits


def test_sensitive_knowledge_is_never_sampled_unless_asked(mp: MemoryPlatform, users) -> None:
    user = users()
    mp.store.add_knowledge_version(
        KnowledgeVersion(
            user_id=user,
            points=[
                KnowledgePoint(content="User prefers short answers", score=90),
                KnowledgePoint(
                    content="User takes antidepressants", score=95, metadata={"sensitive": True}
                ),
            ],
        )
    )
    for seed in range(20):
        sampled = mp.sample_knowledge(user, top_k=2, seed=seed)
        assert [p.content for p in sampled] == ["User prefers short answers"]
    assert [p.content for p in mp.latest_knowledge(user, top_k=5)] == ["User prefers short answers"]
    every = mp.latest_knowledge(user, top_k=5, include_sensitive=True)
    assert [p.content for p in every] == [
        "User takes antidepressants",
        "User prefers short answers",
    ]
