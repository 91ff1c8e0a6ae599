"""Latency benchmarks on the embedded store: the write fast path and search by depth.

Every figure is a median and p95 over repeated calls, next to a baseline measured in the
same run (vector-only search: embed the query, nearest memories, nothing else).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from ..config import Settings, load_settings
from ..consolidation import ConsolidationReport
from ..models import VectorKind
from ..platform import MemoryPlatform
from .metrics import latency_summary, machine_description
from .workload import QUERIES, populate, populate_tenants, populate_turns

__all__ = ["SCALES", "compared_rows", "run_latency", "run_latency_compared"]

SCALES = {"tiny": 100, "1k": 1_000, "10k": 10_000, "100k": 100_000}
"""Memories of the measured user; ``tiny`` is the smoke run of the test suite."""
TENANTS = {"tiny": 5, "1k": 50, "10k": 200, "100k": 1_000}
"""Other users in the store at each scale; together they hold as many memories again."""

CHAT_USER = "bench-chat"
"""A user with as many turns of chat as the measured user has memories, and no memories."""

_SEARCHABLE_PROBES = 20
_SEARCH_ROUNDS = 3


def _disk_bytes(path: Path) -> int:
    """The store's size with its write-ahead log folded in."""
    from ..store.sqlite_driver import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def run_latency(
    scale: str,
    workdir: Path,
    progress: Callable[[str], None] = lambda _m: None,
    backend: str = "sqlite",
) -> dict[str, Any]:
    """Populate a store of the given scale and measure writes, searches, ingest,
    consolidation, and a fresh process's cold start and peak memory."""
    count = SCALES[scale]
    path = workdir / f"bench-{scale}.db"
    for old in workdir.glob(path.name + "*"):
        old.unlink()
    if backend == "neo4j":
        settings = load_settings(backend="neo4j")  # MEMORY_NEO4J_URI and credentials
    else:
        settings = Settings(backend="sqlite", sqlite_path=path, _env_file=None)
    report: dict[str, Any] = {
        "scale": scale,
        "backend": backend,
        "memories": count,
        "machine": machine_description(),
    }
    with MemoryPlatform(settings) as mp:
        mp.embedder.embed(["warm up"])
        started = time.perf_counter()
        work = populate(
            mp.store, mp.embedder, count, progress=lambda n: progress(f"populated {n}/{count}")
        )
        seconds = time.perf_counter() - started
        tenants = populate_tenants(
            mp.store,
            mp.embedder,
            users=TENANTS[scale],
            memories=count,
            progress=lambda n: progress(f"other users: {n}/{count} memories"),
        )
        seconds = time.perf_counter() - started
        total = count + tenants.memories
        report["store"] = {
            "users": 2 + len(tenants.sizes),
            "memories": total,
            "measured_user_memories": count,
            "median_other_user_memories": tenants.sizes[tenants.median_user()],
        }
        report["populate"] = {
            "seconds": round(seconds, 2),
            "memories_per_second": round(total / seconds, 1),
            "links": work.links + tenants.links,
        }
        if backend == "sqlite":
            report["populate"]["bytes_on_disk_per_memory"] = round(_disk_bytes(path) / total)
        # written after the memories are measured on disk: the bytes are per memory
        report["store"]["chat_user_turns"] = populate_turns(
            mp.store,
            mp.embedder,
            count,
            progress=lambda n: progress(f"a chatty user's turns: {n}/{count}"),
        )
        user = work.user_id
        mp.warm_up()  # as a server does before it reports ready
        report["create_memory"] = _bench_create(mp, user, calls=40 if scale == "tiny" else 200)
        progress(f"create_memory p95 {report['create_memory']['call']['p95_ms']} ms")
        report["search"] = _bench_search(mp, user)
        report["search_typical_user"] = _bench_typical_user(mp, tenants.median_user())
        report["search_chat_user"] = _bench_chat_user(mp, CHAT_USER)
        progress(
            f"a chatty user's search p95 {report['search_chat_user']['recorded']['p95_ms']} ms"
        )
        progress("search measured")
        report["ingest_episodes"] = _bench_ingest(mp, episodes=200 if scale == "tiny" else 2000)
        progress(f"ingest {report['ingest_episodes']['episodes_per_second']} episodes/s")
        report["consolidation"] = _bench_consolidation(mp, memories=50 if scale == "tiny" else 500)
        progress(f"consolidation {report['consolidation']['memories_per_second']} memories/s")
    if backend == "sqlite":
        report["fresh_process"] = _bench_fresh_process(path, user)
        report["fresh_process_chat_user"] = _bench_fresh_process(path, CHAT_USER)
        progress(f"cold start {report['fresh_process']['cold_start_seconds']} s")
    return report


def _bench_ingest(mp: MemoryPlatform, episodes: int) -> dict[str, Any]:
    """Bulk add_episodes, until every episode is embedded and searchable."""
    items = [
        {
            "text": f"Turn {i}: {QUERIES[i % len(QUERIES)]} — and something about day {i}",
            "timestamp": datetime(2024, 6, 1, tzinfo=UTC) + timedelta(seconds=30 * i),
            "session_id": f"session-{i // 40}",
            "speaker": "Ann" if i % 2 else "Bob",
        }
        for i in range(episodes)
    ]
    started = time.perf_counter()
    for start in range(0, episodes, 500):
        mp.add_episodes("bench-ingest", items[start : start + 500])
    stored = time.perf_counter() - started
    mp.wait_for_indexing("bench-ingest", timeout=3600)
    searchable = time.perf_counter() - started
    return {
        "episodes": episodes,
        "stored_per_second": round(episodes / stored, 1),
        "episodes_per_second": round(episodes / searchable, 1),
    }


def _bench_consolidation(mp: MemoryPlatform, memories: int) -> dict[str, Any]:
    """Consolidate a fresh user's staged memories (merging, discovery, conflicts)."""
    work = populate(mp.store, mp.embedder, memories, user_id="bench-consolidation", seed=11)
    started = time.perf_counter()
    result = ConsolidationReport.model_validate(mp.consolidate(work.user_id))
    seconds = time.perf_counter() - started
    return {
        "memories": result.memories,
        "seconds": round(seconds, 2),
        "memories_per_second": round(result.memories / seconds, 1),
        "nodes_merged": result.nodes_merged,
        "related_links": result.related_links,
        "conflicts": result.conflicts,
    }


_FRESH = """
import json, sys, time
started = time.perf_counter()
from memory_platform import MemoryPlatform, Settings
mp = MemoryPlatform(Settings(sqlite_path=sys.argv[1], _env_file=None))
mp.search(sys.argv[2], "what did I buy at the supermarket", record_access=False)
cold = time.perf_counter() - started
for query in json.loads(sys.argv[3]):
    mp.search(sys.argv[2], query, expand_depth=2, mode="deep", record_access=False)
mp.close()
from memory_platform.bench.metrics import peak_rss_mb
print(json.dumps({"cold": cold, "rss_mb": peak_rss_mb()}))
"""


def _bench_fresh_process(path: Path, user: str) -> dict[str, Any]:
    """A new process: time to open the store and answer a first search (model load
    included), and its peak resident memory after searching every kind of vector."""
    out = subprocess.run(
        [sys.executable, "-c", _FRESH, str(path), user, json.dumps(QUERIES)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    values = json.loads(out.strip().splitlines()[-1])
    return {
        "cold_start_seconds": round(values["cold"], 2),
        "peak_rss_mb": round(values["rss_mb"], 1),
    }


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


def _store_work(done: Counter[str], searches: int) -> dict[str, Any]:
    """What the store did during ``searches`` searches: which path served the vector
    searches (native index, native index filtering by user inside it, or exact per-user
    scan) and, on a server backend, round trips
    per search."""
    work: dict[str, Any] = {
        "vector_searches": {
            "native_index": done["vector_index"],
            "native_index_filtered": done["vector_filtered"],
            "exact_scan": done["vector_exact"],
        }
    }
    if done["statements"]:
        work["round_trips_per_search"] = round(done["statements"] / max(searches, 1), 1)
    return work


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
        before = Counter(mp.store.counters)
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
        summary.update(_store_work(Counter(mp.store.counters) - before, len(samples)))
        out[f"depth_{depth}"] = summary
    return out


def _bench_typical_user(mp: MemoryPlatform, user: str) -> dict[str, Any]:
    """Depth-1 search for a user of median size in the same store, and a check that no
    result belongs to anyone else."""
    samples: list[float] = []
    foreign = 0
    before = Counter(mp.store.counters)
    for _ in range(_SEARCH_ROUNDS):
        for query in QUERIES:
            mp.clear_query_cache()
            started = time.perf_counter()
            results = mp.search(user, query, expand_depth=1, mode="deep", record_access=False)
            samples.append((time.perf_counter() - started) * 1000.0)
            ids = [r.id for r in results if r.kind == "memory"]
            foreign += len(ids) - len(mp.store.get_memories(user, ids))
    depth_1 = latency_summary(samples)
    depth_1.update(_store_work(Counter(mp.store.counters) - before, len(samples)))
    return {"depth_1": depth_1, "results_of_other_users": foreign}


def _bench_chat_user(mp: MemoryPlatform, user: str) -> dict[str, Any]:
    """A chatty user's searches as an agent makes them: every default, so each records
    the access of what it returned (in the background); beside each, the same search with
    no recording, and the time the recording took once the search had answered."""
    recorded: list[float] = []
    recording: list[float] = []
    unrecorded: list[float] = []
    direct_turns = 0
    for _ in range(_SEARCH_ROUNDS):
        for query in QUERIES:
            mp.clear_query_cache()
            started = time.perf_counter()
            results = mp.search(user, query)
            answered = time.perf_counter()
            mp.wait_for_access()
            recording.append((time.perf_counter() - answered) * 1000.0)
            recorded.append((answered - started) * 1000.0)
            direct_turns += sum(r.layer == "direct" and r.kind == "episode" for r in results)
            mp.clear_query_cache()
            started = time.perf_counter()
            mp.search(user, query, record_access=False)
            unrecorded.append((time.perf_counter() - started) * 1000.0)
    return {
        "recorded": latency_summary(recorded),
        "access_recording": latency_summary(recording),
        "unrecorded": latency_summary(unrecorded),
        "direct_turns_per_search": round(direct_turns / len(recorded), 2),
    }


def run_latency_compared(
    scale: str,
    workdir: Path,
    progress: Callable[[str], None] = lambda _m: None,
    backend: str = "sqlite",
) -> dict[str, Any]:
    """:func:`run_latency` on ``backend``; on Neo4j also the same workload on the embedded
    store in the same run (under ``sqlite_same_run``), so the two are read side by side on
    the same machine and load."""
    report = run_latency(scale, workdir, progress, backend=backend)
    if backend != "sqlite":
        progress("the same workload on the embedded store, for comparison")
        report["sqlite_same_run"] = run_latency(scale, workdir, progress, backend="sqlite")
    return report


def compared_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows a report's table shows: the embedded store's first when it ran beside."""
    baseline = report.get("sqlite_same_run")
    return [baseline, report] if baseline is not None else [report]


def _pair(d: dict[str, Any]) -> str:
    """A latency summary's median and p95, as the tables show them."""
    return f"{d['median_ms']:.1f} / {d['p95_ms']:.1f}"


def markdown(reports: list[dict[str, Any]]) -> str:
    """A table of one or more latency reports."""
    lines = [
        "| scale (measured user), backend | store: users / memories | populate (memories/s) | bytes/memory "
        "| create_memory p50 / p95 ms | until searchable p50 / p95 ms "
        "| vector-only p50 / p95 ms | search d0 p50 / p95 | d1 p50 / p95 | d2 p50 / p95 "
        "| typical user d1 p50 / p95 | add_episodes (episodes/s, embedded) "
        "| consolidation (memories/s) | cold start s | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        s = r["search"]
        store = r.get("store", {"users": 1, "memories": r["memories"]})
        typical = r.get("search_typical_user", {}).get("depth_1")
        lines.append(
            f"| {r['scale']}, {r.get('backend', 'sqlite')} | {store['users']} / {store['memories']} "
            f"| {r['populate']['memories_per_second']:.0f} | {r['populate'].get('bytes_on_disk_per_memory', '–')} "
            f"| {_pair(r['create_memory']['call'])} | {_pair(r['create_memory']['until_vector_searchable'])} "
            f"| {_pair(s['vector_only_baseline'])} | {_pair(s['depth_0'])} | {_pair(s['depth_1'])} | {_pair(s['depth_2'])} "
            f"| {_pair(typical) if typical else '–'} | {r['ingest_episodes']['episodes_per_second']:.0f} | {r['consolidation']['memories_per_second']:.0f} "
            f"| {r.get('fresh_process', {}).get('cold_start_seconds', '–')} | {r.get('fresh_process', {}).get('peak_rss_mb', '–')} |"
        )
    chatty = [r for r in reports if "search_chat_user" in r]
    if chatty:
        lines += [
            "",
            "| scale, backend | a chatty user: turns | search, defaults (access recorded) "
            "p50 / p95 ms | the same, not recorded | recording, after the answer "
            "| direct turns per search | cold start s |",
            "|---|---|---|---|---|---|---|",
        ]
    for r in chatty:
        c = r["search_chat_user"]
        lines.append(
            f"| {r['scale']}, {r.get('backend', 'sqlite')} "
            f"| {r['store']['chat_user_turns']} | {_pair(c['recorded'])} "
            f"| {_pair(c['unrecorded'])} | {_pair(c['access_recording'])} "
            f"| {c['direct_turns_per_search']} "
            f"| {r.get('fresh_process_chat_user', {}).get('cold_start_seconds', '–')} |"
        )
    lines += [
        "",
        "| scale, backend | vector searches at depth 2, measured user: native index "
        "/ filtered in the index / exact scan | typical user (depth 1) "
        "| round trips per search d0 / d1 / d2 |",
        "|---|---|---|---|",
    ]
    for r in reports:
        s = r["search"]
        typical = r.get("search_typical_user", {}).get("depth_1", {})

        def paths(d: dict[str, Any]) -> str:
            v = d.get("vector_searches")
            if not v:
                return "–"
            return f"{v['native_index']} / {v.get('native_index_filtered', 0)} / {v['exact_scan']}"

        trips = " / ".join(
            str(s[f"depth_{d}"].get("round_trips_per_search", "–")) for d in (0, 1, 2)
        )
        lines.append(
            f"| {r['scale']}, {r.get('backend', 'sqlite')} | {paths(s['depth_2'])} "
            f"| {paths(typical)} | {trips} |"
        )
    return "\n".join(lines)
