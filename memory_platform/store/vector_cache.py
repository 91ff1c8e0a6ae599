"""In-memory matrices of each user's vectors for exact cosine search in SQLite.

Vectors are stored as float16 blobs (half the disk; cosine error about 1e-3) and held
in memory as float32 for fast BLAS products. A matrix is loaded once per (user, kind) and
refreshed by reading only the rows added since (a trigger-maintained version counter says
when); a delete forces a full reload. Topic and object nodes that share a name share one
row, so a search multiplies each distinct vector once.
Several processes may share the file: each keeps its own cache and sees the others'
writes through the counter.

A search asks for its ``k`` best (:meth:`VectorCache.top`). A matrix of 64 MB or more
(a user with tens of thousands of memories) gets a prefilter, fitted on another thread
from its second search on, which rules out most rows without reading them in full; the
answer stays the exact top k (:mod:`.vector_prefilter`).

The cache is bounded: past ``max_bytes`` the least recently searched (user, kind)
matrices are dropped and reloaded from the file when next needed, so a process that
serves many users does not grow without end.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from .sqlite_driver import sqlite3
from .vector_prefilter import PREFILTER_FROM_BYTES, Prefilter, PrefilterView

__all__ = ["VectorCache", "decode_vector", "scan_scores"]

_log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _blas_threads() -> Any:
    """threadpoolctl's controller of the loaded BLAS libraries (None without the package)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - installed with the default embedder
        return None
    return ThreadpoolController()


class _OneBlasThread:
    """Process-wide: BLAS runs on one thread while any caller is inside. threadpoolctl's
    limit is global, so two threads each setting and restoring it would undo each other;
    here the first caller in sets it and the last one out restores it. (OpenBLAS 0.3.31
    ignores a raise of its thread count made from a thread other than the main one, so
    after a scan on a server's worker thread it may stay at one thread: what the scans and
    the embedders want anyway.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._limiter: Any = None

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._inside == 0:
                controller = _blas_threads()
                if controller is not None:
                    self._limiter = controller.limit(limits=1, user_api="blas")
            self._inside += 1
        try:
            yield
        finally:
            with self._lock:
                self._inside -= 1
                if self._inside == 0 and self._limiter is not None:
                    self._limiter.restore_original_limits()
                    self._limiter = None


_one_blas_thread = _OneBlasThread()

_SPLIT_SCAN_BYTES = 16 << 20
"""Matrices from this size are scanned in two halves on two threads (see
:func:`scan_scores`); below it the hand-over costs more than the half saves."""


def scan_scores(
    matrix: npt.NDArray[np.float32],
    query: npt.NDArray[np.float32],
    helper: ThreadPoolExecutor | None = None,
) -> npt.NDArray[np.float32]:
    """``matrix @ query``, each thread's part on one BLAS thread.

    A scan is bound by memory bandwidth, which one core does not saturate: a big matrix
    is split in two, one half on ``helper``. BLAS's own threads are not used for that:
    a woken BLAS worker keeps spinning after the product, against the query embedding
    of the next search and the lexical lookup running beside this one (a query embedding
    right after a 30,000 x 384 scan took 20.5 ms instead of 11.9 ms; 100,000 x 896 took
    31 ms on one thread; measured on the development machine).
    """
    with _one_blas_thread():
        if helper is None or matrix.nbytes < _SPLIT_SCAN_BYTES:
            return matrix @ query
        half = len(matrix) // 2
        second = helper.submit(np.matmul, matrix[half:], query)
        first = matrix[:half] @ query
        return np.concatenate([first, second.result()])


@dataclass
class _Matrix:
    """A (user, kind)'s ids and the distinct vectors they point at.

    Rows live in buffers that grow by doubling, so appending is amortised O(1). Where
    ``shared`` is set, ids whose stored vector is byte-identical share one row: until
    consolidation merges them, a user's topic and object nodes repeat the same few names
    ("工作", "心情") thousands of times, and a search then scans each distinct vector once.
    """

    shared: bool = False
    version: int = 0
    deletes: int = 0
    max_rowid: int = 0
    ids: list[str] = field(default_factory=list)
    rows: npt.NDArray[np.float32] | None = None  # distinct vectors, ``distinct`` of them
    distinct: int = 0
    row_of: npt.NDArray[np.int32] | None = None  # per id, its row (when ``shared``)
    by_blob: dict[int, int] = field(default_factory=dict)  # hash of a stored blob -> row
    positions: dict[str, int] | None = None
    prefilter: Prefilter | None = None  # once the matrix is big (see vector_prefilter)
    big_scans: int = 0  # scans since the matrix grew big enough for a prefilter

    def append(self, ids: list[str], blobs: list[bytes], dim: int) -> None:
        if not ids:
            return
        decoded = decode_vectors(blobs, dim)
        if not self.shared:
            self._add_rows(decoded)
            self.ids.extend(ids)
            return
        rows_of_new = np.empty(len(ids), dtype=np.int32)
        fresh: list[int] = []  # positions in this batch of vectors not seen before
        for i, blob in enumerate(blobs):
            key = hash(blob)
            row = self.by_blob.get(key)
            if row is None:
                row = self.by_blob[key] = self.distinct + len(fresh)
                fresh.append(i)
            rows_of_new[i] = row
        self._add_rows(decoded[fresh])
        clash = self._mismatches(rows_of_new, decoded)
        if clash.size:  # a 64-bit hash collision: those vectors get rows of their own
            rows_of_new[clash] = self.distinct + np.arange(clash.size, dtype=np.int32)
            self._add_rows(decoded[clash])
        count = len(self.ids)
        self.row_of = _grown(self.row_of, count + len(ids))
        self.row_of[count : count + len(ids)] = rows_of_new
        self.ids.extend(ids)

    def _mismatches(
        self, rows_of: npt.NDArray[np.int32], vectors: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.intp]:
        """Positions whose vector differs from the row it was given (checked in chunks,
        so a large load never copies the whole batch at once)."""
        assert self.rows is not None
        out = []
        for start in range(0, len(rows_of), 4096):
            chunk = slice(start, start + 4096)
            same = np.all(self.rows[rows_of[chunk]] == vectors[chunk], axis=1)
            out.append(start + np.flatnonzero(~same))
        return np.concatenate(out)

    def _add_rows(self, rows: npt.NDArray[np.float32]) -> None:
        needed = self.distinct + len(rows)
        if self.rows is None or self.rows.shape[0] < needed:
            grown = np.zeros((max(needed, 2 * self.distinct, 64), rows.shape[1]), np.float32)
            if self.rows is not None:
                grown[: self.distinct] = self.rows[: self.distinct]
            self.rows = grown
        self.rows[self.distinct : needed] = rows
        self.distinct = needed

    @property
    def nbytes(self) -> int:
        rows = 0 if self.rows is None else int(self.rows.nbytes)
        prefilter = 0 if self.prefilter is None else self.prefilter.nbytes
        return rows + prefilter + (0 if self.row_of is None else int(self.row_of.nbytes))

    def dense(self, dim: int) -> npt.NDArray[np.float32]:
        """The distinct vectors."""
        if self.rows is None:
            return np.zeros((0, dim), dtype=np.float32)
        return self.rows[: self.distinct]

    def row_index(self) -> npt.NDArray[np.int32] | None:
        """Per id, its row in :meth:`dense` (None when each id has its own row)."""
        if self.row_of is None or self.distinct == len(self.ids):
            return None
        return self.row_of[: len(self.ids)]


def _grown(array: npt.NDArray[np.int32] | None, needed: int) -> npt.NDArray[np.int32]:
    if array is not None and array.shape[0] >= needed:
        return array
    size = max(needed, 2 * (0 if array is None else array.shape[0]), 64)
    grown = np.zeros(size, dtype=np.int32)
    if array is not None:
        grown[: array.shape[0]] = array
    return grown


def _ids_of_best_rows(
    ids: list[str],
    index: npt.NDArray[np.int32],
    positions: npt.NDArray[np.intp] | None,
    scores: npt.NDArray[np.float32],
    row_count: int,
    k: int,
) -> tuple[list[str], npt.NDArray[np.float32]]:
    """Where ids share rows: ``k`` ids of the best-scoring rows, best row first (which ids
    of a row that only some fit are taken is left open, as a tie). ``scores`` are those
    of the rows at ``positions`` (of every row when None)."""
    at = np.arange(row_count) if positions is None else positions
    if not len(at):
        return [], np.zeros(0, dtype=np.float32)
    order = np.argsort(-scores, kind="stable")
    ids_per_row = np.bincount(index, minlength=row_count)[at[order]]
    enough = int(np.searchsorted(np.cumsum(ids_per_row), k))  # rows up to k ids
    rank = np.full(row_count, -1, dtype=np.int32)
    rank[at[order[: enough + 1]]] = np.arange(min(enough + 1, len(order)), dtype=np.int32)
    of_id = rank[index]
    found = np.flatnonzero(of_id >= 0)
    found = found[np.argsort(of_id[found], kind="stable")[:k]]
    return [ids[i] for i in found.tolist()], scores[order][of_id[found]]


def decode_vector(blob: bytes, dim: int) -> npt.NDArray[np.float32]:
    """A stored vector as float32: written as float16 (half the disk), float32 accepted."""
    if len(blob) == 2 * dim:
        return np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    return np.frombuffer(blob, dtype=np.float32).copy()


def decode_vectors(blobs: list[bytes], dim: int) -> npt.NDArray[np.float32]:
    """Stored vectors as one float32 matrix, decoded in one pass when all are float16."""
    if all(len(blob) == 2 * dim for blob in blobs):
        return np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(-1, dim).astype(np.float32)
    return np.vstack([decode_vector(blob, dim) for blob in blobs])


class VectorCache:
    """Per-process cache of (user, kind) → (ids, vectors), least recently used first out.

    Kinds in ``shared_kinds`` keep one row per distinct vector (see :class:`_Matrix`).
    """

    def __init__(
        self, dimension: int, max_bytes: int = 1 << 30, shared_kinds: Iterable[str] = ()
    ) -> None:
        self._dim = dimension
        self._max_bytes = max_bytes
        self._shared_kinds = frozenset(shared_kinds)
        self._bytes = 0
        self._entries: OrderedDict[tuple[str, str], _Matrix] = OrderedDict()
        self._lock = threading.Lock()
        self._helper: ThreadPoolExecutor | None = None  # the second half of big scans
        self._builder: ThreadPoolExecutor | None = None  # fits prefilters

    @property
    def nbytes(self) -> int:
        """Bytes held by the cached matrices."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _evict(self, keep: tuple[str, str]) -> None:
        """Drop least recently used matrices until under budget (never ``keep``)."""
        while self._bytes > self._max_bytes and len(self._entries) > 1:
            key, entry = next(iter(self._entries.items()))
            if key == keep:
                break
            del self._entries[key]
            self._bytes -= entry.nbytes

    def holds(self, user_id: str, kind: str) -> bool:
        """Whether (user, kind) has been loaded (it may still miss the latest writes)."""
        with self._lock:
            return (user_id, kind) in self._entries

    def refresh(self, conn: sqlite3.Connection, user_id: str, kind: str) -> None:
        """Bring (user, kind) up to date with the file now, ahead of a scan."""
        with self._lock:
            self._current(conn, user_id, kind)

    def vectors(
        self, conn: sqlite3.Connection, user_id: str, kind: str, ref_ids: list[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """The cached vectors of the given ids (refreshing the cache first)."""
        with self._lock:
            entry = self._current(conn, user_id, kind)
            if entry.positions is None or len(entry.positions) != len(entry.ids):
                entry.positions = {ref: i for i, ref in enumerate(entry.ids)}
            positions, rows, index = entry.positions, entry.dense(self._dim), entry.row_index()
        found = [positions[ref] for ref in ref_ids if ref in positions]
        at = found if index is None else index[found].tolist()
        return {entry.ids[i]: rows[row] for i, row in zip(found, at, strict=True)}

    def top(
        self,
        conn: sqlite3.Connection,
        user_id: str,
        kind: str,
        query: npt.NDArray[np.float32],
        k: int,
    ) -> tuple[list[str], npt.NDArray[np.float32]]:
        """Ids that may be among the ``k`` nearest to ``query``, each with its exact dot
        product, current as of this call: every id of a small matrix; of a big one, the
        few that its prefilter cannot rule out (:mod:`.vector_prefilter`). Each distinct
        vector is multiplied once; where ids share rows, only the ids of the best rows
        (enough of them for ``k``) are returned."""
        with self._lock:
            entry = self._current(conn, user_id, kind)
            # a snapshot: appends after this only write past these lengths
            count, rows, index = len(entry.ids), entry.dense(self._dim), entry.row_index()
            view = self._prefilter_view(user_id, kind, entry)
        big = rows.nbytes >= _SPLIT_SCAN_BYTES  # a helper thread only where it is used
        helper = self._scan_helper() if big else None

        def scan(matrix: npt.NDArray[np.float32], vector: npt.NDArray[np.float32]) -> Any:
            return scan_scores(matrix, vector, helper)

        found = None if view is None else view.candidates(rows, query, k, scan)
        if found is None:
            positions, scores = None, scan(rows, query)
        else:
            positions, scores = found
        ids = entry.ids  # appended to only: its first ``count`` are this snapshot's
        if index is None:  # one row per id
            if positions is None:
                return ids[:count], scores
            return [ids[i] for i in positions.tolist()], scores
        return _ids_of_best_rows(ids, index, positions, scores, len(rows), k)

    def _prefilter_view(self, user_id: str, kind: str, entry: _Matrix) -> PrefilterView | None:
        """The entry's prefilter brought up to date (under the lock). A big matrix without
        one has it fitted on another thread from its second scan on, and is scanned in
        full until then: the fit takes about a second of one core at 100,000 vectors, which
        a process's first search (loading the matrix) should not share its cores with."""
        if entry.prefilter is not None:
            before = entry.prefilter.nbytes
            entry.prefilter.extend(entry.dense(self._dim))
            self._bytes += entry.prefilter.nbytes - before
            return entry.prefilter.view()
        if entry.distinct * self._dim * 4 >= PREFILTER_FROM_BYTES:
            entry.big_scans += 1
            if entry.big_scans == 2:  # once: a fit that failed is not tried again
                self._prefilter_builder().submit(self._fit_prefilter, (user_id, kind), entry)
        return None

    def _fit_prefilter(self, key: tuple[str, str], entry: _Matrix) -> None:
        with self._lock:
            rows = entry.dense(self._dim)
        try:
            with _one_blas_thread():
                prefilter = Prefilter.fit(rows)
        except Exception:  # pragma: no cover - e.g. out of memory: searches scan in full
            _log.exception("vector prefilter for %s could not be fitted; exact scans go on", key)
            return
        with self._lock:
            if self._entries.get(key) is not entry:  # dropped or reloaded meanwhile
                return
            entry.prefilter = prefilter
            self._bytes += prefilter.nbytes
            self._evict(keep=key)

    def join_prefilters(self) -> None:
        """Wait until the prefilters being fitted are in place (benchmarks and tests)."""
        with self._lock:
            builder = self._builder
        if builder is not None:
            builder.submit(lambda: None).result()

    def _prefilter_builder(self) -> ThreadPoolExecutor:
        """(Under the lock.) The thread that fits prefilters, one at a time."""
        if self._builder is None:
            self._builder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-prefilter")
        return self._builder

    def _scan_helper(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._helper is None:
                self._helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-scan")
            return self._helper

    def close(self) -> None:
        """Drop every matrix and stop the scan helper thread."""
        self.clear()
        with self._lock:
            helper, self._helper = self._helper, None
            builder, self._builder = self._builder, None
        for pool in (builder, helper):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=pool is builder)

    def _current(self, conn: sqlite3.Connection, user_id: str, kind: str) -> _Matrix:
        """The entry of (user, kind) brought up to date with the file (under the lock)."""
        row = conn.execute(
            "SELECT version, deletes FROM vector_versions WHERE user_id = ? AND kind = ?",
            (user_id, kind),
        ).fetchone()
        # no row: nothing stored yet; an empty entry remembers that it was asked
        version, deletes = (0, 0) if row is None else (int(row[0]), int(row[1]))
        key = (user_id, kind)
        entry = self._entries.get(key)
        if entry is None or entry.deletes != deletes:
            if entry is not None:
                self._bytes -= entry.nbytes
            entry = _Matrix(shared=kind in self._shared_kinds)
            self._entries[key] = entry
        self._entries.move_to_end(key)
        before = entry.nbytes
        if entry.version != version:
            rows = conn.execute(
                "SELECT rowid, ref_id, embedding FROM vectors "
                "WHERE user_id = ? AND kind = ? AND rowid > ? ORDER BY rowid",
                (user_id, kind, entry.max_rowid),
            ).fetchall()
            if rows:
                entry.append([r[1] for r in rows], [r[2] for r in rows], self._dim)
                entry.max_rowid = int(rows[-1][0])
            entry.version = version
            entry.deletes = deletes
        self._bytes += entry.nbytes - before
        self._evict(keep=key)
        return entry
