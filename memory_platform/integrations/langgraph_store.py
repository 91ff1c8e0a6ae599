"""LangGraph's long-term ``Store`` over the platform: ``store=MemoryPlatformStore(mp)``.

Namespaces map to users: the first element is the user id, the rest an optional
sub-space (``("alice", "memories")``); with ``user_position=1`` the second is
(``("memories", "alice")``, LangMem's ``("memories", "{user_id}")``), so each person's
items are that user's memory, not one user's for everybody. Each item is one episode of
that user, with a deterministic id per (namespace, key), so ``put`` replaces, ``get`` and
``delete`` go straight to it, and the item takes part in the user's search like any
memory. The id opens with its namespace's group (its first part besides the user), so a
namespace is listed and searched without reading the user's other namespaces. The
value is kept whole in the episode's metadata; the searchable text is the value's
``index`` fields (the ``index`` argument of ``put``), else the whole value as what it
says: its sentences, then its other fields by name ("favorite food: sushi"). An item put
with ``index=False`` is kept, read and listed, but never embedded, and no search matches
it: neither the store's nor the platform's (``search_memories``, ``format_context``).

``search(namespace_prefix, query=...)`` runs the platform's hybrid retrieval (with its
relevance floor) among the items the namespace and filter keep, however many other turns
and memories the user has (``episode_ids`` of :meth:`MemoryPlatform.search`; past 100,000
such items, among the user's 100 best matches), and returns at most 100 ``SearchItem``s
in the platform's ranking order, each scored by its relevance in [0, 1] (which need not
fall down the list); without a query it lists them, newest first, reading a page of the
newest rather than the namespace. Filters compare top-level value
fields (equality, or ``$eq $ne $gt $gte $lt $lte``; numbers, and strings that read as
numbers, in order of value, as LangGraph's InMemoryStore orders them). A query's "yesterday" is its
user's where the store is given ``timezone_of`` (user id to time zone), else on the
clock of the user's latest chat turn that named one, else the deployment's.

A put's ``ttl`` (minutes; or the ``TTLConfig``'s ``default_ttl``) becomes the episode's
expiry (``Episode.expires_at``): from then on no read, search or listing returns the
item, nor does the platform's own search, and it is deleted by :meth:`sweep_ttl`, by
the sweeper thread or by the daily maintenance. Reading restarts it (``refresh_ttl``),
moving only the expiry, so nothing is embedded again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    get_text_at_path,
)

from ..config import known_timezone
from ..errors import InvalidInputError
from ..models import SEARCHABLE_KEY, Episode, valid_unicode
from ..platform import MemoryPlatform
from ..retrieval.retriever import MAX_WITHIN
from ..store.base import metadata_json
from .value_text import value_text

__all__ = ["MemoryPlatformStore"]

log = logging.getLogger(__name__)

_MARK = "langgraph"
_ID_PREFIX = "lh"
"""Every item's episode id starts with it, then with its group (:func:`_group`), so a
listing finds the items by the id's index among however many turns of chat the user has,
and a namespace's listing reads its group's items alone."""
_LEGACY_PREFIX = "lg"
"""Items put before 2026-11-27 (later) have ids of this prefix and no group; they are read,
listed and searched as before, and a put moves its item to its grouped id."""
_PAGE = 10_000
_LABELS = frozenset({"memories", "memory", "profile", "profiles", "user_profile", "users"})
"""First elements of a namespace that name a kind of item, not a user (LangMem's
``("memories", "{user_id}")``): put so with the user read first, they draw a warning."""
_MAX_TTL_MINUTES = 100 * 365 * 24 * 60
"""A century: longer than any item is kept, short enough for a date to hold it."""


def _number(value: object) -> float | None:
    """A value as LangGraph's InMemoryStore orders it: a number, or a string that reads as
    a finite one ("3", "2.5"; not "NaN", a name too); None for anything else."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _ordered(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """An order comparison as LangGraph's InMemoryStore makes it: numbers and strings
    that read as numbers by their value (5 > "3"), where that store converts both to
    float. Other strings compare as strings (dates written "2025-01-31"), where that store
    raises; anything else (a missing field, a dict) holds for no comparison."""

    def holds(have: Any, operand: Any) -> bool:
        a, b = _number(have), _number(operand)
        if a is not None and b is not None:
            return compare(a, b)
        return isinstance(have, str) and isinstance(operand, str) and compare(have, operand)

    return holds


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": _ordered(lambda a, b: a > b),
    "$gte": _ordered(lambda a, b: a >= b),
    "$lt": _ordered(lambda a, b: a < b),
    "$lte": _ordered(lambda a, b: a <= b),
}


def _digest(value: object, size: int) -> str:
    return hashlib.blake2b(json.dumps(value).encode(), digest_size=size).hexdigest()


def _group(rest: tuple[str, ...]) -> str:
    """The id prefix of a namespace's items and of every namespace under it that shares its
    first part besides the user (``rest``: the namespace without its user id;
    ``("alice", "profile")`` and ``("alice", "profile", "x")`` share one; ``("alice",)``
    alone is a group of its own): an agent's small profile is not listed through its
    thousands of notes. Groups whose digests collide only share a listing."""
    return _ID_PREFIX + _digest(list(rest[:1]), 4)


def _listing_prefix(rest: tuple[str, ...]) -> str:
    """The id prefix of every item that may be under a namespace prefix (``rest``: the
    prefix without its user id): its group's, or every item's for the user alone."""
    return _group(rest) if rest else _ID_PREFIX


def _legacy_id(namespace: tuple[str, ...], key: str) -> str:
    return _LEGACY_PREFIX + _digest([namespace, key], 16)


def _text(value: Mapping[str, Any], index: list[str] | None) -> str:
    """What an item is searched by: the ``index`` fields of its value, else the whole
    value as what it says (:func:`~.value_text.value_text`)."""
    if index:
        parts = [str(t) for path in index for t in get_text_at_path(value, path) if t]
        text = " ".join(p for p in parts if p.strip())
    else:
        text = value_text(value)
    return text or json.dumps(value, ensure_ascii=False, default=str)


def _check_value(value: object) -> None:
    """A value is a dict kept as JSON (what JSON has no type for, a date, as its text):
    one that is not a dict, or cannot be JSON (NaN, nested too deeply, holding itself),
    is refused with what to fix."""
    if not isinstance(value, Mapping):
        raise InvalidInputError(
            f"a store value is a dict (a JSON object), not {type(value).__name__}", "value"
        )
    metadata_json(value, "value")


def _minutes(ttl: object) -> float | None:
    """A put's TTL in minutes, checked: None (the item never expires) or a positive number."""
    if ttl is None:
        return None
    if (
        isinstance(ttl, bool)
        or not isinstance(ttl, int | float)
        or not math.isfinite(ttl)
        or not 0 < ttl <= _MAX_TTL_MINUTES
    ):
        raise InvalidInputError(
            f"a TTL is a positive number of minutes, at most {_MAX_TTL_MINUTES:,}; got {ttl!r}",
            "ttl",
        )
    return float(ttl)


def _matches(value: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a search filter, as LangGraph's own stores read one:
    each key's condition holds for the value's field (:func:`_holds`)."""
    return all(_holds(value.get(field), wanted) for field, wanted in (conditions or {}).items())


def _holds(have: Any, wanted: Any) -> bool:
    """One condition: operators (``{"$gt": 3}``) all hold (the order ones as
    :func:`_ordered` reads them); a dict of fields is matched on the fields given,
    whatever else the value holds; a list equals element by element; anything else is
    equal."""
    if isinstance(wanted, Mapping):
        if any(str(key).startswith("$") for key in wanted):
            return all(_OPS[op](have, operand) for op, operand in wanted.items())
        return isinstance(have, Mapping) and all(
            _holds(have.get(key), value) for key, value in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(have, list | tuple)
            and len(have) == len(wanted)
            and all(_holds(a, b) for a, b in zip(have, wanted, strict=True))
        )
    return bool(have == wanted)


def _check_filter(conditions: object, field: str = "filter") -> None:
    """Refuse a filter that is no dict, or names an operator no store knows, before any
    item is read (LangGraph's own store raises ``ValueError`` for it when it meets it)."""
    if not isinstance(conditions, Mapping):
        raise InvalidInputError("must be a dict of field conditions", field)
    for key, wanted in conditions.items():
        if str(key).startswith("$") and key not in _OPS:
            raise InvalidInputError(f"unsupported operator {key!r}; use {', '.join(_OPS)}", field)
        if isinstance(wanted, Mapping):
            _check_filter(wanted, f"{field}.{key}")


def _check_text(value: object, field: str) -> None:
    """A key or namespace label: a string either store can keep."""
    if not isinstance(value, str) or not valid_unicode(value):
        raise InvalidInputError("must be a string of valid Unicode (no lone surrogate)", field)


def _index_fields(index: object) -> list[str] | None:
    """A put's ``index``: None (the store's default fields), False (not searchable, kept
    as None here) or the list of field paths to index."""
    if index is None or index is False:
        return None
    if not isinstance(index, list | tuple) or not all(isinstance(f, str) for f in index):
        raise InvalidInputError("must be False, None or a list of field paths", "index")
    return list(index)


def _count(value: object, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _check_page(limit: object, offset: object) -> None:
    """A search's or a listing's page: whole numbers, not negative (a negative one gave a
    silently wrong page: Python's slice counts it from the end)."""
    if not _count(limit, 0):
        raise InvalidInputError("must be a whole number of 0 or more", "limit")
    if not _count(offset, 0):
        raise InvalidInputError("must be a whole number of 0 or more", "offset")


class MemoryPlatformStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items live in the platform's memory."""

    supports_ttl = True

    def __init__(
        self,
        platform: MemoryPlatform,
        *,
        ttl: TTLConfig | None = None,
        user_position: int = 0,
        timezone_of: Callable[[str], str | None] | None = None,
    ) -> None:
        """``user_position``: which element of a namespace is the user id (0:
        ``("alice", "notes")``; 1: ``("memories", "alice")``). Keep it for the life of a
        store: items put under another position belong to other users.

        ``timezone_of``: a user's IANA time zone (``"Asia/Shanghai"``, from your users'
        profiles), or None for the clock their chat turns last named, else the
        deployment's (``MEMORY_TIMEZONE``), asked at each search: a query's "yesterday"
        or 昨天 is then that user's."""
        if isinstance(user_position, bool) or not isinstance(user_position, int):
            raise TypeError("user_position must be an int")
        if user_position < 0:
            raise ValueError("user_position must be 0 or more")
        if timezone_of is not None and not callable(timezone_of):
            raise TypeError("timezone_of must be a function of the user id")
        self.platform = platform
        self.ttl_config = ttl
        self.user_position = user_position
        self.timezone_of = timezone_of
        self._warned = False
        self._sweeper: threading.Thread | None = None
        self._swept: concurrent.futures.Future[None] | None = None
        self._sweeping = threading.Event()

    # -- BaseStore -------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; each gets its result at the same position."""
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread (the platform's calls block)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations ------------------------------------------------------------------

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key, op.refresh_ttl)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _user(self, namespace: tuple[str, ...]) -> str:
        """The user id a namespace (or a search's prefix) names at :attr:`user_position`."""
        at = self.user_position
        if len(namespace) <= at or not all(isinstance(p, str) and p for p in namespace):
            example = ("memories",) * at + ("alice",)
            raise InvalidNamespaceError(
                f"this store reads the user id at position {at} of a namespace, so a"
                f" namespace names its user: e.g. {example!r} or {(*example, 'notes')!r}"
            )
        return namespace[at]

    def _rest(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        """The namespace without its user id: what groups its items."""
        return namespace[: self.user_position] + namespace[self.user_position + 1 :]

    def _episode_id(self, namespace: tuple[str, ...], key: str) -> str:
        return _group(self._rest(namespace)) + _digest([namespace, key], 16)

    def _stored(self, user: str, namespace: tuple[str, ...], key: str) -> list[Episode]:
        """The item's episode, under its id first, then under its legacy id."""
        refs = [self._episode_id(namespace, key), _legacy_id(namespace, key)]
        found = {e.id: e for e in self.platform.store.get_episodes(user, refs)}
        return [found[ref] for ref in refs if ref in found]

    def _zone(self, user: str) -> tzinfo:
        """The user's time zone (``timezone_of``), else UTC: an instant, which the
        platform reads on the clock the user's chat last named, else on the deployment's
        (``MemoryPlatform.user_clock``)."""
        name = self.timezone_of(user) if self.timezone_of is not None else None
        if name is None:
            return UTC
        if not isinstance(name, str) or known_timezone(name) is None:
            raise ValueError(
                f"timezone_of({user!r}) gave {name!r}: give an IANA time zone such as "
                "Asia/Shanghai, or None for the deployment's"
            )
        return ZoneInfo(name)

    def _get(self, namespace: tuple[str, ...], key: str, refresh: bool) -> Item | None:
        user = self._user(namespace)
        now = datetime.now(UTC)
        found = [e for e in self._stored(user, namespace, key) if not e.expired(now)]
        if not found:
            return None
        if refresh:
            self._refresh(user, [(found[0].id, found[0].metadata)], now)
        return self._item(found[0])

    def _put(self, op: PutOp) -> None:
        user = self._user(op.namespace)
        labelled = len(op.namespace) > 1 and user.lower() in _LABELS
        if labelled and not (self._warned or self.user_position):
            self._warned = True
            log.warning(
                "namespace %r stores its items as memories of a user %r: if its second"
                " element is the user (as LangMem's ('memories', '{user_id}')), create"
                " the store with MemoryPlatformStore(mp, user_position=1)",
                op.namespace, user,
            )  # fmt: skip
        _check_text(op.key, "key")
        for label in op.namespace:
            _check_text(label, "namespace")
        ref = self._episode_id(op.namespace, op.key)
        old = self._stored(user, op.namespace, op.key)
        if op.value is None:
            self.platform.delete_episodes(user, [ref, _legacy_id(op.namespace, op.key)])
            return
        _check_value(op.value)
        ttl = _minutes(op.ttl)
        now = datetime.now(UTC)
        live = [e for e in old if not e.expired(now)]  # an expired item is gone: put anew
        created = live[0].metadata.get(_MARK, {}).get("created_at") if live else None
        index = _index_fields(op.index)
        self.platform.replace_episode(
            Episode(
                id=ref,
                user_id=user,
                text=_text(op.value, index)[:20_000],
                timestamp=now,
                metadata={
                    _MARK: {
                        "namespace": list(op.namespace),
                        "key": op.key,
                        "value": dict(op.value),
                        "created_at": created or now.isoformat(),
                        "updated_at": now.isoformat(),
                        **({"ttl": ttl} if ttl else {}),
                    },
                    **({SEARCHABLE_KEY: False} if op.index is False else {}),
                },
                expires_at=now + timedelta(minutes=ttl) if ttl else None,
            ),
            replacing=[e.id for e in old if e.id != ref],  # moved from its legacy id
        )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        user = self._user(prefix)
        _check_page(op.limit, op.offset)
        if op.filter is not None:
            _check_filter(op.filter)
        wanted = op.offset + op.limit
        now = datetime.now(self._zone(user))  # a query's "yesterday" is the user's
        found: Sequence[tuple[str, Mapping[str, Any], float | None]] = []
        if not op.query:
            newest = self._newest(user, prefix, op.filter, now, wanted)
            found = [(e.id, e.metadata, None) for e in newest[op.offset :]]
        elif ranked := self._ranked_ids(user, prefix, op.filter):
            self.platform.wait_for_indexing(user)
            found = [
                (result.id, result.metadata, result.relevance)
                for result in self.platform.search(
                    user,
                    op.query,
                    kinds=("episode",),
                    max_results=100,
                    expand_depth=0,
                    episode_ids=ranked if len(ranked) <= MAX_WITHIN else None,
                    reference_time=now,
                )  # expired items are matched by no search
                if self._keeps(result.metadata, prefix, op.filter)
            ][op.offset : wanted]
        if op.refresh_ttl:
            self._refresh(user, [(ref, metadata) for ref, metadata, _ in found], now)
        return [self._searched(metadata, score) for _, metadata, score in found]

    def _newest(
        self,
        user: str,
        prefix: tuple[str, ...],
        conditions: Mapping[str, Any] | None,
        now: datetime,
        wanted: int,
    ) -> list[Episode]:
        """The first ``wanted`` live items under the prefix that the filter keeps, newest
        first. They are read from the newest of the prefix's group a page at a time, each
        page twice the last, so a page of a big namespace decodes about a page, not the
        namespace. With items of the legacy ids (no group) every item is read and sorted."""
        store = self.platform.store

        def kept(e: Episode) -> bool:
            return self._keeps(e.metadata, prefix, conditions) and not e.expired(now)

        if self._has_legacy_items(user):
            items = [e for e in self._all_items(user, prefix) if kept(e)]
            return sorted(items, key=lambda e: e.timestamp, reverse=True)[:wanted]
        id_prefix = _listing_prefix(self._rest(prefix))
        out: list[Episode] = []
        offset, size = 0, min(max(wanted, 10), _PAGE)
        while len(out) < wanted:
            page = store.list_episodes(
                user, limit=size, offset=offset, id_prefix=id_prefix, newest_first=True
            )
            out += [e for e in page if kept(e)]
            if len(page) < size:
                break
            offset += size
            size = min(2 * size, _PAGE)
        return out[:wanted]

    def _ranked_ids(
        self, user: str, prefix: tuple[str, ...], conditions: Mapping[str, Any] | None
    ) -> list[str]:
        """The ids of the items a query search ranks: those the namespace and the filter
        keep. A namespace that is the user or one group (``("alice", "notes")``) with no
        filter is read from the ids alone, nothing decoded (results are checked against
        the namespace all the same); else each item is listed and tested."""
        store = self.platform.store
        if not conditions and len(self._rest(prefix)) <= 1 and not self._has_legacy_items(user):
            return store.episode_ids_by_prefix(user, _listing_prefix(self._rest(prefix)))
        return [
            e.id
            for e in self._all_items(user, prefix)
            if self._keeps(e.metadata, prefix, conditions)
        ]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        _check_page(op.limit, op.offset)
        if op.max_depth is not None and not _count(op.max_depth, 1):
            raise InvalidInputError("must be a whole number of 1 or more, or None", "max_depth")
        found: set[tuple[str, ...]] = set()
        group = self._group_matched(op)
        for user in self._users_matched(op):
            try:
                items = self._all_items(user, group)
            except InvalidInputError:  # a prefix naming an id no user can have
                continue
            now = datetime.now(UTC)
            for episode in items:
                if episode.expired(now):
                    continue
                namespace = tuple(episode.metadata[_MARK]["namespace"])
                if op.max_depth is not None:
                    namespace = namespace[: op.max_depth]
                if all(self._condition(namespace, c) for c in op.match_conditions or ()):
                    found.add(namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

    # -- TTL -------------------------------------------------------------------------

    def sweep_ttl(self) -> int:
        """Delete every user's expired items now (reads stopped returning them when they
        expired; this frees their space). Returns how many were deleted."""
        return sum(
            self.platform.purge_expired(user)["purged"] for user in self.platform.store.iter_users()
        )

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep (:meth:`sweep_ttl`) every ``sweep_interval_minutes`` (default: the TTL
        config's ``sweep_interval_minutes``, else 60) on a background thread, until
        :meth:`stop_ttl_sweeper`; the future completes when the thread stops (started
        again while running, the running one's). A failed sweep is logged and tried again
        at the next interval."""
        if self._swept is not None and self._sweeper is not None and self._sweeper.is_alive():
            log.info("the TTL sweeper is already running")
            return self._swept
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        config = self.ttl_config or {}
        interval = 60 * float(sweep_interval_minutes or config.get("sweep_interval_minutes") or 60)
        self._sweeping.clear()

        def run() -> None:
            try:
                while not self._sweeping.wait(interval):
                    try:
                        swept = self.sweep_ttl()
                    except Exception:  # keep sweeping: the store may be back next time
                        log.exception("TTL sweep failed")
                    else:
                        log.debug("TTL sweep deleted %d expired items", swept)
            finally:
                done.set_result(None)

        self._sweeper = threading.Thread(target=run, name="ttl-sweeper", daemon=True)
        self._swept = done
        self._sweeper.start()
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper; True once its thread has ended (within ``timeout`` seconds)."""
        if self._sweeper is None:
            return True
        self._sweeping.set()
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = self._swept = None
        return stopped

    def _refresh(
        self, user: str, items: Iterable[tuple[str, Mapping[str, Any]]], now: datetime
    ) -> None:
        """Restart the TTL of the items read that have one (``refresh_ttl``)."""
        expiry = {
            ref: now + timedelta(minutes=float(metadata[_MARK]["ttl"]))
            for ref, metadata in items
            if metadata.get(_MARK, {}).get("ttl")
        }
        if expiry:
            self.platform.store.set_episode_expiry(user, expiry)

    # -- helpers ---------------------------------------------------------------------

    def _users_matched(self, op: ListNamespacesOp) -> Iterable[str]:
        """The users whose namespaces a listing may match: the one its prefix names
        (``prefix=("alice",)``, at :attr:`user_position`), else every user of the store,
        page by page."""
        at = self.user_position
        for condition in op.match_conditions or ():
            path = tuple(condition.path)
            if condition.match_type == "prefix" and len(path) > at and path[at] != "*":
                return path[at : at + 1]
        return self.platform.store.iter_users()

    def _group_matched(self, op: ListNamespacesOp) -> tuple[str, ...]:
        """A namespace prefix whose group holds every namespace the listing may match:
        the part after the user that a prefix condition names (``("alice", "profile")``
        lists the profile's items, not the user's thousands of notes), else ``()`` (every
        item of the user)."""
        at = self.user_position
        first = 1 if at == 0 else 0  # where the first part besides the user stands
        for condition in op.match_conditions or ():
            path = tuple(condition.path)
            if (
                condition.match_type == "prefix"
                and len(path) > max(at, first)
                and path[first] != "*"
            ):
                return path[: max(at, first) + 1]  # its part after the user opens with it
        return ()

    @staticmethod
    def _condition(namespace: tuple[str, ...], condition: Any) -> bool:
        path = tuple(condition.path)
        if len(path) > len(namespace):
            return False
        part = (
            namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
        )
        return all(p in ("*", n) for p, n in zip(path, part, strict=True))

    def _has_legacy_items(self, user: str) -> bool:
        """Whether the user has items of the legacy ids (no group), which a listing or a
        search by group would miss (one probe of the id index; none in a newer store)."""
        return bool(self.platform.store.episode_ids_by_prefix(user, _LEGACY_PREFIX))

    def _all_items(self, user: str, prefix: tuple[str, ...] = ()) -> list[Episode]:
        """The user's items that may be under ``prefix``: its group's (every item when the
        prefix is the user alone) and any of the legacy ids."""
        grouped = self._listed(user, _listing_prefix(self._rest(prefix)))
        return grouped + self._listed(user, _LEGACY_PREFIX)

    def _listed(self, user: str, id_prefix: str) -> list[Episode]:
        out: list[Episode] = []
        offset = 0
        while True:
            page = self.platform.store.list_episodes(
                user, limit=_PAGE, offset=offset, id_prefix=id_prefix
            )
            out += [e for e in page if _MARK in e.metadata]
            if len(page) < _PAGE:
                return out
            offset += _PAGE

    @staticmethod
    def _keeps(
        metadata: Mapping[str, Any], prefix: tuple[str, ...], conditions: Mapping[str, Any] | None
    ) -> bool:
        """Whether an episode is an item under the namespace prefix that the filter keeps."""
        data = metadata.get(_MARK)
        return (
            isinstance(data, Mapping)
            and tuple(data["namespace"])[: len(prefix)] == prefix
            and _matches(data["value"], conditions)
        )

    @staticmethod
    def _searched(metadata: Mapping[str, Any], score: float | None) -> SearchItem:
        data = metadata[_MARK]
        return SearchItem(
            namespace=tuple(data["namespace"]),
            key=data["key"],
            value=data["value"],
            created_at=datetime.fromisoformat(data["created_at"]),
            updated_at=datetime.fromisoformat(data["updated_at"]),
            score=score,
        )

    @staticmethod
    def _item(episode: Episode) -> Item:
        data = episode.metadata[_MARK]
        return Item(
            value=data["value"],
            key=data["key"],
            namespace=tuple(data["namespace"]),
            created_at=datetime.fromisoformat(data["created_at"]),
            updated_at=datetime.fromisoformat(data["updated_at"]),
        )
