"""The production backend: Neo4j 5 through the official driver.

Every statement lives in ``cypher/neo4j/`` and is loaded by name; values travel only as
parameters, and labels or relationship types are chosen by fixed branches in the Cypher
from validated enums. Writes of one operation share one managed transaction, which the
driver retries on transient errors.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..clock import UTC_OFFSET_KEY
from ..config import Settings
from ..errors import (
    BackendUnavailable,
    ConfigurationError,
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
    episodes_named,
    utc,
)
from ..privacy import is_sensitive
from ..queries import cypher, split_statements
from ..textutil import lexical_tokens, normalize_name, tokens_document, user_token
from .base import (
    SHARED_NODE,
    EmbeddingSignature,
    GraphStore,
    Hop,
    LoadedCandidates,
    MemoryRecord,
    PendingEmbedding,
    SeedQuery,
    Seeds,
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
from .neo4j_schema import (
    MIN_NEO4J_VERSION,
    check_server_version,
    expected_schema,
    schema_problems,
    schema_statements,
    supports_search_filters,
)
from .sessions import StoredTurn, link_session_turns

__all__ = ["QUIET_NOTIFICATIONS", "Neo4jGraphStore", "driver_options"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_VECTOR_INDEX = {
    VectorKind.TOPIC: "topic_embedding",
    VectorKind.OBJECT: "object_embedding",
    VectorKind.MEMORY: "memory_embedding",
    VectorKind.EPISODE: "episode_embedding",
    VectorKind.KNOWLEDGE: "knowledge_embedding",
}
_ANN_MANY_KINDS = (VectorKind.MEMORY, VectorKind.TOPIC, VectorKind.OBJECT, VectorKind.EPISODE)
"""The kinds ``vector/ann_many.cypher`` and ``vector/exact_many.cypher`` have a branch for."""
_OVERFETCH = 4
_MIN_FETCH = 100


def _native(value: Any) -> Any:
    """Neo4j temporal values as aware Python datetimes."""
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


def _lucene_query(user_id: str, text: str) -> str | None:
    """A Lucene query requiring the user's token and any of the text's tokens.

    The user's token is a filter, not evidence (boost 0): scored, it would add to every
    document of the user an amount that grows as the document gets shorter, which the
    SQLite index (the token in its own, unweighted column) does not, and the two
    backends would rank the same words differently.
    """
    tokens = list(dict.fromkeys(lexical_tokens(text)))
    if not tokens:
        return None

    def quote(token: str) -> str:
        return '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return f"+{quote(user_token(user_id))}^0 +({' OR '.join(quote(t) for t in tokens)})"


QUIET_NOTIFICATIONS = ("UNRECOGNIZED",)
"""Notification classifications the server is asked not to send. On a database that has
no node with a property, label or relationship type a statement names yet (a fresh one:
``invalid_at`` before any memory was retracted, ``CONFLICTS_WITH`` before a conflict), every
such statement draws an "unknown ..." warning, which the driver logs to stderr: a search
would print one per call. Deprecations and performance notices (cartesian products) stay
on; the test suite fails on them."""


def driver_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments of ``neo4j.GraphDatabase.driver`` for these settings."""
    return {
        "auth": (settings.neo4j_user, settings.neo4j_password.get_secret_value()),
        "connection_timeout": settings.neo4j_connection_timeout,
        "connection_acquisition_timeout": settings.neo4j_connection_timeout * 2,
        "max_transaction_retry_time": settings.neo4j_connection_timeout * 3,
        "notifications_disabled_classifications": list(QUIET_NOTIFICATIONS),
    }


class Neo4jGraphStore(GraphStore):
    """:class:`GraphStore` on a Neo4j server, 5.23 or later (5.26 LTS and 2025.x tested)."""

    backend_name = "neo4j"

    def __init__(
        self,
        driver: Any,
        signature: EmbeddingSignature,
        database: str = "neo4j",
    ) -> None:
        super().__init__(signature)
        self._driver = driver
        self._database = database
        self._open_read = threading.local()  # the transaction of reading(), per thread
        self.server_version: str | None = None
        """The server's version, as it reports it (read by :meth:`apply_schema`)."""
        self.search_filters = False
        """Whether vector searches filter by user inside the index (SEARCH clause, Neo4j
        2026.01+, indexes created WITH [n.user_id]); set by :meth:`apply_schema`."""
        self.one_statement_seeds = False
        """Whether :meth:`seed_search` answers in one statement (``search/seed.cypher``, or
        ``seed_filtered.cypher`` with :attr:`search_filters`); set by :meth:`apply_schema`
        once the server has run it."""
        self.apply_schema()

    @classmethod
    def from_settings(cls, settings: Settings, signature: EmbeddingSignature) -> Neo4jGraphStore:
        """Connect, failing fast with :class:`BackendUnavailable` when the server is down."""
        import neo4j
        from neo4j.exceptions import AuthError, ConfigurationError, ServiceUnavailable

        if not settings.neo4j_uri:
            raise InvalidInputError("neo4j_uri is not set (MEMORY_NEO4J_URI)", "neo4j_uri")
        driver = neo4j.GraphDatabase.driver(settings.neo4j_uri, **driver_options(settings))
        try:
            driver.verify_connectivity()
        except ConfigurationError as exc:  # a server too old for notification filters
            driver.close()
            raise BackendUnavailable(
                f"Neo4j at {settings.neo4j_uri} cannot serve this platform ({exc}); it needs "
                f"Neo4j {'.'.join(map(str, MIN_NEO4J_VERSION))} or later"
            ) from exc
        except AuthError as exc:
            driver.close()
            raise BackendUnavailable(
                f"Neo4j at {settings.neo4j_uri} refused the credentials of "
                f"{settings.neo4j_user!r} (MEMORY_NEO4J_USER / MEMORY_NEO4J_PASSWORD)"
            ) from exc
        except (ServiceUnavailable, OSError, ValueError) as exc:
            driver.close()
            raise BackendUnavailable(
                f"cannot reach Neo4j at {settings.neo4j_uri} within "
                f"{settings.neo4j_connection_timeout:g}s: {exc}"
            ) from exc
        return cls(driver, signature, settings.neo4j_database)

    # -- plumbing ------------------------------------------------------------------

    @contextmanager
    def _translate(self) -> Iterator[None]:
        from neo4j.exceptions import (
            ConstraintError,
            Neo4jError,
            ServiceUnavailable,
            SessionExpired,
            TransientError,
        )

        try:
            yield
        except ConstraintError as exc:
            raise ConflictError(f"write conflicts with existing data: {exc.message}") from exc
        except TransientError as exc:
            raise TransientStorageError(f"Neo4j transient error: {exc.message}") from exc
        except (ServiceUnavailable, SessionExpired) as exc:
            raise BackendUnavailable(f"Neo4j unavailable: {exc}") from exc
        except Neo4jError as exc:
            raise StorageError(f"Neo4j error {exc.code}: {exc.message}") from exc

    def _write(self, work: Callable[[Any], T]) -> T:
        with self._translate(), self._driver.session(database=self._database) as session:
            return session.execute_write(work)  # type: ignore[no-any-return]

    def _read(self, name: str, /, **params: Any) -> list[Any]:
        def work(tx: Any) -> list[Any]:
            self.counters["statements"] += 1
            return list(tx.run(cypher(f"neo4j/{name}"), params))

        open_tx = getattr(self._open_read, "tx", None)
        if open_tx is not None:
            with self._translate():
                return work(open_tx)
        self.counters["transactions"] += 1
        with self._translate(), self._driver.session(database=self._database) as session:
            return session.execute_read(work)  # type: ignore[no-any-return]

    @contextmanager
    def reading(self) -> Iterator[None]:
        if getattr(self._open_read, "tx", None) is not None:
            yield  # already inside one
            return
        import neo4j

        self.counters["transactions"] += 1
        with (
            self._translate(),
            self._driver.session(
                database=self._database, default_access_mode=neo4j.READ_ACCESS
            ) as session,
        ):
            tx = session.begin_transaction()
            self._open_read.tx = tx
            try:
                yield
            finally:
                self._open_read.tx = None
                tx.close()  # nothing was written: closing ends it

    def run_saved_query(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run a saved inspection query of ``cypher/browser/`` (read-only) by file name.

        For tools and tests that show what Neo4j Browser shows; values go as parameters.
        """

        def work(tx: Any) -> list[dict[str, Any]]:
            return [record.data() for record in tx.run(cypher(f"browser/{name}"), params)]

        with self._translate(), self._driver.session(database=self._database) as session:
            return session.execute_read(work)  # type: ignore[no-any-return]

    def _run(self, tx: Any, name: str, /, **params: Any) -> list[Any]:
        # Parameters travel as one mapping: the driver's own first argument of run() is
        # named ``query``, so ``**params`` would clash with a Cypher parameter $query.
        self.counters["statements"] += 1
        return list(tx.run(cypher(f"neo4j/{name}"), params))

    def apply_schema(self) -> None:
        """Check the server version, create constraints and indexes if missing
        (idempotent), then verify that each one the store uses is there and ONLINE. On
        Neo4j 2026.01 and later the vector indexes also hold user_id, and vector searches
        filter by user inside the index (:attr:`search_filters`).

        Raises:
            ConfigurationError: the server is too old, or an index or constraint is missing
                (e.g. an equivalent one exists under another name), FAILED, or built for
                another vector dimension; the message names it and the fix.
        """
        with self._translate(), self._driver.session(database=self._database) as session:
            # Auto-commit: schema commands and SHOW cannot share a managed transaction.
            row = session.run(cypher("neo4j/meta/server_version")).single()
            filtered = False
            if row is not None:
                self.server_version = str(row["version"])
                check_server_version(self.server_version)
                filtered = supports_search_filters(self.server_version)
            statements = schema_statements(
                split_statements(cypher("neo4j/schema")),
                split_statements(cypher("neo4j/schema_vectors_filtered")) if filtered else [],
            )
            for statement in statements:
                params = (
                    {"dimensions": self._signature.dimension} if "$dimensions" in statement else {}
                )
                session.run(statement, params).consume()
            session.run("CALL db.awaitIndexes(300)").consume()
            indexes = [r.data() for r in session.run(cypher("neo4j/meta/show_indexes"))]
            constraints = [r.data() for r in session.run(cypher("neo4j/meta/show_constraints"))]
        problems = schema_problems(
            expected_schema(statements), indexes, constraints, self._signature.dimension
        )
        if problems:
            raise ConfigurationError(
                "the Neo4j schema is not what the platform needs: " + "; ".join(problems)
            )
        self.search_filters = filtered and self._search_filters_work()
        self.one_statement_seeds = self._seed_statement_works()

    def _search_filters_work(self) -> bool:
        """Try the in-index filtered vector search once. Vector indexes made before the
        server was upgraded to 2026.01 hold no user_id and refuse it: the store then keeps
        the procedure with over-fetch, and says how to rebuild them."""
        probe = [0.0] * (self._signature.dimension - 1) + [1.0]
        try:
            self._read(
                "vector/search_many",
                vector=probe,
                user_id="",
                k_memory=1,
                k_topic=1,
                k_object=1,
                k_episode=1,
                k_knowledge=1,
            )
        except StorageError as exc:
            names = ", ".join(_VECTOR_INDEX.values())
            log.warning(
                "Neo4j can filter vector searches by user inside the index, but the probe "
                "search failed (%s); searches use the slower over-fetch instead. The usual "
                "cause is vector indexes made before the server was upgraded, without "
                "user_id: drop them (%s) and restart, and they are rebuilt from the stored "
                "embeddings.",
                exc,
                names,
            )
            return False
        return True

    def _seed_statement_works(self) -> bool:
        """Run the one-statement seeding once, for a user with no data, through every
        branch (index, exact scan, fulltext). A server that refuses it (a syntax or plan it
        does not support) leaves searches on separate reads, which give the same answers
        in more round trips, and the warning says so."""
        probe = [0.0] * (self._signature.dimension - 1) + [1.0]
        try:
            self._read_seeds(
                "", probe, list(_ANN_MANY_KINDS), ["memory", "episode"], '"probe"', 1, 1, 1
            )
        except StorageError as exc:
            log.warning(
                "Neo4j refused the one-statement search seeding (%s); searches read their "
                "seeds in separate statements instead (same results, more round trips). "
                "Please report this with the server's version (%s).",
                exc,
                self.server_version,
            )
            return False
        return True

    def close(self) -> None:
        self._driver.close()

    def _stored_signature(self) -> EmbeddingSignature | None:
        rows = self._read("meta/get_signature")
        if not rows:
            return None
        return EmbeddingSignature(model=rows[0]["model"], dimension=rows[0]["dimension"])

    def _record_signature(self, signature: EmbeddingSignature) -> None:
        self._write(
            lambda tx: self._run(
                tx, "meta/set_signature", model=signature.model, dimension=signature.dimension
            )
        )

    def _stored_lexical_signature(self) -> str | None:
        rows = self._read("meta/get_lexical_signature")
        return str(rows[0]["signature"]) if rows else None

    def _record_lexical_signature(self, signature: str) -> None:
        self._write(lambda tx: self._run(tx, "meta/set_lexical_signature", signature=signature))

    def lexical_document_count(self) -> int:
        return int(self._read("lexical/count")[0]["documents"])

    def _retokenize_pages(self, page_size: int) -> Iterator[int]:
        for kind in ("memory", "episode", "knowledge"):
            after = ""
            while True:
                page = partial(self._retokenize_page, kind=kind, after=after, limit=page_size)
                count, after = self._write(page)
                if not count:
                    break
                yield count

    def _retokenize_page(self, tx: Any, *, kind: str, after: str, limit: int) -> tuple[int, str]:
        """One page of :meth:`_retokenize_pages`: how many items it read, the last one's id."""
        rows = self._run(tx, f"lexical/{kind}_page", after=after, limit=limit)
        if not rows:
            return 0, after
        items = [
            {
                "element_id": r["element_id"],
                "previous": r["search_tokens"],
                "search_tokens": _page_row_tokens(kind, r),
            }
            for r in rows
        ]
        self._run(tx, "lexical/set_tokens", items=items)
        return len(rows), str(rows[-1]["id"])

    def reset_embeddings(self) -> int:
        signature = self._signature
        rows = self._write(
            lambda tx: self._run(
                tx, "vector/reset_all", model=signature.model, dimension=signature.dimension
            )
        )
        return int(rows[0]["queued"]) if rows else 0

    def pending_count(self) -> int:
        return int(self._read("vector/pending_count")[0]["pending"])

    # -- memories ------------------------------------------------------------------

    def write_memories(self, subgraphs: Sequence[MemorySubgraph]) -> None:
        user = single_user(subgraphs)
        if user is None:
            return
        nodes = {
            n.id: {
                "id": n.id,
                "kind": n.kind.value,
                "content": n.content,
                "norm": normalize_name(n.content),
                "created_at": n.created_at,
                "merged_from": n.merged_from,
            }
            for graph in subgraphs
            for n in graph.nodes
        }
        memories = [
            {"props": _memory_props(g.memory), "node_ids": [n.id for n in g.nodes]}
            for g in subgraphs
        ]
        edges = [
            {
                "memory_id": g.memory.id,
                "src_id": e.src_id,
                "dst_id": e.dst_id,
                "type": e.type.value,
                "label": e.label,
                "seq": i,
            }
            for g in subgraphs
            for i, e in enumerate(g.edges)
        ]

        # Four statements whatever the batch size; any failure rolls all of it back.
        def work(tx: Any) -> None:
            foreign = self._run(tx, "node/foreign_owners", ids=list(nodes), user_id=user)
            if foreign:
                raise ConflictError("a node id of these memories belongs to another user")
            self._run(tx, "node/merge_many", nodes=list(nodes.values()), user_id=user)
            self._run(tx, "memory/create_many", memories=memories)
            if edges:
                self._run(tx, "memory/create_edges", edges=edges, user_id=user)

        self._write(work)

    def get_memory(self, user_id: str, memory_id: str) -> MemoryRecord | None:
        user = self._check_user(user_id)
        rows = self._read("memory/get", memory_id=memory_id, user_id=user)
        if not rows:
            return None
        row = rows[0]
        return MemoryRecord(
            memory=_memory_from_props(row["memory"]),
            nodes=[_node_from_map(n) for n in row["nodes"]],
            edges=[
                StructuralEdge(
                    src_id=e["src_id"],
                    dst_id=e["dst_id"],
                    type=EdgeType(e["type"]),
                    label=e["label"],
                )
                for e in row["edges"]
                if e is not None
            ],
            links=self.get_links(user, memory_id),
        )

    def get_memories(self, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        user = self._check_user(user_id)
        rows = self._read(
            "memory/get_many", memory_ids=list(dict.fromkeys(memory_ids)), user_id=user
        )
        return [_memory_from_props(r["memory"]) for r in rows]

    def list_memories(
        self,
        user_id: str,
        status: MemoryStatus | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]:
        user = self._check_user(user_id)
        rows = self._read(
            "memory/list",
            user_id=user,
            status=None if status is None else MemoryStatus(status).value,
            limit=limit,
            offset=offset,
        )
        return [_memory_from_props(r["memory"]) for r in rows]

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
        changes: dict[str, Any] = {}
        if metadata is not None:
            changes["metadata"] = metadata_json(metadata)
            changes["sensitive"] = is_sensitive(metadata)
        if status is not None:
            changes["status"] = MemoryStatus(status).value
        if importance is not None:
            if not 0.0 <= importance <= 1.0:
                raise InvalidInputError("must be between 0 and 1", "importance")
            changes["importance"] = float(importance)
        if valid_from is not None:
            changes["valid_from"] = utc(valid_from)
        if invalid_at is not None and not clear_invalid:
            changes["invalid_at"] = utc(invalid_at)
        return self._write(
            lambda tx: self._updated(
                tx, user, memory_id, changes, clear_invalid=clear_invalid,
                only_if_current=only_if_current,
            )
        )  # fmt: skip

    def _updated(
        self,
        tx: Any,
        user: str,
        memory_id: str,
        changes: Mapping[str, Any],
        *,
        clear_invalid: bool = False,
        only_if_current: bool = False,
    ) -> Memory:
        """``memory/update`` in ``tx``; with ``only_if_current`` the memory stays
        write-locked to the end of ``tx``, so its ``invalid_at`` holds until then.

        Raises:
            NotFoundError: no such memory of the user.
            ConflictError: ``only_if_current`` and it is not (nothing changed).
        """
        rows = self._run(
            tx,
            "memory/update",
            memory_id=memory_id,
            user_id=user,
            changes=dict(changes),
            clear_invalid=clear_invalid,
            only_if_current=only_if_current,
        )
        if not rows:
            raise NotFoundError("memory", memory_id)
        if not rows[0]["applied"]:
            raise ConflictError(f"memory {memory_id!r} is no longer current; nothing changed")
        return _memory_from_props(rows[0]["memory"])

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(memory_ids))
        if ids:
            self._write(
                lambda tx: self._run(
                    tx, "memory/record_access", memory_ids=ids, user_id=user, at=utc(at)
                )
            )

    def delete_memory(self, user_id: str, memory_id: str) -> bool:
        user = self._check_user(user_id)
        rows = self._write(
            lambda tx: self._run(tx, "memory/delete", memory_id=memory_id, user_id=user)
        )
        return bool(rows)

    def delete_user(self, user_id: str) -> None:
        user = self._check_user(user_id)
        with self._translate(), self._driver.session(database=self._database) as session:
            session.run(cypher("neo4j/user/delete"), {"user_id": user}).consume()

    # -- links ---------------------------------------------------------------------

    def add_link(self, link: MemoryLink) -> None:
        def work(tx: Any) -> None:
            if not self._upserted(tx, link):
                found = {
                    m.id for m in self.get_memories(link.user_id, [link.source_id, link.target_id])
                }
                missing = link.source_id if link.source_id not in found else link.target_id
                raise NotFoundError("memory", missing)

        self._write(work)

    def _upserted(self, tx: Any, link: MemoryLink) -> bool:
        """``link/upsert`` in ``tx``; False when either memory is not the user's."""
        props = {
            "user_id": link.user_id,
            "importance": link.importance,
            "discovered": link.discovered,
            "confidence": link.confidence,
            "created_at": link.created_at,
        }
        rows = self._run(
            tx,
            "link/upsert",
            source_id=link.source_id,
            target_id=link.target_id,
            user_id=link.user_id,
            type=link.type.value,
            props=props,
        )
        return bool(rows)

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

        def work(tx: Any) -> None:
            # both write-locked and checked current before anything is written; an error
            # raised here rolls the whole transaction back
            self._updated(tx, user, newer_id, {}, only_if_current=True)
            self._updated(tx, user, older_id, {"invalid_at": utc(at)}, only_if_current=True)
            for link in links:
                self._upserted(tx, link)

        self._write(work)

    def reinstate_memory(self, user_id: str, newer_id: str, older_id: str) -> bool:
        user = self._check_user(user_id)

        def work(tx: Any) -> bool:
            rows = self._run(
                tx,
                "memory/reinstate",
                newer_id=newer_id,
                older_id=older_id,
                user_id=user,
                status=MemoryStatus.STAGED.value,
            )
            if rows:
                return True
            found = {m.id for m in self.get_memories(user, [newer_id, older_id])}
            for memory_id in (newer_id, older_id):
                if memory_id not in found:
                    raise NotFoundError("memory", memory_id)
            return False

        return self._write(work)

    def get_links(self, user_id: str, memory_id: str) -> list[MemoryLink]:
        user = self._check_user(user_id)
        return [
            MemoryLink(
                user_id=user,
                source_id=r["source_id"],
                target_id=r["target_id"],
                type=LinkType(r["type"]),
                importance=r["importance"],
                discovered=bool(r["discovered"]),
                confidence=r["confidence"],
                created_at=_native(r["created_at"]),
            )
            for r in self._read("link/for_memory", memory_id=memory_id, user_id=user)
        ]

    # -- nodes ---------------------------------------------------------------------

    def get_nodes(self, user_id: str, node_ids: Sequence[str]) -> list[ContentNode]:
        user = self._check_user(user_id)
        rows = self._read("node/get_many", node_ids=list(dict.fromkeys(node_ids)), user_id=user)
        return [_node_from_map(r["node"]) for r in rows]

    def find_nodes(self, user_id: str, kind: NodeType, norms: Sequence[str]) -> list[ContentNode]:
        user = self._check_user(user_id)
        rows = self._read(
            "node/find_by_norm",
            user_id=user,
            kind=NodeType(kind).value,
            norms=list(dict.fromkeys(norms)),
        )
        return [_node_from_map(r["node"]) for r in rows]

    def merge_nodes(self, user_id: str, keep_id: str, drop_id: str) -> ContentNode:
        user = self._check_user(user_id)
        if keep_id == drop_id:
            raise InvalidInputError("cannot merge a node into itself", "drop_id")

        def work(tx: Any) -> ContentNode:
            rows = self._run(tx, "node/merge_pair", keep_id=keep_id, drop_id=drop_id, user_id=user)
            if not rows:
                found = {n.id for n in self.get_nodes(user, [keep_id, drop_id])}
                raise NotFoundError("node", keep_id if keep_id not in found else drop_id)
            return _node_from_map(rows[0]["node"])

        return self._write(work)

    # -- embeddings and search -----------------------------------------------------

    def set_embeddings(
        self,
        user_id: str,
        kind: VectorKind,
        vectors: Mapping[str, npt.ArrayLike],
        versions: Mapping[str, str | None] | None = None,
    ) -> int:
        user = self._check_user(user_id)
        kind = VectorKind(kind)
        items = [
            {
                "ref_id": ref,
                "vector": self._vector(v).tolist(),
                "version": None if versions is None else (versions.get(ref) or ""),
            }
            for ref, v in vectors.items()
        ]
        if not items:
            return 0
        rows = self._write(
            lambda tx: self._run(tx, "vector/set", items=items, kind=kind.value, user_id=user)
        )
        return int(rows[0]["stored"]) if rows else 0

    def pending_embeddings(
        self, user_id: str | None = None, limit: int = 256
    ) -> list[PendingEmbedding]:
        user = None if user_id is None else self._check_user(user_id)
        return [
            PendingEmbedding(
                user_id=r["user_id"],
                kind=VectorKind(r["kind"]),
                ref_id=r["ref_id"],
                text=r["text"],
                version=r["version"],
            )
            for r in self._read("vector/pending", user_id=user, limit=limit)
        ]

    def get_vectors(
        self, user_id: str, kind: VectorKind, ref_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        user = self._check_user(user_id)
        rows = self._read(
            "vector/get_many",
            ref_ids=list(dict.fromkeys(ref_ids)),
            kind=VectorKind(kind).value,
            user_id=user,
        )
        return {r["ref_id"]: np.asarray(r["vector"], dtype=np.float32) for r in rows}

    def similarities(
        self, user_id: str, kind: VectorKind, ref_ids: Sequence[str], vector: npt.ArrayLike
    ) -> dict[str, float]:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(ref_ids))
        if not ids:
            return {}
        rows = self._read(
            "vector/similarity_many",
            ref_ids=ids,
            kind=VectorKind(kind).value,
            user_id=user,
            vector=self._vector(vector).tolist(),
        )
        return {r["ref_id"]: float(r["score"]) for r in rows}

    def load_candidates(
        self,
        user_id: str,
        memory_ids: Sequence[str],
        episode_ids: Sequence[str],
        vector: npt.ArrayLike,
        unscored: Sequence[str] = (),
    ) -> LoadedCandidates:
        user = self._check_user(user_id)
        memories, episodes = list(dict.fromkeys(memory_ids)), list(dict.fromkeys(episode_ids))
        if not memories and not episodes:
            return LoadedCandidates()
        rows = self._read(
            "search/load_candidates",
            memory_ids=memories,
            episode_ids=episodes,
            unscored=list(dict.fromkeys(unscored)),
            vector=self._vector(vector).tolist(),
            user_id=user,
        )
        out = LoadedCandidates()
        for row in rows:
            _add_loaded(out, row["memories"], row["episodes"])
        return out

    def seed_search(
        self,
        user_id: str,
        ask: SeedQuery,
        lexical: Callable[[], list[LexicalHit]] | None = None,
    ) -> Seeds:
        """One statement (``search/seed*.cypher``) where the server runs it; the vector
        and lexical hits, the fan-out through topics and objects, and the stored
        candidates are then one round trip. Otherwise the separate reads of
        :meth:`GraphStore.seed_search`."""
        lexical_kinds = [VectorKind(kind).value for kind in ask.lexical_kinds]
        if (
            not self.one_statement_seeds
            or ask.k <= 0
            or not (ask.vector_kinds or lexical_kinds)
            or any(kind not in _ANN_MANY_KINDS for kind in ask.vector_kinds)
            or any(kind not in ("memory", "episode") for kind in lexical_kinds)
        ):
            return super().seed_search(user_id, ask, lexical)
        user = self._check_user(user_id)
        words = _lucene_query(user, self._check_query(ask.text)) if lexical_kinds else None
        row = self._read_seeds(
            user, self._vector(ask.vector).tolist(), ask.vector_kinds, lexical_kinds, words,
            ask.k, ask.node_k, ask.node_fanout,
        )  # fmt: skip
        seeds = Seeds(vector={VectorKind(kind): [] for kind in ask.vector_kinds})
        for item in row["by_vector"]:
            kind = VectorKind(item["kind"])
            if kind not in seeds.vector:
                continue
            seeds.vector[kind] = [
                VectorHit(ref_id=h["ref_id"], score=float(h["score"])) for h in item["hits"]
            ]
            self.counters["vector_exact" if item["scanned"] else "vector_index"] += 1
        seeds.node_memories = {x["node_id"]: list(x["memory_ids"]) for x in row["nodes"]}
        seeds.lexical = sorted(
            (
                LexicalHit(kind=VectorKind(h["kind"]), ref_id=h["ref_id"], score=float(h["score"]))
                for h in row["lexical"]
            ),
            key=lambda hit: (-hit.score, hit.ref_id),
        )
        _add_loaded(seeds.loaded, row["memories"], row["episodes"])
        return seeds

    def _read_seeds(
        self,
        user: str,
        vector: Sequence[float],
        kinds: Sequence[str | VectorKind],
        lexical_kinds: Sequence[str],
        words: str | None,
        k: int,
        node_k: int,
        fanout: int,
    ) -> Any:
        """The one row of ``search/seed.cypher``, or of ``search/seed_filtered.cypher``
        where vector searches filter by user inside the index (:attr:`search_filters`)."""
        kind_values = [VectorKind(kind).value for kind in kinds]
        # two calls with their keywords written out: the parameter check (tests/support/
        # cypher_lint.py) reads each call's names against its file, and only the filtered
        # file takes per-kind limits
        if self.search_filters:

            def limit(kind: VectorKind, wanted: int) -> int:
                return wanted if kind.value in kind_values else 0

            rows = self._read(
                "search/seed_filtered",
                user_id=user,
                vector=list(vector),
                kinds=kind_values,
                lexical_kinds=list(lexical_kinds),
                words=words,
                k=k,
                fetch=max(k * _OVERFETCH, _MIN_FETCH),
                node_k=node_k,
                fanout=fanout,
                k_memory=limit(VectorKind.MEMORY, k),
                k_topic=limit(VectorKind.TOPIC, node_k),
                k_object=limit(VectorKind.OBJECT, node_k),
                k_episode=limit(VectorKind.EPISODE, k),
            )
        else:
            rows = self._read(
                "search/seed",
                user_id=user,
                vector=list(vector),
                kinds=kind_values,
                lexical_kinds=list(lexical_kinds),
                words=words,
                k=k,
                fetch=max(k * _OVERFETCH, _MIN_FETCH),
                node_k=node_k,
                node_fetch=max(node_k * _OVERFETCH, _MIN_FETCH),
                fanout=fanout,
            )
        return rows[0]

    def memories_for_nodes(self, user_id: str, node_ids: Sequence[str]) -> dict[str, list[str]]:
        user = self._check_user(user_id)
        rows = self._read(
            "node/memories_for_many", node_ids=list(dict.fromkeys(node_ids)), user_id=user
        )
        return {r["node_id"]: list(r["memory_ids"]) for r in rows}

    def vector_search(
        self, user_id: str, kind: VectorKind, vector: npt.ArrayLike, k: int = 10
    ) -> list[VectorHit]:
        user = self._check_user(user_id)
        kind = VectorKind(kind)
        query = self._vector(vector).tolist()
        if k <= 0:
            return []
        if self.search_filters:
            return self._search_filtered(user, [kind], query, k)[kind]
        fetch = max(k * _OVERFETCH, _MIN_FETCH)
        rows = self._read(
            "vector/ann", index=_VECTOR_INDEX[kind], fetch=fetch, vector=query, user_id=user, k=k
        )
        if len(rows) < k:
            # The global index held too few of this user's items among its top answers:
            # the user owns few of them, so an exact scan of just theirs is cheap.
            rows = self._read(f"vector/exact_{kind.value}", vector=query, user_id=user, k=k)
            self.counters["vector_exact"] += 1
        else:
            self.counters["vector_index"] += 1
        return [VectorHit(ref_id=r["ref_id"], score=float(r["score"])) for r in rows]

    def vector_search_many(
        self, user_id: str, kinds: Sequence[VectorKind], vector: npt.ArrayLike, k: int = 10
    ) -> dict[VectorKind, list[VectorHit]]:
        user = self._check_user(user_id)
        wanted = list(dict.fromkeys(VectorKind(kind) for kind in kinds))
        query = self._vector(vector).tolist()
        out: dict[VectorKind, list[VectorHit]] = {kind: [] for kind in wanted}
        if k <= 0 or not wanted:
            return out
        if self.search_filters:
            return self._search_filtered(user, wanted, query, k)
        if any(kind not in _ANN_MANY_KINDS for kind in wanted):
            return super().vector_search_many(user_id, wanted, vector, k)
        rows = self._read(
            "vector/ann_many",
            kinds=[kind.value for kind in wanted],
            fetch=max(k * _OVERFETCH, _MIN_FETCH),
            vector=query,
            user_id=user,
            k=k,
        )
        for row in rows:
            out[VectorKind(row["kind"])].append(
                VectorHit(ref_id=row["ref_id"], score=float(row["score"]))
            )
        short = self._complete_exactly(user, out, query, k)
        self.counters["vector_index"] += len(wanted) - len(short)
        return out

    def _search_filtered(
        self, user: str, kinds: Sequence[VectorKind], query: list[float], k: int
    ) -> dict[VectorKind, list[VectorHit]]:
        """Each kind's nearest nodes of the user, filtered inside the index, one statement."""

        def limit(kind: VectorKind) -> int:
            return k if kind in kinds else 0

        rows = self._read(
            "vector/search_many",
            vector=query,
            user_id=user,
            k_memory=limit(VectorKind.MEMORY),
            k_topic=limit(VectorKind.TOPIC),
            k_object=limit(VectorKind.OBJECT),
            k_episode=limit(VectorKind.EPISODE),
            k_knowledge=limit(VectorKind.KNOWLEDGE),
        )
        out: dict[VectorKind, list[VectorHit]] = {kind: [] for kind in kinds}
        for row in rows:
            out[VectorKind(row["kind"])].append(
                VectorHit(ref_id=row["ref_id"], score=float(row["score"]))
            )
        short = self._complete_exactly(user, out, query, k)
        self.counters["vector_filtered"] += len(kinds) - len(short)
        return out

    def _complete_exactly(
        self, user: str, out: dict[VectorKind, list[VectorHit]], query: list[float], k: int
    ) -> list[VectorKind]:
        """Replace, by an exact scan of just the user's items, each kind the index answered
        with fewer than ``k`` of them: the user owns few (or, filtering in the index, the
        approximate search came up short of all of them). One statement for all such kinds;
        returns them."""
        short = [kind for kind in out if len(out[kind]) < k]
        scannable = [kind for kind in short if kind in _ANN_MANY_KINDS]
        if scannable:
            exact = self._read(
                "vector/exact_many",
                kinds=[kind.value for kind in scannable],
                vector=query,
                user_id=user,
                k=k,
            )
            for kind in scannable:
                out[kind] = []
            for row in exact:
                out[VectorKind(row["kind"])].append(
                    VectorHit(ref_id=row["ref_id"], score=float(row["score"]))
                )
        for kind in short:
            if kind not in _ANN_MANY_KINDS:
                out[kind] = [
                    VectorHit(ref_id=r["ref_id"], score=float(r["score"]))
                    for r in self._read(
                        f"vector/exact_{kind.value}", vector=query, user_id=user, k=k
                    )
                ]
        self.counters["vector_exact"] += len(short)
        return short

    def lexical_search(
        self,
        user_id: str,
        query: str,
        kinds: Iterable[VectorKind] = (VectorKind.MEMORY, VectorKind.EPISODE),
        k: int = 10,
    ) -> list[LexicalHit]:
        user = self._check_user(user_id)
        lucene = _lucene_query(user, self._check_query(query))
        kind_values = [VectorKind(x).value for x in kinds]
        if lucene is None or not kind_values or k <= 0:
            return []
        rows = self._read(
            "lexical/search",
            query=lucene,
            user_id=user,
            kinds=kind_values,
            fetch=max(k * _OVERFETCH, _MIN_FETCH),
            k=k,
        )
        return [
            LexicalHit(kind=VectorKind(r["kind"]), ref_id=r["ref_id"], score=float(r["score"]))
            for r in rows
        ]

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
        seeds = list(dict.fromkeys(seed_ids))
        walks = self._walk(
            user_id, [seeds], depth, relation_types, hub_cap, include_invalid, skip_node_ids
        )
        return walks[0] if walks else []

    def expand_each(
        self,
        user_id: str,
        seed_ids: Sequence[str],
        depth: int = 1,
        relation_types: Iterable[LinkType | str] | None = None,
        hub_cap: int = 50,
        include_invalid: bool = False,
        skip_node_ids: Sequence[str] = (),
    ) -> dict[str, list[ExpansionHit]]:
        seeds = list(dict.fromkeys(seed_ids))
        walks = self._walk(
            user_id, [[s] for s in seeds], depth, relation_types, hub_cap, include_invalid,
            skip_node_ids,
        )  # fmt: skip
        return dict(zip(seeds, walks, strict=True)) if walks else {s: [] for s in seeds}

    def _walk(
        self,
        user_id: str,
        groups: list[list[str]],
        depth: int,
        relation_types: Iterable[LinkType | str] | None,
        hub_cap: int,
        include_invalid: bool,
        skip_node_ids: Sequence[str],
    ) -> list[list[ExpansionHit]]:
        """Breadth-first walks from several groups of seeds, each on its own, with one
        statement for every two levels of all of them (``memory/expand_two.cypher``, and
        ``memory/expand_step.cypher`` for a last odd level): a level's frontier is the
        union of the groups' frontiers, and each hop goes to the groups whose frontier it
        starts from (a hop from a memory does not depend on which walk reached it)."""
        user = self._check_user(user_id)
        depth = self._check_depth(depth)
        types, shared = relation_filter(relation_types)
        if depth == 0 or not any(groups):
            return []
        seen = [set(group) for group in groups]
        frontiers = [set(group) for group in groups]
        rows: list[list[Hop]] = [[] for _ in groups]
        ahead: list[Hop] | None = None  # the next level's hops, fetched with this one
        for level in range(depth):
            union = sorted(set().union(*frontiers))
            if not union:
                break
            if ahead is not None:
                hops, ahead = ahead, None
            else:
                two = depth - level >= 2
                found = self._read(
                    "memory/expand_two" if two else "memory/expand_step",
                    frontier=union,
                    user_id=user,
                    types=types,
                    shared=shared,
                    hub_cap=hub_cap,
                    include_invalid=include_invalid,
                    shared_rel=SHARED_NODE,
                    skip=list(skip_node_ids),
                )
                if two:
                    both = found[0]["hops"]
                    hops = [_hop(h) for h in both if h["level"] == 1]
                    ahead = [_hop(h) for h in both if h["level"] == 2]
                else:
                    hops = [_hop(r) for r in found]
            for i, frontier in enumerate(frontiers):
                mine = [hop for hop in hops if hop[0] in frontier]
                rows[i].extend(mine)
                reached = {hop[1] for hop in mine} - seen[i]
                seen[i].update(reached)
                frontiers[i] = reached
        return [pick_shortest_paths(group, rows[i], depth) for i, group in enumerate(groups)]

    # -- episodes --------------------------------------------------------------------

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
        new_ids = [e.id for e in episodes]

        def work(tx: Any) -> None:
            if replacing:
                self._delete_episodes_in(tx, user, list(dict.fromkeys(replacing)))

            def around(session: str, turn: Episode) -> tuple[StoredTurn | None, StoredTurn | None]:
                at = turn.timestamp
                before = self._run(
                    tx, "episode/session_before", user_id=user, session_id=session, at=at,
                    exclude=new_ids,
                )  # fmt: skip
                after = self._run(
                    tx, "episode/session_after", user_id=user, session_id=session, at=at,
                    exclude=new_ids,
                )  # fmt: skip
                return (
                    StoredTurn(
                        before[0]["id"],
                        _native(before[0]["timestamp"]),
                        before[0]["next_id"],
                        before[0]["text"],
                    )
                    if before
                    else None,
                    StoredTurn(after[0]["id"], _native(after[0]["timestamp"])) if after else None,
                )

            links = link_session_turns(ordered, around)
            props = [_episode_props(e, links.before.get(e.id)) for e in episodes]
            self._run(tx, "episode/create_many", episodes=props)
            if links.pairs:
                pairs = [{"from_id": a, "to_id": b} for a, b in links.pairs]
                self._run(tx, "episode/link_next", pairs=pairs, user_id=user)
            if links.retoken:  # a stored turn a late one now precedes
                stored = [
                    _episode_from_props(r["episode"])
                    for r in self._run(
                        tx, "episode/get_many", episode_ids=list(links.retoken), user_id=user
                    )
                ]
                items = [
                    {"id": e.id, "search_tokens": _episode_tokens(user, e, links.retoken[e.id])}
                    for e in stored
                ]
                self._run(tx, "episode/retoken_many", items=items, user_id=user)

        self._write(work)
        return new_ids

    def delete_episodes(self, user_id: str, episode_ids: Sequence[str]) -> int:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(episode_ids))
        if not ids:
            return 0
        return self._write(lambda tx: self._delete_episodes_in(tx, user, ids))

    def _delete_episodes_in(self, tx: Any, user: str, ids: list[str]) -> int:
        """:meth:`delete_episodes` inside the caller's transaction."""
        after = [
            r["next_id"]
            for r in self._run(tx, "episode/next_many", episode_ids=ids, user_id=user)
            if r["next_id"] not in ids
        ]
        before = [
            r["id"]
            for r in self._run(tx, "episode/previous_many", episode_ids=ids, user_id=user)
            if r["id"] not in ids
        ]
        rows = self._run(tx, "episode/delete_many", episode_ids=ids, user_id=user)
        if before:  # a turn embedded with a deleted turn after it is embedded without it
            self._run(tx, "episode/requeue_many", episode_ids=before, user_id=user)
        if after:  # a turn indexed with a deleted turn's words is indexed without them
            items = [
                {
                    "id": props["id"],
                    "search_tokens": _episode_tokens(user, _episode_from_props(props)),
                }
                for props in (
                    r["episode"]
                    for r in self._run(tx, "episode/get_many", episode_ids=after, user_id=user)
                )
            ]
            self._run(tx, "episode/reindex_many", items=items, user_id=user)
        return int(rows[0]["deleted"]) if rows else 0

    def fill_episode_speakers(self, user_id: str, speakers: Mapping[str, str]) -> int:
        user = self._check_user(user_id)
        named = self._check_speakers(speakers)
        if not named:
            return 0
        ids = list(named)

        def work(tx: Any) -> int:
            speakerless = [
                episode
                for episode in (
                    _episode_from_props(r["episode"])
                    for r in self._run(tx, "episode/get_many", episode_ids=ids, user_id=user)
                )
                if episode.speaker is None
            ]
            if not speakerless:
                return 0
            previous = {
                r["next_id"]: r["text"]
                for r in self._run(
                    tx,
                    "episode/previous_many",
                    episode_ids=[e.id for e in speakerless],
                    user_id=user,
                )
            }
            items = [
                {
                    "id": e.id,
                    "speaker": named[e.id],
                    "search_tokens": _episode_tokens(
                        user, e.model_copy(update={"speaker": named[e.id]}), previous.get(e.id)
                    ),
                }
                for e in speakerless
            ]
            rows = self._run(tx, "episode/fill_speakers", items=items, user_id=user)
            return int(rows[0]["filled"]) if rows else 0

        return self._write(work)

    def get_episodes(self, user_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        user = self._check_user(user_id)
        rows = self._read(
            "episode/get_many", episode_ids=list(dict.fromkeys(episode_ids)), user_id=user
        )
        return [_episode_from_props(r["episode"]) for r in rows]

    def session_episodes(
        self, user_id: str, session_id: str, limit: int = 10_000, *, newest_first: bool = False
    ) -> list[Episode]:
        user = self._check_user(user_id)
        rows = self._read(
            "episode/for_session_newest" if newest_first else "episode/for_session",
            user_id=user,
            session_id=session_id,
            limit=limit,
        )
        return [_episode_from_props(r["episode"]) for r in rows]

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
        if id_prefix:
            rows = self._read(
                "episode/list_by_id_prefix_newest" if newest_first else "episode/list_by_id_prefix",
                user_id=user,
                id_prefix=id_prefix,
                limit=limit,
                offset=offset,
            )
        else:
            rows = self._read(
                "episode/list_newest" if newest_first else "episode/list",
                user_id=user,
                limit=limit,
                offset=offset,
            )
        return [_episode_from_props(r["episode"]) for r in rows]

    def episode_ids_by_prefix(self, user_id: str, id_prefix: str) -> list[str]:
        user = self._check_user(user_id)
        if not id_prefix:
            raise InvalidInputError("must be a non-empty string", "id_prefix")
        rows = self._read("episode/ids_by_prefix", user_id=user, id_prefix=id_prefix)
        return [r["id"] for r in rows]

    def expired_episode_ids(self, user_id: str, now: datetime, limit: int = 1000) -> list[str]:
        user = self._check_user(user_id)
        rows = self._read("episode/expired", user_id=user, now=utc(now), limit=limit)
        return [r["id"] for r in rows]

    def latest_offset(self, user_id: str) -> str | None:
        user = self._check_user(user_id)
        rows = self._read("episode/latest_offset", user_id=user)
        offset = json.loads(rows[0]["metadata"] or "{}").get(UTC_OFFSET_KEY) if rows else None
        return None if offset is None else str(offset)

    def set_episode_expiry(self, user_id: str, expiry: Mapping[str, datetime]) -> int:
        user = self._check_user(user_id)
        if not expiry:
            return 0
        rows = [{"id": ref, "expires_at": utc(when)} for ref, when in expiry.items()]
        moved = self._write(
            lambda tx: self._run(tx, "episode/set_expiry_many", rows=rows, user_id=user)
        )
        return int(moved[0]["moved"])

    def users_with_staged(self, limit: int = 1000, after: str = "") -> list[str]:
        return [
            r["user_id"] for r in self._read("memory/users_with_staged", limit=limit, after=after)
        ]

    def list_users(self, limit: int = 10_000, after: str = "") -> list[str]:
        return [r["user_id"] for r in self._read("user/list", limit=limit, after=after)]

    def find_episodes(
        self, user_id: str, speaker: str, min_access: int = 0, limit: int = 1000
    ) -> list[Episode]:
        user = self._check_user(user_id)
        rows = self._read(
            "episode/find", user_id=user, speaker=speaker, min_access=min_access, limit=limit
        )
        return [_episode_from_props(r["episode"]) for r in rows]

    def record_episode_access(self, user_id: str, episode_ids: Sequence[str]) -> None:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(episode_ids))
        if ids:
            self._write(
                lambda tx: self._run(tx, "episode/record_access", episode_ids=ids, user_id=user)
            )

    def next_episode_ids(self, user_id: str, episode_ids: Sequence[str]) -> dict[str, str]:
        user = self._check_user(user_id)
        rows = self._read(
            "episode/next_many", episode_ids=list(dict.fromkeys(episode_ids)), user_id=user
        )
        return {r["id"]: r["next_id"] for r in rows}

    # -- knowledge -------------------------------------------------------------------

    def add_knowledge_version(self, version: KnowledgeVersion) -> str:
        user = version.user_id
        points = [
            {
                "id": p.id,
                "user_id": user,
                "content": p.content,
                "type": p.type.value,
                "score": p.score,
                "metadata": metadata_json(p.metadata),
                "sensitive": p.sensitive,
                "position": i,
                "search_kind": VectorKind.KNOWLEDGE.value,
                "search_tokens": _search_tokens(user, p.content),
            }
            for i, p in enumerate(version.points)
        ]
        self._write(
            lambda tx: self._run(
                tx,
                "knowledge/create_version",
                user_id=user,
                version_id=version.version_id,
                session_id=version.session_id,
                created_at=version.created_at,
                through=version.through,
                points=points,
            )
        )
        return version.version_id

    def delete_knowledge(self, user_id: str, point_ids: Sequence[str]) -> int:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(point_ids))
        if not ids:
            return 0
        rows = self._write(
            lambda tx: self._run(tx, "knowledge/delete_many", user_id=user, point_ids=ids)
        )
        return int(rows[0]["deleted"]) if rows else 0

    # -- provenance ----------------------------------------------------------------------

    def told_by(self, user_id: str, episode_ids: Sequence[str]) -> ToldItems:
        user = self._check_user(user_id)
        ids = set(episode_ids)
        told = ToldItems()
        if not ids:
            return told
        needles = [json.dumps(i, ensure_ascii=False) for i in sorted(ids)]  # as metadata_json
        for row in self._read("provenance/told_by", user_id=user, needles=needles):
            if episodes_named(json.loads(row["metadata"] or "{}")) & ids:
                (told.memory_ids if row["kind"] == "memory" else told.knowledge_ids).append(
                    row["id"]
                )
        return told

    # -- audit ---------------------------------------------------------------------------

    def add_audit(self, entry: AuditEntry) -> None:
        props = {
            "id": entry.id,
            "user_id": entry.user_id,
            "action": entry.action,
            "target_kind": entry.target_kind,
            "target_ids": list(entry.target_ids),
            "at": entry.at,
            "actor": entry.actor,
            "counts": json.dumps(entry.counts),
        }
        self._write(
            lambda tx: self._run(
                tx, "audit/add", entry={k: v for k, v in props.items() if v is not None}
            )
        )

    def audit_log(self, user_id: str, limit: int = 100) -> list[AuditEntry]:
        user = self._check_user(user_id)
        return [
            AuditEntry(
                id=a["id"],
                user_id=user,
                action=a["action"],
                target_kind=a["target_kind"],
                target_ids=list(a.get("target_ids") or []),
                at=_native(a["at"]),
                actor=a.get("actor"),
                counts=json.loads(a.get("counts") or "{}"),
            )
            for a in (r["entry"] for r in self._read("audit/list", user_id=user, limit=limit))
        ]

    # -- media vectors -------------------------------------------------------------------

    def set_media_vectors(
        self, user_id: str, modality: str, model: str, vectors: Mapping[str, npt.ArrayLike]
    ) -> int:
        user = self._check_user(user_id)
        rows = [{"ref_id": ref, "vector": _unit_list(v)} for ref, v in vectors.items()]
        if not rows:
            return 0
        result = self._write(
            lambda tx: self._run(
                tx, "media/set_vectors", user_id=user, modality=modality, model=model, rows=rows
            )
        )
        return int(result[0]["stored"]) if result else 0

    def media_vector_search(
        self, user_id: str, modality: str, model: str, vector: npt.ArrayLike, k: int = 10
    ) -> list[VectorHit]:
        user = self._check_user(user_id)
        rows = self._read(
            "media/search",
            user_id=user,
            modality=modality,
            model=model,
            vector=_unit_list(vector),
            k=int(k),
        )
        return [VectorHit(ref_id=r["ref_id"], score=float(r["score"])) for r in rows]

    def knowledge_version_times(
        self, user_id: str, version_ids: Sequence[str]
    ) -> dict[str, datetime]:
        user = self._check_user(user_id)
        ids = list(dict.fromkeys(version_ids))
        if not ids:
            return {}
        rows = self._read("knowledge/version_times", user_id=user, version_ids=ids)
        return {r["version_id"]: _native(r["created_at"]) for r in rows}

    def session_read_through(self, user_id: str, session_id: str) -> dict[str, datetime]:
        user = self._check_user(user_id)
        rows = self._read("knowledge/session_read_through", user_id=user, session_id=session_id)
        return {r["version_id"]: _native(r["read_through"]) for r in rows}

    def knowledge_versions(self, user_id: str, limit: int = 1) -> list[KnowledgeVersion]:
        user = self._check_user(user_id)
        return [
            KnowledgeVersion(
                version_id=r["version_id"],
                user_id=user,
                session_id=r["session_id"],
                created_at=_native(r["created_at"]),
                through=_native(r["through"]),
                points=[
                    KnowledgePoint(
                        id=p["id"],
                        content=p["content"],
                        type=KnowledgeType(p["type"]),
                        score=p["score"],
                        metadata=json.loads(p["metadata"] or "{}"),
                    )
                    for p in r["points"]
                ],
            )
            for r in self._read("knowledge/versions", user_id=user, limit=limit)
        ]

    # -- inspection ------------------------------------------------------------------

    def stats(self, user_id: str | None = None) -> StoreStats:
        user = None if user_id is None else self._check_user(user_id)
        row = self._read("user/stats", user_id=user)[0]
        nodes: dict[str, int] = {}
        vectors: dict[str, int] = {}
        for item in row["node_rows"]:
            nodes[item["kind"]] = int(item["nodes"])
            if item["embedded"] and item["kind"] in ("Topic", "Object"):
                vectors[item["kind"].lower()] = int(item["embedded"])
        for key, column in (
            ("memory", "memory_vectors"),
            ("episode", "episode_vectors"),
            ("knowledge", "knowledge_vectors"),
        ):
            if row[column]:
                vectors[key] = int(row[column])
        return StoreStats(
            memories=row["memories"],
            staged=row["staged"],
            invalid=row["invalid"],
            nodes=nodes,
            structural_edges=row["structural_edges"],
            links=row["links"],
            episodes=row["episodes"],
            knowledge_versions=row["knowledge_versions"],
            knowledge_points=row["knowledge_points"],
            vectors=vectors,
        )


# -- mapping ---------------------------------------------------------------------------


def _hop(row: Mapping[str, Any]) -> Hop:
    """One hop as ``memory/expand_step.cypher`` and ``expand_two.cypher`` return it."""
    return (row["from_id"], row["to_id"], row["rel"], row["dir"], row["via"], row["weight"])


def _add_loaded(
    out: LoadedCandidates,
    memories: Iterable[Mapping[str, Any]],
    episodes: Iterable[Mapping[str, Any]],
) -> None:
    """Stored candidates as ``search/load_candidates.cypher`` and ``search/seed.cypher``
    return them, added to ``out``."""
    for item in memories:
        memory = _memory_from_props(item["memory"])
        out.memories.append(memory)
        if item["score"] is not None:
            out.memory_similarity[memory.id] = float(item["score"])
    for item in episodes:
        episode = _episode_from_props(item["episode"])
        out.episodes.append(episode)
        if item["score"] is not None:
            out.episode_similarity[episode.id] = float(item["score"])
        if item["next_id"] is not None:
            out.next_episode[episode.id] = item["next_id"]


def _page_row_tokens(kind: str, row: Any) -> str | None:
    """The search tokens of the item of a ``lexical/*_page`` row, as writing it would
    make them now (none for a turn kept out of search: it leaves the index)."""
    if kind == "memory":
        memory = _memory_from_props(row["memory"])
        return _search_tokens(memory.user_id, memory_document(memory))
    if kind == "episode":
        episode = _episode_from_props(row["episode"])
        return _episode_tokens(episode.user_id, episode, row["previous_text"])
    return _search_tokens(row["user_id"], row["content"])


def _search_tokens(user_id: str, text: str) -> str:
    return user_token(user_id) + " " + tokens_document(text)


def _episode_tokens(user_id: str, episode: Episode, previous_text: str | None = None) -> str | None:
    """An episode's fulltext tokens; none for one kept out of search (without the
    property the node is not in the fulltext index, nor in its statistics)."""
    if not episode.searchable:
        return None
    return _search_tokens(user_id, episode_document(episode, previous_text))


def _episode_props(episode: Episode, previous_text: str | None) -> dict[str, Any]:
    """A turn's node properties, its search tokens after its previous turn's words."""
    return {
        "id": episode.id,
        "user_id": episode.user_id,
        "session_id": episode.session_id,
        "text": episode.text,
        "speaker": episode.speaker,
        "timestamp": episode.timestamp,
        "keywords": episode.keywords,
        "importance": episode.importance,
        "access_count": episode.access_count,
        "metadata": metadata_json(episode.metadata),
        "sensitive": episode.sensitive,
        "searchable": episode.searchable,
        "expires_at": episode.expires_at,
        "clocked_at": (None if episode.metadata.get(UTC_OFFSET_KEY) is None else episode.timestamp),
        "search_kind": VectorKind.EPISODE.value,
        "search_tokens": _episode_tokens(episode.user_id, episode, previous_text),
    }


def _memory_props(memory: Memory) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": memory.id,
        "user_id": memory.user_id,
        "memory_type": memory.memory_type.value,
        "title": memory.title,
        "text": memory.text,
        "importance": memory.importance,
        "status": memory.status.value,
        "created_at": memory.created_at,
        "event_time": memory.event_time,
        "last_accessed": memory.last_accessed,
        "access_count": memory.access_count,
        "valid_from": memory.valid_from,
        "invalid_at": memory.invalid_at,
        "session_id": memory.session_id,
        "source": memory.source,
        "attributes": json.dumps(memory.attributes, ensure_ascii=False),
        "metadata": metadata_json(memory.metadata),
        "sensitive": memory.sensitive,
        "search_kind": VectorKind.MEMORY.value,
        "search_tokens": _search_tokens(memory.user_id, memory_document(memory)),
    }
    return {k: v for k, v in props.items() if v is not None}


def _unit_list(vector: npt.ArrayLike) -> list[float]:
    """A media vector scaled to unit length, as the driver sends lists."""
    array = np.asarray(vector, dtype=np.float64).reshape(-1)
    norm = float(np.linalg.norm(array))
    if not np.isfinite(norm) or norm == 0.0:
        raise InvalidInputError("a media vector must be finite and non-zero", "vector")
    return [float(x) for x in array / norm]


def _memory_from_props(p: Mapping[str, Any]) -> Memory:
    return Memory.model_construct(
        id=p["id"],
        user_id=p["user_id"],
        memory_type=MemoryType(p["memory_type"]),
        title=p["title"],
        text=p["text"],
        importance=p["importance"],
        status=MemoryStatus(p["status"]),
        created_at=_native(p["created_at"]),
        event_time=_native(p.get("event_time")),
        last_accessed=_native(p.get("last_accessed")),
        access_count=p.get("access_count", 0),
        valid_from=_native(p.get("valid_from")),
        invalid_at=_native(p.get("invalid_at")),
        session_id=p.get("session_id"),
        source=p.get("source"),
        attributes=json.loads(p.get("attributes") or "{}"),
        metadata=json.loads(p.get("metadata") or "{}"),
    )


def _node_from_map(n: Mapping[str, Any]) -> ContentNode:
    return ContentNode.model_construct(
        id=n["id"],
        user_id=n["user_id"],
        kind=NodeType(n["kind"]),
        content=n["content"],
        created_at=_native(n["created_at"]),
        merged_from=list(n.get("merged_from") or []),
    )


def _episode_from_props(p: Mapping[str, Any]) -> Episode:
    return Episode.model_construct(
        id=p["id"],
        user_id=p["user_id"],
        session_id=p.get("session_id"),
        text=p["text"],
        speaker=p.get("speaker"),
        timestamp=_native(p["timestamp"]),
        keywords=list(p.get("keywords") or []),
        importance=p.get("importance", 0.5),
        access_count=p.get("access_count", 0),
        metadata=json.loads(p.get("metadata") or "{}"),
        expires_at=_native(p.get("expires_at")),
    )
