"""Prediction, without a server: the LoCoMo and MADial dev recall of the platform when its
lexical channel ranks as Neo4j's fulltext index does (issue 12: every dev conversation
within 0.02 recall@10 of SQLite).

The Neo4j backend ranks lexical hits by Lucene's BM25; the SQLite backend by the same BM25
computed over FTS5's matches and statistics (``store/lexical_cache.py``; until 2026-11-24
by FTS5's own ``bm25()``, whose IDF is ``ln((N - n + 0.5) / (n + 0.5))``, at least 1e-6).
What still differs is how Lucene stores things, reproduced here on the SQLite store:

- document length: Lucene keeps it in one byte (``SmallFloat.intToByte4``: exact below 24,
  then four significant bits);
- the user's token shares the indexed field on Neo4j (one more token per document; its
  boost is 0, so it adds no score).

Lucene's top ``max(4k, 100)`` of the user's documents are asked for and filtered by kind,
as ``cypher/neo4j/lexical/search.cypher`` does. Everything else (vectors, fusion, graph)
is the platform's own. With ``--float32`` the vectors are also stored as Neo4j holds them
(SQLite writes float16). Prints each user's recall@10 beside the committed SQLite report,
or with ``--same-run`` beside the shipped store run first on the same machine.

    .venv/bin/python benchmarks/micro/lucene_parity.py      # about 20 minutes
    .venv/bin/python benchmarks/micro/lucene_parity.py --float32 --same-run
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from memory_platform.bench.retrieval_eval import run_eval
from memory_platform.models import LexicalHit, VectorKind
from memory_platform.store import sqlite
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.textutil import fts_query, lexical_tokens, user_token

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
COMMITTED = Path(__file__).resolve().parents[1] / "results" / "retrieval_dev.json"
K1, B = 1.2, 0.75
_FREE = 24  # SmallFloat.NUM_FREE_VALUES: lengths below it are stored exactly


def _int4(value: int) -> int:
    bits = value.bit_length()
    if bits < 4:
        return value
    shift = bits - 4
    return ((value >> shift) & 0x07) | ((shift + 1) << 3)


def _from_int4(code: int) -> int:
    shift = (code >> 3) - 1
    return code & 0x07 if shift == -1 else ((code & 0x07) | 0x08) << shift


def lucene_length(length: int) -> int:
    """A field length as Lucene's norm stores and reads it back."""
    if length < _FREE:
        return length
    code = _FREE + _int4(length - _FREE)
    return code if code < _FREE else _FREE + _from_int4(code - _FREE)


def lucene_lexical_search(
    self: SQLiteGraphStore,
    user_id: str,
    query: str,
    kinds: Any = (VectorKind.MEMORY, VectorKind.EPISODE),
    k: int = 10,
) -> list[LexicalHit]:
    """``SQLiteGraphStore.lexical_search`` ranked by Lucene's BM25."""
    user = self._check_user(user_id)
    match = fts_query(self._check_query(query))
    kind_values = [VectorKind(x).value for x in kinds]
    if match is None or not kind_values or k <= 0:
        return []
    tokens = list(dict.fromkeys(lexical_tokens(query)))
    conn = self._conn()
    rows = conn.execute(
        "SELECT d.kind, d.ref_id, lexical.tokens FROM lexical"
        " JOIN lexical_docs d ON d.rowid = lexical.rowid WHERE lexical MATCH ? AND d.user_id = ?",
        (f'utok:"{user_token(user)}" AND tokens:({match})', user),
    ).fetchall()
    documents, total = conn.execute(
        "SELECT count(*), sum(length(tokens) - length(replace(tokens, ' ', '')) + 2) FROM lexical"
    ).fetchone()
    average = total / documents
    idf = {}
    for token in tokens:
        quoted = 'tokens:"' + token.replace('"', '""') + '"'
        found = conn.execute("SELECT count(*) FROM lexical WHERE lexical MATCH ?", (quoted,))
        n = found.fetchone()[0]
        idf[token] = math.log(1 + (documents - n + 0.5) / (n + 0.5))
    scored = []
    for kind, ref, text in rows:
        words = text.split()
        counts = Counter(words)
        norm = K1 * ((1 - B) + B * lucene_length(len(words) + 1) / average)
        score = sum(idf[t] * counts[t] / (counts[t] + norm) for t in tokens if counts[t])
        scored.append((-score, ref, kind))
    scored.sort()
    kept = [row for row in scored[: max(4 * k, 100)] if row[2] in kind_values][:k]
    return [LexicalHit(kind=VectorKind(kind), ref_id=ref, score=-s) for s, ref, kind in kept]


def _per_user(lucene: bool, float32: bool) -> dict[str, dict[str, float]]:
    """recall@10 of each dev user (and overall) with the lexical ranking and the stored
    vectors' precision asked for; the shipped SQLite store when both are False."""
    shipped_search, shipped_dtype = SQLiteGraphStore.lexical_search, sqlite._STORED_VECTOR_DTYPE
    if lucene:
        SQLiteGraphStore.lexical_search = lucene_lexical_search  # type: ignore[method-assign]
    if float32:
        sqlite._STORED_VECTOR_DTYPE = np.float32  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as work:
            report = run_eval(
                DATA / "locomo_dev.json", DATA / "madial_zh_dev.json", Path(work),
                platform_only=True,
            )  # fmt: skip
    finally:
        SQLiteGraphStore.lexical_search = shipped_search  # type: ignore[method-assign]
        sqlite._STORED_VECTOR_DTYPE = shipped_dtype
    out: dict[str, dict[str, float]] = {}
    for name, result in report["sets"].items():
        out[name] = {user: row["recall@10"] for user, row in result["per_user"].items()}
        out[name]["overall"] = result["methods"]["platform"]["all"]["recall@10"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--float32",
        action="store_true",
        help="store vectors as float32, as Neo4j holds them (SQLite writes float16)",
    )
    parser.add_argument(
        "--same-run",
        action="store_true",
        help="compare with the shipped store run now, on this machine, instead of the "
        "committed report (the figures move between machines: benchmarks/README.md)",
    )
    args = parser.parse_args()
    if args.same_run:
        before = _per_user(lucene=False, float32=False)
        label = "sqlite (this run)"
    else:
        committed = json.loads(COMMITTED.read_text())["sets"]
        before = {
            name: {
                **{user: row["recall@10"] for user, row in result["per_user"].items()},
                "overall": result["methods"]["platform"]["all"]["recall@10"],
            }
            for name, result in committed.items()
        }
        label = "sqlite (committed)"
    after = _per_user(lucene=True, float32=args.float32)
    print(f"user  {label}  lucene-ranked{' float32' if args.float32 else ''}  difference")
    for name, users in after.items():
        for user, recall in users.items():
            print(f"{name} {user}  {before[name][user]:.4f}  {recall:.4f}  "
                  f"{recall - before[name][user]:+.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
