"""Node-merge quality on a labelled set of 200 pairs (seed 000 §10: > 90% accuracy)."""

from __future__ import annotations

import pytest

from memory_platform import MemoryPlatform
from memory_platform.bench.merge import object_node_id, run_merge_eval, write_object
from memory_platform.bench.node_pairs import labelled_pairs


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
        mine = write_object(platform, "owner-a", pair, pair.a, 2 * i)
        theirs = write_object(platform, "owner-b", pair, pair.b, 2 * i + 1)
        platform.consolidate("owner-a")
        platform.consolidate("owner-b")
        assert object_node_id(platform, "owner-a", mine) != object_node_id(
            platform, "owner-b", theirs
        )
