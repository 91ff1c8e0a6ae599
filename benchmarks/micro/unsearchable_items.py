"""Microbenchmark: what items kept out of search (``"searchable": false``, a LangGraph
``put(..., index=False)``) cost the items that are searched.

An agent often keeps, beside what it wants found, records it only reads back by key: the
raw text an extraction came from, a transcript, a profile kept whole. Those are marked
unsearchable. Here each stored turn of LoCoMo's first dev conversation and each note of
MADial's dev user gets ``copies`` such records holding its very text (no session, so
the conversation's turns keep their neighbours): the hardest case, as each record
matches every question its turn answers exactly as well as the turn does. Each way is
stored in a store of its own; the questions (categories 1-4 for LoCoMo) are searched
with ``mp.search`` and its defaults, access recording off. Reported: recall@10, the
texts embedded, and the seconds from ``add_episodes`` until everything is embedded. ::

    .venv/bin/python benchmarks/micro/unsearchable_items.py  # about 10 minutes on 2 cores (the code before this change)

Writes a Markdown table (default ``benchmarks/results/unsearchable_items.md``).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from report import MADIAL_DEV, Report, out_path

from memory_platform import MemoryPlatform
from memory_platform.bench.locomo import load_locomo
from memory_platform.bench.madial import load_madial
from memory_platform.bench.retrieval_eval import EvalSet
from memory_platform.config import load_settings

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "unsearchable_items.md"
LOCOMO_DEV = HERE.parents[2] / "shared" / "data" / "locomo_dev.json"
COPIES = (0, 2, 10)


def _records(turn: dict[str, Any], copies: int) -> list[dict[str, Any]]:
    """Unsearchable records holding a turn's text, with no session and no gold id."""
    return [
        {
            "text": turn["text"],
            **({"timestamp": turn["timestamp"]} if "timestamp" in turn else {}),
            "metadata": {"searchable": False, "record_of": turn["metadata"]["gold_id"]},
        }
        for _ in range(copies)
    ]


def measure(data: EvalSet, copies: int, workdir: Path) -> tuple[float, int, float]:
    """Recall@10 of ``data`` with ``copies`` unsearchable records per item, the texts
    embedded and the seconds until every item is embedded."""
    recalls = []
    settings = load_settings(backend="sqlite", sqlite_path=workdir / "m.db")
    with MemoryPlatform(settings) as mp:
        started = time.perf_counter()
        for user, turns in data.episodes.items():
            mp.add_episodes(user, turns + [r for t in turns for r in _records(t, copies)])
            mp.wait_for_indexing(user, timeout=3600)
        seconds = time.perf_counter() - started
        embedded = sum(mp.store.stats().vectors.values())
        for q in data.questions:
            if q.category in data.scored_categories:
                found = mp.search(q.user_id, q.question, record_access=False)
                top = [r.metadata.get("gold_id") for r in found][:10]
                recalls.append(len(q.gold.intersection(top)) / len(q.gold))
    return sum(recalls) / len(recalls), embedded, seconds


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    table = Report(
        "Items searched beside unsearchable records holding their very text "
        "(`benchmarks/micro/unsearchable_items.py`): recall@10 through `mp.search`, "
        "texts embedded, seconds until embedded.",
        ["set", "unsearchable records per item", "recall@10", "texts embedded", "seconds"],
    )
    sets = {
        "LoCoMo conv-26 (categories 1-4)": load_locomo(LOCOMO_DEV, limit=1),
        "MADial zh dev": load_madial(MADIAL_DEV),
    }
    for name, data in sets.items():
        for copies in COPIES:
            with tempfile.TemporaryDirectory() as tmp:
                recall, embedded, seconds = measure(data, copies, Path(tmp))
            table.add(name, copies, f"{recall:.3f}", embedded, f"{seconds:.1f}")
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()
