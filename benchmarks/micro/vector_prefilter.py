"""The prefilter of big vector matrices (``store/vector_prefilter.py``): how many rows its
bound keeps on real sentence vectors, and what it saves at 100,000 memories.

1. **Real sentences.** LoCoMo dev's turns and observations, embedded with the default
   embedder, are one matrix; its first 300 questions are the queries. For projections
   keeping one dimension in 8, 4, 3 and 2: the share of rows whose bound reaches the
   50th best score (what a search then scores in full; 50 is ``vector_candidates``), and a
   check that the 50 best found are the exact 50 best.
2. **100,000 memories.** The latency benchmark's measured user (``memory-platform bench
   --scale 100k`` leaves its store in ``--workdir``; pass it with ``--store``, or this
   populates one, about 5 minutes): a memory vector search and a whole search at depth 2
   (``mp.search``, its query embedded each time), with the prefilter and with the full
   scan in the same process, in alternating rounds. Medians and p95 in milliseconds.
   Then the first vector search of each kind (memories, topics, objects) after a
   deletion, rows marked dead against the matrices loaded afresh (this deletes six of
   the user's memories).
3. **A fresh process.** What a process that has just started gives: its first depth-2
   search (which loads the matrices and fits the prefilter) and the 30
   after it, with the prefilter and without (its size threshold set out of reach), in
   alternating processes, three of each.

    .venv/bin/python benchmarks/micro/vector_prefilter.py [--store bench-100k.db]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from timing import milliseconds

from memory_platform import MemoryPlatform
from memory_platform.bench.metrics import machine_description
from memory_platform.bench.workload import QUERIES, populate
from memory_platform.config import Settings
from memory_platform.embeddings import embed_queries
from memory_platform.models import VectorKind
from memory_platform.store import vector_cache
from memory_platform.store.vector_prefilter import Prefilter, PrefilterView

LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
OUT = Path(__file__).resolve().parents[1] / "results" / "vector_prefilter.md"
K = 50


def _locomo_texts() -> tuple[list[str], list[str]]:
    texts: list[str] = []
    questions: list[str] = []
    for sample in json.loads(LOCOMO.read_text(encoding="utf-8")):
        for key, turns in sample["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                texts += [turn["text"] for turn in turns]
        for observation in sample["observation"].values():
            for items in observation.values():
                texts += [item[0] if isinstance(item, list) else str(item) for item in items]
        questions += [qa["question"] for qa in sample["qa"]]
    return texts, questions[:300]


def _matmul(
    matrix: npt.NDArray[np.float32], vector: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    product: npt.NDArray[np.float32] = matrix @ vector
    return product


def _kept_on_sentences(mp: MemoryPlatform) -> list[str]:
    texts, questions = _locomo_texts()
    rows = np.vstack([mp.embedder.embed(texts[i : i + 256]) for i in range(0, len(texts), 256)])
    queries = embed_queries(mp.embedder, questions)
    dim = rows.shape[1]
    lines = [
        f"Real sentences: {len(rows)} LoCoMo turns and observations, {dim} dimensions, "
        f"{len(queries)} questions, k = {K}.",
        "",
        "| dimensions kept | share of rows scored in full: mean / p90 | full scans instead "
        "| exact top 50 |",
        "|---|---|---|---|",
    ]
    for share in (8, 4, 3, 2):
        view = Prefilter.fit(rows, dim // share).view()
        kept, exact, full = [], 0, 0
        for query in queries:
            kept.append(_kept_share(view, rows, query))
            found = view.candidates(rows, query, K, _matmul)
            if found is None:
                full += 1
                exact += 1
                continue
            positions, scores = found
            best = positions[np.argsort(-scores)[:K]]
            exact += int(set(best.tolist()) == set(np.argsort(-(rows @ query))[:K].tolist()))
        lines.append(
            f"| {dim // share} (1 in {share}) | {statistics.mean(kept):.3f} / "
            f"{np.quantile(kept, 0.9):.3f} | {full} of {len(queries)} | "
            f"{exact} of {len(queries)} |"
        )
        print(lines[-1], flush=True)
    return lines


def _kept_share(view: PrefilterView, rows: np.ndarray, query: np.ndarray) -> float:
    """The share of rows whose bound reaches tau, whether or not the view would then
    leave the search to the full scan."""
    reduced = query @ view.basis
    left_out = float(np.sqrt(max(0.0, float(query @ query - reduced @ reduced))))
    approximate = view.projected @ reduced
    best = np.argpartition(-approximate, 4 * K - 1)[: 4 * K]
    tau = np.sort(rows[best] @ query)[-K]
    return float(np.mean(approximate + view.residual * left_out >= tau - 1e-3))


def _at_scale(mp: MemoryPlatform, user: str) -> list[str]:
    store: Any = mp.store
    queries = list(QUERIES) + _locomo_texts()[1][:30]
    vectors = embed_queries(mp.embedder, queries)
    store.vector_search(user, VectorKind.MEMORY, vectors[0], k=K)  # loads it, fits its prefilter
    entry = store._cache._entries[(user, VectorKind.MEMORY.value)]
    fitted = entry.prefilter
    assert fitted is not None, "the matrix is below the prefilter's size"
    rounds: dict[str, dict[str, list[float]]] = {
        name: {"vector search": [], "search, depth 2": []} for name in ("prefilter", "full scan")
    }
    for _ in range(4):
        for name in ("full scan", "prefilter"):
            entry.prefilter = fitted if name == "prefilter" else None
            for vector in vectors:
                vector_search = partial(store.vector_search, user, VectorKind.MEMORY, vector, k=K)
                rounds[name]["vector search"] += milliseconds(vector_search, 1)
            for query in QUERIES:
                search = partial(
                    mp.search, user, query, expand_depth=2, mode="deep", record_access=False
                )
                rounds[name]["search, depth 2"] += milliseconds(
                    search, 1, before=mp.clear_query_cache
                )
    entry.prefilter = fitted
    rows = entry.dense(entry.rows.shape[1])
    kept = statistics.mean(_kept_share(fitted.view(), rows, vector) for vector in vectors)
    lines = [
        "",
        f"At scale: user {user!r}, {len(entry.ids)} memory vectors of {rows.shape[1]} "
        f"dimensions; the prefilter holds {fitted.nbytes / 2**20:.0f} MB beside the "
        f"matrix's {rows.nbytes / 2**20:.0f} MB and scores {kept:.4f} of the rows in full "
        "on average (the benchmark's memories are composed from a few hundred phrases: "
        "far fewer directions than real sentences, so its projection leaves out less).",
        "",
        "| call | full scan: median / p95 ms | prefilter: median / p95 ms |",
        "|---|---|---|",
    ]
    for call in ("vector search", "search, depth 2"):
        cells = []
        for name in ("full scan", "prefilter"):
            times = rounds[name][call]
            cells.append(f"{statistics.median(times):.1f} / {np.quantile(times, 0.95):.1f}")
        lines.append(f"| {call} | {cells[0]} | {cells[1]} |")
        print(lines[-1], flush=True)
    return lines + _after_deletions(mp, user, vectors[0])


def _after_deletions(mp: MemoryPlatform, user: str, vector: np.ndarray) -> list[str]:
    """The first vector search of each kind after one memory is deleted (with its topic
    and object nodes, which no other memory holds): the deleted rows marked dead (the
    shipped way), against each matrix loaded afresh at each deletion (the way before, with
    the memory matrix's prefilter carried over), three deletions each, alternating."""
    store: Any = mp.store
    kinds = (VectorKind.MEMORY, VectorKind.TOPIC, VectorKind.OBJECT)
    for kind in kinds:  # every matrix in memory before the first deletion
        store.vector_search(user, kind, vector, k=K)
    times: dict[str, dict[VectorKind, list[float]]] = {
        "loaded afresh": {kind: [] for kind in kinds},
        "rows marked dead": {kind: [] for kind in kinds},
    }
    for _ in range(3):
        for name, share in (("loaded afresh", 0.0), ("rows marked dead", 0.25)):
            vector_cache.REBUILD_WHEN_DEAD = share
            victim = store.vector_search(user, VectorKind.MEMORY, vector, k=K)[-1].ref_id
            store.delete_memory(user, victim)
            for kind in kinds:
                times[name][kind] += milliseconds(
                    partial(store.vector_search, user, kind, vector, k=K), 1
                )
    vector_cache.REBUILD_WHEN_DEAD = 0.25
    lines = [
        "",
        "The first vector search of each kind after a deletion (ms; this deletes six of the "
        "user's memories and their topic and object nodes):",
        "",
        "| | memory | topic | object |",
        "|---|---|---|---|",
    ]
    for name, of_kind in times.items():
        cells = " | ".join(", ".join(f"{t:.0f}" for t in of_kind[kind]) for kind in kinds)
        lines.append(f"| {name} | {cells} |")
        print(lines[-1], flush=True)
    return lines


_FRESH = """
import sys, time
from pathlib import Path
from memory_platform import MemoryPlatform
from memory_platform.bench.workload import QUERIES
from memory_platform.config import Settings
from memory_platform.store import vector_cache
if sys.argv[3] == "full scan":
    vector_cache.PREFILTER_FROM_BYTES = 1 << 62
settings = Settings(backend="sqlite", sqlite_path=Path(sys.argv[1]), _env_file=None)
with MemoryPlatform(settings) as mp:
    mp.warm_up()
    started = time.perf_counter()
    mp.search(sys.argv[2], "warm", expand_depth=2, mode="deep", record_access=False)
    print((time.perf_counter() - started) * 1000)
    for _ in range(3):
        for query in QUERIES:
            mp.clear_query_cache()
            started = time.perf_counter()
            mp.search(sys.argv[2], query, expand_depth=2, mode="deep", record_access=False)
            print((time.perf_counter() - started) * 1000)
"""


def _fresh_processes(path: Path, user: str) -> list[str]:
    runs: dict[str, list[list[float]]] = {"full scan": [], "prefilter": []}
    for _ in range(3):
        for name, processes in runs.items():
            out = subprocess.run(
                [sys.executable, "-c", _FRESH, str(path), user, name],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            processes.append([float(line) for line in out.split()])
    lines = [
        "",
        "A fresh process, three of each alternating: its first search, then the 30 after it.",
        "",
        "| | first search s | next 30: median / p95 ms, each process | mean of the first 15 ms |",
        "|---|---|---|---|",
    ]
    for name, processes in runs.items():
        first = ", ".join(f"{p[0] / 1000:.2f}" for p in processes)
        after = ", ".join(
            f"{statistics.median(p[1:]):.1f} / {np.quantile(p[1:], 0.95):.1f}" for p in processes
        )
        early = ", ".join(f"{statistics.mean(p[1:16]):.1f}" for p in processes)
        lines.append(f"| {name} | {first} | {after} | {early} |")
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="a store of `memory-platform bench`")
    parser.add_argument("--user", default="bench-user")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    path = args.store or Path(tempfile.mkdtemp()) / "prefilter.db"
    with MemoryPlatform(Settings(backend="sqlite", sqlite_path=path, _env_file=None)) as mp:
        lines = _kept_on_sentences(mp)
        if args.store is None:
            populate(mp.store, mp.embedder, 100_000, user_id=args.user)
        lines += _at_scale(mp, args.user)
    lines += _fresh_processes(path, args.user)
    machine = machine_description()
    where = f"{machine.get('cpu', machine['processor'])}, {machine['cpus']} CPUs"
    header = [__doc__.split("\n\n")[0], "", f"Measured {date.today()} on {where}.", ""]
    args.out.write_text("\n".join([*header, *lines, ""]), encoding="utf-8")


if __name__ == "__main__":
    main()
