"""Node-dedup quality (seed 000 §10: > 90 % accuracy) on the labelled pairs of
:mod:`.node_pairs`: each pair is written as two memories of a fresh user, the user is
consolidated, and the pair counts as merged when both memories now share one object node.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..config import Settings
from ..models import NodeType
from ..platform import MemoryPlatform
from ..tools.arguments import CreateMemoryArgs
from .metrics import machine_description
from .node_pairs import NodePair, labelled_pairs

_T0 = datetime(2025, 11, 5, tzinfo=UTC)


def object_node_id(mp: MemoryPlatform, user: str, memory_id: str) -> str:
    """The id of a memory's object node (shared by both memories once merged)."""
    return next(n.id for n in mp.get_memory(user, memory_id).nodes if n.kind == NodeType.OBJECT)


def write_object(mp: MemoryPlatform, user: str, pair: NodePair, text: str, hours: int) -> str:
    """A memory "<subject> likes <text>" of the pair's language; returns its id."""
    topic = "喜欢" if pair.lang == "zh" else "likes"
    args = CreateMemoryArgs(subject=pair.subject, memory_type="fact", topic=topic, object=text)
    when = _T0 + timedelta(hours=hours)
    return mp.create_memory_record(user, args, reference_time=when).memory.id


def run_merge_eval(
    mp: MemoryPlatform, progress: Callable[[str], None] = lambda _m: None
) -> dict[str, Any]:
    """Precision, recall and accuracy of node merging over every labelled pair."""
    started = time.perf_counter()
    outcomes: list[tuple[NodePair, bool]] = []
    pairs = labelled_pairs()
    for i, pair in enumerate(pairs):
        user = f"merge-pair-{i}"
        mp.delete_user(user)
        first = write_object(mp, user, pair, pair.a, 0)
        second = write_object(mp, user, pair, pair.b, 1)
        mp.consolidate(user)
        outcomes.append((pair, object_node_id(mp, user, first) == object_node_id(mp, user, second)))
        mp.delete_user(user)
        if (i + 1) % 50 == 0:
            progress(f"merge pairs {i + 1}/{len(pairs)}")
    true_pos = sum(1 for p, merged in outcomes if merged and p.duplicate)
    false_merges = [[p.a, p.b] for p, merged in outcomes if merged and not p.duplicate]
    missed = [[p.a, p.b] for p, merged in outcomes if not merged and p.duplicate]
    return {
        "pairs": len(outcomes),
        "duplicates": sum(1 for p in pairs if p.duplicate),
        "languages": sorted({p.lang for p in pairs}),
        "precision": round(true_pos / max(1, true_pos + len(false_merges)), 4),
        "recall": round(true_pos / max(1, true_pos + len(missed)), 4),
        "accuracy": round((len(outcomes) - len(false_merges) - len(missed)) / len(outcomes), 4),
        "false_merges": false_merges,
        "missed": missed,
        "seconds": round(time.perf_counter() - started, 2),
        "machine": machine_description(),
    }


def run_merge_eval_in(
    workdir: Path, progress: Callable[[str], None] = lambda _m: None
) -> dict[str, Any]:
    """:func:`run_merge_eval` on a fresh embedded store in ``workdir``."""
    path = workdir / "merge-eval.db"
    for old in workdir.glob(path.name + "*"):
        old.unlink()
    with MemoryPlatform(Settings(sqlite_path=path, _env_file=None)) as mp:
        return run_merge_eval(mp, progress)


def markdown(report: dict[str, Any]) -> str:
    """A one-row table of the merge evaluation."""
    return "\n".join(
        [
            "| pairs (duplicates) | languages | precision | recall | accuracy | false merges | missed |",
            "|---|---|---|---|---|---|---|",
            f"| {report['pairs']} ({report['duplicates']}) | {', '.join(report['languages'])} "
            f"| {report['precision']:.3f} | {report['recall']:.3f} | {report['accuracy']:.3f} "
            f"| {len(report['false_merges'])} | {len(report['missed'])} |",
        ]
    )
