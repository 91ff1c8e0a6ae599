"""What a memory calls its people is read from the store only when a query's names need
it, and once a search: most searches name nobody and must cost nothing more."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from memory_platform import MemoryPlatform
from memory_platform.models import Episode
from memory_platform.retrieval.names import OWNER_WORDS
from memory_platform.retrieval.people import MemoryPeople, NameEvidence, name_evidence
from memory_platform.store import GraphStore
from memory_platform.store.base import episode_document

USER = "tim-and-john"


class _CountingStore:
    """The platform's own store, counting the reads made through it."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store
        self.reads: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if not callable(attribute):
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.reads[name] += 1
            return attribute(*args, **kwargs)

        return counted


def _people_of(
    platform: MemoryPlatform, turns: Sequence[Episode] = ()
) -> tuple[_CountingStore, Callable[[], MemoryPeople]]:
    """A counting view of the store, and the people of USER's memory as a search whose
    candidates are ``turns`` sees them (a new view for each search)."""
    store = _CountingStore(platform.store)
    return store, lambda: MemoryPeople(store, USER, turns)  # type: ignore[arg-type]


def _remember_tim_and_john(platform: MemoryPlatform) -> list[Episode]:
    """Two turns of Tim and John, as a search that finds both holds them."""
    ids = platform.add_episodes(
        USER,
        [
            {"text": "I performed a magic trick at the school party.", "speaker": "Tim"},
            {"text": "Wow, I love magic! Did Nate see it?", "speaker": "John"},
        ],
    )
    platform.wait_for_indexing()
    return platform.store.get_episodes(USER, ids)


def test_a_query_that_names_nobody_reads_nothing(platform: MemoryPlatform) -> None:
    turns = _remember_tim_and_john(platform)
    documents = [episode_document(turn) for turn in turns]
    store, people = _people_of(platform, turns)
    for query in ("what magic trick was performed?", "我为什么没心情工作?", "<Assistant>: hi"):
        assert (
            name_evidence(people(), query, USER, documents, about_owner=lambda: True)
            == NameEvidence()
        )
    assert not store.reads
    # nor does a search with no candidates, whatever it names
    assert name_evidence(people(), "What did Bart do?", USER, [], about_owner=lambda: True) == (
        NameEvidence()
    )
    assert not store.reads


def test_a_strangers_conversation_is_a_verdict_and_each_read_is_made_once(
    platform: MemoryPlatform,
) -> None:
    turns = _remember_tim_and_john(platform)
    documents = [episode_document(turn) for turn in turns]
    store, people = _people_of(platform, turns)
    stranger = "<Bart>: I will do a magic trick!\n<Assistant>: Great.\n<Bart>: I am nervous."
    seen = people()
    evidence = name_evidence(seen, stranger, USER, documents, about_owner=lambda: False)
    assert evidence.against and evidence.strangers
    reads = Counter(store.reads)
    assert reads  # Bart is no candidate's: the store was asked about him
    # the same search asking again reads nothing more
    assert name_evidence(seen, stranger, USER, documents, about_owner=lambda: False) == evidence
    assert store.reads == reads
    # one of the memory's own people, named by their own turn, costs no read at all
    store.reads.clear()
    own = stranger.replace("Bart", "Tim")
    assert not name_evidence(people(), own, USER, documents, about_owner=lambda: False).against
    assert not store.reads
    # a stranger's conversation that says one of the memory's people is evidence only
    says_tim = stranger.replace("I am nervous.", "Tim will watch.")
    evidence = name_evidence(people(), says_tim, USER, documents, about_owner=lambda: False)
    assert evidence.against and not evidence.strangers


def test_the_owners_recorded_name_is_a_word_for_the_owner(platform: MemoryPlatform) -> None:
    created = platform.execute_tool(
        USER,
        "create_memory",
        {"subject": "user", "memory_type": "事实", "topic": "name", "object": "Alice"},
    )
    assert created["success"], created
    platform.wait_for_indexing()
    store, people = _people_of(platform)
    question = "What does Alice like to eat?"
    documents = ["user name Alice"]
    evidence = name_evidence(people(), question, USER, documents, about_owner=lambda: True)
    assert evidence.owner_words == OWNER_WORDS | {"alice"}
    assert not evidence.against
    # read only where an item about the owner could share it
    store.reads.clear()
    evidence = name_evidence(people(), question, USER, documents, about_owner=lambda: False)
    assert evidence.owner_words == OWNER_WORDS
    assert not store.reads


def test_a_note_about_the_owner_names_the_notes_person_or_nobody(
    platform: MemoryPlatform,
) -> None:
    """A note is about the owner where its subject is the owner, it begins with the person
    the notes are about, it has no subject at all (the writer's own) or it opens with what
    is the owner's; not a note about a relative or someone else, nor a turn someone said. Asked of the candidates alone: no
    read."""
    notes = [
        "Bart在圣诞节晚会上跳舞。",
        "Bart吃了冰淇淋。",
        "Bart去了动物园。",
        "Bart画了一幅画。",
        "Bart唱了一首歌。",
        "在公园放风筝，很开心。",
        "User likes pizza.",  # the owner as a memory's subject is written
        "I play the violin.",
    ]
    others = ["妈妈送给Bart一辆自行车。", "他在公园散步。"]
    english = [
        "Likes jazz music.",
        "My sister is called Anna.",
        "The user's dog is named Rex.",
        "favorite food: sushi",  # a record's field, as the LangGraph store writes a value
    ]
    not_english = ["Caroline went home.", "Her dog barks.", "friend: Anna likes tea"]
    ids = platform.add_episodes(
        USER,
        [{"text": text} for text in notes + others]
        + [{"text": "在公园放风筝了吗？", "speaker": "Tim"}],
    )
    english_ids = platform.add_episodes(USER, [{"text": t} for t in english + not_english])
    platform.wait_for_indexing()
    turns = platform.store.get_episodes(USER, ids)
    store, people = _people_of(platform, turns)
    about = {turn.text: people().about_the_owner(turn) for turn in turns if not turn.speaker}
    assert about == {text: text in notes for text in notes + others}
    spoken = next(turn for turn in turns if turn.speaker)
    assert not people().about_the_owner(spoken)
    # with no notes' person, a note with no subject is still the writer's own
    _, unnamed = _people_of(platform, [turn for turn in turns if "Bart" not in turn.text])
    subjectless = next(turn for turn in turns if turn.text == "在公园放风筝，很开心。")
    assert unnamed().notes_person is None
    assert unnamed().about_the_owner(subjectless)
    assert not store.reads
    # an English note with no subject, about what is the owner's or a record's field of
    # no one else is the owner's too
    english_turns = platform.store.get_episodes(USER, english_ids)
    _, of_english = _people_of(platform, english_turns)
    about = {turn.text: of_english().about_the_owner(turn) for turn in english_turns}
    assert about == {text: text in english for text in english + not_english}
