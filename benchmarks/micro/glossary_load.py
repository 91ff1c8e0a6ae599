"""Microbenchmark: what a process pays for its first gloss of a question into the other
language (``retrieval/gloss.py``), each way, for the first names read from a Chinese
question (the table of the people CC-CEDICT names, read by every Chinese search), and for
the first name a question about the owner says that the memory never held (is it a place
or a person: the tables of people and of things, and the English glossary that writes the
name in Chinese), in the three states of the model cache.

- **cache off** (``MEMORY_MODEL_CACHE_DIR=""``): every process reads CC-CEDICT and holds
  the glossary in memory;
- **first on the machine**: the cache is empty, the process reads the dictionary, writes
  the glossary of that direction and maps it;
- **cached**: the process maps the glossary a first one wrote.

Each state runs in fresh processes that alternate, five rounds, so a slow minute of the
machine hits all. A process imports the platform and segments a sentence first (jieba's
dictionary loads with the first Chinese text any search reads), then times its first
gloss and the resident memory it added (``/proc/self/statm``, after glibc handed back
what it could). ::

    .venv/bin/python benchmarks/micro/glossary_load.py   # about a minute

Writes a Markdown table (default ``benchmarks/results/glossary_load.md``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from report import Report, out_path

RESULTS = Path(__file__).resolve().parents[1] / "results" / "glossary_load.md"
ROUNDS = 5
_RUN = """
import json, os, sys, time
from memory_platform.heap import release_freed_memory
from memory_platform.retrieval.chinese_names import chinese_names
from memory_platform.retrieval.gloss import chinese_gloss, english_gloss, names_no_person
from memory_platform.textutil import tagged_words

def resident_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

tagged_words("今天天气很好")  # jieba's dictionary, loaded by any Chinese search
before = resident_mb()
started = time.perf_counter()
if sys.argv[1] == "english":
    gloss = english_gloss("我对什么过敏？")
elif sys.argv[1] == "people":
    gloss = chinese_names("大卫是做什么工作的？")
elif sys.argv[1] == "things":
    gloss = names_no_person("Boston")
else:
    gloss = chinese_gloss("What am I allergic to?")
seconds = time.perf_counter() - started
release_freed_memory()
print(json.dumps({"ms": seconds * 1000, "mb": resident_mb() - before, "gloss": gloss}))
"""


def _first_gloss(cache: str, into: str) -> dict[str, float]:
    env = {**os.environ, "MEMORY_MODEL_CACHE_DIR": cache}
    done = subprocess.run(
        [sys.executable, "-c", _RUN, into], env=env, capture_output=True, text=True, check=True
    )
    measured: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


DIRECTIONS = {
    "english": "Chinese into English",
    "chinese": "English into Chinese",
    "people": "the names of a Chinese question (the people table)",
    "things": "a place or a person, in a question about the owner (people, things, English)",
}


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    states = ("cache off", "first on the machine", "cached")
    runs: dict[tuple[str, str], list[dict[str, float]]] = {
        (into, state): [] for into in DIRECTIONS for state in states
    }
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(ROUNDS):
            for into in DIRECTIONS:
                fresh = Path(tmp) / f"{into}-{round_}"  # an empty cache for the first process
                runs[into, "cache off"].append(_first_gloss("", into))
                runs[into, "first on the machine"].append(_first_gloss(str(fresh), into))
                runs[into, "cached"].append(_first_gloss(str(fresh), into))
    table = Report(
        "The first gloss of a question into the other language in a fresh process "
        f"(`benchmarks/micro/glossary_load.py`), {ROUNDS} alternating rounds: the time it "
        "took and the resident memory it added, median (range).",
        ["gloss", "model cache", "first gloss ms", "resident memory added, MB"],
    )
    for (into, state), measured in runs.items():
        ms = [r["ms"] for r in measured]
        mb = [r["mb"] for r in measured]
        table.add(
            DIRECTIONS[into],
            state,
            f"{statistics.median(ms):.0f} ({min(ms):.0f}-{max(ms):.0f})",
            f"{statistics.median(mb):.1f} ({min(mb):.1f}-{max(mb):.1f})",
        )
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()
