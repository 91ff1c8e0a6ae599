"""A fresh embedded store for a micro benchmark, removed when it is done: the platform's
SQLite store with MiniLM's signature, which no measurement here embeds with."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_platform.store import EmbeddingSignature
from memory_platform.store.sqlite import SQLiteGraphStore

SIGNATURE = EmbeddingSignature(model="all-MiniLM-L6-v2", dimension=384)


@contextmanager
def scratch_store() -> Iterator[SQLiteGraphStore]:
    """An empty SQLite store in a temporary folder, closed and deleted on exit."""
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteGraphStore(Path(folder) / "micro.db", SIGNATURE)
        try:
            yield store
        finally:
            store.close()
