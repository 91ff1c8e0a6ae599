"""The platform's error tree: every failure a caller can act on has its own class.

::

    MemoryPlatformError
    ├── InvalidInputError (also ValueError)   bad arguments: empty text, unknown enum, wrong vector size
    ├── NotFoundError (also KeyError)         an id that does not exist for this user
    ├── ConfigurationError                    settings that cannot work (bad TOML, mismatched embedder)
    │   └── EmbeddingMismatchError            the store was built with another embedding model/dimension
    ├── StorageError                          the backend refused or failed
    │   ├── ConflictError                     a write collides with existing data (duplicate id)
    │   ├── BackendUnavailable                the server cannot be reached
    │   └── TransientStorageError             worth retrying (deadlock, busy database, leader switch)
    ├── QueueUnavailable                      Redis (job queue, short-term buffer) does not answer
    └── ExtractionError                       an LLM step produced nothing usable

Every class passes its arguments to ``Exception.__init__`` so errors pickle across
Celery workers unchanged.
"""

from __future__ import annotations

__all__ = [
    "BackendUnavailable",
    "ConfigurationError",
    "ConflictError",
    "EmbeddingMismatchError",
    "ExtractionError",
    "InvalidInputError",
    "JobStopped",
    "MemoryPlatformError",
    "NotFoundError",
    "QueueUnavailable",
    "StorageError",
    "TransientStorageError",
    "UserBusy",
]


class MemoryPlatformError(Exception):
    """Root of every error the platform raises on purpose."""

    def is_retryable(self) -> bool:
        """Whether trying the same call again later may succeed."""
        return False


class InvalidInputError(MemoryPlatformError, ValueError):
    """The caller's input is malformed; the message says what to fix."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message, field)
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class NotFoundError(MemoryPlatformError, KeyError):
    """The requested object does not exist for this user."""

    def __init__(self, kind: str, identifier: str) -> None:
        super().__init__(kind, identifier)
        self.kind = kind
        self.identifier = identifier

    def __str__(self) -> str:
        return f"{self.kind} {self.identifier!r} not found"


class ConfigurationError(MemoryPlatformError):
    """The settings cannot work; raised at start-up, naming the setting."""


class EmbeddingMismatchError(ConfigurationError):
    """The store's vectors were made by another model or dimension than the embedder's."""

    def __init__(self, stored: str, configured: str) -> None:
        super().__init__(stored, configured)
        self.stored = stored
        self.configured = configured

    def __str__(self) -> str:
        return (
            f"the store holds embeddings from {self.stored}, but the configured embedder is "
            f"{self.configured}: run `memory-platform reembed` to switch the store to it "
            "(resumable; nothing is lost), or configure the store's model again "
            "(MEMORY_EMBEDDING_PROVIDER / MEMORY_EMBEDDING_MODEL / MEMORY_EMBEDDING_DIM)"
        )


class StorageError(MemoryPlatformError):
    """The storage backend refused or failed an operation."""


class ConflictError(StorageError):
    """A write collides with existing data, such as a duplicate id."""


class BackendUnavailable(StorageError):
    """The storage server cannot be reached."""

    def is_retryable(self) -> bool:
        return True


class TransientStorageError(StorageError):
    """A passing failure (lock timeout, deadlock, cluster leader switch): retry it."""

    def is_retryable(self) -> bool:
        return True


class UserBusy(TransientStorageError):
    """Other work on the same user held the user's lock for longer than the wait (a job
    of theirs while a deletion waited, or the other way round): try again once it is
    done."""


class JobStopped(MemoryPlatformError):
    """A job of a user being deleted stopped at its next step (an LLM call) instead of
    going on with work the deletion removes. The job runners queue a stopped job again,
    to run once the deletion is over: it runs nothing if the user was deleted, and its
    work if the deletion failed. Work called directly (an import, ``mp.consolidate``)
    raises it to the caller."""


class QueueUnavailable(MemoryPlatformError):
    """Redis, which holds the job queue and the short-term buffer, does not answer: the
    job was not queued (queue it again once Redis is back: ending a session again gives
    the same job), or the buffer could not be read."""

    def is_retryable(self) -> bool:
        return True


class ExtractionError(MemoryPlatformError):
    """An LLM step returned nothing usable after its retries."""
