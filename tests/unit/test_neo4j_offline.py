"""What the Neo4j backend does without a server: fail fast, with a message that helps."""

from __future__ import annotations

import socket

import neo4j
import pytest

from memory_platform import BackendUnavailable, MemoryPlatform, Settings
from memory_platform.embeddings import Embedder
from memory_platform.store.neo4j import QUIET_NOTIFICATIONS, _lucene_query, driver_options


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_server_fails_fast_with_the_setting_named(embedder: Embedder) -> None:
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    settings = Settings(backend="neo4j", neo4j_uri=uri, neo4j_connection_timeout=2, _env_file=None)

    # fast by construction: the driver gets the configured timeout, and the message says
    # it (no wall-clock assertion: a loaded machine must not fail this test)
    with pytest.raises(BackendUnavailable, match="cannot reach Neo4j") as info:
        MemoryPlatform(settings, embedder=embedder)

    assert uri in str(info.value) and "within 2s" in str(info.value)
    assert info.value.is_retryable()


def test_lucene_query_requires_the_user_and_quotes_every_word() -> None:
    query = _lucene_query("alice", 'coffee" OR title:* AND 咖啡')
    assert query is not None
    required_user, words = query.split(" +(")
    # the user's token filters without scoring (boost 0), as its unweighted SQLite column
    assert required_user.startswith('+"u') and required_user.endswith('"^0')
    assert words.rstrip(")").split(" OR ") == ['"coffee"', '"title"', '"咖啡"', '"咖"', '"啡"']
    assert _lucene_query("alice", "?!") is None


def test_the_driver_asks_the_server_to_keep_unknown_name_warnings_to_itself() -> None:
    # a fresh database warns about every property or relationship type no node has yet
    # (the driver prints those to stderr on every search); deprecations and performance
    # notices (cartesian products) stay on, since the suite fails on them
    settings = Settings(backend="neo4j", neo4j_uri="bolt://127.0.0.1:1", _env_file=None)
    driver = neo4j.GraphDatabase.driver(settings.neo4j_uri, **driver_options(settings))
    try:
        disabled = driver._pool.pool_config.notifications_disabled_classifications
    finally:
        driver.close()

    assert list(disabled) == ["UNRECOGNIZED"] == list(QUIET_NOTIFICATIONS)
    assert "DEPRECATION" not in disabled and "PERFORMANCE" not in disabled


def test_retokenizing_a_stored_item_gives_the_tokens_writing_it_gave() -> None:
    """``retokenize`` reads items back from their node properties: the tokens it makes
    from them are those the write path stored (a memory's title, text and attributes;
    a turn after its previous turn's words; a turn kept out of search leaves the index)."""
    from datetime import UTC, datetime

    from memory_platform.models import Episode, Memory, MemoryType
    from memory_platform.store.neo4j import (
        _episode_props,
        _memory_props,
        _page_row_tokens,
        _search_tokens,
    )

    memory = Memory(user_id="u", memory_type=MemoryType.EVENT, title="Caroline painted a sunset",
                    text="她在湖边画了日落", attributes={"place": "the lake"})  # fmt: skip
    props = _memory_props(memory)
    read_back = {k: v for k, v in props.items() if k != "search_tokens"}
    assert _page_row_tokens("memory", {"memory": read_back}) == props["search_tokens"]
    assert "lake" in props["search_tokens"].split() and "日落" in props["search_tokens"]

    at = datetime(2025, 11, 5, tzinfo=UTC)
    turn = Episode(user_id="u", text="我们去了北京", speaker="Mel", timestamp=at)
    stored = _episode_props(turn, "Where did you go?")
    row = {"episode": {k: v for k, v in stored.items() if k != "search_tokens"},
           "previous_text": "Where did you go?"}  # fmt: skip
    assert _page_row_tokens("episode", row) == stored["search_tokens"]
    assert {"go", "mel", "北京"} <= set(stored["search_tokens"].split())
    hidden = _episode_props(turn.model_copy(update={"metadata": {"searchable": False}}), None)
    assert hidden["search_tokens"] is None
    assert _page_row_tokens("episode", {"episode": hidden, "previous_text": None}) is None

    knowledge = {"user_id": "u", "content": "Caroline loves running"}
    assert _page_row_tokens("knowledge", knowledge) == _search_tokens("u", knowledge["content"])
