"""Knowledge-graph long-term memory for LLM agents.

>>> from memory_platform import MemoryPlatform, Settings
>>> mp = MemoryPlatform(Settings(backend="sqlite", sqlite_path="memories.db"))
"""

from ._version import __version__
from .config import Settings, load_settings
from .embeddings import Embedder, OpenAIEmbedder, SentenceTransformerEmbedder
from .errors import (
    BackendUnavailable,
    ConfigurationError,
    ConflictError,
    EmbeddingMismatchError,
    ExtractionError,
    InvalidInputError,
    MemoryPlatformError,
    NotFoundError,
    QueueUnavailable,
    StorageError,
    TransientStorageError,
    UserBusy,
)
from .models import (
    ContentNode,
    EdgeType,
    Episode,
    KnowledgePoint,
    KnowledgeType,
    KnowledgeVersion,
    LinkType,
    Memory,
    MemoryLink,
    MemoryStatus,
    MemorySubgraph,
    MemoryType,
    Message,
    NodeType,
    RelationType,
)
from .platform import MemoryPlatform
from .retrieval import ScoreComponents, SearchResult
from .store import GraphStore, MemoryRecord, StoreStats
from .tools import system_prompt

__all__ = [
    "BackendUnavailable",
    "ConfigurationError",
    "ConflictError",
    "ContentNode",
    "EdgeType",
    "Embedder",
    "EmbeddingMismatchError",
    "Episode",
    "ExtractionError",
    "GraphStore",
    "InvalidInputError",
    "KnowledgePoint",
    "KnowledgeType",
    "KnowledgeVersion",
    "LinkType",
    "Memory",
    "MemoryLink",
    "MemoryPlatform",
    "MemoryPlatformError",
    "MemoryRecord",
    "MemoryStatus",
    "MemorySubgraph",
    "MemoryType",
    "Message",
    "NodeType",
    "NotFoundError",
    "OpenAIEmbedder",
    "QueueUnavailable",
    "RelationType",
    "ScoreComponents",
    "SearchResult",
    "SentenceTransformerEmbedder",
    "Settings",
    "StorageError",
    "StoreStats",
    "TransientStorageError",
    "UserBusy",
    "__version__",
    "load_settings",
    "system_prompt",
]
