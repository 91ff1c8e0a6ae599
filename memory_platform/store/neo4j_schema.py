"""What the Neo4j store needs of the server: a recent enough version and its schema, verified.

``CREATE ... IF NOT EXISTS`` is silently a no-op when an equivalent index already exists
under another name, and an index can exist but be FAILED or built for another vector
dimension. So after applying ``cypher/neo4j/schema.cypher`` the store reads ``SHOW
INDEXES`` / ``SHOW CONSTRAINTS`` and refuses to start unless every index and constraint
it queries by name is there, ONLINE and shaped as the schema file says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError
from ..models import EdgeType, NodeType

__all__ = [
    "GRAPH_KEYS",
    "GRAPH_LABELS",
    "GRAPH_RELATIONSHIP_TYPES",
    "MIN_NEO4J_VERSION",
    "SEARCH_FILTER_VERSION",
    "ExpectedSchemaItem",
    "check_server_version",
    "expected_schema",
    "schema_problems",
    "schema_statements",
    "supports_search_filters",
]

# CALL (x) { ... } (scoped subqueries) arrived in 5.23; older servers cannot run the
# statements. Compose pins neo4j:5.26 (the LTS), which the suite is run against.
MIN_NEO4J_VERSION = (5, 23)
# The SEARCH clause with in-index filtering (vector indexes created WITH [n.user_id],
# Cypher 25) arrived in 2026.01; older servers get the procedure with over-fetch instead.
SEARCH_FILTER_VERSION = (2026, 1)


GRAPH_LABELS = frozenset(
    {"Memory", "Node", *(kind.value for kind in NodeType), "Episode", "Knowledge",
     "KnowledgeVersion", "User", "Audit", "PlatformMeta", "Pending"}
)  # fmt: skip
"""Every node label the store writes: a memory hub, its content nodes (``Node`` and their
kind), episodes, knowledge and its versions, the user, audit records, the store's own
metadata, and ``Pending`` on what waits for its vector."""

GRAPH_RELATIONSHIP_TYPES = frozenset(
    {*(edge.value for edge in EdgeType), "MENTIONS", "CONTAINS", "LATEST_KNOWLEDGE"}
)
"""Every relationship type the store writes: a memory's structure and links
(:class:`~memory_platform.models.EdgeType`), an episode's mentions of content nodes, a
knowledge version's points and the user's latest version."""

GRAPH_KEYS = frozenset(
    {
        # items: hubs, content nodes, episodes, knowledge, audit records
        "id", "user_id", "text", "content", "kind", "norm", "type", "status", "importance",
        "confidence", "score", "sensitive", "searchable", "created_at", "timestamp", "at",
        "invalid_at", "expires_at", "clocked_at", "access_count", "session_id", "speaker", "merged_from",
        "version_id", "position", "through", "metadata",
        # search: vectors, the lexical document's kind, the embedding queue's token
        "embedding", "media_embedding", "media_model", "media_modality", "search_kind",
        "search_tokens", "pending_token",
        # relationships: a structural edge's memory, label and order; a link's origin
        "memory_id", "relation", "seq", "discovered",
        # the store's metadata (embedding and tokenizer signatures); the write lock of a
        # compare-and-set
        "key", "model", "dimension", "value", "_LOCK_",
        # keys of parameter rows and of maps a statement builds, read as ``row.key``: the
        # linter cannot tell them from properties
        "ref_id", "src_id", "dst_id", "from_id", "to_id", "memory_ids",
    }
)  # fmt: skip
"""Every key the Cypher files read as ``x.key``: the properties of the graph above, and
the row keys listed last. Neo4j's linter (``tests/support/cypher_lint.py``) is given
these with the labels and relationship types, so a statement that reads a misspelt name
(``e.expire_at``, ``:Epsiode``) fails offline instead of matching nothing on a server."""


@dataclass(frozen=True)
class ExpectedSchemaItem:
    """One index or constraint the store relies on by name."""

    name: str
    kind: str  # "constraint" | "range" | "vector" | "fulltext"
    labels: tuple[str, ...]
    properties: tuple[str, ...]
    filters: tuple[str, ...] = ()
    """Vector indexes only: the properties it can filter on inside the index."""


_CONSTRAINT = re.compile(
    r"CREATE CONSTRAINT (\w+) IF NOT EXISTS FOR \(\w+:(\w+)\) REQUIRE \w+\.(\w+) IS UNIQUE"
)
_RANGE = re.compile(r"CREATE INDEX (\w+) IF NOT EXISTS FOR \(\w+:(\w+)\) ON \(([^)]*)\)")
_VECTOR = re.compile(
    r"(?:CYPHER 25\s+)?CREATE VECTOR INDEX (\w+) IF NOT EXISTS FOR \(\w+:(\w+)\) "
    r"ON \(?\w+\.(\w+)\)?(?:\s+WITH \[([^\]]*)\])?"
)
_FULLTEXT = re.compile(
    r"CREATE FULLTEXT INDEX (\w+) IF NOT EXISTS FOR \(\w+:([\w|]+)\) ON EACH \[([^\]]*)\]"
)


def _props(text: str) -> tuple[str, ...]:
    return tuple(p.strip().split(".", 1)[1] for p in text.split(",") if p.strip())


def expected_schema(statements: Iterable[str]) -> list[ExpectedSchemaItem]:
    """The items the schema statements create, read from the statements themselves."""
    items = []
    for stmt in statements:
        if m := _CONSTRAINT.match(stmt):
            items.append(ExpectedSchemaItem(m[1], "constraint", (m[2],), (m[3],)))
        elif m := _VECTOR.match(stmt):
            filters = _props(m[4]) if m[4] else ()
            items.append(ExpectedSchemaItem(m[1], "vector", (m[2],), (m[3],), filters))
        elif m := _FULLTEXT.match(stmt):
            items.append(ExpectedSchemaItem(m[1], "fulltext", tuple(m[2].split("|")), _props(m[3])))
        elif m := _RANGE.match(stmt):
            items.append(ExpectedSchemaItem(m[1], "range", (m[2],), _props(m[3])))
        else:
            raise ConfigurationError(f"schema statement not understood: {stmt[:80]}")
    return items


def _same_shape(item: ExpectedSchemaItem, row: Mapping[str, Any]) -> bool:
    # a vector index's filter properties may or may not be listed after the vector one;
    # whether it can filter is checked by using it (store/neo4j.py), not read from here
    properties = tuple(row.get("properties") or ())
    return tuple(row.get("labelsOrTypes") or ()) == item.labels and (
        properties == item.properties
        or (item.kind == "vector" and properties[: len(item.properties)] == item.properties)
    )


def schema_statements(base: Iterable[str], filtered_vectors: Iterable[str]) -> list[str]:
    """The statements to apply: ``base`` (schema.cypher), with its vector indexes replaced
    by ``filtered_vectors`` (schema_vectors_filtered.cypher) when that is not empty."""
    replacements = list(filtered_vectors)
    if not replacements:
        return list(base)
    kept = [s for s in base if not s.startswith("CREATE VECTOR INDEX")]
    return kept + replacements


def _index_type(item: ExpectedSchemaItem) -> str:
    return {"range": "RANGE", "vector": "VECTOR", "fulltext": "FULLTEXT"}[item.kind]


def _vector_config(row: Mapping[str, Any]) -> tuple[int | None, str | None]:
    config = (row.get("options") or {}).get("indexConfig") or {}
    dims = config.get("vector.dimensions")
    similarity = config.get("vector.similarity_function")
    return (int(dims) if dims is not None else None), (
        str(similarity).lower() if similarity is not None else None
    )


def _where(item: ExpectedSchemaItem) -> str:
    return f":{'|'.join(item.labels)}({', '.join(item.properties)})"


def schema_problems(
    expected: Iterable[ExpectedSchemaItem],
    indexes: Iterable[Mapping[str, Any]],
    constraints: Iterable[Mapping[str, Any]],
    dimension: int,
) -> list[str]:
    """What is wrong with the server's schema, one actionable sentence per problem.

    ``indexes`` and ``constraints`` are the rows of ``SHOW INDEXES`` / ``SHOW CONSTRAINTS``
    (name, type, labelsOrTypes, properties; indexes also state and options).
    """
    index_rows = list(indexes)
    constraint_rows = list(constraints)
    by_name = {r["name"]: r for r in index_rows}
    constraint_names = {r["name"]: r for r in constraint_rows}
    problems: list[str] = []
    for item in expected:
        if item.kind == "constraint":
            row = constraint_names.get(item.name)
            if row is None:
                other = next(
                    (
                        r["name"]
                        for r in constraint_rows
                        if "UNIQUENESS" in str(r.get("type", "")) and _same_shape(item, r)
                    ),
                    None,
                )
                problems.append(
                    f"constraint {item.name} ({_where(item)} unique) is missing"
                    + (
                        f": an equivalent constraint named {other} exists, so it was not "
                        f"created; rename it (DROP CONSTRAINT {other}, then restart to "
                        "recreate it under the expected name)"
                        if other
                        else "; check that the user may create constraints"
                    )
                )
            elif "UNIQUENESS" not in str(row.get("type", "")) or not _same_shape(item, row):
                problems.append(
                    f"constraint {item.name} exists but is not unique on {_where(item)}; "
                    f"drop it (DROP CONSTRAINT {item.name}) and restart"
                )
            continue
        row = by_name.get(item.name)
        if row is None:
            other = next(
                (
                    r["name"]
                    for r in index_rows
                    if r.get("type") == _index_type(item) and _same_shape(item, r)
                ),
                None,
            )
            problems.append(
                f"{item.kind} index {item.name} on {_where(item)} is missing"
                + (
                    f": an equivalent index named {other} exists, so it was not created; "
                    f"drop it (DROP INDEX {other}) and restart to recreate it as {item.name}"
                    if other
                    else "; check that the user may create indexes"
                )
            )
            continue
        if row.get("type") != _index_type(item) or not _same_shape(item, row):
            problems.append(
                f"index {item.name} is a {row.get('type')} index on "
                f":{'|'.join(row.get('labelsOrTypes') or ())}({', '.join(row.get('properties') or ())}), "
                f"not {_index_type(item)} on {_where(item)}; drop it (DROP INDEX {item.name}) "
                "and restart"
            )
            continue
        if item.kind == "vector":
            dims, similarity = _vector_config(row)
            if dims != dimension:
                problems.append(
                    f"vector index {item.name} holds {dims}-dimensional vectors but the "
                    f"configured embedder makes {dimension}; drop it (DROP INDEX {item.name}) "
                    "and re-embed, or configure the model the store was built with"
                )
            if similarity != "cosine":
                problems.append(
                    f"vector index {item.name} uses {similarity} similarity, not cosine; "
                    f"drop it (DROP INDEX {item.name}) and restart"
                )
        state = str(row.get("state", "ONLINE"))
        if state != "ONLINE":
            problems.append(
                f"index {item.name} is {state}, not ONLINE"
                + (
                    f" ({row.get('failureMessage')}); drop it (DROP INDEX {item.name}) and restart"
                    if state == "FAILED"
                    else "; wait for it to finish populating, then restart"
                )
            )
    return problems


def supports_search_filters(version: str) -> bool:
    """Whether the server has the SEARCH clause with in-index filtering (2026.01+)."""
    return _version_tuple(version) >= SEARCH_FILTER_VERSION


def _version_tuple(version: str) -> tuple[int, int]:
    parts = re.findall(r"\d+", version)
    if len(parts) < 2:
        raise ConfigurationError(f"cannot read the Neo4j server version {version!r}")
    return int(parts[0]), int(parts[1])


def check_server_version(version: str) -> None:
    """Refuse a server older than :data:`MIN_NEO4J_VERSION` (calendar versions are newer).

    Raises:
        ConfigurationError: the server is too old or its version cannot be read.
    """
    if _version_tuple(version) < MIN_NEO4J_VERSION:
        minimum = ".".join(map(str, MIN_NEO4J_VERSION))
        raise ConfigurationError(
            f"Neo4j {version} is older than {minimum}, the oldest server this platform "
            f"supports (it uses CALL (x) {{...}} subqueries); upgrade Neo4j to {minimum} or "
            "later (the compose file runs neo4j:5.26)"
        )
