"""Correcting, retracting and forgetting memories behave the same on every backend
(seed 000 §9.2, §9.3): a correction never overwrites, a retraction never deletes, and a
forgotten memory is unreachable by any path."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memory_platform import MemoryPlatform
from memory_platform.corrections import correct_memory, retract_memory
from memory_platform.embeddings import query_text
from memory_platform.errors import ConflictError, InvalidInputError, NotFoundError
from memory_platform.layers import MID_TERM_SPEAKER
from memory_platform.models import (
    KnowledgePoint,
    KnowledgeVersion,
    LinkType,
    MemoryStatus,
    MemoryType,
)
from memory_platform.tools.arguments import UpdateMemoryArgs
from memory_platform.tools.prompts import CORRECTION_EXAMPLES, EXAMPLE_TIME
from tests.contract.conftest import stored_text
from tests.support.text_caches import TOKENISERS, held_anywhere

pytestmark = pytest.mark.contract

CST = timezone(timedelta(hours=8))
T0 = datetime(2025, 11, 5, 10, 0, tzinfo=CST)


def create(mp: MemoryPlatform, user: str, **args: object) -> str:
    result = mp.execute_tool(user, "create_memory", dict(args), reference_time=T0)
    assert result["success"], result
    return str(result["memory_id"])


def moved_to_berlin(mp: MemoryPlatform, user: str) -> str:
    return create(
        mp,
        user,
        subject="我",
        memory_type="事件",
        topic="搬家",
        object="柏林",
        attributes={"时间": "上个月", "原因": "工作"},
        importance=0.8,
    )


def knows(mp: MemoryPlatform, user: str, *points: KnowledgePoint) -> None:
    """A knowledge version of these points, as an extraction writes one."""
    mp.store.add_knowledge_version(KnowledgeVersion(user_id=user, points=list(points)))


def found(mp: MemoryPlatform, user: str, query: str, **kwargs: object) -> list[str]:
    return [r.id for r in mp.search(user, query, record_access=False, **kwargs)]  # type: ignore[arg-type]


def test_a_correction_keeps_the_old_version_and_search_returns_the_new_one(
    mp: MemoryPlatform, users
) -> None:
    user = users()
    old = moved_to_berlin(mp, user)
    result = mp.execute_tool(
        user,
        "update_memory",
        {
            "memory_description": "我上个月搬家到柏林",
            "action": "纠正",
            "object": "巴黎",
            "reason": "用户更正了城市",
        },
        reference_time=T0,
    )
    assert result["success"], result
    new = result["memory_id"]
    assert result["supersedes"] == old and new != old
    assert "巴黎" in result["text"] and "柏林" in result["previous_text"]

    current = mp.get_memory(user, new)
    assert current.memory.text.startswith("我 搬家 巴黎")  # written as the user wrote it
    assert current.memory.attributes == {"时间": "2025-10", "原因": "工作"}  # kept as they were
    assert current.memory.importance == 0.8
    previous = mp.get_memory(user, old)
    assert previous.memory.invalid_at is not None  # kept, invalidated, not overwritten
    assert "柏林" in previous.memory.text
    assert any(
        link.type == LinkType.SUPERSEDES and link.source_id == new and link.target_id == old
        for link in current.links
    )

    mp.wait_for_indexing(user)
    assert found(mp, user, "搬家")[:1] == [new]
    assert old not in found(mp, user, "搬家 柏林")
    assert old in found(mp, user, "搬家 柏林", include_invalid=True)

    for start in (old, new):  # the history reads the same from either end
        history = mp.memory_history(user, start)
        assert [v.memory.id for v in history] == [old, new]
        assert [v.current for v in history] == [False, True]
        assert history[0].superseded_by == new
        ended = history[0].ended
        assert ended is not None and ended.action == "correct"
        assert ended.by == "agent" and ended.reason == "用户更正了城市"
        assert ended.fields == ["object"]
        assert history[1].change == ended


def test_a_correction_carries_the_links_and_can_be_corrected_again(
    mp: MemoryPlatform, users
) -> None:
    user = users()
    job = create(mp, user, subject="我", memory_type="事件", topic="换工作", object="新公司")
    moved = moved_to_berlin(mp, user)
    linked = mp.execute_tool(
        user,
        "link_memories",
        {
            "source_memory_description": job,
            "target_memory_description": moved,
            "relation_type": "导致",
        },
    )
    assert linked["success"], linked
    first = mp.update_memory(user, moved, object="巴黎", changed_by="alice")
    second = mp.update_memory(
        user,
        first["memory_id"],
        attributes={"原因": "", "时间": "2025-10-20"},
        importance=0.9,
        reference_time=T0,  # the date is the user's (UTC+8)
    )
    assert second["success"], second
    latest = mp.get_memory(user, second["memory_id"])
    assert latest.memory.attributes == {"时间": "2025-10-20"}  # "" removed the reason
    assert latest.memory.importance == 0.9
    assert latest.memory.event_time == datetime(2025, 10, 19, 16, 0, tzinfo=UTC)
    causes = [(ln.source_id, ln.target_id) for ln in latest.links if ln.type == LinkType.CAUSES]
    assert causes == [(job, latest.memory.id)]  # the cause now points at the current version

    history = mp.memory_history(user, moved)
    assert [v.memory.id for v in history] == [moved, first["memory_id"], second["memory_id"]]
    assert [v.ended.by if v.ended else None for v in history] == ["alice", "user", None]


def test_updating_an_old_version_by_id_is_refused_with_a_clear_error(
    mp: MemoryPlatform, users
) -> None:
    user = users()
    old = moved_to_berlin(mp, user)
    mp.update_memory(user, old, object="巴黎")
    result = mp.execute_tool(user, "update_memory", {"memory_description": old, "object": "罗马"})
    assert result["success"] is False
    assert "current" in result["error"]
    with pytest.raises(InvalidInputError, match="nothing to correct"):
        mp.update_memory(user, create(mp, user, subject="我", memory_type="事实", topic="猫"))


def test_two_changes_of_one_memory_at_once_supersede_it_once(mp: MemoryPlatform, users) -> None:
    """Two corrections (or a correction and a retraction) that read the memory before
    either wrote: the second finds it superseded when it writes, and fails with nothing
    left behind (before, both succeeded and the memory had two current versions)."""
    user = users()
    old = moved_to_berlin(mp, user)
    read_by_both = mp.get_memory(user, old)
    mp.update_memory(user, old, object="巴黎")  # the first change lands

    with pytest.raises(ConflictError, match="nothing was changed"):
        correct_memory(
            mp.store, read_by_both, UpdateMemoryArgs(memory_description=old, object="罗马"),
            by="agent", categories=(),
        )  # fmt: skip
    with pytest.raises(ConflictError, match="nothing was changed"):
        retract_memory(mp.store, read_by_both.memory, by="agent", reason=None)

    history = mp.memory_history(user, old)
    assert [v.current for v in history] == [False, True] and "巴黎" in history[1].memory.text
    assert history[0].ended is not None and history[0].ended.action == "correct"
    assert not any("罗马" in m.text for m in mp.list_memories(user))


def test_retract_invalidates_without_deleting(mp: MemoryPlatform, users) -> None:
    user = users()
    fight = create(
        mp, user, subject="我", memory_type="事件", topic="吵架", object="小红",
        attributes={"时间": "昨天"},
    )  # fmt: skip
    result = mp.execute_tool(
        user,
        "update_memory",
        {"memory_description": "我昨天和小红吵架", "action": "retract", "reason": "没发生"},
        reference_time=T0,
    )
    assert result["success"] and result["memory_id"] == fight
    mp.wait_for_indexing(user)
    assert fight not in found(mp, user, "吵架 小红")
    assert fight in found(mp, user, "吵架 小红", include_invalid=True)
    [version] = mp.memory_history(user, fight)
    assert not version.current and version.ended is not None
    assert (version.ended.action, version.ended.reason) == ("retract", "没发生")
    again = mp.execute_tool(user, "update_memory", {"memory_description": fight, "action": "撤回"})
    assert again["success"] is False and "already" in again["error"]


def test_an_unclear_description_lists_candidates_instead_of_guessing(
    mp: MemoryPlatform, users
) -> None:
    user = users()
    for city in ("柏林", "巴黎"):
        create(mp, user, subject="我", memory_type="事件", topic="旅行", object=city)
    result = mp.execute_tool(
        user, "update_memory", {"memory_description": "我去旅行", "object": "罗马"}
    )
    assert result["success"] is False
    assert len(result["candidates"]) == 2
    assert len(mp.list_memories(user)) == 2  # nothing written


def test_a_correction_keeps_what_it_does_not_change(mp: MemoryPlatform, users) -> None:
    """The subject reads as written (I, 你), a memory marked sensitive stays so, and a
    corrected type or flag is the new version's and is named in the change."""
    user = users()
    tea = mp.create_memory(user, "I", "fact", "drinks", "green tea")
    name = create(mp, user, subject="你", memory_type="事实", topic="名字", object="小助")
    marked = mp.update_memory(user, tea, sensitive=True)["memory_id"]

    black = mp.update_memory(user, marked, object="black tea")
    renamed = mp.update_memory(user, name, object="小美")
    retyped = mp.update_memory(user, black["memory_id"], memory_type="opinion")

    assert black["text"].startswith("I drinks black tea")
    assert renamed["text"].startswith("你 名字 小美")
    latest = mp.get_memory(user, retyped["memory_id"]).memory
    assert latest.sensitive  # marked by hand, not by a rule: kept through two corrections
    assert latest.memory_type == MemoryType.OPINION
    assert [v.change.fields if v.change else None for v in mp.memory_history(user, tea)] == [
        None, ["sensitive"], ["object"], ["memory_type"],
    ]  # fmt: skip


def test_a_correction_removes_an_attribute_given_empty_or_null_and_ignores_a_blank_object(
    mp: MemoryPlatform, users
) -> None:
    user = users()
    run = create(mp, user, subject="我", memory_type="事件", topic="跑步", object="五公里",
                 attributes={"地点": "公园", "心情": "好"})  # fmt: skip

    first = mp.update_memory(user, run, attributes={"地点": None}, object="  ")
    second = mp.update_memory(user, first["memory_id"], attributes={"心情": ""}, reason=" ")

    assert first["success"] and second["success"], (first, second)
    once = mp.get_memory(user, first["memory_id"]).memory
    assert (once.attributes, once.text) == ({"心情": "好"}, "我 跑步 五公里（心情：好）")
    twice = mp.get_memory(user, second["memory_id"]).memory
    assert twice.attributes == {} and twice.text == "我 跑步 五公里"
    assert twice.metadata["change"].get("reason") is None


def test_a_corrected_time_is_read_anew_at_the_correction(mp: MemoryPlatform, users) -> None:
    """A new time is read against when the correction was made (a key in any case), and
    how the old one was read (its words, read in part) is not carried over; a correction
    that leaves the time alone keeps it."""
    user = users()
    partly = create(
        mp, user, subject="我", memory_type="事件", topic="搬家", object="柏林",
        attributes={"时间": "上个月中旬"},
    )  # fmt: skip
    said = create(
        mp, user, subject="I", memory_type="event", topic="moved to", object="Paris",
        attributes={"time": "last month"},
    )  # fmt: skip
    assert {"time_partial", "time_span"} <= set(mp.get_memory(user, partly).memory.metadata)
    assert mp.get_memory(user, said).memory.metadata["time_original"] == "last month"

    dated = mp.update_memory(user, partly, attributes={"时间": "2025-10-20"}, reference_time=T0)
    kept = mp.update_memory(user, said, object="Lyon", reference_time=T0)
    later = T0 + timedelta(days=30)
    moved = mp.update_memory(
        user, kept["memory_id"], attributes={"Time": "yesterday"}, reference_time=later
    )

    assert not {"time_partial", "time_span", "time_original"} & set(
        mp.get_memory(user, dated["memory_id"]).memory.metadata
    )
    assert mp.get_memory(user, kept["memory_id"]).memory.metadata["time_original"] == "last month"
    lyon = mp.get_memory(user, moved["memory_id"]).memory
    assert lyon.event_time is not None
    assert lyon.event_time.astimezone(CST).date() == (later - timedelta(days=1)).date()
    assert lyon.attributes == {"Time": "2025-12-04"}  # replaces "time", in any case
    assert lyon.metadata["time_original"] == "yesterday"
    undated = mp.update_memory(user, dated["memory_id"], attributes={"date": ""})
    assert mp.get_memory(user, undated["memory_id"]).memory.attributes == {}  # one time


def test_a_correction_that_fails_half_way_leaves_the_old_version_current(
    mp: MemoryPlatform, users, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = users()
    old = create(mp, user, subject="我", memory_type="事件", topic="搬家", object="柏林")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the store went away")

    monkeypatch.setattr(mp.store, "update_memory", broken)
    with pytest.raises(RuntimeError, match="went away"):
        mp.update_memory(user, old, object="巴黎")
    monkeypatch.undo()

    memories = mp.list_memories(user)
    assert [(m.id, m.invalid_at) for m in memories] == [(old, None)]  # the new one removed


def test_a_correction_of_a_conflict_winner_leaves_the_conflict_with_it(
    mp: MemoryPlatform, users
) -> None:
    """The version that won a conflict keeps its CONFLICTS_WITH and SUPERSEDES to the
    loser; its correction supersedes it alone (carrying them would supersede the loser
    twice and repeat a conflict that was already resolved)."""
    user = users()
    liked = create(mp, user, subject="我", memory_type="观点", topic="喜欢", object="下雨天")
    hated = mp.execute_tool(
        user, "create_memory",
        {"subject": "我", "memory_type": "观点", "topic": "讨厌", "object": "下雨天"},
        reference_time=T0 + timedelta(days=3),
    )["memory_id"]  # fmt: skip
    assert mp.consolidate(user)["conflicts"] == 1

    corrected = mp.update_memory(user, hated, object="大雨天")["memory_id"]

    links = {(ln.source_id, ln.type, ln.target_id) for ln in mp.get_memory(user, corrected).links}
    assert {(s, t) for s, kind, t in links if kind == LinkType.SUPERSEDES} == {(corrected, hated)}
    assert not any(kind == LinkType.CONFLICTS_WITH for _, kind, _ in links)
    assert (hated, LinkType.CONFLICTS_WITH, liked) in {
        (ln.source_id, ln.type, ln.target_id) for ln in mp.get_memory(user, hated).links
    }


def test_a_description_names_the_current_version_not_the_ones_it_replaced(
    mp: MemoryPlatform, users
) -> None:
    """A correction keeps the old version, which matches the description as well as the
    new one; changing "the move last month" changes the current version, not guessed
    among both."""
    user = users()
    old = create(
        mp, user, subject="我", memory_type="事件", topic="搬家", object="柏林",
        attributes={"时间": "上个月"},
    )  # fmt: skip
    new = mp.update_memory(user, old, importance=0.9, reference_time=T0)["memory_id"]

    result = mp.execute_tool(
        user, "update_memory",
        {"memory_description": "我上个月搬家到柏林", "action": "retract"}, reference_time=T0,
    )  # fmt: skip

    assert result["success"], result
    assert result["memory_id"] == new


def test_forgetting_takes_the_knowledge_repeating_a_topic_or_place_not_a_date(
    mp: MemoryPlatform, users
) -> None:
    """A memory without an object is repeated by its topic; its attribute values count,
    but not its time: a date is no word of the memory's own."""
    user = users()
    climb = create(
        mp, user, subject="我", memory_type="事件", topic="攀岩",
        attributes={"时间": "2025-10-20", "地点": "Yosemite"},
    )  # fmt: skip
    knows(
        mp, user,
        KnowledgePoint(content="用户喜欢攀岩", score=80),
        KnowledgePoint(content="Yosemite has granite walls", score=70),
        KnowledgePoint(content="2025-10-20 是个晴天", score=60),
    )  # fmt: skip

    assert mp.forget(user, climb).knowledge_points == 2
    assert [p.content for p in mp.latest_knowledge(user, top_k=10)] == ["2025-10-20 是个晴天"]


def test_forgetting_leaves_nothing_reachable_but_an_audit_record(mp: MemoryPlatform, users) -> None:
    user = users()
    keep = create(mp, user, subject="我", memory_type="事实", topic="喜好", object="咖啡")
    ex = create(mp, user, subject="我", memory_type="关系", topic="前任", object="Lindqvist")
    corrected = mp.update_memory(user, ex, object="Sorensen")["memory_id"]
    knows(
        mp, user,
        KnowledgePoint(content="The user's ex is called Sorensen", score=80),
        KnowledgePoint(content="The user likes coffee", score=60),
        KnowledgePoint(content="about the ex", score=50, metadata={"memory_ids": [ex]}),
    )  # fmt: skip
    mp.wait_for_indexing(user)
    assert corrected in found(mp, user, "Sorensen")

    result = mp.execute_tool(user, "forget_memory", {"memory_description": "我的前任 Sorensen"})
    assert result["success"], result
    assert set(result["forgotten"]) == {ex, corrected}  # every version
    assert result["knowledge_points_removed"] == 2

    mp.clear_query_cache()
    for query in ("Sorensen", "Lindqvist", "前任", "ex"):
        hits = found(
            mp, user, query, include_invalid=True, include_sensitive=True, min_relevance=0.0
        )
        assert ex not in hits and corrected not in hits
    for memory_id in (ex, corrected):
        with pytest.raises(NotFoundError):
            mp.get_memory(user, memory_id)
    assert [p.content for p in mp.latest_knowledge(user, top_k=10)] == ["The user likes coffee"]
    exported = "\n".join(mp.export_user(user))
    for word in ("Sorensen", "Lindqvist", "前任", ex, corrected):
        assert word not in exported
    assert keep in exported
    stats = mp.stats(user)  # only coffee's nodes and vectors are left
    assert stats.memories == 1 and stats.nodes["Object"] == 1
    assert stats.vectors["object"] == 1 and stats.vectors["memory"] == 1

    raw = stored_text(mp.store, user).lower()  # any query of the user's rows or nodes
    for word in ("sorensen", "lindqvist", "前任"):  # ids stay only in the audit record
        assert word not in raw
    assert "coffee" in raw or "咖啡" in raw  # the dump does see what is still there

    [entry] = mp.audit_log(user)
    assert entry.action == "forget" and entry.target_kind == "memory"
    assert set(entry.target_ids) == {ex, corrected}
    assert entry.counts == {"memories": 2, "knowledge_points": 2}
    assert "Sorensen" not in entry.model_dump_json()
    with pytest.raises(NotFoundError):
        mp.forget(user, ex)


def test_forgetting_an_episode_removes_it_and_is_audited(mp: MemoryPlatform, users) -> None:
    """The episode goes with the mid-term summaries that retell it (they name it in
    ``episode_ids``); a summary of other turns stays."""
    user = users()
    turn = mp.add_episode(user, "My locker combination is 31-7-22", speaker="user")
    dog = mp.add_episode(user, "I walked the dog in the park", speaker="user")
    retold = mp.add_episode(user, "The user's locker opens with 31-7-22; they walked the dog.",
                            speaker=MID_TERM_SPEAKER, metadata={"episode_ids": [turn, dog]})  # fmt: skip
    other = mp.add_episode(user, "The user walked the dog.", speaker=MID_TERM_SPEAKER,
                           metadata={"episode_ids": [dog]})  # fmt: skip
    mp.wait_for_indexing(user)
    assert turn in found(mp, user, "locker combination")
    report = mp.forget(user, turn, actor="support")
    assert report.target_kind == "episode" and report.forgotten_ids == [turn, retold]
    assert report.summaries == 1
    mp.clear_query_cache()
    for gone in (turn, retold):
        assert gone not in found(mp, user, "locker combination", min_relevance=0.0)
    assert mp.store.get_episodes(user, [turn, retold]) == []
    assert {e.id for e in mp.store.get_episodes(user, [dog, other])} == {dog, other}
    [entry] = mp.audit_log(user)
    assert entry.actor == "support" and entry.counts["summaries"] == 1


def _delete_one_way(way: str, mp: MemoryPlatform, user: str, memory: str, turn: str) -> None:
    """Delete the memory or the turn one of the ways of :data:`_DELETIONS`."""
    if way == "forget memory":
        mp.forget(user, memory)
    elif way == "forget turn":
        mp.forget(user, turn)
    elif way == "delete_memory":
        mp.delete_memory(user, memory)
    elif way == "delete_episodes":
        assert mp.delete_episodes(user, [turn]) == 1
    elif way == "purge_archived":
        mp.store.update_memory(user, memory, status=MemoryStatus.ARCHIVED)
        assert mp.purge_archived(user, older_than_days=30)["purged"] == 1
    elif way == "purge_expired":
        later = datetime.now(UTC) + timedelta(days=2)
        assert mp.purge_expired(user, now=later) == {"purged": 1}
    else:
        mp.delete_user(user)


_DELETIONS = [
    "forget memory",
    "forget turn",
    "delete_memory",
    "delete_episodes",
    "purge_archived",
    "purge_expired",
    "delete_user",
]


@pytest.mark.parametrize("way", _DELETIONS)
def test_what_is_deleted_leaves_the_process_caches_too(mp: MemoryPlatform, users, way: str) -> None:
    """The process keeps texts as keys of its caches (every user's tokens, tags and
    names; a user's recent questions with their vectors): whatever deletes a memory or a
    turn empties them, as the store keeps none of its words."""
    user = users()
    memory_id = create(mp, user, subject="我", memory_type="事件", topic="弹吉他", object="西湖边")
    expires = datetime.now(UTC) + timedelta(days=1)
    turn = "小雨昨天在西湖边弹吉他，弹到半夜"
    turn_id = mp.add_episode(user, turn, speaker="user", expires_at=expires)
    mp.wait_for_indexing(user)
    question = "谁在西湖边弹吉他?"
    assert turn_id in found(mp, user, question, min_relevance=0.0)
    for text in (turn, "西湖边"):
        for tokenise in TOKENISERS:
            tokenise(text)  # as the search read them, whatever it read them as
    assert mp._recent_vectors.asked(user, query_text(question))  # type: ignore[attr-defined]

    _delete_one_way(way, mp, user, memory_id, turn_id)
    assert not mp._recent_vectors.asked(user, query_text(question))  # type: ignore[attr-defined]
    assert not held_anywhere(turn) and not held_anywhere("西湖边")


def test_purge_forgets_only_archived_memories_past_the_age(mp: MemoryPlatform, users) -> None:
    user = users()
    stale = create(mp, user, subject="我", memory_type="事件", topic="午饭", object="面条")
    recent = create(mp, user, subject="我", memory_type="事件", topic="晚饭", object="米饭")
    live = create(mp, user, subject="我", memory_type="事实", topic="职业", object="老师")
    tea = create(mp, user, subject="我", memory_type="事实", topic="喝", object="绿茶")
    black = mp.update_memory(user, tea, object="红茶")["memory_id"]
    chips = create(mp, user, subject="我", memory_type="事件", topic="零食", object="薯片")
    nuts = mp.update_memory(user, chips, object="坚果")["memory_id"]
    # tea's old version faded, its current one did not: history of a memory in use
    for memory_id in (stale, recent, tea, chips, nuts):
        mp.store.update_memory(user, memory_id, status=MemoryStatus.ARCHIVED)
    mp.store.record_access(user, [recent], datetime.now(UTC))
    mp.search(user, "午饭吃了面条", record_access=False)
    asked = mp._recent_vectors.asked  # type: ignore[attr-defined]
    assert asked(user, query_text("午饭吃了面条"))
    # memories created at T0 (2025) are older than 30 days; the recent one was just used
    assert mp.purge_archived(user, older_than_days=30) == {"checked": 5, "purged": 2}
    assert not asked(user, query_text("午饭吃了面条"))  # what was asked of it goes too
    assert {m.id for m in mp.list_memories(user)} == {recent, live, tea, black}
    entries = mp.audit_log(user)
    assert {e.action for e in entries} == {"purge"}
    assert sorted(sorted(e.target_ids) for e in entries) == sorted([[stale], sorted([chips, nuts])])
    assert mp.purge_archived(user) == {"checked": 0, "purged": 0}  # no age configured


def test_expired_episodes_are_purged_by_the_daily_maintenance(mp: MemoryPlatform, users) -> None:
    """An episode whose expiry has come is deleted by the daily maintenance, audited as
    a purge by ``expiry``; one whose time has not come, and one that never expires, stay."""
    user = users()
    now = datetime.now(UTC)
    expired, later, plain = mp.add_episodes(user, [
        {"text": "a scratch note", "expires_at": now - timedelta(minutes=1)},
        {"text": "a note for tomorrow", "expires_at": now + timedelta(days=1)},
        {"text": "a note kept for good"},
    ])  # fmt: skip

    assert mp.daily_maintenance(user)["expired"] == {"purged": 1}
    assert {e.id for e in mp.store.get_episodes(user, [expired, later, plain])} == {later, plain}
    [entry] = mp.audit_log(user)
    assert (entry.action, entry.actor, entry.target_ids) == ("purge", "expiry", [expired])
    assert mp.purge_expired(user) == {"purged": 0}
    assert mp.purge_expired(user, now=now + timedelta(days=2)) == {"purged": 1}
    assert max(e.at for e in mp.audit_log(user)) == now + timedelta(days=2)  # the purge's time


def test_the_seed_style_correction_examples_run_as_written(mp: MemoryPlatform, users) -> None:
    """The prompt kit's update_memory / forget_memory examples do what they say."""
    for example in CORRECTION_EXAMPLES:
        user = users()
        created = []
        for call in example["setup"]:
            result = mp.execute_tool(user, call["name"], call["arguments"], EXAMPLE_TIME)
            assert result["success"], (example["title"], result)
            created.append(result["memory_id"])
        for call in example["calls"]:
            result = mp.execute_tool(user, call["name"], call["arguments"], EXAMPLE_TIME)
            assert result["success"], (example["title"], result)
        memories = mp.list_memories(user)
        if example["calls"][0]["name"] == "forget_memory":
            assert memories == []
        elif example["calls"][0]["arguments"].get("action") == "撤回":
            assert [m.invalid_at is not None for m in memories] == [True]
        elif example["calls"][0]["name"] == "update_memory":
            assert [m.invalid_at is None for m in memories] == [False, True]
            assert mp.memory_history(user, created[0])[-1].memory.text.startswith("我 搬家 巴黎")
        else:
            assert [m.sensitive for m in memories] == [True]
