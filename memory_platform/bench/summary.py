"""The seed's §10 targets beside the measured values, built from the result files.

``memory-platform bench --all`` writes ``summary.md`` with this table; the README's
results table is the same text, and a test keeps the two identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LATENCY_FILE = "latency_{scale}.json"
RETRIEVAL_FILE = "retrieval_dev.json"
MERGE_FILE = "merge_quality.json"


def _ms(value: float) -> str:
    return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"


def _verdict(met: bool) -> str:
    return "met" if met else "**not met**"


def summary_table(
    main: dict[str, Any],
    locomo: dict[str, Any],
    merge: dict[str, Any],
    large: dict[str, Any] | None = None,
) -> str:
    """The targets table: ``main`` is the 10k-style latency report, ``large`` an optional
    bigger one shown beside it."""
    n = f"{main['memories']:,}"
    big = f"{large['memories']:,}" if large else ""
    create, search = main["create_memory"], main["search"]
    rss = main["fresh_process"]["peak_rss_mb"]
    cold = main["fresh_process"]["cold_start_seconds"]
    per_memory_kb = main["populate"]["bytes_on_disk_per_memory"] / 1000

    def also(path: list[str]) -> str:
        if not large:
            return ""
        value: Any = large
        for key in path:
            value = value[key]
        return f"; {big}: p95 {_ms(value)}"

    store = main.get("store", {})
    typical = main.get("search_typical_user", {})
    en = locomo["sets"]["locomo_dev"]
    blend = en["methods"]["platform"]
    bm25, vector = en["methods"]["bm25 (words)"], en["methods"]["dense"]
    zh = locomo["sets"].get("madial_zh_dev")
    d1_p95 = search["depth_1"]["p95_ms"]
    d2_p95 = search["depth_2"]["p95_ms"]
    rows = [
        (
            f"create one memory (`execute_tool`, {n} stored)",
            "< 500 ms",
            f"p50 {_ms(create['call']['median_ms'])}, p95 {_ms(create['call']['p95_ms'])}"
            f"{also(['create_memory', 'call', 'p95_ms'])} ({_verdict(create['call']['p95_ms'] < 500)})",
        ),
        (
            "time until a new memory is vector-searchable",
            "–",
            f"p50 {_ms(create['until_vector_searchable']['median_ms'])}, "
            f"p95 {_ms(create['until_vector_searchable']['p95_ms'])}",
        ),
        (
            "search, depth 1, query embedding included",
            "< 2 s",
            f"{n}: p95 {_ms(d1_p95)}{also(['search', 'depth_1', 'p95_ms'])} ({_verdict(d1_p95 < 2000)})",
        ),
        (
            "search, depth 2",
            "< 5 s",
            f"{n}: p95 {_ms(d2_p95)}{also(['search', 'depth_2', 'p95_ms'])}; vector-only "
            f"baseline p95 {_ms(search['vector_only_baseline']['p95_ms'])} ({_verdict(d2_p95 < 5000)})",
        ),
    ]
    if typical:
        rows.append(
            (
                f"search, depth 1, a typical user among {store['users']:,} "
                f"({store['memories']:,} memories in the store)",
                "–",
                f"p95 {_ms(typical['depth_1']['p95_ms'])}; "
                f"results of other users: {typical['results_of_other_users']}",
            )
        )
    chatty = main.get("search_chat_user")
    if chatty:
        rows.append(
            (
                f"search with every default (access recorded), a user with "
                f"{store['chat_user_turns']:,} turns of chat",
                "–",
                f"p95 {_ms(chatty['recorded']['p95_ms'])} (not recorded "
                f"{_ms(chatty['unrecorded']['p95_ms'])}); recording after the answer "
                f"p95 {_ms(chatty['access_recording']['p95_ms'])}",
            )
        )
    rows += [
        (
            "storage per memory",
            "< 10 KB",
            f"{per_memory_kb:.1f} KB ({_verdict(per_memory_kb < 10)})",
        ),
        (
            f"memory of a process serving {n} memories (peak RSS)",
            "< 500 MB",
            f"{rss:.0f} MB ({_verdict(rss < 500)})",
        ),
        (
            "start-up to the first answered search (model load included)",
            "< 5 s",
            f"{cold:.2f} s ({_verdict(cold < 5)})",
        ),
        (
            "bulk ingest, `add_episodes` until embedded",
            "–",
            f"{main['ingest_episodes']['episodes_per_second']:.0f} episodes/s",
        ),
        (
            "consolidation",
            "–",
            f"{main['consolidation']['memories_per_second']:.0f} memories/s",
        ),
        (
            "LoCoMo dev, recall@10 over categories 1–4",
            "–",
            f"{blend['all']['recall@10']:.3f} (BM25 alone {bm25['all']['recall@10']:.3f}, "
            f"dense alone {vector['all']['recall@10']:.3f}); off-topic "
            f"{en['off_topic']['direct_per_query']:.2f} direct results per question",
        ),
        (
            "LoCoMo multi-hop questions (category 1), recall@10",
            "–",
            f"{blend['1']['recall@10']:.3f} (BM25 {bm25['1']['recall@10']:.3f}, "
            f"dense {vector['1']['recall@10']:.3f})",
        ),
        *(
            [
                (
                    "MADial-Bench zh dev, recall@10",
                    "–",
                    f"{zh['methods']['platform']['all']['recall@10']:.3f} (bigram BM25 "
                    f"{zh['methods']['bm25 (bigrams)']['all']['recall@10']:.3f}, dense "
                    f"{zh['methods']['dense']['all']['recall@10']:.3f}; after one pass of use "
                    f"{zh['methods']['platform, after one pass of use']['all']['recall@10']:.3f})",
                )
            ]
            if zh
            else []
        ),
        (
            f"node-dedup accuracy ({merge['pairs']} labelled pairs, zh + en)",
            "> 90%",
            f"{merge['accuracy']:.0%} (precision {merge['precision']:.2f}, recall "
            f"{merge['recall']:.2f}; {_verdict(merge['accuracy'] > 0.9)})",
        ),
    ]
    lines = ["| design target (seed 000 §10) | target | measured |", "|---|---|---|"]
    lines += [f"| {what} | {target} | {value} |" for what, target, value in rows]
    return "\n".join(lines)


def summary_from(folder: Path, main: str = "10k", large: str | None = "100k") -> str:
    """The table from the result files in ``folder``."""

    def read(name: str) -> dict[str, Any]:
        return json.loads((folder / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    bigger = folder / LATENCY_FILE.format(scale=large) if large else None
    return summary_table(
        read(LATENCY_FILE.format(scale=main)),
        read(RETRIEVAL_FILE),
        read(MERGE_FILE),
        read(bigger.name) if bigger is not None and bigger.is_file() else None,
    )
