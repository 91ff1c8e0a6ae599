"""Schema verification and the version gate, on rows shaped as Neo4j 5 returns them.

The contract suite runs the same check against a real server when MEMORY_NEO4J_URI is set
(every store it opens passes through it); these cases cover what a healthy test server
never shows: an index under another name, a FAILED index, another dimension.
"""

from __future__ import annotations

from typing import Any

import pytest

from memory_platform.errors import ConfigurationError
from memory_platform.queries import cypher, split_statements
from memory_platform.store.neo4j_schema import (
    ExpectedSchemaItem,
    check_server_version,
    expected_schema,
    schema_problems,
    schema_statements,
    supports_search_filters,
)

EXPECTED = expected_schema(split_statements(cypher("neo4j/schema")))
DIM = 384


def healthy() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """SHOW INDEXES / SHOW CONSTRAINTS rows of a server where the schema applied cleanly."""
    indexes: list[dict[str, Any]] = []
    constraints: list[dict[str, Any]] = []
    for item in EXPECTED:
        row: dict[str, Any] = {
            "name": item.name,
            "labelsOrTypes": list(item.labels),
            "properties": list(item.properties),
        }
        if item.kind == "constraint":
            constraints.append({**row, "type": "UNIQUENESS"})
            indexes.append({**row, "type": "RANGE", "state": "ONLINE", "options": {}})
            continue
        options: dict[str, Any] = {"indexConfig": {}}
        if item.kind == "vector":
            options["indexConfig"] = {
                "vector.dimensions": DIM,
                "vector.similarity_function": "COSINE",
            }
        indexes.append({**row, "type": item.kind.upper(), "state": "ONLINE", "options": options})
    return indexes, constraints


def test_the_schema_file_is_read_into_every_named_item() -> None:
    kinds = {item.name: item.kind for item in EXPECTED}
    assert kinds["topic_embedding"] == "vector" and kinds["object_embedding"] == "vector"
    assert kinds["lexical_text"] == "fulltext" and kinds["memory_id"] == "constraint"
    assert kinds["memory_user_status"] == "range"
    lexical = next(i for i in EXPECTED if i.name == "lexical_text")
    assert lexical.labels == ("Memory", "Episode", "Knowledge")
    assert lexical.properties == ("search_tokens",)


def test_a_healthy_schema_has_no_problems() -> None:
    indexes, constraints = healthy()
    assert schema_problems(EXPECTED, indexes, constraints, DIM) == []


def test_an_equivalent_index_under_another_name_is_named_with_the_fix() -> None:
    indexes, constraints = healthy()
    for row in indexes:
        if row["name"] == "topic_embedding":
            row["name"] = "my_old_topic_vectors"

    (problem,) = schema_problems(EXPECTED, indexes, constraints, DIM)

    assert "topic_embedding" in problem and "my_old_topic_vectors" in problem
    assert "DROP INDEX my_old_topic_vectors" in problem


def test_wrong_dimension_failed_state_and_missing_constraint_are_all_reported() -> None:
    indexes, constraints = healthy()
    for row in indexes:
        if row["name"] == "object_embedding":
            row["options"]["indexConfig"]["vector.dimensions"] = 768
        if row["name"] == "lexical_text":
            row["state"], row["failureMessage"] = "FAILED", "analyzer missing"
    constraints = [c for c in constraints if c["name"] != "episode_id"]

    problems = schema_problems(EXPECTED, indexes, constraints, DIM)

    assert len(problems) == 3
    assert any("object_embedding" in p and "768" in p and "384" in p for p in problems)
    assert any("lexical_text is FAILED" in p and "analyzer missing" in p for p in problems)
    assert any("constraint episode_id" in p for p in problems)


def test_an_index_of_the_right_name_but_wrong_shape_is_refused() -> None:
    indexes, constraints = healthy()
    for row in indexes:
        if row["name"] == "memory_user":
            row["properties"] = ["created_at"]
    (problem,) = schema_problems(EXPECTED, indexes, constraints, DIM)
    assert "memory_user" in problem and "DROP INDEX memory_user" in problem


def test_unknown_schema_statements_are_refused() -> None:
    with pytest.raises(ConfigurationError):
        expected_schema(["CREATE POINT INDEX p IF NOT EXISTS FOR (n:X) ON (n.loc)"])
    assert expected_schema([]) == []
    assert ExpectedSchemaItem("a", "range", ("A",), ("b",)).kind == "range"


@pytest.mark.parametrize("version", ["5.23.0", "5.26.0", "5.26.12", "2025.01.0", "2026.02.1"])
def test_supported_versions_pass(version: str) -> None:
    check_server_version(version)


@pytest.mark.parametrize("version", ["5.18.1", "5.22.0", "4.4.30"])
def test_older_servers_are_refused_with_the_minimum_named(version: str) -> None:
    with pytest.raises(ConfigurationError, match=r"older than 5\.23") as info:
        check_server_version(version)
    assert version in str(info.value)


@pytest.mark.parametrize(
    ("version", "filters"),
    [("5.26.0", False), ("2025.12.1", False), ("2026.01.0", True), ("2026.10.2", True)],
)
def test_in_index_filtering_is_used_from_2026_01(version: str, filters: bool) -> None:
    assert supports_search_filters(version) is filters


def test_servers_that_filter_in_the_index_get_vector_indexes_holding_user_id() -> None:
    base = split_statements(cypher("neo4j/schema"))
    filtered = split_statements(cypher("neo4j/schema_vectors_filtered"))
    assert schema_statements(base, []) == base
    statements = schema_statements(base, filtered)
    items = {item.name: item for item in expected_schema(statements)}
    plain = {item.name: item for item in EXPECTED}
    assert items.keys() == plain.keys()  # the same names, so the same queries work
    vectors = [name for name, item in plain.items() if item.kind == "vector"]
    assert len(vectors) == 5
    for name in vectors:
        assert items[name].filters == ("user_id",) and plain[name].filters == ()
        assert (items[name].labels, items[name].properties) == (
            plain[name].labels,
            plain[name].properties,
        )
    assert sum("CREATE VECTOR INDEX" in s for s in statements) == 5


def test_a_vector_index_listing_its_filter_property_is_the_right_shape() -> None:
    indexes, constraints = healthy()
    for row in indexes:
        if row["type"] == "VECTOR":
            row["properties"] = [*row["properties"], "user_id"]
    assert schema_problems(EXPECTED, indexes, constraints, DIM) == []
