"""Exact top-k vector search that reads the full rows of only a few candidates.

An exact scan of a big user's matrix reads every byte of it for every search (100,000
vectors of the ensemble's 896 dimensions: 358 MB, bound by memory bandwidth). A
:class:`Prefilter` holds the same rows projected onto their leading principal directions
(a third of the dimensions) and, for each row, the norm of what the projection leaves
out. For a query ``q`` and a row ``x`` split the same way, Cauchy-Schwarz bounds the exact
score::

    x · q = xp · qp + xr · qr <= xp · qp + |xr| |qr|

So a search scans the small projection, scores the best few rows exactly to learn a
score ``tau`` that the k-th best row reaches at least, and then scores exactly only the
rows whose bound reaches ``tau``: every row of the true top k is among them. The answer is
the exact one, not an approximation; what the projection buys is how few rows pass the
bound (on LoCoMo's turns and observations, 7% on average), and a query for which too many pass is answered
by the full scan.

The directions are fitted once, on a sample of the rows, once a matrix has grown past
:data:`PREFILTER_FROM_BYTES` (by the vector cache, in the search that first finds it so);
rows added later are projected onto the same directions, and a matrix reloaded after a
deletion keeps the projections of the rows still there (:meth:`Prefilter.carried_over`).
A later row the directions fit less well only loosens its bound, never breaks it. The
projection costs a third of the matrix's memory again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["PREFILTER_FROM_BYTES", "Prefilter", "PrefilterView"]

PREFILTER_FROM_BYTES = 64 << 20
"""Matrices from this size get a prefilter (about 19,000 vectors of 896 dimensions, 44,000
of 384). Below it an exact scan takes a few milliseconds and the projection would not pay
for its memory."""

_SHARE_OF_DIMENSIONS = 3
"""The projection keeps one dimension in this many. On LoCoMo's turns and observations
(896 dimensions, k 50) a third kept 6.8% of the rows on average and sent 4 questions in
300 to the full scan; a quarter kept 12.0% and sent 25; half kept 3.3% but is itself half
a scan (``benchmarks/results/vector_prefilter.md``)."""

_FIT_SAMPLE = 20_000
"""Rows the directions are fitted on (evenly spaced through the matrix)."""

_OVERSAMPLE = 4
"""The search scores exactly this many times k of the projection's best rows to set ``tau``."""

_MOST_TO_RESCORE = 0.25
"""Past this share of the rows passing the bound, the full scan is cheaper."""

_MARGIN = 1e-3
"""Added to every bound: float32 rounding in the projection and in the residual norms
is below 1e-3 on unit vectors, so no row is dropped by it."""


@dataclass(frozen=True)
class PrefilterView:
    """A prefilter as of one moment: its first ``len(residual)`` rows (later appends write
    past them, or into a new buffer)."""

    basis: npt.NDArray[np.float32]  # (dim, d)
    projected: npt.NDArray[np.float32]  # (rows, d)
    residual: npt.NDArray[np.float32]  # (rows,)

    def candidates(
        self,
        rows: npt.NDArray[np.float32],
        query: npt.NDArray[np.float32],
        k: int,
        scan: Callable[[npt.NDArray[np.float32], npt.NDArray[np.float32]], npt.NDArray[np.float32]],
        live: npt.NDArray[np.intp] | None = None,
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]] | None:
        """Positions of the rows that may be among the ``k`` best for ``query``, with their
        exact scores; None where the full scan is the cheaper answer. ``rows`` is the full
        matrix this view was taken with; ``scan`` multiplies a matrix by a vector; ``live``,
        where given, the only positions that may be answered (the others are deleted)."""
        count = len(self.residual)
        best_count = _OVERSAMPLE * k
        if count != len(rows) or best_count * 4 > (count if live is None else len(live)):
            return None
        reduced_query = query @ self.basis
        left_out = float(np.sqrt(max(0.0, float(query @ query - reduced_query @ reduced_query))))
        approximate = scan(self.projected, reduced_query)
        if live is not None:  # deleted rows neither set tau nor pass the bound
            hidden = np.full(count, -np.inf, dtype=np.float32)
            hidden[live] = approximate[live]
            approximate = hidden
        best = np.argpartition(-approximate, best_count - 1)[:best_count]
        exact_best = rows[best] @ query
        tau = float(np.partition(exact_best, best_count - k)[best_count - k])
        bound = approximate + self.residual * np.float32(left_out)
        keep = np.flatnonzero(bound >= np.float32(tau - _MARGIN))
        if len(keep) > _MOST_TO_RESCORE * count:
            return None
        return keep, rows[keep] @ query


class Prefilter:
    """The projection of a matrix's rows and their residual norms, appendable."""

    def __init__(self, basis: npt.NDArray[np.float32]) -> None:
        self.basis = basis
        self._projected = np.zeros((0, basis.shape[1]), dtype=np.float32)
        self._residual = np.zeros(0, dtype=np.float32)
        self.rows = 0

    @classmethod
    def fit(cls, rows: npt.NDArray[np.float32], dimensions: int | None = None) -> Prefilter:
        """Directions fitted on a sample of ``rows`` (``dimensions`` of them, by default
        :func:`dimensions_kept`), and every row projected."""
        dim = rows.shape[1]
        step = max(1, len(rows) // _FIT_SAMPLE)
        sample = rows[::step][:_FIT_SAMPLE]
        # about the origin, not the mean: what is bounded is the dot product itself
        second_moment = (sample.T @ sample).astype(np.float64)
        _, directions = np.linalg.eigh(second_moment)  # orthonormal, ascending eigenvalues
        basis = np.ascontiguousarray(
            directions[:, ::-1][:, : dimensions or dimensions_kept(dim)], np.float32
        )
        prefilter = cls(basis)
        prefilter.extend(rows)
        return prefilter

    def extend(self, rows: npt.NDArray[np.float32]) -> None:
        """Project rows appended to the matrix since the last call (``rows`` is the whole
        matrix; the first :attr:`rows` are already projected)."""
        new = rows[self.rows :]
        if not len(new):
            return
        needed = self.rows + len(new)
        if self._projected.shape[0] < needed:
            size = max(needed, 2 * self._projected.shape[0], 1024)
            projected = np.zeros((size, self.basis.shape[1]), dtype=np.float32)
            residual = np.zeros(size, dtype=np.float32)
            projected[: self.rows] = self._projected[: self.rows]
            residual[: self.rows] = self._residual[: self.rows]
            self._projected, self._residual = projected, residual
        self._project(new, np.arange(self.rows, needed))
        self.rows = needed

    def carried_over(
        self, rows: npt.NDArray[np.float32], previous: npt.NDArray[np.intp]
    ) -> Prefilter:
        """The prefilter of a matrix reloaded from the file (after a deletion): ``rows``
        is the new matrix, and ``previous[i]`` the position in this prefilter of an
        unchanged row ``i`` (-1 for a row that is new or changed). Unchanged rows keep
        their projection, the others are projected now: a reload of 100,000 vectors does
        not fit the directions again."""
        carried = Prefilter(self.basis)
        carried._projected = np.zeros((len(rows), self.basis.shape[1]), dtype=np.float32)
        carried._residual = np.zeros(len(rows), dtype=np.float32)
        kept = np.flatnonzero(previous >= 0)
        carried._projected[kept] = self._projected[previous[kept]]
        carried._residual[kept] = self._residual[previous[kept]]
        fresh = np.flatnonzero(previous < 0)
        carried._project(rows[fresh], fresh)
        carried.rows = len(rows)
        return carried

    def _project(self, rows: npt.NDArray[np.float32], at: npt.NDArray[np.intp]) -> None:
        """Store the projections and residual norms of ``rows`` at positions ``at``."""
        for start in range(0, len(rows), 8192):  # bounded temporaries
            chunk = rows[start : start + 8192]
            reduced = chunk @ self.basis
            squared = np.einsum("ij,ij->i", chunk, chunk) - np.einsum("ij,ij->i", reduced, reduced)
            where = at[start : start + 8192]
            self._projected[where] = reduced
            self._residual[where] = np.sqrt(np.maximum(squared, 0.0))

    def view(self) -> PrefilterView:
        return PrefilterView(self.basis, self._projected[: self.rows], self._residual[: self.rows])

    @property
    def nbytes(self) -> int:
        return int(self.basis.nbytes + self._projected.nbytes + self._residual.nbytes)


def dimensions_kept(dim: int) -> int:
    """The projection's dimensions for vectors of ``dim``."""
    return max(1, dim // _SHARE_OF_DIMENSIONS)
