"""Recent questions and descriptions are embedded once per user, and forgotten with them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memory_platform import MemoryPlatform
from memory_platform.config import RetrievalSettings, Settings
from memory_platform.embeddings import Embedder, embed_queries
from memory_platform.recent_vectors import RecentVectors
from memory_platform.retrieval import HybridRetriever
from tests.support.embedders import CountingEmbedder

REF = datetime(2025, 11, 5, 10, 0, tzinfo=UTC)


def test_a_text_is_embedded_once_per_user_and_role(embedder: Embedder) -> None:
    counting = CountingEmbedder(embedder)
    recent = RecentVectors(counting)  # type: ignore[arg-type]

    first = recent.description("ana", "昨晚吃火锅")
    again = recent.description("ana", "昨晚吃火锅")
    asked = recent.query("ana", "昨晚吃火锅")
    elsewhere = recent.description("ben", "昨晚吃火锅")

    assert counting.embedded == ["昨晚吃火锅", "昨晚吃火锅"]  # ana once, ben once
    assert counting.asked == ["昨晚吃火锅"]
    assert again is first and not again.flags.writeable  # shared, so nobody may change it
    assert np.allclose(first, embedder.embed(["昨晚吃火锅"])[0], atol=1e-6)
    assert np.allclose(asked, embed_queries(embedder, ["昨晚吃火锅"])[0], atol=1e-6)
    assert np.allclose(elsewhere, first, atol=1e-6)
    assert recent.asked("ana", "昨晚吃火锅") and not recent.asked("ben", "昨晚吃火锅")


def test_the_oldest_text_goes_first_and_a_user_is_forgotten_alone(embedder: Embedder) -> None:
    counting = CountingEmbedder(embedder)
    recent = RecentVectors(counting, size=3)  # type: ignore[arg-type]
    for text in ("one", "two", "three"):
        recent.query("ana", text)
    recent.query("ana", "one")  # used again: now the newest
    recent.query("ben", "four")  # over the bound: "two" goes
    assert len(recent) == 3
    assert [recent.asked("ana", t) for t in ("one", "two", "three")] == [True, False, True]

    recent.forget_user("ana")
    assert len(recent) == 1 and recent.asked("ben", "four")
    recent.query("ana", "one")
    assert counting.asked == ["one", "two", "three", "four", "one"]
    recent.clear()
    assert len(recent) == 0
    with pytest.raises(ValueError, match="at least 1"):
        RecentVectors(embedder, size=0)
    with pytest.raises(ValueError, match="own embedder"):  # another model's vectors
        HybridRetriever(None, embedder, RetrievalSettings(), recent=recent)  # type: ignore[arg-type]


def test_a_memory_described_again_is_not_embedded_again_until_forgotten(
    tmp_path: Path, embedder: Embedder
) -> None:
    """``link_memories`` from A to B, then from B to C: B's description is embedded once,
    and a question asked again is not embedded again. Another user's same words are
    embedded for them (a question another tenant asked comes back no faster); forgetting
    a memory and deleting the user drop what they asked."""
    counting = CountingEmbedder(embedder)
    settings = Settings(sqlite_path=tmp_path / "m.db", _env_file=None)
    with MemoryPlatform(settings, embedder=counting) as mp:  # type: ignore[arg-type]
        for user in ("ana", "ben"):
            for subject, topic, obj in (("我", "失眠", "整夜"), ("我", "很困", "上午"),
                                        ("我", "没心情", "工作")):  # fmt: skip
                args = {"subject": subject, "memory_type": "事件", "topic": topic, "object": obj}
                assert mp.execute_tool(user, "create_memory", args, REF)["success"]
        links = [("我失眠 整夜", "我很困 上午"), ("我很困 上午", "我没心情 工作")]
        for source, target in links:
            link = {"source_memory_description": source, "target_memory_description": target,
                    "relation_type": "导致"}  # fmt: skip
            assert mp.execute_tool("ana", "link_memories", link, REF)["success"]
        assert counting.embedded.count("我很困 上午") == 1

        mp.search("ana", "我为什么没心情工作?", record_access=False)
        question = counting.asked[0]  # as the search embeds it
        mp.search("ana", "我为什么没心情工作?", record_access=False)
        assert counting.asked.count(question) == 1

        link = {"source_memory_description": "我失眠 整夜",
                "target_memory_description": "我很困 上午", "relation_type": "导致"}  # fmt: skip
        assert mp.execute_tool("ben", "link_memories", link, REF)["success"]
        assert counting.embedded.count("我很困 上午") == 2  # ben's own
        mp.search("ben", "我为什么没心情工作?", record_access=False)
        assert counting.asked.count(question) == 2  # no faster for what another user asked

        forget = {"memory_description": "我没心情 工作"}
        assert mp.execute_tool("ana", "forget_memory", forget, REF)["success"]
        mp.search("ana", "我为什么没心情工作?", record_access=False)
        assert counting.asked.count(question) == 3  # dropped with the memory it named

        mp.delete_user("ben")
        assert mp.execute_tool("ben", "create_memory", args, REF)["success"]
        mp.execute_tool("ben", "forget_memory", {"memory_description": "我很困 上午"}, REF)
        assert counting.embedded.count("我很困 上午") == 3
