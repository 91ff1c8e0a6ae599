"""Hybrid multi-hop retrieval: seeds from vectors and words, graph expansion, scoring."""

from .context import format_context
from .planner import QueryPlan, plan_heuristically
from .results import ScoreComponents, SearchResult
from .retriever import HybridRetriever

__all__ = [
    "HybridRetriever",
    "QueryPlan",
    "ScoreComponents",
    "SearchResult",
    "format_context",
    "plan_heuristically",
]
