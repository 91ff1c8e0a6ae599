"""A name in Latin letters and its transliteration in Chinese characters are one name."""

from __future__ import annotations

import pytest

from memory_platform.retrieval.names import among_people
from memory_platform.retrieval.transliteration import same_name_in_two_scripts


@pytest.mark.parametrize(
    ("latin", "chinese"),
    [
        ("Lisa", "丽莎"),
        ("Bart", "巴特"),  # an r before no vowel is silent
        ("Tom", "汤姆"),  # a final ng may be heard as nothing
        ("Linda", "琳达"),  # ... or as the n of the name
        ("William", "威廉"),  # ... or as its m
        ("Amy", "艾米"),  # a name that begins with a vowel
        ("Carl", "卡尔"),  # 尔 for an l
        ("Michael", "迈克尔"),  # ch heard as k
        ("Frank", "弗兰克"),  # its first vowel in the second syllable
        ("Andrew", "安德鲁"),  # a w after a vowel is silent
        ("Sophia", "索菲亚"),
        ("Lisa Simpson", "丽莎"),  # her first name
        ("Lisa", "丽莎·辛普森"),
    ],
)
def test_a_name_and_its_transliteration_are_one_name(latin: str, chinese: str) -> None:
    assert same_name_in_two_scripts(latin, chinese)
    assert same_name_in_two_scripts(chinese, latin)
    assert among_people(latin, [chinese]) and among_people(chinese, [latin])


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Bart", "乐乐"),  # 乐乐 is no transliteration's: a Chinese name
        ("Lisa", "小红"),
        ("Bart", "丽莎"),  # other consonants
        ("Lucy", "雷佳"),  # the same consonants, another first vowel
        ("Amy", "美美"),  # Amy begins with a vowel, 美美 with m
        ("Tom", "汤"),  # one sound is too few to tell
        ("Lisa", "Lisa"),  # one script: compared as written, elsewhere
        ("丽莎", "丽莎"),
        ("Lisa2", "丽莎"),  # not a name in letters
    ],
)
def test_names_that_do_not_sound_alike_or_are_not_transliterations_differ(
    first: str, second: str
) -> None:
    assert not same_name_in_two_scripts(first, second)


def test_two_strangers_in_two_scripts_stay_strangers() -> None:
    assert not among_people("Bart", ["丽莎"])
    assert not among_people("丽莎", ["Bart", "Tom"])
    assert among_people("丽莎", ["Bart", "Lisa"])
