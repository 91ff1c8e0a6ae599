"""The ``memory-platform`` command line: every command goes through the facade."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .builder import memory_time_text
from .config import load_settings
from .errors import MemoryPlatformError

app = typer.Typer(
    name="memory-platform",
    help="Knowledge-graph long-term memory for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

DEMO_USER = "demo-user"


@app.callback()
def _root() -> None:
    """Knowledge-graph long-term memory for LLM agents."""


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code=1)


@app.command()
def demo(
    db: Annotated[
        Path | None,
        typer.Option(help="SQLite file to write (default: MEMORY_SQLITE_PATH or memories.db)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Replay the design's example conversations as tool calls and show the memory graph."""
    from .platform import MemoryPlatform
    from .tools.prompts import EXAMPLE_TIME, FEW_SHOT_EXAMPLES

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
    if failed:
        raise _fail(f"{len(failed)} tool call(s) failed")


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


@app.command()
def bench(
    scale: Annotated[
        str, typer.Option(help="store size: tiny (smoke), 1k, 10k or 100k memories")
    ] = "1k",
    backend: Annotated[
        str,
        typer.Option(help="sqlite (a fresh file) or neo4j (MEMORY_NEO4J_URI; writes bench users)"),
    ] = "sqlite",
    out: Annotated[
        Path | None, typer.Option(help="write the report here (.json; a .md table beside it)")
    ] = None,
    workdir: Annotated[
        Path | None, typer.Option(help="folder for the benchmark's store (default: a temp dir)")
    ] = None,
) -> None:
    """Latency of create_memory and search (depth 0/1/2) on the embedded store, with a
    vector-only baseline from the same run; medians and p95."""
    import tempfile

    from .bench.latency import SCALES, markdown, run_latency

    if scale not in SCALES:
        raise _fail(f"--scale must be one of {', '.join(SCALES)}")
    if backend not in ("sqlite", "neo4j"):
        raise _fail("--backend must be sqlite or neo4j")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            report = run_latency(
                scale, workdir or Path(tmp), progress=err_console.print, backend=backend
            )
    except MemoryPlatformError as exc:
        raise _fail(str(exc)) from exc
    table = markdown([report])
    console.print(table)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        out.with_suffix(".md").write_text(table + "\n", encoding="utf-8")


eval_app = typer.Typer(help="Retrieval-quality evaluations.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")


@eval_app.command("locomo")
def eval_locomo(
    data: Annotated[Path, typer.Option(help="LoCoMo JSON file (list of conversations)")] = Path(
        "../shared/data/locomo_dev.json"
    ),
    out: Annotated[
        Path | None, typer.Option(help="write the report here (.json; a .md table beside it)")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="only the first N conversations")] = None,
    workdir: Annotated[
        Path | None, typer.Option(help="folder for the evaluation's store (default: a temp dir)")
    ] = None,
) -> None:
    """Recall@5/10, MRR and all-evidence@10 per question category on LoCoMo, with
    BM25-only and vector-only baselines computed in the same run."""
    import tempfile

    from .bench.locomo import markdown, run_locomo

    if not data.is_file():
        raise _fail(f"no LoCoMo file at {data}")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            report = run_locomo(data, workdir or Path(tmp), limit=limit, progress=err_console.print)
    except (MemoryPlatformError, ValueError, KeyError) as exc:
        raise _fail(f"evaluation failed: {exc}") from exc
    table = markdown(report)
    console.print(table)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        out.with_suffix(".md").write_text(table + "\n", encoding="utf-8")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
