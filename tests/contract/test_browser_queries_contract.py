"""The saved Neo4j Browser queries run against a real Neo4j holding a real user's memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_platform import MemoryPlatform, Settings
from memory_platform.embeddings import Embedder
from memory_platform.store import GraphStore
from tests.contract.test_transfer_contract import rich_user

pytestmark = [pytest.mark.contract, pytest.mark.neo4j]
SAVED = sorted(p.stem for p in (Path(__file__).parents[2] / "cypher" / "browser").glob("*.cypher"))


@pytest.fixture(scope="module")
def seeded(neo4j_store: GraphStore, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    user = "browser-queries-user"
    neo4j_store.delete_user(user)
    settings = Settings(sqlite_path=tmp_path_factory.mktemp("x") / "unused.db", _env_file=None)
    with MemoryPlatform(settings, embedder=embedder, store=neo4j_store) as mp:
        rich_user(mp, user)
        mp.wait_for_indexing(user)
    yield neo4j_store, user
    neo4j_store.delete_user(user)


@pytest.mark.parametrize("name", SAVED)
def test_saved_query_runs_and_finds_the_users_data(seeded, name: str) -> None:  # type: ignore[no-untyped-def]
    store, user = seeded
    rows = store.run_saved_query(name, user_id=user, session_id="s1")
    assert rows, f"{name} found nothing for a user that has what it shows"
    other = store.run_saved_query(name, user_id="nobody-" + user, session_id="s1")
    assert other == []  # confined to the user asked for
