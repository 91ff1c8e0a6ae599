"""What a memory calls its people is read from the store only when a query's names need
it, and once a search: most searches name nobody and must cost nothing more."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from memory_platform import MemoryPlatform
from memory_platform.models import Episode
from memory_platform.retrieval.names import OWNER_WORDS
from memory_platform.retrieval.people import MemoryPeople, NameEvidence, is_note, name_evidence
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


def _remember(platform: MemoryPlatform, subject: str, kind: str, topic: str, obj: str) -> None:
    """An agent's memory of USER written through the tool call, indexed."""
    created = platform.execute_tool(
        USER,
        "create_memory",
        {"subject": subject, "memory_type": kind, "topic": topic, "object": obj},
    )
    assert created["success"], created
    platform.wait_for_indexing()


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
    _remember(platform, "user", "事实", "name", "Alice")
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


def _turn(text: str, speaker: str | None = None) -> Episode:
    return Episode(user_id=USER, text=text, speaker=speaker)


def test_the_candidates_people_are_their_named_speakers_and_the_owners_recorded_name(
    platform: MemoryPlatform,
) -> None:
    """The owner, the assistant and a blank speaker are nobody's name; a turn with a
    blank speaker is a note. The owner's recorded name is among the people, what another
    person is called under the same topic is not."""
    assert is_note(_turn("went fishing", speaker="  ")) and not is_note(_turn("hi", "Tim"))
    turns = [
        _turn("Hello!", "User"),
        _turn("How can I help?", "Assistant"),
        _turn("I love magic.", "Tim"),
        _turn("我也是。", "用户"),
        _turn("Nice.", "Speaker 1"),
    ]
    _, people = _people_of(platform, turns)
    assert people().seen_people == ["Tim"]
    assert people().people == ["Tim"]
    for subject, name in (("Bob", "Robert"), ("user", "Alice")):
        _remember(platform, subject, "事实", "name", name)
    _, people = _people_of(platform, turns)
    assert [text.casefold() for text in people().owner_name_texts] == ["user name alice"]
    assert [name.casefold() for name in people().people] == ["tim", "alice"]


def test_a_name_is_known_where_the_memory_holds_it_in_either_script_or_by_its_given_name(
    platform: MemoryPlatform,
) -> None:
    """A Chinese name must stand in a hit's text (its characters alone are no name of
    it); a full name is known by its given name; a Latin name by the dictionary's
    Chinese for it."""
    platform.add_episodes(
        USER,
        [
            {"text": "小红今天去了公园。"},
            {"text": "红色的花很好看。"},
            {"text": "汤姆喜欢踢足球。"},
        ],
    )
    platform.wait_for_indexing()
    _, people = _people_of(platform)
    seen = people()
    assert seen.knows("小红") and seen.knows("李小红")
    assert not seen.knows("小明") and not seen.knows("小花")
    assert seen.knows("Tom") and not seen.knows("Bart")
    # one of the candidates' people is known by a nickname, without any hit
    _, of_zhang = _people_of(platform, [_turn("我们去吃饭吧。", "张伟")])
    assert of_zhang().knows("小伟")


def test_a_pasted_speaker_is_one_of_the_memorys_people_however_the_memory_holds_them(
    platform: MemoryPlatform,
) -> None:
    """Beyond the candidates: a word of the user's id, the speaker of any stored turn,
    the person a stored note begins with. A turn that only begins with the name is
    someone else speaking of them."""
    user = "bart-42"
    platform.add_episodes(
        user,
        [
            {"text": "I performed a magic trick.", "speaker": "Tim"},
            {"text": "Want to go hiking?", "speaker": "Lisa"},
            {"text": "Nate went fishing with his dad."},
            {"text": "Maria is coming to the party.", "speaker": "Tim"},
        ],
    )
    platform.wait_for_indexing()
    people = MemoryPeople(platform.store, user, [_turn("I performed a magic trick.", "Tim")])
    assert people.people == ["Tim"]
    assert not people.none_of_its_people(["Bart"])  # the user's id
    assert not people.none_of_its_people(["Lisa"])  # a stored turn's speaker
    assert not people.none_of_its_people(["Nate"])  # what a stored note begins with
    assert people.none_of_its_people(["Maria"])  # only spoken of, by Tim
    assert people.none_of_its_people(["Oscar", "Maria"])
    assert not people.none_of_its_people(["Oscar", "Lisa"])


def test_speakers_are_strangers_only_to_a_memory_that_names_its_owner(
    platform: MemoryPlatform,
) -> None:
    """A memory that speaks of its owner without a name (the owner's own turns, notes
    that begin with no one name, memories whose subject is the user) cannot tell a
    stranger from its owner called by name: nothing is evidence against. Recording the
    owner's name makes it one that can."""
    conversation = "<Bart>: I will do a magic trick!\n<Oscar>: Great.\n<Bart>: Watch."
    question = "What does Bart like to eat?"
    with_owner = [_turn("I love magic.", "Tim"), _turn("Me too!", "User")]
    documents = [episode_document(turn) for turn in with_owner]
    _, people = _people_of(platform, with_owner)
    assert not name_evidence(people(), conversation, USER, documents, lambda: False).against
    _, of_tim = _people_of(platform, with_owner[:1])
    assert name_evidence(of_tim(), conversation, USER, documents[:1], lambda: False).against

    unnamed_notes = [_turn("Went to the park."), _turn("Ate ice cream.")]
    documents = [episode_document(turn) for turn in unnamed_notes]
    _, people = _people_of(platform, unnamed_notes)
    assert not name_evidence(people(), question, USER, documents, lambda: True).against

    _remember(platform, "user", "观点", "food", "pizza")
    _, people = _people_of(platform)
    documents = ["user food pizza"]
    assert not name_evidence(people(), question, USER, documents, lambda: True).against
    _remember(platform, "user", "事实", "name", "Alice")
    _, people = _people_of(platform)
    assert name_evidence(people(), question, USER, documents, lambda: True).against
