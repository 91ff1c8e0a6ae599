"""The Neo4j Browser style and saved queries agree with the graph model the platform writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_platform.models import ContentNode, Episode, KnowledgePoint, LinkType, Memory
from memory_platform.viz import LINK_COLOURS, PALETTE

ROOT = Path(__file__).resolve().parents[2]
SAVED = sorted((ROOT / "cypher" / "browser").glob("*.cypher"))
GRASS = ROOT / "deploy" / "neo4j-browser" / "memory-platform.grass"
MODEL_CYPHER = "\n".join(p.read_text() for p in (ROOT / "cypher" / "neo4j").rglob("*.cypher"))

NODE_LABEL = re.compile(r"\(\s*\w*\s*:\s*(\w+)")
SET_LABEL = re.compile(r"(?:SET|WHEN) \w+:(\w+)")
REL_TYPES = re.compile(r"\[\s*\w*\s*:\s*([\w|]+)")
PROPERTY = re.compile(r"\b([a-z_]\w*)\.([a-z_]\w*)\b")
MAP_KEYS = re.compile(r"\{\s*((?:\w+\s*:\s*[^{}]+?,?\s*)+)\}")


def _labels(text: str) -> set[str]:
    return set(NODE_LABEL.findall(text)) | set(SET_LABEL.findall(text))


def _rel_types(text: str) -> set[str]:
    return {t for group in REL_TYPES.findall(text) for t in group.split("|") if t}


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


MODEL_LABELS = _labels(MODEL_CYPHER)
MODEL_REL_TYPES = _rel_types(MODEL_CYPHER)
MODEL_PROPERTIES = (
    set(Memory.model_fields)
    | set(ContentNode.model_fields)
    | set(Episode.model_fields)
    | set(KnowledgePoint.model_fields)
    | {"norm", "embedding", "search_tokens", "kind", "version_id", "session_id", "seq"}
    | {"memory_id", "type", "relation", "key", "label", "position", "importance", "confidence"}
    | {"discovered", "content", "speaker", "score"}
    | {"sensitive"}  # mirrored from metadata onto the nodes by the Neo4j backend
)


def test_the_model_is_what_the_backend_writes() -> None:
    # guard the extraction itself: these are certainly in the Neo4j backend's statements
    assert {"Memory", "Node", "Subject", "Topic", "Object", "Value", "Episode", "User"} <= (
        MODEL_LABELS
    )
    assert {"INCLUDES", "CAUSES", "SUPERSEDES", "NEXT", "LATEST_KNOWLEDGE"} <= MODEL_REL_TYPES


@pytest.mark.parametrize("path", SAVED, ids=lambda p: p.name)
def test_saved_query_is_documented_and_uses_only_the_model(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    header = dict(re.findall(r"^// (name|shows|params): (.+)$", text, re.MULTILINE))
    assert {"name", "shows", "params"} <= set(header), "header lines name/shows/params"
    declared = set(re.findall(r":param (\w+) =>", text))
    query = _strip_comments(text)
    used = set(re.findall(r"\$(\w+)", query))
    assert "user_id" in used, "every saved query is confined to one user"
    assert used == declared, "each $parameter is declared in the header"
    assert _labels(query) <= MODEL_LABELS
    assert _rel_types(query) - {""} <= MODEL_REL_TYPES
    properties = {prop for _, prop in PROPERTY.findall(query)}
    assert properties <= MODEL_PROPERTIES, properties - MODEL_PROPERTIES
    assert query.count("(") == query.count(")") and query.count("[") == query.count("]")
    assert path.name in (ROOT / "docs" / "neo4j-browser.md").read_text(encoding="utf-8")


def test_the_saved_queries_cover_what_the_issue_asks_for() -> None:
    names = {p.stem for p in SAVED}
    assert {
        "user_memory_graph",
        "causal_chains",
        "conflicts_and_superseded",
        "staged_vs_consolidated",
        "merged_nodes",
    } <= names


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"([\w.]+)\s*\{([^}]*)\}", text):
        props = dict(
            (k.strip(), v.strip().strip('"'))
            for k, v in (item.split(":", 1) for item in body.split(";") if item.strip())
        )
        rules[selector] = props
    return rules


def test_the_style_colours_and_captions_every_type_of_the_model() -> None:
    rules = parse_grass(GRASS.read_text(encoding="utf-8"))
    assert {"node", "relationship"} <= set(rules)
    styled_labels = {s.split(".", 1)[1] for s in rules if s.startswith("node.")}
    assert {
        "Memory",
        "Subject",
        "Topic",
        "Object",
        "Value",
        "Episode",
        "Knowledge",
    } <= styled_labels
    assert styled_labels <= MODEL_LABELS
    for kind, (fill, border) in PALETTE.items():
        assert rules[f"node.{kind}"]["color"].upper() == fill.upper(), kind
        assert rules[f"node.{kind}"]["border-color"].upper() == border.upper(), kind
    for link in LinkType:
        assert rules[f"relationship.{link.value}"]["color"].upper() == LINK_COLOURS[link.value]
    styled_types = {s.split(".", 1)[1] for s in rules if s.startswith("relationship.")}
    assert styled_types <= MODEL_REL_TYPES
    for selector, props in rules.items():
        for prop in re.findall(r"\{(\w+)\}", props.get("caption", "")):
            assert prop in MODEL_PROPERTIES | {"id"}, (selector, prop)
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", props.get("color", "#000000")), selector
