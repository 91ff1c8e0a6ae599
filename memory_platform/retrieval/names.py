"""The names a question asks about, and whether a user's memory has ever held them.

"What recipes has Joanna made?" can only be answered from a memory that knows Joanna.
Asked of a memory that never names her, its best matches are other people's recipes:
on LoCoMo dev, 962 of 997 questions asked of another conversation's memory name only
people or places that memory never mentions, against 1 of 760 questions (categories 1-4)
asked of their own (``benchmarks/micro/unknown_names.py``). Relevance takes that as
evidence (:attr:`~.relevance.RelevanceModel.unknown_names`, a shift of the log odds), not
as a rule: a strong enough match still passes the floor.

A name is a capitalised word of Latin script that does not begin a sentence ("Joanna",
"Chicago", "LGBTQ"), possessive dropped, and a run of such words written together ("Jay
Chou", whom the dictionary writes 周杰伦 as a whole); months, weekdays, single letters
and "I" are not names, nor is anything in a sentence where most words are capitalised (a
query an agent wrote in Title Case, "Favourite Food Preferences", names nobody), unless
it is a question that leaves a word of content in lower case ("Is Oscar Melanie's
pet?" names three, not by style). Chinese has no
capitals: a capitalised word of Latin script in a Chinese sentence is a name wherever it
stands ("Lisa喜欢什么?", "我和Lisa去了公园"), and a Chinese name is one jieba's HMM makes
of its characters (:mod:`.chinese_names`: 小芳喜欢喝什么?, 王伟有宠物吗?), a person
CC-CEDICT names (大卫, 周杰伦), or a foreign name written for its sound (汤姆); a given
name it does not tag a name (思雨) is missed, and says nothing.

A query that is a pasted conversation also names its speakers, in any script
(``<Bart>:``, ``小明：``; :func:`speaker_names`), but not the user or the assistant, nor
a label that names nobody ("Speaker 1", "Person A"), and none where the user speaks in it
("User: ...", "ChatGPT: ..." is the owner's own), also under the role of whoever an
assistant talks with (小朋友, "Patient") or numbered apart ("User 2", 用户A). A
tag counts only when one speaker starts two or more lines: labels ("Topic: ...",
"Note: ...") tag a line each. MADial-Bench's dialogues are such conversations: asked of
LoCoMo's memories, whose people all have names, they met 0.00 to 0.58 direct results
each (0.45 for the first conversation, the evaluation's figure) and now meet none;
asked of their own user's memory, which names Bart, nothing changes (recall@10 0.776).

A name counts as known when the lexical index holds it for the user (a speaker field, a
memory's words), in either script as the dictionary writes it (:func:`other_script_names`:
a Chinese question about 汤姆 of a memory that says "Tom", an English one about David of
a memory that says 大卫), or when it is a word of the user's own id: an agent may call its
user by name in a memory that only ever says "I". The rules here read text only; what they need
from the store (is a name held, who the memory's people are, what the owner is
called) :mod:`.people` reads, once a search.

The evidence holds only for a memory whose people all have names, as LoCoMo's speakers
do. Most memories an agent writes speak of their owner as "user", "I" or 我
(``create_memory`` with such a subject, ``add_messages`` turns spoken by ``user`` and
``assistant``, notes with no speaker): the owner's name is then unknown to the memory,
and "What is John's favourite food?" may well ask about the owner. Such a memory's owner
is *unnamed* (:func:`unnamed_speaker`), and a name it never held says nothing, unless
the memory also records what its owner is called: a memory about the owner under a name
topic (:data:`OWNER_NAME_TOPICS`: (我, 名字, 小明), (user, name, Alice)) names the owner,
and a conversation or question about someone else (``<Lisa>:``) is then a stranger's.
Recording a nickname the same way makes it known too.

Notes with no speaker are the owner's unnamed words unless most of them begin with one
and the same name: :mod:`.note_subjects` reads whose they are.

A question naming a stranger is evidence; a pasted conversation of strangers is a
verdict (:func:`strangers_conversation`). Its speakers are who it is about, and a memory
that names its people (speakers, the person its notes begin with, the owner's recorded
name), has none of its speakers among them and hears none of its own people said in it
holds nothing of theirs: no item is a match, however many words the two share, and
whoever else the conversation mentions (a friend both people have). A speaker the memory
only mentions is not one of its people (:func:`among_people`): notes about Lisa that
mention her brother Bart hold nothing of Bart's own conversation. A speaker the
candidates do not show is looked up: a stored turn of theirs, or a stored note that
begins with their name (:func:`.note_subjects.note_begins_with`), makes them one of its
people (a search may reach only the few notes about a friend, whose name then begins
most of them). Such a conversation that does say one of the memory's people is evidence against
every match, as one of strangers that says them is, and as a question naming strangers
is. Between two halves of MADial's dev user, one renamed, a dialogue got 1.30 to 1.75
direct results per question from the other person's half as evidence, none as a verdict.
"Said" reads Chinese as written (``<Lisa>: 我和小红去游泳了`` says 小红, whom no name finder here
would find). The price grows with it: a conversation tagged with a name the memory never
held, asked of its own owner's memory, now finds nothing (recall@10 0.00 on MADial, 0.51
as evidence); recording that name as the owner's, (我, 名字, Lisa), makes it known again
(0.73). So does a tag the memory only mentions (Bart's dialogues tagged with his friend's
name, ``<Jimmy>``: 0.72 when a mention made him known, 0.00 now, 0.73 once recorded).

The owner is itself a name the question and the memory may share. A question in the
first person ("What is my job?") asks about the owner, as "What is Caroline's job?" asks
about Caroline, and a memory about the owner ("user works as a nurse") holds the owner
as "Caroline works as ..." holds Caroline: :func:`asks_about_owner` lets relevance count
that as the shared word it is, whichever words the two use for the owner. Before, an
English question in the first person shared no word with a memory about its own asker
("I", "me" and "my" are stop words), and 用户 in a question was not 我 in a memory.
Chinese 我 counts where the segmenter splits it off, as it always did, not where it is
glued to a verb (counting it in 我会开车吗 let six unrelated memories of a user through
that question; ``benchmarks/micro/owner_questions.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence, Set

from ..builder import ASSISTANT_SUBJECT, SELF_SUBJECT, canonical_subject
from ..layers import MID_TERM_SPEAKER
from ..textutil import (
    ENGLISH_STOP_WORDS,
    has_cjk,
    normalize_name,
    plain_transcript,
    transcript_speakers,
    word_tokens,
)
from ..timeparse import is_calendar_word, without_dates
from .chinese_names import chinese_names
from .gloss import chinese_names_for, english_names
from .pinyin import spelled_in_pinyin
from .transliteration import same_name_in_two_scripts

__all__ = [
    "LATIN_WORD",
    "OWNER_NAME_TOPICS",
    "OWNER_WORDS",
    "NameForms",
    "among_people",
    "asks_about_owner",
    "given_names",
    "nameable",
    "named_words",
    "names_the_owner",
    "names_the_user_id",
    "names_written_otherwise",
    "nicknames",
    "other_script_forms",
    "other_script_names",
    "owner_names",
    "question_names",
    "said_as_person",
    "said_as_place_or_thing",
    "says_name",
    "shared_in_other_script",
    "speaker_names",
    "strangers_conversation",
    "unknown_names",
    "unnamed_speaker",
]

_SENTENCES = re.compile(r"(?<=[.?!。？！])\s+|\n+")
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")
_NAME_RUN = re.compile(r"(?<![A-Za-z'’\-])[A-Z][A-Za-z'’\-]*(?:[ \t]+[A-Z][A-Za-z'’\-]*)+")
"""Capitalised words written together, one space or tab apart ("Jay Chou", "New York")."""
_FIRST_WORD = re.compile(r"[\s\"'“‘「(\[]*[A-Za-z][A-Za-z'’\-]*(?P<after>.?)")
_NOT_NAMES = {"i", "i'm", "i've", "i'd", "i'll", "ok"}
_ROLES = {"human", "system", "bot", "model", "tool", "function", "agent", "narrator", "系统"}
"""Speaker tags that name a role, not a person (LangChain's transcripts say "Human:" and
"AI:"; the user and the assistant are :func:`unnamed_speaker`'s)."""
_SEEKERS = frozenset(
    {
        "child", "kid", "student", "patient", "client", "customer", "visitor", "caller",
        "seeker", "learner", "小朋友", "孩子", "儿童", "学生", "患者", "病人", "顾客",
        "客户", "来访者", "咨询者", "求助者", "访客", "提问者",
    }
)  # fmt: skip
"""Speaker tags that name the role of whoever an assistant talks with (a child, a patient,
a client): the memory's owner, as "User" is, not someone called so."""
_LABELS = frozenset(
    {"speaker", "person", "participant", "说话人", "发言人", "参与者", "角色", "人物"}
)
"""Speaker tags that tell a conversation's people apart without naming them ("Speaker 1",
"Person A"): no one the memory could know by them."""
_ROLE_WORDS = frozenset({*_ROLES, *_SEEKERS, *_LABELS})
"""What a speaker tag numbered apart from others may be without its number."""
_NUMBERED = re.compile(r"(?P<base>.+?)[\s_\-#]*(?:\d+|[A-Za-z]|[一二三四五六七八九十甲乙丙丁])")
"""A speaker tag numbered or lettered apart from the others: User 2, 用户A, Speaker_1."""
_OWNER = re.compile(r"\b(?:i|me|my|mine|myself|user)\b", re.IGNORECASE)
OWNER_NAME_TOPICS = frozenset(
    normalize_name(topic)
    for topic in (
        "name", "full name", "first name", "nickname", "alias",
        "名字", "姓名", "全名", "昵称", "外号", "小名", "别名", "称呼", "英文名", "中文名",
    )
)  # fmt: skip
"""Topics (as :func:`~memory_platform.textutil.normalize_name` folds them) under which a
memory about the owner records what the owner is called: (我, 名字, 小明), (user, name,
Alice), (user, nickname, Al). Such a memory names its owner, whatever else the memory
says of them without a name."""
OWNER_WORDS = frozenset({"user", "我", "用户", "本人"})
"""The words (:func:`~memory_platform.textutil.word_tokens`) that stand for the owner
and are not stop words."""


def nameable(word: str) -> bool:
    """Whether a word may be a name at all: more than one letter, not "I" or "OK", no
    month or day (what every way of finding names here leaves out)."""
    return len(word) > 1 and word.casefold() not in _NOT_NAMES and not is_calendar_word(word)


def named_words(text: str) -> list[str]:
    """The capitalised words of ``text`` that are not the first of their sentence, in
    order, each once, without a possessive "'s"; dates and speaker tags are left out.
    Then each run of two or more of them written together, as one name ("Jay Chou"):
    the dictionary writes 周杰伦 for the whole name, not for its words."""
    found: dict[str, None] = {}
    runs: dict[str, None] = {}
    for sentence in _SENTENCES.split(without_dates(plain_transcript(text))):
        words = LATIN_WORD.findall(sentence)
        begins = bool(words) and _begins_sentence(sentence)
        if begins:
            words = words[1:]
        if _title_case(sentence, words):
            continue  # capitals mark no names here
        for found_word in words:
            word = _name_of(found_word)
            if word[0:1].isupper() and nameable(word):
                found.setdefault(word, None)
        first = LATIN_WORD.search(sentence)
        for run in _NAME_RUN.finditer(sentence):
            parts = [_name_of(part) for part in run.group().split()]
            if begins and first is not None and run.start() == first.start():
                parts = parts[1:]
            if len(parts) >= 2 and all(nameable(part) for part in parts):
                runs.setdefault(" ".join(parts), None)
    return [*found, *runs]


def _title_case(sentence: str, words: Sequence[str]) -> bool:
    """Whether a sentence capitalises most of its words (not counting its first), as a
    query an agent wrote in Title Case does ("User Favourite Food Preferences", "WHAT DID
    JOANNA COOK?"), so that capitals mark no names in it. Not a question that leaves a
    word of content in lower case: "Is Oscar Melanie's pet?" and "How was John's
    experience in New York City?" capitalise most words because they name three people
    or places, not by style. Nor a Chinese sentence, whose Latin words are names wherever
    they stand ("Lisa和Tom和Jack喜欢什么？")."""
    if len(words) < 3 or 2 * sum(w[0].isupper() for w in words) <= len(words):
        return False
    if has_cjk(sentence):
        return False
    lower = [w for w in words if w[0].islower() and w.lower() not in ENGLISH_STOP_WORDS]
    return not (lower and sentence.rstrip().endswith(("?", "？")))


def _name_of(word: str) -> str:
    """A capitalised word as a name: without a possessive "'s" or quotes around it."""
    return re.sub(r"['’]s$", "", word).strip("'’-")


def _begins_sentence(sentence: str) -> bool:
    """Whether a sentence begins with a word of Latin script that its capital may owe to
    its place: English ("What did Lisa eat?"), not Chinese, whose sentences capitalise
    nothing ("Lisa喜欢什么?", "我和Lisa去了公园": Lisa is a name either way)."""
    m = _FIRST_WORD.match(sentence)
    return m is not None and not has_cjk(m["after"])


def speaker_names(text: str) -> list[str]:
    """The people a pasted conversation is between (its speaker tags, in any script),
    less the user, the assistant and other roles ("Human:", "System:") and what no name
    is: a single letter ("Q:", "A:"), a day or a month ("Monday:"). None at all where the
    owner speaks in it ("User:", "Me:", "Human:", 我：): the owner's own conversation is
    the owner's, whoever else is in it ("User: ...", "ChatGPT: ...")."""
    speakers = transcript_speakers(text)
    if any(_owner_speaks(speaker) for speaker in speakers):
        return []
    return [
        speaker
        for speaker in speakers
        if nameable(speaker)
        and _role(speaker).casefold() not in _ROLES | _LABELS
        and not unnamed_speaker(speaker)
    ]


def _owner_speaks(speaker: str) -> bool:
    """Whether a speaker tag stands for the memory's owner: a word for the user, or for
    the role of whoever an assistant talks with (a child, a patient), or LangChain's
    "Human", also numbered apart from others ("User 2", 用户A)."""
    role = _role(speaker)
    return role.casefold() in _SEEKERS | {"human"} or canonical_subject(role) == SELF_SUBJECT


def _role(speaker: str) -> str:
    """A speaker tag without the number or letter that tells it apart from others where
    what is left is a role or a label (User 2: User; Speaker_1: Speaker; 用户A: 用户), else
    the tag as it is (Bart, not Bar and t)."""
    m = _NUMBERED.fullmatch(speaker.strip())
    if m is None:
        return speaker
    base = m["base"]
    if base.casefold() in _ROLE_WORDS or canonical_subject(base) in (
        SELF_SUBJECT,
        ASSISTANT_SUBJECT,
    ):
        return base
    return speaker


def question_names(query: str) -> list[str]:
    """The names a question asks about: its capitalised words (:func:`named_words`), its
    names in Chinese characters (:func:`.chinese_names.chinese_names`: 小芳喜欢喝什么？,
    汤姆有宠物吗？) and, for a pasted conversation, its speakers
    (:func:`speaker_names`), each once."""
    said = chinese_names(plain_transcript(query))
    return list(dict.fromkeys(named_words(query) + said + speaker_names(query)))


def names_the_owner(name: str, owner_name_memories: Iterable[str]) -> bool:
    """Whether ``name`` is what the owner is called in one of these texts (memories about
    the owner under a name topic, :data:`OWNER_NAME_TOPICS`): all its words stand there."""
    tokens = set(word_tokens(name))
    return bool(tokens) and any(tokens <= set(word_tokens(text)) for text in owner_name_memories)


def unknown_names(
    query: str,
    user_id: str,
    documents: Iterable[str],
    known_to_memory: Callable[[str], bool],
    *,
    asked: Sequence[str] | None = None,
) -> bool:
    """Whether ``query`` names something and none of its names is known to the user's
    memory. ``documents`` are texts already at hand (the search's candidates): a name
    found in one needs no lookup; ``known_to_memory`` asks the store about the rest.
    ``asked`` are the query's :func:`question_names` where the caller has them already."""
    asked = question_names(query) if asked is None else asked
    names = [(name, set(word_tokens(name))) for name in asked]
    names = [(name, tokens) for name, tokens in names if tokens]  # "The" is no name
    if not names:
        return False
    seen = {t for document in documents for t in word_tokens(document)}
    return not any(
        names_the_user_id(name, user_id) or tokens <= seen or known_to_memory(name)
        for name, tokens in names
    )


def names_the_user_id(name: str, user_id: str) -> bool:
    """Whether ``name`` is a word of the user's own id ("bart" in ``bart-42``), or a
    Chinese name the id spells in pinyin (小红, ``xiaohong-42`` or ``xiao_hong``): an agent
    may call its user by name in a memory that only ever says "I"."""
    words = word_tokens(user_id.replace("_", " ").replace("-", " "))
    tokens = set(word_tokens(name))
    if tokens and tokens <= set(words):
        return True
    if not has_cjk(name):
        return False
    spelled = [w for w in words if w.isascii() and w.isalpha()]
    if len(spelled) > 1:  # xiao_hong
        spelled.append("".join(spelled))
    return any(spelled_in_pinyin(w, form) for w in spelled for form in (name, *given_names(name)))


def among_people(name: str, people: Iterable[str]) -> bool:
    """Whether ``name`` is one of ``people`` (what a memory calls its people,
    :func:`strangers_conversation`): the same name in any case; for names in Latin
    script, the words of one within the other's ("Caroline", "Caroline Smith"); for
    Chinese names, a given name and the full name that ends with it after a surname of
    one or two characters (小红, 李小红; 婷婷, 欧阳婷婷), and a name and a nickname made of
    its last character (张伟, 小伟; 李晓红, 红红); a name in Latin script and its
    transliteration in Chinese characters (Lisa, 丽莎; :mod:`.transliteration`), and a
    Chinese name, or its given name, and its pinyin (Xiaohong; 小红 or 李小红). A number
    that ends a name tells two of one name apart, not two names: Bart1 is Bart."""
    name = _unnumbered(name)
    folded, tokens = name.casefold(), set(word_tokens(name))
    for person in map(_unnumbered, people):
        if person.casefold() == folded:
            return True
        if has_cjk(name + person):
            if (
                _given_and_full(name, person)
                or _given_and_full(person, name)
                or _in_two_scripts(name, person)
            ):
                return True
            continue
        theirs = set(word_tokens(person))
        if tokens and theirs and (tokens <= theirs or theirs <= tokens):
            return True
    return False


_NUMBER_AFTER = re.compile(r"(?<=[^\W\d_])\d+$")
"""Digits glued to the end of a name (Bart1, 小红2), which number people of one name."""


def _unnumbered(name: str) -> str:
    """``name`` without the digits glued to its end (Bart1: Bart); a name of digits alone
    stays as it is."""
    return _NUMBER_AFTER.sub("", name.strip())


def _in_two_scripts(name: str, person: str) -> bool:
    """Whether one name is in Latin script and the other in Chinese characters, and the
    Latin one writes the Chinese one, or the given name of a Chinese full name (Xiaohong,
    李小红): by their sounds (:func:`.transliteration.same_name_in_two_scripts`), or as the
    dictionary pairs them (:func:`other_script_names`: John, 约翰)."""
    latin, chinese = (person, name) if has_cjk(name) else (name, person)
    if any(same_name_in_two_scripts(latin, form) for form in (chinese, *given_names(chinese))):
        return True
    folded = latin.strip().casefold()
    return any(n.casefold() == folded for n in english_names(chinese))


def other_script_names(name: str) -> list[str]:
    """The same name in the other of Latin script and Chinese characters, as CC-CEDICT
    writes it (:func:`.gloss.english_names`, :func:`.gloss.chinese_names_for`): Tom for
    汤姆, 大卫 for David, 约翰 for John. The sound rules of :mod:`.transliteration` compare
    two names at hand; this gives the other to look for, also where custom changed its
    sound (约翰, 大卫). None for a name the dictionary does not hold (丽莎, Bart, 小红)."""
    return english_names(name) if has_cjk(name) else chinese_names_for(name)


def names_written_otherwise(names: Sequence[str], documents: Sequence[str]) -> tuple[str, ...]:
    """The ``names`` that ``documents`` may say in the other script: those the dictionary
    writes in it (:func:`other_script_names`), asked only where a document is written in
    that script (Chinese characters for a name in Latin script, a Latin letter for a
    Chinese one), so that a memory of one language reads no table of the other."""
    chinese = [name for name in names if has_cjk(name)]
    latin = [name for name in names if not has_cjk(name)]
    if chinese and not any(LATIN_WORD.search(document) for document in documents):
        chinese = []
    if latin and not any(map(has_cjk, documents)):
        latin = []
    looked_up = {*chinese, *latin}
    return tuple(name for name in names if name in looked_up and other_script_names(name))


NameForms = tuple[frozenset[str], tuple[frozenset[str], ...]]
"""A name's words as asked, and the words of each of its forms in the other script."""


def other_script_forms(names: Iterable[str]) -> list[NameForms]:
    """Each name's words and the words of its forms in the other script
    (:func:`other_script_names`): looked up once a search, not once a candidate."""
    return [
        (frozenset(word_tokens(name)), tuple(frozenset(word_tokens(f)) for f in forms))
        for name in names
        if (forms := other_script_names(name))
    ]


def shared_in_other_script(names: Iterable[NameForms], words: Set[str], document: Set[str]) -> int:
    """How many of a question's ``words`` are a name of ``names`` (the question's, with
    their forms from :func:`other_script_forms`) that the ``document``'s words say only in
    the other script ("What food does Tom love?" and 汤姆很喜欢吃寿司): the same word,
    written otherwise, as relevance counts it (:func:`.relevance.matched_words`). A name's
    words must all be among the question's, and one of its other forms' words all among
    the document's."""
    shared = 0
    for said, forms in names:
        if not said or not said <= words or said & document:
            continue
        if any(form and form <= document for form in forms):
            shared += len(said)
    return shared


def _given_and_full(given: str, full: str) -> bool:
    """Whether ``full`` is a Chinese name of ``given`` after a surname of one or two
    characters (李小红 of 小红), or ``given`` a nickname of it (张伟 of 小伟), both names of
    Chinese characters only."""
    return given in given_names(full) or given in nicknames(full)


def given_names(name: str) -> list[str]:
    """What a Chinese full name may be called without its surname of one or two
    characters, at least two characters left (李小红: 小红; 欧阳婷婷: 阳婷婷, 婷婷); none for
    any other name."""
    if not all(has_cjk(ch) for ch in name):
        return []
    return [name[cut:] for cut in (1, 2) if len(name) - cut >= 2]


_NICKNAME_PREFIXES = ("小", "阿")
"""What a Chinese nickname puts before the last character of a name (张伟: 小伟, 阿伟)."""


def nicknames(name: str) -> list[str]:
    """The nicknames a Chinese name of two or three characters makes of its last
    character (张伟: 小伟, 阿伟, 伟伟; 李晓红: 小红, 阿红, 红红); none for any other name.
    Only names are compared with them (a speaker's, one a question asks about), never
    running text: there 红红 is as often "red"."""
    if len(name) not in (2, 3) or not all(has_cjk(ch) for ch in name):
        return []
    last = name[-1]
    forms = [f"{prefix}{last}" for prefix in _NICKNAME_PREFIXES] + [last * 2]
    return [form for form in forms if form != name]


def unnamed_speaker(speaker: str | None) -> bool:
    """Whether a turn of this speaker comes from the memory's owner, or the owner's
    assistant or summaries, without the owner's name: no speaker at all, a word for the
    user ("user", "I", 我) or for the assistant, or a mid-term summary; also the role of
    whoever an assistant talks with (a child, a patient) and a label that names nobody
    ("Speaker 1"), each also numbered apart ("User 2", 用户A)."""
    if speaker is None or not speaker.strip() or speaker == MID_TERM_SPEAKER:
        return True
    role = _role(speaker)
    return role.casefold() in _SEEKERS | _LABELS or canonical_subject(role) in (
        SELF_SUBJECT,
        ASSISTANT_SUBJECT,
    )


def asks_about_owner(question: str, words: Set[str]) -> bool:
    """Whether a question asks about the memory's owner: in the first person in English
    (I, me, my: stop words, not among its ``words``) or with a word for the user among
    its ``words`` (user, 用户, 我, 本人; 我 only where the segmenter splits it off)."""
    return bool(words & OWNER_WORDS) or bool(_OWNER.search(question))


_SOMEONES_PLACE = "家那这身旁"
"""What follows a person after 在, 去, 到 or 从 to make a place of them: 在露西家, 去露西那里,
在露西身边, 从露西那里 (not 的: 在达拉斯的时候, while in Dallas)."""
_GONE = (
    r"go|goes|going|went|gone|been|come|came|travel\w*|trips?|flights?|flew|fly|flying|"
    r"drive|drove|driving|move|moved|moving|holidays?|vacations?|journeys?"
)
"""English words of going somewhere: a name after them and "to" is a place's ("my trip
to Dallas", "When did I fly to Dallas?"; not "What did I say to Charles?")."""
_FROM_A_PLACE = (
    r"travel\w*|trips?|flights?|flew|fly|flying|drive|drove|driving|move|moved|moving|"
    r"order|ordered|ordering|orders|graduate|graduated|graduating|shipped"
)
"""Words after which "from" is said of a place, a shop or a school ("my flight from
Dallas", "What did I order from Walmart?", "graduated from Harvard"; not "got", "came" or
"heard from", which people give, come and speak too)."""
_DETERMINERS = "a|an|the|my|our|your|their"
"""Words before a noun that a person's name does not take ("my Dell laptop", "the
Dallas trip"; not "her", which is also whom: "Did I tell her Charles was ill?")."""
_PLACE_BEFORE_CJK = "[在去到从]"
_PLACE_BEFORE = rf"\b(?i:in|(?:{_GONE})\s+to|(?:{_FROM_A_PLACE})\s+from|{_DETERMINERS})\s+"


_AIMED_AT = frozenset(
    "look looked looking looks stare stared staring laugh laughed laughing smile smiled "
    "smiling yell yelled yelling shout shouted shouting angry mad upset annoyed furious "
    "cross wave waved waving point pointed pointing glance glanced grin grinned frown "
    "frowned wink winked nod nodded snap snapped swear swore hint hinted".split()
)
"""Words after which "at" aims at someone ("Did I laugh at Charles?"), not at a place."""


def _not_whose(name: str) -> str:
    """A pattern of ``name`` as a whole word and not as whose something is ("Charles's")."""
    return rf"{re.escape(name)}\b(?!['’]s\b)"


def said_as_place_or_thing(query: str, name: str) -> bool:
    """Whether ``query`` says ``name`` where only a place or a thing can be, not as whose
    it is ("in Charles's car"): right after "in" ("What did I eat in Dallas?"), "at" but
    for a word that aims it at someone ("What did I study at Harvard?", not "Did I laugh
    at Charles?"), a word of going and "to" ("my trip to Dallas"), a word of travelling,
    ordering or graduating and "from" ("my flight from Dallas", "What did I order from
    Walmart?") or a determiner ("my Dell laptop"), or after 在, 去, 到 or 从 and not
    before 家, 那里 or the like (我在达拉斯吃了什么, 我从达拉斯带回了什么, not
    我在露西家吃了什么 or 我从露西那里拿了什么): people are not in anything, gone to, or
    had."""
    if has_cjk(name):
        pattern = rf"{_PLACE_BEFORE_CJK}{re.escape(name)}(?![{_SOMEONES_PLACE}])"
        return re.search(pattern, query) is not None
    named = _not_whose(name)
    if re.search(rf"{_PLACE_BEFORE}{named}", query):
        return True
    return any(
        (said.group(1) or "").lower() not in _AIMED_AT
        for said in re.finditer(rf"(?:\b(\w+)\s+)?\b(?i:at)\s+{named}", query)
    )


_KIN = (
    r"friends?|brother|sister|mom|mum|mother|dad|father|son|daughter|wife|husband|"
    r"boyfriend|girlfriend|partner|fianc[eé]e?|cousin|uncle|aunt|nephew|niece|grandma|"
    r"grandpa|grandmother|grandfather|colleague|co-?worker|boss|neighbou?r|roommate|"
    r"classmate|teacher|coach|doctor|therapist|buddy|pal|kid|child"
)
"""Words for the people one has: a name after them is a person's ("my friend Noah")."""
_DONE_TO_PEOPLE = (
    r"told|tell|tells|telling|asked|ask|asks|asking|met|meet|meets|meeting|texted|text|"
    r"invited|invite|thanked|thank|hugged|hug|married|marry|dated|kissed|kiss|"
    r"helped|help|babysat|babysit"
)
"""Verbs whose object is a person: "What did I tell Noah?" (not "visited", which places
take too)."""
_DONE_BY_PEOPLE = (
    r"said|says|say|told|tells|tell|asked|asks|ask|thinks|thought|think|likes|liked|loves|"
    r"loved|wants|wanted|want|gave|gives|give|bought|buy|cooked|cook|recommended|recommend|"
    r"suggested|suggest|invited|invite|called|calls|call|texted|texts|text|visited|visits|"
    r"visit|sent|sends|send|brought|brings|bring|helped|helps|help"
)
"""Verbs whose subject is a person ("Noah said", "What did Noah say?", "Did Noah call
me?"; not "like", as in "What is Paris like?")."""
_PERSON_BEFORE = (
    rf"(?:(?<!love )(?<!familiar )(?<!obsessed )\bwith|\b(?:{_DONE_TO_PEOPLE})|"
    rf"\b(?:{_KIN})|\b(?:me|I)\s+and)"
)
_PERSON_AFTER = rf"(?:\s+and\s+(?:I|me)\b|\s+(?:{_DONE_BY_PEOPLE})\b)"
_PERSON_BEFORE_CJK = "(?:跟|同|与|告诉|问|朋友|同事|同学|哥哥|姐姐|弟弟|妹妹|妈妈|爸爸)"
_PERSON_AFTER_CJK = "(?:说|告诉|问|送|一起)"


def said_as_person(query: str, name: str) -> bool:
    """Whether ``query`` says ``name`` where only a person can be, whatever the
    dictionary makes of the name (jieba tags 挪亚, Noah, a place; CC-CEDICT says Florence is
    a city): after "with" (not "in love with"), a verb done to people ("What did I tell
    Noah?") or a word for one's people ("my friend Noah", "me and Noah"), or before "and
    I" or a verb people do ("Noah said"); in Chinese after 跟, 告诉, 问 or a word for one's
    people (朋友海迪), or before 说, 告诉, 问, 送 or 一起 (和海迪一起; not 和 alone, which
    joins places too: 在北京和上海)."""
    if has_cjk(name):
        named = re.escape(name)
        pattern = rf"{_PERSON_BEFORE_CJK}{named}|{named}{_PERSON_AFTER_CJK}"
        return re.search(pattern, query) is not None
    named = _not_whose(name)
    before = rf"(?i:{_PERSON_BEFORE})\s+{named}"
    after = rf"\b{re.escape(name)}(?i:{_PERSON_AFTER})"
    return re.search(before, query) is not None or re.search(after, query) is not None


def owner_names(owner_name_memories: Iterable[str]) -> list[str]:
    """What the owner is called in these texts (memories about the owner under a name
    topic, :data:`OWNER_NAME_TOPICS`): their words less the words for the owner and the
    topics ("我 名字 小芳" calls the owner 小芳)."""
    found: dict[str, None] = {}
    for text in owner_name_memories:
        for word in word_tokens(text):
            if word not in OWNER_WORDS and normalize_name(word) not in OWNER_NAME_TOPICS:
                found.setdefault(word, None)
    return list(found)


def says_name(query: str, name: str) -> bool:
    """Whether ``query`` says ``name`` anywhere, in either script as the dictionary
    writes it (:func:`other_script_names`: Tom said as 汤姆): a Chinese name as it is
    written (the segmenter may glue it to the next word, 小红去), any other as its words
    in any case."""
    return any(_says(query, form) for form in (name, *other_script_names(name)))


def _says(query: str, name: str) -> bool:
    if has_cjk(name):  # a full name is said by its given name too (李小红: 小红)
        return any(form in query for form in (name, *given_names(name)))
    tokens = set(word_tokens(name))
    return bool(tokens) and tokens <= set(word_tokens(query))


def strangers_conversation(query: str, person_names: Iterable[str]) -> bool:
    """Whether ``query``, whose speakers are already found not to be the memory's people
    (never held, :func:`unknown_names`, or only mentioned, :func:`among_people`), is a
    conversation of strangers: pasted with its speakers (:func:`speaker_names`), and
    saying none of the names the memory calls its people (``person_names``: speakers,
    :func:`.note_subjects.notes_person`, :func:`owner_names`), which a conversation in
    Chinese may say without any name being found in it
    ("<Lisa>: 我和小红去游泳了"). Others it mentions do not count: a friend both people
    have makes the conversation no less a stranger's."""
    return bool(speaker_names(query)) and not any(says_name(query, n) for n in person_names)
