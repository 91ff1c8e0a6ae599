"""Whether a name in Latin script and a name in Chinese characters are one name written
in two scripts: Lisa and 丽莎, Bart and 巴特, Tom and 汤姆, Linda and 琳达; and a Chinese name
and its pinyin, Xiaohong and 小红 (:mod:`.pinyin`).

Chinese writes a foreign name by its sound, a syllable for each consonant it hears, with
vowels added where English has none (Bart: 巴特, ba-te). Both names are reduced to the
consonants they are heard with, in order, each as a class of sounds the two languages
trade for one another (b and p; d and t; s, sh, j, ch and the like), and compared:

- English spelling is read by a few rules: c and g before e, i or y are soft, ph is f,
  v and w are one sound (David: 大卫, da-wei), an r before no vowel is silent (Bart,
  Peter: 彼得), h is heard only before a vowel, doubled letters once (Emma).
- A Chinese syllable gives its initial; its final n or ng may stand for an English n or m
  or for nothing (Tom: 汤姆, tang-mu; Linda: 琳达, lin-da), 尔 (er) for an l or r or for
  nothing (Carl: 卡尔), and a syllable without an initial (伊, 娅) for a vowel.
- A name that begins with a vowel must have its Chinese form begin without a consonant
  (Amy: 艾米, not 美美), and at least two sounds must agree.
- Of the vowels, only the name's first is compared, loosely, with the syllable that
  carries it (Lucy: 露西, not 雷佳; Tom: 汤, Mike: 迈 and Jack: 杰 all pass).

The classes are coarse on purpose: a transliteration keeps the consonants, not their
exact sound. Names whose sounds the translator changed by custom (John: 约翰, David: 大卫)
and names of one sound (Mia: 米娅) are not found. Only names of two or more characters,
all of them set aside for foreign names, are compared (:data:`_SOUND_CHARACTERS`):
张伟 and 小明 are Chinese names, whatever they sound like.

Of 72 common English names and their usual forms, 66 are found; of 8,784 pairs of an
English name and a common Chinese name (张伟, 李娜, 小红, 乐乐 and the like), 5 are taken
for one name (Lisa and 雷佳, Lily and 丽丽), all of Chinese names made of characters
that also write foreign ones (``benchmarks/micro/transliteration_pairs.py``).
"""

from __future__ import annotations

import re
from functools import cache

from ..textutil import has_cjk, text_cache
from .pinyin import spelled_in_pinyin, written_in_pinyin

__all__ = ["same_name_in_two_scripts", "written_for_sound"]

Sound = frozenset[str]

_VOWEL = "V"
"""The class of a vowel that begins a name (English) or a syllable with no initial."""
_VOWELS = frozenset("aeiouy")
_SOUND_CHARACTERS: dict[str, str] = dict(
    (entry[0], entry[1:])
    for entry in """
阿a 埃ai 艾ai 爱ai 安an 昂ang 奥ao 澳ao 巴ba 芭ba 拜bai 班ban 邦bang 保bao 鲍bao 贝bei
本ben 比bi 彼bi 毕bi 宾bin 波bo 伯bo 博bo 勃bo 布bu 查cha 达da 大da 妲da 戴dai 黛dai 丹dan
道dao 德de 得de 登deng 迪di 蒂di 丁ding 东dong 杜du 顿dun 多duo 厄e 恩en 尔er 法fa 凡fan
范fan 菲fei 费fei 芬fen 丰feng 冯feng 弗fu 芙fu 福fu 富fu 盖gai 甘gan 冈gang 高gao 戈ge
格ge 葛ge 古gu 圭gui 哈ha 海hai 汉han 翰han 豪hao 赫he 黑hei 亨heng 洪hong 胡hu 华hua
怀huai 惠hui 霍huo 基ji 吉ji 加jia 佳jia 贾jia 杰jie 捷jie 婕jie 金jin 卡ka 凯kai 坎kan
康kang 考kao 柯ke 科ke 克ke 肯ken 库ku 夸kua 奎kui 昆kun 拉la 莱lai 赖lai 兰lan 朗lang
劳lao 勒le 雷lei 蕾lei 黎li 里li 理li 丽li 利li 莉li 莲lian 连lian 廉lian 林lin 琳lin
玲ling 留liu 柳liu 卢lu 鲁lu 路lu 露lu 伦lun 罗luo 洛luo 马ma 玛ma 迈mai 麦mai 曼man
梅mei 美mei 蒙meng 米mi 密mi 敏min 明ming 摩mo 莫mo 默mo 姆mu 穆mu 纳na 娜na 奈nai
南nan 内nei 尼ni 妮ni 涅nie 宁ning 纽niu 努nu 诺nuo 欧ou 帕pa 派pai 潘pan 佩pei 彭peng
皮pi 珀po 普pu 奇qi 琪qi 齐qi 恰qia 乔qiao 琼qiong 丘qiu 瑞rui 萨sa 塞sai 赛sai 桑sang
瑟se 森sen 沙sha 莎sha 珊shan 尚shang 舍she 圣sheng 施shi 史shi 士shi 斯si 丝si 思si
苏su 索suo 塔ta 泰tai 坦tan 汤tang 唐tang 特te 提ti 廷ting 通tong 图tu 托tuo 瓦wa 娃wa
万wan 旺wang 威wei 韦wei 维wei 卫wei 薇wei 温wen 文wen 沃wo 乌wu 伍wu 西xi 希xi 锡xi
席xi 茜xi 夏xia 肖xiao 谢xie 辛xin 欣xin 休xiu 修xiu 雅ya 亚ya 娅ya 扬yang 耶ye 叶ye
伊yi 依yi 因yin 英ying 尤you 于yu 约yue 泽ze 扎zha 詹zhan 珍zhen 治zhi 朱zhu 佐zuo
""".split()
)
"""The characters Chinese writes foreign names with (as in Xinhua's tables for
transliterating names), each with its reading in pinyin: chosen for their sound and
little else, so that a reader knows the name for foreign. A name with a character
outside them (张伟, 小明, 乐乐) is not compared by sound."""
_LATIN_NAME = re.compile(r"[A-Za-z]+(?:[ '\-][A-Za-z]+)*")
_CHINESE_SEPARATORS = re.compile(r"[·•・.\s]+")

_INITIALS = (
    ("zh", "S"), ("ch", "S"), ("sh", "S"), ("b", "P"), ("p", "P"), ("m", "M"), ("f", "F"),
    ("d", "T"), ("t", "T"), ("n", "N"), ("l", "L"), ("g", "K"), ("k", "K"), ("h", "H"),
    ("j", "S"), ("q", "S"), ("x", "S"), ("r", "L"), ("z", "S"), ("c", "S"), ("s", "S"),
    ("w", "W"), ("y", _VOWEL),
)  # fmt: skip
"""Pinyin initials, longest first where one begins another, and the class of each."""

_LATIN_DIGRAPHS = {
    "ph": frozenset("F"),
    "sh": frozenset("S"),
    "ch": frozenset("SK"),  # Charlie: 查理; Michael: 迈克尔
    "ck": frozenset("K"),
    "wh": frozenset("W"),
    "gh": frozenset(),
    "th": frozenset("TS"),  # Thomas: 托马斯; Martha: 玛莎
}
_LATIN_LETTERS = {
    "b": "P", "p": "P", "d": "T", "t": "T", "k": "K", "q": "K", "j": "S", "s": "S",
    "z": "S", "l": "L", "m": "M", "n": "N", "f": "F",
}  # fmt: skip

_NEAR_VOWELS = {
    "a": "ae",  # Amy: 艾米; Jack: 杰克
    "e": "aei",  # Eric: 埃里克; Peter: 彼得
    "i": "aei",  # Mike: 迈克; William: 威廉
    "y": "i",  # Lynn: 林恩
    "o": "aou",  # Tom: 汤姆; Tony: 托尼
    "u": "ou",  # Lucy: 露西
}
"""The vowels of a first Chinese syllable (its first letter after any initial and
medial i or u: 杰 jie, e; 乔 qiao, a) that may stand for the first vowel letter of an
English name."""


def same_name_in_two_scripts(first: str, second: str) -> bool:
    """Whether one of the two names is written in Latin letters and the other in Chinese
    characters, and they sound alike as a name and its transliteration (module docstring)
    or the Latin one spells the Chinese one in pinyin (:mod:`.pinyin`: Xiaohong, 小红).
    A name of several words matches where each word of the name with fewer words matches
    one of the other's (Lisa, 丽莎·辛普森)."""
    if has_cjk(first) == has_cjk(second):
        return False
    latin, chinese = (second, first) if has_cjk(first) else (first, second)
    if not _LATIN_NAME.fullmatch(latin.strip()):
        return False
    if spelled_in_pinyin(latin, chinese.strip()):  # a Chinese name (Xiaohong, 小红)
        return True
    if written_in_pinyin(latin):  # Lin Feng is 林峰 or no one, not 赖宁 by its sound
        return False
    latin_words = [w.casefold() for w in re.split(r"[ '\-]+", latin.strip()) if len(w) > 1]
    chinese_words = [w for w in _CHINESE_SEPARATORS.split(chinese.strip()) if w]
    if not latin_words or not chinese_words or not all(map(written_for_sound, chinese_words)):
        return False
    fewer, more = (
        (latin_words, chinese_words)
        if len(latin_words) <= len(chinese_words)
        else (chinese_words, latin_words)
    )
    return all(any(_sounds_alike(a, b) for b in more) for a in fewer)


def written_for_sound(word: str) -> bool:
    """Whether a word is written wholly in the characters of foreign names, two or more
    (a name of one syllable is too short to tell by sound)."""
    return len(word) >= 2 and all(ch in _SOUND_CHARACTERS for ch in word)


def _sounds_alike(a: str, b: str) -> bool:
    latin, chinese = (b, a) if has_cjk(a) else (a, b)
    return _first_vowels_near(latin, chinese) and _aligned(
        _latin_sounds(latin), _chinese_sounds(chinese)
    )


def _first_vowels_near(latin: str, chinese: str) -> bool:
    """Whether the first vowel of the English name may be heard in the syllable that
    carries it: the first (Lucy and 露西, not Lucy and 雷佳), or the second after two
    consonants that the first syllable splits (Frank: 弗兰克)."""
    word = latin.casefold()
    at = next((i for i, letter in enumerate(word) if letter in _VOWELS), None)
    if at is None:
        return True
    near = _NEAR_VOWELS[word[at]]
    split = at >= 2 and word[:2] not in _LATIN_DIGRAPHS
    return any(_vowel_of(syllable) in near for syllable in chinese[: 2 if split else 1])


def _vowel_of(character: str) -> str:
    """The first vowel of a character's syllable after its initial and any medial i or
    u (杰 jie: e; 乔 qiao: a; 伊 yi: i)."""
    syllable = _SOUND_CHARACTERS[character]
    initial, _ = _initial(syllable)
    final = syllable[len(initial) :] or "i"
    if len(final) > 1 and final[0] in "iu" and final[1] in "aeiou":
        final = final[1:]
    return final[0]


def _initial(syllable: str) -> tuple[str, str]:
    """A pinyin syllable's initial and its class; none and a vowel where it has none."""
    return next(
        ((start, sound) for start, sound in _INITIALS if syllable.startswith(start)),
        ("", _VOWEL),
    )


@text_cache(maxsize=4096)
def _latin_sounds(word: str) -> tuple[Sound, ...]:
    """The consonants an English name is heard with, each as the classes it may be."""
    letters = re.sub(r"(.)\1+", r"\1", word.casefold())  # Emma, Harry: each once
    sounds: list[Sound] = []
    if letters[:1] in _VOWELS:  # Amy: 艾米; Yvonne: 伊冯
        sounds.append(frozenset({_VOWEL}))
    i = 0
    while i < len(letters):
        pair, letter = letters[i : i + 2], letters[i]
        after = letters[i + 1 : i + 2]
        if pair in _LATIN_DIGRAPHS:
            if _LATIN_DIGRAPHS[pair]:
                sounds.append(_LATIN_DIGRAPHS[pair])
            i += 2
            continue
        if letter == "c":
            sounds.append(frozenset({"S"} if after in ("e", "i", "y") else {"K"}))
        elif letter == "g":
            sounds.append(frozenset({"K", "S"} if after in ("e", "i", "y") else {"K"}))
        elif letter == "x":
            sounds += [frozenset({"K"}), frozenset({"S"})]  # Max: 马克斯
        elif letter == "r":
            if after and after in _VOWELS:  # Mary: 玛丽; Bart, Peter: silent
                sounds.append(frozenset({"L"}))
        elif letter == "w":
            if after and after in _VOWELS:  # Andrew: 安德鲁, silent
                sounds.append(frozenset({"W"}))
        elif letter == "v":
            sounds.append(frozenset({"W", "F"}))  # David: 大卫; Oliver: 奥利弗
        elif letter == "h":
            if after and after in _VOWELS and (i == 0 or letters[i - 1] in _VOWELS):
                sounds.append(frozenset({"H"}))  # Harry, Johanna; Sarah: silent
        elif letter in _LATIN_LETTERS:
            sounds.append(frozenset({_LATIN_LETTERS[letter]}))
        i += 1
    return tuple(sounds)


@text_cache(maxsize=4096)
def _chinese_sounds(word: str) -> tuple[tuple[str, bool], ...]:
    """Each syllable's sounds as (class, may be left out): its initial, then its final
    n or ng, which may be left out; 尔 (er) an L that may be; a syllable with no initial
    a vowel, which may be left out but at the start."""
    sounds: list[tuple[str, bool]] = []
    for position, character in enumerate(word):
        syllable = _SOUND_CHARACTERS[character]
        if syllable == "er":
            sounds.append(("L", True))
            continue
        _, sound = _initial(syllable)
        sounds.append((sound, sound == _VOWEL and position > 0))
        if syllable.endswith("n") or syllable.endswith("ng"):
            sounds.append(("N", True))
    return tuple(sounds)


def _aligned(latin: tuple[Sound, ...], chinese: tuple[tuple[str, bool], ...]) -> bool:
    """Whether every English sound meets a Chinese one of its class, in order, and every
    Chinese sound that may not be left out meets an English one; at least two meet."""
    if not latin or not chinese:
        return False

    @cache
    def best(i: int, j: int) -> int:
        """Most sounds met from latin[i:] and chinese[j:], or -1 where they cannot align."""
        if i == len(latin):
            return 0 if all(optional for _, optional in chinese[j:]) else -1
        if j == len(chinese):
            return -1
        found = -1
        sound, optional = chinese[j]
        if optional:
            found = best(i, j + 1)
        # a final n or ng may stand for an English m as well as n (William: 威廉)
        if sound in latin[i] or (optional and sound == "N" and "M" in latin[i]):
            rest = best(i + 1, j + 1)
            if rest >= 0:
                found = max(found, rest + 1)
        return found

    return best(0, 0) >= 2
