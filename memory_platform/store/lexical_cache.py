"""BM25 ranking of the SQLite store's lexical hits, with Lucene's IDF over FTS5's statistics.

FTS5 finds the documents; this module ranks them, so that the embedded store ranks as the
Neo4j backend's fulltext index does (Lucene's BM25: IDF ``ln(1 + (N - n + 0.5) / (n + 0.5))``,
k1 1.2, b 0.75) and not by FTS5's ``bm25()``, whose IDF ``ln((N - n + 0.5) / (n + 0.5))``
is near zero for any word in half the documents: in a store of a few hundred memories (a
new user, a small deployment) a question's ordinary words then counted for nothing and a
chance rare one decided the order. On the MADial-Bench dev user alone (83 memories) recall@10
went from 0.749 to 0.777; LoCoMo dev moved from 0.766 to 0.762
(``benchmarks/README.md``). The statistics are FTS5's own, read at query time: row count,
token total and each word's document count, over every user (as Lucene's span the index).

A user below :data:`INDEX_FROM_DOCUMENTS` documents is ranked from FTS5's matches (their
token lists, counted per search). FTS5 matches every document holding any word of the
query: for a user with 100,000 memories a question such as "小明喜欢什么运动" matches 20,000
of them, so a bigger user is ranked from an index held in memory instead (each word's
documents and counts, each document's length), with the same arithmetic in the same
order: the two give the same hits, order and scores (the tests compare them).

An index follows the file through a per-user counter of inserted and deleted documents
that triggers keep (``lexical_versions``): new documents are appended; after a deletion
the next search compares the user's row ids with the index's (one index-only read, tens
of milliseconds at 100,000 documents, where a rebuild took 2.5 s) and drops the missing
ones, rebuilding only once :data:`REBUILD_WHEN_DROPPED` of the index is gone. Several
processes may share the file: the comparison finds deletions whoever made them.
"""

from __future__ import annotations

import math
import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import numpy.typing as npt

from .key_locks import KeyLocks
from .sqlite_driver import sqlite3

__all__ = ["INDEX_FROM_DOCUMENTS", "LexicalCache", "fts5_totals", "idf"]

INDEX_FROM_DOCUMENTS = 2_000
"""A user's documents from which lexical search ranks from an index in memory. Below it
a query matches a few hundred documents at most, ranked from FTS5's matches in about a
millisecond; above it that cost grows with the user (12,000 LoCoMo turns: p50 5.8 ms, p95
12 ms), while the index answers in under a millisecond once built (12,000 turns: 86 ms,
once per process, about 3 MB)."""

REBUILD_WHEN_DROPPED = 0.25
"""Share of an index's documents deleted from the file after which it is built afresh
(dropped documents keep their memory and their place in the scans until then)."""

_ADD_CHUNK = 16_384
"""Documents tokenised together when an index is built (bounds the token lists held)."""

_K1 = 1.2
_B = 0.75
"""BM25's constants, FTS5's and Lucene's alike."""


def idf(documents: int, matched: int) -> float:
    """Lucene's BM25 IDF of a word held by ``matched`` of ``documents``: positive however
    common the word (FTS5's own is floored at 1e-6 from half the documents up)."""
    return math.log(1.0 + (documents - matched + 0.5) / (matched + 0.5))


def _varint(blob: bytes, at: int) -> tuple[int, int]:
    """An SQLite varint at ``at``: its value and the position after it."""
    value = 0
    for _ in range(8):
        byte = blob[at]
        at += 1
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at
    return (value << 8) | blob[at], at + 1


def fts5_totals(conn: sqlite3.Connection) -> tuple[int, int]:
    """FTS5's row count and token total over every column, from its averages record (what
    ``bm25()`` reads as ``nRow`` and, divided, ``avgdl``)."""
    row = conn.execute("SELECT block FROM lexical_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return 0, 0
    blob: bytes = row[0]
    rows, at = _varint(blob, 0)
    tokens = 0
    while at < len(blob):
        count, at = _varint(blob, at)
        tokens += count
    return rows, tokens


def _document_counts(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, int]:
    """How many documents of any user hold each term (``bm25()``'s ``nHit``)."""
    counts = {}
    for term in terms:
        row = conn.execute(
            "SELECT doc FROM lexical_vocab WHERE term = ? AND col = 'tokens'", (term,)
        ).fetchone()
        counts[term] = int(row[0]) if row else 0
    return counts


@dataclass
class _UserIndex:
    """One user's documents: ids, kinds, lengths, and each token's postings."""

    inserts: int = 0
    deletes: int = 0
    max_rowid: int = 0
    rowids: array[int] = field(default_factory=lambda: array("q"))
    dropped: int = 0
    live: npt.NDArray[np.bool_] | None = None  # None while no document was dropped
    ref_ids: list[str] = field(default_factory=list)
    kinds: array[int] = field(default_factory=lambda: array("b"))
    lengths: array[float] = field(default_factory=lambda: array("d"))
    postings: dict[str, tuple[array[int], array[int]]] = field(default_factory=dict)
    kind_codes: dict[str, int] = field(default_factory=dict)
    ranks: npt.NDArray[np.int64] | None = None  # each document's place in ref_id order
    nbytes: int = 0

    def add(self, rows: Sequence[tuple[int, str, str, str]], only: set[str] | None = None) -> None:
        """Append documents: (rowid, kind, ref_id, space-separated tokens). With ``only``,
        postings are kept for those tokens alone (a search's own matches)."""
        for start in range(0, len(rows), _ADD_CHUNK):
            self._add(rows[start : start + _ADD_CHUNK], only)
        if rows:
            self.ranks = None
            if self.live is not None:
                self.live = np.concatenate([self.live, np.ones(len(rows), dtype=bool)])

    def _add(self, rows: Sequence[tuple[int, str, str, str]], only: set[str] | None) -> None:
        first = len(self.ref_ids)
        splits = [row[3].split() for row in rows]
        sizes = np.fromiter(map(len, splits), dtype=np.int64, count=len(rows))
        self.ref_ids.extend(row[2] for row in rows)
        self.rowids.extend(row[0] for row in rows)
        codes = self.kind_codes
        self.kinds.extend(codes.setdefault(row[1], len(codes)) for row in rows)
        self.lengths.extend((sizes + 1.0).tolist())  # and the user token's column
        self.nbytes += sum(73 + len(row[2]) for row in rows)  # 8 its row id, 1 its liveness
        self.max_rowid = max([self.max_rowid, *(row[0] for row in rows)])
        documents = np.repeat(np.arange(first, first + len(rows), dtype=np.int64), sizes)
        self._post(list(chain.from_iterable(splits)), documents, only)

    def _post(
        self, tokens: list[str], documents: npt.NDArray[np.int64], only: set[str] | None
    ) -> None:
        """Append each token's documents, with its count in each, to its postings in
        document order. Grouped with numpy rather than counted document by document:
        building the index of 100,000 memories (1.3 million postings) took about 1 s
        that way (``benchmarks/results/cache_loads.md``)."""
        number = dict.fromkeys(tokens, 0)  # distinct tokens, in order of first sight
        for i, token in enumerate(number):
            number[token] = i
        numbers = np.fromiter(map(number.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        if only is not None:
            kept = np.isin(numbers, [number[t] for t in only if t in number])
            numbers, documents = numbers[kept], documents[kept]
        span = int(documents[-1]) + 1 if len(documents) else 1
        pairs, counts = np.unique(numbers * span + documents, return_counts=True)
        token_of = pairs // span  # sorted by token, then document
        where = (pairs - token_of * span).astype(np.int32)
        tf = np.minimum(counts, 0xFFFF).astype(np.uint16)
        bounds = np.searchsorted(token_of, np.arange(len(number) + 1))
        for token, i in number.items():
            start, end = int(bounds[i]), int(bounds[i + 1])
            if start == end:
                continue  # left out by ``only``
            entry = self.postings.get(token)
            if entry is None:
                entry = self.postings[token] = (array("i"), array("H"))
                self.nbytes += 160 + len(token)
            entry[0].frombytes(where[start:end].tobytes())
            entry[1].frombytes(tf[start:end].tobytes())
        self.nbytes += 6 * len(pairs)

    def drop_missing(self, present: Sequence[int]) -> None:
        """Drop the documents whose row ids are not among ``present`` (the user's row ids
        in the file now, up to :attr:`max_rowid`, ascending). Row ids are never reused
        (``lexical_docs`` is AUTOINCREMENT), so an id still present is the same document."""
        mine = np.frombuffer(self.rowids, dtype=np.int64)
        live = np.isin(mine, np.asarray(present, dtype=np.int64), assume_unique=True)
        if self.live is not None:
            live &= self.live
        self.dropped = len(mine) - int(np.count_nonzero(live))
        self.live = live if self.dropped else None

    def _ranks(self) -> npt.NDArray[np.int64]:
        if self.ranks is None or len(self.ranks) != len(self.ref_ids):
            order = np.argsort(np.array(self.ref_ids), kind="stable")
            ranks = np.empty(len(order), dtype=np.int64)
            ranks[order] = np.arange(len(order))
            self.ranks = ranks
        return self.ranks

    def search(
        self,
        terms: Sequence[str],
        document_counts: dict[str, int],
        totals: tuple[int, int],
        kinds: Sequence[str],
        k: int,
    ) -> list[tuple[str, str, float]]:
        """The best ``k`` documents of the given kinds matching any term, by BM25 with
        :func:`idf` (score descending, then ref_id). Document lengths count the user
        token's column, as FTS5's statistics do."""
        rows, tokens = totals
        wanted = [self.kind_codes[kind] for kind in kinds if kind in self.kind_codes]
        if not rows or not wanted or k <= 0:
            return []
        avgdl = float(tokens) / float(rows)
        lengths = np.frombuffer(self.lengths, dtype=np.float64)
        scores = np.zeros(len(self.ref_ids), dtype=np.float64)
        hit = np.zeros(len(self.ref_ids), dtype=bool)
        for term in terms:  # in the query's order, as FTS5 sums its phrases
            entry = self.postings.get(term)
            if entry is None:
                continue
            weight = idf(rows, document_counts.get(term, 0))
            where = np.frombuffer(entry[0], dtype=np.int32)
            tf = np.frombuffer(entry[1], dtype=np.uint16).astype(np.float64)
            scale = _K1 * ((1 - _B) + (_B * lengths[where]) / avgdl)
            scores[where] += weight * ((tf * (_K1 + 1.0)) / (tf + scale))
            hit[where] = True
        kind_of = np.frombuffer(self.kinds, dtype=np.int8)
        hit &= np.isin(kind_of, wanted)
        if self.live is not None:
            hit &= self.live
        found = np.flatnonzero(hit)
        if not len(found):
            return []
        found_scores = scores[found]
        if len(found) > k:  # keep the k best and everything tied with the k-th
            kth = np.partition(-found_scores, k - 1)[k - 1]
            keep = -found_scores <= kth
            found, found_scores = found[keep], found_scores[keep]
        order = np.lexsort((self._ranks()[found], -found_scores))[:k]
        names = {code: kind for kind, code in self.kind_codes.items()}
        return [
            (names[int(kind_of[found[i]])], self.ref_ids[found[i]], float(found_scores[i]))
            for i in order
        ]


class LexicalCache:
    """Per-process cache of big users' lexical indexes, least recently used first out."""

    def __init__(self, max_bytes: int = 256 << 20) -> None:
        self._max_bytes = max_bytes
        self._entries: OrderedDict[str, _UserIndex] = OrderedDict()
        self._lock = threading.Lock()  # the entries, held briefly
        # a user's index is built, updated and searched under the user's own lock: a big
        # user's build (a second at 100,000 memories) holds no other user's search
        self._user_locks = KeyLocks()

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def forget_user(self, user_id: str) -> None:
        """Drop a deleted user's index (their words' postings) now."""
        with self._lock:
            self._entries.pop(user_id, None)

    def ready(self, conn: sqlite3.Connection, user_id: str) -> bool:
        """Whether the user's next lookup builds nothing: they rank from FTS5's matches, or
        their index is held and has seen every deletion (one point read; new documents are
        only appended). A lookup that builds an index takes a second at 100,000 documents,
        so a search runs it off the threads other searches share."""
        row = conn.execute(
            "SELECT inserts, deletes FROM lexical_versions WHERE user_id = ?", (user_id,)
        ).fetchone()
        if row is None or row[0] - row[1] < INDEX_FROM_DOCUMENTS:
            return True
        with self._lock:
            index = self._entries.get(user_id)
        return index is not None and index.deletes == row[1]

    def search(
        self,
        conn: sqlite3.Connection,
        user_id: str,
        terms: Sequence[str],
        match: str,
        kinds: Sequence[str],
        k: int,
    ) -> list[tuple[str, str, float]]:
        """The user's top ``k`` documents of the given kinds for the query's ``terms``:
        ``match`` is the FTS5 expression that finds them (the user's token and the terms).
        A big user is ranked from their index, any other from FTS5's matches."""
        row = conn.execute(
            "SELECT inserts, deletes FROM lexical_versions WHERE user_id = ?", (user_id,)
        ).fetchone()
        counts = _document_counts(conn, terms)
        totals = fts5_totals(conn)
        if row is None or row[0] - row[1] < INDEX_FROM_DOCUMENTS:
            with self._lock:
                self._entries.pop(user_id, None)
            matches = _UserIndex()
            matches.add(
                conn.execute(
                    # +user_id: FTS5 finds, the user filters (the planner would otherwise
                    # walk every document of the user and ask FTS5 about each: 250x slower)
                    "SELECT d.rowid, d.kind, d.ref_id, lexical.tokens FROM lexical"
                    " JOIN lexical_docs d ON d.rowid = lexical.rowid"
                    " WHERE lexical MATCH ? AND +d.user_id = ?",
                    (match, user_id),
                ).fetchall(),
                only=set(terms),
            )
            return matches.search(terms, counts, totals, kinds, k)
        with self._user_locks(user_id):
            index = self._current(conn, user_id, int(row[0]), int(row[1]))
            return index.search(terms, counts, totals, kinds, k)

    def _current(
        self, conn: sqlite3.Connection, user_id: str, inserts: int, deletes: int
    ) -> _UserIndex:
        """The user's index brought up to date with the file (under the user's own lock;
        the lock is taken only to look it up, file it and evict)."""
        with self._lock:
            index = self._entries.get(user_id)
        if index is not None and index.deletes != deletes:
            index.drop_missing(
                [
                    row[0]
                    for row in conn.execute(
                        "SELECT rowid FROM lexical_docs WHERE user_id = ? AND rowid <= ?"
                        " ORDER BY rowid",
                        (user_id, index.max_rowid),
                    )
                ]
            )
            index.deletes = deletes
            if index.dropped > REBUILD_WHEN_DROPPED * len(index.ref_ids):
                index = None
        if index is None:
            index = _UserIndex()
            with self._lock:
                self._entries[user_id] = index
        if index.inserts != inserts:
            index.add(
                conn.execute(
                    "SELECT d.rowid, d.kind, d.ref_id, l.tokens FROM lexical_docs d"
                    " JOIN lexical l ON l.rowid = d.rowid"
                    " WHERE d.user_id = ? AND d.rowid > ? ORDER BY d.rowid",
                    (user_id, index.max_rowid),
                ).fetchall()
            )
            index.inserts, index.deletes = inserts, deletes
        with self._lock:
            if self._entries.get(user_id) is index:
                self._entries.move_to_end(user_id)
            while len(self._entries) > 1 and self._bytes() > self._max_bytes:
                oldest = next(iter(self._entries))
                if oldest == user_id:
                    break
                del self._entries[oldest]
        return index

    def _bytes(self) -> int:
        return sum(index.nbytes for index in self._entries.values())
