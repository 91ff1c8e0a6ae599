"""Node-merge quality on a labelled set of 200 pairs (seed 000 §10: > 90% accuracy)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_platform import MemoryPlatform
from memory_platform.models import NodeType
from memory_platform.tools.arguments import CreateMemoryArgs
from tests.support.node_pairs import labelled_pairs

T0 = datetime(2025, 11, 5, tzinfo=UTC)


def _object_id(mp: MemoryPlatform, user: str, memory_id: str) -> str:
    return next(n.id for n in mp.get_memory(user, memory_id).nodes if n.kind == NodeType.OBJECT)


def _write(mp: MemoryPlatform, user: str, subject: str, obj: str, lang: str, hours: int) -> str:
    topic = "喜欢" if lang == "zh" else "likes"
    args = CreateMemoryArgs(subject=subject, memory_type="fact", topic=topic, object=obj)
    return mp.create_memory_record(user, args, reference_time=T0 + timedelta(hours=hours)).memory.id


@pytest.mark.slow
def test_merge_precision_and_recall_on_the_labelled_pairs(platform: MemoryPlatform) -> None:
    pairs = labelled_pairs()
    assert len(pairs) >= 200
    assert {p.lang for p in pairs} == {"en", "zh"}
    outcomes = []
    for i, pair in enumerate(pairs):
        user = f"pair-{i}"
        first = _write(platform, user, pair.subject, pair.a, pair.lang, 0)
        second = _write(platform, user, pair.subject, pair.b, pair.lang, 1)
        platform.consolidate(user)
        merged = _object_id(platform, user, first) == _object_id(platform, user, second)
        outcomes.append((pair, merged))

    true_pos = sum(1 for p, m in outcomes if m and p.duplicate)
    false_pos = [(p.a, p.b) for p, m in outcomes if m and not p.duplicate]
    false_neg = [(p.a, p.b) for p, m in outcomes if not m and p.duplicate]
    precision = true_pos / max(1, true_pos + len(false_pos))
    recall = true_pos / max(1, true_pos + len(false_neg))
    accuracy = (len(outcomes) - len(false_pos) - len(false_neg)) / len(outcomes)
    print(f"\nnode merge: precision {precision:.3f} recall {recall:.3f} accuracy {accuracy:.3f}")
    print(f"false merges: {false_pos}\nmissed: {false_neg}")
    assert accuracy > 0.9
    assert precision >= 0.95, false_pos


def test_duplicates_of_two_users_are_never_merged(platform: MemoryPlatform) -> None:
    for i, pair in enumerate(p for p in labelled_pairs() if p.duplicate and p.lang == "en"):
        if i == 10:
            break
        mine = _write(platform, "owner-a", pair.subject, pair.a, pair.lang, 2 * i)
        theirs = _write(platform, "owner-b", pair.subject, pair.b, pair.lang, 2 * i + 1)
        platform.consolidate("owner-a")
        platform.consolidate("owner-b")
        assert _object_id(platform, "owner-a", mine) != _object_id(platform, "owner-b", theirs)
