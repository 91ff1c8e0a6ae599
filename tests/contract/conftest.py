"""The ``store`` fixture: every contract test runs once per backend.

The SQLite leg always runs. The Neo4j leg runs when ``MEMORY_NEO4J_URI`` (with
``MEMORY_NEO4J_USER`` / ``MEMORY_NEO4J_PASSWORD``) names a server that answers; otherwise
it is skipped with the reason shown in the summary. Neo4j tests use fresh user ids and
delete them afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from memory_platform import MemoryPlatform
from memory_platform.config import DEFAULT_EMBEDDING_DIM, DEFAULT_EMBEDDING_MODEL, Settings
from memory_platform.embeddings import Embedder
from memory_platform.errors import BackendUnavailable
from memory_platform.store import EmbeddingSignature, GraphStore, open_store
from tests.support.neo4j_env import neo4j_settings

DIM = DEFAULT_EMBEDDING_DIM
MODEL = DEFAULT_EMBEDDING_MODEL
SIGNATURE = EmbeddingSignature(model=MODEL, dimension=DIM)

_neo4j_skip_reason: str | None = None


@pytest.fixture(scope="session")
def neo4j_store() -> Iterator[GraphStore]:
    settings = neo4j_settings()
    if settings is None:
        pytest.skip("Neo4j leg skipped: MEMORY_NEO4J_URI is not set")
    try:
        store = open_store(settings)
    except BackendUnavailable as exc:
        pytest.skip(f"Neo4j leg skipped: {exc}")
    yield store
    store.close()


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Users:
    """Hands out fresh user ids and deletes them at the end of the test."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store
        self.created: list[str] = []

    def __call__(self, label: str = "user") -> str:
        user = f"{label}-{uuid.uuid4().hex[:10]}"
        self.created.append(user)
        return user

    def cleanup(self) -> None:
        for user in self.created:
            self._store.delete_user(user)


@pytest.fixture
def store(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    if backend == "neo4j":
        yield request.getfixturevalue("neo4j_store")
        return
    settings = Settings(backend="sqlite", sqlite_path=tmp_path / "contract.db", _env_file=None)
    opened = open_store(settings)
    yield opened
    opened.close()


@pytest.fixture
def users(store: GraphStore) -> Iterator[Users]:
    made = Users(store)
    yield made
    made.cleanup()


@pytest.fixture
def mp(store: GraphStore, embedder: Embedder, tmp_path: Path) -> Iterator[MemoryPlatform]:
    """A platform over the backend under test (the store stays open for cleanup)."""
    platform = MemoryPlatform(
        Settings(sqlite_path=tmp_path / "unused.db", _env_file=None), embedder=embedder, store=store
    )
    yield platform
    platform.close()


@pytest.fixture
def vec() -> Callable[[int], np.ndarray]:
    """Deterministic unit vectors: vec(i) for distinct i are nearly orthogonal."""

    def make(seed: int, noise: float = 0.0, base: int | None = None) -> np.ndarray:
        rng = np.random.default_rng(seed)
        v = rng.standard_normal(DIM).astype(np.float32)
        if base is not None:
            v = np.random.default_rng(base).standard_normal(DIM).astype(np.float32) + noise * v
        return v / np.linalg.norm(v)

    return make


def stored_text(store: GraphStore, user: str) -> str:
    """Everything the backend holds for a user, as raw text: every row of every SQLite
    table with that user's id (and its lexical index entries), or every property of every
    node and relationship with it in Neo4j. What a forgotten memory must not be in."""
    from memory_platform.store.sqlite import SQLiteGraphStore
    from memory_platform.textutil import user_token

    if isinstance(store, SQLiteGraphStore):
        parts: list[str] = []
        tables = [r[0] for r in store._read("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            columns = [r[1] for r in store._read(f"PRAGMA table_info({table})")]
            if "user_id" in columns:
                rows = store._read(f"SELECT * FROM {table} WHERE user_id = ?", (user,))
                parts += [repr(row) for row in rows]
        parts += [
            repr(r)
            for r in store._read("SELECT * FROM lexical WHERE utok = ?", (user_token(user),))
        ]
        return "\n".join(parts)
    driver = store._driver  # type: ignore[attr-defined]
    with driver.session(database=store._database) as session:  # type: ignore[attr-defined]
        nodes = session.run(
            "MATCH (n) WHERE n.user_id = $user RETURN properties(n) AS p", {"user": user}
        ).data()
        rels = session.run(
            "MATCH ()-[r]->() WHERE r.user_id = $user RETURN properties(r) AS p", {"user": user}
        ).data()
    return "\n".join(repr(row["p"]) for row in nodes + rels)
