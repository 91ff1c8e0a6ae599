"""The directory where files unpacked from model packages are kept for later processes.

The first process to need the Universal Sentence Encoder's table (``use_weights.py``) or
a glossary of the Chinese-English dictionary (``retrieval/gloss.py``) builds it and writes
it here; later processes map it. Each file is named by what it was made of (a package version, a
format), so an upgrade writes a new file beside the old one. A file of ours that no
process has used for :data:`UNUSED_FOR` is deleted when a process next uses the cache:
each use marks its file (its access time set, the modification time kept), so a file
another install still uses is kept, and one deleted by mistake is only built again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["UNUSED_FOR", "cache_directory", "cached_files", "mark_used", "write_whole"]

log = logging.getLogger(__name__)

UNUSED_FOR = 30 * 24 * 3600.0
"""Seconds after its last use that a cached file is deleted. Not tuned: deleting one that
is still wanted costs a second of unpacking, keeping one that is not costs up to 65 MB."""
_PARTIAL_FOR = 3600.0
"""Seconds after which a partial file (a writer killed mid-write) is deleted; writing one
takes about a second."""
_OURS = ("use-table-*.npy", "cedict-*.tsv")
"""The files this package writes: nothing else in the directory is ever deleted."""


def cache_directory() -> Path | None:
    """Where unpacked model files are kept: ``MEMORY_MODEL_CACHE_DIR``, else the XDG cache
    (``~/.cache/memory-platform``); ``MEMORY_MODEL_CACHE_DIR=""`` turns the cache off."""
    configured = os.environ.get("MEMORY_MODEL_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "memory-platform"


def cached_files(directory: Path) -> list[Path]:
    """This package's files in the cache ``directory`` (no partial ones), by name."""
    return sorted(path for pattern in _OURS for path in directory.glob(pattern))


def write_whole(path: Path, write: Callable[[BinaryIO], object]) -> bool:
    """Write a cached file whole or not at all (a partial file renamed into place), and
    delete what is stale beside it; False, after a log line, where it cannot be written."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("wb") as out:
            write(out)
        os.replace(partial, path)
    except OSError as exc:
        log.info("%s not cached (%s): the next process builds it again", path.name, exc)
        return False
    finally:
        with contextlib.suppress(OSError):  # renamed already, or never made
            partial.unlink()
    _delete_stale(path)
    return True


def mark_used(path: Path) -> None:
    """Record that ``path`` is in use (its access time now), and delete what is stale
    beside it. A cache its user cannot write is used as it is."""
    with contextlib.suppress(OSError):
        os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns))
    _delete_stale(path)


def _delete_stale(in_use: Path) -> None:
    """Delete this package's cached files unused for :data:`UNUSED_FOR` and partial files
    left for :data:`_PARTIAL_FOR`, never ``in_use``."""
    now = time.time()
    for pattern in _OURS:
        for candidate in in_use.parent.glob(pattern):
            _delete_if_older(candidate, in_use, now - UNUSED_FOR)
        for candidate in in_use.parent.glob(f"{pattern}.*.tmp"):
            _delete_if_older(candidate, in_use, now - _PARTIAL_FOR)


def _delete_if_older(candidate: Path, in_use: Path, before: float) -> None:
    with contextlib.suppress(OSError):  # gone already, or not ours to delete
        stat = candidate.stat()
        if candidate != in_use and max(stat.st_atime, stat.st_mtime) < before:
            candidate.unlink()
            log.info("deleted %s, unused since %s", candidate.name, time.ctime(stat.st_atime))
