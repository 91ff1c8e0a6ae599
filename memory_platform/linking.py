"""Finds the memory a ``link_memories`` description means, or says why it cannot.

Candidates come from the lexical index and the memory vectors; each is scored by the
share of the description's words it contains (longer words weigh more) and by cosine
similarity, through its stored vector (a memory is embedded only when it has none yet:
``benchmarks/results/resolve_cost.md``). A weak best match, or two matches too close to
tell apart, is not guessed: the caller gets the candidates back instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from .embeddings import clip_query
from .models import Memory, VectorKind
from .recent_vectors import RecentVectors
from .store import GraphStore
from .store.base import memory_document
from .textutil import lexical_tokens
from .timeparse import resolve_time_words

__all__ = ["Candidate", "Resolution", "resolve_memory"]

MIN_SCORE = 0.45
"""Below this the best candidate is too weak to be the memory meant."""
MIN_MARGIN = 0.08
"""The best candidate must lead the second by at least this much."""
_CANDIDATES = 10


@dataclass(frozen=True)
class Candidate:
    """A memory that might be the one described, with its score in [0, 1]."""

    memory: Memory
    score: float
    lexical: float
    semantic: float


@dataclass(frozen=True)
class Resolution:
    """The memory found (``memory`` set) or the reason and candidates (``memory`` None)."""

    memory: Memory | None
    candidates: list[Candidate]
    reason: str | None = None


def _weight(token: str) -> float:
    return float(min(len(token), 3))


def _overlap(description: tuple[str, ...], document: tuple[str, ...]) -> float:
    wanted = set(description)
    if not wanted:
        return 0.0
    have = set(document)
    total = sum(_weight(t) for t in wanted)
    return sum(_weight(t) for t in wanted & have) / total


def resolve_memory(
    store: GraphStore,
    vectors: RecentVectors,
    user_id: str,
    description: str,
    reference_time: datetime | None = None,
    current_only: bool = False,
) -> Resolution:
    """Resolve a description (or a memory id) to one of the user's memories.

    Relative time words in the description (``昨晚``, ``yesterday``) are resolved against
    ``reference_time`` and matched against the memories' normalised times. With
    ``current_only``, memories no longer valid (corrected, retracted) are not candidates.
    The description's vector is looked up in ``vectors`` first: agents describe one memory
    in call after call.
    """
    direct = store.get_memories(user_id, [description.strip()])
    if direct:
        return Resolution(memory=direct[0], candidates=[])
    times = resolve_time_words(description, reference_time or datetime.now(UTC))
    lexical_text = " ".join([description, *times])

    query_vector = vectors.description(user_id, clip_query(description, keep="start"))
    ids: dict[str, None] = {}
    for hit in store.lexical_search(
        user_id, lexical_text, kinds=[VectorKind.MEMORY], k=_CANDIDATES
    ):
        ids.setdefault(hit.ref_id, None)
    semantic: dict[str, float] = {}
    for vhit in store.vector_search(user_id, VectorKind.MEMORY, query_vector, k=_CANDIDATES):
        ids.setdefault(vhit.ref_id, None)
        semantic[vhit.ref_id] = max(vhit.score, 0.0)
    memories = store.get_memories(user_id, list(ids))
    if current_only:
        memories = [m for m in memories if m.invalid_at is None]
    if not memories:
        return Resolution(memory=None, candidates=[], reason="no memory of this user matches")

    outside = [m.id for m in memories if m.id not in semantic]
    if outside:  # found lexically but outside the vector top-k: their stored vectors
        stored = store.similarities(user_id, VectorKind.MEMORY, outside, query_vector)
        semantic.update((ref, max(cosine, 0.0)) for ref, cosine in stored.items())
    missing = [m for m in memories if m.id not in semantic]
    if missing:  # not embedded yet
        embedded = vectors.embedder.embed([m.text for m in missing])
        for memory, vector in zip(missing, embedded, strict=True):
            semantic[memory.id] = max(float(np.dot(query_vector, vector)), 0.0)

    wanted = lexical_tokens(lexical_text)
    candidates = sorted(
        (
            Candidate(
                memory=m,
                lexical=(lex := _overlap(wanted, lexical_tokens(memory_document(m)))),
                semantic=semantic[m.id],
                score=0.5 * lex + 0.5 * semantic[m.id],
            )
            for m in memories
        ),
        key=lambda c: (-c.score, c.memory.created_at, c.memory.id),
    )
    best = candidates[0]
    if best.score < MIN_SCORE:
        return Resolution(None, candidates[:3], "the best match is too weak")
    if len(candidates) > 1 and best.score - candidates[1].score < MIN_MARGIN:
        return Resolution(None, candidates[:3], "several memories match about equally well")
    return Resolution(best.memory, candidates[:3])
