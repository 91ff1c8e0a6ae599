"""``memory-platform bench`` and ``memory-platform eval locomo``: speed and retrieval quality."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import MemoryPlatformError
from .common import console, err_console
from .common import fail as _fail


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
    """Speed and size: create, search (depth 0/1/2), ingest, consolidation, disk, RSS.

    Medians and p95, with a vector-only baseline from the same run.
    """
    import tempfile

    from ..bench.latency import SCALES, markdown, run_latency

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
    """Recall@5/10, MRR and all-evidence@10 per LoCoMo question category.

    BM25-only and vector-only baselines are computed in the same run.
    """
    import tempfile

    from ..bench.locomo import markdown, run_locomo

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
