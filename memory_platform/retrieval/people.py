"""Whose search this is: what a user's memory calls its people, and what a query's names
say against its matches.

:mod:`.names` holds the rules on text (which words are names, which speakers stand for
the owner, what a note begins with). This module reads from the store what those rules
need for one search, lazily and at most once each: the owner's recorded name, whether
a name is held anywhere, whether a speaker is one of the memory's people. It turns them
into :class:`NameEvidence`, which relevance takes (:mod:`.relevance`). Most searches name
nobody and read nothing here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..builder import SELF_SUBJECT, about_owner, subject_node_id
from ..models import Episode, NodeType, VectorKind
from ..store import GraphStore
from ..store.base import episode_document, memory_document
from ..textutil import has_cjk, word_tokens
from .gloss import names_no_person
from .names import (
    OWNER_NAME_TOPICS,
    OWNER_WORDS,
    among_people,
    asks_about_owner,
    given_names,
    names_the_owner,
    names_the_user_id,
    names_written_otherwise,
    other_script_names,
    owner_names,
    question_names,
    said_as_person,
    said_as_place_or_thing,
    speaker_names,
    strangers_conversation,
    unknown_names,
    unnamed_speaker,
)
from .note_subjects import (
    begins_in_first_person,
    begins_with_a_field,
    begins_with_owners,
    begins_without_subject,
    note_begins_with,
    notes_name_their_person,
    notes_person,
)

__all__ = ["MemoryPeople", "NameEvidence", "is_note", "name_evidence"]

NAME_HITS = 10
"""Lexical hits read for a Chinese name the candidates do not hold: an item holding the
name matches its word and every character of it, so it ranks among the first."""


def is_note(episode: Episode) -> bool:
    """Whether a turn is a note: one with no speaker."""
    return not (episode.speaker or "").strip()


@dataclass(frozen=True)
class NameEvidence:
    """What a query's names say about every match of one search.

    ``against``: the query names only people the memory never held, or is a pasted
    conversation whose speakers are not the memory's people; evidence against every
    match (a shift of the log odds), not a verdict. ``strangers``: such a conversation
    that does not even say one of the memory's people; nothing is a match.
    ``owner_words``: the words that stand for the owner in this query (the
    :data:`.names.OWNER_WORDS`, and a name the memory records as the owner's).
    ``other_script``: the query's names that the dictionary also writes in the other of
    Latin script and Chinese characters (:func:`.names.other_script_names`)."""

    against: bool = False
    strangers: bool = False
    owner_words: frozenset[str] = OWNER_WORDS
    other_script: tuple[str, ...] = ()


class MemoryPeople:
    """What one user's memory calls its people, as far as one search needs to know.

    ``turns`` are the search's candidate turns: their named speakers, and the name most
    candidate notes begin with, are the memory's people without a read. Everything else
    is read from the store once, when first asked."""

    def __init__(self, store: GraphStore, user_id: str, turns: Sequence[Episode]) -> None:
        self._store = store
        self._user = user_id
        self._turns = turns
        self._notes = [turn.text for turn in turns if is_note(turn)]
        self._known: dict[str, bool] = {}

    @functools.cached_property
    def owner_name_texts(self) -> list[str]:
        """The texts of the memories that record what the owner is called: about the
        owner, under a name topic (:data:`.names.OWNER_NAME_TOPICS`: (我, 名字, 小明),
        (user, name, Alice)). One indexed read where there are none (most memories);
        three where there are (the topic nodes, their memories, those memories)."""
        store, user = self._store, self._user
        topics = store.find_nodes(user, NodeType.TOPIC, sorted(OWNER_NAME_TOPICS))
        if not topics:
            return []
        by_node = store.memories_for_nodes(user, [node.id for node in topics])
        memory_ids = sorted({m for ids in by_node.values() for m in ids})
        return [m.text for m in store.get_memories(user, memory_ids) if about_owner(m.text)]

    @functools.cached_property
    def owner_named(self) -> bool:
        """Whether the memory names its owner: it records what the owner is called, or
        it is not :meth:`_owner_unnamed`."""
        return not self._owner_unnamed() or bool(self.owner_name_texts)

    @functools.cached_property
    def people(self) -> list[str]:
        """What the memory calls its people, as far as the candidates and the owner's
        recorded name tell: :attr:`seen_people` and what the owner is called."""
        return [*self.seen_people, *owner_names(self.owner_name_texts)]

    @functools.cached_property
    def seen_people(self) -> list[str]:
        """The memory's people that the candidates show, without a read: the named
        speakers of the candidate turns and the name the candidate notes mostly begin
        with."""
        speakers = {turn.speaker for turn in self._turns if not unnamed_speaker(turn.speaker)}
        person = self.notes_person
        return sorted(s for s in speakers if s) + ([person] if person else [])

    @functools.cached_property
    def notes_person(self) -> str | None:
        """The name most candidate notes begin with (:func:`.note_subjects.notes_person`):
        the person those notes are about, the memory's owner; None where they name none."""
        return notes_person(self._notes)

    def about_the_owner(self, turn: Episode) -> bool:
        """Whether ``turn`` is a note about the owner: one whose subject is the owner, as
        a memory's is (:func:`.builder.about_owner`: "User likes pizza", "I work as a
        nurse"), one its writer opens in Chinese (:func:`.note_subjects.begins_in_first_person`:
        "我家的猫…"), one that begins with :attr:`notes_person` ("Bart在…" in a memory of notes
        about Bart), one with no subject at all, the writer's own
        (:func:`.note_subjects.begins_without_subject`: "在圣诞节晚会上跳舞…", "Likes jazz"),
        one about what is the owner's (:func:`.note_subjects.begins_with_owners`: "My
        sister is Anna"), or a record's field that names no one else
        (:func:`.note_subjects.begins_with_a_field`: "favorite food: sushi")."""
        if not is_note(turn):
            return False
        person = self.notes_person
        return (
            about_owner(turn.text)
            or begins_in_first_person(turn.text)
            or begins_without_subject(turn.text)
            or begins_with_owners(turn.text)
            or begins_with_a_field(turn.text)
            or (person is not None and note_begins_with(turn.text, person))
        )

    def knows(self, name: str) -> bool:
        """Whether the memory holds ``name`` anywhere (memories, turns, speakers), also in
        the other script (:func:`.names.other_script_names`: Tom where it says 汤姆), or
        holds one of its people by it (:attr:`seen_people`, :func:`among_people`: notes
        about 张伟 know 小伟): a lexical lookup per form of the name, made only for a name
        no candidate holds. The index also holds a Chinese word's characters, so a Chinese
        name (小红) must stand in the text of a hit, or its given name must (李小红 where
        小红 does): any note with 红 in it would match."""
        if name not in self._known:
            self._known[name] = among_people(name, self.seen_people) or any(
                map(self._lookup, (name, *other_script_names(name)))
            )
        return self._known[name]

    def _lookup(self, name: str) -> bool:
        store, user = self._store, self._user
        kinds = [VectorKind.MEMORY, VectorKind.EPISODE]
        if not has_cjk(name):
            return bool(store.lexical_search(user, name, kinds, 1))
        hits = store.lexical_search(user, name, kinds, NAME_HITS)
        memory_ids = [h.ref_id for h in hits if h.kind == VectorKind.MEMORY]
        episode_ids = [h.ref_id for h in hits if h.kind == VectorKind.EPISODE]
        documents: list[str] = []
        if memory_ids:  # a read only for a kind the hits hold (a round trip on Neo4j)
            documents += map(memory_document, store.get_memories(user, memory_ids))
        if episode_ids:
            documents += map(episode_document, store.get_episodes(user, episode_ids))
        forms = (name, *given_names(name))  # 李小红 is held where 小红 is
        return any(form in document for form in forms for document in documents)

    def none_of_its_people(self, speakers: Sequence[str]) -> bool:
        """Whether a memory that says who its people are (:attr:`people`, none where the
        candidates do not tell) has none of these speakers among them: not one of them,
        not a word of the user's id, no speaker of any stored turn and not what any
        stored note begins with. The candidates may be a few notes about a friend; the
        last two are read only for a speaker the candidates do not show (each an
        indexed read: a user's turns by speaker, and one lexical lookup). A speaker the
        candidates show as one of them costs no read at all."""
        if any(among_people(speaker, self.seen_people) for speaker in speakers):
            return False
        people, user = self.people, self._user
        return bool(people) and not any(
            among_people(speaker, people)
            or names_the_user_id(speaker, user)
            or self._store.find_episodes(user, speaker, limit=1)
            or self._begins_a_note(speaker)
            for speaker in speakers
        )

    def _begins_a_note(self, name: str) -> bool:
        """Whether a stored note that holds ``name`` begins with it: one lexical lookup
        of the name, as :meth:`knows` makes."""
        store, user = self._store, self._user
        hits = store.lexical_search(user, name, [VectorKind.EPISODE], NAME_HITS)
        if not hits:
            return False
        notes = store.get_episodes(user, [h.ref_id for h in hits])
        return any(is_note(note) and note_begins_with(note.text, name) for note in notes)

    def _owner_unnamed(self) -> bool:
        """Whether the memory speaks of its owner without a name (:mod:`.names`): a
        candidate turn of the owner or the assistant, candidate notes that do not mostly
        begin with one name, or any memory whose subject is the user ("我", "I", "user";
        one node, looked up only for a question naming someone the memory never held)."""
        if any(unnamed_speaker(turn.speaker) for turn in self._turns if not is_note(turn)):
            return True
        if self._notes and not notes_name_their_person(self._notes):
            return True
        subject = subject_node_id(self._user, SELF_SUBJECT)
        return bool(self._store.get_nodes(self._user, [subject]))


def name_evidence(
    people: MemoryPeople,
    query: str,
    user_id: str,
    documents: Sequence[str],
    about_owner: Callable[[], bool],
) -> NameEvidence:
    """What ``query``'s names say against the matches among ``documents`` (the texts of
    the search's candidates; ``about_owner``: whether one of them is about the owner,
    asked only of a query that names someone).

    A conversation is about its speakers: pasted by people the memory never held, or
    held only as others it mentions (a sibling, a friend), it is someone else's,
    evidence against every match as a question naming strangers is, whoever else it
    names; and where it does not even say what the memory calls its people, nothing is a
    match."""
    names = question_names(query) if documents else []
    if not names:
        return NameEvidence()

    def none_known(asked: list[str]) -> bool:
        """Whether these names are some and none is known to a memory that names its
        owner."""
        return (
            bool(asked)
            and unknown_names(query, user_id, documents, people.knows, asked=asked)
            and people.owner_named
        )

    speakers = speaker_names(query)
    unknown = none_known(names)
    if unknown and not speakers and asks_about_owner(query, set(word_tokens(query))):
        # about the owner, whom the memory knows: a place or a thing it never held is a
        # word like any other ("What did I eat in Chengdu?"), a person still a stranger,
        # even one the dictionary takes for a place ("What did I eat with Noah?"); asked
        # only here, so that a search reads the dictionary's tables only then
        unknown = not all(
            said_as_place_or_thing(query, n)
            or (not said_as_person(query, n) and names_no_person(n))
            for n in names
        )
    against = unknown or (
        bool(speakers)
        and (none_known(speakers) or (people.none_of_its_people(speakers) and people.owner_named))
    )
    # the owner is a word the question and an item about the owner share, whatever words
    # they use for it; the owner's recorded name is read only where such an item is
    owner_words = OWNER_WORDS
    if about_owner():
        owner_words = owner_words | {
            token
            for name in names
            if names_the_owner(name, people.owner_name_texts)
            for token in word_tokens(name)
        }
    return NameEvidence(
        against=against,
        strangers=against and strangers_conversation(query, people.people),
        owner_words=frozenset(owner_words),
        other_script=names_written_otherwise(names, documents),
    )
