"""In-memory matrices of each user's vectors for exact cosine search in SQLite.

Vectors are stored as float16 blobs (half the disk; cosine error about 1e-3) and held
in memory as float32 for fast BLAS products. A matrix is loaded once per (user, kind) and
refreshed by reading only the rows added since (a trigger-maintained version counter says
when). After a deletion one read of the row ids marks the rows gone as dead, which no
search answers; the matrix is loaded afresh once a quarter of it is dead (and, for topic
and object nodes, at every deletion). Topic and object nodes that share a name share one
row, so a search multiplies each distinct vector once.
Several processes may share the file: each keeps its own cache and sees the others'
writes through the counter.

A search asks for its ``k`` best (:meth:`VectorCache.top`). A matrix of 64 MB or more
(a user with tens of thousands of memories) gets a prefilter, fitted in its first
search, which rules out most rows without reading them in full; the answer stays the
exact top k (:mod:`.vector_prefilter`). A reload after a deletion keeps the projections
of the rows still there.

The cache is bounded: past ``max_bytes`` the least recently searched (user, kind)
matrices are dropped and reloaded from the file when next needed, so a process that
serves many users does not grow without end.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from .key_locks import KeyLocks
from .sqlite_driver import sqlite3
from .vector_prefilter import PREFILTER_FROM_BYTES, Prefilter, PrefilterView

__all__ = ["VectorCache", "decode_vector", "scan_scores"]

_log = logging.getLogger(__name__)

_Array = TypeVar("_Array", npt.NDArray[np.int32], npt.NDArray[np.int64])


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

    Rows live in buffers sized exactly when a matrix loads whole and grown by doubling
    as rows are appended after, so appending is amortised O(1). Where
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
    one_row_each: bool = True  # whether id i is row i (as where no vector repeats)
    by_blob: dict[bytes, int] = field(default_factory=dict)  # a vector's _blob_key -> row
    positions: dict[str, int] | None = None  # of live ids, as of ``positions_count`` ids
    positions_count: int = 0
    live: npt.NDArray[np.bool_] | None = None  # per id, whether still stored (None: all);
    # ids appended after it was made are past its end, and live. Replaced, never changed.
    dead: int = 0
    rowids: npt.NDArray[np.int64] | None = None  # per id, its row in the file
    prefilter: Prefilter | None = None  # once the matrix is big (see vector_prefilter)
    prefilter_asked: bool = False  # a fit was started (or failed: not tried again)
    counted: int = 0  # its bytes in the cache's total (see VectorCache._count)

    def append(self, ids: list[str], blobs: list[bytes], dim: int, rowids: list[int]) -> None:
        """Add stored vectors, in the file's row order (``rowids`` ascending)."""
        if not ids:
            return
        count = len(self.ids)
        self.rowids = _grown(self.rowids, count + len(ids), np.int64)
        self.rowids[count : count + len(ids)] = rowids
        if not self.shared:  # decoded as copied in: no float32 temporary
            self._add_rows(_stored_vectors(blobs, dim))
            self.ids.extend(ids)
            return
        rows_of_new = np.empty(len(ids), dtype=np.int32)
        fresh: list[bytes] = []  # vectors not seen before, in the order they get rows
        for i, blob in enumerate(blobs):
            key = _blob_key(blob)
            row = self.by_blob.get(key)
            if row is None:
                row = self.by_blob[key] = self.distinct + len(fresh)
                fresh.append(blob)
            rows_of_new[i] = row
        if fresh:  # only new vectors are decoded (a load repeats a few names thousands of times)
            self._add_rows(_stored_vectors(fresh, dim))
        self.row_of = _grown(self.row_of, count + len(ids), np.int32)
        self.row_of[count : count + len(ids)] = rows_of_new
        self.one_row_each = self.one_row_each and bool(
            np.array_equal(rows_of_new, np.arange(count, count + len(ids)))
        )
        self.ids.extend(ids)

    def reserve(self, count: int, dim: int) -> None:
        """Make room for ``count`` more rows at once, exactly (for a whole load: rows
        appended one by one later grow the buffer by doubling instead)."""
        needed = self.distinct + count
        if self.rows is not None and self.rows.shape[0] >= needed:
            return
        grown = np.empty((needed, dim), np.float32)
        if self.rows is not None:
            grown[: self.distinct] = self.rows[: self.distinct]
        self.rows = grown

    def _add_rows(self, rows: npt.NDArray[np.floating[Any]]) -> None:
        """Append rows (converted to float32 as they are copied in), in a buffer that
        grows by doubling where not reserved."""
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
        index = sum(int(a.nbytes) for a in (self.live, self.row_of, self.rowids) if a is not None)
        return rows + prefilter + index

    def dense(self, dim: int) -> npt.NDArray[np.float32]:
        """The distinct vectors."""
        if self.rows is None:
            return np.zeros((0, dim), dtype=np.float32)
        return self.rows[: self.distinct]

    def row_index(self) -> npt.NDArray[np.int32] | None:
        """Per id, its row in :meth:`dense` (None when each id has its own row)."""
        if self.row_of is None or self.one_row_each:
            return None
        return self.row_of[: len(self.ids)]


def _grown(array: _Array | None, needed: int, dtype: type[np.integer[Any]] = np.int32) -> _Array:
    if array is not None and array.shape[0] >= needed:
        return array
    size = max(needed, 2 * (0 if array is None else array.shape[0]), 64)
    grown: _Array = np.zeros(size, dtype=dtype)
    if array is not None:
        grown[: array.shape[0]] = array
    return grown


REBUILD_WHEN_DEAD = 0.25
"""Share of a matrix's ids deleted from the file after which it is loaded afresh (until
then deleted rows keep their memory and are skipped by every search)."""


def _drop_deleted(conn: sqlite3.Connection, user_id: str, kind: str, entry: _Matrix) -> bool:
    """Mark the rows of ``entry`` the file no longer holds as deleted, from one read of the
    row ids (an index-only read: tens of milliseconds at 100,000 vectors, where reloading
    them took 0.6-2 s); False where the matrix is to be loaded afresh instead (too many
    deleted). Where ids share rows, a row stays while any of its ids is stored."""
    if entry.rowids is None or not entry.ids:
        return False
    count = len(entry.ids)
    held = entry.rowids[:count]
    stored = np.fromiter(
        (
            row[0]
            for row in conn.execute(
                "SELECT rowid FROM vectors WHERE user_id = ? AND kind = ? AND rowid <= ?"
                " ORDER BY rowid",
                (user_id, kind, entry.max_rowid),
            )
        ),
        dtype=np.int64,
    )
    live = _positions_in(stored, held) >= 0
    dead = count - int(np.count_nonzero(live))
    if dead > REBUILD_WHEN_DEAD * count:
        return False
    entry.live, entry.dead, entry.positions = live, dead, None
    return True


def _live_positions(live: npt.NDArray[np.bool_] | None, count: int) -> npt.NDArray[np.intp] | None:
    """The positions of the first ``count`` ids still stored (None: all of them)."""
    if live is None:
        return None
    return np.concatenate(
        [np.flatnonzero(live[:count]), np.arange(len(live), count, dtype=np.intp)]
    )


def _carried_prefilter(old: _Matrix, new: _Matrix, dim: int) -> Prefilter | None:
    """The prefilter of ``new``, a reload of ``old`` after a deletion: the rows of ``old``
    still in the file keep their projection (None where ``old`` had no prefilter). A row
    is the same row where its row id is: the file never reuses one, and a vector written
    again is a new row. Where rows are shared, a row is the same row where its vector is
    (the same :func:`_blob_key`)."""
    if old.prefilter is None or old.rowids is None or new.rowids is None:
        return None
    if old.shared:
        previous = np.full(new.distinct, -1, dtype=np.intp)
        pairs = [(row, old.by_blob.get(key, -1)) for key, row in new.by_blob.items()]
        at = np.array([pair for pair in pairs if 0 <= pair[1] < old.prefilter.rows], np.intp)
        if len(at):
            previous[at[:, 0]] = at[:, 1]
    else:
        previous = _positions_in(old.rowids[: old.prefilter.rows], new.rowids[: len(new.ids)])
    return old.prefilter.carried_over(new.dense(dim), previous)


def _positions_in(
    rowids: npt.NDArray[np.int64], wanted: npt.NDArray[np.int64]
) -> npt.NDArray[np.intp]:
    """Where each of ``wanted`` is in ``rowids`` (ascending), -1 where it is not."""
    out = np.full(len(wanted), -1, dtype=np.intp)
    if len(rowids):
        at = np.minimum(np.searchsorted(rowids, wanted), len(rowids) - 1)
        found = rowids[at] == wanted
        out[found] = at[found]
    return out


def _ids_of_best_rows(
    ids: list[str],
    index: npt.NDArray[np.int32],
    positions: npt.NDArray[np.intp] | None,
    scores: npt.NDArray[np.float32],
    row_count: int,
    k: int,
    members: npt.NDArray[np.intp] | None = None,
) -> tuple[list[str], npt.NDArray[np.float32]]:
    """Where ids share rows: ``k`` ids of the best-scoring rows, best row first (which ids
    of a row that only some fit are taken is left open, as a tie). ``scores`` are those
    of the rows at ``positions`` (of every row when None); ``members``, where given, the
    positions of the only ids that may be answered (the others are deleted)."""
    at = np.arange(row_count) if positions is None else positions
    if not len(at):
        return [], np.zeros(0, dtype=np.float32)
    of_member = index if members is None else index[members]
    order = np.argsort(-scores, kind="stable")
    ids_per_row = np.bincount(of_member, minlength=row_count)[at[order]]
    enough = int(np.searchsorted(np.cumsum(ids_per_row), k))  # rows up to k ids
    rank = np.full(row_count, -1, dtype=np.int32)
    rank[at[order[: enough + 1]]] = np.arange(min(enough + 1, len(order)), dtype=np.int32)
    of_id = rank[of_member]
    found = np.flatnonzero(of_id >= 0)
    found = found[np.argsort(of_id[found], kind="stable")[:k]]
    chosen = found if members is None else members[found]
    return [ids[i] for i in chosen.tolist()], scores[order][of_id[found]]


def _rows_of(
    index: npt.NDArray[np.int32], members: npt.NDArray[np.intp], row_count: int
) -> npt.NDArray[np.intp]:
    """The rows (ascending) that at least one of the ids at ``members`` points at."""
    held = np.zeros(row_count, dtype=np.bool_)
    held[index[members]] = True
    return np.flatnonzero(held)


def _blob_key(blob: bytes) -> bytes:
    """What a stored vector is known by in a shared matrix: the SHA-1 of its bytes. Two
    vectors with one digest are out of reach (the embedder writes them, not a user), so a
    match is not checked; a digest keeps 20 bytes per distinct vector where the vector
    itself would keep 1,792 (896 dimensions at half precision), and Python's 64-bit
    ``hash`` would need every match decoded and compared."""
    return hashlib.sha1(blob, usedforsecurity=False).digest()


def decode_vector(blob: bytes, dim: int) -> npt.NDArray[np.float32]:
    """A stored vector as float32: written as float16 (half the disk), float32 accepted."""
    if len(blob) == 2 * dim:
        return np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    return np.frombuffer(blob, dtype=np.float32).copy()


def _stored_vectors(blobs: list[bytes], dim: int) -> npt.NDArray[np.floating[Any]]:
    """Stored vectors as one matrix: a float16 view of them when all are float16 (as
    written since vectors are stored at half precision), else decoded to float32."""
    if all(len(blob) == 2 * dim for blob in blobs):
        return np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(-1, dim)
    return np.vstack([decode_vector(blob, dim) for blob in blobs])


_LOAD_CHUNK = 4096
"""Stored vectors read and decoded at a time when a matrix loads."""


def _load_new_rows(
    conn: sqlite3.Connection, user_id: str, kind: str, entry: _Matrix, dim: int
) -> None:
    """Append the rows of (user, kind) written after the entry's last, a chunk at a time.

    A matrix loading whole is first given its exact size, then filled, each chunk decoded
    as it is copied in. Read at once, the stored rows of 100,000 memories were a list of
    180 MB of half-precision blobs, joined into a second copy and decoded from that, and
    a shared kind decoded every row to keep a few: loading the three kinds and the
    lexical index raised a process's peak by 1,093 MB, now 490 MB
    (``benchmarks/results/cache_loads.md``)."""
    count, last = conn.execute(
        "SELECT count(*), max(rowid) FROM vectors WHERE user_id = ? AND kind = ? AND rowid > ?",
        (user_id, kind, entry.max_rowid),
    ).fetchone()
    if not count:
        return
    if entry.rows is None and not entry.shared:  # loading whole (shared rows are few
        entry.reserve(count, dim)  # distinct vectors: they grow as found, as appends do)
    # rows written after the count wait for the next call (the version moved on)
    cursor = conn.execute(
        "SELECT rowid, ref_id, embedding FROM vectors"
        " WHERE user_id = ? AND kind = ? AND rowid > ? AND rowid <= ? ORDER BY rowid",
        (user_id, kind, entry.max_rowid, last),
    )
    while chunk := cursor.fetchmany(_LOAD_CHUNK):
        entry.append([r[1] for r in chunk], [r[2] for r in chunk], dim, [r[0] for r in chunk])
        entry.max_rowid = int(chunk[-1][0])


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
        self._lock = threading.Lock()  # the entries and the byte total, held briefly
        # a (user, kind)'s loads and appends, under its own lock: a big user's load
        # (seconds at 100,000 memories) holds no other user's search
        self._key_locks = KeyLocks()
        self._helper: ThreadPoolExecutor | None = None  # the second half of big scans

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

    def forget_user(self, user_id: str) -> None:
        """Drop a deleted user's matrices now, not when the budget would evict them: a
        big user's are hundreds of megabytes, and nothing of theirs is kept."""
        with self._lock:
            for key in [key for key in self._entries if key[0] == user_id]:
                self._bytes -= self._entries.pop(key).counted

    def _key_lock(self, key: tuple[str, str]) -> threading.Lock:
        """The lock under which (user, kind)'s entry is loaded, brought up to date and read."""
        return self._key_locks(key)

    def _count(self, key: tuple[str, str], entry: _Matrix) -> None:
        """(Under the lock.) Count the entry's present size in the total while it is
        cached, then evict past the budget."""
        if self._entries.get(key) is not entry:
            return
        size = entry.nbytes
        self._bytes += size - entry.counted
        entry.counted = size
        self._evict(keep=key)

    def _evict(self, keep: tuple[str, str]) -> None:
        """Drop least recently used matrices until under budget (never ``keep``)."""
        while self._bytes > self._max_bytes and len(self._entries) > 1:
            key, entry = next(iter(self._entries.items()))
            if key == keep:
                break
            del self._entries[key]
            self._bytes -= entry.counted

    def holds(self, user_id: str, kind: str) -> bool:
        """Whether (user, kind) has been loaded (it may still miss the latest writes)."""
        with self._lock:
            return (user_id, kind) in self._entries

    def refresh(self, conn: sqlite3.Connection, user_id: str, kind: str) -> None:
        """Bring (user, kind) up to date with the file now, ahead of a scan."""
        with self._key_lock((user_id, kind)):
            self._current(conn, user_id, kind)

    def vectors(
        self, conn: sqlite3.Connection, user_id: str, kind: str, ref_ids: list[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """The cached vectors of the given ids (refreshing the cache first)."""
        with self._key_lock((user_id, kind)):
            entry = self._current(conn, user_id, kind)
            if entry.positions is None or entry.positions_count != len(entry.ids):
                live = _live_positions(entry.live, len(entry.ids))
                at = range(len(entry.ids)) if live is None else live.tolist()
                entry.positions = {entry.ids[i]: i for i in at}
                entry.positions_count = len(entry.ids)
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
        with self._key_lock((user_id, kind)):
            entry = self._current(conn, user_id, kind)
            # a snapshot: appends after this only write past these lengths
            count, rows, index = len(entry.ids), entry.dense(self._dim), entry.row_index()
            members = _live_positions(entry.live, count)  # ids still stored (None: all)
            view, fit = self._prefilter_view((user_id, kind), entry)
        live = members  # the rows still stored (None: all)
        if members is not None and index is not None:  # a row goes with its last id
            live = _rows_of(index, members, len(rows))
        if fit:
            view = self._fit_prefilter((user_id, kind), entry, rows)
        big = rows.nbytes >= _SPLIT_SCAN_BYTES  # a helper thread only where it is used
        helper = self._scan_helper() if big else None

        def scan(matrix: npt.NDArray[np.float32], vector: npt.NDArray[np.float32]) -> Any:
            return scan_scores(matrix, vector, helper)

        found = None if view is None else view.candidates(rows, query, k, scan, live)
        if found is not None:
            positions, scores = found
        elif live is None:
            positions, scores = None, scan(rows, query)
        else:  # deleted rows wait in the matrix for its rebuild, never in an answer
            positions, scores = live, scan(rows, query)[live]
        ids = entry.ids  # appended to only: its first ``count`` are this snapshot's
        if index is None:  # one row per id
            if positions is None:
                return ids[:count], scores
            return [ids[i] for i in positions.tolist()], scores
        return _ids_of_best_rows(ids, index, positions, scores, len(rows), k, members)

    def _prefilter_view(
        self, key: tuple[str, str], entry: _Matrix
    ) -> tuple[PrefilterView | None, bool]:
        """(Under the entry's lock.) The entry's prefilter brought up to date, and
        whether this caller is to fit one: the first to scan a big matrix without one
        does, before its scan; others scan in full meanwhile."""
        if entry.prefilter is not None:
            entry.prefilter.extend(entry.dense(self._dim))
            with self._lock:
                self._count(key, entry)
            return entry.prefilter.view(), False
        if entry.prefilter_asked or entry.distinct * self._dim * 4 < PREFILTER_FROM_BYTES:
            return None, False
        entry.prefilter_asked = True
        return None, True

    def _fit_prefilter(
        self, key: tuple[str, str], entry: _Matrix, rows: npt.NDArray[np.float32]
    ) -> PrefilterView | None:
        """Fit the entry's prefilter on ``rows`` (outside the lock) and attach it; its view
        of ``rows``, or None where it could not be fitted or the entry was dropped.

        This happens in the search that first finds the matrix big: in a process, the
        first search of a big user, which loads the matrix and builds the lexical index
        (seconds at 100,000 memories), so the fit (about 1.2 s of one core there) adds to a
        search already slow and to no other. Fitted on another thread instead, it took
        the cores from the searches that came next (``docs/architecture.md``)."""
        try:
            with _one_blas_thread():
                prefilter = Prefilter.fit(rows)
        except Exception:  # pragma: no cover - e.g. out of memory: searches scan in full
            _log.exception("vector prefilter for %s could not be fitted; exact scans go on", key)
            return None
        with self._key_lock(key):
            with self._lock:
                if self._entries.get(key) is not entry:  # dropped or reloaded meanwhile
                    return None
            entry.prefilter = prefilter
            with self._lock:
                self._count(key, entry)
            return prefilter.view()  # of ``rows``; later appends are projected when asked

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
        if helper is not None:
            helper.shutdown(wait=True)

    def _current(self, conn: sqlite3.Connection, user_id: str, kind: str) -> _Matrix:
        """The entry of (user, kind) brought up to date with the file (under its own lock;
        the lock is taken only to look it up, file it and count it)."""
        row = conn.execute(
            "SELECT version, deletes FROM vector_versions WHERE user_id = ? AND kind = ?",
            (user_id, kind),
        ).fetchone()
        # no row: nothing stored yet; an empty entry remembers that it was asked
        version, deletes = (0, 0) if row is None else (int(row[0]), int(row[1]))
        key = (user_id, kind)
        with self._lock:
            entry = self._entries.get(key)
        reloaded: _Matrix | None = None  # the entry a deletion made stale
        if (
            entry is not None
            and entry.deletes != deletes
            and _drop_deleted(conn, user_id, kind, entry)
        ):
            entry.deletes = deletes  # deleted rows marked; new ones are appended below
        elif entry is None or entry.deletes != deletes:
            reloaded, entry = entry, _Matrix(shared=kind in self._shared_kinds)
            with self._lock:
                if reloaded is not None and self._entries.get(key) is reloaded:
                    self._bytes -= reloaded.counted
                self._entries[key] = entry
        if entry.version != version:
            _load_new_rows(conn, user_id, kind, entry, self._dim)
            entry.version = version
            entry.deletes = deletes
        if reloaded is not None:
            entry.prefilter = _carried_prefilter(reloaded, entry, self._dim)
            entry.prefilter_asked = entry.prefilter is not None
        with self._lock:
            if self._entries.get(key) is entry:
                self._entries.move_to_end(key)
            self._count(key, entry)
        return entry
