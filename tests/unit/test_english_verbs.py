"""English notes that leave their subject out (``english_verbs``): the owner's own."""

from __future__ import annotations

import pytest

from memory_platform.retrieval.english_verbs import opens_with_a_described_thing, opens_with_verb
from memory_platform.retrieval.note_subjects import (
    begins_with_owners,
    begins_without_subject,
    note_subject,
)


@pytest.mark.parametrize(
    "note",
    [
        "Likes jazz music",  # an inflected verb
        "Works as a software engineer",
        "Adopted a dog named Rex",
        "Went to Paris last week",
        "Enjoys swimming",  # an -ing object is no finite verb
        "Has been to Paris",  # an auxiliary, before another verb too
        "Is a vegetarian",
        "Doesn't like spicy food",
        "Can swim",
        "Never eats meat",  # adverbs before the verb
        "Also often goes hiking",
        "Allergic to peanuts",  # an adjective before a preposition
        "Married to Tom",
    ],
)
def test_a_note_that_opens_with_a_verb_leaves_its_subject_out(note: str) -> None:
    assert opens_with_verb(note)
    assert begins_without_subject(note)


@pytest.mark.parametrize(
    "note",
    [
        "Caroline went home",  # a name
        "Drew went home",  # a word that is a verb too, before a finite verb: its subject
        "Dogs are great",
        "She likes pizza",  # a pronoun
        "I like pizza",
        "The weather is nice",
        "My dog is Rex",
        "Favourite food is sushi",  # a noun phrase
        "Red car outside",  # an adjective before no preposition
        "",
        "42",
    ],
)
def test_a_note_that_opens_with_its_subject_does_not(note: str) -> None:
    assert not opens_with_verb(note)
    assert not begins_without_subject(note)


def test_after_a_clause_of_when_the_verb_still_opens_the_note() -> None:
    assert begins_without_subject("Yesterday, went hiking with friends")
    assert not begins_without_subject("Yesterday, Caroline went hiking")


@pytest.mark.parametrize(
    "note",
    [
        "Favourite food is sushi",  # an adjective and what it describes, "my" left out
        "Best friend is Anna",
        "Older sister lives in Paris",
        "Least favourite films are horror movies",
        "First marathon was in April 2024",
        "favorite color: blue",
    ],
)
def test_a_note_about_a_described_thing_is_the_owners_and_names_no_one(note: str) -> None:
    assert opens_with_a_described_thing(note)
    assert begins_with_owners(note)
    assert note_subject(note) is None


@pytest.mark.parametrize(
    ("note", "name"),
    [
        ("Frank plays golf", "Frank"),  # an adjective that is a name, before a verb
        ("Amber is a nurse", "Amber"),
        ("Frank Smith went home", "Frank"),  # before another capitalised word
        ("Caroline went camping", "Caroline"),
    ],
)
def test_a_name_spelt_like_an_adjective_still_names_its_person(note: str, name: str) -> None:
    assert not opens_with_a_described_thing(note)
    assert note_subject(note) == name
    assert not begins_with_owners(note)
