"""Consolidation on every backend: merging, discovered links, conflicts, status."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memory_platform import MemoryPlatform, Settings
from memory_platform.config import NodeMergerSettings
from memory_platform.consolidation import decide_merge
from memory_platform.consolidation.consolidator import (
    LLM_CONFIDENCE,
    LLM_CONFLICT_QUESTIONS,
    RULES_CONFIDENCE,
)
from memory_platform.consolidation.merging import NodeMerger
from memory_platform.embeddings import Embedder
from memory_platform.llm import LLMUnavailableError
from memory_platform.models import LinkType, MemoryStatus, NodeType
from memory_platform.store import GraphStore, MemoryRecord
from tests.support.jobs import meanwhile_held
from tests.support.memories import T0, causal_pair, create, superseded_as_before
from tests.support.openai_stub import OpenAIStub

pytestmark = pytest.mark.contract


def node_of(mp: MemoryPlatform, user: str, memory_id: str, kind: NodeType) -> str:
    record = mp.get_memory(user, memory_id)
    return next(n.id for n in record.nodes if n.kind == kind)


def links_of(mp: MemoryPlatform, user: str, memory_id: str) -> set[tuple[str, str, str]]:
    return {
        (link.source_id, link.type.value, link.target_id)
        for link in mp.store.get_links(user, memory_id)
    }


def on_day(mp: MemoryPlatform, user: str, day: int, subject: str, kind: str, topic: str,
           what: str) -> str:  # fmt: skip
    """A memory of ``subject``'s written ``day`` days after T0, in a session of its own."""
    return create(mp, user, T0 + timedelta(days=day), session=f"day-{day}", subject=subject,
                  memory_type=kind, topic=topic, object=what)  # fmt: skip


def test_same_name_nodes_merge_and_memories_become_related(mp: MemoryPlatform, users) -> None:
    user = users()
    first = create(mp, user, subject="我", memory_type="事实", topic="喜欢", object="Coffee")
    second = create(
        mp,
        user,
        T0 + timedelta(hours=1),
        subject="小明",
        memory_type="事件",
        topic="买了",
        object="coffee!",
    )

    report = mp.consolidate(user)

    kept = node_of(mp, user, first, NodeType.OBJECT)
    assert node_of(mp, user, second, NodeType.OBJECT) == kept
    assert mp.store.get_nodes(user, [kept])[0].merged_from != []
    assert report["nodes_merged"] == 1 and report["memories"] == 2
    related = [lk for lk in mp.store.get_links(user, first) if lk.type == LinkType.RELATED_TO]
    assert [{lk.source_id, lk.target_id} for lk in related] == [{first, second}]
    link = next(lk for lk in mp.store.get_links(user, first) if lk.type == LinkType.RELATED_TO)
    assert link.discovered and link.confidence < 1
    assert {m.status for m in mp.store.list_memories(user)} == {MemoryStatus.CONSOLIDATED}


def test_a_memory_is_related_to_a_few_others_and_never_through_a_hub(
    mp: MemoryPlatform, users
) -> None:
    """Sharing a node is evidence of a relation among few: each memory gets at most three
    RELATED_TO links of its own, and a node in more memories than
    ``retrieval.hub_degree_cap`` (every day's coffee) relates none of them."""
    daily, pets = users(), users()
    cap = mp.settings.retrieval.hub_degree_cap
    for day in range(cap + 1):
        on_day(mp, daily, day, "我", "事件", "喝了", "咖啡")
    cat = [
        on_day(mp, pets, day, "我", kind, topic, "猫")
        for day, (kind, topic) in enumerate(
            [
                ("事件", "喂了"),
                ("事件", "领养了"),
                ("观点", "喜欢"),
                ("事件", "抱了"),
                ("事实", "有"),
            ]
        )
    ]

    mp.consolidate(daily)
    mp.consolidate(pets)

    assert mp.store.stats(daily).links == 0
    made = {
        memory: sum(
            1
            for link in mp.store.get_links(pets, memory)
            if link.type == LinkType.RELATED_TO and link.source_id == memory
        )
        for memory in cat
    }
    assert max(made.values()) == 3 and sum(made.values()) >= len(cat) - 1


def test_near_duplicates_merge_by_vector_but_different_things_do_not(
    mp: MemoryPlatform, users
) -> None:
    user = users()
    shoes = create(
        mp, user, subject="I", memory_type="event", topic="bought", object="running shoes"
    )
    shoe = create(
        mp,
        user,
        T0 + timedelta(hours=2),
        subject="I",
        memory_type="event",
        topic="lost",
        object="running shoe",
    )
    tea = create(
        mp,
        user,
        T0 + timedelta(hours=3),
        subject="I",
        memory_type="fact",
        topic="likes",
        object="tea",
    )
    coffee = create(
        mp,
        user,
        T0 + timedelta(hours=4),
        subject="I",
        memory_type="fact",
        topic="drinks",
        object="coffee",
    )

    report = mp.consolidate(user)

    assert node_of(mp, user, shoe, NodeType.OBJECT) == node_of(mp, user, shoes, NodeType.OBJECT)
    assert node_of(mp, user, tea, NodeType.OBJECT) != node_of(mp, user, coffee, NodeType.OBJECT)
    assert report["nodes_merged"] == 1


def test_nodes_of_different_users_never_merge(mp: MemoryPlatform, users) -> None:
    alice, bob = users("alice"), users("bob")
    mine = create(mp, alice, subject="我", memory_type="事实", topic="喜欢", object="咖啡")
    theirs = create(
        mp,
        bob,
        T0 + timedelta(hours=1),
        subject="我",
        memory_type="事实",
        topic="喜欢",
        object="咖啡",
    )

    mp.consolidate(alice)
    mp.consolidate(bob)

    assert node_of(mp, alice, mine, NodeType.OBJECT) != node_of(mp, bob, theirs, NodeType.OBJECT)
    assert mp.store.get_links(alice, mine) == [] and mp.store.get_links(bob, theirs) == []


def test_a_node_gone_with_a_memory_forgotten_since_it_was_read_is_passed_over(
    mp: MemoryPlatform, users
) -> None:
    """A consolidation reads its batch's nodes, then merges them; a memory forgotten in
    between took its node along, and the merge into the older same-named node found it
    gone (``NotFoundError``, the whole run failed). It is passed over now."""
    user = users()
    kept = create(mp, user, subject="我", memory_type="事实", topic="喜欢", object="Coffee")
    later = create(mp, user, T0 + timedelta(hours=1), subject="小明", memory_type="事件",
                   topic="买了", object="coffee!")  # fmt: skip
    read = mp.get_memory(user, later)  # what the run read
    mp.forget(user, later)

    merger = NodeMerger(mp.store, mp.settings.node_merger)
    stats = merger.merge_new_nodes(user, [n for n in read.nodes if n.kind == NodeType.OBJECT])

    assert stats.merged_ids == []
    coffee = node_of(mp, user, kept, NodeType.OBJECT)
    assert mp.store.get_nodes(user, [coffee])[0].merged_from == []


def test_opposite_opinion_invalidates_the_older_memory(mp: MemoryPlatform, users) -> None:
    user = users()
    old = create(mp, user, subject="我", memory_type="观点", topic="喜欢", object="下雨天")
    new = create(
        mp,
        user,
        T0 + timedelta(days=3),
        subject="我",
        memory_type="观点",
        topic="讨厌",
        object="下雨天",
    )

    report = mp.consolidate(user)

    assert report["conflicts"] == 1
    assert report["conflict_details"][0]["invalidated"] == "我 喜欢 下雨天"
    older = mp.get_memory(user, old).memory
    assert older.invalid_at == T0 + timedelta(days=3)
    assert {(new, "SUPERSEDES", old), (new, "CONFLICTS_WITH", old)} <= links_of(mp, user, old)
    mp.wait_for_indexing(user)
    assert [r.id for r in mp.search(user, "我对下雨天的看法")] == [new]
    assert sorted(
        r.id for r in mp.search(user, "我对下雨天的看法", include_invalid=True)
    ) == sorted([old, new])


def test_single_valued_facts_conflict_but_multi_valued_do_not(mp: MemoryPlatform, users) -> None:
    user = users()
    shanghai = create(mp, user, subject="小明", memory_type="事实", topic="住在", object="上海")
    beijing = create(
        mp,
        user,
        T0 + timedelta(days=30),
        subject="小明",
        memory_type="事实",
        topic="住在",
        object="北京",
    )
    basketball = create(mp, user, subject="小明", memory_type="事实", topic="喜欢", object="篮球")
    football = create(
        mp,
        user,
        T0 + timedelta(days=1),
        subject="小明",
        memory_type="事实",
        topic="喜欢",
        object="足球",
    )
    other_person = create(
        mp,
        user,
        T0 + timedelta(days=31),
        subject="小红",
        memory_type="事实",
        topic="住在",
        object="广州",
    )

    report = mp.consolidate(user)

    assert report["conflicts"] == 1
    assert mp.get_memory(user, shanghai).memory.invalid_at is not None
    for still_valid in (beijing, basketball, football, other_person):
        assert mp.get_memory(user, still_valid).memory.invalid_at is None


def test_forgetting_either_side_of_a_conflict_leaves_the_other(mp: MemoryPlatform, users) -> None:
    """A conflict is two memories, not two versions of one: forgetting the memory a
    consolidation invalidated left the one that replaced it (before, both went: the
    version chain followed the conflict's SUPERSEDES link), and forgetting the newer
    leaves the older as it was, invalid (the user's later words contradicted it)."""
    for forgotten_side in ("older", "newer"):
        user = users()
        older = create(mp, user, subject="小明", memory_type="事实", topic="住在", object="上海")
        newer = create(mp, user, T0 + timedelta(days=30), subject="小明", memory_type="事实",
                       topic="住在", object="北京")  # fmt: skip
        assert mp.consolidate(user)["conflicts"] == 1
        [contradicted] = mp.memory_history(user, older)  # one memory, not a version of newer
        assert (contradicted.superseded_by, contradicted.ended) == (newer, None)

        gone, kept = (older, newer) if forgotten_side == "older" else (newer, older)
        report = mp.forget(user, gone)

        assert report.forgotten_ids == [gone]
        assert [m.id for m in mp.list_memories(user)] == [kept]
        assert mp.store.get_links(user, kept) == []  # the conflict's links went with it
        assert [v.memory.id for v in mp.memory_history(user, kept)] == [kept]
        still_valid = mp.get_memory(user, kept).memory.invalid_at is None
        assert still_valid == (kept == newer)
    mp.wait_for_indexing(user)
    # the last user's Beijing is forgotten and Shanghai invalid: nothing to answer with
    assert [r.id for r in mp.search(user, "小明住在哪里")] == []


@pytest.mark.parametrize(
    ("older", "newer"),
    [("live in", "lives in"), ("lives in", "live in"), ("住在", "居住在"), ("job", "works as")],
)
def test_a_single_valued_fact_conflicts_however_it_is_spelled(
    mp: MemoryPlatform, users, older: str, newer: str
) -> None:
    user = users()
    subject = "我" if older == "住在" else "I"
    first = create(mp, user, subject=subject, memory_type="fact", topic=older, object="Berlin")
    second = create(
        mp,
        user,
        T0 + timedelta(days=30),
        subject=subject,
        memory_type="fact",
        topic=newer,
        object="Paris",
    )
    unrelated = create(
        mp,
        user,
        T0 + timedelta(days=31),
        subject=subject,
        memory_type="fact",
        topic="works at",
        object="Siemens",
    )

    report = mp.consolidate(user)

    assert report["conflicts"] == 1, report
    assert mp.get_memory(user, first).memory.invalid_at is not None
    assert mp.get_memory(user, second).memory.invalid_at is None
    assert mp.get_memory(user, unrelated).memory.invalid_at is None


def test_what_happened_and_how_work_is_going_are_not_single_valued_facts(
    mp: MemoryPlatform, users
) -> None:
    """Events do not make each other untrue (overtime on Monday, a meeting on Friday; a
    stay in Berlin, then one in Paris), and 工作 (work) names how work is going as often
    as a job: none of these invalidates another, so none drops out of search."""
    user = users()
    week = [
        on_day(mp, user, day, "我", "事件", "工作", what)
        for day, what in enumerate(["加班", "开会", "出差"])
    ]
    stays = [
        on_day(mp, user, 40 + day, "I", "event", "lived in", city)
        for day, city in enumerate(["Berlin", "Paris"])
    ]
    stress = on_day(mp, user, 50, "我", "事实", "工作", "压力很大")
    job = on_day(mp, user, 51, "我", "事实", "工作", "程序员")

    report = mp.consolidate(user)

    assert report["conflicts"] == 0, report["conflict_details"]
    for memory_id in [*week, *stays, stress, job]:
        assert mp.get_memory(user, memory_id).memory.invalid_at is None
    mp.wait_for_indexing(user)
    found = [r.id for r in mp.search(user, "我周一工作加班了吗", max_results=10)]
    assert week[0] in found


def test_a_review_reinstates_what_todays_rules_would_not_have_invalidated(
    mp: MemoryPlatform, users
) -> None:
    """Memories the old rules invalidated (a week of work events, 工作 as a job) are
    current and searchable again after a review, and consolidated anew without a
    conflict; a conflict today's rules still find, one the LLM judged, and a person's
    correction are kept. A dry run changes nothing, and a second review finds nothing."""
    user = users()
    overtime, meeting = (
        on_day(mp, user, d, "我", "事件", "工作", w) for d, w in [(0, "加班"), (1, "开会")]
    )
    stress, job = (
        on_day(mp, user, d, "我", "事实", "工作", w) for d, w in [(50, "压力很大"), (51, "程序员")]
    )
    shanghai, _beijing = (
        on_day(mp, user, d, "小明", "事实", "住在", w) for d, w in [(60, "上海"), (61, "北京")]
    )
    tea, coffee = (
        on_day(mp, user, d, "我", "观点", "最爱", w) for d, w in [(70, "茶"), (71, "咖啡")]
    )
    berlin = on_day(mp, user, 80, "我", "事实", "住在", "柏林")
    assert mp.consolidate(user)["conflicts"] == 1  # 上海 -> 北京, as today's rules judge it
    superseded_as_before(mp, user, meeting, overtime, RULES_CONFIDENCE)
    superseded_as_before(mp, user, job, stress, RULES_CONFIDENCE)
    superseded_as_before(mp, user, coffee, tea, LLM_CONFIDENCE)
    assert mp.update_memory(user, berlin, object="巴黎")["success"]
    invalid = {shanghai, overtime, stress, tea, berlin}

    def still_invalid() -> set[str]:
        return {m for m in invalid if mp.get_memory(user, m).memory.invalid_at is not None}

    dry = mp.review_conflicts(user, dry_run=True)
    assert (dry["conflicts"], dry["reinstated"], still_invalid()) == (4, 2, invalid)

    review = mp.review_conflicts(user)

    assert (review["conflicts"], review["reinstated"]) == (4, 2)
    assert {d["invalidated"]: (d["judged_by"], d["reinstated"]) for d in review["details"]} == {
        "我 工作 加班": ("rules", True),
        "我 工作 压力很大": ("rules", True),
        "小明 住在 上海": ("rules", False),
        "我 最爱 茶": ("llm", False),
    }
    assert still_invalid() == {shanghai, tea, berlin}
    assert {kind for _, kind, _ in links_of(mp, user, overtime)} <= {"RELATED_TO"}
    assert mp.get_memory(user, overtime).memory.status == MemoryStatus.STAGED
    assert mp.review_conflicts(user)["reinstated"] == 0
    again = mp.consolidate(user)  # the two reinstated, and the correction's new version
    assert (again["memories"], again["conflicts"]) == (3, 0), again["conflict_details"]
    assert still_invalid() == {shanghai, tea, berlin}
    mp.wait_for_indexing(user)
    assert overtime in [r.id for r in mp.search(user, "我周一工作加班了吗", max_results=10)]


def test_a_review_judges_each_recorded_conflict_once_on_every_page(
    mp: MemoryPlatform, users, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory that superseded another and was superseded in turn is judged as the
    older of its own conflict only; an event is reinstated whatever the state that
    superseded it says; every page of the user's memories is read."""
    from memory_platform.consolidation import review

    monkeypatch.setattr(review, "_PAGE", 1)
    user = users()
    canton = on_day(mp, user, 0, "小明", "事件", "住在", "广州")
    beijing = on_day(mp, user, 1, "小明", "事实", "住在", "北京")
    tea, coffee, latte = (
        on_day(mp, user, d, "我", "观点", "最爱", w)
        for d, w in [(2, "茶"), (3, "咖啡"), (4, "拿铁")]
    )
    superseded_as_before(mp, user, beijing, canton, RULES_CONFIDENCE)
    superseded_as_before(mp, user, coffee, tea, LLM_CONFIDENCE)
    superseded_as_before(mp, user, latte, coffee, LLM_CONFIDENCE)

    review_report = mp.review_conflicts(user)

    assert {d["invalidated"]: d["reinstated"] for d in review_report["details"]} == {
        "小明 住在 广州": True,  # an event conflicts with nothing
        "我 最爱 茶": False,
        "我 最爱 咖啡": False,
    }
    assert review_report["conflicts"] == 3
    assert mp.get_memory(user, canton).memory.invalid_at is None


def test_stated_reason_becomes_a_discovered_causal_link(mp: MemoryPlatform, users) -> None:
    user = users()
    cause = create(
        mp,
        user,
        session="s1",
        subject="我",
        memory_type="事件",
        topic="失眠",
        attributes={"时间": "昨晚"},
    )
    effect = create(
        mp,
        user,
        T0 + timedelta(minutes=5),
        session="s1",
        subject="我",
        memory_type="事实",
        topic="身体状态",
        object="很困",
        attributes={"原因": "昨晚失眠"},
    )
    unrelated = create(
        mp,
        user,
        T0 + timedelta(minutes=10),
        session="s1",
        subject="我",
        memory_type="事件",
        topic="吃饭",
    )

    report = mp.consolidate(user)

    assert report["causal_links"] == 1
    assert (cause, "CAUSES", effect) in links_of(mp, user, cause)
    assert all(link.type != LinkType.CAUSES for link in mp.store.get_links(user, unrelated))
    assert "not configured" in report["llm"]


@pytest.mark.parametrize(
    ("key", "reason", "cause", "decoy", "effect"),
    [
        ("原因", "昨晚失眠睡不着", ("我", "失眠", "睡不着"), ("我", "昨晚看了", "电影"),
         ("我", "身体状态", "很困")),
        ("reason", "insomnia after the late coffee", ("I", "drank", "coffee late"),
         ("I", "watched", "a late movie"), ("I", "felt", "tired")),
    ],
)  # fmt: skip
def test_a_stated_reason_names_the_memory_that_holds_most_of_its_words(
    mp: MemoryPlatform, users, key: str, reason: str, cause, decoy, effect
) -> None:
    """The memory said just before one that states its reason is its cause where it holds
    at least half of the reason's words, and not where it shares a single word of it."""

    def linked(before: tuple[str, str, str]) -> int:
        user = users()
        for minutes, (subject, topic, obj), attributes in (
            (0, before, {}),
            (5, effect, {key: reason}),
        ):
            kind = "事件" if subject == "我" else "event"
            create(mp, user, T0 + timedelta(minutes=minutes), session="s1", subject=subject,
                   memory_type=kind, topic=topic, object=obj, attributes=attributes)  # fmt: skip
        return int(mp.consolidate(user)["causal_links"])

    assert linked(cause) == 1
    assert linked(decoy) == 0


def test_saying_the_same_opinion_again_is_no_conflict(mp: MemoryPlatform, users) -> None:
    user = users()
    first = create(mp, user, subject="我", memory_type="观点", topic="喜欢", object="咖啡")
    again = create(
        mp, user, T0 + timedelta(days=3), subject="我", memory_type="观点", topic="喜欢",
        object="咖啡",
    )  # fmt: skip

    report = mp.consolidate(user)

    assert report["conflicts"] == 0, report["conflict_details"]
    for memory in (first, again):
        assert mp.get_memory(user, memory).memory.invalid_at is None


def test_the_same_value_said_again_is_not_put_to_the_llm(with_llm, users) -> None:
    mp, stub = with_llm
    user = users()
    for day in (0, 3):
        on_day(mp, user, day, "我", "观点", "喜欢", "咖啡")

    report = mp.consolidate(user)

    assert stub.chat_requests() == 0 and report["conflicts"] == 0


def test_second_run_finds_nothing_to_do(mp: MemoryPlatform, users) -> None:
    user = users()
    create(mp, user, subject="我", memory_type="事实", topic="喜欢", object="咖啡")
    create(
        mp,
        user,
        T0 + timedelta(hours=1),
        subject="我",
        memory_type="事实",
        topic="喜欢",
        object="咖啡",
    )
    first = mp.consolidate(user)
    stats = mp.stats(user)

    second = mp.consolidate(user)

    assert first["memories"] == 2 and second["memories"] == 0 and second["nodes_merged"] == 0
    assert (first["batches"], second["batches"]) == (1, 0)
    assert mp.stats(user) == stats


@pytest.fixture
def with_llm(
    store: GraphStore, embedder: Embedder, tmp_path: Path
) -> Iterator[tuple[MemoryPlatform, OpenAIStub]]:
    """A platform on the contract store whose LLM is the scripted stub."""
    with OpenAIStub() as stub:
        settings = Settings(
            sqlite_path=tmp_path / "u.db",
            llm_base_url=stub.base_url,
            llm_max_retries=1,
            _env_file=None,
        )
        with MemoryPlatform(settings, embedder=embedder, store=store) as mp:
            yield mp, stub


def test_llm_judges_causality_when_configured(with_llm, users) -> None:
    mp, stub = with_llm
    user = users()
    a, b = causal_pair(mp, user)
    stub.reply(json.dumps({"causal": True, "confidence": 0.7}))
    report = mp.consolidate(user)
    assert report["causal_links"] == 1 and report["llm"].startswith("used")
    link = next(lk for lk in mp.store.get_links(user, a) if lk.type == LinkType.CAUSES)
    assert (link.source_id, link.target_id, link.confidence) == (a, b, pytest.approx(0.7))
    assert "A: I skipped lunch" in stub.requests[-1]["body"]["messages"][0]["content"]


def test_an_llm_outage_stops_consolidation_before_the_batch_is_settled(with_llm, users) -> None:
    """An LLM that does not answer stops the run with a retryable error and leaves the
    batch staged, so the judgement is asked when the run is retried, not skipped for
    ever; the retry asks and links."""
    mp, stub = with_llm
    user = users()
    a, b = causal_pair(mp, user)
    for _ in range(3):  # the openai client's own two retries, then the call fails
        stub.fail(503, "overloaded")
    with pytest.raises(LLMUnavailableError) as info:
        mp.consolidate(user)
    assert info.value.is_retryable()
    assert {m.id for m in mp.list_memories(user, status=MemoryStatus.STAGED)} == {a, b}
    assert not any(lk.type == LinkType.CAUSES for lk in mp.store.get_links(user, a))

    stub.reply(json.dumps({"causal": True, "confidence": 0.7}))
    report = mp.consolidate(user)
    again = mp.consolidate(user)
    assert report["memories"] == 2 and report["causal_links"] == 1
    assert report["llm_skipped"] == 0
    assert mp.list_memories(user, status=MemoryStatus.STAGED) == []
    assert again["memories"] == 0 and stub.chat_requests() == 4  # nothing asked twice


def test_an_llm_refusal_skips_one_judgement_and_the_run_settles(with_llm, users) -> None:
    """A refused request (a wrong model or key) or an answer that is no judgement is not
    worth retrying: the rules decide that pair, the report counts it, the batch settles."""
    mp, stub = with_llm
    user = users()
    a, _ = causal_pair(mp, user)
    stub.fail(400, "model not found")
    report = mp.consolidate(user)
    assert report["memories"] == 2 and report["causal_links"] == 0
    assert not any(lk.type == LinkType.CAUSES for lk in mp.store.get_links(user, a))
    assert report["llm_skipped"] == 1
    assert mp.list_memories(user, status=MemoryStatus.STAGED) == []


def consolidate_while(
    mp: MemoryPlatform, stub: OpenAIStub, user: str, answer: str, meanwhile: Callable[[], object]
) -> dict[str, Any]:
    """Consolidate ``user`` while the user does ``meanwhile`` (``forget`` and corrections
    take no lock, as a chat's tool calls do not): it happens while the LLM holds the run's
    first judgement, which then answers ``answer``."""
    release = threading.Event()
    stub.reply(answer, hold=release)
    return meanwhile_held(stub.holding, release, lambda: mp.consolidate(user), meanwhile)


def consolidate_forgetting(
    mp: MemoryPlatform, stub: OpenAIStub, user: str, forgotten: str, answer: str
) -> dict[str, Any]:
    """Consolidate ``user`` while the user forgets ``forgotten``."""
    return consolidate_while(mp, stub, user, answer, lambda: mp.forget(user, forgotten))


def test_a_memory_forgotten_while_the_llm_judges_it_leaves_the_run_to_settle_the_rest(
    with_llm, users
) -> None:
    """The LLM answers that the pair is causal, but the later memory was forgotten
    meanwhile: no link to it, and the run still settles the memory left (it stopped with
    ``NotFoundError`` before, leaving the batch staged)."""
    mp, stub = with_llm
    user = users()
    lunch, dizzy = causal_pair(mp, user)

    report = consolidate_forgetting(
        mp, stub, user, dizzy, json.dumps({"causal": True, "confidence": 0.7})
    )

    assert report["causal_links"] == 0 and report["forgotten_meanwhile"] >= 1
    assert mp.store.get_links(user, lunch) == []
    assert [m.id for m in mp.list_memories(user)] == [lunch]
    assert mp.list_memories(user, status=MemoryStatus.STAGED) == []


def test_causes_are_looked_for_within_a_session_and_its_window_only(with_llm, users) -> None:
    """Memories of two sessions, or of one session hours apart, are not put to the LLM as
    cause and effect: only what one conversation said close together is."""
    mp, stub = with_llm
    user = users()
    window = timedelta(seconds=mp.settings.consolidation.temporal_window_seconds)
    create(mp, user, session="s1", subject="I", memory_type="event", topic="skipped",
           object="lunch")  # fmt: skip
    create(mp, user, T0 + timedelta(minutes=5), session="s2", subject="I",
           memory_type="event", topic="fainted", object="at work")  # fmt: skip
    create(mp, user, T0 + timedelta(minutes=5) + window + timedelta(minutes=1), session="s2",
           subject="I", memory_type="event", topic="went", object="home")  # fmt: skip

    report = mp.consolidate(user)

    assert report["memories"] == 3 and report["causal_links"] == 0
    assert stub.chat_requests() == 0


def test_a_memory_forgotten_during_the_run_is_not_shown_to_the_llm_again(with_llm, users) -> None:
    """The LLM judges coffee against tea while the user forgets coffee: coffee is not put
    to the LLM against milk afterwards (what the user forgot leaves no more prompts)."""
    mp, stub = with_llm
    user = users()
    coffee, _ = coffee_then_tea(mp, user)
    create(mp, user, T0 + timedelta(days=2), session="s3", subject="I", memory_type="fact",
           topic="drinks", object="milk")  # fmt: skip

    def forget_coffee() -> None:
        mp.forget(user, coffee)
        for _ in range(3):
            stub.reply(json.dumps({"contradicts": False}))

    report = consolidate_while(mp, stub, user, json.dumps({"contradicts": False}), forget_coffee)

    asked = [r["body"]["messages"][0]["content"] for r in stub.requests]
    assert "coffee" in asked[0] and asked[1:], asked  # tea and milk were still judged
    assert not any("coffee" in question for question in asked[1:]), asked
    assert report["forgotten_meanwhile"] == 1 and report["conflicts"] == 0


def test_a_conflict_with_a_memory_forgotten_meanwhile_invalidates_nothing(with_llm, users) -> None:
    """The LLM says the newer memory contradicts the older one, but the user forgot the
    newer one while it judged: the older memory stays valid (before, it was invalidated
    by a memory that no longer exists, and the run failed)."""
    mp, stub = with_llm
    user = users()
    coffee, tea = coffee_then_tea(mp, user)

    report = consolidate_forgetting(mp, stub, user, tea, json.dumps({"contradicts": True}))

    assert report["conflicts"] == 0 and report["forgotten_meanwhile"] == 1
    kept = mp.get_memory(user, coffee).memory
    assert kept.invalid_at is None and kept.status == MemoryStatus.CONSOLIDATED
    assert stub.chat_requests() == 1  # the pair was judged by the LLM, not by a rule
    assert mp.store.get_links(user, coffee) == []


def coffee_then_tea(mp: MemoryPlatform, user: str) -> tuple[str, str]:
    """Two memories of what the user drinks, a day apart: the LLM judges the pair."""
    coffee = create(mp, user, session="s1", subject="I", memory_type="fact", topic="drinks",
                    object="coffee")  # fmt: skip
    tea = create(mp, user, T0 + timedelta(days=1), session="s2", subject="I",
                 memory_type="fact", topic="drinks", object="tea")  # fmt: skip
    return coffee, tea


def test_a_memory_corrected_while_the_llm_judges_it_keeps_its_correction(with_llm, users) -> None:
    """The LLM says the newer memory contradicts the older one, but the user corrected
    the older one meanwhile: the correction stands (before, the run overwrote the old
    version's ``invalid_at`` with the newer memory's time and linked it as superseded by
    it), and the corrected version is judged in its own right."""
    mp, stub = with_llm
    user = users()
    coffee, tea = coffee_then_tea(mp, user)
    corrected_at = T0 + timedelta(days=2)

    def correct() -> None:
        mp.update_memory(user, coffee, object="espresso", reference_time=corrected_at)
        for _ in range(2):  # the corrected version and tea, judged from either side
            stub.reply(json.dumps({"contradicts": False}))

    report = consolidate_while(mp, stub, user, json.dumps({"contradicts": True}), correct)

    assert report["conflicts"] == 0 and report["changed_meanwhile"] == 1
    old = mp.get_memory(user, coffee)
    assert old.memory.invalid_at == corrected_at
    assert {lk.type for lk in old.links if lk.source_id == tea} <= {LinkType.RELATED_TO}
    assert mp.get_memory(user, tea).memory.invalid_at is None
    assert mp.list_memories(user, status=MemoryStatus.STAGED) == []


def test_a_conflict_with_a_memory_retracted_meanwhile_invalidates_nothing(with_llm, users) -> None:
    """The user retracted the newer memory while the LLM judged it: the older one stays
    current (before, a memory the user had withdrawn invalidated it)."""
    mp, stub = with_llm
    user = users()
    coffee, tea = coffee_then_tea(mp, user)
    retracted_at = T0 + timedelta(days=2)

    report = consolidate_while(
        mp, stub, user, json.dumps({"contradicts": True}),
        lambda: mp.update_memory(user, tea, "retract", reference_time=retracted_at),
    )  # fmt: skip

    assert report["conflicts"] == 0 and report["changed_meanwhile"] == 1
    kept = mp.get_memory(user, coffee)
    assert kept.memory.invalid_at is None
    assert {lk.type for lk in kept.links} == {LinkType.RELATED_TO}  # shared topic, no conflict
    assert mp.get_memory(user, tea).memory.invalid_at == retracted_at
    assert stub.chat_requests() == 1  # the retracted memory was not shown to the LLM again


def test_the_llm_judges_states_not_events(with_llm, users) -> None:
    """Two meals are both true however the LLM would answer, so it is not asked (one
    question per pair of a busy user's same-topic events, each a chance of a wrong
    invalidation); two work states are still put to it, and its answer stands."""
    mp, stub = with_llm
    user = users()
    meals = [
        on_day(mp, user, day, "我", "事件", "吃饭", dish)
        for day, dish in enumerate(["火锅", "饺子"])
    ]
    teacher = on_day(mp, user, 5, "我", "事实", "工作", "教师")
    coder = on_day(mp, user, 6, "我", "事实", "工作", "程序员")
    stub.reply(json.dumps({"contradicts": True}))

    report = mp.consolidate(user)

    assert stub.chat_requests() == 1
    assert "教师" in stub.requests[0]["body"]["messages"][0]["content"]
    assert [d["invalidated"] for d in report["conflict_details"]] == ["我 工作 教师"]
    assert mp.get_memory(user, teacher).memory.invalid_at is not None
    judged = {
        link.type: link.confidence
        for link in mp.store.get_links(user, teacher)
        if link.source_id == coder and link.type != LinkType.RELATED_TO
    }  # the links say who judged
    assert judged == {LinkType.SUPERSEDES: LLM_CONFIDENCE, LinkType.CONFLICTS_WITH: LLM_CONFIDENCE}
    for current in (*meals, coder):
        assert mp.get_memory(user, current).memory.invalid_at is None


@pytest.mark.parametrize(("kind", "topic"), [("fact", "drinks"), ("opinion", "likes")])
def test_the_llm_judges_a_state_against_those_nearest_it_in_time(
    with_llm, users, kind: str, topic: str
) -> None:
    """A new value is put to the LLM against the user's few latest values of its topic,
    not against every one they ever had: the questions per memory stay bounded however
    long the history, of a topic only the LLM judges (drinks) as of one whose opposites
    the rules judge (likes, hates)."""
    mp, stub = with_llm
    user = users()
    drinks = [f"drink {i}" for i in range(LLM_CONFLICT_QUESTIONS + 3)]
    for day, drink in enumerate(drinks):
        on_day(mp, user, day, "I", kind, topic, drink)
    for _ in range(len(drinks) ** 2):
        stub.reply(json.dumps({"contradicts": False}))
    mp.consolidate(user)
    stub.replies.clear()
    stub.requests.clear()

    on_day(mp, user, 30, "I", kind, topic, "water")
    for _ in range(LLM_CONFLICT_QUESTIONS):
        stub.reply(json.dumps({"contradicts": False}))
    report = mp.consolidate(user)

    assert report["memories"] == 1 and report["llm_skipped"] == 0
    asked = [r["body"]["messages"][0]["content"] for r in stub.requests]
    assert len(asked) == LLM_CONFLICT_QUESTIONS
    latest = drinks[-LLM_CONFLICT_QUESTIONS:]
    assert all(any(drink in question for drink in latest) for question in asked)
    assert all(drink in "".join(asked) for drink in latest)


def test_a_new_state_reads_only_the_history_it_is_put_against(
    with_llm, users, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of a topic no rule judges, a new value reads in full only the memories the LLM is
    asked about, not every value the topic ever had, nor the events and the same value
    nearer it: the reads per memory stay bounded however long the history (one read each
    on a server)."""
    mp, stub = with_llm
    user = users()
    history = [
        on_day(mp, user, day, "I", "fact", "drinks", f"drink {day}")
        for day in range(4 * LLM_CONFLICT_QUESTIONS)
    ]
    for day in range(len(history), len(history) + 3):  # nearer, but things that happened
        on_day(mp, user, day, "I", "event", "drinks", f"a toast {day}")
        on_day(mp, user, day, "I", "fact", "drinks", "water")  # and the same value
    for _ in range((len(history) + 6) * (LLM_CONFLICT_QUESTIONS + 1)):
        stub.reply(json.dumps({"contradicts": False}))
    mp.consolidate(user)
    stub.replies.clear()
    water = on_day(mp, user, len(history) + 3, "I", "fact", "drinks", "water")
    for _ in range(LLM_CONFLICT_QUESTIONS):
        stub.reply(json.dumps({"contradicts": False}))
    read: list[str] = []
    get_memory = mp.store.get_memory

    def counted(user_id: str, memory_id: str) -> MemoryRecord | None:
        read.append(memory_id)
        return get_memory(user_id, memory_id)

    monkeypatch.setattr(mp.store, "get_memory", counted)
    stub.requests.clear()
    report = mp.consolidate(user)

    assert report["memories"] == 1 and stub.chat_requests() == LLM_CONFLICT_QUESTIONS
    assert set(read) - {water} == set(history[-LLM_CONFLICT_QUESTIONS:])


def test_two_new_states_are_put_to_the_llm_once(with_llm, users) -> None:
    """Both memories are staged, so the run meets the pair from either side; the second
    time it has the LLM's answer already."""
    mp, stub = with_llm
    user = users()
    coffee, tea = coffee_then_tea(mp, user)
    stub.reply(json.dumps({"contradicts": False}))

    report = mp.consolidate(user)

    assert stub.chat_requests() == 1 and report["memories"] == 2
    assert report["conflicts"] == 0 and report["llm_skipped"] == 0
    for current in (coffee, tea):
        assert mp.get_memory(user, current).memory.invalid_at is None


def test_a_merge_by_meaning_weighs_only_what_tells_two_things_apart(
    mp: MemoryPlatform, users
) -> None:
    """Between the thresholds two nodes merge on a shared context: the user's own node
    and a shared attribute value (a date) are no context, since every memory of a day
    has them. A node merges into an older one only: one the embedder cannot read, or an
    older one it cannot read, merges by name alone."""
    by_context = NodeMergerSettings(similarity_threshold=0.0, merge_threshold=1.0)
    user = users()
    day = {"时间": "2025-10-20"}
    create(mp, user, subject="我", memory_type="事实", topic="喜欢", object="apple", attributes=day)
    stock = create(mp, user, T0 + timedelta(hours=1), subject="我", memory_type="事件",
                   topic="买了", object="Apple Inc", attributes=day)  # fmt: skip
    mp.wait_for_indexing(user)

    stats = NodeMerger(mp.store, by_context).merge_new_nodes(
        user, [n for n in mp.get_memory(user, stock).nodes if n.kind == NodeType.OBJECT]
    )
    assert (stats.merged_ids, stats.rejected_by_context) == ([], 1)

    other = users()
    liked = [  # each new one older than the next: 苹果手机 could merge into "apple"
        create(mp, other, T0 + timedelta(hours=h), subject="小明", memory_type="事实",
               topic="喜欢", object=thing)
        for h, thing in [(0, "苹果"), (1, "apple"), (2, "苹果手机")]
    ]  # fmt: skip
    mp.wait_for_indexing(other)
    objects = [node_of(mp, other, m, NodeType.OBJECT) for m in liked]
    reads_english = NodeMerger(
        mp.store, NodeMergerSettings(similarity_threshold=0.0, merge_threshold=0.0),
        understands=str.isascii,
    )  # fmt: skip
    assert reads_english.merge_new_nodes(other, mp.store.get_nodes(other, objects)).merged_ids == []

    first, second = (
        create(mp, other, T0 + timedelta(hours=h), subject="我", memory_type="事实",
               topic="喝", object=drink)
        for h, drink in [(3, "coffee"), (4, "Coffee")]
    )  # fmt: skip
    older, newer = (node_of(mp, other, m, NodeType.OBJECT) for m in (first, second))
    merger = NodeMerger(mp.store, mp.settings.node_merger)
    assert merger.merge_new_nodes(other, mp.store.get_nodes(other, [older])).merged_ids == []
    assert merger.merge_new_nodes(other, mp.store.get_nodes(other, [newer])).merged_ids == [
        (older, newer)
    ]


def test_merge_rule_needs_context_between_the_thresholds() -> None:
    rules = NodeMergerSettings()
    assert decide_merge("Apple", "apple", 0.2, set(), set(), rules).merge
    assert not decide_merge("!!!", "?", 0.2, set(), set(), rules).merge  # no name to share
    assert decide_merge("jazz", "jazz music", 0.97, set(), set(), rules).merge
    assert not decide_merge("apple", "Apple Inc", 0.9, {"fruit"}, {"iphone"}, rules).merge
    assert decide_merge("apple", "apples", 0.9, {"小明"}, {"小明", "market"}, rules).merge
    assert not decide_merge("coffee", "tea", 0.62, {"x"}, {"x"}, rules).merge
    loose = NodeMergerSettings(context_match_required=False)
    assert decide_merge("apple", "Apple Inc", 0.9, set(), set(), loose).merge


def test_chinese_words_the_model_cannot_read_merge_by_name_only(mp: MemoryPlatform, users) -> None:
    # all-MiniLM-L6-v2 turns 喜欢, 讨厌 and 买了 into the same unknown token (cosine 1.0).
    user = users()
    likes = create(mp, user, subject="我", memory_type="观点", topic="喜欢", object="跑步")
    hates = create(
        mp,
        user,
        T0 + timedelta(hours=1),
        subject="我",
        memory_type="观点",
        topic="讨厌",
        object="游泳",
    )
    again = create(
        mp,
        user,
        T0 + timedelta(hours=2),
        subject="小明",
        memory_type="观点",
        topic="喜欢",
        object="游泳",
    )

    mp.consolidate(user)

    assert node_of(mp, user, likes, NodeType.TOPIC) != node_of(mp, user, hates, NodeType.TOPIC)
    assert node_of(mp, user, likes, NodeType.TOPIC) == node_of(mp, user, again, NodeType.TOPIC)
    assert node_of(mp, user, likes, NodeType.OBJECT) != node_of(mp, user, hates, NodeType.OBJECT)
