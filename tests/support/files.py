"""What anyone holding an embedded store's file can read of it."""

from __future__ import annotations

from pathlib import Path


def stored_bytes(db: Path) -> bytes:
    """The bytes of the SQLite file and of its write-ahead log and shared memory, if any."""
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*") if p.is_file())
