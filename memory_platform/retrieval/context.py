"""The layered prompt block of seed 004 §2.4: direct matches, then graph-related memories."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from ..models import MemoryType
from ..textutil import has_cjk
from .results import SearchResult

__all__ = ["NOTHING_RELEVANT", "format_context", "relation_label"]

# How a graph-related memory (or a turn beside a matching turn) relates to the direct
# match it was reached from.
_LABELS = {
    ("CAUSES", "in"): "cause",
    ("CAUSES", "out"): "effect",
    ("REFERS_TO", "in"): "source",
    ("REFERS_TO", "out"): "cited_by",
    ("RELATED_TO", "in"): "related",
    ("RELATED_TO", "out"): "related",
    ("CONFLICTS_WITH", "in"): "conflicts",
    ("CONFLICTS_WITH", "out"): "conflicts",
    ("SUPERSEDES", "in"): "superseded_by",
    ("SUPERSEDES", "out"): "supersedes",
    ("NEXT", "out"): "next_turn",
    ("NEXT", "in"): "previous_turn",
}


def relation_label(relation: str, direction: str) -> str:
    """A reader's word for one hop: ``cause`` for a memory that caused the match, etc."""
    return _LABELS.get((relation, direction), "shares")


def _type_label(result: SearchResult) -> str | None:
    """A memory's type in the language it is written in: 事实 beside 我 喜欢 咖啡, fact
    beside "user likes tea" (a model reading English need not read 事实)."""
    if not result.memory_type or has_cjk(result.text):
        return result.memory_type
    try:
        return MemoryType(result.memory_type).value
    except ValueError:
        return result.memory_type


def _memory_element(index: int, result: SearchResult, related: bool) -> list[str]:
    attrs = [f"index={quoteattr(str(index))}", f"kind={quoteattr(result.kind)}"]
    if label := _type_label(result):
        attrs.append(f"type={quoteattr(label)}")
    if result.time:
        attrs.append(f"time={quoteattr(result.time)}")
    if related:
        attrs.append(f"distance={quoteattr(str(result.graph_distance))}")
        if result.path:
            relations = "/".join(relation_label(s.relation, s.direction) for s in result.path)
            attrs.append(f"relation={quoteattr(relations)}")
    lines = [f"    <memory {' '.join(attrs)}>", f"      <content>{escape(result.text)}</content>"]
    if result.speaker:
        lines.append(f"      <speaker>{escape(result.speaker)}</speaker>")
    if related and result.path:
        via = [step.via for step in result.path if step.via]
        if via:
            lines.append(f"      <via>{escape(', '.join(via))}</via>")
    lines.append("    </memory>")
    return lines


NOTHING_RELEVANT = "Nothing relevant to this question is remembered. 没有与此相关的记忆。"
"""What the context block says when no memory matches the query."""


def format_context(results: Sequence[SearchResult], include_sensitive: bool = False) -> str:
    """Render results as ``<memory_context>`` with ``<direct_matches>`` and ``<related_context>``.

    Text and attributes are XML-escaped, so memory content cannot break the structure.
    With no direct match (nothing above the relevance floor) the block says so plainly,
    so the model does not take silence for an empty memory or invent one. Sensitive
    results are left out unless ``include_sensitive`` is set.
    """
    shown = [r for r in results if include_sensitive or not r.sensitive]
    direct = [r for r in shown if r.layer == "direct"]
    related = [r for r in shown if r.layer == "related"]
    if not direct:
        return (
            "<memory_context>\n"
            f"  <no_relevant_memory>{NOTHING_RELEVANT}</no_relevant_memory>\n"
            "</memory_context>"
        )
    lines = ["<memory_context>", "  <direct_matches>"]
    index = 1
    for result in direct:
        lines.extend(_memory_element(index, result, related=False))
        index += 1
    lines.append("  </direct_matches>")
    if related:
        lines.append("  <related_context>")
        for result in related:
            lines.extend(_memory_element(index, result, related=True))
            index += 1
        lines.append("  </related_context>")
    lines.append("</memory_context>")
    return "\n".join(lines)
