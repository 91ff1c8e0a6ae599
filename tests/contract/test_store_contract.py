"""Behaviour every GraphStore backend must show; runs once per backend."""

from __future__ import annotations

import itertools
import math
import re
import time
from collections import Counter
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_platform.builder import build_memory
from memory_platform.errors import (
    ConflictError,
    EmbeddingMismatchError,
    InvalidInputError,
    NotFoundError,
)
from memory_platform.models import (
    ContentNode,
    Episode,
    KnowledgePoint,
    KnowledgeType,
    KnowledgeVersion,
    LinkType,
    Memory,
    MemoryLink,
    MemoryStatus,
    MemorySubgraph,
    NodeType,
    VectorKind,
    validated,
)
from memory_platform.store import SHARED_NODE, GraphStore, open_store
from memory_platform.store.base import episode_embedding_text
from memory_platform.tools.arguments import CreateMemoryArgs

pytestmark = pytest.mark.contract

REF = datetime(2025, 11, 5, 10, 0, tzinfo=UTC)


def write(
    store: GraphStore,
    user: str,
    subject: str,
    memory_type: str,
    topic: str,
    obj: str | None = None,
    attributes: dict[str, str] | None = None,
    importance: float = 0.5,
    at: datetime = REF,
) -> MemorySubgraph:
    args = CreateMemoryArgs(
        subject=subject,
        memory_type=memory_type,
        topic=topic,
        object=obj,
        attributes=attributes or {},
        importance=importance,
    )
    graph = build_memory(user, args, reference_time=at)
    store.write_memory(graph)
    return graph


def link(
    store: GraphStore, user: str, a: MemorySubgraph, b: MemorySubgraph, kind: LinkType
) -> None:
    store.add_link(
        MemoryLink(user_id=user, source_id=a.memory.id, target_id=b.memory.id, type=kind)
    )


# -- writing and reading ------------------------------------------------------------------


def test_memory_round_trips_with_nodes_edges_and_times(store: GraphStore, users) -> None:
    user = users()
    graph = write(
        store, user, "我", "事件", "吃饭", "白米饭", {"时间": "今天", "地点": "食堂"}, 0.3
    )

    record = store.get_memory(user, graph.memory.id)

    assert record is not None
    memory = record.memory
    assert memory.title == "我吃饭白米饭"
    assert memory.attributes == {"时间": "2025-11-05", "地点": "食堂"}
    assert memory.event_time == datetime(2025, 11, 5, tzinfo=UTC)
    assert memory.status == MemoryStatus.STAGED
    assert memory.importance == pytest.approx(0.3)
    assert memory.created_at == REF
    kinds = sorted((n.kind.value, n.content) for n in record.nodes)
    assert kinds == sorted(
        [
            ("Subject", "user"),
            ("Topic", "吃饭"),
            ("Object", "白米饭"),
            ("Value", "2025-11-05"),
            ("Value", "食堂"),
        ]
    )
    by_id = {n.id: n for n in record.nodes}
    edges = {
        (by_id[e.src_id].content, e.type.value, e.label, by_id[e.dst_id].content)
        for e in record.edges
    }
    assert edges == {
        ("user", "MEMORY_TYPE", "事件", "吃饭"),
        ("吃饭", "CORE_RELATION", "做", "白米饭"),
        ("吃饭", "ATTRIBUTE", "时间", "2025-11-05"),
        ("吃饭", "ATTRIBUTE", "地点", "食堂"),
    }


def test_missing_memory_is_none_and_other_users_cannot_read_it(store: GraphStore, users) -> None:
    alice, bob = users("alice"), users("bob")
    graph = write(store, alice, "我", "事实", "喜好", "咖啡")

    assert store.get_memory(bob, graph.memory.id) is None
    assert store.get_memory(alice, "no-such-memory") is None
    assert store.get_memories(bob, [graph.memory.id]) == []


def test_same_subject_is_one_shared_node(store: GraphStore, users) -> None:
    user = users()
    a = write(store, user, "小明", "事实", "喜好", "打篮球")
    b = write(store, user, "小明", "事件", "考试", "满分")

    subject_a = a.node(NodeType.SUBJECT)
    subject_b = b.node(NodeType.SUBJECT)
    assert subject_a is not None and subject_b is not None
    assert subject_a.id == subject_b.id
    assert store.stats(user).nodes["Subject"] == 1


def test_failed_write_leaves_nothing_behind(store: GraphStore, users) -> None:
    user = users()
    first = write(store, user, "我", "事实", "情绪", "开心")
    before = store.stats(user)
    # Same memory id, new topic/object nodes: the nodes are written first, then the
    # memory insert fails; the whole subgraph must roll back.
    clash = build_memory(
        user, CreateMemoryArgs(subject="我", memory_type="事件", topic="跑步", object="五公里")
    )
    clash.memory.id = first.memory.id

    with pytest.raises(ConflictError):
        store.write_memory(clash)

    after = store.stats(user)
    assert after.nodes == before.nodes
    assert after.structural_edges == before.structural_edges
    assert store.get_nodes(user, [n.id for n in clash.nodes if n.kind != NodeType.SUBJECT]) == []
    record = store.get_memory(user, first.memory.id)
    assert record is not None and record.memory.title == "我情绪开心"


def graph_of(user: str, subject: str, topic: str, obj: str) -> MemorySubgraph:
    args = CreateMemoryArgs(subject=subject, memory_type="事实", topic=topic, object=obj)
    return build_memory(user, args, reference_time=REF)


def test_a_batch_of_memories_is_written_whole_with_shared_subjects(
    store: GraphStore, users
) -> None:
    user = users()
    batch = [graph_of(user, "我", "喜欢", f"水果{i}") for i in range(30)]
    store.write_memories(batch)
    assert store.stats(user).memories == 30
    assert store.stats(user).nodes["Subject"] == 1  # one 我 node, shared by all
    record = store.get_memory(user, batch[17].memory.id)
    assert record is not None
    assert {(n.kind, n.content) for n in record.nodes} >= {(NodeType.OBJECT, "水果17")}
    assert [(e.type, e.label) for e in record.edges] == [(e.type, e.label) for e in batch[17].edges]
    assert store.lexical_search(user, "水果17", [VectorKind.MEMORY], k=3)[0].ref_id == (
        batch[17].memory.id
    )
    store.write_memories([])  # nothing to do is not an error


def test_a_batch_with_one_bad_memory_writes_nothing(store: GraphStore, users) -> None:
    user, other = users(), users("other")
    first = write(store, user, "我", "事实", "情绪", "开心")
    clash = graph_of(user, "我", "跑步", "五公里")
    clash.memory.id = first.memory.id  # an id that exists: the whole batch fails
    fine = [graph_of(user, "我", "看书", f"第{i}本") for i in range(5)]
    with pytest.raises(ConflictError):
        store.write_memories([*fine, clash])
    assert store.stats(user).memories == 1
    assert store.get_memories(user, [g.memory.id for g in fine]) == []
    with pytest.raises(InvalidInputError, match="one user"):
        store.write_memories([graph_of(user, "我", "a", "b"), graph_of(other, "我", "a", "b")])
    assert store.stats(other).memories == 0


def test_node_id_of_another_user_is_refused(store: GraphStore, users) -> None:
    alice, bob = users("alice"), users("bob")
    theirs = write(store, alice, "小红", "事实", "职业", "医生")
    topic = theirs.node(NodeType.TOPIC)
    assert topic is not None
    graph = build_memory(
        bob, CreateMemoryArgs(subject="我", memory_type="事实", topic="职业", object="老师")
    )
    graph.nodes[1] = ContentNode(id=topic.id, user_id=bob, kind=NodeType.TOPIC, content="职业")
    graph.edges[0].dst_id = topic.id
    graph.edges[1].src_id = topic.id

    with pytest.raises(ConflictError):
        store.write_memory(graph)

    assert store.stats(bob).memories == 0
    assert store.stats(bob).nodes == {}


def test_the_clock_a_users_latest_turn_named_is_theirs_alone(store: GraphStore, users) -> None:
    """``latest_offset``: the offset recorded by the user's latest turn that records one,
    by the time said, not the order written; a later turn in UTC names no clock. Another
    user's turns, and a deleted turn, do not count."""
    alice, bob, carol = users(), users(), users()
    turns = [  # (minutes after REF, the offset it records), written out of time order
        (30, "-05:00"), (10, "+08:00"), (50, None), (40, "+05:30"), (20, "+09:00")
    ]  # fmt: skip
    written = [
        Episode(user_id=alice, text=f"turn at {minutes}", timestamp=REF + timedelta(minutes=minutes),
                metadata={"utc_offset": offset} if offset else {"role": "user"})
        for minutes, offset in turns
    ]  # fmt: skip
    store.add_episodes(written)
    store.add_episodes([
        Episode(user_id=bob, text="later, elsewhere", timestamp=REF + timedelta(hours=1),
                metadata={"utc_offset": "-08:00"}),
    ])  # fmt: skip
    assert store.latest_offset(alice) == "+05:30"
    assert store.latest_offset(bob) == "-08:00"
    assert store.latest_offset(carol) is None

    assert store.delete_episodes(alice, [written[3].id]) == 1
    assert store.latest_offset(alice) == "-05:00"
    store.delete_user(alice)
    assert store.latest_offset(alice) is None
    assert store.latest_offset(bob) == "-08:00"


@pytest.fixture
def shanghai_clock(monkeypatch: pytest.MonkeyPatch):
    """The process's local time zone is UTC+8 for the test (a user's laptop in China)."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("shanghai_clock")
def test_a_naive_datetime_given_to_the_store_is_utc_whatever_the_machines_zone(
    store: GraphStore, users
) -> None:
    """As everywhere in the platform, a datetime without a zone is UTC: never the
    machine's local time (eight hours off in Shanghai), and never a Neo4j LocalDateTime,
    which compares with no stored time."""
    naive = REF.replace(tzinfo=None)
    user = users()
    item = Episode(user_id=user, text="a scratch note", timestamp=REF,
                   expires_at=REF + timedelta(hours=1))  # fmt: skip
    store.add_episodes([item])
    assert store.expired_episode_ids(user, naive + timedelta(minutes=30)) == []
    assert store.expired_episode_ids(user, naive + timedelta(hours=2)) == [item.id]

    assert store.set_episode_expiry(user, {item.id: naive + timedelta(hours=5)}) == 1
    [moved] = store.get_episodes(user, [item.id])
    assert moved.expires_at == REF + timedelta(hours=5)
    assert store.expired_episode_ids(user, naive + timedelta(hours=4)) == []

    graph = write(store, user, "我", "观点", "喜欢", "下雨天")
    updated = store.update_memory(
        user, graph.memory.id, valid_from=naive, invalid_at=naive + timedelta(days=1)
    )
    assert (updated.valid_from, updated.invalid_at) == (REF, REF + timedelta(days=1))


def test_metadata_json_cannot_hold_is_refused_and_nothing_is_written(
    store: GraphStore, users
) -> None:
    """NaN and the infinities have no JSON form: SQLite called the row malformed JSON (a
    storage error) where Neo4j kept it. Both refuse it as invalid input now, and write
    nothing, as they do a lone surrogate (UTF-8 has no form for it: it raised
    UnicodeEncodeError); a value JSON has no type for (a date, bytes) is kept as its text."""
    user = users()
    nans = ({"score": math.nan}, {"limits": [1, math.inf]}, {"deep": {"x": -math.inf}})
    surrogates = ({"note": "half \ud800 a pair"}, {"k\udfff": 1})  # JSON escapes give these
    for bad, says in [
        *((n, "must be JSON") for n in nans),
        *((u, "must be valid Unicode") for u in surrogates),
    ]:
        with pytest.raises(InvalidInputError, match=f"metadata: {says}"):
            store.add_episodes([Episode(user_id=user, text="a note", metadata=bad)])
        graph = build_memory(user, CreateMemoryArgs(subject="我", memory_type="事实", topic="t"))
        graph.memory.metadata = bad
        with pytest.raises(InvalidInputError, match=f"metadata: {says}"):
            store.write_memory(graph)
    assert store.stats(user).episodes == 0 and store.stats(user).memories == 0

    kept = write(store, user, "我", "事实", "喜欢", "咖啡")
    with pytest.raises(InvalidInputError, match="metadata"):
        store.update_memory(user, kept.memory.id, metadata={"weight": math.nan})
    [said] = store.add_episodes([Episode(user_id=user, text="x", metadata={"on": REF})])
    assert store.get_episodes(user, [said])[0].metadata == {"on": str(REF)}


# -- updating -------------------------------------------------------------------------


def test_update_status_importance_and_validity(store: GraphStore, users) -> None:
    user = users()
    graph = write(store, user, "我", "观点", "喜欢", "下雨天")
    invalid_at = REF + timedelta(days=1)

    updated = store.update_memory(
        user,
        graph.memory.id,
        status=MemoryStatus.CONSOLIDATED,
        importance=0.9,
        invalid_at=invalid_at,
    )

    assert updated.status == MemoryStatus.CONSOLIDATED
    assert updated.importance == pytest.approx(0.9)
    assert updated.invalid_at == invalid_at
    cleared = store.update_memory(user, graph.memory.id, clear_invalid=True)
    assert cleared.invalid_at is None
    assert store.list_staged(user) == []


def test_a_change_only_while_current_is_refused_once_the_memory_is_superseded(
    store: GraphStore, users
) -> None:
    """``only_if_current`` is a compare-and-set on ``invalid_at``, in the write's own
    transaction: what a correction and a retraction use so that two at once cannot both
    supersede one memory."""
    user = users()
    graph = write(store, user, "我", "观点", "喜欢", "下雨天")
    first = store.update_memory(
        user, graph.memory.id, invalid_at=REF, importance=0.9, only_if_current=True
    )
    assert first.invalid_at == REF and first.importance == pytest.approx(0.9)

    with pytest.raises(ConflictError):
        store.update_memory(
            user, graph.memory.id, invalid_at=REF + timedelta(days=1), importance=0.1,
            only_if_current=True,
        )  # fmt: skip
    kept = store.get_memories(user, [graph.memory.id])[0]
    assert kept.invalid_at == REF and kept.importance == pytest.approx(0.9)  # nothing changed
    with pytest.raises(NotFoundError):
        store.update_memory(user, "no-such-memory", importance=0.5, only_if_current=True)
    assert store.update_memory(user, graph.memory.id, importance=0.2).importance == 0.2


def superseding_links(user: str, newer: MemorySubgraph, older: MemorySubgraph) -> list[MemoryLink]:
    return [
        MemoryLink(user_id=user, source_id=newer.memory.id, target_id=older.memory.id, type=kind)
        for kind in (LinkType.SUPERSEDES, LinkType.CONFLICTS_WITH)
    ]


def test_supersede_invalidates_the_older_memory_and_links_the_two(store: GraphStore, users) -> None:
    user = users()
    coffee = write(store, user, "我", "事实", "喝", "咖啡")
    tea = write(store, user, "我", "事实", "喝", "茶", at=REF + timedelta(days=1))

    store.supersede_memory(
        user, tea.memory.id, coffee.memory.id, at=REF + timedelta(days=1),
        links=superseding_links(user, tea, coffee),
    )  # fmt: skip

    old, new = store.get_memories(user, [coffee.memory.id, tea.memory.id])
    assert old.invalid_at == REF + timedelta(days=1) and new.invalid_at is None
    assert {(lk.source_id, lk.target_id, lk.type) for lk in store.get_links(user, old.id)} == {
        (new.id, old.id, LinkType.SUPERSEDES),
        (new.id, old.id, LinkType.CONFLICTS_WITH),
    }


@pytest.mark.parametrize("changed", ["older", "newer"])
def test_supersede_writes_nothing_once_either_memory_is_no_longer_current(
    store: GraphStore, users, changed: str
) -> None:
    """What a consolidation relies on when the user corrects or retracts one of the two
    while the LLM judges them: neither the links nor the older's ``invalid_at`` (a
    correction's own time is kept) are written."""
    user = users()
    older = write(store, user, "我", "事实", "喝", "咖啡")
    newer = write(store, user, "我", "事实", "喝", "茶", at=REF + timedelta(days=1))
    corrected_at = REF + timedelta(days=2)
    target = older if changed == "older" else newer
    store.update_memory(user, target.memory.id, invalid_at=corrected_at, only_if_current=True)

    with pytest.raises(ConflictError):
        store.supersede_memory(
            user, newer.memory.id, older.memory.id, at=REF + timedelta(days=1),
            links=superseding_links(user, newer, older),
        )  # fmt: skip

    kept = {
        m.id: m.invalid_at for m in store.get_memories(user, [older.memory.id, newer.memory.id])
    }
    assert kept == {
        older.memory.id: corrected_at if changed == "older" else None,
        newer.memory.id: corrected_at if changed == "newer" else None,
    }
    assert store.get_links(user, older.memory.id) == []


def test_supersede_by_a_forgotten_or_foreign_memory_writes_nothing(
    store: GraphStore, users
) -> None:
    user, other = users(), users()
    older = write(store, user, "我", "事实", "喝", "咖啡")
    forgotten = write(store, user, "我", "事实", "喝", "茶")
    foreign = write(store, other, "我", "事实", "喝", "茶")
    store.delete_memory(user, forgotten.memory.id)

    for newer in (forgotten, foreign):
        with pytest.raises(NotFoundError):
            store.supersede_memory(
                user, newer.memory.id, older.memory.id, at=REF,
                links=superseding_links(user, newer, older),
            )  # fmt: skip

    assert store.get_memories(user, [older.memory.id])[0].invalid_at is None
    assert store.get_links(user, older.memory.id) == []
    assert store.get_memories(other, [foreign.memory.id])[0].invalid_at is None


def test_supersede_refuses_links_that_are_not_between_the_two(store: GraphStore, users) -> None:
    user = users()
    older = write(store, user, "我", "事实", "喝", "咖啡")
    newer = write(store, user, "我", "事实", "喝", "茶")
    third = write(store, user, "我", "事实", "喝", "水")

    with pytest.raises(InvalidInputError, match="links"):
        store.supersede_memory(
            user, newer.memory.id, older.memory.id, at=REF,
            links=superseding_links(user, third, older),
        )  # fmt: skip
    with pytest.raises(InvalidInputError):
        store.supersede_memory(user, older.memory.id, older.memory.id, at=REF, links=[])
    assert store.get_memories(user, [older.memory.id])[0].invalid_at is None
    assert store.get_links(user, older.memory.id) == []


def _superseded(
    store: GraphStore, user: str, *, discovered: bool = True
) -> tuple[MemorySubgraph, MemorySubgraph]:
    """Two memories, the older superseded by the newer as a consolidation (discovered) or
    a person (not) writes it, and related as well."""
    older = write(store, user, "我", "事件", "工作", "加班")
    newer = write(store, user, "我", "事件", "工作", "开会", at=REF + timedelta(days=1))
    store.update_memory(user, older.memory.id, status=MemoryStatus.CONSOLIDATED)
    links = [
        link.model_copy(update={"discovered": discovered, "confidence": 0.9})
        for link in superseding_links(user, newer, older)
    ]
    store.supersede_memory(
        user, newer.memory.id, older.memory.id, at=REF + timedelta(days=1), links=links
    )
    store.add_link(
        MemoryLink(
            user_id=user, source_id=newer.memory.id, target_id=older.memory.id,
            type=LinkType.RELATED_TO,
        )
    )  # fmt: skip
    return older, newer


def test_reinstating_undoes_a_discovered_supersession(store: GraphStore, users) -> None:
    """What the review of old conflicts relies on: the older is current and staged again,
    the conflict's two links are gone and every other link stays."""
    user = users()
    older, newer = _superseded(store, user)

    assert store.reinstate_memory(user, newer.memory.id, older.memory.id) is True

    old, new = store.get_memories(user, [older.memory.id, newer.memory.id])
    assert old.invalid_at is None and old.status == MemoryStatus.STAGED
    assert new.invalid_at is None and new.status == newer.memory.status
    assert [(lk.source_id, lk.type) for lk in store.get_links(user, old.id)] == [
        (new.id, LinkType.RELATED_TO)
    ]
    assert old.id in {m.id for m in store.list_memories(user, MemoryStatus.STAGED)}


def test_reinstating_changes_nothing_but_a_consolidations_supersession(
    store: GraphStore, users
) -> None:
    """A person's supersession (a correction) is not undone, nor a memory that is current
    or reinstated already; a memory of another user or none at all is not found."""
    user, other = users(), users()
    corrected, correction = _superseded(store, user, discovered=False)
    older, newer = _superseded(store, user)
    assert store.reinstate_memory(user, newer.memory.id, older.memory.id) is True

    assert store.reinstate_memory(user, correction.memory.id, corrected.memory.id) is False
    assert store.reinstate_memory(user, newer.memory.id, older.memory.id) is False
    assert store.reinstate_memory(user, older.memory.id, newer.memory.id) is False
    kept = store.get_memories(user, [corrected.memory.id])[0]
    assert kept.invalid_at == REF + timedelta(days=1)
    assert kept.status == MemoryStatus.CONSOLIDATED
    assert {lk.type for lk in store.get_links(user, corrected.memory.id)} == {
        LinkType.SUPERSEDES, LinkType.CONFLICTS_WITH, LinkType.RELATED_TO
    }  # fmt: skip
    theirs, _ = _superseded(store, other)
    with pytest.raises(NotFoundError):
        store.reinstate_memory(user, newer.memory.id, theirs.memory.id)
    with pytest.raises(NotFoundError):
        store.reinstate_memory(user, "missing", corrected.memory.id)
    assert store.get_memories(other, [theirs.memory.id])[0].invalid_at is not None


def test_users_with_staged_memories_are_those_with_one_still_staged(
    store: GraphStore, users
) -> None:
    """What each consolidation beat queues work for: a user whose memories are all
    consolidated has none waiting (the store may hold other tests' users too)."""
    waiting, done, deleted = users(), users(), users()
    write(store, waiting, "我", "观点", "喜欢", "下雨天")
    write(store, waiting, "我", "事实", "职业", "老师")
    graph = write(store, done, "我", "观点", "喜欢", "晴天")
    store.update_memory(done, graph.memory.id, status=MemoryStatus.CONSOLIDATED)
    write(store, deleted, "我", "观点", "喜欢", "晴天")
    store.delete_user(deleted)

    found = store.users_with_staged(limit=100_000)

    assert waiting in found and found.count(waiting) == 1
    assert done not in found and deleted not in found
    assert found == sorted(found)


def test_update_rejects_bad_importance_and_unknown_memory(store: GraphStore, users) -> None:
    user = users()
    graph = write(store, user, "我", "事实", "身高", "180cm")

    with pytest.raises(InvalidInputError):
        store.update_memory(user, graph.memory.id, importance=1.5)
    with pytest.raises(NotFoundError):
        store.update_memory(user, "missing", importance=0.5)
    with pytest.raises(NotFoundError):
        store.update_memory(users("other"), graph.memory.id, importance=0.5)


def test_record_access_counts_each_call(store: GraphStore, users) -> None:
    user = users()
    graph = write(store, user, "我", "事实", "住址", "上海")
    at = REF + timedelta(hours=3)

    store.record_access(user, [graph.memory.id], at)
    store.record_access(user, [graph.memory.id], at + timedelta(hours=1))
    store.record_access(users("other"), [graph.memory.id], at)  # not theirs: no effect

    memory = store.get_memories(user, [graph.memory.id])[0]
    assert memory.access_count == 2
    assert memory.last_accessed == at + timedelta(hours=1)


def test_list_staged_oldest_first(store: GraphStore, users) -> None:
    user = users()
    later = write(store, user, "我", "事件", "跑步", at=REF + timedelta(hours=1))
    earlier = write(store, user, "我", "事件", "游泳", at=REF)
    write(store, users("other"), "我", "事件", "骑车")

    staged = store.list_staged(user)

    assert [m.id for m in staged] == [earlier.memory.id, later.memory.id]


# -- links ----------------------------------------------------------------------------


def test_links_are_stored_updated_and_listed(store: GraphStore, users) -> None:
    user = users()
    sleep = write(store, user, "我", "事件", "失眠")
    mood = write(store, user, "我", "事实", "情绪", "不开心")
    link(store, user, sleep, mood, LinkType.CAUSES)
    store.add_link(
        MemoryLink(
            user_id=user,
            source_id=sleep.memory.id,
            target_id=mood.memory.id,
            type=LinkType.CAUSES,
            importance=0.9,
        )
    )

    links = store.get_links(user, mood.memory.id)

    assert len(links) == 1
    assert (links[0].source_id, links[0].target_id, links[0].type) == (
        sleep.memory.id,
        mood.memory.id,
        LinkType.CAUSES,
    )
    assert links[0].importance == pytest.approx(0.9)


def test_link_to_missing_or_foreign_memory_is_refused(store: GraphStore, users) -> None:
    alice, bob = users("alice"), users("bob")
    mine = write(store, alice, "我", "事件", "跑步")
    theirs = write(store, bob, "我", "事件", "游泳")

    with pytest.raises(NotFoundError):
        link(store, alice, mine, theirs, LinkType.RELATED_TO)
    with pytest.raises(NotFoundError):
        store.add_link(
            MemoryLink(
                user_id=alice, source_id=mine.memory.id, target_id="nope", type=LinkType.CAUSES
            )
        )
    assert store.get_links(alice, mine.memory.id) == []
    assert store.get_links(bob, theirs.memory.id) == []


# -- vectors ----------------------------------------------------------------------------


def test_vector_search_is_scoped_to_the_user(store: GraphStore, users, vec) -> None:
    alice, bob = users("alice"), users("bob")
    a1 = write(store, alice, "我", "事实", "喜好", "咖啡")
    a2 = write(store, alice, "我", "事实", "喜好", "茶")
    b1 = write(store, bob, "我", "事实", "喜好", "咖啡")
    store.set_embeddings(alice, VectorKind.MEMORY, {a1.memory.id: vec(1), a2.memory.id: vec(2)})
    store.set_embeddings(bob, VectorKind.MEMORY, {b1.memory.id: vec(1)})

    hits = store.vector_search(alice, VectorKind.MEMORY, vec(3, noise=0.1, base=1), k=5)

    assert [h.ref_id for h in hits] == [a1.memory.id, a2.memory.id]
    assert hits[0].score > 0.9 > hits[1].score
    assert [h.ref_id for h in store.vector_search(bob, VectorKind.MEMORY, vec(1), k=5)] == [
        b1.memory.id
    ]


def test_similarities_are_the_cosines_of_the_users_own_vectors(
    store: GraphStore, users, vec
) -> None:
    alice, bob = users("alice"), users("bob")
    a1 = write(store, alice, "我", "事实", "喜好", "咖啡")
    a2 = write(store, alice, "我", "事实", "喜好", "茶")
    unembedded = write(store, alice, "我", "事实", "喜好", "水")
    b1 = write(store, bob, "我", "事实", "喜好", "咖啡")
    store.set_embeddings(alice, VectorKind.MEMORY, {a1.memory.id: vec(1), a2.memory.id: vec(2)})
    store.set_embeddings(bob, VectorKind.MEMORY, {b1.memory.id: vec(1)})
    query = vec(3, noise=0.3, base=1)
    ids = [a1.memory.id, a2.memory.id, unembedded.memory.id, b1.memory.id]

    scores = store.similarities(alice, VectorKind.MEMORY, ids, query)

    assert set(scores) == {a1.memory.id, a2.memory.id}  # no vector, or not alice's
    for ref, expected in ((a1.memory.id, vec(1)), (a2.memory.id, vec(2))):
        assert scores[ref] == pytest.approx(float(expected @ query), abs=1e-4)
    assert store.similarities(alice, VectorKind.TOPIC, ids, query) == {}
    assert store.similarities(alice, VectorKind.MEMORY, [], query) == {}


def test_each_vector_search_counts_the_path_that_served_it(store: GraphStore, users, vec) -> None:
    user = users()
    graph = write(store, user, "我", "事实", "喜好", "咖啡")
    store.set_embeddings(user, VectorKind.MEMORY, {graph.memory.id: vec(1)})
    paths = ("vector_index", "vector_filtered", "vector_exact")
    before = sum(store.counters[path] for path in paths)
    for _ in range(3):
        assert store.vector_search(user, VectorKind.MEMORY, vec(1), k=5)[0].ref_id == (
            graph.memory.id
        )
    assert sum(store.counters[path] for path in paths) == before + 3


def test_searching_several_kinds_at_once_answers_as_one_kind_at_a_time(
    store: GraphStore, users, vec
) -> None:
    user, other = users(), users("other")
    graphs = [write(store, user, "我", "事实", f"话题{i}", f"东西{i}") for i in range(4)]
    theirs = write(store, other, "我", "事实", "话题", "东西")
    for i, g in enumerate(graphs):
        topic, obj = g.node(NodeType.TOPIC), g.node(NodeType.OBJECT)
        assert topic is not None and obj is not None
        store.set_embeddings(user, VectorKind.MEMORY, {g.memory.id: vec(10 + i)})
        store.set_embeddings(user, VectorKind.TOPIC, {topic.id: vec(20 + i)})
        store.set_embeddings(user, VectorKind.OBJECT, {obj.id: vec(30 + i)})
    store.set_embeddings(other, VectorKind.MEMORY, {theirs.memory.id: vec(10)})
    query = vec(99, noise=0.5, base=21)
    kinds = [VectorKind.MEMORY, VectorKind.TOPIC, VectorKind.OBJECT, VectorKind.EPISODE]

    together = store.vector_search_many(user, kinds, query, k=3)

    assert set(together) == set(kinds)
    for kind in kinds:
        alone = store.vector_search(user, kind, query, k=3)
        assert [h.ref_id for h in together[kind]] == [h.ref_id for h in alone]
        assert [h.score for h in together[kind]] == pytest.approx(
            [h.score for h in alone], abs=1e-4
        )
    assert together[VectorKind.EPISODE] == []
    assert theirs.memory.id not in {h.ref_id for h in together[VectorKind.MEMORY]}
    assert store.vector_search_many(user, [], query, k=3) == {}


def test_vectors_of_other_users_items_are_not_stored(store: GraphStore, users, vec) -> None:
    alice, bob = users("alice"), users("bob")
    theirs = write(store, bob, "我", "事实", "喜好", "咖啡")

    stored = store.set_embeddings(alice, VectorKind.MEMORY, {theirs.memory.id: vec(1)})

    assert stored == 0
    assert store.vector_search(bob, VectorKind.MEMORY, vec(1), k=5) == []


def test_wrong_vector_dimension_and_nan_are_refused(store: GraphStore, users, vec) -> None:
    user = users()
    graph = write(store, user, "我", "事实", "喜好", "咖啡")

    with pytest.raises(InvalidInputError, match="dimensions"):
        store.set_embeddings(user, VectorKind.MEMORY, {graph.memory.id: np.ones(7)})
    with pytest.raises(InvalidInputError, match="dimensions"):
        store.vector_search(user, VectorKind.MEMORY, np.ones(12), k=3)
    bad = vec(1).copy()
    bad[0] = np.nan
    with pytest.raises(InvalidInputError, match="NaN"):
        store.set_embeddings(user, VectorKind.MEMORY, {graph.memory.id: bad})


def test_topic_and_object_vectors_are_searchable(store: GraphStore, users, vec) -> None:
    user = users()
    graph = write(store, user, "我", "事实", "情绪", "不开心")
    topic, obj = graph.node(NodeType.TOPIC), graph.node(NodeType.OBJECT)
    assert topic is not None and obj is not None
    store.set_embeddings(user, VectorKind.TOPIC, {topic.id: vec(10)})
    store.set_embeddings(user, VectorKind.OBJECT, {obj.id: vec(11)})

    assert store.vector_search(user, VectorKind.TOPIC, vec(10), k=1)[0].ref_id == topic.id
    assert store.vector_search(user, VectorKind.OBJECT, vec(11), k=1)[0].ref_id == obj.id
    # an object id is not a topic: it is not stored as one
    assert store.set_embeddings(user, VectorKind.TOPIC, {obj.id: vec(12)}) == 0


def test_pending_embeddings_lists_what_has_no_vector(store: GraphStore, users, vec) -> None:
    user = users()
    graph = write(store, user, "我", "事实", "情绪", "不开心")
    pending = store.pending_embeddings(user)
    kinds = sorted((p.kind.value, p.text) for p in pending)
    assert kinds == [("memory", graph.memory.text), ("object", "不开心"), ("topic", "情绪")]

    for item in pending:
        store.set_embeddings(user, item.kind, {item.ref_id: vec(hash(item.ref_id) % 1000)})

    assert store.pending_embeddings(user) == []


# -- lexical ------------------------------------------------------------------------


def test_lexical_search_matches_chinese_and_english(store: GraphStore, users) -> None:
    user = users()
    mood = write(store, user, "我", "事实", "心情", "不好")
    sleep = write(store, user, "我", "事件", "睡眠", "不好")
    paint = write(store, user, "Caroline", "event", "painted", "a sunset", {"place": "the lake"})

    zh = store.lexical_search(user, "我为什么心情不好?", kinds=[VectorKind.MEMORY], k=5)
    en = store.lexical_search(
        user, "When did Caroline paint the sunset?", kinds=[VectorKind.MEMORY], k=5
    )

    assert zh[0].ref_id == mood.memory.id
    assert sleep.memory.id in [h.ref_id for h in zh]
    assert [h.ref_id for h in en][:1] == [paint.memory.id]
    assert zh[0].score >= zh[-1].score


def test_lexical_search_matches_a_word_with_or_without_its_accents(
    store: GraphStore, users
) -> None:
    """Chloé asked about as Chloe (and the other way round): a name or word typed without
    its accents, as people often do, still matches."""
    user = users()
    chloe = write(store, user, "Chloé", "event", "painted", "a sunset", {"place": "the café"})
    zoe = write(store, user, "Zoe", "fact", "lives in", "Sao Paulo")

    plain = store.lexical_search(user, "What did Chloe paint at the cafe?", [VectorKind.MEMORY])
    accented = store.lexical_search(user, "Where does Zoë live? São Paulo?", [VectorKind.MEMORY])

    assert [h.ref_id for h in plain][:1] == [chloe.memory.id]
    assert [h.ref_id for h in accented][:1] == [zoe.memory.id]


def test_lexical_search_is_scoped_and_treats_operators_as_text(store: GraphStore, users) -> None:
    alice, bob = users("alice"), users("bob")
    write(store, alice, "我", "事实", "喜好", "咖啡")

    assert store.lexical_search(bob, "咖啡", kinds=[VectorKind.MEMORY]) == []
    for hostile in ['"咖啡" OR *', "NEAR(a b) AND NOT", 'utok:* OR tokens:"x"', "咖啡) OR (1=1"]:
        hits = store.lexical_search(bob, hostile, kinds=[VectorKind.MEMORY])
        assert hits == []
    assert len(store.lexical_search(alice, '"咖啡" OR *', kinds=[VectorKind.MEMORY])) == 1
    assert store.lexical_search(alice, "?!。", kinds=[VectorKind.MEMORY]) == []


def test_empty_and_oversize_queries_are_refused(store: GraphStore, users) -> None:
    user = users()
    with pytest.raises(InvalidInputError):
        store.lexical_search(user, "   ")
    with pytest.raises(InvalidInputError):
        store.lexical_search(user, "x" * 30_000)
    with pytest.raises(InvalidInputError):
        store.get_memory(" ", "m")


# -- expansion --------------------------------------------------------------------------


def test_expansion_depths_and_paths(store: GraphStore, users) -> None:
    user = users()
    a = write(store, user, "我", "事件", "失眠")
    b = write(store, user, "我", "事实", "身体状态", "很困")
    c = write(store, user, "我", "事实", "工作状态", "没心情")
    link(store, user, a, b, LinkType.CAUSES)
    link(store, user, b, c, LinkType.CAUSES)

    assert store.expand(user, [c.memory.id], depth=0) == []
    one = store.expand(user, [c.memory.id], depth=1, relation_types=[LinkType.CAUSES])
    two = store.expand(user, [c.memory.id], depth=2, relation_types=[LinkType.CAUSES])

    assert [(h.memory_id, h.distance) for h in one] == [(b.memory.id, 1)]
    assert [(h.memory_id, h.distance) for h in two] == [(b.memory.id, 1), (a.memory.id, 2)]
    path = two[1].path
    assert [(s.from_id, s.to_id, s.relation, s.direction) for s in path] == [
        (c.memory.id, b.memory.id, "CAUSES", "in"),
        (b.memory.id, a.memory.id, "CAUSES", "in"),
    ]


def test_expansion_relation_filter(store: GraphStore, users) -> None:
    user = users()
    a = write(store, user, "小明", "事件", "考试", "满分")
    b = write(store, user, "我", "观点", "怀疑", "小明考满分的真实性")
    c = write(store, user, "我", "事件", "跑步")
    link(store, user, a, b, LinkType.REFERS_TO)
    link(store, user, b, c, LinkType.RELATED_TO)

    causal = store.expand(user, [b.memory.id], depth=2, relation_types=[LinkType.CAUSES])
    refs = store.expand(user, [b.memory.id], depth=2, relation_types=["REFERS_TO"])

    assert causal == []
    assert [h.memory_id for h in refs] == [a.memory.id]
    with pytest.raises(InvalidInputError):
        store.expand(user, [b.memory.id], depth=1, relation_types=["FRIEND_OF"])
    with pytest.raises(InvalidInputError):
        store.expand(user, [b.memory.id], depth=7)


def test_expansion_survives_cycles(store: GraphStore, users) -> None:
    user = users()
    a = write(store, user, "我", "事件", "熬夜")
    b = write(store, user, "我", "事实", "精神", "很差")
    c = write(store, user, "我", "事件", "喝咖啡")
    link(store, user, a, b, LinkType.CAUSES)
    link(store, user, b, c, LinkType.CAUSES)
    link(store, user, c, a, LinkType.CAUSES)

    hits = store.expand(user, [a.memory.id], depth=3, relation_types=[LinkType.CAUSES])

    assert sorted((h.memory_id, h.distance) for h in hits) == sorted(
        [(b.memory.id, 1), (c.memory.id, 1)]
    )


def test_expansion_through_shared_nodes_respects_the_hub_cap(store: GraphStore, users) -> None:
    user = users()
    about_ming = [write(store, user, "小明", "事实", topic) for topic in ("喜好", "职业", "住址")]

    shared = store.expand(user, [about_ming[0].memory.id], depth=1, relation_types=[SHARED_NODE])
    capped = store.expand(
        user, [about_ming[0].memory.id], depth=1, relation_types=[SHARED_NODE], hub_cap=2
    )

    assert sorted(h.memory_id for h in shared) == sorted(m.memory.id for m in about_ming[1:])
    assert all(h.path[0].relation == SHARED_NODE and h.path[0].via == "小明" for h in shared)
    assert capped == []


def test_expansion_never_crosses_users(store: GraphStore, users) -> None:
    alice, bob = users("alice"), users("bob")
    a = write(store, alice, "小明", "事实", "喜好", "篮球")
    write(store, bob, "小明", "事实", "喜好", "足球")  # same subject name, other user
    b2 = write(store, bob, "我", "事件", "跑步")

    assert store.expand(alice, [a.memory.id], depth=2) == []
    assert store.expand(alice, [b2.memory.id], depth=2) == []  # a foreign seed is ignored


def test_expansion_skips_invalid_memories_unless_asked(store: GraphStore, users) -> None:
    user = users()
    old = write(store, user, "我", "观点", "喜欢", "下雨天")
    new = write(store, user, "我", "观点", "讨厌", "下雨天")
    link(store, user, new, old, LinkType.SUPERSEDES)
    store.update_memory(user, old.memory.id, invalid_at=REF)

    default = store.expand(user, [new.memory.id], depth=1, relation_types=[LinkType.SUPERSEDES])
    with_invalid = store.expand(
        user, [new.memory.id], depth=1, relation_types=[LinkType.SUPERSEDES], include_invalid=True
    )

    assert default == []
    assert [h.memory_id for h in with_invalid] == [old.memory.id]


# -- merging --------------------------------------------------------------------------


def test_merge_nodes_rewires_and_keeps_history(store: GraphStore, users, vec) -> None:
    user = users()
    a = write(store, user, "小红", "事实", "心情", "不好")
    b = write(store, user, "小刚", "事实", "情绪", "低落")
    keep, drop = a.node(NodeType.TOPIC), b.node(NodeType.TOPIC)
    assert store.expand(user, [a.memory.id], depth=1) == []  # nothing shared yet
    assert keep is not None and drop is not None
    store.set_embeddings(user, VectorKind.TOPIC, {keep.id: vec(1), drop.id: vec(2)})

    merged = store.merge_nodes(user, keep.id, drop.id)

    assert merged.id == keep.id and merged.merged_from == [drop.id]
    assert store.get_nodes(user, [drop.id]) == []
    record = store.get_memory(user, b.memory.id)
    assert record is not None
    assert keep.id in {n.id for n in record.nodes}
    assert any(keep.id in (e.src_id, e.dst_id) for e in record.edges)
    assert [h.ref_id for h in store.vector_search(user, VectorKind.TOPIC, vec(2), k=5)] == [keep.id]
    hits = store.expand(user, [a.memory.id], depth=1, relation_types=[SHARED_NODE])
    assert [(h.memory_id, h.path[0].via) for h in hits] == [(b.memory.id, "心情")]


def test_merge_nodes_refuses_bad_pairs(store: GraphStore, users) -> None:
    alice, bob = users("alice"), users("bob")
    a = write(store, alice, "我", "事实", "心情", "不好")
    b = write(store, bob, "我", "事实", "心情", "不好")
    ta, tb = a.node(NodeType.TOPIC), b.node(NodeType.TOPIC)
    assert ta is not None and tb is not None

    with pytest.raises(InvalidInputError):
        store.merge_nodes(alice, ta.id, ta.id)
    with pytest.raises(NotFoundError):
        store.merge_nodes(alice, ta.id, tb.id)  # never across users
    assert store.get_nodes(bob, [tb.id]) != []


# -- deleting -------------------------------------------------------------------------


def test_delete_memory_leaves_no_orphans(store: GraphStore, users, vec) -> None:
    user = users()
    keep = write(store, user, "我", "事件", "跑步", "五公里")
    gone = write(store, user, "我", "事件", "游泳", "一小时", {"地点": "泳池"})
    link(store, user, keep, gone, LinkType.RELATED_TO)
    store.set_embeddings(user, VectorKind.MEMORY, {gone.memory.id: vec(5)})

    assert store.delete_memory(user, gone.memory.id) is True
    assert store.delete_memory(user, gone.memory.id) is False

    stats = store.stats(user)
    assert stats.memories == 1
    assert stats.nodes == {"Subject": 1, "Topic": 1, "Object": 1}  # the shared subject stays
    assert stats.links == 0
    assert stats.vectors.get("memory", 0) == 0
    assert store.lexical_search(user, "游泳 泳池", kinds=[VectorKind.MEMORY]) == []
    assert store.get_links(user, keep.memory.id) == []


def test_delete_user_removes_everything_of_that_user_only(store: GraphStore, users, vec) -> None:
    alice, bob = users("alice"), users("bob")
    for user in (alice, bob):
        m = write(store, user, "我", "事实", "喜好", "咖啡")
        store.set_embeddings(user, VectorKind.MEMORY, {m.memory.id: vec(1)})
        store.add_episodes([Episode(user_id=user, text="I like coffee", session_id="s1")])
        store.add_knowledge_version(
            KnowledgeVersion(user_id=user, points=[KnowledgePoint(content="likes coffee")])
        )

    store.delete_user(alice)

    gone = store.stats(alice)
    assert (gone.memories, gone.nodes, gone.episodes, gone.knowledge_versions, gone.vectors) == (
        0,
        {},
        0,
        0,
        {},
    )
    assert store.lexical_search(alice, "coffee 咖啡") == []
    kept = store.stats(bob)
    assert (kept.memories, kept.episodes, kept.knowledge_versions) == (1, 1, 1)


# -- episodes and knowledge -------------------------------------------------------------


def test_episodes_chain_in_time_order_and_are_searchable(store: GraphStore, users, vec) -> None:
    user = users()
    t0 = REF
    eps = [
        Episode(
            user_id=user,
            session_id="s1",
            text=f"turn {i} about hiking",
            timestamp=t0 + timedelta(minutes=i),
            speaker="Ann",
            metadata={"dia_id": f"D1:{i}"},
        )
        for i in (2, 0, 1)
    ]
    ids = store.add_episodes(eps)
    later = Episode(
        user_id=user,
        session_id="s1",
        text="turn 3 about dinner",
        timestamp=t0 + timedelta(minutes=3),
    )
    store.add_episodes([later])

    by_ts = {e.timestamp: e.id for e in eps}
    order = [by_ts[t0 + timedelta(minutes=i)] for i in range(3)]
    nxt = store.next_episode_ids(user, [*ids, later.id])
    assert nxt == {order[0]: order[1], order[1]: order[2], order[2]: later.id}
    got = {e.id: e for e in store.get_episodes(user, ids)}
    assert got[order[0]].metadata == {"dia_id": "D1:0"}
    assert got[order[0]].speaker == "Ann"
    hits = store.lexical_search(user, "dinner", kinds=[VectorKind.EPISODE])
    assert [h.ref_id for h in hits] == [later.id]
    stemmed = store.lexical_search(user, "hiked", kinds=[VectorKind.EPISODE])  # hiking ~ hiked
    # every hiking turn, first; the dinner turn follows one, whose words it carries as context
    assert {h.ref_id for h in stemmed[:3]} == set(ids)
    assert [h.ref_id for h in stemmed[3:]] == [later.id]
    store.set_embeddings(user, VectorKind.EPISODE, {later.id: vec(7)})
    assert store.vector_search(user, VectorKind.EPISODE, vec(7), k=1)[0].ref_id == later.id


def test_an_unsearchable_episode_is_neither_embedded_nor_indexed(store: GraphStore, users) -> None:
    """Kept out of search, it takes no channel's candidate place and costs no embedding:
    not queued when written, when a turn follows it or when a neighbour goes, nor by a
    reembed; its words are no context of the turns around it, nor in any word's
    statistics."""
    user = users()
    before, hidden, after = [
        Episode(user_id=user, session_id="s", text=text, timestamp=REF + timedelta(minutes=i),
                metadata=meta)
        for i, (text, meta) in enumerate([
            ("we talked about violins", {}),
            ("raw record: kayaks on the lake", {"searchable": False}),
            ("and then about tulips", {}),
        ])
    ]  # fmt: skip
    store.add_episodes([before])
    [alone] = store.lexical_search(user, "violins", kinds=[VectorKind.EPISODE])
    store.add_episodes([hidden])
    assert store.lexical_search(user, "violins", kinds=[VectorKind.EPISODE]) == [alone]
    store.add_episodes([after])  # the stored tail, the hidden turn, gains a turn after it

    def queued() -> dict[str, str]:
        return {p.ref_id: p.text for p in store.pending_embeddings(user)}

    assert set(queued()) == {before.id, after.id}
    assert not any("kayaks" in text for text in queued().values())
    assert store.lexical_search(user, "kayaks lake", kinds=[VectorKind.EPISODE]) == []
    assert [e.id for e in store.get_episodes(user, [hidden.id])] == [hidden.id]

    store.delete_episodes(user, [before.id])  # the turn after it is indexed again
    store.delete_episodes(user, [after.id])  # the turn before it is queued again
    assert queued() == {}
    assert store.lexical_search(user, "kayaks lake", kinds=[VectorKind.EPISODE]) == []
    store.reset_embeddings()
    assert hidden.id not in queued()


def test_episodes_are_listed_by_id_prefix_within_the_user(store: GraphStore, users) -> None:
    user, other = users(), users()
    turn = Episode(user_id=user, session_id="s", text="a turn of chat", timestamp=REF)
    items = [
        Episode(
            id=f"lgitem{i}-{user}", user_id=user, text=f"item {i}", timestamp=REF + timedelta(i)
        )
        for i in range(3)
    ]  # ids are unique in the whole store, so each run's carry its user
    theirs = Episode(id=f"lgtheirs-{other}", user_id=other, text="their item", timestamp=REF)
    store.add_episodes([turn, *items])
    store.add_episodes([theirs])

    listed = store.list_episodes(user, id_prefix="lgitem")
    assert [e.id for e in listed] == [e.id for e in items]  # ordered as every listing
    page = store.list_episodes(user, limit=2, offset=1, id_prefix="lg")
    assert [e.id for e in page] == [e.id for e in items[1:]]
    assert {e.id for e in store.list_episodes(user)} == {turn.id, *(e.id for e in items)}
    assert [e.id for e in store.list_episodes(other, id_prefix="lg")] == [theirs.id]
    assert store.episode_ids_by_prefix(user, "lgitem") == sorted(e.id for e in items)
    assert store.episode_ids_by_prefix(other, "lg") == [theirs.id]
    assert store.episode_ids_by_prefix(user, "nothing-starts-so") == []
    with pytest.raises(InvalidInputError):
        store.episode_ids_by_prefix(user, "")


def test_episodes_are_listed_newest_first_a_page_at_a_time(store: GraphStore, users) -> None:
    """``newest_first`` orders by time, newest first, then by id (two at the same time),
    so a page of the latest is read without the rest, with or without an id prefix."""
    user, other = users(), users()
    times = [REF + timedelta(hours=h) for h in (1, 3, 2, 3)]
    items = [
        Episode(id=f"lgnew{i}-{user}", user_id=user, session_id=f"s{i % 2}", text=f"item {i}",
                timestamp=when)
        for i, when in enumerate(times)
    ]  # fmt: skip
    turn = Episode(user_id=user, text="a turn of chat", timestamp=REF + timedelta(hours=9))
    store.add_episodes([*items, turn])
    store.add_episodes([Episode(id=f"lgnew9-{other}", user_id=other, text="theirs",
                                timestamp=REF + timedelta(hours=5))])  # fmt: skip

    newest = [items[1].id, items[3].id, items[2].id, items[0].id]
    listed = store.list_episodes(user, id_prefix="lgnew", newest_first=True)
    assert [e.id for e in listed] == newest
    page = store.list_episodes(user, limit=2, offset=1, id_prefix="lgnew", newest_first=True)
    assert [e.id for e in page] == newest[1:3]
    assert [e.id for e in store.list_episodes(user, limit=2, newest_first=True)] == [
        turn.id, items[1].id,
    ]  # fmt: skip
    assert [e.text for e in store.list_episodes(user, limit=1, offset=1, newest_first=True)] == [
        "item 1"
    ]


def test_a_sessions_episodes_are_read_in_time_order_or_its_latest_first(
    store: GraphStore, users
) -> None:
    """``session_episodes`` reads the session's first turns in time order (ties by id),
    or with ``newest_first`` its latest in exactly the reverse order; other sessions and
    users are not read."""
    user, other = users(), users()
    times = [REF + timedelta(minutes=m) for m in (5, 1, 3, 3, 9)]
    turns = [
        Episode(id=f"turn{i}-{user}", user_id=user, session_id="chat", text=f"turn {i}",
                timestamp=when)
        for i, when in enumerate(times)
    ]  # fmt: skip
    store.add_episodes(
        [*turns, Episode(user_id=user, session_id="other", text="elsewhere", timestamp=REF)]
    )
    store.add_episodes([Episode(user_id=other, session_id="chat", text="theirs", timestamp=REF)])

    in_order = [turns[i].id for i in (1, 2, 3, 0, 4)]
    assert [e.id for e in store.session_episodes(user, "chat")] == in_order
    assert [e.id for e in store.session_episodes(user, "chat", limit=2)] == in_order[:2]
    latest = store.session_episodes(user, "chat", limit=3, newest_first=True)
    assert [e.id for e in latest] == in_order[::-1][:3]
    assert latest[0].text == "turn 4" and latest[0].session_id == "chat"
    assert store.session_episodes(user, "nobody-said-this", newest_first=True) == []


def test_expired_episodes_are_found_and_an_expiry_moves_without_anything_else(
    store: GraphStore, users
) -> None:
    """``expired_episode_ids`` finds the user's episodes whose expiry has come, in id
    order; ``set_episode_expiry`` moves the expiry of those that have one (none is given
    to one without), and nothing else of them changes: no embedding is queued again."""
    user, other = users(), users()
    soon, later, never = [
        Episode(id=f"{name}-{user}", user_id=user, text=f"the {name} item", timestamp=REF,
                metadata={"kind": name}, expires_at=when)
        for name, when in [("soon", REF + timedelta(hours=1)),
                           ("later", REF + timedelta(days=2)), ("never", None)]
    ]  # fmt: skip
    theirs = Episode(id=f"theirs-{other}", user_id=other, text="their item", timestamp=REF,
                     expires_at=REF)  # fmt: skip
    store.add_episodes([soon, later, never])
    store.add_episodes([theirs])

    assert store.expired_episode_ids(user, REF) == []
    assert store.expired_episode_ids(user, REF + timedelta(hours=1)) == [soon.id]  # at its time
    assert store.expired_episode_ids(user, REF + timedelta(days=3)) == sorted([soon.id, later.id])
    assert store.expired_episode_ids(user, REF + timedelta(days=3), limit=1) == [
        min(soon.id, later.id)
    ]
    assert store.expired_episode_ids(other, REF) == [theirs.id]

    queued = {p.ref_id for p in store.pending_embeddings(user)}
    moved = {soon.id: REF + timedelta(days=5), never.id: REF, theirs.id: REF + timedelta(days=9)}
    assert store.set_episode_expiry(user, moved) == 1
    assert store.set_episode_expiry(user, {}) == 0
    assert store.expired_episode_ids(user, REF + timedelta(days=3)) == [later.id]
    assert store.expired_episode_ids(user, REF + timedelta(days=5)) == sorted([soon.id, later.id])
    stored = {e.id: e for e in store.get_episodes(user, [soon.id, never.id])}
    assert stored[soon.id].expires_at == REF + timedelta(days=5)
    assert stored[soon.id].metadata["kind"] == "soon" and stored[soon.id].text == soon.text
    assert stored[never.id].expires_at is None
    assert store.expired_episode_ids(other, REF) == [theirs.id]  # another user's: untouched
    assert {p.ref_id for p in store.pending_embeddings(user)} == queued


def test_a_speaker_is_filled_in_with_the_turns_words_and_vectors_renewed(
    store: GraphStore, users, vec
) -> None:
    """``fill_episode_speakers`` gives a turn stored without a speaker its speaker (one
    with a speaker keeps it, another user's is untouched); the turn's words are indexed
    with the name, and it and the turns beside it are queued to be embedded again with
    it, their vectors serving until then."""
    user, other = users(), users()
    first, reply, then, given = [
        Episode(id=f"{name}-{user}", user_id=user, session_id="s", text=text,
                timestamp=REF + timedelta(minutes=minute), speaker=speaker)
        for name, text, minute, speaker in [
            ("first", "I went to a support group yesterday.", 0, None),
            ("reply", "That's great!", 1, None),
            ("then", "It was so powerful.", 2, "Caroline"),
            ("given", "I painted a lake sunrise.", 3, "Mel"),
        ]
    ]  # fmt: skip
    theirs = Episode(id=f"theirs-{other}", user_id=other, text="Hello there", timestamp=REF)
    store.add_episodes([first, reply, then, given])
    store.add_episodes([theirs])
    for turn in (first, reply, then, given):
        store.set_embeddings(user, VectorKind.EPISODE, {turn.id: vec(len(turn.text))})
    assert store.pending_embeddings(user) == []
    assert store.lexical_search(user, "Caroline", [VectorKind.EPISODE], 10)[0].ref_id == then.id

    named = {first.id: "Caroline", given.id: "Melanie", theirs.id: "Caroline"}
    assert store.fill_episode_speakers(user, named) == 1
    assert store.fill_episode_speakers(user, named) == 0  # filled once
    assert store.fill_episode_speakers(user, {}) == 0

    stored = {e.id: e for e in store.get_episodes(user, [first.id, reply.id, given.id])}
    assert stored[first.id].speaker == "Caroline" and stored[first.id].text == first.text
    assert stored[given.id].speaker == "Mel"  # a speaker is kept
    assert stored[reply.id].speaker is None
    assert store.get_episodes(other, [theirs.id])[0].speaker is None
    assert {e.id for e in store.find_episodes(user, "Caroline")} == {first.id, then.id}
    hits = {h.ref_id for h in store.lexical_search(user, "Caroline", [VectorKind.EPISODE], 10)}
    assert hits == {first.id, then.id}
    texts = {p.ref_id: p.text for p in store.pending_embeddings(user)}
    assert texts == {
        first.id: episode_embedding_text(stored[first.id], following=reply),
        reply.id: episode_embedding_text(reply, stored[first.id], then),
    }
    assert set(store.get_vectors(user, VectorKind.EPISODE, [first.id, reply.id])) == {
        first.id,
        reply.id,
    }
    with pytest.raises(InvalidInputError, match="speakers"):
        store.fill_episode_speakers(user, {reply.id: " "})


def test_users_are_listed_a_page_at_a_time_in_id_order(store: GraphStore, users) -> None:
    """``list_users(limit, after)`` is a page of the users whose ids sort after ``after``
    (``users_with_staged`` too); ``iter_users`` reads every page: a store's users are not
    bounded by one."""
    tag = users("pages")  # a prefix no other user of the store shares
    ids = [f"{tag}-{letter}" for letter in "abcde"]
    users.created.extend(ids)
    for index, user in enumerate(ids):
        if index % 2:  # users with episodes only, and users with memories only
            store.add_episodes([Episode(user_id=user, text="a turn", timestamp=REF)])
        else:
            store.write_memory(graph_of(user, "我", "喜欢", "茶"))

    assert store.list_users(limit=2, after=tag) == ids[:2]
    assert store.list_users(limit=2, after=ids[1]) == ids[2:4]
    assert store.list_users(limit=1, after=ids[3]) == ids[4:]
    listed = list(store.iter_users(page=2))
    assert [u for u in listed if u.startswith(tag + "-")] == ids
    assert listed == sorted(set(listed))
    staged = ids[::2]  # the users with memories, all staged
    assert store.users_with_staged(limit=1, after=staged[0]) == staged[1:2]
    assert [u for u in store.iter_users(page=1, staged=True) if u.startswith(tag)] == staged


def test_knowledge_versions_are_found_by_id_for_their_user_alone(store: GraphStore, users) -> None:
    user, other = users(), users()
    version = KnowledgeVersion(user_id=user, session_id="s1", points=[])
    store.add_knowledge_version(version)

    asked = [version.version_id, "no-such-version"]
    assert store.knowledge_version_ids(user, asked) == {version.version_id}
    assert store.knowledge_version_ids(other, asked) == set()
    assert store.knowledge_version_ids(user, []) == set()
    made = store.knowledge_version_times(user, asked)[version.version_id]
    assert abs(made - version.created_at) < timedelta(milliseconds=1)  # when it was made
    assert store.knowledge_version_times(other, asked) == {}


def test_a_sessions_versions_say_up_to_when_they_read_it(store: GraphStore, users) -> None:
    """What a session's next extraction starts after, once the turn an earlier one ended
    at is deleted: each version's ``through``, or when it was made without one."""
    user, other = users(), users()
    spans = KnowledgeVersion(user_id=user, session_id="s1", through=REF)
    whole = KnowledgeVersion(user_id=user, session_id="s1")  # records no turn
    elsewhere = KnowledgeVersion(user_id=user, session_id="s2", through=REF)
    foreign = KnowledgeVersion(user_id=other, session_id="s1", through=REF)
    for version in (spans, whole, elsewhere, foreign):
        store.add_knowledge_version(version)

    read = store.session_read_through(user, "s1")

    assert set(read) == {spans.version_id, whole.version_id}
    assert read[spans.version_id] == REF
    assert abs(read[whole.version_id] - whole.created_at) < timedelta(milliseconds=1)
    assert store.session_read_through(user, "no-such-session") == {}
    kept = {v.version_id: v.through for v in store.knowledge_versions(user, limit=10)}
    assert kept[spans.version_id] == REF and kept[whole.version_id] is None


def told(store: GraphStore, user: str, episode_ids: list[str]) -> tuple[set[str], set[str]]:
    found = store.told_by(user, episode_ids)
    return set(found.memory_ids), set(found.knowledge_ids)


def test_items_are_found_by_the_episodes_their_metadata_names(store: GraphStore, users) -> None:
    """What forgetting a turn takes along: memories and knowledge points naming it in
    ``episode_ids``, the user's only, as their metadata says now."""
    user, other = users(), users()
    quoted = 'turn "3" \\ 第三'  # an id JSON escapes: found as well as a plain one
    one = write(store, user, "我", "事件", "去", "成都")
    two = write(store, user, "我", "事件", "吃", "火锅")
    unnamed = write(store, user, "我", "事件", "看", "熊猫")
    foreign = write(store, other, "我", "事件", "去", "成都")
    for graph, named in ((one, ["t1"]), (two, ["t1", quoted]), (foreign, ["t1"])):
        owner = other if graph is foreign else user
        store.update_memory(owner, graph.memory.id, metadata={"episode_ids": named})
    store.update_memory(user, unnamed.memory.id, metadata={"episode_ids": "t1", "t1": ["t1"]})
    point = KnowledgePoint(content="喜欢火锅", type=KnowledgeType.EXPERIENTIAL, score=0.8,
                           metadata={"episode_ids": [quoted]})  # fmt: skip
    loose = KnowledgePoint(content="在成都", type=KnowledgeType.WORLD_MODEL, score=0.8)
    store.add_knowledge_version(KnowledgeVersion(user_id=user, points=[point, loose]))

    assert told(store, user, ["t1"]) == ({one.memory.id, two.memory.id}, set())
    assert told(store, user, [quoted, "t1"]) == ({one.memory.id, two.memory.id}, {point.id})
    assert told(store, user, [quoted]) == ({two.memory.id}, {point.id})
    assert told(store, other, [quoted, "t1"]) == ({foreign.memory.id}, set())
    assert told(store, user, ["t2"]) == told(store, user, []) == (set(), set())

    store.update_memory(user, one.memory.id, metadata={"episode_ids": ["t2"]})  # re-told
    store.delete_memory(user, two.memory.id)
    store.delete_knowledge(user, [point.id])
    assert told(store, user, [quoted, "t1"]) == (set(), set())
    assert told(store, user, ["t2"]) == ({one.memory.id}, set())


def test_episodes_added_in_place_of_others_replace_them_in_one_call(
    store: GraphStore, users
) -> None:
    """``add_episodes(..., replacing=ids)`` deletes the user's episodes of those ids and
    adds the new ones together: the old words are no longer found, the new are, and an id
    of another user's episode in ``replacing`` leaves it alone."""
    user, other = users(), users()
    old = Episode(id=f"item-{user}", user_id=user, text="my kayak is red", timestamp=REF)
    moved = Episode(id=f"old-{user}", user_id=user, text="my canoe is green", timestamp=REF)
    theirs = Episode(id=f"theirs-{other}", user_id=other, text="their kayak", timestamp=REF)
    store.add_episodes([old, moved])
    store.add_episodes([theirs])

    new = old.model_copy(update={"text": "my kayak is blue now"})
    assert store.add_episodes([new], replacing=[old.id, moved.id, theirs.id]) == [old.id]

    assert [e.text for e in store.get_episodes(user, [old.id, moved.id])] == [new.text]
    assert [h.ref_id for h in store.lexical_search(user, "blue", [VectorKind.EPISODE])] == [old.id]
    assert store.lexical_search(user, "red", [VectorKind.EPISODE]) == []
    assert store.lexical_search(user, "canoe", [VectorKind.EPISODE]) == []
    assert [e.id for e in store.get_episodes(other, [theirs.id])] == [theirs.id]


def test_deleted_episodes_leave_no_trace(store: GraphStore, users, vec) -> None:
    user, other = users(), users()
    turns = [
        Episode(user_id=user, session_id="s", text=f"turn {i} about {topic}",
                timestamp=REF + timedelta(minutes=i))
        for i, topic in enumerate(["kayaks", "violins", "tulips"])
    ]  # fmt: skip
    first, middle, last = store.add_episodes(turns)
    theirs = store.add_episodes([Episode(user_id=other, text="their violins", timestamp=REF)])
    store.set_embeddings(user, VectorKind.EPISODE, {middle: vec(3), first: vec(4)})

    assert store.delete_episodes(user, [middle, theirs[0], "no-such-id"]) == 1

    assert {e.id for e in store.get_episodes(user, [first, middle, last])} == {first, last}
    assert store.lexical_search(user, "violins", kinds=[VectorKind.EPISODE]) == []
    # the turn before it was embedded with it after it: that vector goes too
    assert store.get_vectors(user, VectorKind.EPISODE, [first, middle]) == {}
    assert store.vector_search(user, VectorKind.EPISODE, vec(3), k=5) == []
    assert middle not in store.next_episode_ids(user, [first, middle, last]).values()
    assert [e.id for e in store.get_episodes(other, theirs)] == theirs  # not another user's
    assert store.delete_episodes(user, []) == 0


def test_episodes_are_embedded_between_the_turns_around_them(store: GraphStore, users, vec) -> None:
    user = users()
    said = [("Ann", "Did you go to the concert?"), ("Bob", "Yes, it was amazing!"),
            (None, "And the drive home?")]  # fmt: skip
    turns = [
        Episode(user_id=user, session_id="s", text=text, speaker=speaker,
                timestamp=REF + timedelta(minutes=i))
        for i, (speaker, text) in enumerate(said)
    ]  # fmt: skip
    first, reply, last = store.add_episodes(turns)
    alone = store.add_episodes([Episode(user_id=user, text="A note to self", timestamp=REF)])[0]

    texts = {p.ref_id: p.text for p in store.pending_embeddings(user)}
    by_id = dict(zip([first, reply, last], turns, strict=True))
    assert texts == {
        first: "Ann: Did you go to the concert?\nBob: Yes, it was amazing!",
        reply: "Ann: Did you go to the concert?\nBob: Yes, it was amazing!\nAnd the drive home?",
        last: "Bob: Yes, it was amazing!\nAnd the drive home?",
        alone: "A note to self",
    }
    assert texts[reply] == episode_embedding_text(by_id[reply], by_id[first], by_id[last])
    assert texts[alone] == episode_embedding_text(Episode(user_id=user, text="A note to self"))

    # a turn appended to the stored session later: the embedded tail is queued again with
    # it, and keeps its old vector until then
    store.set_embeddings(user, VectorKind.EPISODE, {i: vec(n) for n, i in enumerate(texts)})
    assert store.pending_embeddings(user) == []
    appended = Episode(user_id=user, session_id="s", text="Long.", speaker="Bob",
                       timestamp=REF + timedelta(minutes=9))  # fmt: skip
    store.add_episodes([appended])
    assert {p.ref_id: p.text for p in store.pending_embeddings(user)} == {
        last: "Bob: Yes, it was amazing!\nAnd the drive home?\nBob: Long.",
        appended.id: "And the drive home?\nBob: Long.",
    }
    assert list(store.get_vectors(user, VectorKind.EPISODE, [last])) == [last]

    # forgetting a turn takes it out of the vectors of the turns before and after it
    store.set_embeddings(user, VectorKind.EPISODE, {last: vec(7), appended.id: vec(8)})
    assert store.pending_embeddings(user) == []
    store.delete_episodes(user, [reply])
    assert store.get_vectors(user, VectorKind.EPISODE, [first, last]) == {}
    requeued = {p.ref_id: p.text for p in store.pending_embeddings(user)}
    assert requeued == {
        first: "Ann: Did you go to the concert?",
        last: "And the drive home?\nBob: Long.",
    }
    assert list(store.get_vectors(user, VectorKind.EPISODE, [alone])) == [alone]


def test_a_turn_that_comes_late_takes_its_place_in_the_session(
    store: GraphStore, users, vec
) -> None:
    """A turn stored after turns said later in its session (a backend storing a message
    after the next one, an older stretch imported) goes between the turns said around it,
    each embedded and indexed with it as a neighbour, not left outside the chain; a batch
    is put in runs between stored turns, before the first and after the last."""
    user = users()
    said = ["about kayaks", "about violins", "about tulips", "about lanterns"]
    turns = [
        Episode(user_id=user, session_id="s", text=text, timestamp=REF + timedelta(minutes=i))
        for i, text in enumerate(said)
    ]
    ids = store.add_episodes(turns)
    store.set_embeddings(user, VectorKind.EPISODE, {i: vec(n) for n, i in enumerate(ids)})
    late = Episode(user_id=user, session_id="s", text="a late word about pumpkins",
                   timestamp=REF + timedelta(minutes=1, seconds=30))  # fmt: skip
    store.add_episodes([late])

    by_id = {e.id: e for e in [*turns, late]}
    assert store.next_episode_ids(user, [*ids, late.id]) == {
        ids[0]: ids[1], ids[1]: late.id, late.id: ids[2], ids[2]: ids[3]
    }  # fmt: skip
    queued = {p.ref_id: p.text for p in store.pending_embeddings(user)}
    assert queued == {
        ids[1]: episode_embedding_text(by_id[ids[1]], by_id[ids[0]], late),
        late.id: episode_embedding_text(late, by_id[ids[1]], by_id[ids[2]]),
        ids[2]: episode_embedding_text(by_id[ids[2]], late, by_id[ids[3]]),
    }
    # their old vectors serve until they are embedded again
    assert set(store.get_vectors(user, VectorKind.EPISODE, ids)) == set(ids)

    def found(words: str) -> set[str]:
        return {h.ref_id for h in store.lexical_search(user, words, kinds=[VectorKind.EPISODE])}

    # the turn after it carries its words as context, and no longer the words before it
    assert found("pumpkins") == {late.id, ids[2]}
    assert found("violins") == {ids[1], late.id}

    dawn, owl, comet, dusk = [
        Episode(user_id=user, session_id="s", text=f"about {word}", timestamp=REF + at)
        for word, at in [("dawn", timedelta(minutes=-1)), ("owls", timedelta(seconds=30)),
                         ("comets", timedelta(minutes=2, seconds=30)),
                         ("dusk", timedelta(minutes=9))]
    ]  # fmt: skip
    store.add_episodes([comet, dusk, owl, dawn])
    chain = [dawn.id, ids[0], owl.id, ids[1], late.id, ids[2], comet.id, ids[3], dusk.id]
    assert store.next_episode_ids(user, chain) == dict(itertools.pairwise(chain))
    assert found("owls") == {owl.id, ids[1]}
    assert found("dawn") == {dawn.id, ids[0]}
    assert found("tulips") == {ids[2], comet.id}
    assert found("comets") == {comet.id, ids[3]}


WORDS = ["kayak", "violin", "tulip", "lantern", "pumpkin", "owl", "comet", "harbor",
         "falcon", "meadow", "glacier", "saffron", "trumpet", "walnut", "canyon", "lobster",
         "marble", "pepper", "quartz", "zebra"]  # fmt: skip
"""A word each turn alone says, so a search for it finds the turn and the turn after it."""


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    batches=st.lists(
        st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=4),
        min_size=1,
        max_size=5,
    )
)
def test_a_sessions_chain_follows_when_its_turns_were_said_whatever_order_they_come_in(
    store: GraphStore, users, batches: list[list[int]]
) -> None:
    """Turns stored in batches of any times (late ones, ties, runs between stored turns)
    end up chained in the order they were said, a turn stored earlier first among turns
    of one time; and each turn is indexed with the words of the turn before it in that
    order, whenever either came."""
    user = users()
    stored: list[Episode] = []
    for minutes in batches:
        batch = [
            Episode(user_id=user, session_id="s", text=f"about the {WORDS[len(stored) + i]}",
                    timestamp=REF + timedelta(minutes=at))
            for i, at in enumerate(minutes)
        ]  # fmt: skip
        store.add_episodes(batch)
        stored += batch
    said = sorted(stored, key=lambda e: (e.timestamp, e.id))  # ids follow creation
    assert store.next_episode_ids(user, [e.id for e in stored]) == {
        a.id: b.id for a, b in itertools.pairwise(said)
    }
    following = {a.id: b.id for a, b in itertools.pairwise(said)}
    for turn in stored:
        word = turn.text.removeprefix("about the ")
        hits = store.lexical_search(user, word, kinds=[VectorKind.EPISODE])
        assert {h.ref_id for h in hits} == {turn.id, following.get(turn.id, turn.id)}, word


def test_a_turn_queued_again_while_being_embedded_keeps_no_stale_vector(
    store: GraphStore, users, vec
) -> None:
    user = users()
    turns = [
        Episode(user_id=user, session_id="s", text=text, speaker="Ann",
                timestamp=REF + timedelta(minutes=i))
        for i, text in enumerate(["I adopted a puppy.", "Her name is Luna."])
    ]  # fmt: skip
    first, tail = store.add_episodes(turns)
    in_flight = {p.ref_id: p for p in store.pending_embeddings(user)}  # read by the embedder

    # a turn is appended while the batch is being embedded: the tail is queued again
    later = Episode(user_id=user, session_id="s", text="She chews my shoes.", speaker="Ann",
                    timestamp=REF + timedelta(minutes=5))  # fmt: skip
    store.add_episodes([later])
    versions = {ref: p.version for ref, p in in_flight.items()}
    stored = store.set_embeddings(
        user, VectorKind.EPISODE, {first: vec(1), tail: vec(2)}, versions=versions
    )

    assert stored == 1
    assert list(store.get_vectors(user, VectorKind.EPISODE, [first, tail])) == [first]
    queued = {p.ref_id: p.text for p in store.pending_embeddings(user)}
    assert (
        queued[tail] == "Ann: I adopted a puppy.\nAnn: Her name is Luna.\nAnn: She chews my shoes."
    )

    # deleting the turn after it while it is being embedded: its words stay out of the vector
    again = {p.ref_id: p.version for p in store.pending_embeddings(user)}
    store.delete_episodes(user, [later.id])
    assert store.set_embeddings(user, VectorKind.EPISODE, {tail: vec(3)}, versions=again) == 0
    assert store.get_vectors(user, VectorKind.EPISODE, [tail]) == {}
    final = {p.ref_id: p for p in store.pending_embeddings(user)}
    assert final[tail].text == "Ann: I adopted a puppy.\nAnn: Her name is Luna."
    # the current version is stored, and without versions a vector is stored as before
    assert (
        store.set_embeddings(
            user, VectorKind.EPISODE, {tail: vec(4)}, versions={tail: final[tail].version}
        )
        == 1
    )
    assert store.pending_embeddings(user) == []
    assert store.set_embeddings(user, VectorKind.EPISODE, {first: vec(5)}) == 1


def test_knowledge_versions_newest_first(store: GraphStore, users) -> None:
    user = users()
    first = KnowledgeVersion(
        user_id=user,
        session_id="s1",
        created_at=REF,
        points=[KnowledgePoint(content="likes tea", score=40)],
    )
    second = KnowledgeVersion(
        user_id=user,
        session_id="s2",
        created_at=REF + timedelta(days=1),
        points=[
            KnowledgePoint(content="likes coffee", type=KnowledgeType.EXPERIENTIAL, score=90),
            KnowledgePoint(content="works at night", score=70, metadata={"source": "s2"}),
        ],
    )
    store.add_knowledge_version(first)
    store.add_knowledge_version(second)

    versions = store.knowledge_versions(user, limit=5)

    assert [v.version_id for v in versions] == [second.version_id, first.version_id]
    assert [p.content for p in versions[0].points] == ["likes coffee", "works at night"]
    assert versions[0].points[0].type == KnowledgeType.EXPERIENTIAL
    assert versions[0].points[1].metadata == {"source": "s2"}
    assert store.knowledge_versions(users("other")) == []


# -- input validation and signatures --------------------------------------------------


def test_models_refuse_bad_input_with_clear_errors() -> None:
    with pytest.raises(InvalidInputError, match="memory_type"):
        validated(Memory, user_id="u", memory_type="情绪", title="t", text="x")
    with pytest.raises(InvalidInputError, match="user_id"):
        validated(Memory, user_id="  ", memory_type="事实", title="t", text="x")
    with pytest.raises(InvalidInputError, match="text"):
        validated(Memory, user_id="u", memory_type="fact", title="t", text="x" * 20_001)
    with pytest.raises(InvalidInputError, match="content"):
        validated(ContentNode, user_id="u", kind="主题", content="")
    with pytest.raises(InvalidInputError, match="itself"):
        validated(MemoryLink, user_id="u", source_id="a", target_id="a", type="CAUSES")


def test_a_store_refuses_another_embedding_model(backend: str, tmp_path, store: GraphStore) -> None:
    from memory_platform.config import DEFAULT_EMBEDDING_MODEL, Settings

    if backend == "neo4j":
        from tests.support.neo4j_env import neo4j_settings

        settings = neo4j_settings()
        assert settings is not None
        other = settings.model_copy(update={"embedding_dim": 768, "embedding_model": "other-model"})
    else:
        path = tmp_path / "contract.db"
        other = Settings(
            sqlite_path=path, embedding_dim=768, embedding_model="other-model", _env_file=None
        )

    with pytest.raises(EmbeddingMismatchError, match=re.escape(DEFAULT_EMBEDDING_MODEL)):
        open_store(other)


@pytest.mark.neo4j
def test_a_user_with_a_small_share_of_a_shared_index_finds_their_own_nearest(
    neo4j_store: GraphStore, vec
) -> None:
    """Another user's 130 memories crowd the top of the global vector index. On a server
    that filters inside the index (2026.01+) the search is served there; on older ones the
    over-fetch finds none of the owner's and an exact scan of theirs answers. Either way
    the owner gets their own two nearest memories."""
    from memory_platform.store.neo4j import Neo4jGraphStore
    from memory_platform.store.neo4j_schema import supports_search_filters

    assert isinstance(neo4j_store, Neo4jGraphStore)
    assert neo4j_store.server_version is not None
    assert neo4j_store.search_filters is supports_search_filters(neo4j_store.server_version)
    crowd, owner = "contract-crowd", "contract-owner"
    try:
        crowded = [
            build_memory(crowd, CreateMemoryArgs(subject="我", memory_type="事实", topic=f"t{i}"))
            for i in range(130)
        ]
        neo4j_store.write_memories(crowded)
        neo4j_store.set_embeddings(
            crowd,
            VectorKind.MEMORY,
            {g.memory.id: vec(100 + i, noise=0.3, base=1) for i, g in enumerate(crowded)},
        )
        own = [
            build_memory(owner, CreateMemoryArgs(subject="我", memory_type="事实", topic=f"o{i}"))
            for i in range(3)
        ]
        neo4j_store.write_memories(own)
        vectors = {g.memory.id: vec(10 + i, noise=1.0 + i, base=1) for i, g in enumerate(own)}
        neo4j_store.set_embeddings(owner, VectorKind.MEMORY, vectors)
        query = vec(1)
        nearest = sorted(vectors, key=lambda ref: -float(vectors[ref] @ query))[:2]

        before = Counter(neo4j_store.counters)
        hits = neo4j_store.vector_search(owner, VectorKind.MEMORY, query, k=2)
        done = Counter(neo4j_store.counters) - before

        assert [h.ref_id for h in hits] == nearest
        if neo4j_store.search_filters:
            assert done["vector_filtered"] == 1 and done["vector_exact"] == 0
        else:
            assert done["vector_exact"] == 1
    finally:
        neo4j_store.delete_user(crowd)
        neo4j_store.delete_user(owner)
