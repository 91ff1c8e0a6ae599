"""``memory-platform demo``: the design's example conversations, replayed as tool calls."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..builder import memory_time_text
from ..config import load_settings
from ..errors import MemoryPlatformError
from .common import console
from .common import fail as _fail

DEMO_USER = "demo-user"


def demo(
    db: Annotated[
        Path | None,
        typer.Option(help="SQLite file to write (default: MEMORY_SQLITE_PATH or memories.db)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Replay the design's example conversations as tool calls and show the memory graph."""
    from ..platform import MemoryPlatform
    from ..tools.prompts import EXAMPLE_TIME, FEW_SHOT_EXAMPLES

    overrides: dict[str, Any] = {"backend": "sqlite"}
    if db is not None:
        overrides["sqlite_path"] = db
    try:
        settings = load_settings(**overrides)
        with MemoryPlatform(settings) as mp:
            mp.delete_user(DEMO_USER)  # each run starts from the same empty user
            transcript = []
            for example in FEW_SHOT_EXAMPLES:
                calls = []
                for call in example["calls"]:
                    result = mp.execute_tool(
                        DEMO_USER, call["name"], call["arguments"], reference_time=EXAMPLE_TIME
                    )
                    calls.append(
                        {"tool": call["name"], "arguments": call["arguments"], "result": result}
                    )
                transcript.append({"user": example["user"], "calls": calls})
            mp.wait_for_indexing(DEMO_USER)
            question = "我为什么没心情工作?"
            found = mp.search(
                DEMO_USER,
                question,
                expand_depth=2,
                reference_time=EXAMPLE_TIME,
                record_access=False,
            )
            context = mp.format_context(found)
            memories = mp.store.list_memories(DEMO_USER, limit=1000)
            links = {
                (link.source_id, link.target_id, link.type.value): link
                for memory in memories
                for link in mp.store.get_links(DEMO_USER, memory.id)
            }
            stats = mp.stats(DEMO_USER)
    except MemoryPlatformError as exc:
        raise _fail(str(exc)) from exc

    failed = [c for t in transcript for c in t["calls"] if not c["result"].get("success")]
    if as_json:
        print(
            json.dumps(
                {
                    "store": str(settings.sqlite_path),
                    "transcript": transcript,
                    "search": {
                        "query": question,
                        "results": [r.model_dump(mode="json") for r in found],
                        "context": context,
                    },
                    "stats": stats.model_dump(),
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        _print_demo(settings.sqlite_path, transcript, memories, list(links.values()), stats)
        console.print(f"\n[cyan]search:[/] {question}  (depth 2: direct matches, then causes)")
        console.print(context, markup=False, highlight=False)
        console.print("\n[bold]Next[/] (the same store):", highlight=False)
        for line in next_steps(question, db):
            console.print(f"  {line}", markup=False, highlight=False)
    if failed:
        raise _fail(f"{len(failed)} tool call(s) failed")


def next_steps(question: str, db: Path | None) -> list[str]:
    """Commands that go on from the demo: ask its memory, draw its graph, as the demo was
    run (``.venv/bin/memory-platform`` from ``scripts/demo.sh``; ``--db`` when it was given
    one, so they read the same file)."""
    program = sys.argv[0] if Path(sys.argv[0]).name == "memory-platform" else "memory-platform"
    where = f" --db {shlex.quote(str(db))}" if db is not None else ""
    return [
        f"{program} search -u {DEMO_USER} {shlex.quote(question)} --depth 2{where}",
        f"{program} viz -u {DEMO_USER} -o memory-graph.html{where}",
    ]


def _print_demo(
    path: Path, transcript: list[dict[str, Any]], memories: list[Any], links: list[Any], stats: Any
) -> None:
    console.print(f"[bold]Memory platform demo[/] — store: {path}, user: {DEMO_USER}\n")
    for turn in transcript:
        console.print(f"[cyan]user:[/] {turn['user']}")
        for call in turn["calls"]:
            result = call["result"]
            mark = "[green]✓[/]" if result.get("success") else "[red]✗[/]"
            if call["tool"] == "create_memory":
                detail = result.get("text") or result.get("error")
            else:
                detail = (
                    f"{result.get('source_text')} —{result.get('relation')}→ {result.get('target_text')}"
                    if result.get("success")
                    else result.get("error")
                )
            console.print(f"  {mark} {call['tool']}: {detail}")
    table = Table(title="Memories (staged, vector-indexed)")
    for column in ("title", "type", "time", "importance", "status"):
        table.add_column(column)
    for memory in memories:
        table.add_row(
            memory.title,
            memory.memory_type.zh,
            memory_time_text(memory),
            f"{memory.importance:.1f}",
            memory.status.value,
        )
    console.print(table)
    titles = {m.id: m.title for m in memories}
    link_table = Table(title="Links")
    for column in ("source", "relation", "target"):
        link_table.add_column(column)
    for link in links:
        link_table.add_row(
            titles.get(link.source_id, link.source_id),
            link.type.value,
            titles.get(link.target_id, link.target_id),
        )
    console.print(link_table)
    console.print(
        f"{stats.memories} memories, {sum(stats.nodes.values())} nodes "
        f"({', '.join(f'{k} {v}' for k, v in sorted(stats.nodes.items()))}), "
        f"{stats.structural_edges} structural edges, {stats.links} links, "
        f"{sum(stats.vectors.values())} vectors"
    )
