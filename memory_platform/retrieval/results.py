"""What a search returns: each result with the components of its score."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..models import PathStep

__all__ = ["ScoreComponents", "SearchResult"]


class ScoreComponents(BaseModel):
    """Why a result ranked where it did (``retrieval/scoring.py`` combines them).

    Attributes:
        semantic: match strength for ranking: dense lift and lexical rank fused with
            equal say, scaled to this query, plus a share of an adjacent turn's.
        relevance: calibrated probability that the item is a real match rather than the
            best of an unrelated memory, comparable across queries and users; the
            relevance floor applies to it.
        importance: the memory's importance (0.5 for episodes unless given).
        graph: 1 for direct matches, 1 / (1 + distance) for graph-related ones.
        recency: exp(-λ · days) with λ by memory type (seed 000 §5.3).
        access: log(1 + accesses) / log(1 + 100), capped at 1.
        similarity: cosine between the query and the item's (or its nodes') embedding.
        lexical: how many of the query's distinct words the item contains.
        context: strength of the best adjacent turn in the same session (episodes).
        mention: 1 when the query names the episode's speaker.
    """

    semantic: float = 0.0
    relevance: float = 0.0
    importance: float = 0.0
    graph: float = 0.0
    recency: float = 0.0
    access: float = 0.0
    similarity: float = 0.0
    lexical: float = 0.0
    context: float = 0.0
    mention: float = 0.0


class SearchResult(BaseModel):
    """One retrieved memory, episode or knowledge point.

    ``metadata`` is exactly the metadata stored with the item; ``layer`` says whether it
    matched the query directly or was reached through the graph (seed 004 §2.4).
    ``score`` orders the results of one search; ``relevance`` is the calibrated
    probability, in [0, 1], that the item is a real match rather than the best of an
    unrelated memory, and means the same for every query and user (direct matches are at
    least ``retrieval.relevance_floor``).
    ``sensitive`` items are only returned when the search asked for them. For a media
    memory, ``matched_modality`` says what matched: ``text`` (its description) or the
    medium's own vector (``image``, ``audio``).
    """

    id: str
    kind: Literal["memory", "episode", "knowledge"]
    text: str
    score: float
    relevance: float = 0.0
    layer: Literal["direct", "related"]
    graph_distance: int = 0
    metadata: dict[str, Any] = Field(default_factory=dict)
    components: ScoreComponents = Field(default_factory=ScoreComponents)
    path: list[PathStep] = Field(default_factory=list)
    time: str | None = None
    event_time: datetime | None = None
    memory_type: str | None = None
    title: str | None = None
    speaker: str | None = None
    session_id: str | None = None
    sensitive: bool = False
    matched_modality: str | None = None
