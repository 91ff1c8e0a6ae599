"""Whether a name in Latin letters is a Chinese name spelled in pinyin: Xiaohong and 小红,
Zhang Wei and 张伟, Lyu Bu and 吕布.

People in China write their names in Latin letters by pinyin, without tones: in user
names, passports and English conversations. A memory that calls its owner 小红 and a
conversation tagged ``<Xiaohong>`` are the same person's.

- The whole name is compared: its letters, case, spaces, hyphens and apostrophes aside,
  must read each of its characters in turn (Xiaohong, XiaoHong, Xiao-hong). A name of
  several words may put the surname last, as English does (Wei Zhang; Tingting Ouyang
  for 欧阳婷婷).
- Every reading of a character counts, so a surname read apart from its common word
  is found (曾 zeng as well as ceng). ü may be written v, u or yu (吕: Lv, Lu, Lyu).
- A Chinese name of one character is never compared: one syllable is too short to tell.
- A name of two or more words of one syllable each (Lin Feng) is written in pinyin
  (:func:`written_in_pinyin`): a Chinese name, not to be compared as a foreign one.

Pinyin is many characters to one syllable, so Xiaohong is 小红, 晓红 and 小洪 alike: all
are names that someone called Xiaohong may write. A few English names are also a Chinese
name's pinyin (Lina and 李娜, Anna and 安娜), and are taken for one name.

The readings are those of the 8,105 characters a name given in China may be written with
(``pinyin.txt``, made from the Unicode Han Database by ``scripts/pinyin_table.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

__all__ = ["spelled_in_pinyin", "written_in_pinyin"]

_TABLE = Path(__file__).with_name("pinyin.txt")
_SEPARATORS = re.compile(r"[\s'’\-]+")
_LETTERS = re.compile(r"[a-z]+")


@cache
def _readings() -> dict[str, tuple[str, ...]]:
    """Each character's toneless readings, as a name may spell them (read once)."""
    table: dict[str, list[str]] = {}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        syllable, characters = line.split(" ", 1)
        for character in characters:
            table.setdefault(character, []).extend(_spellings(syllable))
    return {character: tuple(dict.fromkeys(said)) for character, said in table.items()}


@cache
def _syllables() -> frozenset[str]:
    return frozenset(said for readings in _readings().values() for said in readings)


def written_in_pinyin(latin: str) -> bool:
    """Whether a name is two or more words of one pinyin syllable each (Lin Feng, Xiao
    Hong): a Chinese name in Latin letters, never a foreign one in its own spelling."""
    words = _SEPARATORS.split(latin.strip().casefold())
    return len(words) > 1 and all(w in _syllables() for w in words)


def _spellings(syllable: str) -> tuple[str, ...]:
    """How a syllable is written without ü: lv (吕) as lv, lu or lyu."""
    if "v" not in syllable:
        return (syllable,)
    return syllable, syllable.replace("v", "u"), syllable.replace("v", "yu")


def spelled_in_pinyin(latin: str, chinese: str) -> bool:
    """Whether ``latin`` spells the Chinese name ``chinese`` (two or more characters, all
    of them with a reading) in pinyin, in its order or, for a name of several words, with
    the surname last (module docstring)."""
    words = [w for w in _SEPARATORS.split(latin.strip().casefold()) if w]
    table = _readings()
    if (
        len(chinese) < 2
        or not words
        or not all(_LETTERS.fullmatch(w) for w in words)
        or not all(ch in table for ch in chinese)
    ):
        return False
    letters = "".join(words)
    orders = [chinese]
    if len(words) > 1:  # the surname last: one character, or two of a name of four
        orders += [chinese[cut:] + chinese[:cut] for cut in (1, 2) if len(chinese) - cut >= cut]
    return any(_spells(letters, [table[ch] for ch in order]) for order in orders)


def _spells(letters: str, syllables: Sequence[tuple[str, ...]], at: int = 0) -> bool:
    """Whether ``letters[at:]`` is one reading of each character in turn."""
    if not syllables:
        return at == len(letters)
    return any(
        letters.startswith(said, at) and _spells(letters, syllables[1:], at + len(said))
        for said in syllables[0]
    )
