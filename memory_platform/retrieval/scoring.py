"""The ranking formula of seed 000 §5.2 and the decay of §5.3, shared by every backend.

score = relevance · (α + β·importance + δ·recency + ε·access) · (1 - γ·(1 - graph))

The seed's weights, applied to the calibrated relevance rather than added to it: a sum
lets an often-used or important memory that matches nothing outrank one that answers
the question (measured: recall fell from 0.64 to 0.44 after one pass of ordinary use).
As a factor, importance, recency and use order memories of comparable relevance, and
none of them can make an irrelevant memory a match. Graph neighbours are scaled by
``1 - γ·(1 - graph)`` with ``graph`` = 1/(1 + hops).
"""

from __future__ import annotations

import math
from datetime import datetime

from ..config import RetrievalSettings
from .results import ScoreComponents

__all__ = ["access_frequency", "distance_factor", "graph_proximity", "recency", "weighted_score"]

_ACCESS_SATURATION = 100
"""Accesses at which the use term reaches its cap of 1 (log-scaled: 10 accesses give 0.52),
so a memory consulted a hundred times is not pushed further by the next one."""
_DEFAULT_RATE = 0.05
"""Decay per day for a memory type without a rate of its own: the seed's rate for events
(000 §5.3), the fastest, so an unknown kind never outlives known ones."""


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


def distance_factor(graph: float, weights: RetrievalSettings) -> float:
    """What a result's graph proximity (1 direct, 1/2 one hop away...) scales its score by."""
    return max(1.0 - weights.graph_distance_weight * (1.0 - graph), 0.0)


def weighted_score(c: ScoreComponents, weights: RetrievalSettings) -> float:
    """Relevance scaled by the seed's factors, rounded so ties break the same everywhere."""
    factor = (
        weights.vector_weight
        + weights.importance_weight * c.importance
        + weights.recency_weight * c.recency
        + weights.access_weight * c.access
    )
    return round(c.semantic * factor * distance_factor(c.graph, weights), 9)
