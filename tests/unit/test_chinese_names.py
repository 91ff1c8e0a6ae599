"""Chinese names are the words jieba's HMM makes of a name's characters, and foreign names
those written for their sound, not every word jieba tags a name."""

from __future__ import annotations

import pytest

from memory_platform.retrieval.chinese_names import chinese_names, unglued


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("小芳喜欢喝什么?", ["小芳"]),
        ("张三的工作是什么?", ["张三"]),
        ("阿强开什么车?", ["阿强"]),
        ("陈静的女儿几岁了?", ["陈静"]),
        ("刘洋上周去哪旅游了?", ["刘洋"]),
        # the HMM glues the next word's character to a name it does not know
        ("王伟有宠物吗?", ["王伟"]),
        ("我和小丽去哪里玩了?", ["小丽"]),
        ("张三住在哪里?", ["张三"]),
        ("小明和小红去了公园", ["小明", "小红"]),
        # foreign names written for their sound: CC-CEDICT's proper nouns, or unknown
        ("约翰喜欢喝什么？", ["约翰"]),
        ("汤姆有宠物吗?", ["汤姆"]),
        ("我和安娜去了公园", ["安娜"]),
        ("艾玛爱喝什么?", ["艾玛"]),
        ("艾玛住在哪里？", ["艾玛"]),  # 艾玛住: the verb glued to its end
        ("我和玛丽去了公园", ["玛丽"]),  # 和玛丽: the conjunction glued to its start
        # people CC-CEDICT holds by name, whatever jieba tags them (a noun, a place)
        ("大卫是做什么工作的？", ["大卫"]),
        ("苏珊周末做什么？", ["苏珊"]),
        ("奥利维亚会什么乐器？", ["奥利维亚"]),
        ("周杰伦的新歌好听吗？", ["周杰伦"]),  # a famous name its dictionary holds
        # a common noun to jieba that CC-CEDICT writes only as a name in Latin script
        ("露西最近怎么样?", ["露西"]),
        ("我和露西去了公园", ["露西"]),
    ],
)
def test_a_name_jieba_does_not_know_is_found_wherever_it_stands(
    question: str, names: list[str]
) -> None:
    assert chinese_names(question) == names


@pytest.mark.parametrize(
    "text",
    [
        "真是太棒了！",  # words jieba's dictionary holds and tags a name by a guess
        "我明白了，谢谢你",
        "友谊是最珍贵的",
        "我对什么过敏?",
        "我为什么没心情工作?",
        "谢谢你的建议",  # written in the characters of foreign names, but common words
        "我想吃沙拉",
        "我想学英文",  # CC-CEDICT's English (language), not a person
        "我换了一百美金",  # a proper noun written for its sound ("US dollar"), no name
        "文革的时候他还小",  # the Cultural Revolution (1966-1976), dated as people are
        "拜托帮我查一下",
        "What does John like to drink?",  # Latin script is named_words' to read
        "",
    ],
)
def test_words_jieba_only_tags_a_name_are_no_names(text: str) -> None:
    assert chinese_names(text) == []


def test_a_name_keeps_its_last_character_unless_it_is_the_next_word() -> None:
    assert unglued("张三在") == "张三"
    assert unglued("王伟有") == "王伟"  # 有, a verb on its own
    assert unglued("李小红") == "李小红"  # 红, an adjective, ends names
    assert unglued("小红") == "小红"  # two characters are left as they are
    assert unglued("冰淇淋") == "冰淇淋"  # a word of the dictionary is left alone
