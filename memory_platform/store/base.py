"""The ``GraphStore`` contract every storage backend implements in full.

Each method is scoped by ``user_id``: no read crosses users, no write joins them.
Methods take and return the pydantic records of :mod:`memory_platform.models`; vectors
are float32 numpy rows, L2-normalised, of the store's recorded dimension.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from ..errors import EmbeddingMismatchError, InvalidInputError
from ..models import (
    MAX_CONTENT_CHARS,
    MAX_TEXT_CHARS,
    AuditEntry,
    ContentNode,
    Episode,
    ExpansionHit,
    KnowledgeVersion,
    LexicalHit,
    LinkType,
    Memory,
    MemoryLink,
    MemoryStatus,
    MemorySubgraph,
    NodeType,
    PathStep,
    StructuralEdge,
    VectorHit,
    VectorKind,
    valid_unicode,
)
from ..textutil import lexical_signature

__all__ = [
    "SHARED_NODE",
    "EmbeddingSignature",
    "GraphStore",
    "LoadedCandidates",
    "MemoryRecord",
    "PendingEmbedding",
    "SeedQuery",
    "Seeds",
    "StoreStats",
    "ToldItems",
    "check_supersession",
    "episode_document",
    "episode_embedding_text",
    "memory_document",
    "metadata_json",
    "relation_filter",
    "spoken_line",
]

SHARED_NODE = "SHARED_NODE"
"""Relation name of an expansion hop through a content node two memories share."""

_RETOKENIZE_PAGE = 500
"""Lexical documents tokenized again per write transaction (``retokenize``)."""

_NODE_KINDS = (VectorKind.TOPIC, VectorKind.OBJECT)
"""The vector kinds a search reaches memories through (:attr:`SeedQuery.node_k`)."""


class EmbeddingSignature(BaseModel):
    """Which model made a store's vectors; a store refuses vectors of another signature."""

    model: str
    dimension: int

    def __str__(self) -> str:
        return f"{self.model} ({self.dimension} dimensions)"


class MemoryRecord(BaseModel):
    """A memory read back with its subgraph and its memory-to-memory links."""

    memory: Memory
    nodes: list[ContentNode]
    edges: list[StructuralEdge]
    links: list[MemoryLink] = Field(default_factory=list)


class PendingEmbedding(BaseModel):
    """Something stored without a vector yet: what to embed and where it belongs."""

    user_id: str
    kind: VectorKind
    ref_id: str
    text: str
    version: str | None = None
    """Which queuing of the item this is: an item queued again while being embedded (its
    text changed, or its vector was dropped on purpose) has another version, and
    :meth:`GraphStore.set_embeddings` given the old one leaves it queued."""


class LoadedCandidates(BaseModel):
    """What one search needs about its candidates (:meth:`GraphStore.load_candidates`)."""

    memories: list[Memory] = Field(default_factory=list)
    episodes: list[Episode] = Field(default_factory=list)
    memory_similarity: dict[str, float] = Field(default_factory=dict)
    episode_similarity: dict[str, float] = Field(default_factory=dict)
    next_episode: dict[str, str] = Field(default_factory=dict)


class ToldItems(BaseModel):
    """The items extracted or promoted from some episodes (:meth:`GraphStore.told_by`)."""

    memory_ids: list[str] = Field(default_factory=list)
    knowledge_ids: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class SeedQuery:
    """What a search starts from (:meth:`GraphStore.seed_search`)."""

    vector: npt.NDArray[np.float32]
    """The query's embedding."""
    vector_kinds: tuple[VectorKind, ...]
    """The kinds searched by vector (memories are also reached through their topic's
    and object's vectors)."""
    text: str
    """The query's words, for the lexical index."""
    lexical_kinds: tuple[VectorKind, ...]
    """The kinds searched by words; none, no lexical lookup."""
    k: int
    """Candidates per kind and channel."""
    node_k: int
    """Topic and object nodes searched by vector: each is a door to up to
    ``node_fanout`` memories, so fewer of them than ``k``."""
    node_fanout: int
    """At most this many memories are seeded through one matching topic or object."""


class Seeds(BaseModel):
    """A search's candidates before ranking: each channel's hits and the stored items."""

    vector: dict[VectorKind, list[VectorHit]] = Field(default_factory=dict)
    node_memories: dict[str, list[str]] = Field(default_factory=dict)
    """For each matching topic or object node, its first memories by id (the fan-out)."""
    lexical: list[LexicalHit] = Field(default_factory=list)
    """Best first."""
    loaded: LoadedCandidates = Field(default_factory=LoadedCandidates)
    """Every candidate's stored memory or episode, with the cosine of the lexical-only
    ones and each episode's next turn (:meth:`GraphStore.load_candidates`)."""

    def candidate_ids(self) -> tuple[list[str], list[str], list[str]]:
        """The memory and episode ids the channels found, and those among them that no
        vector scored (lexical hits only), each in the order a search meets them."""
        scored_memories = [h.ref_id for h in self.vector.get(VectorKind.MEMORY, [])]
        for memory_ids in self.node_memories.values():
            scored_memories.extend(memory_ids)
        scored_episodes = [h.ref_id for h in self.vector.get(VectorKind.EPISODE, [])]
        memories = list(dict.fromkeys(scored_memories))
        episodes = list(dict.fromkeys(scored_episodes))
        unscored: list[str] = []
        for hit in self.lexical:
            ids = memories if hit.kind == VectorKind.MEMORY else episodes
            if hit.kind in (VectorKind.MEMORY, VectorKind.EPISODE) and hit.ref_id not in ids:
                ids.append(hit.ref_id)
                unscored.append(hit.ref_id)
        return memories, episodes, unscored


class StoreStats(BaseModel):
    """Counts of what a user (or the whole store) holds."""

    memories: int = 0
    staged: int = 0
    invalid: int = 0
    nodes: dict[str, int] = Field(default_factory=dict)
    structural_edges: int = 0
    links: int = 0
    episodes: int = 0
    knowledge_versions: int = 0
    knowledge_points: int = 0
    vectors: dict[str, int] = Field(default_factory=dict)


class GraphStore(ABC):
    """Storage contract shared by the SQLite and Neo4j backends."""

    backend_name: str = "abstract"
    parallel_reads: bool = False
    """Whether a read on another thread sees what one inside :meth:`reading` would (no
    read transaction spans a search), so a search may look up its words while its query
    is being embedded."""

    def __init__(self, signature: EmbeddingSignature) -> None:
        self._signature = signature
        self.counters: Counter[str] = Counter()
        """What the store did, for benchmarks: ``vector_index``, ``vector_filtered`` and
        ``vector_exact`` (which path served each vector search: the native index with
        over-fetch, the native index filtering by user inside it, an exact per-user scan)
        and, on a server backend, ``statements`` (round
        trips). Counted without a lock: approximate under concurrent use."""

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def signature(self) -> EmbeddingSignature:
        """The embedding model and dimension this store accepts."""
        return self._signature

    @abstractmethod
    def close(self) -> None:
        """Release connections; the store cannot be used afterwards."""

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Run the reads inside as one read transaction where the backend has them (a
        search sees one snapshot, and a server answers in fewer round trips). Reads on
        other threads are not affected; nesting is allowed."""
        yield

    @abstractmethod
    def _stored_signature(self) -> EmbeddingSignature | None:
        """The signature recorded in the store, or None for a fresh store."""

    @abstractmethod
    def _record_signature(self, signature: EmbeddingSignature) -> None:
        """Record the signature in a fresh store."""

    def stored_signature(self) -> EmbeddingSignature | None:
        """The embedding model and dimension the store's vectors were made with."""
        return self._stored_signature()

    @abstractmethod
    def reset_embeddings(self) -> int:
        """Start re-embedding with this store's signature, in one transaction.

        Every stored vector is dropped, every item is queued for embedding again and the
        signature is recorded. Texts are untouched, so nothing is lost whenever the
        re-embedding stops: what is still queued is embedded on the next run. Returns how
        many items are queued.
        """

    @abstractmethod
    def pending_count(self) -> int:
        """How many items of all users wait for a vector."""

    def check_signature(self) -> None:
        """Record the embedding signature on first use; refuse a different one later.

        Raises:
            EmbeddingMismatchError: the store was built with another model or dimension.
        """
        stored = self._stored_signature()
        if stored is None:
            self._record_signature(self._signature)
        elif stored != self._signature:
            raise EmbeddingMismatchError(stored.model, str(self._signature.model))

    # -- lexical index -------------------------------------------------------------------

    @abstractmethod
    def _stored_lexical_signature(self) -> str | None:
        """The tokenizer signature recorded in the store, or None where none is."""

    @abstractmethod
    def _record_lexical_signature(self, signature: str) -> None:
        """Record (or replace) the tokenizer signature."""

    @abstractmethod
    def lexical_document_count(self) -> int:
        """How many items of all users the lexical index holds."""

    @abstractmethod
    def _retokenize_pages(self, page_size: int) -> Iterator[int]:
        """Tokenize every lexical document again from its item's stored text, a page per
        write transaction; yields how many each page rewrote. Documents written meanwhile
        are tokenized as they are written."""

    def stored_lexical_signature(self) -> str | None:
        """The tokenizer the lexical index was built with, as recorded (None: unknown)."""
        return self._stored_lexical_signature()

    def lexical_index_current(self) -> bool:
        """Whether the lexical index was tokenized as queries are now. A store that holds
        no document yet takes the current signature; one that holds documents but no
        signature was written before stores recorded one, so it is not known to be."""
        current = lexical_signature()
        stored = self._stored_lexical_signature()
        if stored is None and self.lexical_document_count() == 0:
            self._record_lexical_signature(current)
            return True
        return stored == current

    def retokenize(
        self,
        progress: Callable[[int, int], None] = lambda _d, _t: None,
        page_size: int = _RETOKENIZE_PAGE,
    ) -> int:
        """Rebuild the lexical index with the current tokenizer, then record its signature.

        Texts are never touched and every document stays searchable throughout (each is
        replaced in the transaction that tokenizes it again), so an interrupted run loses
        nothing: run it again. ``progress(done, total)`` follows each page. Returns how
        many documents were rewritten.
        """
        total = self.lexical_document_count()
        done = 0
        progress(0, total)
        for rewritten in self._retokenize_pages(page_size):
            done += rewritten
            progress(min(done, total), total)
        self._record_lexical_signature(lexical_signature())
        return done

    # -- memories ------------------------------------------------------------------------

    def write_memory(self, subgraph: MemorySubgraph) -> None:
        """Write a memory with its nodes and edges, entirely or not at all.

        Nodes whose id already exists for the user (shared subjects) are reused, not
        duplicated.

        Raises:
            ConflictError: the memory id exists, or a node id belongs to another user.
        """
        self.write_memories([subgraph])

    @abstractmethod
    def write_memories(self, subgraphs: Sequence[MemorySubgraph]) -> None:
        """Write many memories of one user in one transaction: all of them or none
        (imports and bulk loads; a backend behind a network writes them in a few round
        trips, not a few per memory).

        Raises:
            ConflictError: a memory id exists, or a node id belongs to another user.
            InvalidInputError: the memories belong to more than one user.
        """

    @abstractmethod
    def get_memory(self, user_id: str, memory_id: str) -> MemoryRecord | None:
        """A memory with its nodes, structural edges and links; None if absent."""

    @abstractmethod
    def get_memories(self, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        """The hubs of the given memories that exist, in no particular order."""

    @abstractmethod
    def list_memories(
        self,
        user_id: str,
        status: MemoryStatus | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]:
        """A user's memories, oldest first, optionally of one status."""

    def list_staged(self, user_id: str, limit: int = 100) -> list[Memory]:
        """Memories waiting for consolidation, oldest first."""
        return self.list_memories(user_id, MemoryStatus.STAGED, limit=limit)

    @abstractmethod
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
        """Change status, importance, validity or metadata of a memory.

        ``metadata`` replaces the stored metadata whole (read, change, write it back).
        ``only_if_current``: change it only while it has no ``invalid_at``, checked in the
        write's own transaction, so two corrections or retractions of one memory at the
        same time cannot both supersede it.

        Raises:
            NotFoundError: no such memory for this user.
            ConflictError: ``only_if_current`` and the memory is no longer current;
                nothing was changed.
        """

    @abstractmethod
    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime) -> None:
        """Add one to ``access_count`` and set ``last_accessed`` on each memory."""

    @abstractmethod
    def delete_memory(self, user_id: str, memory_id: str) -> bool:
        """Delete a memory, its links and every node no other memory includes.

        Returns False when there was nothing to delete.
        """

    @abstractmethod
    def delete_user(self, user_id: str) -> None:
        """Delete everything the user owns."""

    # -- links ---------------------------------------------------------------------------

    @abstractmethod
    def add_link(self, link: MemoryLink) -> None:
        """Create or update (same source, target and type) a memory-to-memory link.

        Raises:
            NotFoundError: either memory does not exist for this user.
        """

    @abstractmethod
    def supersede_memory(
        self,
        user_id: str,
        newer_id: str,
        older_id: str,
        *,
        at: datetime,
        links: Sequence[MemoryLink],
    ) -> None:
        """The newer memory supersedes the older one: the older gets ``invalid_at`` ``at``
        and ``links`` (each between the two) are written, in one transaction and only
        while both are current, so a memory corrected, retracted or forgotten meanwhile
        is neither invalidated by, nor invalidates, the other.

        Raises:
            NotFoundError: either memory does not exist for this user; nothing is written.
            ConflictError: either is no longer current; nothing is written.
            InvalidInputError: the two are one memory, or a link is not between them.
        """

    @abstractmethod
    def reinstate_memory(self, user_id: str, newer_id: str, older_id: str) -> bool:
        """Undo a consolidation's :meth:`supersede_memory`: the ``SUPERSEDES`` and
        ``CONFLICTS_WITH`` links between the two are deleted, and the older is current
        again and staged (to be consolidated anew), in one transaction. Only a supersession
        a consolidation discovered is undone: False, with nothing changed, when the newer
        does not supersede the older through a *discovered* link while the older is invalid
        (a person's correction, a retraction, or one reinstated already).

        Raises:
            NotFoundError: either memory does not exist for this user; nothing is changed.
        """

    @abstractmethod
    def get_links(self, user_id: str, memory_id: str) -> list[MemoryLink]:
        """Links that start or end at the memory."""

    # -- nodes -------------------------------------------------------------------------

    @abstractmethod
    def get_nodes(self, user_id: str, node_ids: Sequence[str]) -> list[ContentNode]:
        """The content nodes that exist among the ids."""

    @abstractmethod
    def find_nodes(self, user_id: str, kind: NodeType, norms: Sequence[str]) -> list[ContentNode]:
        """The user's nodes of a kind whose normalised content is one of ``norms``
        (see :func:`memory_platform.textutil.normalize_name`), oldest first."""

    @abstractmethod
    def merge_nodes(self, user_id: str, keep_id: str, drop_id: str) -> ContentNode:
        """Fold ``drop_id`` into ``keep_id``: rewire its edges and memberships, record it
        in ``keep.merged_from``, delete it and its vector.

        Raises:
            NotFoundError: either node does not exist for this user.
            InvalidInputError: the two ids are the same.
        """

    # -- embeddings and search -------------------------------------------------------

    @abstractmethod
    def set_embeddings(
        self,
        user_id: str,
        kind: VectorKind,
        vectors: Mapping[str, npt.ArrayLike],
        versions: Mapping[str, str | None] | None = None,
    ) -> int:
        """Store vectors for existing items of a kind; returns how many were stored.

        With ``versions`` (each item's :attr:`PendingEmbedding.version` as read), an item
        queued again since it was read is skipped and stays queued: its vector was made
        from a text that is no longer its own (a turn appended after it, or a neighbour
        deleted, whose words must not stay searchable through it).

        Raises:
            InvalidInputError: a vector's dimension differs from the store's.
        """

    @abstractmethod
    def pending_embeddings(
        self, user_id: str | None = None, limit: int = 256
    ) -> list[PendingEmbedding]:
        """Items that have no vector yet (of one user, or of all users)."""

    @abstractmethod
    def get_vectors(
        self, user_id: str, kind: VectorKind, ref_ids: Sequence[str]
    ) -> dict[str, npt.NDArray[np.float32]]:
        """The stored vectors of the given items (those that have one)."""

    def similarities(
        self, user_id: str, kind: VectorKind, ref_ids: Sequence[str], vector: npt.ArrayLike
    ) -> dict[str, float]:
        """The cosine of each item's stored vector to ``vector`` (items that have one).

        Search needs these scores, not the vectors: a backend whose vectors live in a
        server computes them there instead of shipping every candidate's vector.
        """
        query = self._vector(vector)
        return {
            ref: float(np.dot(stored, query))
            for ref, stored in self.get_vectors(user_id, kind, ref_ids).items()
        }

    def load_candidates(
        self,
        user_id: str,
        memory_ids: Sequence[str],
        episode_ids: Sequence[str],
        vector: npt.ArrayLike,
        unscored: Sequence[str] = (),
    ) -> LoadedCandidates:
        """The user's memories and episodes among the ids, the cosine to ``vector`` of those
        in ``unscored`` that have a stored vector, and each episode's next turn.

        A search needs all of it after seeding; a server backend answers in one round
        trip, with the cosines computed where the vectors are.
        """
        wanted = set(unscored)
        return LoadedCandidates(
            memories=self.get_memories(user_id, memory_ids),
            episodes=self.get_episodes(user_id, episode_ids),
            memory_similarity=self.similarities(
                user_id, VectorKind.MEMORY, [m for m in memory_ids if m in wanted], vector
            ),
            episode_similarity=self.similarities(
                user_id, VectorKind.EPISODE, [e for e in episode_ids if e in wanted], vector
            ),
            next_episode=self.next_episode_ids(user_id, episode_ids) if episode_ids else {},
        )

    def seed_search(
        self,
        user_id: str,
        ask: SeedQuery,
        lexical: Callable[[], list[LexicalHit]] | None = None,
    ) -> Seeds:
        """Everything a search starts from: the vector hits of each kind, the memories of
        the matching topics and objects, the lexical hits, and the stored candidates.

        ``lexical`` gives the lexical hits when the caller is already looking them up on
        another thread (:attr:`parallel_reads`). Composed here of the store's own reads; a
        server backend answers in one statement.
        """
        hits: dict[VectorKind, list[VectorHit]] = {}
        for kinds, k in (
            ([kind for kind in ask.vector_kinds if kind not in _NODE_KINDS], ask.k),
            ([kind for kind in ask.vector_kinds if kind in _NODE_KINDS], ask.node_k),
        ):
            if kinds:
                hits |= self.vector_search_many(user_id, kinds, ask.vector, k)
        nodes: dict[str, list[str]] = {}
        if VectorKind.MEMORY in ask.vector_kinds:
            node_ids = [
                hit.ref_id for kind in (VectorKind.TOPIC, VectorKind.OBJECT)
                for hit in hits.get(kind, [])
            ]  # fmt: skip
            nodes = {
                node_id: memory_ids[: ask.node_fanout]
                for node_id, memory_ids in self.memories_for_nodes(
                    user_id, list(dict.fromkeys(node_ids))
                ).items()
            }
        if lexical is not None:
            found = lexical()
        elif ask.lexical_kinds:
            found = self.lexical_search(user_id, ask.text, ask.lexical_kinds, ask.k)
        else:
            found = []
        seeds = Seeds(vector=hits, node_memories=nodes, lexical=found)
        memory_ids, episode_ids, unscored = seeds.candidate_ids()
        if memory_ids or episode_ids:
            seeds.loaded = self.load_candidates(
                user_id, memory_ids, episode_ids, ask.vector, unscored=unscored
            )
        return seeds

    @abstractmethod
    def memories_for_nodes(self, user_id: str, node_ids: Sequence[str]) -> dict[str, list[str]]:
        """For each content node, the ids of the memories that include it."""

    @abstractmethod
    def vector_search(
        self, user_id: str, kind: VectorKind, vector: npt.ArrayLike, k: int = 10
    ) -> list[VectorHit]:
        """The ``k`` items of a kind nearest to ``vector`` (cosine), best first."""

    def vector_search_many(
        self, user_id: str, kinds: Sequence[VectorKind], vector: npt.ArrayLike, k: int = 10
    ) -> dict[VectorKind, list[VectorHit]]:
        """:meth:`vector_search` for several kinds with one query vector (a search seeds
        from memories, topics, objects and episodes at once; a server backend answers all
        of them in one round trip)."""
        return {VectorKind(kind): self.vector_search(user_id, kind, vector, k) for kind in kinds}

    def vectors_in_memory(self, user_id: str, kinds: Sequence[VectorKind]) -> bool:
        """Whether :meth:`warm_vectors` has nothing to load for these kinds (answered from
        memory, without a read; always where vector search runs in a server)."""
        return True

    def warm_vectors(self, user_id: str, kinds: Sequence[VectorKind]) -> None:
        """Load the user's vectors of these kinds where the backend holds them in memory,
        so that a search can do it while its query is being embedded (a no-op where vector
        search runs in a server)."""
        return None

    def lexical_in_memory(self, user_id: str) -> bool:
        """Whether the user's next :meth:`lexical_search` builds nothing first (always where
        the lexical index lives in a server); a search runs a lookup that builds off the
        threads other users' searches share."""
        return True

    @abstractmethod
    def lexical_search(
        self,
        user_id: str,
        query: str,
        kinds: Iterable[VectorKind] = (VectorKind.MEMORY, VectorKind.EPISODE),
        k: int = 10,
    ) -> list[LexicalHit]:
        """Items whose text matches the query's words (Chinese included), best first."""

    @abstractmethod
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
        """Memories reachable from the seed memories within ``depth`` hops.

        A hop follows a memory link in either direction, or goes through a content node
        both memories include (``SHARED_NODE``), unless that node is in more than
        ``hub_cap`` memories or listed in ``skip_node_ids`` (such as the user's own
        subject, which every memory shares). ``relation_types`` limits the hops to those
        link types (add ``SHARED_NODE`` to keep shared-node hops). Seeds are not
        returned; each reached memory comes with its shortest distance and one shortest
        path.
        """

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
        """:meth:`expand` from each seed on its own, for several seeds at once (a search
        expands from its best few matches; a server backend walks them all in one round
        trip per level)."""
        return {
            seed: self.expand(
                user_id, [seed], depth, relation_types, hub_cap, include_invalid, skip_node_ids
            )
            for seed in dict.fromkeys(seed_ids)
        }

    # -- episodes ------------------------------------------------------------------------

    @abstractmethod
    def add_episodes(
        self, episodes: Sequence[Episode], *, replacing: Sequence[str] = ()
    ) -> list[str]:
        """Store episodes (one user per call), linking each session's ones ``NEXT`` in
        time order. Returns their ids.

        ``replacing``: ids of the user's episodes deleted first (as :meth:`delete_episodes`
        does) in the same transaction, so an item stored again under its id is never
        missing, nor lost when the write fails.
        """

    @abstractmethod
    def delete_episodes(self, user_id: str, episode_ids: Sequence[str]) -> int:
        """Delete the user's episodes with these ids, their vectors and lexical entries;
        returns how many were deleted (ids of other users count as absent)."""

    @abstractmethod
    def get_episodes(self, user_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        """The episodes that exist among the ids."""

    @abstractmethod
    def session_episodes(
        self, user_id: str, session_id: str, limit: int = 10_000, *, newest_first: bool = False
    ) -> list[Episode]:
        """A session's first ``limit`` episodes in time order (ties by id), or with
        ``newest_first`` its latest ``limit`` in the reverse order (the short-term
        buffer's stand-in while Redis does not answer reads the latest alone)."""

    @abstractmethod
    def list_episodes(
        self,
        user_id: str,
        limit: int = 1000,
        offset: int = 0,
        *,
        id_prefix: str | None = None,
        newest_first: bool = False,
    ) -> list[Episode]:
        """A user's episodes ordered by session, time and id (for export and paging), or
        with ``newest_first`` by time, newest first, then id (a page of the latest
        without reading the rest); with ``id_prefix``, only those whose id starts with
        it, found by the id's index (an integration's items among many turns of chat)."""

    @abstractmethod
    def episode_ids_by_prefix(self, user_id: str, id_prefix: str) -> list[str]:
        """The ids of a user's episodes that start with ``id_prefix``, in id order, read
        from the id's index alone (nothing decoded: a search among an integration's
        items needs their ids only)."""

    @abstractmethod
    def expired_episode_ids(self, user_id: str, now: datetime, limit: int = 1000) -> list[str]:
        """The ids of up to ``limit`` of the user's episodes whose expiry
        (:attr:`Episode.expires_at`) has come by ``now``, in id order."""

    @abstractmethod
    def latest_offset(self, user_id: str) -> str | None:
        """The UTC offset (``+08:00``) that the latest of the user's episodes recording
        one names in its metadata (:data:`memory_platform.clock.UTC_OFFSET_KEY`), or None:
        the clock their chat last named, which a call naming none is read on. Read from
        an index of those episodes alone: it is asked at every tool call and search."""

    @abstractmethod
    def set_episode_expiry(self, user_id: str, expiry: Mapping[str, datetime]) -> int:
        """Move the expiry of the user's episodes ``{episode_id: new expiry}``, in one
        write, for those that still have one (an item put again without one since it was
        read keeps none); nothing else of them changes, so nothing is embedded or indexed
        again. Returns how many were moved."""

    @abstractmethod
    def fill_episode_speakers(self, user_id: str, speakers: Mapping[str, str]) -> int:
        """Give the user's episodes stored without a speaker the one named
        ``{episode_id: speaker}``, in one write (a pasted transcript's first turn of a
        speaker, known to be one when the speaker speaks again); an episode that has a
        speaker keeps it. A filled turn's words are indexed again with its speaker, and it
        and the turns beside it (whose vectors' text holds its spoken line) are queued to
        be embedded again; their vectors serve until then. Returns how many were filled.
        """

    @abstractmethod
    def users_with_staged(self, limit: int = 1000, after: str = "") -> list[str]:
        """Users that have memories waiting for consolidation, in id order: a page as
        :meth:`list_users` gives."""

    @abstractmethod
    def list_users(self, limit: int = 10_000, after: str = "") -> list[str]:
        """Users with memories or episodes in id order, the first ``limit`` of those whose
        id sorts after ``after`` (a page; :meth:`iter_users` reads them all)."""

    def iter_users(self, page: int = 10_000, *, staged: bool = False) -> Iterator[str]:
        """Every user with memories or episodes (with staged memories, if ``staged``), in
        id order, read a page at a time: a store's users are not bounded by one page
        (daily maintenance, consolidation of all, namespaces)."""
        read = self.users_with_staged if staged else self.list_users
        after = ""
        while True:
            users = read(limit=page, after=after)
            yield from users
            if len(users) < page:
                return
            after = users[-1]

    @abstractmethod
    def find_episodes(
        self, user_id: str, speaker: str, min_access: int = 0, limit: int = 1000
    ) -> list[Episode]:
        """A user's episodes of one speaker accessed at least ``min_access`` times, oldest first."""

    @abstractmethod
    def record_episode_access(self, user_id: str, episode_ids: Sequence[str]) -> None:
        """Add one to ``access_count`` of each episode."""

    @abstractmethod
    def next_episode_ids(self, user_id: str, episode_ids: Sequence[str]) -> dict[str, str]:
        """For each episode with a ``NEXT`` successor, that successor's id."""

    # -- knowledge -----------------------------------------------------------------------

    @abstractmethod
    def add_knowledge_version(self, version: KnowledgeVersion) -> str:
        """Store a knowledge version and make it the user's latest; returns its id."""

    @abstractmethod
    def knowledge_versions(self, user_id: str, limit: int = 1) -> list[KnowledgeVersion]:
        """The user's most recent knowledge versions, newest first."""

    def knowledge_version_ids(self, user_id: str, version_ids: Sequence[str]) -> set[str]:
        """Which of these knowledge version ids the user has, however old (what of a
        session was extracted before is not extracted again)."""
        return set(self.knowledge_version_times(user_id, version_ids))

    @abstractmethod
    def knowledge_version_times(
        self, user_id: str, version_ids: Sequence[str]
    ) -> dict[str, datetime]:
        """When each of these knowledge versions that the user has was made, by id (a
        session extracted whole before its spans were tracked: which turns came after)."""

    @abstractmethod
    def session_read_through(self, user_id: str, session_id: str) -> dict[str, datetime]:
        """For each of the user's knowledge versions of the session, by id, when the last
        turn it read was said (:attr:`KnowledgeVersion.through`; when it was made, for a
        version that does not record it): which turns are new once that turn is gone."""

    @abstractmethod
    def delete_knowledge(self, user_id: str, point_ids: Sequence[str]) -> int:
        """Delete knowledge points (with their vectors and lexical entries) from whatever
        version holds them; returns how many existed."""

    # -- provenance ----------------------------------------------------------------------

    @abstractmethod
    def told_by(self, user_id: str, episode_ids: Sequence[str]) -> ToldItems:
        """The user's memories and knowledge points whose metadata names one of the
        episodes (:func:`~memory_platform.models.episodes_named`): what forgetting those turns
        takes along. Answered inside the store (SQLite keeps an index of the items by the
        episodes they name), never by reading every item of the user into the process."""

    # -- audit ---------------------------------------------------------------------------

    @abstractmethod
    def add_audit(self, entry: AuditEntry) -> None:
        """Append an audit record (forgetting and purging; never content)."""

    @abstractmethod
    def audit_log(self, user_id: str, limit: int = 100) -> list[AuditEntry]:
        """The user's audit records, newest first."""

    # -- media vectors -----------------------------------------------------------------

    @abstractmethod
    def set_media_vectors(
        self, user_id: str, modality: str, model: str, vectors: Mapping[str, npt.ArrayLike]
    ) -> int:
        """Store a media encoder's vector for existing episodes (any dimension: it is the
        encoder's, not the text embedder's); returns how many were stored."""

    @abstractmethod
    def media_vector_search(
        self, user_id: str, modality: str, model: str, vector: npt.ArrayLike, k: int = 10
    ) -> list[VectorHit]:
        """The ``k`` episodes whose media vector (of this modality and model) is nearest
        to ``vector`` (cosine, exact over the user's media), best first."""

    # -- inspection ----------------------------------------------------------------------

    @abstractmethod
    def stats(self, user_id: str | None = None) -> StoreStats:
        """Counts for one user, or for the whole store."""

    # -- shared checks -----------------------------------------------------------------

    def _vector(self, value: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """A vector as normalised float32 of the store's dimension."""
        arr = np.asarray(value, dtype=np.float32).reshape(-1)
        if arr.shape[0] != self._signature.dimension:
            raise InvalidInputError(
                f"vector has {arr.shape[0]} dimensions, the store uses {self._signature.dimension}",
                "vector",
            )
        if not np.all(np.isfinite(arr)):
            raise InvalidInputError("vector contains NaN or infinity", "vector")
        norm = float(np.linalg.norm(arr))
        return arr / norm if norm > 0 else arr

    @staticmethod
    def _check_user(user_id: str) -> str:
        if not isinstance(user_id, str) or not user_id.strip():
            raise InvalidInputError("must be a non-empty string", "user_id")
        if not valid_unicode(user_id):  # no query could hold it
            raise InvalidInputError(
                "must be valid Unicode text (it holds a lone surrogate)", "user_id"
            )
        return user_id.strip()

    @staticmethod
    def _check_speakers(speakers: Mapping[str, str]) -> dict[str, str]:
        """``{episode_id: speaker}`` with each speaker a name (not blank, not too long)."""
        for ref, speaker in speakers.items():
            if not isinstance(speaker, str) or not speaker.strip():
                raise InvalidInputError("must be a non-empty string", f"speakers[{ref!r}]")
            if len(speaker) > MAX_CONTENT_CHARS:
                raise InvalidInputError(
                    f"at most {MAX_CONTENT_CHARS} characters", f"speakers[{ref!r}]"
                )
        return dict(speakers)

    @staticmethod
    def _check_query(query: str) -> str:
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("must be a non-empty string", "query")
        if len(query) > MAX_TEXT_CHARS:
            raise InvalidInputError(f"longer than {MAX_TEXT_CHARS} characters", "query")
        return query

    @staticmethod
    def _check_depth(depth: int) -> int:
        if not isinstance(depth, int) or depth < 0 or depth > 3:
            raise InvalidInputError("must be an integer from 0 to 3", "expand_depth")
        return depth


def relation_filter(
    relation_types: Iterable[LinkType | str] | None,
) -> tuple[list[str], bool]:
    """Link type names to follow and whether shared-node hops are allowed.

    Raises:
        InvalidInputError: a name is neither a link type nor ``SHARED_NODE``.
    """
    if relation_types is None:
        return [t.value for t in LinkType], True
    if isinstance(relation_types, str | bytes) or not isinstance(relation_types, Iterable):
        raise InvalidInputError("must be a list of relation type names", "relation_types")
    names: list[str] = []
    shared = False
    for item in relation_types:
        if isinstance(item, str) and item.strip().upper() == SHARED_NODE:
            shared = True
            continue
        try:
            names.append(LinkType(item).value)
        except ValueError as exc:
            raise InvalidInputError(
                f"unknown relation type {item!r}; use one of "
                f"{[t.value for t in LinkType] + [SHARED_NODE]}",
                "relation_types",
            ) from exc
    return sorted(set(names)), shared


Hop = tuple[str, str, str, str, str | None, float]
"""A candidate hop: (from, to, relation, direction, via, weight)."""


def pick_shortest_paths(
    seeds: Sequence[str], rows: Iterable[Hop], depth: int
) -> list[ExpansionHit]:
    """Breadth-first over candidate hops ``(from, to, relation, direction, via, weight)``.

    Backends return every hop they found from the frontier; this picks, for each reached
    memory, its shortest distance and one path chosen deterministically (explicit links
    before shared nodes, then by id), so every backend ranks identically.
    """
    by_from: dict[str, list[tuple[str, str, str, str | None, float]]] = {}
    for src, dst, rel, direction, via, weight in rows:
        by_from.setdefault(src, []).append((dst, rel, direction, via, float(weight)))
    for hops in by_from.values():
        hops.sort(key=lambda h: (h[1] == SHARED_NODE, h[0], h[1], h[2], h[3] or "", -h[4]))

    paths: dict[str, list[PathStep]] = {s: [] for s in seeds}
    frontier = sorted(set(seeds))
    hits: list[ExpansionHit] = []
    for distance in range(1, depth + 1):
        nxt: list[str] = []
        for src in frontier:
            for dst, rel, direction, via, weight in by_from.get(src, []):
                if dst in paths:
                    continue
                step = PathStep(
                    from_id=src,
                    to_id=dst,
                    relation=rel,
                    direction=direction,
                    via=via,
                    weight=weight,
                )
                paths[dst] = [*paths[src], step]
                hits.append(ExpansionHit(memory_id=dst, distance=distance, path=paths[dst]))
                nxt.append(dst)
        frontier = sorted(nxt)
    return hits


def check_supersession(
    user_id: str, newer_id: str, older_id: str, links: Sequence[MemoryLink]
) -> None:
    """What :meth:`GraphStore.supersede_memory` accepts: two memories and links between them.

    Raises:
        InvalidInputError: the two are one memory, or a link is not theirs.
    """
    if newer_id == older_id:
        raise InvalidInputError("a memory cannot supersede itself", "newer_id")
    ends = {newer_id, older_id}
    for link in links:
        if link.user_id != user_id or {link.source_id, link.target_id} != ends:
            raise InvalidInputError("each link must join the two memories of this user", "links")


def single_user(subgraphs: Sequence[MemorySubgraph]) -> str | None:
    """The one user a batch of memories belongs to (None for an empty batch)."""
    users = {g.memory.user_id for g in subgraphs}
    if len(users) > 1:
        raise InvalidInputError("a batch of memories must belong to one user", "subgraphs")
    return next(iter(users), None)


def memory_document(memory: Memory) -> str:
    """What a lexical index holds for a memory: title, text and attribute values."""
    return " ".join([memory.title, memory.text, *memory.attributes.values()])


def episode_document(episode: Episode, previous_text: str | None = None) -> str:
    """What a lexical index holds for an episode: speaker, text and keywords, after the
    previous turn of its session, whose words often carry the question a reply answers.
    (One kept out of search, :attr:`Episode.searchable`, has no lexical document.)"""
    return " ".join([previous_text or "", episode.speaker or "", episode.text, *episode.keywords])


def metadata_json(metadata: Mapping[str, Any], field: str = "metadata") -> str:
    """Metadata as both stores keep it: JSON text, a value JSON has no form for written as
    its ``str`` (bytes, a date). NaN and the infinities are refused rather than written as
    JSON no parser reads back (SQLite's JSON functions call them malformed, where Neo4j
    kept them): the same input is one clear error on every backend.

    Raises:
        InvalidInputError: a number JSON cannot hold, a cycle, nesting too deep to write,
            or a lone surrogate in a string.
    """
    try:
        text = json.dumps(dict(metadata), ensure_ascii=False, default=str, allow_nan=False)
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise InvalidInputError(
            f"must be JSON (no NaN or infinite numbers, no cycles): {reason}", field
        ) from None
    if not valid_unicode(text):
        raise InvalidInputError("must be valid Unicode text (it holds a lone surrogate)", field)
    return text


def spoken_line(episode: Episode) -> str:
    """A turn as it was said: ``Caroline: I went to ...`` (questions name people)."""
    return f"{episode.speaker}: {episode.text}" if episode.speaker else episode.text


def episode_embedding_text(
    episode: Episode, previous: Episode | None = None, following: Episode | None = None
) -> str:
    """What an episode's vector is made from: its turn between the turn before it and the
    turn after it in the session, each as said (``spoken_line``).

    Contextual indexing: a reply such as "Yes, it was amazing!" means something only
    after "Did you go to the concert?" (measured on LoCoMo dev: recall@10 0.697 to 0.730,
    MADial-Bench zh unchanged, as its memories have no session), and a statement is
    often taken up by the answer to it ("A trophy? Congrats!"): with the turn after it
    too, 0.779 to 0.783 with the relevance model fitted again (off-topic results per
    question 0.41 to 0.39; leaving one conversation out, 0.771 to 0.779). Both backends
    build the same text from the stored NEXT chain when they hand an episode to the
    embedder (``cypher/neo4j/vector/pending.cypher``; ``SqliteStore.pending_embeddings``),
    so a turn is queued again when a turn is appended after it or a neighbour is deleted.
    """
    return "\n".join(spoken_line(e) for e in (previous, episode, following) if e is not None)
