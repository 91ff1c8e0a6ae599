"""Whose a memory's notes are: the name most of them begin with.

Notes (turns with no speaker) are the owner's unnamed words unless most of them begin
with one and the same name (:func:`notes_name_their_person`): "Bart在圣诞节晚会上跳舞" is
a note about Bart, as MADial-Bench writes every user's memory (77 of its dev user's 83
notes begin with "Bart"). A name after a short clause of when or where that opens a note
counts as its first ("2023-12-25，Bart在…", "今天，Bart…", "On Monday, Bart…"; what
follows the clause must still be a name, not 我 or 妈妈). A Chinese name counts where
jieba tags it a name (小红) and also where it does not (乐乐, an adjective to jieba;
张婷婷, two words; 冬冬, a time word; 露西, a noun; 思雨, a word its dictionary lacks), as
the same first words, up to a verb or function word, of most notes (:func:`notes_person`).
Words for relatives, friends and pets (妈妈, 老公, 闺蜜, 狗狗) name no one. Such a memory
names its person, and a dialogue of someone it never held (``<Lisa>:``) asks about a
stranger (:mod:`.names`). A memory whose notes mostly begin with "I", "user", 我, no subject at
all, or different names each, keeps its owner unnamed. The cost: an owner who writes
mostly about one friend, by name, and then pastes a conversation under a name of their
own that no note holds.

A Chinese note with no subject at all ("在圣诞节晚会上跳舞，感到非常开心") is the writer's
own, as the language leaves out the subject where it is the speaker
(:func:`begins_without_subject`): a note about the owner, as one that begins with the
notes' person is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from ..textutil import (
    has_cjk,
    in_dictionary,
    leading_cjk_words,
    tagged_words,
    text_cache,
    word_tokens,
)
from .chinese_names import unglued
from .english_verbs import opens_with_a_described_thing, opens_with_verb
from .names import LATIN_WORD, OWNER_WORDS, among_people, nameable
from .transliteration import written_for_sound

__all__ = [
    "begins_in_first_person",
    "begins_with_a_field",
    "begins_with_owners",
    "begins_without_subject",
    "note_begins_with",
    "note_subject",
    "notes_name_their_person",
    "notes_person",
]


def note_subject(text: str) -> str | None:
    """The name a note begins with, if its first word is one: a capitalised word of Latin
    script that is no stop word, no word for the owner, no month or day ("Caroline went
    ...", "Bart在..."), or a Chinese person's name as jieba tags it (``nr``: "小红在..."),
    all the words so tagged that open the note ("莉莎在...": 莉, 莎), and the character
    after one so tagged alone ("梓萱在...": 梓, 萱)."""
    text = text.lstrip(" \t\n\"'“‘「")
    first = LATIN_WORD.match(text)
    if first is not None:
        word = re.sub(r"['’]s$", "", first.group(0))
        return (
            word
            if word[0].isupper()
            and not text[first.end() :].startswith(",")  # "Yesterday, ..." opens a clause
            and nameable(word)
            and word.casefold() not in _NO_ONES_NAME
            and word_tokens(word)  # a stop word ("The", "We") names nobody
            and not opens_with_a_described_thing(text)  # "Favourite food is …"
            else None
        )
    name = ""  # jieba may cut a name it half knows in two, both tagged so (莉莎: 莉, 莎)
    leading = leading_cjk_words(text)
    for word, tag in leading:
        if not tag.startswith("nr") or word in OWNER_WORDS or (not name and word in _NOT_PERSONS):
            break  # 老公 and 宝宝 are names to jieba (李阿姨 is one), and say no one's name
        name += unglued(word)
        if not name.endswith(word):
            break  # the rest of the word was the next one's (张三在: 张三)
    # or cut after its first character, the rest untagged (梓萱: 梓, 萱)
    if len(name) == 1 and len(leading) > 1:
        after, tag = leading[1]
        if len(after) == 1 and not tag.startswith(_NOT_IN_NAMES):
            name += after
    return name or None


_NOT_PERSONS = frozenset(
    {
        "妈妈", "爸爸", "爷爷", "奶奶", "外公", "外婆", "姥姥", "姥爷", "哥哥", "姐姐",
        "弟弟", "妹妹", "老师", "同学", "朋友", "同事", "老板", "老公", "老婆", "丈夫",
        "妻子", "孩子", "儿子", "女儿", "宝宝", "家人", "大家", "邻居", "室友", "男友",
        "女友", "男朋友", "女朋友", "叔叔", "阿姨", "舅舅", "舅妈", "姑姑", "伯伯", "婶婶",
        "表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "班主任", "校长", "医生", "教练",
        "闺蜜", "男票", "女票", "基友", "死党", "发小", "老妈", "老爸", "媳妇", "对象",
        "狗狗", "猫猫", "娃娃",
    }
)  # fmt: skip
"""Words for relatives, roles and pets: notes that mostly begin with 妈妈 (or 狗狗) are
about the owner's mother (or dog), and say nothing of what the owner is called."""
_THE_OWNERS = frozenset(
    {
        "mom", "mum", "dad", "mother", "father", "parents", "wife", "husband", "partner",
        "boyfriend", "girlfriend", "fiance", "fiancé", "fiancee", "fiancée", "son",
        "daughter", "kids", "children", "sister", "brother", "siblings", "grandma",
        "grandpa", "grandmother", "grandfather", "aunt", "uncle", "cousin", "family",
        "boss", "coworker", "colleague", "roommate", "neighbor", "neighbour", "dog",
        "cat", "pet", "pets", "puppy", "kitten", "job", "occupation", "profession",
        "hometown", "home", "birthday", "age", "hobby", "hobbies", "allergy", "allergies",
        "diet", "car", "address", "email", "phone", "nationality", "height", "weight",
    }
)  # fmt: skip
"""English words for the owner's relatives, pets and profile fields: a note that opens
with one, its "my" left out ("Sister is called Anna", "Dog Rex joined the family", "Job:
nurse"), is about what is the owner's and names no one, as 妈妈 names no one above."""
_NO_ONES_NAME = OWNER_WORDS | _THE_OWNERS
"""English words that open a note without naming its person."""
_NOT_IN_NAMES = ("c", "d", "e", "f", "m", "o", "p", "r", "t", "u", "v", "y", "zg")
"""jieba's tags (their first letters) of words no name holds: conjunctions, adverbs,
localities, numerals, prepositions, pronouns, time words, particles, verbs."""
_EVERY = frozenset({"天天", "年年", "月月", "日日", "夜夜", "时时", "处处", "人人", "个个"})
"""Doubled words of how often or how many (every day, everyone) that open notes without
naming anyone, though 天天 is a child's name too."""


_NOUNS = frozenset({"n", "ng", "nt", "ns", "s", "vn"})
"""jieba's tags of common nouns and places (学校, 公园, 北京), which begin notes about
them rather than about a person."""


def _coined(word: str) -> bool:
    """Whether a note's first word is two or three Chinese characters that jieba's
    dictionary does not hold: its HMM put them together, as it does a given name (思雨,
    诗涵, 佳怡), and tagged them by a guess (a noun, a verb), where the common nouns that
    open notes (学校, 猫咪) are words it knows. Not a word for a relative or friend it
    lacks (闺蜜)."""
    return (
        2 <= len(word) <= 3
        and all(has_cjk(ch) for ch in word)
        and not in_dictionary(word)
        and word not in _NOT_PERSONS
    )


def _leading_name(text: str) -> str | None:
    """A note's first words up to its first function word or verb, as a name of two to
    four Chinese characters: what a note about a Chinese name begins with though jieba
    does not tag it ``nr`` (乐乐 is an adjective to it, 朵朵 a measure word, 张婷婷 two
    words, 可可 a verb). Not a common noun or place (学校, 公园), unless doubled as
    children's names are (豆豆), written in the characters of foreign names (露西) or a
    word jieba's dictionary lacks (思雨, :func:`_coined`), nor a word for a relative
    (妈妈); :func:`notes_person` takes it only where most notes begin with the same one."""
    leading = leading_cjk_words(text)
    if leading and _doubled(leading[0][0]) and not leading[0][1].startswith(("d", "r")):
        # a doubled name (可可, 果果; 冬冬 and 晨晨, time words to jieba), whatever jieba
        # takes it for, but for an adverb (常常) or a word of how often (天天, 年年)
        name = leading[0][0]
        return None if name in _NOT_PERSONS | _EVERY else name
    if leading and _coined(first := unglued(leading[0][0])):
        return first  # a name jieba does not know, whatever it guessed it was
    words: list[tuple[str, str]] = []
    for word, tag in leading:
        if tag.startswith(_NOT_IN_NAMES) or not has_cjk(word):
            break
        words.append((word, tag))
    name = "".join(word for word, _ in words)
    if not 2 <= len(name) <= 4 or name in _NOT_PERSONS or name in OWNER_WORDS:
        return None
    foreign = written_for_sound(name) and all(tag == "n" for _, tag in words)
    if any(tag in _NOUNS for _, tag in words) and not foreign:
        return None  # but a foreign name (露西, a common noun to jieba; not 西安, a place)
    return name


_LEAD = re.compile(
    r"(?:\d{4}[-/.年]\d{1,2}[-/.月]|\d{1,2}月)\d{1,2}[日号]?[，,：:\s]*"
    r"|[^，,：:。.!?！？；;\n]{1,16}?[，,：:]\s*|\d[\d\-/.年月日号]*\s+"
)
"""A short clause before a note's subject: when or where ("今天，", "2023-12-25，",
"在元旦晚会上，", "On Monday, ", "2023-12-25 "), up to a comma or colon, or a date and a
space, or a whole date with nothing after it ("2023-12-25Lisa…", "12月25日Lisa…";
:func:`_is_setting` then checks it names no one and does nothing)."""
_PERSONAL = frozenset({"我", "我们", "你", "你们", "他", "她", "他们", "她们", "咱们", "自己"})
_PERSONAL_EN = frozenset({"i", "me", "my", "we", "you", "he", "she", "they", "it", "user"})


def _is_setting(lead: str) -> bool:
    """Whether an opening clause says when or where, not who did what: no verb (but 有
    before a number, 有一天), no personal pronoun or relative ("我在公园里跳舞，", "妈妈说，"
    are not settings); in Latin script, at most four words and no pronoun."""
    text = lead.strip(" \t，,：:")
    if not has_cjk(text):
        words = LATIN_WORD.findall(text)
        return len(words) <= 4 and not any(w.casefold() in _PERSONAL_EN for w in words)
    tagged = tagged_words(text)
    for i, (word, tag) in enumerate(tagged):
        if word in _PERSONAL or word in _NOT_PERSONS or word in OWNER_WORDS:
            return False
        counted = word == "有" and i + 1 < len(tagged) and tagged[i + 1][1].startswith("m")
        if tag.startswith("v") and not counted:
            return False
    return True


@text_cache(maxsize=4096)
def _after_setting(note: str) -> str | None:
    """What follows a short clause of when or where that opens a note (:data:`_LEAD`,
    :func:`_is_setting`), or the time words that open it with no comma after them
    ("昨天Lisa…", "去年夏天Lisa…", by jieba's tag), or None where none does. Cached: both
    ways of finding a name read each note, search after search."""
    text = note.lstrip()
    lead = _LEAD.match(text)
    if lead is not None and _is_setting(lead.group(0)):
        return text[lead.end() :]
    times = 0
    for word, tag in leading_cjk_words(text):
        if not tag.startswith("t"):
            break
        times += len(word)
    return text[times:] if times else None


def _opening_subject(note: str, subject_of: Callable[[str], str | None]) -> str | None:
    """What ``subject_of`` finds at the start of a note, or else after a short clause of
    when or where that opens it ("今天，Bart在公园里放风筝", "2023-12-25，Bart..."): a
    note's person need not be its first word."""
    found = subject_of(note)
    if found is None and (rest := _after_setting(note)) is not None:
        found = subject_of(rest)
    return found


def note_begins_with(note: str, name: str) -> bool:
    """Whether a note (a turn with no speaker) begins with ``name`` (:func:`note_subject`
    or the shared first words :func:`notes_person` reads, in any case), also after a
    short clause of when or where that opens it. A Chinese name need only open the text:
    jieba may cut it apart from the word after it (佳怡和…: 佳, 怡和)."""
    if has_cjk(name) and any(
        text.lstrip().startswith(name) for text in (note, _after_setting(note) or "")
    ):
        return True
    return any(
        subject is not None and among_people(name, [subject])
        for subject in (
            _opening_subject(note, note_subject),
            _opening_subject(note, _leading_name),
        )
    )


_OPENS_NO_SUBJECT = ("v", "p", "c", "d", "zg")
"""jieba's tags (their first letters) of the words a Chinese clause with no subject opens
with: a verb (参加了…), a preposition (在圣诞节晚会上…, 与家人…), a conjunction (和同学们…,
因为…) or an adverb (一直很想要…, 不小心…). Not a verbal noun (``vn``: 工作压力很大 is
about work)."""


def begins_without_subject(note: str) -> bool:
    """Whether a note opens, after any short clause of when or where, with what was done
    rather than who did it ("在圣诞节晚会上跳舞，感到非常开心", "今天，和同学们去了公园";
    "Likes jazz music", "Went to Paris", :func:`.english_verbs.opens_with_verb`): such a
    note leaves out its subject, the writer, so it is the writer's own. A note that opens
    with a name, a pronoun (我, 他, she) or a relative (妈妈) is not."""
    text = (_after_setting(note) or note).lstrip(" \t\n\"'“‘「(")
    leading = leading_cjk_words(text)
    if not leading:
        return LATIN_WORD.match(text) is not None and opens_with_verb(text)
    if _coined(leading[0][0]):  # a name jieba guessed a verb (佳怡)
        return False
    return leading[0][1].startswith(_OPENS_NO_SUBJECT) and leading[0][1] != "vn"


def begins_in_first_person(note: str) -> bool:
    """Whether a Chinese note opens, after any short clause of when or where, with its
    writer: 我, or a word the tokenizer makes of 我 and what follows it (我家的猫…, 我妈…,
    我们…, 昨天我家…). "我喜欢…" shares its 我 with a question about the owner as a
    word; "我家的猫叫咪咪" shared nothing, as 我家 is one word, and was taken for no one's."""
    text = (_after_setting(note) or note).lstrip(" \t\n\"'“‘「(")
    leading = leading_cjk_words(text)
    return bool(leading) and leading[0][0].startswith("我")


_OWNERS = re.compile(r"(?:the\s+)?(?:my|user['’]s)\s", re.IGNORECASE)
"""The owner's possessive opening an English note: "My …", "User's …", "The user's …"."""


def begins_with_owners(note: str) -> bool:
    """Whether an English note opens, after any short clause of when or where, with what
    is the owner's ("My favourite food is sushi", "User's dog is called Rex"), or with
    such a thing, the "my" left out: described ("Favourite food is sushi", "Older sister
    lives in Paris", :func:`.english_verbs.opens_with_a_described_thing`) or a relative,
    a pet or a profile field (:data:`_THE_OWNERS`: "Sister is called Anna"): a note
    about the owner's things, and so about the owner. (我的… and 我家… are the writer's:
    :func:`begins_in_first_person`.)"""
    texts = (note, _after_setting(note) or "")  # "User's job: nurse" is no setting
    openings = [text.lstrip(" \t\n\"'“‘「(") for text in texts]
    return any(
        _OWNERS.match(t) or opens_with_a_described_thing(t) or _opens_with_the_owners(t)
        for t in openings
        if t
    )


def _opens_with_the_owners(text: str) -> bool:
    """Whether an English text opens with a word of :data:`_THE_OWNERS` ("Sister is …",
    "Job: nurse", "Mom's birthday …"; not "Dogs are loyal", "Homework is done")."""
    first = LATIN_WORD.match(text)
    return first is not None and re.sub(r"['’]s$", "", first.group(0)).casefold() in _THE_OWNERS


_FIELD = re.compile(r"(?P<field>[^\W\d_][^:：\n]{0,23}?)\s*[:：](?!//)\s*(?P<value>\S)")
"""A note that opens as a record's field: a name of what is recorded, then a colon."""
_OTHERS = frozenset({"他", "她", "他们", "她们", "你", "你们"})
_SAID = frozenset("说问答道讲")


def begins_with_a_field(note: str) -> bool:
    """Whether a note opens as a record's field ("favorite food: sushi", 职业：老师), as
    an agent keeps a profile (the LangGraph store writes a value's fields so): a record in
    the owner's memory that says whose it is nowhere is the owner's. The field's name is
    no one's: in Latin script, lower case and at most four words (not "Caroline: …", a
    speaker's line); in Chinese, no name jieba tags or guesses and no one else's pronoun
    (not 小明：…, 她：…), and the value is no sentence about someone (not "friend: Anna
    likes tea", "note: she …"). The owner's relatives are the owner's ("sister: Anna",
    妈妈：护士)."""
    text = note.lstrip(" \t\n\"'“‘「(")
    m = _FIELD.match(text)
    if m is None:
        return False
    value = text[m.start("value") :]
    named = note_subject(value)
    if _pronoun_of(value) is not None or (named and value.rstrip(" .;,，。；") != named):
        return False  # "note: she is …", "friend: Anna likes …": someone else's
    field = m["field"].strip()
    if not has_cjk(field):
        words = LATIN_WORD.findall(field)
        return (
            field == field.lower()
            and 0 < len(words) <= 4
            and not any(w in _PERSONAL_EN - {"my", "i", "user"} for w in words)
        )
    if field[-1] in _SAID or any(w[0].isupper() for w in LATIN_WORD.findall(field)):
        return False  # 妈妈说：…, Lisa的日记：…
    return not any(
        (tag.startswith("nr") and word not in _NOT_PERSONS) or word in _OTHERS or _coined(word)
        for word, tag in tagged_words(field)
    )


def _doubled(word: str) -> bool:
    """Whether a word is one Chinese character twice, as children's names often are."""
    return len(word) == 2 and word[0] == word[1] and has_cjk(word)


_HE_OR_SHE = frozenset({"他", "她", "he", "she"})
"""Pronouns of one person besides the speaker and the listener: a note that begins with
one goes on about someone its other notes name."""


def _pronoun_of(note: str) -> str | None:
    """The note's first word where it is he or she (他, 她, "She ..."), also after a short
    clause of when or where: a note with no name of its own."""
    if (leading := leading_cjk_words(note)) and leading[0][0] in _HE_OR_SHE:
        return leading[0][0]
    first = LATIN_WORD.match(note.lstrip(" \t\"'“‘「(["))
    return first.group(0) if first and first.group(0).casefold() in _HE_OR_SHE else None


def notes_person(notes: Sequence[str]) -> str | None:
    """The name most of these notes (turns with no speaker) begin with
    (:func:`note_subject`, case folded; also after a short clause of when or where,
    "今天，Bart..."), or None where most begin with none or with different names.
    Notes that begin with he or she (她在公园里…) are not counted: they go on about the
    person the others name, so a memory written "Lisa…" and "她…" by turns is Lisa's.
    Chinese names jieba does not know are found by what the notes share: the same first
    words (:func:`_leading_name`) in most of them."""
    pronoun: dict[str, bool] = {}  # asked only of notes that begin with no name, once

    def begins_with_a_pronoun(note: str) -> bool:
        if note not in pronoun:
            pronoun[note] = _opening_subject(note, _pronoun_of) is not None
        return pronoun[note]

    for subject_of in (note_subject, _leading_name):
        subjects: Counter[str] = Counter()
        counted = 0  # the notes but those that begin with he or she
        for note in notes:
            if subject := _opening_subject(note, subject_of):
                subjects[subject.casefold()] += 1
            elif begins_with_a_pronoun(note):
                continue
            counted += 1
        if subjects:
            name, count = subjects.most_common(1)[0]
            if 2 * count > counted:
                return name
    return None


def notes_name_their_person(notes: Sequence[str]) -> bool:
    """Whether most of these notes begin with one and the same name
    (:func:`notes_person`): a memory of notes about a named person, whose owner is that
    person, not unnamed."""
    return notes_person(notes) is not None
