"""What the micro benchmarks share: for those that compare this tree with an older
checkout, a script run in a fresh process on one tree's code and each tree's commit; for
those that measure the dev sets, the sets and the store of ``memory-platform eval``; and
the report every one of them writes."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.bench.metrics import machine_description
from memory_platform.bench.retrieval_eval import EvalSet

THIS_TREE = Path(__file__).resolve().parents[2]
DATA = THIS_TREE.parent / "shared" / "data"
"""The dev sets (``../shared/data``); only dev data is read."""


def dev_sets() -> list[EvalSet]:
    """LoCoMo dev and MADial-Bench zh dev, as ``memory-platform eval`` loads them."""
    return [load_locomo(DATA / "locomo_dev.json"), load_madial(DATA / "madial_zh_dev.json")]


def eval_store_parser(doc: str, out: Path) -> argparse.ArgumentParser:
    """The options of a script that measures the store ``memory-platform eval --workdir``
    left: ``--db`` and ``--out``; the script adds its own before parsing."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--db", type=Path, required=True, help="a store of `eval --workdir`")
    parser.add_argument("--out", type=Path, default=out)
    return parser


def comparison_parser(doc: str, out: Path, store: bool = True) -> argparse.ArgumentParser:
    """The options every comparison takes: ``--against`` (the older checkout), ``--out``
    and, with ``store``, ``--store`` (a store of ``memory-platform bench --scale``); the
    script adds its own before parsing."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    if store:
        parser.add_argument("--store", type=Path, required=True, help="a store of `bench --scale`")
    parser.add_argument("--against", type=Path, required=True, help="a checkout to compare")
    parser.add_argument("--out", type=Path, default=out)
    return parser


def trees(against: Path) -> dict[str, Path]:
    """The older checkout ("before") and this tree ("now")."""
    return {"before": against.resolve(), "now": THIS_TREE}


def commits(of: dict[str, Path]) -> dict[str, str]:
    """Each tree's commit, short."""
    return {
        name: subprocess.run(
            ["git", "-C", str(code), "rev-parse", "--short", "HEAD"],
            check=False,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for name, code in of.items()
    }


def run_on(code: Path, script: str, *args: str) -> Any:
    """``script`` run by a fresh Python on ``code``'s package (its tree first on the
    path, before the installed one), and the JSON of its last line of output."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        check=True,
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONPATH": str(code)},
        cwd=code,
    ).stdout
    return json.loads(out.splitlines()[-1])


def alternate(of: dict[str, Path], script: str, *args: str, times: int = 3) -> dict[str, list[Any]]:
    """``script`` run ``times`` on each tree's code, the trees taking turns (so a busy
    moment of the machine falls on both), each result printed as it comes."""
    runs: dict[str, list[Any]] = {name: [] for name in of}
    for _ in range(times):
        for name, code in of.items():
            runs[name].append(run_on(code, script, *args))
            print(name, runs[name][-1], flush=True)
    return runs


def write_report(out: Path, doc: str, what: str, lines: list[str]) -> None:
    """The report: the benchmark's docstring's first paragraph, the date, the machine and
    ``what`` was measured, then ``lines``; printed as well."""
    machine = machine_description()
    where = f"{machine.get('cpu', machine['processor'])}, {machine['cpus']} CPUs"
    header = [
        doc.split("\n\n", maxsplit=1)[0],
        "",
        f"Measured {date.today()} on {where}; {what}",
        "",
    ]
    out.write_text("\n".join([*header, *lines, ""]), encoding="utf-8")
    print("\n".join(lines))
