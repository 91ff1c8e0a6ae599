"""A big user's caches load without holding up other users' searches.

At 100,000 memories a user's first search in a process loads seconds of vectors and
builds their lexical index; while the caches' one lock was held for that, every other
user's search in the process waited (up to 5.6 s on the development machine). Loads now
hold only their (user, kind)'s own lock, and the first search's vector load runs on a
thread of its own, not on the side-read threads other searches need.
"""

from __future__ import annotations

import platform as platform_module
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_platform import MemoryPlatform
from memory_platform.builder import build_memory
from memory_platform.heap import release_freed_memory
from memory_platform.models import VectorKind
from memory_platform.retrieval import retriever
from memory_platform.store import EmbeddingSignature, lexical_cache, vector_cache
from memory_platform.store.key_locks import KeyLocks
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.tools.arguments import CreateMemoryArgs

HANG_GUARD = 120.0
"""Seconds a blocked load waits at most: a guard against a hang, never reached when the
behaviour holds."""


def _write(store: SQLiteGraphStore, user: str, count: int, dim: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    graphs = [
        build_memory(user, CreateMemoryArgs(subject="我", memory_type="事件", topic=f"咖啡 {i}"))
        for i in range(count)
    ]
    store.write_memories(graphs)
    vectors = {g.memory.id: rng.standard_normal(dim).astype(np.float32) for g in graphs}
    store.set_embeddings(user, VectorKind.MEMORY, vectors)


def test_loading_a_users_caches_holds_only_that_users_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lexical_cache, "INDEX_FROM_DOCUMENTS", 5)  # an index of its own
    store = SQLiteGraphStore(tmp_path / "s.db", EmbeddingSignature(model="test", dimension=8))
    _write(store, "big", 12, 8, seed=1)
    held: list[tuple[str, bool, bool]] = []
    real_load = vector_cache._load_new_rows

    def load(conn: Any, user_id: str, kind: str, entry: Any, dim: int) -> None:
        own = store._cache._key_lock((user_id, kind))
        held.append(("vectors", store._cache._lock.locked(), own.locked()))
        real_load(conn, user_id, kind, entry, dim)

    real_add = lexical_cache._UserIndex.add

    def add(index: Any, rows: Any, only: Any = None) -> None:
        if only is None:  # building the index, not ranking a small user's matches
            own = store._lexicon._user_locks("big")
            held.append(("lexical", store._lexicon._lock.locked(), own.locked()))
        real_add(index, rows, only)

    monkeypatch.setattr(vector_cache, "_load_new_rows", load)
    monkeypatch.setattr(lexical_cache._UserIndex, "add", add)
    assert store.vector_search("big", VectorKind.MEMORY, np.ones(8, np.float32), k=3)
    assert store.lexical_search("big", "咖啡", [VectorKind.MEMORY], 3)
    # the shared lock free, the user's own lock held, for each kind of load
    assert {h[0] for h in held} == {"vectors", "lexical"}
    assert all(not shared and own for _, shared, own in held)
    store.close()


def test_a_search_goes_on_while_another_users_first_load_is_under_way(
    platform: MemoryPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The big user's memory-vector load and lexical lookup are both stopped mid-way: the
    other user's search still has a side thread and its own locks. The other user is one
    whose memory matrix fell in the big user's stripe when the caches spread their keys
    over 64 locks by hash, so this fails on striped locks too."""
    cache = platform.store._cache  # type: ignore[attr-defined]

    def stripe(key: object) -> int:
        return hash(key) % 64

    small = next(
        name
        for name in (f"small-{i}" for i in range(1_000_000))
        if stripe((name, "memory")) == stripe(("big", "memory"))
    )
    platform.create_memory(small, subject="我", memory_type="事件", topic="咖啡", object="拿铁")
    platform.create_memory("big", subject="我", memory_type="事件", topic="跑步", object="五公里")
    assert platform.wait_for_indexing()

    loading, small_done, gave_up = threading.Event(), threading.Event(), threading.Event()

    def until_small_done() -> None:
        if not small_done.wait(HANG_GUARD):
            gave_up.set()  # the other search could not end while these waited

    real_load = vector_cache._load_new_rows

    def load(conn: Any, user_id: str, kind: str, entry: Any, dim: int) -> None:
        if user_id == "big" and kind == "memory" and not loading.is_set():
            loading.set()  # the big user's first load, stopped until the other search ends
            until_small_done()
        real_load(conn, user_id, kind, entry, dim)

    real_lexical = platform.store.lexical_search

    def lexical(user_id: str, *args: Any, **kwargs: Any) -> Any:
        if user_id == "big":  # a big user's index being built holds a side thread too
            until_small_done()
        return real_lexical(user_id, *args, **kwargs)

    monkeypatch.setattr(vector_cache, "_load_new_rows", load)
    monkeypatch.setattr(platform.store, "lexical_search", lexical)
    cache.clear()
    found: dict[str, list[Any]] = {}
    big = threading.Thread(target=lambda: found.setdefault("big", platform.search("big", "跑步")))
    big.start()
    assert loading.wait(HANG_GUARD)
    found["small"] = platform.search(small, "咖啡")  # while the big load is stopped
    small_done.set()
    big.join(HANG_GUARD)
    assert not gave_up.is_set() and any("拿铁" in r.text for r in found["small"])
    assert any("五公里" in r.text for r in found["big"])


def test_a_big_users_index_builds_leave_the_side_threads_to_other_users(
    platform: MemoryPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two searches of a big user at once in a fresh process (an agent's parallel tool
    calls): one builds the user's lexical index, the other waits for it. Both are stopped
    until the small user's search ends. On the two side-read threads they would hold both,
    and the small user's lexical lookup, which needs one, would wait for them."""
    monkeypatch.setattr(lexical_cache, "INDEX_FROM_DOCUMENTS", 5)  # "big" builds an index
    for i in range(8):
        platform.create_memory("big", subject="我", memory_type="事件", topic=f"跑步 {i}")
    platform.create_memory("small", subject="我", memory_type="事件", topic="咖啡", object="拿铁")
    assert platform.wait_for_indexing()
    store = platform.store
    assert not store.lexical_in_memory("big") and store.lexical_in_memory("small")

    waiting, small_done, gave_up = threading.Semaphore(0), threading.Event(), threading.Event()
    real_lexical = store.lexical_search

    def lexical(user_id: str, *args: Any, **kwargs: Any) -> Any:
        if user_id == "big":  # building the index, or waiting on the build's lock
            waiting.release()
            if not small_done.wait(HANG_GUARD):
                gave_up.set()  # the small search could not end while these waited
        return real_lexical(user_id, *args, **kwargs)

    monkeypatch.setattr(store, "lexical_search", lexical)
    trimmed: list[str] = []  # what the build freed goes back to the system, on its thread
    monkeypatch.setattr(
        retriever, "release_freed_memory", lambda: trimmed.append(threading.current_thread().name)
    )
    found: dict[str, list[Any]] = {}
    bigs = [
        threading.Thread(target=lambda q=q: found.setdefault(q, platform.search("big", q)))
        for q in ("跑步 1", "跑步 2")
    ]
    for thread in bigs:
        thread.start()
    for _ in bigs:  # both big lookups under way
        assert waiting.acquire(timeout=HANG_GUARD)
    found["small"] = platform.search("small", "咖啡")
    small_done.set()
    for thread in bigs:
        thread.join(HANG_GUARD)
    assert not gave_up.is_set() and any("拿铁" in r.text for r in found["small"])
    assert all(found[q] for q in ("跑步 1", "跑步 2"))
    assert store.lexical_in_memory("big")  # built: the next lookups take the side threads
    assert len(trimmed) == 2 and all(name.startswith("memory-warm") for name in trimmed)
    platform.search("big", "跑步 4")
    assert len(trimmed) == 2  # a lookup that builds nothing frees nothing worth a trim
    platform.delete_memory("big", found["跑步 1"][0].id)
    assert not store.lexical_in_memory("big")  # the index has a deletion to catch up with
    monkeypatch.setattr(store, "lexical_search", real_lexical)
    assert platform.search("big", "跑步 3") and store.lexical_in_memory("big")


def test_freed_memory_is_handed_back_where_the_c_library_can() -> None:
    glibc = platform_module.libc_ver()[0] == "glibc"
    assert release_freed_memory() is glibc


def test_a_keys_lock_is_one_while_in_use_and_forgotten_after() -> None:
    locks = KeyLocks()
    first = locks(("alice", "memory"))
    with first:
        assert locks(("alice", "memory")) is first  # every caller meanwhile waits on it
        assert locks(("bob", "memory")) is not first
        assert not locks(("bob", "memory")).locked()
    assert locks(("alice", "memory")) is first  # still referenced here: still the one
    del first
    assert len(locks) == 0  # nobody holds a lock: none is kept
