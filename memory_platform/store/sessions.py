"""Where new turns go in their sessions: the NEXT chain both backends keep in time order.

A session's turns are chained by NEXT in the order they were said, and each turn is
embedded and indexed for words with the turns around it (``episode_embedding_text``,
``episode_document``). Turns usually come in order, each after the session's last; one
that comes late (a message a backend stores after the next one, an older stretch of the
conversation imported into it) is put where it was said: between the stored turn before
it and the turn that followed that one, which is then embedded and indexed again with
the new turn in front of it. A stored turn said at the same time as a new one stays
before it. Where a turn was deleted the chain stays broken, and a turn put into that gap
joins the side before it.

The backends read the stored turns around a new turn's time and write the links; what
the links are is decided here, once for both.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..models import Episode

__all__ = ["SessionLinks", "StoredTurn", "link_session_turns"]


@dataclass(frozen=True)
class StoredTurn:
    """A stored turn of a session next to a new turn's time."""

    id: str
    timestamp: datetime
    next_id: str | None = None
    """The turn after it in the chain (None: the session's last, or a deleted turn's place)."""
    text: str | None = None
    """Its words, unless it is kept out of search (they are then context of no turn)."""


@dataclass
class SessionLinks:
    """What storing new turns does to their sessions' chains."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    """(turn, the turn after it): the first's NEXT now leads to the second, and to no other."""
    requeue: list[str] = field(default_factory=list)
    """Stored turns with a new neighbour, to be embedded again (their old vector serves
    until then)."""
    before: dict[str, str] = field(default_factory=dict)
    """For a new turn, the words of the turn before it, indexed as its context."""
    retoken: dict[str, str | None] = field(default_factory=dict)
    """For a stored turn that a new one now precedes, the new one's words (None: it is
    kept out of search), to index it again with."""


Around = Callable[[str, Episode], tuple[StoredTurn | None, StoredTurn | None]]
"""``around(session, turn)``: the session's stored turns (the new ones left out) latest at
or before the turn's time, and first after it."""


def link_session_turns(ordered: Sequence[Episode], around: Around) -> SessionLinks:
    """Put new turns (``ordered`` by session, time and id) into their sessions' chains.

    A session's new turns go in runs: each run between the stored turn before its first
    turn and the stored turn after it in time, so a batch that follows the session's last
    turn (the usual case) reads the store once.
    """
    links = SessionLinks()
    by_session: dict[str, list[Episode]] = {}
    for episode in ordered:
        if episode.session_id is not None:
            by_session.setdefault(episode.session_id, []).append(episode)
    for session, turns in by_session.items():
        start = 0
        while start < len(turns):
            previous, after = around(session, turns[start])
            end = start + 1
            while end < len(turns) and (after is None or turns[end].timestamp < after.timestamp):
                end += 1
            run = turns[start:end]
            if previous is not None:
                links.pairs.append((previous.id, run[0].id))
                links.requeue.append(previous.id)
                if previous.text is not None:
                    links.before[run[0].id] = previous.text
                following = previous.next_id
            else:  # said before every stored turn of the session
                following = None if after is None else after.id
            for first, second in itertools.pairwise(run):
                links.pairs.append((first.id, second.id))
                if first.searchable:
                    links.before[second.id] = first.text
            if following is not None:
                links.pairs.append((run[-1].id, following))
                links.requeue.append(following)
                links.retoken[following] = run[-1].text if run[-1].searchable else None
            start = end
    return links
