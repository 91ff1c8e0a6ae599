"""A Chinese name and its pinyin spelling are one name (Xiaohong, 小红)."""

from __future__ import annotations

import pytest

from memory_platform.retrieval.names import among_people, names_the_user_id
from memory_platform.retrieval.pinyin import _readings, spelled_in_pinyin, written_in_pinyin
from memory_platform.retrieval.transliteration import same_name_in_two_scripts


@pytest.mark.parametrize(
    ("latin", "chinese"),
    [
        ("Xiaohong", "小红"),
        ("XiaoHong", "小红"),
        ("Xiao-hong", "小红"),
        ("Zhang Wei", "张伟"),
        ("Wei Zhang", "张伟"),  # the surname last, as English writes it
        ("Tingting Ouyang", "欧阳婷婷"),  # a surname of two characters last
        ("Lyu Bu", "吕布"),  # ü written yu, v or u
        ("Lv Bu", "吕布"),
        ("Lu Bu", "吕布"),
        ("Zeng Guofan", "曾国藩"),  # a surname read apart from its common word (ceng)
        ("Zixuan", "梓萱"),
    ],
)
def test_a_chinese_name_and_its_pinyin_are_one_name(latin: str, chinese: str) -> None:
    assert spelled_in_pinyin(latin, chinese)
    assert same_name_in_two_scripts(latin, chinese) and same_name_in_two_scripts(chinese, latin)
    assert among_people(latin, [chinese]) and among_people(chinese, [latin])


@pytest.mark.parametrize(
    ("latin", "chinese"),
    [
        ("Hong", "红"),  # one syllable is too short to tell
        ("Xiaoming", "小红"),
        ("Weizhang", "张伟"),  # a name of one word keeps its surname first
        ("Xiaohong2", "小红"),
        ("Bart", "巴特"),  # a transliteration, not pinyin (found by its sound instead)
    ],
)
def test_other_spellings_are_not_the_names_pinyin(latin: str, chinese: str) -> None:
    assert not spelled_in_pinyin(latin, chinese)


def test_a_name_in_pinyin_is_not_compared_by_its_sound() -> None:
    # 赖宁 is written in characters that also write foreign names, and sounds like Lin
    # Feng to the transliteration's coarse classes; a name in pinyin is compared as pinyin
    assert written_in_pinyin("Lin Feng") and not written_in_pinyin("Lisa Simpson")
    assert not same_name_in_two_scripts("Lin Feng", "赖宁")
    assert same_name_in_two_scripts("Lin Feng", "林峰")
    assert same_name_in_two_scripts("Lisa", "丽莎")  # a foreign name is, still


def test_the_given_name_of_a_full_name_in_pinyin_is_that_person() -> None:
    assert among_people("Xiaohong", ["李小红"]) and among_people("李小红", ["Xiaohong"])
    assert not among_people("Xiaohong", ["小明"])


def test_a_user_id_spelling_a_chinese_name_names_that_person() -> None:
    assert names_the_user_id("小红", "xiaohong-42")
    assert names_the_user_id("小红", "xiao_hong")
    assert names_the_user_id("李小红", "xiaohong")
    assert names_the_user_id("小红", "小红")  # an id in characters, as before
    assert not names_the_user_id("小红", "bart")
    assert not names_the_user_id("小明", "xiaohong")


def test_the_table_reads_every_character_of_the_standard_list() -> None:
    table = _readings()
    assert len(table) == 8105  # 通用规范汉字表 (2013)
    assert {"zeng", "ceng"} <= set(table["曾"]) and "lyu" in table["吕"]
