"""The ``memory-platform`` command line (typer + rich); every command goes through the facade.

User mistakes (bad settings, missing files, invalid lines, unknown users) print one line
on stderr and exit with code 1, never a traceback.
"""

from __future__ import annotations

import sys

import typer

from . import bench, data, demo, inspect, services

app = typer.Typer(
    name="memory-platform",
    help="Knowledge-graph long-term memory for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Knowledge-graph long-term memory for LLM agents."""


app.command()(demo.demo)
app.command()(services.serve)
app.command()(services.worker)
app.command()(services.beat)
app.command("init-db")(services.init_db)
app.command()(data.ingest)
app.command()(inspect.search)
app.command()(inspect.consolidate)
app.command()(data.export)
app.command("import")(data.import_)
app.command()(inspect.viz)
app.command()(inspect.stats)
app.command()(bench.bench)

eval_app = typer.Typer(help="Retrieval-quality evaluations.", no_args_is_help=True)
eval_app.command("locomo")(bench.eval_locomo)
eval_app.command("merge")(bench.eval_merge)
app.add_typer(eval_app, name="eval")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)


__all__ = ["app", "main"]
