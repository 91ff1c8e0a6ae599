"""The ranking formula of seed 000 §5.2 and the decay of §5.3, shared by every backend.

score = α·semantic + β·importance + γ·graph + δ·recency + ε·access
"""

from __future__ import annotations

import math
from datetime import datetime

from ..config import RetrievalSettings
from .results import ScoreComponents

__all__ = ["access_frequency", "graph_proximity", "recency", "weighted_score"]

_ACCESS_SATURATION = 100
_DEFAULT_RATE = 0.05


def recency(
    when: datetime | None, now: datetime, memory_type: str | None, rates: dict[str, float]
) -> float:
    """exp(-λ · days since ``when``); λ per memory type (events fade fastest)."""
    if when is None:
        return 0.0
    days = max((now - when).total_seconds() / 86_400.0, 0.0)
    rate = rates.get(memory_type or "event", _DEFAULT_RATE)
    return math.exp(-rate * days)


def access_frequency(access_count: int) -> float:
    """Frequently recalled memories are harder to forget: log-scaled, capped at 1."""
    return min(1.0, math.log1p(max(access_count, 0)) / math.log1p(_ACCESS_SATURATION))


def graph_proximity(distance: int) -> float:
    """1 for a direct match, 1/2 one hop away, 1/3 two hops away."""
    return 1.0 / (1.0 + max(distance, 0))


def weighted_score(c: ScoreComponents, weights: RetrievalSettings) -> float:
    """The weighted sum, rounded so ties break the same way on every backend."""
    total = (
        weights.vector_weight * c.semantic
        + weights.importance_weight * c.importance
        + weights.graph_distance_weight * c.graph
        + weights.recency_weight * c.recency
        + weights.access_weight * c.access
    )
    return round(total, 9)
