"""Every example of seed 000 §4 and §4.5.2, fed as tool calls, builds the graph the seed describes."""

from __future__ import annotations

import json
from datetime import timedelta, timezone

import pytest

from memory_platform import MemoryPlatform
from memory_platform.models import LinkType, NodeType
from memory_platform.store import MemoryRecord
from memory_platform.tools.prompts import EXAMPLE_TIME, FEW_SHOT_EXAMPLES

USER = "seed-user"
CST = timezone(timedelta(hours=8))


@pytest.fixture
def replayed(platform: MemoryPlatform) -> dict[str, MemoryRecord]:
    """Replay every example as JSON-string tool calls; map memory title -> record."""
    for example in FEW_SHOT_EXAMPLES:
        for call in example["calls"]:
            arguments = json.dumps(call["arguments"], ensure_ascii=False)
            result = platform.execute_tool(
                USER, call["name"], arguments, reference_time=EXAMPLE_TIME
            )
            assert result["success"], (example["user"], call, result)
    memories = platform.store.list_memories(USER, limit=100)
    records = {}
    for memory in memories:
        record = platform.store.get_memory(USER, memory.id)
        assert record is not None
        records[memory.title] = record
    return records


def shape(record: MemoryRecord) -> set[tuple[str, str, str, str]]:
    """(source content, edge type, label, target content) for each structural edge."""
    nodes = {n.id: n for n in record.nodes}
    return {
        (nodes[e.src_id].content, e.type.value, e.label, nodes[e.dst_id].content)
        for e in record.edges
    }


def linked(platform: MemoryPlatform, records: dict[str, MemoryRecord]) -> set[tuple[str, str, str]]:
    titles = {r.memory.id: title for title, r in records.items()}
    out = set()
    for record in records.values():
        for link in platform.store.get_links(USER, record.memory.id):
            out.add((titles[link.source_id], link.type.value, titles[link.target_id]))
    return out


def test_simple_event_normalises_today(replayed: dict[str, MemoryRecord]) -> None:
    record = replayed["我吃饭白米饭"]
    assert shape(record) == {
        ("user", "MEMORY_TYPE", "事件", "吃饭"),
        ("吃饭", "CORE_RELATION", "做", "白米饭"),
        ("吃饭", "ATTRIBUTE", "时间", "2025-11-05"),
    }
    assert record.memory.importance == pytest.approx(0.3)
    assert record.memory.event_time is not None
    assert record.memory.event_time.astimezone(CST).date().isoformat() == "2025-11-05"


def test_fact_about_a_third_person(replayed: dict[str, MemoryRecord]) -> None:
    record = replayed["小明喜好打篮球"]
    assert shape(record) == {
        ("小明", "MEMORY_TYPE", "事实", "喜好"),
        ("喜好", "CORE_RELATION", "是", "打篮球"),
    }
    assert record.memory.event_time is None


def test_opinion_with_yesterday_and_basis(replayed: dict[str, MemoryRecord]) -> None:
    record = replayed["我认为撒谎小明的陈述"]
    assert shape(record) == {
        ("user", "MEMORY_TYPE", "观点", "认为撒谎"),
        ("认为撒谎", "CORE_RELATION", "认为", "小明的陈述"),
        ("认为撒谎", "ATTRIBUTE", "时间", "2025-11-04"),
        ("认为撒谎", "ATTRIBUTE", "基于", "他的话前后矛盾"),
    }
    assert record.memory.metadata["time_original"] == "昨天"


def test_breakfast_keeps_its_clock_time(replayed: dict[str, MemoryRecord]) -> None:
    record = replayed["我吃早餐面包"]
    assert record.memory.attributes == {"时间": "2025-11-05 08:00", "餐次": "早餐"}
    assert record.memory.event_time == EXAMPLE_TIME.replace(hour=8)


def test_insomnia_last_night_is_the_night_before(replayed: dict[str, MemoryRecord]) -> None:
    assert replayed["我失眠"].memory.attributes == {"时间": "2025-11-04 夜间"}
    assert replayed["我身体状态很困"].memory.attributes == {"时间": "2025-11-05"}


def test_relationship_points_from_me_to_the_friend(replayed: dict[str, MemoryRecord]) -> None:
    record = replayed["我朋友关系小明"]
    assert shape(record) == {
        ("user", "MEMORY_TYPE", "关系", "朋友关系"),
        ("朋友关系", "CORE_RELATION", "有", "小明"),
        ("朋友关系", "ATTRIBUTE", "程度", "好朋友"),
    }


def test_subjects_are_shared_nodes(replayed: dict[str, MemoryRecord]) -> None:
    def subject_id(title: str) -> str:
        node = next(n for n in replayed[title].nodes if n.kind == NodeType.SUBJECT)
        return node.id

    assert subject_id("我吃饭白米饭") == subject_id("我失眠") == subject_id("我讨厌下雨天")
    assert subject_id("小明喜好打篮球") == subject_id("小明考试满分")
    assert subject_id("下雨天影响我的心情") != subject_id("我讨厌下雨天")


def test_links_follow_the_seed_with_the_cause_as_source(
    platform: MemoryPlatform, replayed: dict[str, MemoryRecord]
) -> None:
    assert linked(platform, replayed) == {
        ("我情绪不开心", "CAUSES", "我摔东西"),  # 导致
        ("下雨天影响我的心情", "CAUSES", "我讨厌下雨天"),  # 因为: the source is the cause
        ("我失眠", "CAUSES", "我身体状态很困"),
        ("我身体状态很困", "CAUSES", "我工作状态没心情"),
        ("小明考试满分", "REFERS_TO", "我怀疑小明考满分的真实性"),  # 基于
    }
    assert all(link.type in LinkType for r in replayed.values() for link in r.links)


def test_every_example_is_staged_and_becomes_vector_searchable(
    platform: MemoryPlatform, replayed: dict[str, MemoryRecord]
) -> None:
    assert {r.memory.status.value for r in replayed.values()} == {"staged"}
    assert platform.wait_for_indexing(USER)
    stats = platform.stats(USER)
    assert stats.vectors["memory"] == stats.memories == 15
    assert stats.vectors["topic"] == stats.nodes["Topic"]
    assert stats.vectors["object"] == stats.nodes["Object"]
