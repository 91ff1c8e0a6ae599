"""The ``memory-platform`` command line (typer + rich); every command goes through the facade.

User mistakes (bad settings, missing files, invalid lines, unknown users) print one line
on stderr and exit with code 1, never a traceback.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from .._version import __version__
from . import bench, data, demo, edit, inspect, services

app = typer.Typer(
    name="memory-platform",
    help="Knowledge-graph long-term memory for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # plain help: flags without typer's "<bool>" type labels
)


def _print_version(value: bool) -> None:
    if value:
        print(f"memory-platform {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="print the version and exit"
        ),
    ] = False,
) -> None:
    """Knowledge-graph long-term memory for LLM agents."""


app.command()(demo.demo)
app.command()(services.serve)
app.command()(services.worker)
app.command()(services.beat)
app.command()(services.mcp)
app.command("init-db")(services.init_db)
app.command()(services.prepare)
app.command()(data.ingest)
app.command()(inspect.search)
app.command()(edit.correct)
app.command()(edit.retract)
app.command()(edit.history)
app.command()(edit.forget)
app.command()(edit.purge)
app.command("delete-user")(edit.delete_user)
app.command()(edit.audit)
app.command("add-media")(edit.add_media)
app.command()(inspect.consolidate)
app.command("review-conflicts")(inspect.review_conflicts)
app.command()(data.export)
app.command("import")(data.import_)
app.command()(data.reembed)
app.command()(data.retokenize)
app.command()(inspect.viz)
app.command()(inspect.stats)
app.command()(bench.bench)

eval_app = typer.Typer(help="Retrieval-quality evaluations.")
eval_app.callback(invoke_without_command=True)(bench.eval_all)
eval_app.command("locomo")(bench.eval_locomo)
eval_app.command("madial")(bench.eval_madial)
eval_app.command("embedders")(bench.eval_embedders)
eval_app.command("merge")(bench.eval_merge)
app.add_typer(eval_app, name="eval")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)
    except BrokenPipeError:  # `memory-platform export ... | head -1`: the reader has enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
        sys.exit(0)


__all__ = ["app", "main"]
