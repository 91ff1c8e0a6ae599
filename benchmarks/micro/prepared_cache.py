"""Microbenchmark: a machine's first searches with an empty model cache and after
``memory-platform prepare``.

The first process of a machine unpacks the Universal Sentence Encoder's table and reads
the Chinese-English dictionary's tables (people, places and things, a glossary each way)
when a search first needs them; ``prepare`` (run by ``scripts/setup.sh`` and the image's
build) does it at install time. Each round empties a model cache, times a fresh process's
first search (a Chinese question) and its second (a question about the owner naming
people and places the memory never held), then fills the cache with ``prepare`` and
times the same two searches in another fresh process. The processes open a small store
of four notes: what is timed is start-up and first use, not the store. ::

    .venv/bin/python benchmarks/micro/prepared_cache.py [--out FILE]

Writes a Markdown table (default ``benchmarks/results/prepared_cache.md``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report import Report, out_path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "prepared_cache.md"
ROUNDS = 3
QUESTIONS = ("我为什么今天不开心?", "What did I tell Noah about Dallas?")
"""The first search (Chinese) and the second (the owner, with names the memory lacks)."""
NOTES = ("我今天很开心", "小明喜欢踢足球", "I bought milk at the supermarket", "昨晚失眠了")

_SEARCHES = """
import json, sys, time
started = time.perf_counter()
from memory_platform import MemoryPlatform, Settings
with MemoryPlatform(Settings(backend="sqlite", sqlite_path=sys.argv[1])) as mp:
    seconds = []
    for question in sys.argv[2:]:
        mp.search("u", question, record_access=False)
        seconds.append(time.perf_counter() - started)
        started = time.perf_counter()
print(json.dumps(seconds))
"""


def _environment(cache: Path) -> dict[str, str]:
    return {**os.environ, "MEMORY_MODEL_CACHE_DIR": str(cache)}


def _searches(store: Path, cache: Path) -> list[float]:
    """Seconds from a fresh process's start to its first answer, then to its second."""
    out = subprocess.run(
        [sys.executable, "-c", _SEARCHES, str(store), *QUESTIONS],
        env=_environment(cache),
        capture_output=True,
        text=True,
        check=True,
    )
    seconds: list[float] = json.loads(out.stdout.splitlines()[-1])
    return seconds


def _prepare(cache: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "memory_platform.cli", "prepare"],
        env=_environment(cache),
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    from memory_platform import MemoryPlatform, Settings

    table = Report(
        "A machine's first searches in a fresh process, model cache empty and after"
        " `memory-platform prepare` (`benchmarks/micro/prepared_cache.py`): seconds from"
        f" start to the first answer ({QUESTIONS[0]}), then to the second ({QUESTIONS[1]}).",
        ["round", "cache", "first search s", "second search s", "prepare s"],
    )
    with tempfile.TemporaryDirectory() as folder:
        store, cache = Path(folder) / "m.db", Path(folder) / "cache"
        with MemoryPlatform(Settings(backend="sqlite", sqlite_path=store)) as mp:
            mp.add_episodes("u", [{"text": note} for note in NOTES])
            mp.wait_for_indexing("u")
        for number in range(1, ROUNDS + 1):
            shutil.rmtree(cache, ignore_errors=True)
            first, second = _searches(store, cache)
            table.add(number, "empty", f"{first:.2f}", f"{second:.2f}", "")
            shutil.rmtree(cache, ignore_errors=True)
            took = _prepare(cache)
            first, second = _searches(store, cache)
            table.add(number, "prepared", f"{first:.2f}", f"{second:.2f}", f"{took:.2f}")
    table.write(out)


if __name__ == "__main__":
    main()
