"""Background consolidation: node merging, relation discovery, conflict detection."""

from .consolidator import ConsolidationReport, Consolidator
from .merging import MergeDecision, NodeMerger, decide_merge

__all__ = ["ConsolidationReport", "Consolidator", "MergeDecision", "NodeMerger", "decide_merge"]
