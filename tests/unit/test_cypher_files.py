"""Every Cypher file takes exactly the parameters its callers pass, and Neo4j's own linter
(``@neo4j-cypher/language-support``, run offline) finds nothing in any file."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from memory_platform.queries import cypher, query_names
from memory_platform.store.neo4j_schema import (
    GRAPH_KEYS,
    GRAPH_LABELS,
    GRAPH_RELATIONSHIP_TYPES,
)
from tests.support import cypher_lint
from tests.support.cypher_lint import (
    GRAPH,
    STORE,
    as_cypher_25,
    call_sites,
    driver_run_calls_with_keywords,
    lint_inputs,
    run_linter,
    used_parameters,
)


def test_no_driver_run_call_passes_parameters_as_keywords() -> None:
    # tx.run(text, **params) breaks on a Cypher parameter named $query: the driver's own
    # first argument of run() has that name. Parameters travel as one mapping.
    assert driver_run_calls_with_keywords() == []


def test_each_call_passes_exactly_the_parameters_its_statement_uses() -> None:
    sites = call_sites()
    assert len(sites) > 40  # the walker found the store's calls
    mismatches = []
    for site in sites:
        assert not site.spreads, f"line {site.line}: **mapping hides the parameter names"
        wanted = used_parameters(cypher(f"neo4j/{site.name}"))
        if set(site.parameters) != wanted:
            mismatches.append(
                f"line {site.line} {site.name}: passes {sorted(site.parameters)}, "
                f"the file uses {sorted(wanted)}"
            )
    assert mismatches == []


def test_the_parameter_walker_sees_a_missing_parameter(tmp_path: Path) -> None:
    source = tmp_path / "store.py"
    source.write_text(
        "def f(self, tx):\n"
        "    self._read('memory/get', memory_id='m')\n"
        "    self._run(tx, 'lexical/search', query='q', **extra)\n",
        encoding="utf-8",
    )
    first, second = call_sites(source)
    assert (first.name, set(first.parameters)) == ("memory/get", {"memory_id"})
    assert used_parameters(cypher("neo4j/memory/get")) - set(first.parameters) == {"user_id"}
    assert second.spreads


def test_the_parameter_walker_reads_both_statements_of_a_conditional(tmp_path: Path) -> None:
    source = tmp_path / "store.py"
    source.write_text(
        "def f(self, two):\n"
        "    self._read('memory/expand_two' if two else 'memory/expand_step', frontier=[])\n",
        encoding="utf-8",
    )
    assert [site.name for site in call_sites(source)] == ["memory/expand_two", "memory/expand_step"]


def _hop_blocks(text: str) -> list[str]:
    """The ``CALL (m) { ... }`` blocks of a walk statement, unindented."""
    blocks = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "CALL (m) {":
            indent = len(line) - len(line.lstrip())
            end = next(j for j in range(i + 1, len(lines)) if lines[j] == " " * indent + "}")
            blocks.append("\n".join(row[indent:] for row in lines[i : end + 1]))
    return blocks


def test_the_two_level_walk_takes_the_same_hops_as_the_one_level_step() -> None:
    # expand_two.cypher runs expand_step.cypher's hop block twice in one round trip; the
    # store replays it level by level, so the three copies must not drift apart
    (step,) = _hop_blocks(cypher("neo4j/memory/expand_step"))
    assert _hop_blocks(cypher("neo4j/memory/expand_two")) == [step, step]


def test_both_seeding_statements_differ_only_in_how_they_ask_the_vector_index() -> None:
    # seed_filtered.cypher (SEARCH clause, 2026.01+) is seed.cypher with each kind's
    # index call replaced: the exact scans, fan-out, fulltext and loading are the same text
    def without_index_calls(text: str) -> list[str]:
        body = text[text.index("CALL () {") :].splitlines()
        return [
            line
            for line in body
            if "db.index.vector.queryNodes" not in line
            and "SEARCH node IN" not in line
            and line
            not in ("  YIELD node, score", "    SCORE AS score", "  LIMIT $k", "  LIMIT $node_k")
            and not line.startswith("  MATCH (node:")
            and not line.startswith("  WHERE '")
        ]

    plain = without_index_calls(cypher("neo4j/search/seed"))
    filtered = without_index_calls(cypher("neo4j/search/seed_filtered"))
    assert filtered == plain
    assert cypher("neo4j/search/seed_filtered").lstrip().startswith("CYPHER 25")


def test_browser_queries_take_only_the_documented_parameters() -> None:
    for name in query_names():
        if name.startswith("browser/"):
            assert used_parameters(cypher(name)) <= {"user_id", "session_id"}, name


def test_neo4j_linter_finds_no_error_deprecation_or_cartesian_product() -> None:
    findings = run_linter(lint_inputs())
    assert findings == []


def test_every_statement_is_also_valid_cypher_25() -> None:
    """A 2026 database may default to Cypher 25: the statements written in Cypher 5 must
    run unchanged there too."""
    assert run_linter(as_cypher_25(lint_inputs())) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("MATCH (a:Memory), (b:Memory) RETURN a, b", "cartesian product"),
        ("MATCH (m:Memory) CALL { WITH m RETURN m.id AS x } RETURN x", "deprecated"),
        ("MATCH (m:Memory {id: $nobody_passes_this}) RETURN m", "not defined"),
        ("MATCH (m:Memory RETURN m", "Invalid input"),
        ("MATCH (e:Epsiode) RETURN e.id", "Label Epsiode is not present"),
        ("MATCH (e:Episode)-[:NXT]->(f) RETURN f.id", "NXT is not present"),
        ("MATCH (e:Episode) RETURN e.expire_at", "expire_at is not present"),
        ("RETURN vector.similarity.cosin([1.0], [1.0]) AS s", "Function vector.similarity"),
        ("CALL db.index.vector.queryNode('i', 1, [1.0]) YIELD node RETURN node", "Procedure"),
        ("CALL db.create.setVectorProperty(null, 'embedding', [1.0])", "deprecated"),
        ("RETURN db.index.fulltext.queryNodes('i', 'q') AS x", "is a procedure"),
    ],
)
def test_the_linter_reports_what_the_server_would(text: str, expected: str) -> None:
    findings = run_linter([{"name": "probe", "text": text, "parameters": [], "graph": GRAPH}])
    assert any(expected in str(f["message"]) for f in findings), findings


def test_the_lint_step_fails_on_a_finding_and_lints_both_languages(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The test command's lint step (``python -m tests.support.cypher_lint``) lints every
    file as written and as Cypher 25, side by side: a finding fails the step, named by
    file and line, once for each language."""
    fine = {"name": "search/fine", "text": "MATCH (m:Memory) RETURN m.id", "parameters": []}
    broken = {"name": "search/probe", "text": "MATCH (m:Memory RETURN m", "parameters": []}
    monkeypatch.setattr(cypher_lint, "lint_inputs", lambda: [{**fine, "graph": GRAPH}])
    assert cypher_lint.main() == 0
    monkeypatch.setattr(
        cypher_lint, "lint_inputs", lambda: [{**fine, "graph": GRAPH}, {**broken, "graph": GRAPH}]
    )
    assert cypher_lint.main() == 1
    out = capsys.readouterr().out
    once = len(run_linter([{**broken, "graph": GRAPH}]))  # the findings of one language
    assert once > 0
    assert out.count("cypher/search/probe.cypher:1: error") == 2 * once
    assert "cypher/search/fine.cypher" not in out
    assert out.rstrip().endswith(
        f"2 files, as written and as Cypher 25: {2 * once} errors, 0 warnings"
    )


def _cypher_texts() -> str:
    return "\n".join(cypher(name) for name in query_names())


def test_every_label_and_relationship_type_the_linter_allows_is_written() -> None:
    """The graph the linter is given is the one the statements write: each label is
    created or set, each relationship type created or merged, somewhere."""
    text = _cypher_texts()
    unwritten = [
        label
        for label in GRAPH_LABELS
        if not re.search(rf"(?:CREATE|MERGE)\b[^\n]*:{label}\b|SET \w+:{label}\b", text)
    ] + [
        rel
        for rel in GRAPH_RELATIONSHIP_TYPES
        if not re.search(rf"(?:CREATE|MERGE)\b[^\n]*\[\w*:{rel}\b", text)
    ]
    assert unwritten == []


def test_every_key_the_linter_allows_is_given_a_value_somewhere() -> None:
    """A key the linter accepts is written: a key of a row or map the Neo4j store sends
    (its dictionary literals), or given a value in a statement (``SET x.key =``,
    ``{key: …}``, a vector set by name). A name only ever read would match nothing."""
    sent = {
        key.value
        for node in ast.walk(ast.parse(STORE.read_text(encoding="utf-8")))
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    }
    text = _cypher_texts()

    def set_in_cypher(key: str) -> bool:
        return bool(
            re.search(rf"SET\b[^\n]*\w\.{key}\s*=[^~=]|[{{,]\s*{key}\s*:\s*[^\s,}}]", text)
            or re.search(rf"setNodeVectorProperty\(\w+, '{key}'", text)
        )

    assert [key for key in sorted(GRAPH_KEYS) if key not in sent and not set_in_cypher(key)] == []
    assert not set_in_cypher("expire_at") and "expire_at" not in sent  # the check can fail


SEARCH_WITH_FILTER = (
    "MATCH (n:Memory) SEARCH n IN (VECTOR INDEX memory_embedding FOR $v "
    "WHERE n.user_id = $u LIMIT 5) SCORE AS s RETURN n.id, s"
)


def test_the_2026_paths_are_linted_as_cypher_25() -> None:
    """The SEARCH clause and vector indexes WITH filter properties exist only in Cypher
    25: the files using them say so, and are linted in that language (where Cypher 5
    would reject them)."""
    versions = {job["name"]: job["version"] for job in lint_inputs()}
    assert versions["neo4j/vector/search_many"] == "CYPHER 25"
    assert versions["neo4j/schema_vectors_filtered"] == "CYPHER 25"
    assert versions["neo4j/vector/ann_many"] == "CYPHER 5"
    as_5 = run_linter([{"name": "p", "text": SEARCH_WITH_FILTER, "parameters": ["v", "u"]}])
    assert any("SEARCH" in str(f["message"]) for f in as_5), as_5
    as_25 = {"name": "p", "text": SEARCH_WITH_FILTER, "parameters": ["v", "u"]}
    assert run_linter([{**as_25, "version": "CYPHER 25"}]) == []
    misspelt = SEARCH_WITH_FILTER.replace("LIMIT", "LIMT")
    assert run_linter([{**as_25, "text": misspelt, "version": "CYPHER 25"}]) != []
