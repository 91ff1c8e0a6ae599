"""A question that names only people or places a memory has never held finds nothing in it."""

from __future__ import annotations

import math

from memory_platform import MemoryPlatform
from memory_platform.retrieval.names import named_words, unknown_names, unnamed_speaker
from memory_platform.retrieval.relevance import RelevanceModel


def test_names_are_capitalised_words_that_do_not_begin_a_sentence() -> None:
    assert named_words("What recipes has Joanna made?") == ["Joanna"]
    assert named_words("What is Joanna's favourite movie? Ask Nate.") == ["Joanna", "Nate"]
    assert named_words("When did Melanie go camping in June?") == ["Melanie"]  # a month
    assert named_words("What did I do on May 5, 2023 with Tim?") == ["Tim"]  # a date, "I"
    assert named_words("Caroline went where?") == []  # the first word of a sentence
    assert named_words('<Bart>:"I met Tom today."') == ["Tom"]  # a speaker tag is no name
    assert named_words("我为什么没心情工作?") == []  # Chinese has no capitals
    # capitals mean nothing in a Title Case query, or one in capitals throughout
    assert named_words("User Favourite Food Preferences") == []
    assert named_words("WHAT DID JOANNA COOK?") == []
    assert named_words("What did Caroline and Melanie do?") == ["Caroline", "Melanie"]


def test_a_name_is_known_from_the_candidates_the_store_or_the_user_id() -> None:
    asked: list[str] = []

    def store(name: str) -> bool:
        asked.append(name)
        return name == "Nate"

    candidates = ["Tim: I cooked a vegan lasagna", "John: nice!"]
    assert not unknown_names("What did Tim cook?", "u1", candidates, store)
    assert asked == []  # held by a candidate: no lookup
    assert not unknown_names("What did Nate cook?", "u1", candidates, store)
    assert unknown_names("What recipes has Joanna made?", "u1", candidates, store)
    assert asked == ["Nate", "Joanna"]
    assert not unknown_names("What has Joanna cooked?", "joanna-smith", [], store)
    assert not unknown_names("what did I cook?", "u1", candidates, store)  # names nothing
    # one known name is enough: the memory knows who the question is about
    assert not unknown_names("Would Tim enjoy books by Rothfuss?", "u1", candidates, store)


def test_unknown_names_take_the_measured_log_odds() -> None:
    model = RelevanceModel()
    plain = model.score(6.0, 2, 3)
    shifted = model.score(6.0, 2, 3, unknown_names=True)
    logit = math.log(plain / (1 - plain))
    assert math.isclose(shifted, 1 / (1 + math.exp(-(logit + model.unknown_names))))
    assert model.unknown_names < -5  # a hundredfold drop in the odds, and more


def test_a_question_about_someone_the_memory_never_held_finds_nothing(
    platform: MemoryPlatform,
) -> None:
    turns = [
        {"text": "I made a vegan lasagna from my grandmother's recipe.", "speaker": "Tim"},
        {"text": "Wow, you have to share that recipe!", "speaker": "John"},
        {"text": "I baked banana bread with walnuts yesterday.", "speaker": "Tim"},
    ]
    platform.add_episodes("tim-and-john", turns)
    platform.add_episodes("joanna", [{"text": "I made a vegan lasagna from a new recipe."}])
    platform.wait_for_indexing()

    def direct(user: str, query: str) -> list[str]:
        results = platform.search(user, query, record_access=False)
        return [r.text for r in results if r.layer == "direct"]

    assert "I made a vegan lasagna from my grandmother's recipe." in direct(
        "tim-and-john", "What recipes has Tim made?"
    )
    assert direct("tim-and-john", "What recipes has Joanna made?") == []
    # the user's own name is known, though their memory only ever says "I"
    assert direct("joanna", "What recipes has Joanna made?") != []
    # below the floor the closest items are still there to see, with their relevance
    closest = platform.search(
        "tim-and-john", "What recipes has Joanna made?", min_relevance=0.0, record_access=False
    )
    assert closest and all(r.relevance < 0.05 for r in closest)


def test_a_speaker_is_unnamed_when_it_is_the_owner_the_assistant_or_nobody() -> None:
    for speaker in (None, "", "user", "User", "I", "我", "用户", "assistant", "mid-term summary"):
        assert unnamed_speaker(speaker), speaker
    for speaker in ("Caroline", "Tim", "小明"):
        assert not unnamed_speaker(speaker), speaker


def test_a_memory_that_never_names_its_owner_answers_questions_naming_them(
    platform: MemoryPlatform,
) -> None:
    """An agent writes "user likes sushi" and asks "What is John's favourite food?": the
    memory cannot know that John is its owner, so the name is no evidence against it."""
    for args in (
        {"subject": "user", "memory_type": "fact", "topic": "favourite food", "object": "sushi"},
        {"subject": "user", "memory_type": "fact", "topic": "lives in", "object": "Berlin"},
    ):
        assert platform.execute_tool("agent-user-1", "create_memory", args)["success"]
    platform.add_messages(
        "chat-user-2",
        "s1",
        [
            {"role": "user", "content": "I just got back from a climbing trip in the Alps."},
            {"role": "assistant", "content": "That sounds amazing, how was the weather?"},
        ],
    )
    platform.add_episodes("tim-and-john", [{"text": "I live in Berlin now.", "speaker": "Tim"}])
    platform.wait_for_indexing()

    def direct(user: str, query: str) -> list[str]:
        results = platform.search(user, query, record_access=False)
        return [r.text for r in results if r.layer == "direct"]

    assert direct("agent-user-1", "What is John's favourite food?")[:1] == [
        "user favourite food sushi"
    ]
    assert "user lives in Berlin" in direct("agent-user-1", "Where does John live?")
    assert direct("chat-user-2", "Tell me about John's climbing trip")[:1] == [
        "I just got back from a climbing trip in the Alps."
    ]
    # a memory whose people all have names still takes a stranger's name as evidence
    assert direct("tim-and-john", "Where does Tim live?") != []
    assert direct("tim-and-john", "Where does Joanna live?") == []
