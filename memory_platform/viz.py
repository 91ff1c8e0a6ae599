"""A user's memory graph as a standalone HTML page (inline SVG) or Graphviz DOT.

Both show memory hubs, their content nodes (subject, topic, object, value) and the links
between memories, coloured by node type with the palette of the Neo4j Browser style
(``deploy/neo4j-browser/memory-platform.grass``). The HTML page needs no network: the
layout is computed here and drawn as SVG, with each element's details in its tooltip.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field

import numpy as np

from .models import LinkType, MemoryStatus
from .store.base import GraphStore

# Node type -> (fill colour, border colour); the .grass style uses the same colours.
PALETTE: dict[str, tuple[str, str]] = {
    "Memory": ("#F79767", "#F36924"),
    "Subject": ("#4C8EDA", "#2870C2"),
    "Topic": ("#57C7E3", "#23B3D7"),
    "Object": ("#8DCC93", "#5DB665"),
    "Value": ("#FFC454", "#D7A013"),
}
STAGED_FILL = "#FCD5C1"  # a staged memory: lighter than a consolidated one
INVALID_FILL = "#C9C9C9"  # invalidated by a newer memory
LINK_COLOURS: dict[str, str] = {
    LinkType.CAUSES.value: "#D62728",
    LinkType.REFERS_TO.value: "#9467BD",
    LinkType.RELATED_TO.value: "#7F7F7F",
    LinkType.CONFLICTS_WITH.value: "#FF7F0E",
    LinkType.SUPERSEDES.value: "#8C564B",
}
STRUCTURAL_COLOUR = "#B0B0B0"
INCLUDES_COLOUR = "#E4E4E4"  # a memory to its own nodes: faint, it is the hub's frame


@dataclass
class GraphNode:
    id: str
    kind: str  # Memory, Subject, Topic, Object, Value
    label: str
    details: dict[str, str] = field(default_factory=dict)
    fill: str = ""


@dataclass
class GraphEdge:
    source: str
    target: str
    label: str
    link: bool  # a memory-to-memory link, not a structural edge


@dataclass
class GraphView:
    user_id: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool = False


def user_graph(store: GraphStore, user_id: str, limit: int = 500) -> GraphView:
    """The newest ``limit`` memories of a user with their nodes, edges and links."""
    total = store.stats(user_id).memories
    offset = max(0, total - limit)
    memories = store.list_memories(user_id, limit=limit, offset=offset)
    nodes: dict[str, GraphNode] = {}
    edges: dict[tuple[str, str, str], GraphEdge] = {}
    shown = {m.id for m in memories}
    for memory in memories:
        record = store.get_memory(user_id, memory.id)
        if record is None:
            continue
        fill = PALETTE["Memory"][0]
        if memory.invalid_at is not None:
            fill = INVALID_FILL
        elif memory.status == MemoryStatus.STAGED:
            fill = STAGED_FILL
        nodes[memory.id] = GraphNode(
            id=memory.id,
            kind="Memory",
            label=memory.title,
            fill=fill,
            details={
                "text": memory.text,
                "type": memory.memory_type.value,
                "status": memory.status.value,
                "importance": f"{memory.importance:.2f}",
                **({"invalid since": memory.invalid_at.isoformat()} if memory.invalid_at else {}),
            },
        )
        for node in record.nodes:
            kind = node.kind.value
            edges[(memory.id, node.id, "INCLUDES")] = GraphEdge(
                memory.id, node.id, "INCLUDES", link=False
            )
            nodes.setdefault(
                node.id,
                GraphNode(
                    id=node.id,
                    kind=kind,
                    label=node.content,
                    fill=PALETTE.get(kind, ("#DDDDDD", ""))[0],
                    details={"merged from": ", ".join(node.merged_from)}
                    if node.merged_from
                    else {},
                ),
            )
        for edge in record.edges:
            edges[(edge.src_id, edge.dst_id, edge.label)] = GraphEdge(
                edge.src_id, edge.dst_id, edge.label, link=False
            )
        for link in record.links:
            if link.source_id in shown and link.target_id in shown:
                edges[(link.source_id, link.target_id, link.type.value)] = GraphEdge(
                    link.source_id, link.target_id, link.type.value, link=True
                )
    return GraphView(user_id, list(nodes.values()), list(edges.values()), truncated=offset > 0)


def edge_colour(edge: GraphEdge) -> str:
    """Links by meaning, a memory's own nodes faint, structural edges grey."""
    if edge.link:
        return LINK_COLOURS.get(edge.label, STRUCTURAL_COLOUR)
    return INCLUDES_COLOUR if edge.label == "INCLUDES" else STRUCTURAL_COLOUR


def to_dot(view: GraphView) -> str:
    """Graphviz DOT (``dot -Tsvg graph.dot``): filled nodes by type, links in colour."""

    def q(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'

    lines = [
        f"digraph {q('memory:' + view.user_id)} {{",
        "  graph [rankdir=LR, overlap=false, fontname=Helvetica];",
        "  node [style=filled, fontname=Helvetica, fontsize=10];",
        "  edge [fontname=Helvetica, fontsize=8];",
    ]
    for node in view.nodes:
        shape = "box" if node.kind == "Memory" else "ellipse"
        tooltip = "; ".join(f"{k}: {v}" for k, v in node.details.items()) or node.kind
        lines.append(
            f"  {q(node.id)} [label={q(node.label)}, shape={shape}, fillcolor={q(node.fill)},"
            f" color={q(PALETTE.get(node.kind, ('', '#999999'))[1])}, tooltip={q(tooltip)}];"
        )
    for edge in view.edges:
        colour = edge_colour(edge)
        style = "bold" if edge.link else ("dotted" if edge.label == "INCLUDES" else "solid")
        lines.append(
            f"  {q(edge.source)} -> {q(edge.target)} [label={q(edge.label)},"
            f" color={q(colour)}, fontcolor={q(colour)}, style={style}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def layout(view: GraphView, iterations: int = 200, seed: int = 7) -> dict[str, tuple[float, float]]:
    """Force-directed positions (Fruchterman-Reingold) in a 1000 x 1000 box."""
    n = len(view.nodes)
    if n == 0:
        return {}
    index = {node.id: i for i, node in enumerate(view.nodes)}
    pairs = np.array(
        [
            (index[e.source], index[e.target])
            for e in view.edges
            if e.source in index and e.target in index
        ],
        dtype=np.int64,
    ).reshape(-1, 2)
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 1000, size=(n, 2))
    k = math.sqrt(1_000_000 / n)
    temperature = 100.0
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.linalg.norm(delta, axis=2), 0.01)
        force = (delta / dist[:, :, None]) * (k * k / dist)[:, :, None]
        move = force.sum(axis=1)
        if len(pairs):
            d = pos[pairs[:, 0]] - pos[pairs[:, 1]]
            length = np.maximum(np.linalg.norm(d, axis=1), 0.01)
            pull = d / length[:, None] * (length * length / k)[:, None]
            np.add.at(move, pairs[:, 0], -pull)
            np.add.at(move, pairs[:, 1], pull)
        move += (500 - pos) * 0.01  # a weak pull to the centre keeps islands in view
        step = np.linalg.norm(move, axis=1)
        pos += move / np.maximum(step, 0.01)[:, None] * np.minimum(step, temperature)[:, None]
        temperature = max(temperature * 0.97, 1.0)
    low, high = pos.min(axis=0), pos.max(axis=0)
    scaled = 40 + (pos - low) / np.maximum(high - low, 1.0) * 920
    return {
        node.id: (float(scaled[i, 0]), float(scaled[i, 1])) for i, node in enumerate(view.nodes)
    }


def to_html(view: GraphView) -> str:
    """A standalone page: the graph as inline SVG, a legend, tooltips with the details."""
    where = layout(view)
    e = html.escape
    parts: list[str] = []
    for edge in sorted(view.edges, key=lambda e: e.link):  # links drawn on top
        if edge.source not in where or edge.target not in where:
            continue
        (x1, y1), (x2, y2) = where[edge.source], where[edge.target]
        colour = edge_colour(edge)
        width = 3 if edge.link else 1
        parts.append(
            f'<line class="edge{" link" if edge.link else ""}" x1="{x1:.1f}" y1="{y1:.1f}"'
            f' x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" stroke-width="{width}"'
            f' marker-end="url(#arrow)"><title>{e(edge.label)}</title></line>'
        )
    for node in view.nodes:
        x, y = where[node.id]
        radius = 16 if node.kind == "Memory" else 11
        tip = "\n".join(
            [f"{node.kind}: {node.label}", *(f"{k}: {v}" for k, v in node.details.items())]
        )
        parts.append(
            f'<g class="node" data-kind="{e(node.kind)}" data-id="{e(node.id)}">'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{node.fill}"'
            f' stroke="{PALETTE.get(node.kind, ("", "#999999"))[1]}" stroke-width="1.5"/>'
            f'<text x="{x:.1f}" y="{y + radius + 11:.1f}">{e(_short(node.label))}</text>'
            f"<title>{e(tip)}</title></g>"
        )
    legend = "".join(
        f'<span><i style="background:{fill}"></i>{kind}</span>'
        for kind, (fill, _) in PALETTE.items()
    )
    legend += f'<span><i style="background:{STAGED_FILL}"></i>staged memory</span>'
    legend += f'<span><i style="background:{INVALID_FILL}"></i>invalidated memory</span>'
    legend += "".join(
        f'<span><i style="background:{c};height:3px"></i>{e(name)}</span>'
        for name, c in LINK_COLOURS.items()
    )
    counts = {
        "nodes": len(view.nodes),
        "edges": len(view.edges),
        "memories": sum(1 for n in view.nodes if n.kind == "Memory"),
    }
    note = " (newest memories only)" if view.truncated else ""
    return _PAGE.format(
        title=e(f"Memory graph of {view.user_id}"),
        summary=e(
            f"{counts['memories']} memories, {counts['nodes']} nodes, {counts['edges']} edges{note}"
        ),
        legend=legend,
        svg="\n".join(parts),
        data=e(json.dumps(counts)),
    )


def _short(text: str, width: int = 24) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: Helvetica, Arial, "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei",
  "WenQuanYi Zen Hei", sans-serif; margin: 1rem; color: #222; }}
.legend span {{ display: inline-flex; align-items: center; margin-right: 1rem; font-size: 13px; }}
.legend i {{ display: inline-block; width: 14px; height: 14px; margin-right: 4px; border-radius: 3px; }}
svg {{ border: 1px solid #ddd; width: 100%; height: auto; max-height: 90vh; }}
text {{ font-size: 10px; text-anchor: middle; pointer-events: none; }}
.node:hover circle {{ stroke: #000; stroke-width: 3; }}
</style></head>
<body>
<h1>{title}</h1>
<p id="summary" data-counts="{data}">{summary}</p>
<div class="legend">{legend}</div>
<svg viewBox="0 0 1000 1000" xmlns="http://www.w3.org/2000/svg">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="22" refY="5" markerWidth="6" markerHeight="6"
 orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#888"/></marker></defs>
{svg}
</svg>
</body></html>
"""
