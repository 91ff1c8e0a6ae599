"""The embedded backend: one SQLite file in WAL mode, FTS5 for words, numpy for vectors.

Several processes may open the same file (WAL, busy timeout). Each thread gets its own
connection; every write runs in one ``BEGIN IMMEDIATE`` transaction, so a memory's
subgraph is written entirely or not at all.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..clock import UTC_OFFSET_KEY
from ..errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StorageError,
    TransientStorageError,
)
from ..models import (
    AuditEntry,
    ContentNode,
    EdgeType,
    Episode,
    ExpansionHit,
    KnowledgePoint,
    KnowledgeType,
    KnowledgeVersion,
    LexicalHit,
    LinkType,
    Memory,
    MemoryLink,
    MemoryStatus,
    MemorySubgraph,
    MemoryType,
    NodeType,
    StructuralEdge,
    VectorHit,
    VectorKind,
    utc,
)
from ..textutil import (
    fts_query,
    lexical_signature,
    lexical_tokens,
    normalize_name,
    tokens_document,
    user_token,
)
from .base import (
    SHARED_NODE,
    EmbeddingSignature,
    GraphStore,
    MemoryRecord,
    PendingEmbedding,
    StoreStats,
    ToldItems,
    check_supersession,
    episode_document,
    memory_document,
    metadata_json,
    pick_shortest_paths,
    relation_filter,
    single_user,
)
from .lexical_cache import LexicalCache
from .sessions import StoredTurn, link_session_turns
from .sqlite_driver import sqlite3
from .sqlite_schema import (
    CLOCKED_SQL,
    REQUEUE_ALL,
    SPOKEN_LINE_SQL,
    migrate,
    schema_version,
    searchable_sql,
)
from .vector_cache import VectorCache

__all__ = ["SQLiteGraphStore"]


def _ts(value: datetime | None) -> float | None:
    return None if value is None else utc(value).timestamp()  # naive: UTC, not local


def _dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def _dt_required(value: float) -> datetime:
    return datetime.fromtimestamp(value, UTC)


_STORED_VECTOR_DTYPE = np.float16
"""Vectors are written as float16: half the disk, cosine error about 1e-3 (the cache reads
float32 rows too; ``benchmarks/micro/lucene_parity.py`` stores float32, as Neo4j holds
them, to predict that backend's recall)."""

_PENDING_SQL = (
    "SELECT pv.user_id, pv.kind, pv.ref_id,"
    " CASE WHEN pv.kind = 'episode' THEN COALESCE(("
    "   SELECT COALESCE(p.speaker || ': ', '') || p.text || char(10) FROM episodes p"
    "   WHERE p.next_id = pv.ref_id AND p.user_id = pv.user_id"
    f"   AND {searchable_sql('p')} LIMIT 1), '') || pv.text"
    " || COALESCE(("
    "   SELECT char(10) || COALESCE(n.speaker || ': ', '') || n.text"
    "   FROM episodes e JOIN episodes n ON n.id = e.next_id"
    "   WHERE e.id = pv.ref_id AND n.user_id = pv.user_id"
    f"   AND {searchable_sql('n')}), '')"
    " ELSE pv.text END, pv.seq"
    " FROM pending_vectors pv"
)
"""Items waiting for a vector. A queued episode's text is its spoken line (the trigger's);
the turns before and after it are put around it here, from the NEXT chain as it stands
when the item is embedded (``episode_embedding_text``), leaving out a turn kept out of
search."""


_T = TypeVar("_T")


def _chunks(items: Sequence[_T], size: int = 500) -> Iterator[list[_T]]:
    """``items`` in lists of at most ``size`` (SQLite caps a statement's parameters)."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _placeholders(count: int) -> str:
    return ",".join("?" * count)


def _queue_versions(
    conn: sqlite3.Connection, kind: VectorKind, refs: Sequence[str]
) -> dict[str, str]:
    """The seq of each queued item's entry (its :attr:`PendingEmbedding.version`)."""
    out: dict[str, str] = {}
    for chunk in _chunks(refs):
        out.update(
            (ref, str(seq))
            for ref, seq in conn.execute(
                "SELECT ref_id, seq FROM pending_vectors"
                f" WHERE kind = ? AND ref_id IN ({_placeholders(len(chunk))})",
                (kind.value, *chunk),
            )
        )
    return out


def _queue_episodes(conn: sqlite3.Connection, ids: Sequence[str]) -> None:
    """Queue episodes to be embedded again: a neighbouring turn came or went, and their
    vector's text follows the NEXT chain (``episode_embedding_text``). An episode already
    queued is queued anew (a new seq): one being embedded right now has a stale text.
    One kept out of search has no vector to renew."""
    for chunk in _chunks(ids):
        conn.execute(
            "INSERT OR REPLACE INTO pending_vectors(user_id, kind, ref_id, text)"
            f" SELECT user_id, 'episode', id, {SPOKEN_LINE_SQL}"
            f" FROM episodes WHERE id IN ({_placeholders(len(chunk))}) AND {searchable_sql()}",
            chunk,
        )


class SQLiteGraphStore(GraphStore):
    """:class:`GraphStore` on one SQLite file."""

    backend_name = "sqlite"
    parallel_reads = True  # each thread reads on its own connection, none in a transaction

    def __init__(
        self,
        path: str | Path,
        signature: EmbeddingSignature,
        busy_timeout_ms: int = 10_000,
        vector_cache_bytes: int = 1 << 30,
    ) -> None:
        super().__init__(signature)
        self._path = Path(path).expanduser()
        if str(path) != ":memory:":
            self._path.parent.mkdir(parents=True, exist_ok=True)
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._all_conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()
        self._closed = False
        self._cache = VectorCache(
            signature.dimension,
            max_bytes=vector_cache_bytes,
            # node names repeat until consolidation merges them; memory texts rarely do
            shared_kinds=(VectorKind.TOPIC.value, VectorKind.OBJECT.value),
        )
        self._lexicon = LexicalCache()
        try:
            with self._translate():
                fresh = schema_version(self._conn()) == 0
                migrate(self._conn())
            if fresh:  # its documents will all be tokenized by this tokenizer
                self._record_lexical_signature(lexical_signature())
        except BaseException:  # a file it cannot use: its connection is not left open
            self.close()
            raise

    # -- connections and transactions --------------------------------------------

    @property
    def path(self) -> Path:
        return self._path

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StorageError("the store is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                str(self._path), isolation_level=None, check_same_thread=False, timeout=30
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = OFF")
            conn.execute("PRAGMA temp_store = MEMORY")
            # a deleted row's bytes are zeroed, freed pages included: a forgotten memory's
            # text is not left in the file for anyone to read. Debian's SQLite is built
            # so (what every figure here was measured with); others default to off.
            conn.execute("PRAGMA secure_delete = ON")
            self._local.conn = conn
            with self._conns_lock:
                self._all_conns.append(conn)
        return conn

    @contextmanager
    def _translate(self) -> Iterator[None]:
        """Turn sqlite3 errors into the platform's storage errors."""
        try:
            yield
        except sqlite3.IntegrityError as exc:
            raise ConflictError(f"write conflicts with existing data: {exc}") from exc
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if "locked" in text or "busy" in text:
                raise TransientStorageError(f"database busy: {exc}") from exc
            raise StorageError(f"sqlite error: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"sqlite error: {exc}") from exc

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One immediate write transaction, rolled back on any error."""
        conn = self._conn()
        with self._translate():
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            else:
                conn.execute("COMMIT")

    def _read(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[Any]:
        with self._translate():
            return self._conn().execute(sql, params).fetchall()

    def close(self) -> None:
        with self._conns_lock:
            for conn in self._all_conns:
                with suppress(sqlite3.Error):  # closing a broken connection
                    conn.close()
            self._all_conns.clear()
        self._closed = True
        self._cache.close()
        self._lexicon.clear()

    # -- signature -------------------------------------------------------------------

    def _stored_signature(self) -> EmbeddingSignature | None:
        rows = self._read("SELECT value FROM meta WHERE key = 'embedding_signature'")
        return EmbeddingSignature.model_validate_json(rows[0][0]) if rows else None

    def _record_signature(self, signature: EmbeddingSignature) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('embedding_signature', ?)",
                (signature.model_dump_json(),),
            )

    def reset_embeddings(self) -> int:
        with self._tx() as conn:
            for statement in REQUEUE_ALL:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('embedding_signature', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (self._signature.model_dump_json(),),
            )
            queued = int(conn.execute("SELECT count(*) FROM pending_vectors").fetchone()[0])
        self._cache.clear()
        return queued

    def pending_count(self) -> int:
        return int(self._read("SELECT count(*) FROM pending_vectors")[0][0])

    # -- lexical signature and retokenizing --------------------------------------------

    def _stored_lexical_signature(self) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = 'lexical_signature'")
        return str(rows[0][0]) if rows else None

    def _record_lexical_signature(self, signature: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('lexical_signature', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (signature,),
            )

    def lexical_document_count(self) -> int:
        return int(self._read("SELECT count(*) FROM lexical_docs")[0][0])

    def _retokenize_pages(self, page_size: int) -> Iterator[int]:
        # documents written from now on get row ids above this one, tokenized already
        upto = self._read("SELECT max(rowid) FROM lexical_docs")[0][0]
        after = 0
        while upto is not None:
            with self._tx() as conn:
                rows = conn.execute(
                    "SELECT rowid, user_id, kind, ref_id FROM lexical_docs"
                    " WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
                    (after, upto, page_size),
                ).fetchall()
                if not rows:
                    return
                after = rows[-1][0]
                groups: dict[tuple[str, str], list[str]] = {}
                for _rowid, user, kind, ref_id in rows:
                    groups.setdefault((user, kind), []).append(ref_id)
                for (user, kind), ids in groups.items():
                    documents = self._lexical_sources(conn, user, VectorKind(kind), ids)
                    # new row ids, so that every lexical cache sees the change; an item
                    # gone (or kept out of search) leaves the index
                    self._index_texts(conn, user, VectorKind(kind), documents)
                    self._unindex(conn, VectorKind(kind), [i for i in ids if i not in documents])
            yield len(rows)

    def _lexical_sources(
        self, conn: sqlite3.Connection, user: str, kind: VectorKind, ids: Sequence[str]
    ) -> dict[str, str]:
        """The text each item's lexical document is made from, for a user's ``ids`` of one
        kind (at most 500)."""
        marks = _placeholders(len(ids))
        if kind is VectorKind.EPISODE:
            return self._episode_documents(conn, user, ids)[1]
        if kind is VectorKind.MEMORY:
            return {
                m.id: memory_document(m)
                for m in (
                    _memory_from_row(r)
                    for r in conn.execute(
                        f"SELECT {_MEMORY_COLUMNS} FROM memories"
                        f" WHERE +user_id = ? AND id IN ({marks})",
                        (user, *ids),
                    )
                )
            }
        return {
            r[0]: r[1]
            for r in conn.execute(
                f"SELECT id, content FROM knowledge WHERE user_id = ? AND id IN ({marks})",
                (user, *ids),
            )
        }

    # -- lexical index helpers ---------------------------------------------------------

    @staticmethod
    def _index_texts(
        conn: sqlite3.Connection, user_id: str, kind: VectorKind, texts: Mapping[str, str]
    ) -> None:
        """Index (or index again) each item's text, for one user and kind, in bulk.

        FTS5 keeps its changes in memory until a write to another table in the same
        transaction (or the commit) flushes them as a new segment, merged into the others
        as the index grows: a write between two of its writes costs a flush. So the rows
        of ``lexical_docs`` are written first, then FTS5's deletes and inserts together
        (indexing each memory of a batch between its other rows took 57% of the time of
        writing 1,000 memories).
        """
        if not texts:
            return
        old = SQLiteGraphStore._document_rowids(conn, kind, list(texts))
        for chunk in _chunks(old):
            conn.execute(
                f"DELETE FROM lexical_docs WHERE rowid IN ({_placeholders(len(chunk))})", chunk
            )
        # row ids are never reused (AUTOINCREMENT): the next after the last ever given
        last = conn.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = 'lexical_docs'"
        ).fetchone()
        first = (int(last[0]) if last else 0) + 1
        conn.executemany(
            "INSERT INTO lexical_docs(rowid, user_id, kind, ref_id) VALUES (?, ?, ?, ?)",
            [(first + i, user_id, kind.value, ref_id) for i, ref_id in enumerate(texts)],
        )
        for chunk in _chunks(old):
            conn.execute(f"DELETE FROM lexical WHERE rowid IN ({_placeholders(len(chunk))})", chunk)
        utok = user_token(user_id)
        conn.executemany(
            "INSERT INTO lexical(rowid, tokens, utok) VALUES (?, ?, ?)",
            [(first + i, tokens_document(text), utok) for i, text in enumerate(texts.values())],
        )

    @staticmethod
    def _document_rowids(
        conn: sqlite3.Connection, kind: VectorKind, ref_ids: Sequence[str]
    ) -> list[int]:
        """The row ids of these items' lexical documents."""
        return [
            r[0]
            for chunk in _chunks(ref_ids)
            for r in conn.execute(
                "SELECT rowid FROM lexical_docs"
                f" WHERE kind = ? AND ref_id IN ({_placeholders(len(chunk))})",
                (kind.value, *chunk),
            )
        ]

    @staticmethod
    def _unindex(conn: sqlite3.Connection, kind: VectorKind, ref_ids: Sequence[str]) -> None:
        for chunk in _chunks(SQLiteGraphStore._document_rowids(conn, kind, ref_ids)):
            marks = _placeholders(len(chunk))
            conn.execute(f"DELETE FROM lexical_docs WHERE rowid IN ({marks})", chunk)
            conn.execute(f"DELETE FROM lexical WHERE rowid IN ({marks})", chunk)

    @staticmethod
    def _delete_vectors(conn: sqlite3.Connection, kind: VectorKind, ref_ids: Sequence[str]) -> None:
        for chunk in _chunks(ref_ids):
            conn.execute(
                f"DELETE FROM vectors WHERE kind = ? AND ref_id IN ({_placeholders(len(chunk))})",
                (kind.value, *chunk),
            )

    # -- memories --------------------------------------------------------------------

    def write_memories(self, subgraphs: Sequence[MemorySubgraph]) -> None:
        if single_user(subgraphs) is None:
            return
        with self._tx() as conn:
            for subgraph in subgraphs:
                self._insert_memory(conn, subgraph)
            user = subgraphs[0].memory.user_id
            documents = {g.memory.id: memory_document(g.memory) for g in subgraphs}
            self._index_texts(conn, user, VectorKind.MEMORY, documents)

    def _insert_memory(self, conn: sqlite3.Connection, subgraph: MemorySubgraph) -> None:
        """One memory's rows but its lexical document, inside the caller's transaction."""
        memory = subgraph.memory
        user = memory.user_id
        ids = [n.id for n in subgraph.nodes]
        owners = conn.execute(
            f"SELECT id, user_id FROM nodes WHERE id IN ({_placeholders(len(ids))})", ids
        ).fetchall()
        if any(owner != user for _, owner in owners):
            raise ConflictError("a node id of this memory belongs to another user")
        existing = {node_id for node_id, _ in owners}
        conn.executemany(
            "INSERT INTO nodes(id, user_id, kind, content, norm, created_at, merged_from)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    n.id,
                    user,
                    n.kind.value,
                    n.content,
                    normalize_name(n.content),
                    _ts(n.created_at),
                    json.dumps(n.merged_from),
                )
                for n in subgraph.nodes
                if n.id not in existing
            ],
        )
        conn.execute(
            "INSERT INTO memories(id, user_id, memory_type, title, text, importance, status,"
            " created_at, event_time, last_accessed, access_count, valid_from, invalid_at,"
            " session_id, source, attributes, metadata)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                memory.id,
                user,
                memory.memory_type.value,
                memory.title,
                memory.text,
                memory.importance,
                memory.status.value,
                _ts(memory.created_at),
                _ts(memory.event_time),
                _ts(memory.last_accessed),
                memory.access_count,
                _ts(memory.valid_from),
                _ts(memory.invalid_at),
                memory.session_id,
                memory.source,
                json.dumps(memory.attributes, ensure_ascii=False),
                metadata_json(memory.metadata),
            ),
        )
        conn.executemany(
            "INSERT INTO memory_nodes(memory_id, node_id, user_id) VALUES (?, ?, ?)",
            [(memory.id, node_id, user) for node_id in ids],
        )
        conn.execute(
            f"UPDATE nodes SET degree = degree + 1 WHERE id IN ({_placeholders(len(ids))})",
            ids,
        )
        conn.executemany(
            "INSERT INTO edges(user_id, memory_id, src_id, dst_id, type, label)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(user, memory.id, e.src_id, e.dst_id, e.type.value, e.label) for e in subgraph.edges],
        )

    def get_memory(self, user_id: str, memory_id: str) -> MemoryRecord | None:
        user = self._check_user(user_id)
        rows = self._read(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = ? AND user_id = ?",
            (memory_id, user),
        )
        if not rows:
            return None
        memory = _memory_from_row(rows[0])
        nodes = [
            _node_from_row(r)
            for r in self._read(
                f"SELECT {_NODE_COLUMNS} FROM nodes n JOIN memory_nodes mn ON mn.node_id = n.id"
                " WHERE mn.memory_id = ? AND n.user_id = ? ORDER BY n.created_at, n.id",
                (memory_id, user),
            )
        ]
        edges = [
            StructuralEdge(src_id=r[0], dst_id=r[1], type=EdgeType(r[2]), label=r[3])
            for r in self._read(
                "SELECT src_id, dst_id, type, label FROM edges"
                " WHERE memory_id = ? AND user_id = ? ORDER BY id",
                (memory_id, user),
            )
        ]
        return MemoryRecord(
            memory=memory, nodes=nodes, edges=edges, links=self.get_links(user, memory_id)
        )

    def get_memories(self, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        user = self._check_user(user_id)
        out: list[Memory] = []
        ids = list(dict.fromkeys(memory_ids))
        for chunk in _chunks(ids):
            out.extend(
                _memory_from_row(r)
                for r in self._read(
                    f"SELECT {_MEMORY_COLUMNS} FROM memories"  # +: by id, not the user's index
                    f" WHERE +user_id = ? AND id IN ({_placeholders(len(chunk))})",
                    (user, *chunk),
                )
            )
        return out

    def list_memories(
        self,
        user_id: str,
        status: MemoryStatus | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]:
        user = self._check_user(user_id)
        if status is None:
            rows = self._read(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE user_id = ?"
                " ORDER BY created_at, id LIMIT ? OFFSET ?",
                (user, limit, offset),
            )
        else:
            rows = self._read(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND status = ?"
                " ORDER BY created_at, id LIMIT ? OFFSET ?",
                (user, MemoryStatus(status).value, limit, offset),
            )
        return [_memory_from_row(r) for r in rows]

    def update_memory(
        self,
        user_id: str,
        memory_id: str,
        *,
        status: MemoryStatus | None = None,
        importance: float | None = None,
        valid_from: datetime | None = None,
        invalid_at: datetime | None = None,
        clear_invalid: bool = False,
        metadata: Mapping[str, Any] | None = None,
        only_if_current: bool = False,
    ) -> Memory:
        user = self._check_user(user_id)
        sets: list[str] = []
        params: list[Any] = []
        if status is not None:
            sets.append("status = ?")
            params.append(MemoryStatus(status).value)
        if importance is not None:
            if not 0.0 <= importance <= 1.0:
                raise InvalidInputError("must be between 0 and 1", "importance")
            sets.append("importance = ?")
            params.append(float(importance))
        if valid_from is not None:
            sets.append("valid_from = ?")
            params.append(_ts(valid_from))
        if clear_invalid:
            sets.append("invalid_at = NULL")
        elif invalid_at is not None:
            sets.append("invalid_at = ?")
            params.append(_ts(invalid_at))
        if metadata is not None:
            sets.append("metadata = ?")
            params.append(metadata_json(metadata))
        current = " AND invalid_at IS NULL" if only_if_current else ""
        with self._tx() as conn:
            changed = 1
            if sets:
                changed = conn.execute(
                    f"UPDATE memories SET {', '.join(sets)} WHERE id = ? AND user_id = ?{current}",
                    (*params, memory_id, user),
                ).rowcount
            row = conn.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = ? AND user_id = ?",
                (memory_id, user),
            ).fetchone()
        if row is None:
            raise NotFoundError("memory", memory_id)
        if not changed:
            raise ConflictError(f"memory {memory_id!r} is no longer current; nothing changed")
        return _memory_from_row(row)

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        self._count_access(
            "UPDATE memories SET access_count = access_count + 1, last_accessed = ?",
            (_ts(at),),
            user_id,
            memory_ids,
        )

    def _count_access(
        self, update: str, values: tuple[Any, ...], user_id: str, ids: Sequence[str]
    ) -> None:
        """Run a fixed access-count UPDATE over the user's ids, in parameter-sized slices."""
        user = self._check_user(user_id)
        unique = list(dict.fromkeys(ids))
        if not unique:
            return
        with self._tx() as conn:
            for chunk in _chunks(unique):
                conn.execute(
                    f"{update} WHERE +user_id = ? AND id IN ({_placeholders(len(chunk))})",
                    (*values, user, *chunk),
                )

    def delete_memory(self, user_id: str, memory_id: str) -> bool:
        user = self._check_user(user_id)
        with self._tx() as conn:
            found = conn.execute(
                "SELECT 1 FROM memories WHERE id = ? AND user_id = ?", (memory_id, user)
            ).fetchone()
            if not found:
                return False
            node_ids = [
                r[0]
                for r in conn.execute(
                    "SELECT node_id FROM memory_nodes WHERE memory_id = ?", (memory_id,)
                )
            ]
            conn.execute("DELETE FROM memory_nodes WHERE memory_id = ?", (memory_id,))
            conn.execute("DELETE FROM edges WHERE memory_id = ?", (memory_id,))
            conn.execute(
                "DELETE FROM links WHERE +user_id = ? AND (source_id = ? OR target_id = ?)",
                (user, memory_id, memory_id),
            )
            conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
            self._unindex(conn, VectorKind.MEMORY, [memory_id])
            self._delete_vectors(conn, VectorKind.MEMORY, [memory_id])
            if node_ids:
                marks = _placeholders(len(node_ids))
                conn.execute(
                    f"UPDATE nodes SET degree = degree - 1 WHERE id IN ({marks})", node_ids
                )
                orphans = [
                    r[0]
                    for r in conn.execute(
                        f"SELECT id FROM nodes WHERE id IN ({marks}) AND degree <= 0", node_ids
                    )
                ]
                self._delete_nodes(conn, orphans)
        return True

    def _delete_nodes(self, conn: sqlite3.Connection, node_ids: Sequence[str]) -> None:
        if not node_ids:
            return
        marks = _placeholders(len(node_ids))
        conn.execute(
            f"DELETE FROM edges WHERE src_id IN ({marks}) OR dst_id IN ({marks})",
            (*node_ids, *node_ids),
        )
        conn.execute(f"DELETE FROM nodes WHERE id IN ({marks})", node_ids)
        for kind in (VectorKind.TOPIC, VectorKind.OBJECT):
            self._delete_vectors(conn, kind, node_ids)

    def delete_user(self, user_id: str) -> None:
        user = self._check_user(user_id)
        with self._tx() as conn:
            for table in (
                "memories",
                "nodes",
                "memory_nodes",
                "edges",
                "links",
                "episodes",
                "knowledge_versions",
                "knowledge",
                "told_by",
                "vectors",
                "pending_vectors",
            ):
                conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user,))
            _delete_user_documents(conn, user)
            conn.execute("DELETE FROM lexical_docs WHERE user_id = ?", (user,))
            conn.execute("DELETE FROM media_vectors WHERE user_id = ?", (user,))
            conn.execute("DELETE FROM audit_log WHERE user_id = ?", (user,))
        # this process's copies go too (another process's find the rows gone at its next
        # search of the user, and are evicted in their turn)
        self._cache.forget_user(user)
        self._lexicon.forget_user(user)

    # -- links -------------------------------------------------------------------------

    def add_link(self, link: MemoryLink) -> None:
        with self._tx() as conn:
            _invalid_at(conn, link.user_id, (link.source_id, link.target_id))
            _insert_link(conn, link)

    def supersede_memory(
        self,
        user_id: str,
        newer_id: str,
        older_id: str,
        *,
        at: datetime,
        links: Sequence[MemoryLink],
    ) -> None:
        user = self._check_user(user_id)
        check_supersession(user, newer_id, older_id, links)
        with self._tx() as conn:  # BEGIN IMMEDIATE: no other write between read and write
            for memory_id, invalid_at in _invalid_at(conn, user, (newer_id, older_id)).items():
                if invalid_at is not None:
                    raise ConflictError(f"memory {memory_id!r} is no longer current")
            conn.execute("UPDATE memories SET invalid_at = ? WHERE id = ?", (_ts(at), older_id))
            for link in links:
                _insert_link(conn, link)

    def reinstate_memory(self, user_id: str, newer_id: str, older_id: str) -> bool:
        user = self._check_user(user_id)
        # BEGIN IMMEDIATE: no other write between read and write; ``+user_id`` keeps the
        # user a filter, so the links are found by their ends (the primary key)
        with self._tx() as conn:
            if _invalid_at(conn, user, (newer_id, older_id))[older_id] is None:
                return False
            discovered = conn.execute(
                "SELECT 1 FROM links WHERE +user_id = ? AND source_id = ? AND target_id = ?"
                " AND type = 'SUPERSEDES' AND discovered = 1",
                (user, newer_id, older_id),
            ).fetchone()
            if discovered is None:
                return False
            conn.execute(
                "DELETE FROM links WHERE +user_id = ? AND type IN ('SUPERSEDES', 'CONFLICTS_WITH')"
                " AND ((source_id = ? AND target_id = ?) OR (source_id = ? AND target_id = ?))",
                (user, newer_id, older_id, older_id, newer_id),
            )
            conn.execute(
                "UPDATE memories SET invalid_at = NULL, status = ? WHERE id = ? AND user_id = ?",
                (MemoryStatus.STAGED.value, older_id, user),
            )
        return True

    def get_links(self, user_id: str, memory_id: str) -> list[MemoryLink]:
        user = self._check_user(user_id)
        # ``+user_id`` keeps the user a filter: the links are read by the memory's id from
        # both ends' indexes, not from the user's whole index of links (0.22 ms -> 0.008 ms
        # for a user of 10,000 memories; consolidating 500 memories asked 18,000 times)
        rows = self._read(
            "SELECT source_id, target_id, type, importance, discovered, confidence, created_at"
            " FROM links WHERE +user_id = ? AND (source_id = ? OR target_id = ?)"
            " ORDER BY created_at, source_id, target_id",
            (user, memory_id, memory_id),
        )
        return [
            MemoryLink(
                user_id=user,
                source_id=r[0],
                target_id=r[1],
                type=LinkType(r[2]),
                importance=r[3],
                discovered=bool(r[4]),
                confidence=r[5],
                created_at=_dt(r[6]) or datetime.now(UTC),
            )
            for r in rows
        ]

    # -- nodes -------------------------------------------------------------------------

    def get_nodes(self, user_id: str, node_ids: Sequence[str]) -> list[ContentNode]:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return []
        return [
            _node_from_row(r)
            for r in self._read(
                f"SELECT {_NODE_COLUMNS} FROM nodes n"
                f" WHERE +n.user_id = ? AND n.id IN ({_placeholders(len(ids))})",
                (user, *ids),
            )
        ]

    def find_nodes(self, user_id: str, kind: NodeType, norms: Sequence[str]) -> list[ContentNode]:
        user = self._check_user(user_id)
        wanted = list(dict.fromkeys(norms))
        if not wanted:
            return []
        return [
            _node_from_row(r)
            for r in self._read(
                f"SELECT {_NODE_COLUMNS} FROM nodes n WHERE n.user_id = ? AND n.kind = ?"
                f" AND n.norm IN ({_placeholders(len(wanted))}) ORDER BY n.created_at, n.id",
                (user, NodeType(kind).value, *wanted),
            )
        ]

    def merge_nodes(self, user_id: str, keep_id: str, drop_id: str) -> ContentNode:
        user = self._check_user(user_id)
        if keep_id == drop_id:
            raise InvalidInputError("cannot merge a node into itself", "drop_id")
        with self._tx() as conn:
            rows = {
                r[0]: r
                for r in conn.execute(
                    "SELECT id, merged_from FROM nodes WHERE +user_id = ? AND id IN (?, ?)",
                    (user, keep_id, drop_id),
                )
            }
            for node_id in (keep_id, drop_id):
                if node_id not in rows:
                    raise NotFoundError("node", node_id)
            history = [*json.loads(rows[keep_id][1]), drop_id, *json.loads(rows[drop_id][1])]
            # memberships: memories that included only the dropped node now include the kept one
            conn.execute(
                "INSERT OR IGNORE INTO memory_nodes(memory_id, node_id, user_id)"
                " SELECT memory_id, ?, user_id FROM memory_nodes WHERE node_id = ?",
                (keep_id, drop_id),
            )
            conn.execute("DELETE FROM memory_nodes WHERE node_id = ?", (drop_id,))
            conn.execute("UPDATE edges SET src_id = ? WHERE src_id = ?", (keep_id, drop_id))
            conn.execute("UPDATE edges SET dst_id = ? WHERE dst_id = ?", (keep_id, drop_id))
            conn.execute(
                "UPDATE nodes SET merged_from = ?,"
                " degree = (SELECT count(*) FROM memory_nodes WHERE node_id = ?) WHERE id = ?",
                (json.dumps(list(dict.fromkeys(history))), keep_id, keep_id),
            )
            conn.execute("DELETE FROM nodes WHERE id = ?", (drop_id,))
            for kind in (VectorKind.TOPIC, VectorKind.OBJECT):
                self._delete_vectors(conn, kind, [drop_id])
            row = conn.execute(
                f"SELECT {_NODE_COLUMNS} FROM nodes n WHERE id = ?", (keep_id,)
            ).fetchone()
        return _node_from_row(row)

    # -- embeddings and search -----------------------------------------------------------

    def set_embeddings(
        self,
        user_id: str,
        kind: VectorKind,
        vectors: Mapping[str, npt.ArrayLike],
        versions: Mapping[str, str | None] | None = None,
    ) -> int:
        user = self._check_user(user_id)
        kind = VectorKind(kind)
        prepared = {ref: self._vector(vec) for ref, vec in vectors.items()}
        if not prepared:
            return 0
        table, column, extra = _OWNER_TABLES[kind]
        refs = list(prepared)
        with self._tx() as conn:
            if versions is not None:  # a version is the queue entry's seq
                queued = _queue_versions(conn, kind, refs)
                refs = [ref for ref in refs if queued.get(ref) == versions.get(ref)]
            owned: set[str] = set()
            for chunk in _chunks(refs):
                owned.update(
                    r[0]
                    for r in conn.execute(
                        f"SELECT {column} FROM {table} WHERE +user_id = ?{extra}"
                        f" AND {column} IN ({_placeholders(len(chunk))})",
                        (user, *chunk),
                    )
                )
            rows = [
                (user, kind.value, ref, prepared[ref].astype(_STORED_VECTOR_DTYPE).tobytes())
                for ref in refs
                if ref in owned
            ]
            self._delete_vectors(conn, kind, [r[2] for r in rows])
            conn.executemany(
                "INSERT INTO vectors(user_id, kind, ref_id, embedding) VALUES (?, ?, ?, ?)", rows
            )
        return len(rows)

    def pending_embeddings(
        self, user_id: str | None = None, limit: int = 256
    ) -> list[PendingEmbedding]:
        if user_id is None:
            rows = self._read(_PENDING_SQL + " ORDER BY pv.seq LIMIT ?", (limit,))
        else:
            rows = self._read(
                _PENDING_SQL + " WHERE pv.user_id = ? ORDER BY pv.seq LIMIT ?",
                (self._check_user(user_id), limit),
            )
        return [
            PendingEmbedding(
                user_id=r[0], kind=VectorKind(r[1]), ref_id=r[2], text=r[3], version=str(r[4])
            )
            for r in rows
        ]

    def get_vectors(
        self, user_id: str, kind: VectorKind, ref_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        user = self._check_user(user_id)
        with self._translate():
            return self._cache.vectors(self._conn(), user, VectorKind(kind).value, list(ref_ids))

    def memories_for_nodes(self, user_id: str, node_ids: Sequence[str]) -> dict[str, list[str]]:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(node_ids))
        out: dict[str, list[str]] = {}
        for chunk in _chunks(ids):
            for node_id, memory_id in self._read(
                "SELECT node_id, memory_id FROM memory_nodes"
                f" WHERE user_id = ? AND node_id IN ({_placeholders(len(chunk))})"
                " ORDER BY node_id, memory_id",
                (user, *chunk),
            ):
                out.setdefault(node_id, []).append(memory_id)
        return out

    def vector_search(
        self, user_id: str, kind: VectorKind, vector: npt.ArrayLike, k: int = 10
    ) -> list[VectorHit]:
        user = self._check_user(user_id)
        query = self._vector(vector)
        if k <= 0:
            return []
        self.counters["vector_exact"] += 1  # an exact scan of the user's cached matrix
        with self._translate():
            ids, scores = self._cache.top(self._conn(), user, VectorKind(kind).value, query, k)
        if not ids:
            return []
        k = min(k, len(ids))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(ids) else np.arange(len(ids))
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), ids[i]))
        return [VectorHit(ref_id=ids[i], score=float(scores[i])) for i in order]

    def vectors_in_memory(self, user_id: str, kinds: Sequence[VectorKind]) -> bool:
        return all(self._cache.holds(user_id, VectorKind(kind).value) for kind in kinds)

    def warm_vectors(self, user_id: str, kinds: Sequence[VectorKind]) -> None:
        user = self._check_user(user_id)
        with self._translate():
            for kind in kinds:
                self._cache.refresh(self._conn(), user, VectorKind(kind).value)

    def lexical_in_memory(self, user_id: str) -> bool:
        user = self._check_user(user_id)
        with self._translate():
            return self._lexicon.ready(self._conn(), user)

    def lexical_search(
        self,
        user_id: str,
        query: str,
        kinds: Iterable[VectorKind] = (VectorKind.MEMORY, VectorKind.EPISODE),
        k: int = 10,
    ) -> list[LexicalHit]:
        user = self._check_user(user_id)
        match = fts_query(self._check_query(query))
        kind_values = [VectorKind(x).value for x in kinds]
        if match is None or not kind_values or k <= 0:
            return []
        with self._translate():
            ranked = self._lexicon.search(
                self._conn(),
                user,
                list(dict.fromkeys(lexical_tokens(query))),
                f'utok:"{user_token(user)}" AND tokens:({match})',
                kind_values,
                k,
            )
        return [LexicalHit(kind=VectorKind(kind), ref_id=ref, score=s) for kind, ref, s in ranked]

    def expand(
        self,
        user_id: str,
        seed_ids: Sequence[str],
        depth: int = 1,
        relation_types: Iterable[LinkType | str] | None = None,
        hub_cap: int = 50,
        include_invalid: bool = False,
        skip_node_ids: Sequence[str] = (),
    ) -> list[ExpansionHit]:
        user = self._check_user(user_id)
        depth = self._check_depth(depth)
        types, shared = relation_filter(relation_types)
        seeds = list(dict.fromkeys(seed_ids))
        if depth == 0 or not seeds:
            return []
        rows = self._read(
            _EXPAND_SQL,
            {
                "seeds": json.dumps(seeds),
                "user": user,
                "depth": depth,
                "types": json.dumps(types),
                "shared": int(shared),
                "hub_cap": hub_cap,
                "include_invalid": int(include_invalid),
                "shared_rel": SHARED_NODE,
                "skip": json.dumps(list(skip_node_ids)),
            },
        )
        return pick_shortest_paths(seeds, (tuple(r) for r in rows), depth)

    # -- episodes ------------------------------------------------------------------------

    def add_episodes(
        self, episodes: Sequence[Episode], *, replacing: Sequence[str] = ()
    ) -> list[str]:
        if not episodes:
            return []
        users = {e.user_id for e in episodes}
        if len(users) != 1:
            raise InvalidInputError("add_episodes takes the episodes of one user", "episodes")
        user = users.pop()
        ordered = sorted(episodes, key=lambda e: (e.session_id or "", e.timestamp, e.id))
        with self._tx() as conn:
            if replacing:
                self._delete_episodes_in(conn, user, list(dict.fromkeys(replacing)))
            conn.executemany(
                "INSERT INTO episodes(id, user_id, session_id, text, speaker, timestamp, keywords,"
                " importance, access_count, metadata, expires_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        e.id,
                        user,
                        e.session_id,
                        e.text,
                        e.speaker,
                        _ts(e.timestamp),
                        json.dumps(e.keywords, ensure_ascii=False),
                        e.importance,
                        e.access_count,
                        metadata_json(e.metadata),
                        _ts(e.expires_at),
                    )
                    for e in episodes
                ],
            )
            before = self._link_sessions(conn, user, ordered)
            documents = {  # one kept out of search has no lexical document
                e.id: episode_document(e, before.get(e.id)) for e in episodes if e.searchable
            }
            self._index_texts(conn, user, VectorKind.EPISODE, documents)
        return [e.id for e in episodes]

    def _link_sessions(
        self, conn: sqlite3.Connection, user: str, ordered: Sequence[Episode]
    ) -> dict[str, str]:
        """Put the new turns into their sessions' NEXT chains in time order
        (:func:`~memory_platform.store.sessions.link_session_turns`); a stored turn with
        a new neighbour is queued to be embedded again, and one that a new turn now
        precedes is indexed again with its words. Returns, for each new turn, the words of
        the turn before it."""
        new_ids = json.dumps([e.id for e in ordered])

        def around(session: str, turn: Episode) -> tuple[StoredTurn | None, StoredTurn | None]:
            at = _ts(turn.timestamp)
            before = conn.execute(
                f"SELECT id, timestamp, next_id, CASE WHEN {searchable_sql()} THEN text END"
                " FROM episodes WHERE user_id = ? AND session_id = ? AND timestamp <= ?"
                " AND id NOT IN (SELECT value FROM json_each(?))"
                " ORDER BY timestamp DESC, id DESC LIMIT 1",
                (user, session, at, new_ids),
            ).fetchone()
            after = conn.execute(
                "SELECT id, timestamp FROM episodes"
                " WHERE user_id = ? AND session_id = ? AND timestamp > ?"
                " AND id NOT IN (SELECT value FROM json_each(?))"
                " ORDER BY timestamp, id LIMIT 1",
                (user, session, at, new_ids),
            ).fetchone()
            return (
                None
                if before is None
                else StoredTurn(before[0], _dt_required(before[1]), *before[2:]),
                None if after is None else StoredTurn(after[0], _dt_required(after[1])),
            )

        links = link_session_turns(ordered, around)
        conn.executemany(
            "UPDATE episodes SET next_id = ? WHERE id = ?", [(b, a) for a, b in links.pairs]
        )
        _queue_episodes(conn, links.requeue)
        retokened = {
            episode.id: episode_document(episode, links.retoken[episode.id])
            for episode in self._episodes_in(conn, user, list(links.retoken))
            if episode.searchable
        }
        self._index_texts(conn, user, VectorKind.EPISODE, retokened)
        return links.before

    def delete_episodes(self, user_id: str, episode_ids: Sequence[str]) -> int:
        user = self._check_user(user_id)
        with self._tx() as conn:
            return self._delete_episodes_in(conn, user, list(dict.fromkeys(episode_ids)))

    def _delete_episodes_in(self, conn: sqlite3.Connection, user: str, ids: list[str]) -> int:
        """:meth:`delete_episodes` inside the caller's transaction."""
        deleted: list[str] = []
        for chunk in _chunks(ids):
            deleted += [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM episodes"
                    f" WHERE +user_id = ? AND id IN ({_placeholders(len(chunk))})",
                    (user, *chunk),
                )
            ]
        gone = set(deleted)
        for chunk in _chunks(deleted):
            marks = _placeholders(len(chunk))
            # a turn indexed with a deleted turn's words is indexed again without them
            after = [
                r[0]
                for r in conn.execute(f"SELECT next_id FROM episodes WHERE id IN ({marks})", chunk)
                if r[0] is not None and r[0] not in gone
            ]
            # and a turn embedded with a deleted turn after it, embedded again without it
            before = [
                r[0]
                for r in conn.execute(
                    f"SELECT id FROM episodes WHERE +user_id = ? AND next_id IN ({marks})",
                    (user, *chunk),
                )
                if r[0] not in gone
            ]
            conn.execute(
                f"UPDATE episodes SET next_id = NULL WHERE +user_id = ? AND next_id IN ({marks})",
                (user, *chunk),
            )
            conn.execute(f"DELETE FROM episodes WHERE id IN ({marks})", chunk)
            self._unindex(conn, VectorKind.EPISODE, chunk)
            self._delete_vectors(conn, VectorKind.EPISODE, chunk)
            # and embedded again: its vector was made with the deleted turn in front
            self._delete_vectors(conn, VectorKind.EPISODE, after + before)
            documents = {
                episode.id: episode_document(episode)
                for episode in self._episodes_in(conn, user, after)
                if episode.searchable
            }
            self._index_texts(conn, user, VectorKind.EPISODE, documents)
            _queue_episodes(conn, after + before)
        return len(deleted)

    def _episodes_in(
        self, conn: sqlite3.Connection, user: str, ids: Sequence[str]
    ) -> list[Episode]:
        if not ids:
            return []
        rows = conn.execute(
            f"SELECT {_EPISODE_COLUMNS} FROM episodes"
            f" WHERE +user_id = ? AND id IN ({_placeholders(len(ids))})",
            (user, *ids),
        ).fetchall()
        return [_episode_from_row(r) for r in rows]

    def get_episodes(self, user_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(episode_ids))
        out: list[Episode] = []
        for chunk in _chunks(ids):
            out.extend(
                _episode_from_row(r)
                for r in self._read(
                    f"SELECT {_EPISODE_COLUMNS} FROM episodes"  # +: by id, not the user's index
                    f" WHERE +user_id = ? AND id IN ({_placeholders(len(chunk))})",
                    (user, *chunk),
                )
            )
        return out

    def session_episodes(
        self, user_id: str, session_id: str, limit: int = 10_000, *, newest_first: bool = False
    ) -> list[Episode]:
        user = self._check_user(user_id)
        order = "timestamp DESC, id DESC" if newest_first else "timestamp, id"
        return [
            _episode_from_row(r)
            for r in self._read(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE user_id = ? AND session_id = ?"
                f" ORDER BY {order} LIMIT ?",
                (user, session_id, limit),
            )
        ]

    def list_episodes(
        self,
        user_id: str,
        limit: int = 1000,
        offset: int = 0,
        *,
        id_prefix: str | None = None,
        newest_first: bool = False,
    ) -> list[Episode]:
        user = self._check_user(user_id)
        if id_prefix:  # a range of the primary key; +user_id keeps the planner on it
            where = "+user_id = ? AND id >= ? AND id < ?"
            args: tuple[Any, ...] = (user, id_prefix, id_prefix + "\U0010ffff")
        else:
            where, args = "user_id = ?", (user,)
        order = "timestamp DESC, id" if newest_first else "coalesce(session_id, ''), timestamp, id"
        return [
            _episode_from_row(r)
            for r in self._read(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE {where}"
                f" ORDER BY {order} LIMIT ? OFFSET ?",
                (*args, limit, offset),
            )
        ]

    def episode_ids_by_prefix(self, user_id: str, id_prefix: str) -> list[str]:
        user = self._check_user(user_id)
        if not id_prefix:
            raise InvalidInputError("must be a non-empty string", "id_prefix")
        return [
            r[0]
            for r in self._read(  # a range of the primary key; +user_id keeps the planner on it
                "SELECT id FROM episodes WHERE +user_id = ? AND id >= ? AND id < ? ORDER BY id",
                (user, id_prefix, id_prefix + "\U0010ffff"),
            )
        ]

    def expired_episode_ids(self, user_id: str, now: datetime, limit: int = 1000) -> list[str]:
        user = self._check_user(user_id)
        return [
            r[0]
            for r in self._read(  # the partial index episodes_expiry: expiring episodes only
                "SELECT id FROM episodes WHERE user_id = ? AND expires_at IS NOT NULL"
                " AND expires_at <= ? ORDER BY id LIMIT ?",
                (user, _ts(now), limit),
            )
        ]

    def latest_offset(self, user_id: str) -> str | None:
        user = self._check_user(user_id)
        rows = self._read(  # the partial index episodes_clock: turns that record a clock
            f"SELECT json_extract(metadata, '$.{UTC_OFFSET_KEY}') FROM episodes"
            f" WHERE user_id = ? AND {CLOCKED_SQL} ORDER BY timestamp DESC LIMIT 1",
            (user,),
        )
        return str(rows[0][0]) if rows else None

    def set_episode_expiry(self, user_id: str, expiry: Mapping[str, datetime]) -> int:
        user = self._check_user(user_id)
        rows = [(_ts(when), user, ref) for ref, when in expiry.items()]
        if not rows:
            return 0
        with self._tx() as conn:
            before = conn.total_changes
            conn.executemany(
                "UPDATE episodes SET expires_at = ?"
                " WHERE user_id = ? AND id = ? AND expires_at IS NOT NULL",
                rows,
            )
            return conn.total_changes - before

    def fill_episode_speakers(self, user_id: str, speakers: Mapping[str, str]) -> int:
        user = self._check_user(user_id)
        named = self._check_speakers(speakers)
        if not named:
            return 0
        with self._tx() as conn:
            filled = [
                ref
                for ref, speaker in named.items()
                if conn.execute(
                    "UPDATE episodes SET speaker = ?"
                    " WHERE user_id = ? AND id = ? AND speaker IS NULL",
                    (speaker, user, ref),
                ).rowcount
            ]
            for chunk in _chunks(filled):
                self._reindex_speakers(conn, user, chunk)
        return len(filled)

    def _reindex_speakers(self, conn: sqlite3.Connection, user: str, ids: list[str]) -> None:
        """:meth:`fill_episode_speakers`' index and queue work for turns just given a
        speaker (at most 500)."""
        before, documents = self._episode_documents(conn, user, ids)
        self._index_texts(conn, user, VectorKind.EPISODE, documents)
        after = [
            r[0]
            for r in conn.execute(
                f"SELECT next_id FROM episodes WHERE id IN ({_placeholders(len(ids))})", ids
            )
            if r[0] is not None
        ]
        _queue_episodes(conn, list(dict.fromkeys([*ids, *before.values(), *after])))

    def _episode_documents(
        self, conn: sqlite3.Connection, user: str, ids: Sequence[str]
    ) -> tuple[dict[str, str], dict[str, str]]:
        """The lexical documents of a user's searchable episodes among ``ids`` (at most
        500), each after its previous turn's words, and which turn precedes each."""
        before = {  # each turn's previous turn
            r[1]: r[0]
            for r in conn.execute(
                "SELECT id, next_id FROM episodes"
                f" WHERE +user_id = ? AND next_id IN ({_placeholders(len(ids))})",
                (user, *ids),
            )
        }
        previous = {e.id: e for e in self._episodes_in(conn, user, list(before.values()))}
        documents = {}
        for episode in self._episodes_in(conn, user, ids):
            if not episode.searchable:
                continue
            turn = previous.get(before.get(episode.id, ""))
            text = turn.text if turn is not None and turn.searchable else None
            documents[episode.id] = episode_document(episode, text)
        return before, documents

    def users_with_staged(self, limit: int = 1000, after: str = "") -> list[str]:
        return [
            r[0]
            for r in self._read(
                "SELECT DISTINCT user_id FROM memories WHERE status = 'staged' AND user_id > ?"
                " ORDER BY user_id LIMIT ?",
                (after, limit),
            )
        ]

    def list_users(self, limit: int = 10_000, after: str = "") -> list[str]:
        return [
            r[0]
            for r in self._read(
                "SELECT user_id FROM (SELECT DISTINCT user_id FROM memories WHERE user_id > ?"
                " UNION SELECT DISTINCT user_id FROM episodes WHERE user_id > ?)"
                " ORDER BY user_id LIMIT ?",
                (after, after, limit),
            )
        ]

    def find_episodes(
        self, user_id: str, speaker: str, min_access: int = 0, limit: int = 1000
    ) -> list[Episode]:
        user = self._check_user(user_id)
        return [
            _episode_from_row(r)
            for r in self._read(
                f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE user_id = ? AND speaker = ?"
                " AND access_count >= ? ORDER BY timestamp, id LIMIT ?",
                (user, speaker, min_access, limit),
            )
        ]

    def record_episode_access(self, user_id: str, episode_ids: Sequence[str]) -> None:
        self._count_access(
            "UPDATE episodes SET access_count = access_count + 1", (), user_id, episode_ids
        )

    def next_episode_ids(self, user_id: str, episode_ids: Sequence[str]) -> dict[str, str]:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(episode_ids))
        if not ids:
            return {}
        return {
            r[0]: r[1]
            for r in self._read(
                "SELECT id, next_id FROM episodes WHERE +user_id = ? AND next_id IS NOT NULL"
                f" AND id IN ({_placeholders(len(ids))})",
                (user, *ids),
            )
        }

    # -- knowledge -----------------------------------------------------------------------

    def add_knowledge_version(self, version: KnowledgeVersion) -> str:
        user = version.user_id
        with self._tx() as conn:
            seq = conn.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM knowledge_versions WHERE user_id = ?",
                (user,),
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO knowledge_versions(version_id, user_id, session_id, created_at, seq,"
                " through) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    version.version_id,
                    user,
                    version.session_id,
                    _ts(version.created_at),
                    seq,
                    None if version.through is None else _ts(version.through),
                ),
            )
            conn.executemany(
                "INSERT INTO knowledge(id, version_id, user_id, content, type, score, metadata,"
                " position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        p.id,
                        version.version_id,
                        user,
                        p.content,
                        p.type.value,
                        p.score,
                        metadata_json(p.metadata),
                        i,
                    )
                    for i, p in enumerate(version.points)
                ],
            )
            contents = {p.id: p.content for p in version.points}
            self._index_texts(conn, user, VectorKind.KNOWLEDGE, contents)
        return version.version_id

    def knowledge_version_times(
        self, user_id: str, version_ids: Sequence[str]
    ) -> dict[str, datetime]:
        user = self._check_user(user_id)
        return {
            r[0]: _dt_required(r[1])
            for r in self._read(
                "SELECT version_id, created_at FROM knowledge_versions"
                " WHERE version_id IN (SELECT value FROM json_each(?)) AND user_id = ?",
                (json.dumps(list(dict.fromkeys(version_ids))), user),
            )
        }

    def session_read_through(self, user_id: str, session_id: str) -> dict[str, datetime]:
        user = self._check_user(user_id)
        return {
            r[0]: _dt_required(r[1])
            for r in self._read(
                "SELECT version_id, coalesce(through, created_at) FROM knowledge_versions"
                " WHERE user_id = ? AND session_id = ?",
                (user, session_id),
            )
        }

    def knowledge_versions(self, user_id: str, limit: int = 1) -> list[KnowledgeVersion]:
        user = self._check_user(user_id)
        versions = self._read(
            "SELECT version_id, session_id, created_at, through FROM knowledge_versions"
            " WHERE user_id = ? ORDER BY seq DESC LIMIT ?",
            (user, limit),
        )
        out: list[KnowledgeVersion] = []
        for version_id, session_id, created_at, through in versions:
            points = [
                KnowledgePoint(
                    id=r[0],
                    content=r[1],
                    type=KnowledgeType(r[2]),
                    score=r[3],
                    metadata=json.loads(r[4]),
                )
                for r in self._read(
                    "SELECT id, content, type, score, metadata FROM knowledge"
                    " WHERE version_id = ? ORDER BY position",
                    (version_id,),
                )
            ]
            out.append(
                KnowledgeVersion(
                    version_id=version_id,
                    user_id=user,
                    session_id=session_id,
                    created_at=_dt(created_at) or datetime.now(UTC),
                    points=points,
                    through=_dt(through),
                )
            )
        return out

    def delete_knowledge(self, user_id: str, point_ids: Sequence[str]) -> int:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(point_ids))
        deleted = 0
        with self._tx() as conn:
            for chunk in _chunks(ids):
                deleted += conn.execute(
                    f"DELETE FROM knowledge WHERE +user_id = ? AND id IN ({_placeholders(len(chunk))})",
                    (user, *chunk),
                ).rowcount
                self._unindex(conn, VectorKind.KNOWLEDGE, chunk)
                self._delete_vectors(conn, VectorKind.KNOWLEDGE, chunk)
        return deleted

    # -- provenance ----------------------------------------------------------------------

    def told_by(self, user_id: str, episode_ids: Sequence[str]) -> ToldItems:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(episode_ids))
        told = ToldItems()
        for chunk in _chunks(ids):
            for kind, ref_id in self._read(
                "SELECT DISTINCT kind, ref_id FROM told_by"
                f" WHERE user_id = ? AND episode_id IN ({_placeholders(len(chunk))})",
                (user, *chunk),
            ):
                (told.memory_ids if kind == "memory" else told.knowledge_ids).append(ref_id)
        told.memory_ids = list(dict.fromkeys(told.memory_ids))
        told.knowledge_ids = list(dict.fromkeys(told.knowledge_ids))
        return told

    # -- audit ---------------------------------------------------------------------------

    def add_audit(self, entry: AuditEntry) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO audit_log(id, user_id, action, target_kind, target_ids, at, actor,"
                " counts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    entry.id,
                    entry.user_id,
                    entry.action,
                    entry.target_kind,
                    json.dumps(entry.target_ids),
                    _ts(entry.at),
                    entry.actor,
                    json.dumps(entry.counts),
                ),
            )

    def audit_log(self, user_id: str, limit: int = 100) -> list[AuditEntry]:
        user = self._check_user(user_id)
        rows = self._read(
            "SELECT id, action, target_kind, target_ids, at, actor, counts FROM audit_log"
            " WHERE user_id = ? ORDER BY seq DESC LIMIT ?",
            (user, limit),
        )
        return [
            AuditEntry(
                id=r[0],
                user_id=user,
                action=r[1],
                target_kind=r[2],
                target_ids=json.loads(r[3]),
                at=_dt_required(r[4]),
                actor=r[5],
                counts=json.loads(r[6]),
            )
            for r in rows
        ]

    # -- media vectors -------------------------------------------------------------------

    def set_media_vectors(
        self, user_id: str, modality: str, model: str, vectors: Mapping[str, npt.ArrayLike]
    ) -> int:
        user = self._check_user(user_id)
        rows = [(ref, _unit_blob(vector)) for ref, vector in vectors.items()]
        stored = 0
        with self._tx() as conn:
            for ref, blob in rows:
                found = conn.execute(
                    "SELECT 1 FROM episodes WHERE id = ? AND user_id = ?", (ref, user)
                ).fetchone()
                if found is None:
                    continue
                conn.execute(
                    "INSERT INTO media_vectors(ref_id, modality, user_id, model, embedding)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT(ref_id, modality) DO UPDATE SET"
                    " model = excluded.model, embedding = excluded.embedding",
                    (ref, modality, user, model, blob),
                )
                stored += 1
        return stored

    def media_vector_search(
        self, user_id: str, modality: str, model: str, vector: npt.ArrayLike, k: int = 10
    ) -> list[VectorHit]:
        user = self._check_user(user_id)
        rows = self._read(
            "SELECT ref_id, embedding FROM media_vectors"
            " WHERE user_id = ? AND modality = ? AND model = ?",
            (user, modality, model),
        )
        query = np.frombuffer(_unit_blob(vector), dtype=np.float32)
        hits = []
        for ref, blob in rows:
            stored = np.frombuffer(blob, dtype=np.float32)
            if stored.shape != query.shape:
                continue
            hits.append(VectorHit(ref_id=ref, score=float(stored @ query)))
        hits.sort(key=lambda h: (-h.score, h.ref_id))
        return hits[:k]

    # -- inspection ----------------------------------------------------------------------

    def stats(self, user_id: str | None = None) -> StoreStats:
        where = "" if user_id is None else " WHERE user_id = ?"
        params: tuple[Any, ...] = () if user_id is None else (self._check_user(user_id),)

        def count(table: str, condition: str = "") -> int:
            clauses = [c for c in ("user_id = ?" if user_id is not None else "", condition) if c]
            clause = " WHERE " + " AND ".join(clauses) if clauses else ""
            return int(self._read(f"SELECT count(*) FROM {table}{clause}", params)[0][0])

        nodes = {
            r[0]: int(r[1])
            for r in self._read(f"SELECT kind, count(*) FROM nodes{where} GROUP BY kind", params)
        }
        vectors = {
            r[0]: int(r[1])
            for r in self._read(f"SELECT kind, count(*) FROM vectors{where} GROUP BY kind", params)
        }
        return StoreStats(
            memories=count("memories"),
            staged=count("memories", "status = 'staged'"),
            invalid=count("memories", "invalid_at IS NOT NULL"),
            nodes=nodes,
            structural_edges=count("edges"),
            links=count("links"),
            episodes=count("episodes"),
            knowledge_versions=count("knowledge_versions"),
            knowledge_points=count("knowledge"),
            vectors=vectors,
        )


# -- row mapping ---------------------------------------------------------------------------


def _unit_blob(vector: npt.ArrayLike) -> bytes:
    """A vector scaled to unit length as float32 bytes (cosine becomes a dot product)."""
    array = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(array))
    if not np.isfinite(norm) or norm == 0.0:
        raise InvalidInputError("a media vector must be finite and non-zero", "vector")
    return (array / norm).astype(np.float32).tobytes()


_MEMORY_COLUMNS = (
    "id, user_id, memory_type, title, text, importance, status, created_at, event_time,"
    " last_accessed, access_count, valid_from, invalid_at, session_id, source, attributes,"
    " metadata"
)
_NODE_COLUMNS = "n.id, n.user_id, n.kind, n.content, n.created_at, n.merged_from"
_EPISODE_COLUMNS = (
    "id, user_id, session_id, text, speaker, timestamp, keywords, importance, access_count,"
    " metadata, expires_at"
)

# kind -> (table, id column, extra filter) of the items a vector may belong to
_OWNER_TABLES: dict[VectorKind, tuple[str, str, str]] = {
    VectorKind.MEMORY: ("memories", "id", ""),
    VectorKind.TOPIC: ("nodes", "id", " AND kind = 'Topic'"),
    VectorKind.OBJECT: ("nodes", "id", " AND kind = 'Object'"),
    VectorKind.EPISODE: ("episodes", "id", ""),
    VectorKind.KNOWLEDGE: ("knowledge", "id", ""),
}


def _memory_from_row(r: Any) -> Memory:
    return Memory.model_construct(
        id=r[0],
        user_id=r[1],
        memory_type=MemoryType(r[2]),
        title=r[3],
        text=r[4],
        importance=r[5],
        status=MemoryStatus(r[6]),
        created_at=_dt_required(r[7]),
        event_time=_dt(r[8]),
        last_accessed=_dt(r[9]),
        access_count=r[10],
        valid_from=_dt(r[11]),
        invalid_at=_dt(r[12]),
        session_id=r[13],
        source=r[14],
        attributes=json.loads(r[15]),
        metadata=json.loads(r[16]),
    )


def _node_from_row(r: Any) -> ContentNode:
    return ContentNode.model_construct(
        id=r[0],
        user_id=r[1],
        kind=NodeType(r[2]),
        content=r[3],
        created_at=_dt_required(r[4]),
        merged_from=json.loads(r[5]),
    )


def _delete_user_documents(conn: sqlite3.Connection, user: str) -> None:
    """Delete every full-text document of the user, leaving none of their words in the
    index. FTS5 removes each deleted document's words one by one (``secure-delete``, set
    by the schema), which for a whole user costs more than merging the index once: with
    the option off for this transaction, the deletions leave markers and the merge
    (``optimize``) writes the index again without the user (a user of 10,000 turns among
    100,000: 141 ms, against 358 ms word by word; ``benchmarks/results/delete_user_cost.md``)."""
    conn.execute("INSERT INTO lexical(lexical, rank) VALUES ('secure-delete', 0)")
    conn.execute("DELETE FROM lexical WHERE utok = ?", (user_token(user),))
    conn.execute("INSERT INTO lexical(lexical) VALUES ('optimize')")
    conn.execute("INSERT INTO lexical(lexical, rank) VALUES ('secure-delete', 1)")


def _episode_from_row(r: Any) -> Episode:
    return Episode.model_construct(
        id=r[0],
        user_id=r[1],
        session_id=r[2],
        text=r[3],
        speaker=r[4],
        timestamp=_dt_required(r[5]),
        keywords=json.loads(r[6]),
        importance=r[7],
        access_count=r[8],
        metadata=json.loads(r[9]),
        expires_at=_dt(r[10]),
    )


# Breadth-first expansion in two steps. ``reach`` is a recursive CTE over the three kinds
# of hop (a link along its arrow, against it, or a shared content node that is neither a
# hub nor skipped); its rows are (memory, level), so each memory is expanded once per
# level however many paths lead to it. Every reached memory belongs to the user and,
# unless asked, is still valid. The final SELECTs return the hops from each level to the
# next, from which pick_shortest_paths keeps one shortest path per memory. The unary ``+``
# on user_id checks keeps them as filters: without it the planner walks the user's whole
# index instead of following ids. ``CROSS JOIN`` keeps the reached memories the outer loop
# of each final SELECT: SQLite 3.50's planner, knowing nothing of the size of ``level``,
# scanned the user's links and every row of memory_nodes instead (28 ms where 0.3 ms do).
_EXPAND_SQL = """
WITH RECURSIVE reach(id, d) AS (
    SELECT m.id, 0
      FROM json_each(:seeds) s JOIN memories m ON m.id = s.value AND +m.user_id = :user
    UNION
    SELECT l.target_id, r.d + 1
      FROM reach r
      JOIN links l ON l.source_id = r.id AND +l.user_id = :user
      JOIN memories m ON m.id = l.target_id AND +m.user_id = :user
     WHERE r.d < :depth AND l.type IN (SELECT value FROM json_each(:types))
       AND (:include_invalid OR m.invalid_at IS NULL)
    UNION
    SELECT l.source_id, r.d + 1
      FROM reach r
      JOIN links l ON l.target_id = r.id AND +l.user_id = :user
      JOIN memories m ON m.id = l.source_id AND +m.user_id = :user
     WHERE r.d < :depth AND l.type IN (SELECT value FROM json_each(:types))
       AND (:include_invalid OR m.invalid_at IS NULL)
    UNION
    SELECT b.memory_id, r.d + 1
      FROM reach r
      JOIN memory_nodes a ON a.memory_id = r.id AND +a.user_id = :user
      JOIN nodes n ON n.id = a.node_id AND +n.user_id = :user AND n.degree <= :hub_cap
      JOIN memory_nodes b ON b.node_id = a.node_id AND b.memory_id <> r.id
      JOIN memories m ON m.id = b.memory_id AND +m.user_id = :user
     WHERE r.d < :depth AND :shared
       AND n.id NOT IN (SELECT value FROM json_each(:skip))
       AND (:include_invalid OR m.invalid_at IS NULL)
),
level(id, d) AS (SELECT id, min(d) FROM reach GROUP BY id)
SELECT l.source_id, l.target_id, l.type, 'out', NULL, l.importance * l.confidence
  FROM level a
 CROSS JOIN links l ON l.source_id = a.id AND +l.user_id = :user
  JOIN level b ON b.id = l.target_id AND b.d = a.d + 1
 WHERE l.type IN (SELECT value FROM json_each(:types))
UNION ALL
SELECT l.target_id, l.source_id, l.type, 'in', NULL, l.importance * l.confidence
  FROM level a
 CROSS JOIN links l ON l.target_id = a.id AND +l.user_id = :user
  JOIN level b ON b.id = l.source_id AND b.d = a.d + 1
 WHERE l.type IN (SELECT value FROM json_each(:types))
UNION ALL
SELECT x.memory_id, y.memory_id, :shared_rel, 'both', n.content, 1.0 / n.degree
  FROM level a
 CROSS JOIN memory_nodes x ON x.memory_id = a.id AND +x.user_id = :user
  JOIN nodes n ON n.id = x.node_id AND +n.user_id = :user AND n.degree <= :hub_cap
  JOIN memory_nodes y ON y.node_id = x.node_id AND y.memory_id <> x.memory_id
  JOIN level b ON b.id = y.memory_id AND b.d = a.d + 1
 WHERE :shared AND n.id NOT IN (SELECT value FROM json_each(:skip))
"""


def _invalid_at(conn: sqlite3.Connection, user: str, memory_ids: Sequence[str]) -> dict[str, Any]:
    """Each memory's ``invalid_at`` column, in the order asked.

    Raises:
        NotFoundError: one of them is not the user's.
    """
    marks = _placeholders(len(memory_ids))
    found = dict(
        conn.execute(
            f"SELECT id, invalid_at FROM memories WHERE +user_id = ? AND id IN ({marks})",
            (user, *memory_ids),
        ).fetchall()
    )
    for memory_id in memory_ids:
        if memory_id not in found:
            raise NotFoundError("memory", memory_id)
    return {memory_id: found[memory_id] for memory_id in memory_ids}


def _insert_link(conn: sqlite3.Connection, link: MemoryLink) -> None:
    """Create the link, or update its weights when it exists."""
    conn.execute(
        "INSERT INTO links(source_id, target_id, type, user_id, importance, discovered,"
        " confidence, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(source_id, target_id, type) DO UPDATE SET"
        " importance = excluded.importance, discovered = excluded.discovered,"
        " confidence = excluded.confidence",
        (
            link.source_id,
            link.target_id,
            link.type.value,
            link.user_id,
            link.importance,
            int(link.discovered),
            link.confidence,
            _ts(link.created_at),
        ),
    )
