"""The vectors of the questions and memory descriptions a process embedded lately.

Asking again costs no second pass of the model: a search repeated, or a memory described
in one tool call and again in the next (``link_memories`` from A to B, then from B to C;
a correction, then a link), as agents do. One pass of the default engine is most of a
short call's time: resolving a description for a user of 10,000 memories takes 38 ms at
the median, 5 ms with its vector kept (``benchmarks/results/resolve_cost.md``).

Entries are kept per user, though a vector depends on its text alone: a question another
tenant asked moments ago must not come back faster (a timing side channel between
tenants), and a user's texts are dropped when one of the user's memories is forgotten or
purged or the user is deleted (:meth:`RecentVectors.forget_user`). The roles are kept
apart: a question is embedded as a query, a description as a text like the memories it
is compared with (e5's ``query:`` and ``passage:``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Literal

import numpy as np
import numpy.typing as npt

from .embeddings import Embedder, embed_queries

__all__ = ["RECENT_VECTORS", "RecentVectors"]

RECENT_VECTORS = 256
"""How many texts are kept, over all users (896 floats each with the default embedder:
under a megabyte in all)."""

_Role = Literal["query", "description"]


class RecentVectors:
    """A bounded, thread-safe cache of recently embedded short texts, per user and role."""

    def __init__(self, embedder: Embedder, size: int = RECENT_VECTORS) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._embedder = embedder
        self._size = size
        self._vectors: OrderedDict[tuple[str, _Role, str], npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        """The model the vectors come from."""
        return self._embedder

    def query(self, user_id: str, text: str) -> npt.NDArray[np.float32]:
        """A search question's vector, in the embedder's query role."""
        return self._vector(user_id, "query", text)

    def description(self, user_id: str, text: str) -> npt.NDArray[np.float32]:
        """A memory description's vector, embedded as the memories it is compared with."""
        return self._vector(user_id, "description", text)

    def asked(self, user_id: str, text: str) -> bool:
        """Whether the user's question ``text`` was embedded lately (and is kept)."""
        with self._lock:
            return (user_id, "query", text) in self._vectors

    def forget_user(self, user_id: str) -> None:
        """Drop every text of the user's (its memories were forgotten, or the user was)."""
        with self._lock:
            for key in [key for key in self._vectors if key[0] == user_id]:
                del self._vectors[key]

    def clear(self) -> None:
        """Drop everything (a benchmark that measures the embedding too)."""
        with self._lock:
            self._vectors.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._vectors)

    def _vector(self, user_id: str, role: _Role, text: str) -> npt.NDArray[np.float32]:
        key = (user_id, role, text)
        with self._lock:
            cached = self._vectors.get(key)
            if cached is not None:
                self._vectors.move_to_end(key)
                return cached
        # embedded outside the lock: two threads asking at once both embed, neither waits
        if role == "description":
            embedded = self._embedder.embed([text])
        else:
            embedded = embed_queries(self._embedder, [text])
        vector = np.asarray(embedded[0], dtype=np.float32)
        vector.flags.writeable = False  # shared by every caller that asks again
        with self._lock:
            self._vectors[key] = vector
            self._vectors.move_to_end(key)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return vector
