"""Microbenchmark: a LangGraph store namespace listed without a query (``store.search(ns)``,
newest first), with and without a ``filter=``, as it grows from 100 to 10,000 items.

A listing returns ``limit`` items (LangGraph's default 10) of a namespace that may hold
thousands: what it costs should follow the page asked for, not the namespace. The items
are put with ``index=False`` (nothing to embed; a listing reads no vector). Median of 7
listings after one to warm up. ::

    .venv/bin/python benchmarks/micro/namespace_pages.py  # about a minute

Writes a Markdown table (default ``benchmarks/results/namespace_pages.md``).
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from langgraph.store.base import PutOp
from report import Report, out_path
from timing import milliseconds

from memory_platform import MemoryPlatform, Settings
from memory_platform.integrations.langgraph_store import MemoryPlatformStore

RESULTS = Path(__file__).resolve().parent.parent / "results" / "namespace_pages.md"
SIZES = (100, 1_000, 10_000)
NAMESPACE = ("alice", "notes")


def _median_ms(call: Callable[[], object]) -> float:
    return statistics.median(milliseconds(call, 8)[1:])  # the first one warms up


def main() -> None:
    out = out_path(__doc__ or "", RESULTS)
    table = Report(
        "A LangGraph store namespace listed without a query, 10 items a page "
        "(`benchmarks/micro/namespace_pages.py`): median ms of 7 listings.",
        ["items in the namespace", "first page", "page 10 (offset 90)", "first page, filtered"],
    )
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(sqlite_path=Path(tmp) / "pages.db", _env_file=None)
        with MemoryPlatform(settings) as mp:
            store = MemoryPlatformStore(mp)
            stored = 0
            for size in SIZES:
                store.batch(
                    [
                        PutOp(
                            NAMESPACE,
                            f"k{i}",
                            {"text": f"note {i}", "kind": "ab"[i % 2]},
                            index=False,
                        )
                        for i in range(stored, size)
                    ]
                )
                stored = size
                assert len(store.search(NAMESPACE, limit=10)) == 10
                table.add(
                    size,
                    f"{_median_ms(lambda: store.search(NAMESPACE, limit=10)):.1f}",
                    f"{_median_ms(lambda: store.search(NAMESPACE, limit=10, offset=90)):.1f}",
                    f"{_median_ms(lambda: store.search(NAMESPACE, filter={'kind': 'a'})):.1f}",
                )
    table.write(out)
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()
