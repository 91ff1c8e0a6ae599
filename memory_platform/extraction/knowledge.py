"""Serving versioned knowledge (seed 001 §5): the latest version, or a score-weighted sample.

``latest_points`` takes the newest version's points above the score threshold, best
first. ``sample_points`` draws without replacement from the points of the N most recent
versions, each with probability proportional to its score, which balances importance
against variety across sessions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..models import KnowledgePoint, KnowledgeVersion

__all__ = ["latest_points", "sample_points"]


def latest_points(
    versions: Sequence[KnowledgeVersion],
    top_k: int,
    min_score: float,
    include_sensitive: bool = False,
) -> list[KnowledgePoint]:
    """The newest version's points with ``score >= min_score``, highest score first
    (sensitive points only when asked for)."""
    if not versions or top_k <= 0:
        return []
    points = [
        p
        for p in versions[0].points
        if p.score >= min_score and (include_sensitive or not p.sensitive)
    ]
    return sorted(points, key=lambda p: (-p.score, p.id))[:top_k]


def sample_points(
    versions: Sequence[KnowledgeVersion],
    top_k: int,
    min_score: float,
    rng: random.Random | None = None,
    include_sensitive: bool = False,
) -> list[KnowledgePoint]:
    """Score-weighted sampling without replacement over the given versions' points
    (sensitive points never, unless asked for)."""
    pool = {
        p.id: p
        for v in versions
        for p in v.points
        if p.score >= min_score and (include_sensitive or not p.sensitive)
    }
    available = sorted(pool.values(), key=lambda p: p.id)
    rng = rng or random.Random()
    chosen: list[KnowledgePoint] = []
    while available and len(chosen) < top_k:
        weights = [max(p.score, 1.0) for p in available]
        pick = rng.choices(range(len(available)), weights=weights, k=1)[0]
        chosen.append(available.pop(pick))
    return chosen
