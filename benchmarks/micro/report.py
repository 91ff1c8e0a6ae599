"""The Markdown report the micro benchmarks write: a paragraph, then a table whose rows
are printed as they are measured (a long run shows its progress)."""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

MADIAL_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "madial_zh_dev.json"
"""MADial-Bench's dev user (``../shared/data``)."""


def madial_and_out(doc: str, default: Path) -> tuple[dict[str, Any], Path]:
    """The MADial file a benchmark reads (``--madial FILE``, MADial's dev user unless
    given), parsed, and where it writes its report (``--out FILE``, or ``default``);
    ``doc`` is the script's docstring, whose first line is its help."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--madial", type=Path, default=MADIAL_DEV)
    parser.add_argument("--out", type=Path, default=default)
    args = parser.parse_args()
    madial: dict[str, Any] = json.loads(args.madial.read_text(encoding="utf-8"))
    return madial, args.out


def madial_recall(madial: dict[str, Any]) -> float:
    """Recall@10 of the one user of a MADial file (its ``memories`` and ``dialogues``),
    measured as ``memory-platform eval madial`` measures the dev set, in a store of its
    own."""
    from memory_platform.bench.retrieval_eval import run_eval

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "madial.json"
        data.write_text(json.dumps(madial, ensure_ascii=False), encoding="utf-8")
        report = run_eval(None, data, Path(tmp), platform_only=True)
    (figures,) = report["sets"].values()
    (user,) = figures["per_user"].values()
    recall: float = user["recall@10"]
    return recall


def madial_rewrites(
    doc: str,
    default: Path,
    intro: str,
    what: str,
    rewrites: Mapping[str, Callable[[dict[str, Any]], dict[str, Any]]],
) -> None:
    """Recall@10 of the MADial user (:func:`madial_and_out`) rewritten each way of
    ``rewrites`` (a label, and the file so rewritten), a row each under ``what``,
    reported after ``intro``."""
    madial, out = madial_and_out(doc, default)
    table = Report(intro, [what, "recall@10"])
    for label, rewrite in rewrites.items():
        table.add(label, f"{madial_recall(rewrite(madial)):.3f}")
    table.write(out)


def out_path(doc: str, default: Path) -> Path:
    """Where the command line asks a benchmark to write its report (``--out FILE``), or
    ``default``; ``doc`` is the script's docstring, whose first line is its help."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=default)
    out: Path = parser.parse_args().out
    return out


class Report:
    """A paragraph and a table of ``columns``, filled a row at a time."""

    def __init__(self, intro: str, columns: Sequence[str]) -> None:
        self.intro = intro
        self.columns = list(columns)
        self.rows: list[str] = []

    def add(self, *cells: object) -> None:
        """Add a row (one cell a column) and print it."""
        row = "| " + " | ".join(str(cell) for cell in cells) + " |"
        print(row, flush=True)
        self.rows.append(row)

    def add_tally(self, label: str, count: int, unexpected: Sequence[str]) -> None:
        """Add a row of ``count`` cases: how many came out as expected, and those that
        did not."""
        self.add(label, count, count - len(unexpected), ", ".join(unexpected))

    def write(self, path: Path) -> None:
        """Write the paragraph, then the table, to ``path``."""
        header = ["| " + " | ".join(self.columns) + " |", "|" + "---|" * len(self.columns)]
        path.write_text("\n".join([self.intro, "", *header, *self.rows, ""]), encoding="utf-8")
