"""Latency benchmarks on the embedded store: the write fast path and search by depth.

Every figure is a median and p95 over repeated calls, next to a baseline measured in the
same run (vector-only search: embed the query, nearest memories, nothing else).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ..config import Settings
from ..models import VectorKind
from ..platform import MemoryPlatform
from .metrics import latency_summary, machine_description
from .workload import QUERIES, populate

__all__ = ["SCALES", "run_latency"]

SCALES = {"tiny": 100, "1k": 1_000, "10k": 10_000, "100k": 100_000}
"""Store sizes; ``tiny`` is the smoke run of the test suite."""

_SEARCHABLE_PROBES = 20
_SEARCH_ROUNDS = 3


def _disk_bytes(path: Path) -> int:
    """The store's size with its write-ahead log folded in."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def run_latency(
    scale: str, workdir: Path, progress: Callable[[str], None] = lambda _m: None
) -> dict[str, Any]:
    """Populate a store of the given scale and measure writes and searches."""
    count = SCALES[scale]
    path = workdir / f"bench-{scale}.db"
    for old in workdir.glob(path.name + "*"):
        old.unlink()
    settings = Settings(backend="sqlite", sqlite_path=path, _env_file=None)
    report: dict[str, Any] = {"scale": scale, "memories": count, "machine": machine_description()}
    with MemoryPlatform(settings) as mp:
        mp.embedder.embed(["warm up"])
        started = time.perf_counter()
        work = populate(
            mp.store, mp.embedder, count, progress=lambda n: progress(f"populated {n}/{count}")
        )
        seconds = time.perf_counter() - started
        report["populate"] = {
            "seconds": round(seconds, 2),
            "memories_per_second": round(count / seconds, 1),
            "links": work.links,
            "bytes_on_disk_per_memory": round(_disk_bytes(path) / count),
        }
        user = work.user_id
        report["create_memory"] = _bench_create(mp, user, calls=40 if scale == "tiny" else 200)
        progress(f"create_memory p95 {report['create_memory']['call']['p95_ms']} ms")
        report["search"] = _bench_search(mp, user)
        progress("search measured")
    return report


def _bench_create(mp: MemoryPlatform, user: str, calls: int) -> dict[str, Any]:
    latencies: list[float] = []
    searchable: list[float] = []
    for i in range(calls):
        arguments = json.dumps(
            {
                "subject": "我",
                "memory_type": "事件",
                "topic": f"基准测试{i}",
                "object": "延迟",
                "attributes": {"时间": "今天"},
                "importance": 0.5,
            },
            ensure_ascii=False,
        )
        started = time.perf_counter()
        result = mp.execute_tool(user, "create_memory", arguments)
        latencies.append((time.perf_counter() - started) * 1000.0)
        if not result["success"]:
            raise RuntimeError(result["error"])
        if i % max(1, calls // _SEARCHABLE_PROBES) == 0:
            memory_id = result["memory_id"]
            while not mp.store.get_vectors(user, VectorKind.MEMORY, [memory_id]):
                time.sleep(0.001)
            searchable.append((time.perf_counter() - started) * 1000.0)
        else:
            mp.wait_for_indexing(user)  # each call starts from an idle indexer
    return {
        "call": latency_summary(latencies),
        "until_vector_searchable": latency_summary(searchable),
    }


def _bench_search(mp: MemoryPlatform, user: str) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def baseline(query: str) -> None:
        vector = mp.embedder.embed([query])[0]
        mp.store.vector_search(user, VectorKind.MEMORY, vector, k=10)

    samples: list[float] = []
    for _ in range(_SEARCH_ROUNDS):
        for query in QUERIES:
            started = time.perf_counter()
            baseline(query)
            samples.append((time.perf_counter() - started) * 1000.0)
    out["vector_only_baseline"] = latency_summary(samples)
    for depth in (0, 1, 2):
        samples = []
        mode: Literal["fast", "deep"] = "deep" if depth else "fast"
        for _ in range(_SEARCH_ROUNDS):
            for query in QUERIES:
                mp.clear_query_cache()  # every call embeds its query
                started = time.perf_counter()
                mp.search(user, query, expand_depth=depth, mode=mode, record_access=False)
                samples.append((time.perf_counter() - started) * 1000.0)
        summary = latency_summary(samples)
        summary["p95_vs_baseline"] = round(
            summary["p95_ms"] / out["vector_only_baseline"]["p95_ms"], 2
        )
        out[f"depth_{depth}"] = summary
    return out


def markdown(reports: list[dict[str, Any]]) -> str:
    """A table of one or more latency reports."""
    lines = [
        "| scale | populate (memories/s) | bytes/memory | create_memory p50 / p95 ms | until searchable p50 / p95 ms "
        "| vector-only p50 / p95 ms | search d0 p50 / p95 | d1 p50 / p95 | d2 p50 / p95 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        s = r["search"]

        def pair(d: dict[str, Any]) -> str:
            return f"{d['median_ms']:.1f} / {d['p95_ms']:.1f}"

        lines.append(
            f"| {r['scale']} | {r['populate']['memories_per_second']:.0f} | {r['populate']['bytes_on_disk_per_memory']} "
            f"| {pair(r['create_memory']['call'])} | {pair(r['create_memory']['until_vector_searchable'])} "
            f"| {pair(s['vector_only_baseline'])} | {pair(s['depth_0'])} | {pair(s['depth_1'])} | {pair(s['depth_2'])} |"
        )
    return "\n".join(lines)
