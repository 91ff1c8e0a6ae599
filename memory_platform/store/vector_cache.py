"""In-memory matrices of each user's vectors for exact cosine search in SQLite.

Vectors are stored as float16 blobs (half the disk; cosine error about 1e-3) and held
in memory as float32 for fast BLAS products. A matrix is loaded once per (user, kind) and
refreshed by reading only the rows added
since (a trigger-maintained version counter says when); a delete forces a full reload.
Several processes may share the file: each keeps its own cache and sees the others'
writes through the counter.

The cache is bounded: past ``max_bytes`` the least recently searched (user, kind)
matrices are dropped and reloaded from the file when next needed, so a process that
serves many users does not grow without end.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["VectorCache", "decode_vector", "scan_scores"]

_PARALLEL_SCAN_BYTES = 64 << 20
"""Matrices smaller than this are scanned on one BLAS thread. On two cores a second
thread saves under 2 ms on such a scan, and the BLAS worker it wakes keeps spinning
afterwards against the embedder's own threads: a query embedding right after a 30,000 x 384
scan took 20.5 ms instead of 11.9 ms (measured on the development machine). A big user's
scan (100,000 x 896: 17 ms on two threads, 26 ms on one) keeps every thread."""


@lru_cache(maxsize=1)
def _blas_threads() -> Any:
    """threadpoolctl's controller of the loaded BLAS libraries (None without the package)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - installed with the default embedder
        return None
    return ThreadpoolController()


def _one_blas_thread() -> AbstractContextManager[Any]:
    """A context in which BLAS runs on one thread (a no-op without threadpoolctl)."""
    controller = _blas_threads()
    return nullcontext() if controller is None else controller.limit(limits=1, user_api="blas")


def scan_scores(
    matrix: npt.NDArray[np.float32], query: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """``matrix @ query``, on one BLAS thread unless the matrix is big enough to gain."""
    if matrix.nbytes >= _PARALLEL_SCAN_BYTES:
        return matrix @ query
    with _one_blas_thread():
        return matrix @ query


@dataclass
class _Matrix:
    """Rows in a buffer that grows by doubling, so appending a vector is amortised O(1)."""

    version: int = 0
    deletes: int = 0
    max_rowid: int = 0
    ids: list[str] = field(default_factory=list)
    buffer: npt.NDArray[np.float32] | None = None
    positions: dict[str, int] | None = None

    def append(self, ids: list[str], rows: npt.NDArray[np.float32]) -> None:
        count, needed = len(self.ids), len(self.ids) + len(ids)
        if self.buffer is None or self.buffer.shape[0] < needed:
            grown = np.zeros((max(needed, 2 * count, 64), rows.shape[1]), dtype=np.float32)
            if self.buffer is not None:
                grown[:count] = self.buffer[:count]
            self.buffer = grown
        self.buffer[count:needed] = rows
        self.ids.extend(ids)

    @property
    def nbytes(self) -> int:
        return 0 if self.buffer is None else int(self.buffer.nbytes)

    def dense(self, dim: int) -> npt.NDArray[np.float32]:
        if self.buffer is None:
            return np.zeros((0, dim), dtype=np.float32)
        return self.buffer[: len(self.ids)]


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
    """Per-process cache of (user, kind) → (ids, matrix), least recently used first out."""

    def __init__(self, dimension: int, max_bytes: int = 1 << 30) -> None:
        self._dim = dimension
        self._max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[tuple[str, str], _Matrix] = OrderedDict()
        self._lock = threading.Lock()

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

    def vectors(
        self, conn: sqlite3.Connection, user_id: str, kind: str, ref_ids: list[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """The cached rows of the given ids (refreshing the cache first)."""
        ids, matrix = self.matrix(conn, user_id, kind)
        with self._lock:
            entry = self._entries.get((user_id, kind))
            if entry is not None and entry.ids is ids:
                if entry.positions is None or len(entry.positions) != len(ids):
                    entry.positions = {ref: i for i, ref in enumerate(ids)}
                positions = entry.positions
            else:  # evicted meanwhile by another thread: index what we were given
                positions = {ref: i for i, ref in enumerate(ids[: len(matrix)])}
        return {ref: matrix[positions[ref]] for ref in ref_ids if ref in positions}

    def matrix(
        self, conn: sqlite3.Connection, user_id: str, kind: str
    ) -> tuple[list[str], npt.NDArray[np.float32]]:
        """The user's ids and their vectors (rows aligned), current as of this call."""
        row = conn.execute(
            "SELECT version, deletes FROM vector_versions WHERE user_id = ? AND kind = ?",
            (user_id, kind),
        ).fetchone()
        if row is None:
            return [], np.zeros((0, self._dim), dtype=np.float32)
        version, deletes = int(row[0]), int(row[1])
        key = (user_id, kind)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.deletes != deletes:
                if entry is not None:
                    self._bytes -= entry.nbytes
                entry = _Matrix()
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
                    entry.append(
                        [r[1] for r in rows], decode_vectors([r[2] for r in rows], self._dim)
                    )
                    entry.max_rowid = int(rows[-1][0])
                entry.version = version
                entry.deletes = deletes
            self._bytes += entry.nbytes - before
            self._evict(keep=key)
            return entry.ids, entry.dense(self._dim)
