"""Who said a turn stored with its speaker pasted into the text and no ``speaker`` field.

The documented way to store a turn puts who said it in ``speaker``; a user who imports a
transcript often leaves it in the text instead ("Caroline: I went camping."). Retrieval
then cannot tell whose turn it is: a question naming Caroline finds no turn of hers and
counts her name as unknown to the memory. On LoCoMo's dev conversations stored that way,
recall@10 was 0.03 lower than with the field (``benchmarks/README.md``).

A tag is taken for the speaker when it is one by the rule for pasted conversations
(:func:`~memory_platform.textutil.transcript_speakers`: in a conversation someone speaks
again): it opens two or more speakerless turns of one session stored together, or the
user already has a turn of that speaker, or a stored turn without one that opens with the
same tag (:class:`StoredSpeakers`). "Note: ..." once, "Q:"/"A:", "Monday:", "From:" or
"Question:" never become speakers. The text is kept as given; only the empty field is
filled.

A transcript added a turn at a time shows a speaker by its second turn only: the stored
turns without a speaker that open with a tag first taken for one are given it then
(:meth:`StoredSpeakers.first_turns`), so a speaker's first turn is hers too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from .models import Episode, VectorKind
from .retrieval.names import nameable
from .store import GraphStore
from .textutil import opening_tag, word_tokens

__all__ = ["StoredSpeakers", "pasted_speakers"]

_LINE_LABELS = frozenset(
    {
        "question", "answer", "note", "notes", "summary", "topic", "subject", "title",
        "date", "time", "todo", "reminder", "update", "source", "link", "url", "tags",
        "status", "location", "cc", "bcc", "问题", "回答", "答案", "备注", "总结",
        "主题", "标题", "日期", "时间", "地点",
    }
)  # fmt: skip
"""Words that label a line rather than name who said it ("Question: …", "Subject: …",
备注：…), even where they open two lines of a session."""


def _may_speak(tag: str) -> bool:
    """Whether a tag may be a speaker: a name or a role ("Caroline", "User", 小明), not a
    single letter, a day or a month ("Q", "Monday"), a stop word ("From", "To", "Re") or
    a label (:data:`_LINE_LABELS`)."""
    return nameable(tag) and bool(word_tokens(tag)) and tag.casefold() not in _LINE_LABELS


def pasted_speakers(
    episodes: Sequence[Episode], has_speaker: Callable[[str], bool]
) -> list[str | None]:
    """For each episode of one user, the speaker its text opens with when it has no
    ``speaker`` and the tag is one (see the module docstring), else None. ``has_speaker``
    says whether the user already has a turn of a speaker."""
    tags: list[str | None] = [
        None if episode.speaker else opening_tag(episode.text) for episode in episodes
    ]
    tags = [tag if tag is not None and _may_speak(tag) else None for tag in tags]
    sessions = [episode.session_id for episode in episodes]
    repeated = Counter((s, t) for s, t in zip(sessions, tags, strict=True) if t is not None)
    known: dict[str, bool] = {}

    def speaks(session: str | None, tag: str) -> bool:
        if repeated[(session, tag)] >= 2:
            return True
        if tag not in known:
            known[tag] = has_speaker(tag)
        return known[tag]

    return [
        tag if tag is not None and speaks(session, tag) else None
        for session, tag in zip(sessions, tags, strict=True)
    ]


_TAGGED_TURNS = 20
"""How many of the user's turns that say a tag's words are read to find those it opens."""


class StoredSpeakers:
    """What a user's memory holds of speaker tags, each looked up once per write."""

    def __init__(self, store: GraphStore, user_id: str) -> None:
        self._store, self._user = store, user_id
        self._stored: dict[str, bool] = {}
        self._untagged: dict[str, list[str]] = {}

    def stored(self, tag: str) -> bool:
        """Whether a turn is stored with ``tag`` as its speaker (an indexed lookup)."""
        if tag not in self._stored:
            self._stored[tag] = bool(self._store.find_episodes(self._user, tag, limit=1))
        return self._stored[tag]

    def untagged(self, tag: str) -> list[str]:
        """The ids of turns stored without a speaker whose text opens with ``tag``, among
        the :data:`_TAGGED_TURNS` turns that best match its words."""
        if tag not in self._untagged:
            hits = self._store.lexical_search(self._user, tag, [VectorKind.EPISODE], _TAGGED_TURNS)
            turns = self._store.get_episodes(self._user, [hit.ref_id for hit in hits])
            self._untagged[tag] = [
                turn.id for turn in turns if not turn.speaker and opening_tag(turn.text) == tag
            ]
        return self._untagged[tag]

    def speaks(self, tag: str) -> bool:
        """Whether the memory holds a turn of ``tag``: stored with it as speaker, or
        stored without one and opening with it."""
        return self.stored(tag) or bool(self.untagged(tag))

    def first_turns(self, speakers: Sequence[str | None]) -> dict[str, str]:
        """For speakers just taken from tags, the stored turns without a speaker that open
        with one no stored turn has as its speaker yet: ``{episode_id: speaker}``."""
        return {
            turn: tag
            for tag in dict.fromkeys(s for s in speakers if s is not None)
            if not self.stored(tag)
            for turn in self.untagged(tag)
        }
