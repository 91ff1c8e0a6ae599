"""Node-merge quality on a labelled set of 200 pairs (seed 000 §10: > 90% accuracy)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_platform import MemoryPlatform
from memory_platform.bench.merge import run_merge_eval
from memory_platform.bench.node_pairs import labelled_pairs
from memory_platform.models import NodeType
from memory_platform.tools.arguments import CreateMemoryArgs

T0 = datetime(2025, 11, 5, tzinfo=UTC)


def _object_id(mp: MemoryPlatform, user: str, memory_id: str) -> str:
    return next(n.id for n in mp.get_memory(user, memory_id).nodes if n.kind == NodeType.OBJECT)


def _write(mp: MemoryPlatform, user: str, subject: str, obj: str, lang: str, hours: int) -> str:
    topic = "喜欢" if lang == "zh" else "likes"
    args = CreateMemoryArgs(subject=subject, memory_type="fact", topic=topic, object=obj)
    return mp.create_memory_record(user, args, reference_time=T0 + timedelta(hours=hours)).memory.id


@pytest.mark.slow
def test_merge_precision_and_recall_on_the_labelled_pairs(platform: MemoryPlatform) -> None:
    report = run_merge_eval(platform)

    assert report["pairs"] >= 200 and report["languages"] == ["en", "zh"]
    print(f"\nnode merge: {report['precision']=} {report['recall']=} {report['accuracy']=}")
    assert report["accuracy"] > 0.9, report["missed"]
    assert report["precision"] >= 0.95, report["false_merges"]
    assert platform.stats().memories == 0  # the evaluation cleans up its users


def test_duplicates_of_two_users_are_never_merged(platform: MemoryPlatform) -> None:
    for i, pair in enumerate(p for p in labelled_pairs() if p.duplicate and p.lang == "en"):
        if i == 10:
            break
        mine = _write(platform, "owner-a", pair.subject, pair.a, pair.lang, 2 * i)
        theirs = _write(platform, "owner-b", pair.subject, pair.b, pair.lang, 2 * i + 1)
        platform.consolidate("owner-a")
        platform.consolidate("owner-b")
        assert _object_id(platform, "owner-a", mine) != _object_id(platform, "owner-b", theirs)
