"""Background embedding: items are stored first and embedded right after, off the caller's path;
and the two rebuilds a store may need after an upgrade (`reembed`, `retokenize`).

The store itself is the queue: whatever has no vector is pending, so a crash between a
write and its embedding loses nothing; the next pass (at start-up or on the next write)
embeds it. A pass that fails on an error that may pass (an embedding endpoint that does
not answer) is tried again after a back-off, as jobs are, since no write may come to
start another. A batch that fails for good is halved down to the texts that fail alone
(an endpoint refused one), which stay pending while the rest is embedded. One worker
thread embeds in batches, grouped by user.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from .config import Settings
from .embeddings import Embedder
from .errors import MemoryPlatformError
from .jobs import RETRY_BACKOFF, RETRY_BACKOFF_MAX
from .store import GraphStore, PendingEmbedding

__all__ = ["EmbeddingIndexer", "ReembedReport", "RetokenizeReport", "reembed", "retokenize"]

log = logging.getLogger(__name__)


class EmbeddingIndexer:
    """Embeds a store's pending items on one background thread."""

    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        batch_size: int = 64,
        retry_backoff: float = RETRY_BACKOFF,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._batch_size = batch_size
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-embed")
        self._lock = threading.Lock()
        self._queued: dict[str | None, Future[int]] = {}
        self._closed = False
        self._retry_backoff = retry_backoff
        self._failures = 0  # failed passes in a row, for the back-off
        self._retry: threading.Timer | None = None
        self.last_error: BaseException | None = None

    def notify(self, user_id: str | None = None) -> Future[int]:
        """Schedule a pass over the user's (or everyone's) pending items.

        A pass already queued for the same user and not yet started covers the new
        items too, so bursts of writes share one pass.
        """
        with self._lock:
            queued = self._queued.get(user_id)
            if queued is not None and not queued.running() and not queued.done():
                return queued
            if self._closed:
                done: Future[int] = Future()
                done.set_result(0)
                return done
            future = self._pool.submit(self._drain, user_id)
            self._queued[user_id] = future
            return future

    def flush(self, user_id: str | None = None, timeout: float | None = 30.0) -> bool:
        """Embed everything pending for the user now and wait for it.

        Returns True when nothing is left pending within the timeout.
        """
        future = self.notify(user_id)
        try:
            future.result(timeout=timeout)
        except TimeoutError:
            return False
        except Exception:  # the pass failed; its error is logged and kept in last_error
            return False
        return not self._store.pending_embeddings(user_id, limit=1)

    def run_pass(self, user_id: str | None = None) -> int:
        """Embed pending items in the calling thread; returns how many were stored."""
        return self._drain(user_id)

    def _drain(self, user_id: str | None) -> int:
        stored = 0
        try:
            while True:
                pending = self._store.pending_embeddings(user_id, limit=self._batch_size)
                if not pending:
                    break
                stored_now = self._embed_what_can_be(pending)
                stored += stored_now
                if stored_now == 0:
                    # Items vanished (deleted), cannot be stored, or were queued again
                    # (the write that queued them scheduled a pass); stop rather than spin.
                    break
        except Exception as exc:
            self.last_error = exc
            log.exception("embedding pass failed; the items stay pending for the next pass")
            if _retryable(exc):
                self._retry_later(user_id)
            raise
        with self._lock:
            self._failures = 0
        return stored

    def _retry_later(self, user_id: str | None) -> None:
        """Start the pass again after a back-off (doubled after each failure in a row, at
        most :data:`~memory_platform.jobs.RETRY_BACKOFF_MAX`), unless one is set already."""
        with self._lock:
            if self._closed or (self._retry is not None and self._retry.is_alive()):
                return
            delay = min(self._retry_backoff * 2**self._failures, RETRY_BACKOFF_MAX)
            self._failures += 1
            self._retry = threading.Timer(delay, self.notify, args=(user_id,))
            self._retry.daemon = True
            self._retry.start()
        log.warning("embedding pass to be tried again in %.0f s", delay)

    def _embed_what_can_be(self, pending: list[PendingEmbedding]) -> int:
        """:meth:`embed_batch`, and where a batch fails for good (an endpoint refused one
        of its texts), its texts that can be embedded without the ones that cannot
        (:meth:`_isolate`): one text must not keep the rest from being embedded."""
        try:
            return self.embed_batch(pending)
        except Exception as exc:
            if len(pending) == 1 or _retryable(exc):
                raise
            return self._isolate(pending)

    def _isolate(self, pending: list[PendingEmbedding]) -> int:
        """Embed each half of a batch that failed; a half that fails too is halved again,
        down to the texts that fail alone, which stay pending (the error is logged and kept
        in :attr:`last_error`). When both halves fail, the failure is the whole batch's (an
        endpoint that refuses every text) and is raised: three calls, not one a text."""
        middle = len(pending) // 2
        stored = 0
        failing: list[tuple[list[PendingEmbedding], Exception]] = []
        for part in (pending[:middle], pending[middle:]):
            try:
                stored += self.embed_batch(part)
            except Exception as exc:
                if _retryable(exc):
                    raise
                failing.append((part, exc))
        if len(failing) == 2:
            raise failing[1][1]
        for part, refused in failing:
            error: Exception = refused
            if len(part) > 1:
                try:
                    stored += self._isolate(part)
                    continue
                except Exception as again:
                    if _retryable(again):
                        raise
                    error = again
            self.last_error = error
            log.warning("texts that could not be embedded stay pending: %s", error)
        return stored

    def embed_batch(self, pending: list[PendingEmbedding]) -> int:
        """Embed and store one batch in the calling thread; returns how many were stored."""
        vectors = self._embedder.embed([p.text for p in pending])
        groups: dict[tuple[str, str], dict[str, object]] = defaultdict(dict)
        versions: dict[tuple[str, str], dict[str, str | None]] = defaultdict(dict)
        for item, vector in zip(pending, vectors, strict=True):
            groups[(item.user_id, item.kind.value)][item.ref_id] = vector
            versions[(item.user_id, item.kind.value)][item.ref_id] = item.version
        stored = 0
        for (user, kind), items in groups.items():
            # an item queued again while this batch was embedded stays queued
            stored += self._store.set_embeddings(
                user,
                kind,  # type: ignore[arg-type]
                items,  # type: ignore[arg-type]
                versions=versions[(user, kind)],
            )
        return stored

    def close(self, wait: bool = True) -> None:
        """Stop taking work; by default finish what is queued first."""
        with self._lock:
            self._closed = True
            if self._retry is not None:
                self._retry.cancel()
        self._pool.shutdown(wait=wait, cancel_futures=not wait)


def _retryable(error: BaseException) -> bool:
    """Whether the same call may succeed later (an endpoint that did not answer)."""
    return isinstance(error, MemoryPlatformError) and error.is_retryable()


@dataclass(frozen=True)
class ReembedReport:
    """What ``reembed`` did."""

    previous_model: str | None
    model: str
    queued: int
    embedded: int
    resumed: bool


def reembed(
    settings: Settings,
    progress: Callable[[int, int], None] = lambda _done, _total: None,
    embedder: Embedder | None = None,
    everything: bool = False,
) -> ReembedReport:
    """Switch a store to the configured embedder: every item is embedded again.

    With ``everything``, a store already on the configured model is embedded again too:
    what a change in how items are embedded needs (the text an item's vector is made
    from, or how its parts are combined), where no new schema version queues them.

    The switch itself is one transaction (vectors dropped, items queued, the new model
    recorded); the embedding then goes batch by batch, past a text the embedder refuses
    (it stays pending, and its error is raised once nothing else is left). Interrupted, it
    loses nothing: texts are never touched, the store already accepts the new model, and a
    second run (or any platform opened on the store) embeds what is still queued.
    ``progress(done, total)`` is called after each batch.
    """
    from .embeddings import make_embedder
    from .store import EmbeddingSignature, open_store

    model = embedder or make_embedder(settings)
    store = open_store(settings, check_signature=False)
    try:
        target = EmbeddingSignature(
            model=settings.embedding_model, dimension=settings.embedding_dim
        )
        previous = store.stored_signature()
        resumed = previous == target and not everything
        queued = store.pending_count() if resumed else store.reset_embeddings()
        indexer = EmbeddingIndexer(store, model, batch_size=settings.embedding_batch_size)
        done = 0
        progress(0, queued)
        try:
            while True:
                pending = store.pending_embeddings(None, limit=settings.embedding_batch_size)
                if not pending:
                    break
                done += indexer._embed_what_can_be(pending)  # raises when only refused ones remain
                progress(min(done, queued), queued)
        finally:
            indexer.close()
        return ReembedReport(
            previous.model if previous else None, target.model, queued, done, resumed
        )
    finally:
        store.close()


@dataclass(frozen=True)
class RetokenizeReport:
    """What ``retokenize`` did."""

    documents: int
    rewritten: int
    was_current: bool


def retokenize(
    settings: Settings,
    progress: Callable[[int, int], None] = lambda _done, _total: None,
    everything: bool = False,
) -> RetokenizeReport:
    """Rebuild a store's lexical index with the tokenizer queries now use, when it was
    built with another (``textutil.lexical_signature``), or with ``everything`` always.

    Needs no embedder: only texts are read and only the lexical documents written. Every
    document stays searchable throughout, so an interrupted run loses nothing and a second
    run finishes it (the new signature is recorded only at the end).
    ``progress(done, total)`` is called after each page.
    """
    from .store import open_store

    store = open_store(settings, check_signature=False)
    try:
        current = store.lexical_index_current()
        total = store.lexical_document_count()
        if current and not everything:
            return RetokenizeReport(total, 0, was_current=True)
        return RetokenizeReport(total, store.retokenize(progress), was_current=current)
    finally:
        store.close()
