"""Prediction, without a server: the LoCoMo and MADial dev recall of the platform when its
lexical channel ranks as Neo4j's fulltext index does (issue 12: every dev conversation
within 0.02 recall@10 of SQLite).

The Neo4j backend ranks lexical hits by Lucene's BM25; the SQLite backend by FTS5's
``bm25()``. They differ in three ways, all reproduced here on the SQLite store:

- IDF: Lucene ``ln(1 + (N - n + 0.5) / (n + 0.5))``, FTS5 ``ln((N - n + 0.5) / (n + 0.5))``
  (at least 1e-6);
- document length: Lucene keeps it in one byte (``SmallFloat.intToByte4``: exact below 24,
  then four significant bits);
- the user's token shares the indexed field on Neo4j (one more token per document; its
  boost is 0, so it adds no score).

Lucene's top ``max(4k, 100)`` of the user's documents are asked for and filtered by kind,
as ``cypher/neo4j/lexical/search.cypher`` does. Everything else (vectors, fusion, graph)
is the platform's own. Prints each user's recall@10 beside the committed SQLite report.

    .venv/bin/python benchmarks/micro/lucene_parity.py      # about 20 minutes
"""

from __future__ import annotations

import json
import math
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from memory_platform.bench.retrieval_eval import run_eval
from memory_platform.models import LexicalHit, VectorKind
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


def main() -> None:
    SQLiteGraphStore.lexical_search = lucene_lexical_search  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as work:
        report = run_eval(
            DATA / "locomo_dev.json", DATA / "madial_zh_dev.json", Path(work), platform_only=True
        )
    committed = json.loads(COMMITTED.read_text())["sets"]
    print("user  sqlite (committed)  lucene-ranked  difference")
    for name, result in report["sets"].items():
        for user, row in result["per_user"].items():
            before = committed[name]["per_user"][user]["recall@10"]
            after = row["recall@10"]
            print(f"{user}  {before:.3f}  {after:.3f}  {after - before:+.3f}")
        overall = result["methods"]["platform"]["all"]["recall@10"]
        print(f"{name} overall: {overall:.4f}")


if __name__ == "__main__":
    main()
