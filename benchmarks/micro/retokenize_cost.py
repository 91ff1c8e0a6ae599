"""Microbenchmark: ``retokenize`` (the lexical index rebuilt after a tokenizer change)
against writing the same turns, in the same run.

The dev sets' turns (LoCoMo dev and MADial zh dev, English and Chinese), copied under
new users until the store holds ``--documents`` lexical documents; each copy's texts
carry its number, so no tokenization is served from a cache. Writing is timed turn batch
by turn batch (what ingesting costs the lexical index and the rest); then the whole
index is tokenized again, three times.

    .venv/bin/python benchmarks/micro/retokenize_cost.py [--documents 100000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from scratch import scratch_store

from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.bench.metrics import machine_description
from memory_platform.models import Episode
from memory_platform.textutil import clear_text_caches

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
RESULT = Path(__file__).resolve().parents[1] / "results" / "retokenize_cost.md"


def _turns() -> dict[str, list[dict[str, Any]]]:
    users: dict[str, list[dict[str, Any]]] = {}
    for data in (load_locomo(DATA / "locomo_dev.json"), load_madial(DATA / "madial_zh_dev.json")):
        users.update(data.episodes)
    return users


def _episode(user: str, turn: dict[str, Any], copy: int) -> Episode:
    return Episode(
        user_id=user,
        session_id=turn.get("session_id"),
        speaker=turn.get("speaker"),
        text=f"{turn['text']} ({copy})",
        timestamp=turn["timestamp"],  # a datetime or ISO text: the model reads both
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--write", action="store_true", help=f"write {RESULT.name}")
    args = parser.parse_args()
    users = _turns()
    per_copy = sum(len(turns) for turns in users.values())
    with scratch_store() as store:
        written, copy, write_s = 0, 0, 0.0
        while written < args.documents:
            for user, turns in users.items():
                batch = [_episode(f"{user}-{copy}", t, copy) for t in turns]
                started = time.perf_counter()
                store.add_episodes(batch)
                write_s += time.perf_counter() - started
                written += len(batch)
            copy += 1
        documents = store.lexical_document_count()
        runs = []
        for _ in range(3):
            clear_text_caches()
            started = time.perf_counter()
            rewritten = store.retokenize()
            runs.append(time.perf_counter() - started)
            assert rewritten == documents
    retokenize_s = statistics.median(runs)
    machine = machine_description()
    where = f"{machine['cpu']}, {machine['cpus']} CPUs, Python {machine['python']}"
    lines = [
        "# Rebuilding the lexical index (`memory-platform retokenize`)",
        "",
        f"Measured {datetime.now():%Y-%m-%d} with `benchmarks/micro/retokenize_cost.py"
        f" --documents {args.documents}` on {where}.",
        "",
        f"{documents:,} turns ({copy} copies of the {per_copy:,} dev turns, LoCoMo and"
        " MADial zh, each copy's texts numbered so no tokenization comes from a cache) in"
        " one embedded store; vectors are not made (neither step needs them).",
        "",
        "| step | seconds | turns per second |",
        "|---|---|---|",
        f"| writing the turns (`add_episodes`, baseline) | {write_s:.1f} |"
        f" {documents / write_s:,.0f} |",
        f"| `retokenize`, median of 3 | {retokenize_s:.1f} | {documents / retokenize_s:,.0f} |",
        "",
        f"Runs: {', '.join(f'{r:.1f}' for r in runs)} s. Ratio to writing:"
        f" {retokenize_s / write_s:.2f}.",
    ]
    print("\n".join(lines))
    if args.write:
        RESULT.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
