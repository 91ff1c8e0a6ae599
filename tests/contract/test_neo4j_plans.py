"""Lookups of a user's episodes (by session, speaker, expiry or clock), audit log and knowledge
versions, and of the users with staged memories, are index seeks on Neo4j that solve every predicate, not scans of the
nodes with a filter (SQLite's side: ``test_sqlite_backend.py``). A composite index wants
a predicate on each of its properties, so the statements give one even where it always
holds."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from memory_platform.builder import build_memory
from memory_platform.models import (
    AuditEntry,
    Episode,
    KnowledgePoint,
    KnowledgeVersion,
)
from memory_platform.queries import cypher
from memory_platform.store import GraphStore
from memory_platform.tools.arguments import CreateMemoryArgs

pytestmark = [pytest.mark.contract, pytest.mark.neo4j]


def _operators(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Each operator of a plan and its details, depth first (the driver's plan is the
    server's, with its arguments under "args")."""
    yield plan["operatorType"], str(plan.get("args", {}).get("Details", ""))
    for child in plan.get("children", []):
        yield from _operators(child)


@pytest.fixture
def planned_user(neo4j_store: GraphStore) -> Iterator[str]:
    """A user with a little of each kind the statements read, so the planner weighs
    real labels and properties (deleted afterwards)."""
    user = f"plan-{uuid.uuid4().hex[:10]}"
    neo4j_store.add_episodes(
        [Episode(user_id=user, text=f"turn {i}", speaker="Lisa", session_id="s1") for i in range(3)]
        + [Episode(user_id=user, text="a note", expires_at=datetime.now(UTC))]
        + [Episode(user_id=user, text="早上好", metadata={"utc_offset": "+08:00"})]
    )
    neo4j_store.add_audit(AuditEntry(user_id=user, action="forget", target_kind="memory"))
    neo4j_store.add_knowledge_version(
        KnowledgeVersion(user_id=user, points=[KnowledgePoint(content="likes tea", score=80)])
    )
    args = CreateMemoryArgs(subject="user", memory_type="fact", topic="likes", object="tea")
    neo4j_store.write_memory(build_memory(user, args))  # staged
    yield user
    neo4j_store.delete_user(user)


def _plan(store: GraphStore, name: str, **params: Any) -> list[tuple[str, str]]:
    driver = store._driver  # type: ignore[attr-defined]
    with driver.session(database=store._database) as session:  # type: ignore[attr-defined]
        summary = session.run("EXPLAIN " + cypher(f"neo4j/{name}"), params).consume()
    assert summary.plan is not None
    return list(_operators(summary.plan))


@pytest.mark.parametrize(
    ("name", "params", "solved"),
    [
        ("episode/find", {"speaker": "Lisa", "min_access": 0, "limit": 1}, "speaker"),
        ("episode/for_session", {"session_id": "s1", "limit": 10}, "session_id"),
        ("episode/for_session_newest", {"session_id": "s1", "limit": 10}, "session_id"),
        ("audit/list", {"limit": 10}, "at"),
        ("knowledge/versions", {"limit": 10}, "seq"),
        ("memory/users_with_staged", {"limit": 10, "after": ""}, "status"),
        ("episode/expired", {"now": datetime.now(UTC), "limit": 10}, "expires_at"),
        ("episode/latest_offset", {}, "clocked_at"),
        *(
            (
                f"episode/session_{side}",
                {"session_id": "s1", "at": datetime.now(UTC), "exclude": []},
                "session_id",
            )
            for side in ("before", "after")
        ),
    ],
)
def test_a_users_items_are_found_by_an_index_seek(
    neo4j_store: GraphStore, planned_user: str, name: str, params: dict[str, Any], solved: str
) -> None:
    operators = _plan(neo4j_store, name, user_id=planned_user, **params)
    # NodeIndexSeek or NodeIndexSeekByRange; a seek on user_id alone, or a scan, with a filter
    # would show the predicate in a Filter instead
    seeks = [details for op, details in operators if op.startswith("NodeIndexSeek")]
    assert any(re.search(rf"\b{solved}\b", details) for details in seeks), operators
