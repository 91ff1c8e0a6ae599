"""Looking at memory: ``search``, ``stats``, ``viz``, and ``consolidate`` on demand."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.table import Table

from ..errors import MemoryPlatformError
from ..retrieval.context import relation_label
from .common import (
    DbOption,
    JsonFlag,
    UserOption,
    console,
    err_console,
    fail,
    open_platform,
    print_json,
)


def search(
    query: Annotated[str, typer.Argument(help="a question or keywords")],
    user: UserOption,
    depth: Annotated[int, typer.Option(min=0, max=2, help="graph expansion depth")] = 1,
    mode: Annotated[str, typer.Option(help="auto, fast or deep")] = "auto",
    max_results: Annotated[int, typer.Option(min=1, max=100)] = 10,
    memory_type: Annotated[
        list[str] | None, typer.Option("--type", help="only this memory type (repeatable)")
    ] = None,
    include_invalid: Annotated[bool, typer.Option(help="also invalidated memories")] = False,
    min_relevance: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help="relevance floor (default: the configured one)"),
    ] = None,
    include_sensitive: Annotated[
        bool, typer.Option(help="also memories marked sensitive (health, finances, ...)")
    ] = False,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Search a user's memory: direct matches, then what the graph connects to them.

    Times are in the deployment's time zone (MEMORY_TIMEZONE, UTC unless set). Results
    below the relevance floor are not shown; --min-relevance 0 shows the closest
    memories whatever their relevance.
    """
    if mode not in ("auto", "fast", "deep"):
        raise fail("--mode must be auto, fast or deep")
    chosen: Literal["auto", "fast", "deep"] = mode  # type: ignore[assignment]
    with open_platform(db, existing=True) as mp:
        results = mp.search(
            user,
            query,
            memory_types=memory_type,
            max_results=max_results,
            expand_depth=depth,
            mode=chosen,
            include_invalid=include_invalid,
            record_access=False,
            min_relevance=min_relevance,
            include_sensitive=include_sensitive,
        )
        context = mp.format_context(results, include_sensitive=include_sensitive)
        floor = mp.settings.retrieval.relevance_floor if min_relevance is None else min_relevance
    if as_json:
        print_json(
            {
                "query": query,
                "results": [r.model_dump(mode="json") for r in results],
                "context": context,
            }
        )
        return
    if not results:
        console.print(
            f"nothing in {user}'s memory is relevant to {query!r} (relevance floor {floor}; "
            "--min-relevance 0 shows the closest memories)",
            highlight=False,
        )
        return
    table = Table(title=f"{query}  ({user}, depth {depth})")
    for column in ("#", "layer", "score", "relevance", "kind", "time (UTC)", "text"):
        table.add_column(column, overflow="fold")
    for rank, r in enumerate(results, start=1):
        # a related result says under its layer how it relates (cause, next_turn...):
        # a column of its own would take the text's width in a narrow terminal
        via = relation_label(r.path[-1].relation, r.path[-1].direction) if r.path else ""
        table.add_row(
            str(rank),
            f"{r.layer}\n{via}" if via else r.layer,
            f"{r.score:.3f}",
            f"{r.relevance:.2f}",
            r.memory_type or r.kind,
            r.time or "",
            r.text,
        )
    console.print(table)


def stats(
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="one user (default: the whole store)")
    ] = None,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Counts of memories, nodes, edges, links, episodes, knowledge and vectors."""
    with open_platform(db, existing=True) as mp:
        counts = mp.stats(user)
        users = None if user else sum(1 for _ in mp.store.iter_users())
    if as_json:
        print_json({**({"users": users} if users is not None else {}), **counts.model_dump()})
        return
    table = Table(title=f"memory of {user}" if user else "whole store")
    table.add_column("what")
    table.add_column("count", justify="right")
    if users is not None:
        table.add_row("users", str(users))
    table.add_row("memories", str(counts.memories))
    table.add_row("  staged", str(counts.staged))
    table.add_row("  invalidated", str(counts.invalid))
    for kind, n in sorted(counts.nodes.items()):
        table.add_row(f"{kind} nodes", str(n))
    table.add_row("structural edges", str(counts.structural_edges))
    table.add_row("memory links", str(counts.links))
    table.add_row("episodes", str(counts.episodes))
    table.add_row("knowledge versions", str(counts.knowledge_versions))
    table.add_row("knowledge points", str(counts.knowledge_points))
    for kind, n in sorted(counts.vectors.items()):
        table.add_row(f"{kind} vectors", str(n))
    console.print(table)


def viz(
    user: UserOption,
    out: Annotated[Path, typer.Option("--out", "-o", help="graph.html or graph.dot")] = Path(
        "memory-graph.html"
    ),
    fmt: Annotated[
        str | None, typer.Option("--format", help="html or dot (default: from --out)")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="newest memories shown")] = 300,
    db: DbOption = None,
) -> None:
    """Draw a user's memory graph: a standalone HTML page or Graphviz DOT, by node type."""
    from ..viz import to_dot, to_html, user_graph

    chosen = fmt or ("dot" if out.suffix in (".dot", ".gv") else "html")
    if chosen not in ("html", "dot"):
        raise fail("--format must be html or dot")
    with open_platform(db, existing=True) as mp:
        view = user_graph(mp.store, user, limit=limit)
    if not view.nodes:
        raise fail(f"user {user!r} has no memories to draw")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_dot(view) if chosen == "dot" else to_html(view), encoding="utf-8")
    memories = sum(1 for n in view.nodes if n.kind == "Memory")
    err_console.print(
        f"wrote {out} ({chosen}): {memories} memories, {len(view.nodes)} nodes, "
        f"{len(view.edges)} edges",
        highlight=False,
    )


def consolidate(
    user: Annotated[str | None, typer.Option("--user", "-u", help="one user")] = None,
    all_users: Annotated[
        bool, typer.Option("--all", help="every user with staged memories")
    ] = False,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Consolidate now, in this process: merge nodes, discover links, resolve conflicts.

    A user whose run fails (an LLM that does not answer) stops the command after the
    reports of those done are printed; what was done is kept, and running it again
    carries on where it stopped.
    """
    if (user is None) == (not all_users):
        raise fail("give either --user or --all")
    reports: list[dict[str, Any]] = []
    stopped: str | None = None
    with open_platform(db, existing=True) as mp:
        users = [user] if user else list(mp.store.iter_users(staged=True))
        for name in users:
            err_console.print(f"consolidating {name} …", highlight=False)
            try:
                reports.append(mp.consolidate(name))
            except MemoryPlatformError as exc:
                stopped = (
                    f"consolidating {name} stopped: {exc}. What was done is kept; run the "
                    "command again to carry on"
                )
                break
    _print_reports(reports, as_json)
    if stopped is not None:
        raise fail(stopped)
    if not reports and not as_json:
        console.print("nothing staged: no user to consolidate")


def review_conflicts(
    user: Annotated[str | None, typer.Option("--user", "-u", help="one user")] = None,
    all_users: Annotated[bool, typer.Option("--all", help="every user")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="say what would be reinstated; change nothing")
    ] = False,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Judge the conflicts earlier consolidations recorded again, under today's rules.

    Before 2026-12-01 events could conflict too (a week of 我 工作 加班, 我 工作 开会 kept
    only its last). Each memory today's rules would not have invalidated is current
    again, staged for the next consolidation; a person's correction is never undone.
    Running it again changes nothing more.
    """
    if (user is None) == (not all_users):
        raise fail("give either --user or --all")
    reviews: list[dict[str, Any]] = []
    with open_platform(db, existing=True) as mp:
        for name in [user] if user else mp.store.iter_users():
            err_console.print(f"reviewing {name} …", highlight=False)
            reviews.append(mp.review_conflicts(name, dry_run=dry_run))
    if as_json:
        print_json(reviews)
        return
    table = Table(title="conflicts reviewed" + (" (dry run: nothing changed)" if dry_run else ""))
    for column in ("user", "conflicts", "would be reinstated" if dry_run else "reinstated"):
        table.add_column(column)
    for review in reviews:
        table.add_row(review["user_id"], str(review["conflicts"]), str(review["reinstated"]))
    console.print(table)


def _print_reports(reports: list[dict[str, Any]], as_json: bool) -> None:
    """Consolidation reports as JSON or as a table."""
    if as_json:
        print_json(reports)
        return
    table = Table(title="consolidation")
    columns = ("user_id", "memories", "nodes_merged", "related_links", "causal_links", "conflicts")
    for column in columns:
        table.add_column(column.replace("_", " "))
    for report in reports:
        table.add_row(*(str(report[c]) for c in columns))
    if reports:
        console.print(table)
