"""``memory-platform bench`` and ``memory-platform eval``: speed, size and retrieval quality."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Protocol

import typer

from .common import console, err_console, fail, user_errors

BACKENDS = ("sqlite", "neo4j")
DEFAULT_LOCOMO = Path("../shared/data/locomo_dev.json")
DEFAULT_MADIAL = Path("../shared/data/madial_zh_dev.json")

BackendOption = Annotated[
    str,
    typer.Option(help="sqlite (a fresh file) or neo4j (MEMORY_NEO4J_URI; writes bench users)"),
]
WorkdirOption = Annotated[
    Path | None, typer.Option(help="folder for the stores it creates (default: a temp dir)")
]


def _check_data(label: str, path: Path) -> None:
    """Refuse a data path that is not there; MADial may also be the benchmark's folder."""
    there = path.exists() if label == "MADial" else path.is_file()
    if not there:
        raise fail(f"no {label} file at {path}")


def write_report(out: Path, report: dict[str, Any], table: str) -> None:
    """``out`` (.json) and a Markdown table beside it (.md)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(table + "\n", encoding="utf-8")


@contextmanager
def _workdir(given: Path | None) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise fail("--backend must be sqlite or neo4j")


def bench(
    scale: Annotated[
        str,
        typer.Option(help="memories of the measured user: tiny (smoke), 1k, 10k or 100k"),
    ] = "1k",
    backend: BackendOption = "sqlite",
    out: Annotated[
        Path | None, typer.Option(help="write the report here (.json; a .md table beside it)")
    ] = None,
    workdir: WorkdirOption = None,
    run_all: Annotated[
        bool,
        typer.Option(
            "--all",
            help="every figure: latency at each of --scales, LoCoMo, node dedup, and summary.md",
        ),
    ] = False,
    scales: Annotated[
        str, typer.Option(help="with --all: comma-separated scales, the first is the main one")
    ] = "1k",
    out_dir: Annotated[
        Path, typer.Option(help="with --all: folder for every report and summary.md")
    ] = Path("bench-results"),
    data: Annotated[Path, typer.Option(help="with --all: the LoCoMo file")] = DEFAULT_LOCOMO,
    madial: Annotated[
        Path | None,
        typer.Option(help="with --all: the MADial-Bench zh file (default: the dev set if present)"),
    ] = None,
    summarize: Annotated[
        bool,
        typer.Option(
            "--summarize", help="only rebuild summary.md from the reports already in --out-dir"
        ),
    ] = False,
) -> None:
    """Speed and size: create, search (depth 0/1/2), ingest, consolidation, disk, RSS.

    Medians and p95, with a vector-only baseline from the same run, in a store shared
    with many other users. With --backend neo4j the embedded store runs the same workload
    in the same run and the table shows both. --all reproduces every figure of the README.
    """
    from ..bench.latency import SCALES, compared_rows, markdown, run_latency_compared

    _check_backend(backend)
    if summarize:
        _summarize([s.strip() for s in scales.split(",") if s.strip()], out_dir)
        return
    if run_all:
        _bench_all(
            [s.strip() for s in scales.split(",") if s.strip()],
            backend,
            out_dir,
            data,
            workdir,
            madial
            if madial is not None
            else (DEFAULT_MADIAL if DEFAULT_MADIAL.is_file() else None),
        )
        return
    if scale not in SCALES:
        raise fail(f"--scale must be one of {', '.join(SCALES)}")
    with user_errors(), _workdir(workdir) as folder:
        report = run_latency_compared(scale, folder, err_console.print, backend)
    table = markdown(compared_rows(report))
    console.print(table)
    if out is not None:
        write_report(out, report, table)


def _bench_all(
    scales: list[str],
    backend: str,
    out_dir: Path,
    data: Path,
    workdir: Path | None,
    madial: Path | None,
) -> None:
    from ..bench import latency, merge, retrieval_eval
    from ..bench.summary import LATENCY_FILE, MERGE_FILE, RETRIEVAL_FILE, summary_table

    unknown = [s for s in scales if s not in latency.SCALES]
    if not scales or unknown:
        raise fail(f"--scales takes one or more of {', '.join(latency.SCALES)}")
    _check_data("LoCoMo", data)
    if madial is not None:
        _check_data("MADial", madial)
    if backend == "neo4j":
        err_console.print("node dedup is measured on the embedded store; the rest on Neo4j")
    reports: dict[str, dict[str, Any]] = {}
    with user_errors(), _workdir(workdir) as folder:
        for scale in scales:
            err_console.print(f"[bold]latency at {scale}[/]")
            report = latency.run_latency_compared(scale, folder, err_console.print, backend)
            write_report(
                out_dir / LATENCY_FILE.format(scale=scale),
                report,
                latency.markdown(latency.compared_rows(report)),
            )
            reports[scale] = report
        err_console.print("[bold]retrieval quality[/]")
        quality = retrieval_eval.run_eval(
            data, madial, folder, progress=err_console.print, backend=backend
        )
        write_report(out_dir / RETRIEVAL_FILE, quality, retrieval_eval.markdown(quality))
        err_console.print("[bold]node dedup quality[/]")
        dedup = merge.run_merge_eval_in(folder, progress=err_console.print)
        write_report(out_dir / MERGE_FILE, dedup, merge.markdown(dedup))
    main, *rest = scales
    table = summary_table(reports[main], quality, dedup, reports[rest[-1]] if rest else None)
    (out_dir / "summary.md").write_text(table + "\n", encoding="utf-8")
    console.print(table)
    err_console.print(f"wrote every report and summary.md to {out_dir}")


def _summarize(scales: list[str], out_dir: Path) -> None:
    from ..bench.summary import summary_from

    main, *rest = scales or ["1k"]
    try:
        table = summary_from(out_dir, main=main, large=rest[-1] if rest else None)
    except FileNotFoundError as exc:
        raise fail(f"missing report {exc.filename}: run `bench --all` first") from exc
    (out_dir / "summary.md").write_text(table + "\n", encoding="utf-8")
    console.print(table)


LocomoOption = Annotated[
    Path, typer.Option("--locomo", "--data", help="LoCoMo JSON file (list of conversations)")
]
MADIAL_HELP = (
    "MADial-Bench zh: the evaluation's JSON file, or the benchmark's data/ch folder "
    "(or either of its memory and dialogue files)"
)
MadialOption = Annotated[Path, typer.Option("--madial", help=MADIAL_HELP)]
OutOption = Annotated[
    Path | None, typer.Option(help="write the report here (.json; a .md table beside it)")
]
LimitOption = Annotated[int | None, typer.Option(help="only the first N LoCoMo conversations")]


class _Sourced(Protocol):
    def get_parameter_source(self, name: str) -> Any: ...


def _on_command_line(ctx: _Sourced, name: str) -> bool:
    """Whether the user wrote this option (not its default or an environment variable).
    Compared by name: typer ships its own copy of click's ``ParameterSource``."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _with_group_options(ctx: typer.Context, renamed: dict[str, str]) -> dict[str, Any]:
    """The subcommand's parameters, with the options written before it (``eval --madial
    user2.json madial``) counted as if written after it (``renamed`` maps the group's
    name of an option to the subcommand's). One the subcommand does not take is an error:
    ignoring it would measure the default file instead of the one named."""
    values = dict(ctx.params)
    group = ctx.parent
    if group is None:
        return values
    for name, value in group.params.items():
        if not _on_command_line(group, name):
            continue
        flag = "--" + name.replace("_", "-")
        own = renamed.get(name, name)
        if own not in values:
            raise fail(f"{flag} does not apply to `eval {ctx.info_name}`")
        if _on_command_line(ctx, own) and values[own] != value:
            raise fail(f"{flag} is given twice, before and after `{ctx.info_name}`")
        values[own] = value
    return values


def _run_retrieval_eval(
    locomo: Path | None,
    madial: Path | None,
    out: Path | None,
    limit: int | None,
    backend: str,
    workdir: Path | None,
) -> None:
    from ..bench.retrieval_eval import markdown, run_eval

    _check_backend(backend)
    for label, path in (("LoCoMo", locomo), ("MADial", madial)):
        if path is not None:
            _check_data(label, path)
    with user_errors(), _workdir(workdir) as folder:
        try:
            report = run_eval(
                locomo, madial, folder, progress=err_console.print, backend=backend, limit=limit
            )
        except KeyError as exc:
            raise fail(f"evaluation failed: a record of the data lacks the field {exc}") from exc
        except ValueError as exc:
            raise fail(f"evaluation failed: {exc}") from exc
    table = markdown(report)
    console.print(table)
    if out is not None:
        write_report(out, report, table)


def eval_all(
    ctx: typer.Context,
    locomo: LocomoOption = DEFAULT_LOCOMO,
    madial: MadialOption = DEFAULT_MADIAL,
    out: OutOption = None,
    limit: LimitOption = None,
    backend: BackendOption = "sqlite",
    workdir: WorkdirOption = None,
) -> None:
    """Retrieval quality on LoCoMo dev (English) and MADial-Bench zh dev (Chinese).

    Recall@5/10 and MRR per category; same-run baselines (BM25 over words and over
    character bigrams, dense only); direct results per off-topic question; and recall
    after one pass of ordinary use. A subcommand runs one set alone.
    """
    if ctx.invoked_subcommand is not None:
        return
    _run_retrieval_eval(locomo, madial, out, limit, backend, workdir)


def eval_locomo(
    ctx: typer.Context,
    data: LocomoOption = DEFAULT_LOCOMO,
    out: OutOption = None,
    limit: LimitOption = None,
    backend: BackendOption = "sqlite",
    workdir: WorkdirOption = None,
) -> None:
    """LoCoMo dev alone (English): recall per question category, baselines, off-topic."""
    v = _with_group_options(ctx, {"locomo": "data"})
    _run_retrieval_eval(v["data"], None, v["out"], v["limit"], v["backend"], v["workdir"])


def eval_madial(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option("--data", "--madial", help=MADIAL_HELP)] = DEFAULT_MADIAL,
    out: OutOption = None,
    backend: BackendOption = "sqlite",
    workdir: WorkdirOption = None,
) -> None:
    """MADial-Bench zh dev alone (Chinese): recall@10 over dialogues, baselines."""
    v = _with_group_options(ctx, {"madial": "data"})
    _run_retrieval_eval(None, v["data"], v["out"], None, v["backend"], v["workdir"])


def eval_embedders(
    ctx: typer.Context,
    locomo: LocomoOption = DEFAULT_LOCOMO,
    madial: MadialOption = DEFAULT_MADIAL,
    out: OutOption = None,
    workdir: WorkdirOption = None,
    cost_texts: Annotated[
        int,
        typer.Option(min=1, help="passages embedded to measure throughput and peak RSS"),
    ] = 1000,
) -> None:
    """Compare the installable embedders: retrieval quality on both dev sets, load time,
    peak RSS, throughput and query latency (each measured in a fresh process)."""
    from ..bench.embedders import markdown, run_embedder_comparison

    v = _with_group_options(ctx, {})
    locomo, madial, out, workdir = v["locomo"], v["madial"], v["out"], v["workdir"]

    for label, path in (("LoCoMo", locomo), ("MADial", madial)):
        _check_data(label, path)
    with user_errors(), _workdir(workdir) as folder:
        report = run_embedder_comparison(
            locomo, madial, folder, progress=err_console.print, cost_texts=cost_texts
        )
    table = markdown(report)
    console.print(table)
    if out is not None:
        write_report(out, report, table)


def eval_merge(
    ctx: typer.Context,
    out: Annotated[
        Path | None, typer.Option(help="write the report here (.json; a .md table beside it)")
    ] = None,
    workdir: WorkdirOption = None,
) -> None:
    """Node-dedup precision, recall and accuracy on the labelled zh/en pairs."""
    from ..bench.merge import markdown, run_merge_eval_in

    v = _with_group_options(ctx, {})
    out, workdir = v["out"], v["workdir"]

    with user_errors(), _workdir(workdir) as folder:
        report = run_merge_eval_in(folder, progress=err_console.print)
    table = markdown(report)
    console.print(table)
    if out is not None:
        write_report(out, report, table)
