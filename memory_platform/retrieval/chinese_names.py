"""Names in Chinese text as jieba reads them: a name it does not know, a person
CC-CEDICT names, a foreign name written for its sound, and the characters its HMM glues
to a name.

Chinese has no capitals, so the rule that finds names in English ("What does John like
to drink?") finds none in "小芳喜欢喝什么？". jieba's tag ``nr`` (a person's name) alone
is no better: it tags 太棒了, 明白, 友谊 and 冰淇淋 so, words its dictionary holds and
that it tags by a guess. A name it does not know is put together by its HMM from the
characters and tagged ``nr``: 小芳, 张三, 陈静 (:func:`chinese_names` takes those that
begin as Chinese names do, with a common surname or 小, 阿, 老). A word CC-CEDICT holds
first as a person's name is one whatever jieba tags it (:func:`.gloss.person_name`:
大卫 "David (name)", a noun to jieba; 苏珊, a place; 周杰伦 "Jay Chou (1979-)"), not
英文 ("English (language)") or 巴黎 (a place). A foreign name is written in the
characters kept for sounds (:mod:`.transliteration`), as 谢谢 and 沙拉 happen to be too:
of those jieba tags a name, the ones CC-CEDICT holds only as proper nouns are names (约翰
is John, where 谢谢 is "thank"), and so are those it lacks that jieba tags a
transliterated name or made of their characters (丽莎, 艾玛), and a common noun to jieba
that CC-CEDICT writes only as a name in Latin script (露西, Lucy). A character glued to
either end of a name is cut off (艾玛住, 和玛丽). Of thirty common foreign names (约翰,
露西, 詹姆斯, 杰西卡, …), each asked about in five questions, that finds 28 in "…最近怎么样?",
"…住在哪里?", "…喜欢吃什么？" and "你知道…的生日吗？" and 27 in "我和…去了公园" (26 and 25
before 露西 was read and places glossed by their names, which made 海伦 a county's,
2026-11-29). Missed: 查理, a verb to jieba; 艾伦, a name jieba holds and CC-CEDICT lacks
(taken as 丽莎 is, such words made 20 more words of strangers' reviews names, 保修卡, 米汤
and 富豪 among them); 琳达 where jieba cuts it in two (我和琳 / 达).
Given names alone it tags otherwise (思雨, 婷婷) are not found either: a name missed says
nothing, as it did before.

In MADial-Bench's 76 dev dialogues this finds 小明, 小红 and 阿黄 (a dog), one dialogue
each, and 辛普森 and 奥特曼 (the Simpsons, Ultraman), which the memory holds; of 11,864
sentences of strangers' reviews (``zh_off_topic.py``'s corpus), 258 hold a word it takes
for a name (127 words, most of them names or brands: 余华, 张爱玲, 惠普, 索尼; 230 and
116 before the dictionary's people). Places and brands are names here as "Chicago" and
"Sony" are in English. A word taken for a name weighs only where the memory names its
owner and holds none of the question's names (:mod:`.names`), in either script
(:func:`.names.other_script_names`)."""

from __future__ import annotations

from ..textutil import has_cjk, in_dictionary, tagged_words, text_cache
from .gloss import english_names, person_name, proper_noun
from .transliteration import written_for_sound

__all__ = ["chinese_names", "unglued"]

SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林高罗郑梁谢宋唐许韩邓冯曹彭曾肖田董潘袁蔡蒋"
    "余于杜叶程魏苏吕丁任卢姚沈钟姜崔谭陆范汪廖石金韦贾夏付傅方邹熊白孟秦邱侯江尹薛"
    "闫段雷龙黎史陶贺毛郝顾龚邵万覃武钱戴严欧莫孔向常汤康易乔赖文施洪辛柯庄温牛樊葛"
    "邢安齐伍"
)
"""The commonest surnames (about nine in ten people carry one of them), the first
characters of Chinese names. Rarer surnames are missed, which costs nothing but the
evidence."""
_FAMILIAR = frozenset("小阿老")
"""What a familiar name puts before a given name (小芳, 阿强, 老王)."""
_GLUED = frozenset("在和与跟去要想说给是对从把被都也又还就的很")
"""Characters jieba's HMM glues to the end of a name it does not know (张三在, 李华去,
王五说, 思雨要): a preposition, conjunction, adverb or common verb after the subject."""
_GLUED_TAGS = ("v", "p", "d", "c", "u")
"""jieba's tags (their first letters) of a character that, glued to the end of a word its
dictionary lacks, is the next word: a verb (王伟有, 小丽住, 张三买), a preposition, an
adverb, a conjunction, a particle. Not an adjective or noun, which end names (李小红,
张鹏飞)."""

_LEADING_TAGS = ("c", "p")
"""jieba's tags (their first letters) of a character its HMM glues to the start of a name
it does not know: a conjunction or preposition before it (和小红, 跟小丽)."""


def _tag_alone(character: str) -> str:
    """jieba's tag of a character read on its own."""
    return tagged_words(character)[0][1]


def unglued(word: str) -> str:
    """A word jieba's dictionary does not hold, without the character its HMM glued to
    the end of it (张三在: 张三; 王伟有: 王伟), where two characters or more are left:
    one of :data:`_GLUED`, or a verb, preposition, adverb, conjunction or particle on its
    own. A name is then read as it is said in "王伟的猫" and in "王伟有猫吗"."""
    if len(word) < 3 or in_dictionary(word):
        return word
    last = word[-1]
    if last in _GLUED or _tag_alone(last).startswith(_GLUED_TAGS):
        return word[:-1]
    return word


def chinese_names(text: str) -> list[str]:
    """The Chinese names in ``text``, in order, each once, without a character glued to
    their end (:func:`unglued`) or a conjunction or preposition glued to their start
    (和小红: 小红): words CC-CEDICT holds first as a person's name
    (:func:`.gloss.person_name`), foreign names written for their sound
    (:func:`_foreign_name`), and words jieba tags ``nr`` that its dictionary does not hold
    (so its HMM made them of their characters), of two or three Chinese characters
    beginning with a common surname or 小, 阿, 老 (:data:`SURNAMES`, :data:`_FAMILIAR`)."""
    if not has_cjk(text):
        return []
    found: dict[str, None] = {}
    for word, tag in tagged_words(text):
        name = _name_of(word, tag)
        if name is not None:
            found.setdefault(name, None)
    return list(found)


@text_cache(maxsize=16_384)
def _name_of(word: str, tag: str) -> str | None:
    """The name a word jieba tagged ``tag`` is (:func:`chinese_names`), or None. Cached:
    a search asks it of every word of its question, and a dialogue has hundreds."""
    if len(word) < 2 or not tag.startswith("n") or not has_cjk(word):
        return None  # a name is a noun to jieba, of two characters or more
    coined = word
    if len(word) >= 3 and _tag_alone(word[0]).startswith(_LEADING_TAGS):
        coined = word[1:]  # 和小红: the conjunction before the name, glued to it
    for name in dict.fromkeys((unglued(word), unglued(coined))):  # 艾玛住, 和玛丽: either end
        if person_name(name) or _foreign_name(name, tag):
            return name
    if tag != "nr" or in_dictionary(coined):
        return None
    name = unglued(coined)
    if (
        2 <= len(name) <= 3
        and all(has_cjk(ch) for ch in name)
        and (name[0] in SURNAMES or name[0] in _FAMILIAR)
    ):
        return name
    return None


_NAME_TAGS = ("nr", "nrt")
"""jieba's tags of a person's name and of a transliterated one."""


def _foreign_name(word: str, tag: str) -> bool:
    """Whether a word jieba tags a name is a foreign name written for its sound (约翰,
    汤姆, 艾玛; :func:`.transliteration.written_for_sound`): one CC-CEDICT holds only as a
    proper noun (:func:`.gloss.proper_noun`: 汤姆 is Tom, where 谢谢 and 沙拉, written in the
    same characters, are common words), or, where it does not hold it, one jieba tags a
    transliterated name (丽莎) or made of its characters (艾玛). A common noun to jieba is
    one where CC-CEDICT gives it only a name in Latin script (露西: Lucy; not 美金, "US
    dollar", a proper noun but no name, nor 沙拉)."""
    if not written_for_sound(word):
        return False
    if tag not in _NAME_TAGS:
        return tag == "n" and bool(english_names(word))
    proper = proper_noun(word)
    if proper is not None:
        return proper
    return tag == "nrt" or not in_dictionary(word)
