"""The platform as LangGraph's long-term store: BaseStore's contract, and an agent that
remembers across threads inside a real LangGraph graph."""

from __future__ import annotations

import json
import logging
import math
import queue
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_store
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.memory import InMemoryStore

from examples.langchain_agent import ScriptedChatModel, call
from memory_platform import MemoryPlatform
from memory_platform.config import Settings
from memory_platform.embeddings import Embedder
from memory_platform.integrations.langgraph_store import MemoryPlatformStore
from tests.support.files import stored_bytes


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryPlatformStore]:
    settings = Settings(sqlite_path=tmp_path / "lg.db", _env_file=None)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        yield MemoryPlatformStore(mp)


def test_put_get_update_and_delete_by_key(store: MemoryPlatformStore) -> None:
    store.put(("alice", "prefs"), "food", {"text": "I love spicy Sichuan food", "stars": 5})
    first = store.get(("alice", "prefs"), "food")
    assert first is not None and first.value == {"text": "I love spicy Sichuan food", "stars": 5}
    assert first.namespace == ("alice", "prefs") and first.key == "food"

    store.put(("alice", "prefs"), "food", {"text": "I now avoid spicy food", "stars": 2})
    second = store.get(("alice", "prefs"), "food")

    assert second is not None and second.value["stars"] == 2
    assert second.created_at == first.created_at and second.updated_at >= first.updated_at
    assert store.get(("bob", "prefs"), "food") is None  # another user's namespace
    assert store.get(("alice", "other"), "food") is None
    store.delete(("alice", "prefs"), "food")
    assert store.get(("alice", "prefs"), "food") is None
    store.delete(("alice", "prefs"), "food")  # deleting what is gone is fine
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"text": "x"})


def test_a_replaced_or_deleted_items_words_are_not_left_in_the_embedded_file(
    store: MemoryPlatformStore,
) -> None:
    """An item put again over its key, or deleted, leaves none of its old words in the
    file: the full-text index deletes them with their document (nothing merges it after
    a put or a delete, and the embedded default has no daily task that would)."""
    mp = store.platform
    mp.add_episodes("alice", [{"text": f"weather note {i}"} for i in range(200)])
    store.put(("alice", "prefs"), "pin", {"text": "my PIN hint is zqxjvarkelmundo"})
    store.put(("alice", "prefs"), "boat", {"text": "the boat is called zqxjbrontefalis"})
    store.put(("alice", "prefs"), "pin", {"text": "my PIN hint is the cat's name"})
    store.delete(("alice", "prefs"), "boat")
    assert [i.key for i in store.search(("alice", "prefs"), query="PIN hint")] == ["pin"]
    path = mp.settings.sqlite_path
    mp.close()  # the last connection checkpoints the write-ahead log into the file

    stored = stored_bytes(path)
    for word in (b"zqxjvarkelmundo", b"zqxjbrontefalis"):  # nothing else starts "zqxj"
        assert word[4:] not in stored, word  # a term may share its first letters with the last
    assert b"eather" in stored


FILTER_ITEMS = {
    "a": {"text": "x", "kind": "pets", "stars": 5, "profile": {"city": "Lisbon", "age": 31},
          "tags": ["dog", "walks"]},
    "b": {"text": "y", "kind": "work", "stars": 2, "profile": {"city": "Porto"},
          "tags": ["dog"]},
    "c": {"text": "z", "kind": "pets", "stars": 1, "profile": "none given", "tags": [{"k": 1}]},
}  # fmt: skip
FILTERS = [
    {"kind": "pets"},
    {"kind": {"$ne": "pets"}},
    {"stars": {"$gt": 3}},
    {"stars": {"$gte": 2, "$lt": 5}},
    {"profile": {"city": "Lisbon"}},  # a nested value: the keys given, whatever else it holds
    {"profile": {"city": "Lisbon", "age": {"$lte": 40}}},
    {"profile": {"country": "PT"}},
    {"tags": ["dog"]},  # a list: equal, element by element
    {"tags": [{"k": 1}]},
    {"kind": "pets", "profile": {"city": {"$ne": "Porto"}}},
    {"stars": {"$lte": 2}},
    {"stars": {"$gt": "3"}},  # a number written as a string is compared by its value
    {"stars": {"$lt": 10.5}},
]


@pytest.mark.parametrize("conditions", FILTERS, ids=[json.dumps(f) for f in FILTERS])
def test_filters_keep_what_langgraphs_own_store_keeps(
    store: MemoryPlatformStore, conditions: dict[str, Any]
) -> None:
    """A graph moved from LangGraph's InMemoryStore to this store gets the same items for
    the same filter: a nested value is matched on the keys given (this store matched no
    item for a filter on a nested value), a list element by element."""
    reference = InMemoryStore()
    for key, value in FILTER_ITEMS.items():
        store.put(("alice", "notes"), key, value)
        reference.put(("alice", "notes"), key, value)

    ours = {i.key for i in store.search(("alice",), filter=conditions)}
    theirs = {i.key for i in reference.search(("alice",), filter=conditions)}

    assert ours == theirs


def test_an_order_filter_reads_dates_as_strings_and_skips_what_has_no_order(
    store: MemoryPlatformStore,
) -> None:
    """Where LangGraph's InMemoryStore raises (a date, which is no number; a field that is
    missing or a dict), this store compares strings as strings and keeps nothing it
    cannot order, rather than fail the whole search."""
    store.put(("alice", "notes"), "old", {"text": "x", "due": "2024-12-31", "stars": 1})
    store.put(("alice", "notes"), "new", {"text": "y", "due": "2025-03-01", "stars": {"a": 1}})
    store.put(("alice", "notes"), "none", {"text": "z"})

    def kept(conditions: dict[str, Any]) -> set[str]:
        return {i.key for i in store.search(("alice",), filter=conditions)}

    assert kept({"due": {"$gte": "2025-01-01"}}) == {"new"}
    assert kept({"due": {"$lt": "2025-01-01"}}) == {"old"}
    assert kept({"stars": {"$gte": 0}}) == {"old"}
    store.put(("alice", "notes"), "nan", {"text": "w", "due": "NaN"})  # a word, not a number
    assert kept({"due": {"$gt": "Inf"}}) == {"nan"}


def test_an_unknown_filter_operator_is_an_error(store: MemoryPlatformStore) -> None:
    """LangGraph's own store raises ValueError for an operator it does not know; this one
    matched nothing, so a typo read as "no such item"."""
    store.put(("alice", "notes"), "a", {"text": "x", "stars": 5})
    with pytest.raises(ValueError, match=r"\$regex"):
        store.search(("alice",), filter={"stars": {"$regex": "5"}})
    with pytest.raises(ValueError, match=r"\$gte"):  # checked before any item is read
        store.search(("bob",), query="x", filter={"profile": {"age": {"$gte ": 3}}})


def test_search_lists_filters_and_finds_by_meaning(store: MemoryPlatformStore) -> None:
    store.put(("alice", "notes"), "n1", {"text": "My sister lives in Paris", "kind": "family"})
    store.put(("alice", "notes"), "n2", {"text": "I adopted a dog named Rex", "kind": "pets"})
    store.put(("alice", "work"), "w1", {"text": "Quarterly report due Friday", "kind": "work"})
    store.put(("bob", "notes"), "b1", {"text": "Bob's dog is called Rex too", "kind": "pets"})

    listed = store.search(("alice",))
    assert [i.key for i in listed] == ["w1", "n2", "n1"]  # newest first
    assert [i.key for i in store.search(("alice", "notes"), limit=1, offset=1)] == ["n1"]
    assert [i.key for i in store.search(("alice",), filter={"kind": "pets"})] == ["n2"]
    assert [i.key for i in store.search(("alice",), filter={"kind": {"$ne": "pets"}})] == [
        "w1", "n1",
    ]  # fmt: skip

    found = store.search(("alice",), query="Rex the dog")
    assert [i.key for i in found] == ["n2"]  # bob's Rex is never alice's
    assert found[0].score is not None and 0.0 <= found[0].score <= 1.0
    assert store.search(("alice",), query="quantum chromodynamics lecture") == []


def test_a_namespace_search_finds_its_items_under_the_users_better_matching_chat(
    store: MemoryPlatformStore,
) -> None:
    """120 turns of chat say "sushi" more often than the profile does, and a filter asks
    for one kind of item: the namespace's items are searched among themselves, not picked
    from the user's best matches afterwards."""
    store.put(("alice", "profile"), "food", {"text": "Alice loves sushi", "kind": "food"})
    store.put(
        ("alice", "profile"), "drink", {"text": "Green tea goes with her sushi", "kind": "drink"}
    )
    chat = [f"Sushi again tonight, sushi place number {i} had great sushi" for i in range(120)]
    store.platform.add_episodes("alice", [{"text": t, "speaker": "alice"} for t in chat])

    found = store.search(("alice", "profile"), query="sushi")
    assert {i.key for i in found} == {"food", "drink"}
    assert all(i.score is not None and 0.0 < i.score <= 1.0 for i in found)
    drinks = store.search(("alice", "profile"), query="sushi", filter={"kind": "drink"})
    assert [i.key for i in drinks] == ["drink"]
    assert store.search(("alice", "elsewhere"), query="sushi") == []


def test_a_namespace_past_the_search_limit_is_searched_through_the_users_best_matches(
    store: MemoryPlatformStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More items than one search may be restricted to: the store falls back to the
    user's best matches, kept to the namespace (the limit lowered to one for the test)."""
    monkeypatch.setattr("memory_platform.integrations.langgraph_store.MAX_WITHIN", 1)
    store.put(("alice", "pets"), "dog", {"text": "I adopted a dog named Rex"})
    store.put(("alice", "pets"), "cat", {"text": "My neighbour's cat visits every morning"})
    store.put(("alice", "work"), "report", {"text": "The dog-food report is due Friday"})

    found = store.search(("alice", "pets"), query="Rex the dog")
    assert [i.key for i in found][:1] == ["dog"]
    assert {i.namespace for i in found} == {("alice", "pets")}


def test_a_namespace_is_listed_through_its_own_group_of_ids(
    store: MemoryPlatformStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A profile of two items beside 30 notes: listing or searching the profile (and the
    namespaces under it), or listing the namespaces under it, reads the profile's items,
    not the notes; a query search with no filter reads their ids alone, one with a filter
    decodes them; the user alone reads all."""
    store.put(("alice", "profile"), "food", {"text": "Alice loves sushi", "kind": "food"})
    store.put(("alice", "profile", "past"), "city", {"text": "Alice grew up in Lyon"})
    for number in range(30):
        store.put(("alice", "notes"), f"n{number}", {"text": f"Sushi note number {number}"})
    decoded: list[str] = []
    ids: list[str] = []
    backend = store.platform.store
    listing, id_listing = backend.list_episodes, backend.episode_ids_by_prefix

    def listed(*args: Any, **kwargs: Any) -> Any:
        page = listing(*args, **kwargs)
        decoded.extend(e.id for e in page)
        return page

    def ids_listed(*args: Any, **kwargs: Any) -> Any:
        found = id_listing(*args, **kwargs)
        ids.extend(found)
        return found

    monkeypatch.setattr(backend, "list_episodes", listed)
    monkeypatch.setattr(backend, "episode_ids_by_prefix", ids_listed)
    assert {i.key for i in store.search(("alice", "profile"))} == {"food", "city"}
    assert (len(decoded), len(ids)) == (2, 0)
    assert [i.key for i in store.search(("alice", "profile"), query="sushi")] == ["food"]
    assert (len(decoded), len(ids)) == (2, 2)  # the ids alone
    found = store.search(("alice", "profile"), query="sushi", filter={"kind": "food"})
    assert [i.key for i in found] == ["food"]
    assert (len(decoded), len(ids)) == (4, 2)  # a filter reads the values
    assert store.list_namespaces(prefix=("alice", "profile")) == [
        ("alice", "profile"), ("alice", "profile", "past")
    ]  # fmt: skip
    assert len(decoded) == 6  # the profile's two items again, not the notes
    assert store.list_namespaces(prefix=("*", "notes")) == [("alice", "notes")]
    assert len(decoded) == 36  # the group of every user matched
    assert len(store.search(("alice",), limit=100)) == 32


def test_a_listing_reads_a_page_of_the_newest_items_not_the_namespace(
    store: MemoryPlatformStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listing without a query reads the namespace's newest items a page at a time
    until it has the page asked for (with a filter, until the filter has kept enough):
    the first ten of 60 items decode ten, not 60, in the same order as reading them all."""
    for number in range(60):
        store.put(("alice", "notes"), f"n{number}", {"text": f"note {number}", "odd": number % 2})
    decoded: list[str] = []
    listing = store.platform.store.list_episodes

    def listed(*args: Any, **kwargs: Any) -> Any:
        page = listing(*args, **kwargs)
        decoded.extend(e.id for e in page)
        return page

    monkeypatch.setattr(store.platform.store, "list_episodes", listed)
    assert [i.key for i in store.search(("alice", "notes"), limit=10)] == [
        f"n{n}" for n in range(59, 49, -1)
    ]
    assert len(decoded) == 10
    decoded.clear()
    page = store.search(("alice", "notes"), limit=5, offset=10, filter={"odd": 1})
    assert [i.key for i in page] == [f"n{n}" for n in range(39, 29, -2)]
    assert len(decoded) == 45  # pages of 15 and 30: 8 odd ones in the first, then enough
    decoded.clear()
    assert len(store.search(("alice", "notes"), limit=100)) == 60
    assert len(decoded) == 60


def test_items_put_before_grouped_ids_are_found_and_moved_when_put_again(
    store: MemoryPlatformStore,
) -> None:
    """An item stored under the ids of before (no group) is read, listed, searched and
    deleted as any; putting it again moves it to its grouped id, once, keeping when it was
    created."""
    from memory_platform.integrations.langgraph_store import _legacy_id
    from memory_platform.models import Episode

    namespace, key = ("alice", "pets"), "dog"
    created = "2026-01-02T03:04:05+00:00"
    legacy = _legacy_id(namespace, key)
    value = {"text": "I adopted a dog named Rex"}
    store.platform.replace_episode(
        Episode(
            id=legacy,
            user_id="alice",
            text=value["text"],
            metadata={
                "langgraph": {
                    "namespace": list(namespace),
                    "key": key,
                    "value": value,
                    "created_at": created,
                    "updated_at": created,
                }
            },
        )
    )
    item = store.get(namespace, key)
    assert item is not None and item.value == value
    assert [i.key for i in store.search(namespace)] == [key]
    assert [i.key for i in store.search(("alice",), query="Rex the dog")] == [key]
    assert store.list_namespaces() == [namespace]

    store.put(namespace, key, {"text": "Rex the dog turned three"})
    moved = store.get(namespace, key)
    assert moved is not None and moved.value == {"text": "Rex the dog turned three"}
    assert moved.created_at == datetime.fromisoformat(created)
    stored = store.platform.store.get_episodes("alice", [legacy, store._episode_id(namespace, key)])
    assert [e.id for e in stored] == [store._episode_id(namespace, key)]
    assert [i.key for i in store.search(namespace)] == [key]

    store.delete(namespace, key)
    assert store.get(namespace, key) is None
    assert store.platform.store.get_episodes("alice", [legacy]) == []


def test_a_put_that_fails_leaves_the_item_as_it_was(
    store: MemoryPlatformStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A put replaces its item in one transaction: when writing the new value fails, the
    old one is still there, found by key and by search."""
    namespace = ("alice", "prefs")
    store.put(namespace, "food", {"text": "I love spicy Sichuan food"})

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk full")

    monkeypatch.setattr("memory_platform.store.sqlite.link_session_turns", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        store.put(namespace, "food", {"text": "I now avoid spicy food"})
    monkeypatch.undo()

    item = store.get(namespace, "food")
    assert item is not None and item.value == {"text": "I love spicy Sichuan food"}
    assert [i.key for i in store.search(namespace, query="Sichuan food")] == ["food"]


HOTPOT = {
    "a": ("Had hotpot at the night market with Ben", datetime(2025, 11, 4, 12, tzinfo=UTC)),
    "b": ("Had hotpot at the night market with Cara", datetime(2025, 11, 5, 1, tzinfo=UTC)),
}
"""Two items put a day apart in UTC: 20:00 on the 4th and 09:00 on the 5th in Shanghai."""
ASKED_AT = datetime(2025, 11, 5, 23, 30, tzinfo=UTC)
"""The 5th in UTC (yesterday: the 4th); 07:30 on the 6th in Shanghai (yesterday: the 5th)."""


@pytest.mark.parametrize(
    ("zone", "chatted", "yesterdays"),
    [("Asia/Shanghai", False, "b"), (None, False, "a"), (None, True, "b")],
)
def test_a_users_time_zone_decides_which_day_their_yesterday_is(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch, zone: str | None,
    chatted: bool, yesterdays: str,
) -> None:  # fmt: skip
    """The zone ``timezone_of`` gives, else the clock the user's chat last named (a chat
    backend's message time ``…+08:00``), else the deployment's."""
    from memory_platform.integrations import langgraph_store

    class Clock(datetime):
        """The store's clock, set by the test: items put, and a question asked, when chosen."""

        at = ASKED_AT

        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
            return cls.at.astimezone(tz)

    monkeypatch.setattr(langgraph_store, "datetime", Clock)
    settings = Settings(sqlite_path=tmp_path / "lg.db", _env_file=None)  # the deployment's: UTC
    with MemoryPlatform(settings, embedder=embedder) as mp:
        store = MemoryPlatformStore(mp, timezone_of={"alice": zone}.get)
        if chatted:
            said = {"role": "user", "content": "早上好", "timestamp": "2025-11-05T08:00:00+08:00"}
            mp.add_messages("alice", "chat", [said])
        for key, (text, said) in HOTPOT.items():
            Clock.at = said
            store.put(("alice", "diary"), key, {"text": text})
        Clock.at = ASKED_AT
        found = store.search(("alice",), query="Who did I have hotpot with yesterday?")
        assert found[0].key == yesterdays
        wrong = MemoryPlatformStore(mp, timezone_of=lambda user: "Mars/Olympus_Mons")
        with pytest.raises(ValueError, match="Mars/Olympus_Mons"):
            wrong.search(("alice",), query="hotpot")


def test_list_namespaces_by_prefix_suffix_and_depth(store: MemoryPlatformStore) -> None:
    for namespace in [("alice", "notes"), ("alice", "work", "q3"), ("bob", "notes")]:
        store.put(namespace, "k", {"text": "something to remember"})

    assert store.list_namespaces() == [
        ("alice", "notes"), ("alice", "work", "q3"), ("bob", "notes"),
    ]  # fmt: skip
    assert store.list_namespaces(prefix=("alice",)) == [("alice", "notes"), ("alice", "work", "q3")]
    assert store.list_namespaces(suffix=("notes",)) == [("alice", "notes"), ("bob", "notes")]
    assert store.list_namespaces(max_depth=1) == [("alice",), ("bob",)]
    assert store.list_namespaces(prefix=("*", "notes")) == [("alice", "notes"), ("bob", "notes")]
    assert store.list_namespaces(prefix=("carol",)) == []
    assert store.list_namespaces(prefix=(" ",)) == []  # no user can have that id
    assert store.list_namespaces(limit=1, offset=1) == [("alice", "work", "q3")]


def test_a_user_id_in_second_place_keeps_each_persons_items_their_own(
    store: MemoryPlatformStore,
) -> None:
    """LangMem's namespaces, ``("memories", "{user_id}")``: with ``user_position=1`` each
    person's items are their own user's memory (searched, listed and deleted with it),
    not one user "memories" shared by everybody."""
    mp = store.platform
    lang = MemoryPlatformStore(mp, user_position=1)
    lang.put(("memories", "alice"), "dog", {"text": "I adopted a dog named Rex"})
    lang.put(("memories", "alice", "work"), "boss", {"text": "My manager is called Dana"})
    lang.put(("memories", "bob"), "dog", {"text": "My dog Rex loves the beach"})

    assert sorted(mp.store.list_users()) == ["alice", "bob"]
    assert lang.get(("memories", "alice"), "dog").value == {"text": "I adopted a dog named Rex"}
    assert lang.get(("memories", "carol"), "dog") is None
    found = lang.search(("memories", "alice"), query="Rex the dog")
    assert [(i.namespace, i.key) for i in found] == [(("memories", "alice"), "dog")]
    assert {i.key for i in lang.search(("memories", "alice"))} == {"dog", "boss"}
    assert [i.key for i in lang.search(("memories", "alice", "work"))] == ["boss"]
    mp.wait_for_indexing("alice")
    assert [r.text for r in mp.search("alice", "Rex the dog", expand_depth=0)] == [
        "I adopted a dog named Rex"
    ]  # the platform's own search of alice: hers alone

    assert lang.list_namespaces() == [
        ("memories", "alice"), ("memories", "alice", "work"), ("memories", "bob"),
    ]  # fmt: skip
    assert lang.list_namespaces(prefix=("memories", "bob")) == [("memories", "bob")]
    assert lang.list_namespaces(prefix=("memories", "*"), max_depth=2) == [
        ("memories", "alice"), ("memories", "bob"),
    ]  # fmt: skip
    for no_user in [("memories",), ()]:
        with pytest.raises(InvalidNamespaceError, match="position 1"):
            lang.search(no_user, query="Rex")
    with pytest.raises(InvalidNamespaceError, match="position 1"):
        lang.put(("alice",), "k", {"text": "x"})

    mp.delete_user("alice")
    assert lang.get(("memories", "alice"), "dog") is None
    assert lang.get(("memories", "bob"), "dog") is not None
    assert lang.list_namespaces() == [("memories", "bob")]
    with pytest.raises(ValueError, match="0 or more"):
        MemoryPlatformStore(mp, user_position=-1)
    with pytest.raises(TypeError, match="int"):
        MemoryPlatformStore(mp, user_position="1")  # type: ignore[arg-type]


def test_a_namespace_that_puts_the_user_second_is_pointed_out_once(
    store: MemoryPlatformStore, caplog: pytest.LogCaptureFixture
) -> None:
    """With the user read first, a put under ("memories", "alice") makes "memories" a
    user: a warning names ``user_position=1``, once; a user's own namespaces draw none."""
    with caplog.at_level(logging.WARNING, logger="memory_platform.integrations.langgraph_store"):
        store.put(("alice", "memories"), "k", {"text": "a note"})
        assert caplog.records == []
        store.put(("memories", "alice"), "k", {"text": "a note"})
        store.put(("memories", "bob"), "k", {"text": "a note"})
    [warning] = caplog.records
    assert "user_position=1" in warning.getMessage() and "'memories'" in warning.getMessage()


def test_a_profile_kept_as_fields_is_found_by_what_its_fields_say(
    store: MemoryPlatformStore,
) -> None:
    """Values with no sentence in them: each field is read by its name, lists and numbers
    too, and a record in the user's namespace that names no one else is the user's."""
    profile = ("dana", "profile")
    store.put(profile, "health", {"name": "Dana", "allergies": ["peanuts", "shellfish"]})
    store.put(profile, "food", {"favorite_food": "sushi"})
    store.put(profile, "work", {"occupation": "nurse", "years": 12})
    store.put(profile, "home", {"city": "Lisbon"})

    def first(query: str) -> str | None:
        found = store.search(profile, query=query)
        return found[0].key if found else None

    assert first("Am I allergic to shellfish?") == "health"  # a list, beside a string
    assert first("What is my favourite food?") == "food"
    assert first("How many years have I worked as a nurse?") == "work"
    assert store.search(profile, query="quantum chromodynamics lecture") == []
    assert store.get(profile, "health").value == {  # type: ignore[union-attr]
        "name": "Dana", "allergies": ["peanuts", "shellfish"],
    }  # fmt: skip


def test_an_item_put_with_index_false_is_kept_and_listed_but_never_matched(
    store: MemoryPlatformStore,
) -> None:
    store.put(("fay",), "draft", {"text": "Fay is learning the cello"}, index=False)
    store.put(("fay",), "hobby", {"text": "Fay plays the cello every evening"})

    assert store.get(("fay",), "draft") is not None
    assert {i.key for i in store.search(("fay",))} == {"draft", "hobby"}
    assert [i.key for i in store.search(("fay",), query="cello")] == ["hobby"]
    # nor does the agent's own memory search bring it into a prompt
    found = store.platform.search("fay", "Fay is learning the cello", record_access=False)
    assert found and all("learning" not in r.text for r in found)
    assert store.platform.store.stats("fay").vectors.get("episode") == 1  # nor embedded

    store.put(("fay",), "draft", {"text": "Fay is learning the cello"})  # indexed this time
    assert [i.key for i in store.search(("fay",), query="learning the cello")][:1] == ["draft"]


def test_a_value_that_cannot_be_kept_is_refused_and_nothing_is_written(
    store: MemoryPlatformStore,
) -> None:
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(5_000):
        inner["k"] = {}
        inner = inner["k"]
    looped: dict[str, Any] = {"a": 1}
    looped["self"] = looped
    for value in (deep, looped, {"score": math.nan}, {"limit": [math.inf]}):
        with pytest.raises(ValueError, match="value: must be JSON"):
            store.put(("erin",), "k", value)
    for value in (["a", "list"], "text", 3.5, True):
        with pytest.raises(ValueError, match="value: a store value is a dict"):
            store.put(("erin",), "k", value)  # type: ignore[arg-type]
    assert store.get(("erin",), "k") is None
    store.put(("erin",), "when", {"met": datetime(2025, 5, 1)})  # a date is kept as its text
    assert store.get(("erin",), "when").value == {"met": "2025-05-01 00:00:00"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda st: st.put(("erin",), "k", {"text": "x"}, index=42), "index"),
        (lambda st: st.put(("erin",), "k\ud800", {"text": "x"}), "key"),
        (lambda st: st.put(("erin", "n\udfff"), "k", {"text": "x"}), "namespace"),
        (lambda st: st.search(("erin",), limit=-1), "limit"),
        (lambda st: st.search(("erin",), query="x", offset=-3), "offset"),
        (lambda st: st.list_namespaces(limit=-1), "limit"),
        (lambda st: st.list_namespaces(max_depth=-1), "max_depth"),
    ],
)
def test_bad_arguments_are_a_value_error_naming_them(
    store: MemoryPlatformStore, call: Callable[[MemoryPlatformStore], object], field: str
) -> None:
    """Each raised TypeError from inside, an error naming "metadata", or gave a silently
    wrong page (a negative slice counts from the end); nothing is written."""
    store.put(("erin",), "kept", {"text": "a note"})
    with pytest.raises(ValueError, match=field):
        call(store)
    assert [i.key for i in store.search(("erin",))] == ["kept"]


def test_a_listing_under_a_prefix_no_user_can_have_is_empty(store: MemoryPlatformStore) -> None:
    store.put(("erin",), "kept", {"text": "a note"})  # it raised UnicodeEncodeError
    assert store.list_namespaces(prefix=("x\ud800",)) == []


def expiry(store: MemoryPlatformStore, user: str) -> dict[str, datetime | None]:
    """Each of the user's items' stored expiry, by key."""
    return {
        e.metadata["langgraph"]["key"]: e.expires_at
        for e in store.platform.store.list_episodes(user)
    }


def wait_until_past(moment: datetime | None) -> None:
    """Sleep until the clock has passed ``moment`` (a lower bound on time, never a limit:
    a loaded machine only waits less)."""
    assert moment is not None
    while datetime.now(UTC) <= moment:
        time.sleep(0.005)


def run_out(store: MemoryPlatformStore, user: str, key: str) -> None:
    """Let the item's TTL run out now: its expiry moved to a moment past (no waiting on
    a clock, so a slow machine cannot expire it early)."""
    [ref] = [e.id for e in store.platform.store.list_episodes(user)
             if e.metadata["langgraph"]["key"] == key]  # fmt: skip
    past = datetime.now(UTC) - timedelta(seconds=1)
    assert store.platform.store.set_episode_expiry(user, {ref: past}) == 1


def test_an_item_put_with_a_ttl_is_gone_once_it_expires(store: MemoryPlatformStore) -> None:
    """Once its TTL has run out an item is read, searched and listed nowhere (the agent's
    own memory search neither), the sweep deletes it, and a put of its key is a new item."""
    store.put(("gus", "scratch"), "spot", {"text": "Gus parked at spot B12"}, ttl=1)
    store.put(("gus", "notes"), "car", {"text": "Gus drives a blue car to work"}, ttl=60)
    store.put(("gus", "notes"), "job", {"text": "Gus works as a nurse"})
    assert store.get(("gus", "scratch"), "spot") is not None
    assert "spot" in {i.key for i in store.search(("gus",), query="where did Gus park")}
    run_out(store, "gus", "spot")

    assert store.get(("gus", "scratch"), "spot") is None
    assert store.get(("gus", "notes"), "car") is not None  # an hour: not yet
    assert {i.key for i in store.search(("gus",), query="where did Gus park")} <= {"car", "job"}
    assert {i.key for i in store.search(("gus",))} == {"car", "job"}
    assert store.list_namespaces(prefix=("gus",)) == [("gus", "notes")]
    found = store.platform.search("gus", "Gus parked at spot B12", record_access=False)
    assert all("B12" not in r.text for r in found)
    assert store.sweep_ttl() == 1 and store.sweep_ttl() == 0
    assert set(expiry(store, "gus")) == {"car", "job"}
    assert expiry(store, "gus")["job"] is None

    store.put(("gus", "scratch"), "spot", {"text": "Gus parked at spot C3"})
    again = store.get(("gus", "scratch"), "spot")
    assert again is not None and again.value["text"].endswith("C3")
    assert again.created_at == again.updated_at  # a new item, not the expired one updated


def test_reading_an_item_restarts_its_ttl_unless_told_not_to(
    store: MemoryPlatformStore,
) -> None:
    """``get`` and ``search`` restart a read item's TTL (``refresh_ttl``, default on); a
    store configured with ``refresh_on_read: False`` does not, and its ``default_ttl`` is
    the TTL of an item put without one."""
    store.put(("hal",), "tea", {"text": "Hal drinks green tea every morning"}, ttl=60)
    store.put(("hal",), "plain", {"text": "Hal drinks water at night"})
    stamps = [expiry(store, "hal")["tea"]]

    def read(refresh: bool | None) -> None:
        wait_until_past(stamps[-1] - timedelta(minutes=60))  # a moment after the last
        store.get(("hal",), "tea", refresh_ttl=refresh)
        store.search(("hal",), query="green tea", refresh_ttl=refresh)
        stamps.append(expiry(store, "hal")["tea"])

    read(False)
    read(None)
    assert stamps[1] == stamps[0] and stamps[2] > stamps[1]
    assert expiry(store, "hal")["plain"] is None  # no TTL: none given on reading either

    quiet = MemoryPlatformStore(store.platform, ttl={"default_ttl": 30, "refresh_on_read": False})
    quiet.put(("ida",), "k", {"text": "Ida keeps bees"})
    put_at = expiry(quiet, "ida")["k"]
    assert put_at is not None and put_at - datetime.now(UTC) <= timedelta(minutes=30)
    quiet.get(("ida",), "k")
    quiet.search(("ida",), query="bees")
    assert expiry(quiet, "ida")["k"] == put_at
    quiet.get(("ida",), "k", refresh_ttl=True)
    assert expiry(quiet, "ida")["k"] > put_at  # type: ignore[operator]


def test_a_ttl_that_is_no_positive_number_of_minutes_is_refused(
    store: MemoryPlatformStore,
) -> None:
    for ttl in (0, -5, float("nan"), float("inf"), 10**12):
        with pytest.raises(ValueError, match="a TTL is a positive number of minutes"):
            store.put(("jo",), "k", {"text": "Jo sails"}, ttl=ttl)
    assert store.get(("jo",), "k") is None


def test_the_ttl_sweeper_deletes_expired_items_until_stopped(
    store: MemoryPlatformStore,
) -> None:
    swept: queue.Queue[int] = queue.Queue()

    class Observed(MemoryPlatformStore):
        def sweep_ttl(self) -> int:
            count = -1  # a sweep that failed
            try:
                count = super().sweep_ttl()
            finally:
                swept.put(count)
            return count

    observed = Observed(store.platform, ttl={"sweep_interval_minutes": 1})
    observed.put(("kim",), "k", {"text": "Kim is at the dentist"}, ttl=60)
    run_out(observed, "kim", "k")
    done = observed.start_ttl_sweeper(sweep_interval_minutes=0.0005)
    assert observed.start_ttl_sweeper() is done  # one sweeper: started again, the same
    while (count := swept.get()) == 0:  # no timeout: a loaded machine only makes it slower
        pass
    assert count == 1 and expiry(observed, "kim") == {}
    assert observed.stop_ttl_sweeper() and done.result() is None


def test_the_async_interface_does_the_same(store: MemoryPlatformStore) -> None:
    async def run() -> tuple[Any, ...]:
        await store.aput(("carol",), "k", {"text": "Carol plays the cello every evening"})
        got = await store.aget(("carol",), "k")
        found = await store.asearch(("carol",), query="cello")
        namespaces = await store.alist_namespaces(prefix=("carol",))
        await store.adelete(("carol",), "k")
        return got, found, namespaces, await store.aget(("carol",), "k")

    got, found, namespaces, gone = anyio.run(run)

    assert got.value["text"].startswith("Carol plays")
    assert [i.key for i in found] == ["k"] and namespaces == [("carol",)] and gone is None


@tool
def remember(fact: str) -> str:
    """Store a fact about the user in long-term memory."""
    key = f"fact-{datetime.now().timestamp()}"
    get_store().put(("alice", "facts"), key, {"text": fact})
    return "remembered"


@tool
def recall(query: str) -> str:
    """Search the user's long-term memory."""
    items = get_store().search(("alice", "facts"), query=query)
    return json.dumps([i.value["text"] for i in items])


def test_an_agent_remembers_across_threads(store: MemoryPlatformStore) -> None:
    model = ScriptedChatModel(
        messages=iter(
            [
                AIMessage("", tool_calls=[call("remember", "t1", fact="I am allergic to peanuts")]),
                AIMessage("Noted: no peanuts."),
                AIMessage("", tool_calls=[call("recall", "t2", query="peanut allergy")]),
                AIMessage("You are allergic to peanuts."),
            ]
        )
    ).bind_tools([remember, recall])

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([remember, recall]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    app = graph.compile(checkpointer=InMemorySaver(), store=store)

    app.invoke(
        {"messages": [HumanMessage("I'm allergic to peanuts")]},
        {"configurable": {"thread_id": "monday"}},
    )
    later = app.invoke(
        {"messages": [HumanMessage("What should I avoid eating?")]},
        {"configurable": {"thread_id": "friday"}},
    )

    recalled = [m for m in later["messages"] if isinstance(m, ToolMessage)]
    assert len(later["messages"]) == 4  # a new thread: nothing of monday's conversation
    assert json.loads(str(recalled[0].content)) == ["I am allergic to peanuts"]
    assert store.platform.stats("alice").episodes == 1
