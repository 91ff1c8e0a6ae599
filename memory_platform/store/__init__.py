"""Storage backends behind the one :class:`GraphStore` contract."""

from __future__ import annotations

import logging

from ..config import Settings
from .base import (
    SHARED_NODE,
    EmbeddingSignature,
    GraphStore,
    MemoryRecord,
    PendingEmbedding,
    StoreStats,
)

__all__ = [
    "SHARED_NODE",
    "STALE_LEXICAL_INDEX",
    "STALE_LEXICAL_INDEX_SHORT",
    "EmbeddingSignature",
    "GraphStore",
    "MemoryRecord",
    "PendingEmbedding",
    "StoreStats",
    "open_store",
]


_log = logging.getLogger(__name__)

STALE_LEXICAL_INDEX = (
    "the lexical index of this store was tokenized otherwise than queries now are (an "
    "upgrade changed the tokenizer, or the store predates recording it): word matches "
    "may be missed until `memory-platform retokenize` rebuilds it (nothing is lost; "
    "searches keep working meanwhile)"
)


STALE_LEXICAL_INDEX_SHORT = "stale: run `memory-platform retokenize`"
"""What readiness reports for such a store (:meth:`MemoryPlatform.health`)."""


def open_store(settings: Settings, *, check_signature: bool = True) -> GraphStore:
    """Open the backend the settings name and check its embedding signature, and warn
    when its lexical index was tokenized otherwise than queries now are.

    Raises:
        BackendUnavailable: the Neo4j server cannot be reached.
        EmbeddingMismatchError: the store was built with another embedding model.
    """
    signature = EmbeddingSignature(model=settings.embedding_model, dimension=settings.embedding_dim)
    store: GraphStore
    if settings.backend == "neo4j":
        from .neo4j import Neo4jGraphStore

        store = Neo4jGraphStore.from_settings(settings, signature)
    else:
        from .sqlite import SQLiteGraphStore

        store = SQLiteGraphStore(
            settings.sqlite_path,
            signature,
            vector_cache_bytes=settings.sqlite_vector_cache_mb * 1024 * 1024,
        )
    if not check_signature:  # reembed switches the store to the configured model
        return store
    try:
        store.check_signature()
        if not store.lexical_index_current():
            _log.warning(STALE_LEXICAL_INDEX)
    except Exception:
        store.close()
        raise
    return store
