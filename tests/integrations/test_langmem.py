"""LangMem's memory tools over the platform's LangGraph store: their documented namespace,
``("memories", "{user_id}")``, keeps each person's memories in their own user."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langmem import create_manage_memory_tool, create_search_memory_tool

from memory_platform import MemoryPlatform
from memory_platform.config import Settings
from memory_platform.embeddings import Embedder
from memory_platform.integrations.langgraph_store import MemoryPlatformStore


@pytest.fixture
def platform(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryPlatform]:
    with MemoryPlatform(Settings(sqlite_path=tmp_path / "lm.db", _env_file=None),
                        embedder=embedder) as mp:  # fmt: skip
        yield mp


def test_langmems_tools_keep_each_persons_memories_in_their_own_user(
    platform: MemoryPlatform,
) -> None:
    store = MemoryPlatformStore(platform, user_position=1)
    namespace = ("memories", "{user_id}")
    manage = create_manage_memory_tool(namespace=namespace, store=store)
    search = create_search_memory_tool(namespace=namespace, store=store)
    alice = {"configurable": {"user_id": "alice"}}
    bob = {"configurable": {"user_id": "bob"}}

    manage.invoke({"content": "Alice is allergic to peanuts", "action": "create"}, config=alice)
    manage.invoke({"content": "Bob plays the cello every Sunday", "action": "create"}, config=bob)

    assert sorted(platform.store.list_users()) == ["alice", "bob"]
    found = search.invoke({"query": "what is she allergic to?"}, config=alice)
    assert "Alice is allergic to peanuts" in found and "cello" not in found
    assert "peanuts" not in search.invoke({"query": "what is she allergic to?"}, config=bob)
    platform.wait_for_indexing("alice")
    assert [r.text for r in platform.search("alice", "peanut allergy", expand_depth=0)] == [
        "Alice is allergic to peanuts"
    ]  # the agent's own search_memories reads the same memory

    platform.delete_user("alice")
    assert "peanuts" not in search.invoke({"query": "peanut allergy"}, config=alice)
    assert "cello" in search.invoke({"query": "when does Bob play the cello?"}, config=bob)
