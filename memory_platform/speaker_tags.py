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
same tag (:func:`speaks_in_memory`: a transcript added a turn at a time gets its
speakers from each one's second turn on). "Note: ..." once, "Q:"/"A:", "Monday:", "From:"
or "Question:" never become speakers. The text is kept as given; only the empty field is
filled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from .models import Episode, VectorKind
from .retrieval.names import nameable
from .store import GraphStore
from .textutil import opening_tag, word_tokens

__all__ = ["pasted_speakers", "speaks_in_memory"]

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
"""How many of the user's turns that say a tag's words are read to find one it opens."""


def speaks_in_memory(store: GraphStore, user_id: str, tag: str) -> bool:
    """Whether the user's memory holds a turn of ``tag``: one stored with it as speaker
    (an indexed lookup), or one stored without a speaker whose text opens with it (among
    the :data:`_TAGGED_TURNS` turns that best match its words)."""
    if store.find_episodes(user_id, tag, limit=1):
        return True
    hits = store.lexical_search(user_id, tag, [VectorKind.EPISODE], _TAGGED_TURNS)
    turns = store.get_episodes(user_id, [hit.ref_id for hit in hits])
    return any(not turn.speaker and opening_tag(turn.text) == tag for turn in turns)
