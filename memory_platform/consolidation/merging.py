"""Node de-duplication (seed 000 §5.1): fold a new topic or object into an existing one.

1. Same normalised name (case, width and punctuation ignored): merge.
2. Cosine similarity above ``merge_threshold`` (0.95): merge.
3. Between ``similarity_threshold`` (0.85) and that: merge only when the two nodes'
   contexts match, that is the memories they belong to share a subject or a neighbour
   (``context_match_required``); a merge of "apple" the fruit into "Apple" the company
   needs more than similar spelling.

Similarity is only trusted for texts the embedder understands: the default English model
turns most Chinese words into the same unknown token, so 喜欢 and 讨厌 look identical to it.
Such nodes merge by name only (configure a Chinese-capable embedding model for more).

The older node is kept, with its embedding; the newer one's edges and memberships move
to it and its id is recorded in ``merged_from``. Nodes of different users never meet:
every lookup is scoped by user. A node deleted since it was read (with the only memory
that had it, forgotten meanwhile) is passed over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..builder import ASSISTANT_SUBJECT, SELF_SUBJECT
from ..config import NodeMergerSettings
from ..errors import NotFoundError
from ..models import ContentNode, NodeType, VectorKind
from ..store import GraphStore
from ..textutil import normalize_name

__all__ = ["MergeDecision", "NodeMerger", "decide_merge"]

_KINDS = {NodeType.TOPIC: VectorKind.TOPIC, NodeType.OBJECT: VectorKind.OBJECT}
_EVERYONES = {SELF_SUBJECT, ASSISTANT_SUBJECT}


@dataclass(frozen=True)
class MergeDecision:
    """Whether two nodes are the same thing, and why."""

    merge: bool
    reason: str
    similarity: float = 0.0


def decide_merge(
    a: str,
    b: str,
    similarity: float,
    context_a: set[str],
    context_b: set[str],
    settings: NodeMergerSettings,
) -> MergeDecision:
    """The merge rule for two node contents of the same kind and user."""
    if normalize_name(a) and normalize_name(a) == normalize_name(b):
        return MergeDecision(True, "same name", similarity)
    if similarity > settings.merge_threshold:
        return MergeDecision(True, "cosine above merge threshold", similarity)
    if similarity > settings.similarity_threshold:
        if not settings.context_match_required:
            return MergeDecision(True, "cosine above similarity threshold", similarity)
        if context_a & context_b:
            return MergeDecision(True, "similar and same context", similarity)
        return MergeDecision(False, "similar but different context", similarity)
    return MergeDecision(False, "not similar", similarity)


@dataclass
class MergeStats:
    """Counts of one merging pass."""

    checked: int = 0
    merged_by_name: int = 0
    merged_by_vector: int = 0
    rejected_by_context: int = 0
    merged_ids: list[tuple[str, str]] = field(default_factory=list)


class NodeMerger:
    """Runs :func:`decide_merge` over a user's new topic and object nodes."""

    def __init__(
        self,
        store: GraphStore,
        settings: NodeMergerSettings,
        understands: Callable[[str], bool] = lambda _text: True,
        candidates: int = 5,
    ) -> None:
        self._store = store
        self._settings = settings
        self._understands = understands
        self._candidates = candidates

    def merge_new_nodes(self, user_id: str, nodes: list[ContentNode]) -> MergeStats:
        """Try to fold each node into an older one; returns what happened."""
        stats = MergeStats()
        gone: set[str] = set()
        for node in sorted(nodes, key=lambda n: (n.created_at, n.id)):
            if node.id in gone or node.kind not in _KINDS:
                continue
            stats.checked += 1
            target = self._find_target(user_id, node, gone, stats)
            if target is None:
                continue
            try:
                self._store.merge_nodes(user_id, target.id, node.id)
            except NotFoundError as exc:  # deleted with a memory the user forgot meanwhile
                if exc.kind != "node":
                    raise
                continue
            gone.add(node.id)
            stats.merged_ids.append((target.id, node.id))
        return stats

    def _find_target(
        self, user_id: str, node: ContentNode, gone: set[str], stats: MergeStats
    ) -> ContentNode | None:
        same_name = [
            n
            for n in self._store.find_nodes(user_id, node.kind, [normalize_name(node.content)])
            if n.id != node.id
            and n.id not in gone
            and (n.created_at, n.id) < (node.created_at, node.id)
        ]
        if same_name:
            stats.merged_by_name += 1
            return same_name[0]
        if not self._understands(node.content):
            return None  # the embedder cannot tell this text's meaning: names only
        kind = _KINDS[node.kind]
        vectors = self._store.get_vectors(user_id, kind, [node.id])
        if node.id not in vectors:
            return None  # not embedded yet: the next pass tries again
        hits = self._store.vector_search(user_id, kind, vectors[node.id], k=self._candidates + 1)
        older = {
            n.id: n
            for n in self._store.get_nodes(user_id, [h.ref_id for h in hits if h.ref_id != node.id])
            if n.id not in gone and (n.created_at, n.id) < (node.created_at, node.id)
        }
        context = None
        for hit in hits:
            other = older.get(hit.ref_id)
            if other is None or hit.score <= self._settings.similarity_threshold:
                continue
            if not self._understands(other.content):
                continue
            if context is None:
                context = self._context(user_id, [node.id, *older])
            decision = decide_merge(
                node.content,
                other.content,
                float(np.clip(hit.score, -1.0, 1.0)),
                context.get(node.id, set()),
                context.get(other.id, set()),
                self._settings,
            )
            if decision.merge:
                stats.merged_by_vector += 1
                return other
            stats.rejected_by_context += 1
        return None

    def _context(self, user_id: str, node_ids: list[str]) -> dict[str, set[str]]:
        """For each node, the normalised contents of the other nodes of its memories."""
        out: dict[str, set[str]] = {}
        for node_id, memory_ids in self._store.memories_for_nodes(user_id, node_ids).items():
            words: set[str] = set()
            for memory_id in memory_ids[:20]:
                record = self._store.get_memory(user_id, memory_id)
                if record is None:
                    continue
                words.update(
                    normalize_name(n.content)
                    for n in record.nodes
                    if n.id != node_id
                    and n.kind != NodeType.VALUE
                    and n.content not in _EVERYONES  # the user's own node says nothing
                )
            out[node_id] = words
        return out
