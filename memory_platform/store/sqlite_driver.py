"""The SQLite library the embedded store runs on: sqlean.py's bundled build, the same on
every machine, in place of the one Python was linked with.

Python's ``sqlite3`` runs whatever SQLite the system has: 3.40 on Debian 12, which FTS5's
``secure-delete`` option (3.42) postdates. Without it a deleted document's words stay in
the full-text index's segments until they merge, readable in the file, and the only way
to drop them now was merging the whole index (65 ms per forgotten turn at 100,000 turns,
growing with the store). sqlean.py ships SQLite 3.50 for Linux, macOS and Windows with
the ``sqlite3`` module's API; its extensions stay off unless ``SQLEAN_ENABLE`` is set.

Type checkers read the standard module's stubs: the API is the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3
else:
    import sqlean as sqlite3

__all__ = ["sqlite3"]

if sqlite3.sqlite_version_info < (3, 42, 0):  # pragma: no cover - pinned by the dependency
    raise ImportError(
        f"the embedded store needs SQLite 3.42 or newer, not {sqlite3.sqlite_version}"
    )
