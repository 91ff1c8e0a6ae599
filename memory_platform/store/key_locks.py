"""A lock per key, for as long as anyone holds or waits for it.

The in-process caches load a user's matrices and lexical index under a lock of that
(user, kind) alone, so that a big user's load (seconds at 100,000 memories) holds no other
user's search. A fixed set of 64 locks by hash did that for all but the keys that shared
a lock: a search takes four (user, kind) keys, so about one search in sixteen met the lock
of a big user's load under way and waited for the rest of it. A lock made per key and
kept only while in use ends that without a lock for every user a process has ever seen.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable

__all__ = ["KeyLocks"]


class KeyLocks:
    """``locks(key)`` is the one lock of ``key`` among all callers that hold a reference to
    it (a ``with locks(key):`` block does); once none does, it is forgotten, and the next
    caller gets a new one, which nobody else can be holding."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: weakref.WeakValueDictionary[Hashable, threading.Lock] = (
            weakref.WeakValueDictionary()
        )

    def __call__(self, key: Hashable) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = threading.Lock()
                self._locks[key] = lock
            return lock

    def __len__(self) -> int:
        """Keys whose lock is in use now."""
        with self._guard:
            return len(self._locks)
