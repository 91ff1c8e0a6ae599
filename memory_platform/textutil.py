"""Text normalisation and tokenisation shared by every lexical index.

Chinese has no spaces, and a segmenter's words do not always meet the words of a
question, so a CJK run gives three kinds of tokens: jieba's words (search mode,
overlapping; segmented by ``rjieba``, the Rust port with jieba's dictionary, which splits
exactly as jieba 0.42 does but loads in a fifth of the time and half the memory), its
character bigrams (robust to segmentation, the standard for Chinese
BM25) and its single characters (so 困 still finds 很困). Latin words are lower-cased,
lose their accents (café and cafe are one word) and are lightly stemmed. Documents and
queries go through the same function, so both backends index and search exactly the same
tokens; a store records :func:`lexical_signature` to know whether its documents were.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from functools import _lru_cache_wrapper

__all__ = [
    "CJK_RUN",
    "ENGLISH_STOP_WORDS",
    "clear_text_caches",
    "distinctive_terms",
    "english_stem",
    "fts_query",
    "has_cjk",
    "in_dictionary",
    "leading_cjk_words",
    "lexical_signature",
    "lexical_tokens",
    "mentions",
    "normalize_name",
    "opening_tag",
    "plain_transcript",
    "tagged_words",
    "text_cache",
    "tokens_document",
    "transcript_speakers",
    "user_token",
    "without_accents",
    "without_owner_pronoun",
    "word_tokens",
]

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[a-z0-9]+(?:'[a-z]+)?")
_CJK_CHAR = re.compile(rf"[{_CJK}]")
CJK_RUN = re.compile(rf"[{_CJK}]+")
"""A run of Chinese characters."""


def has_cjk(*parts: object) -> bool:
    """Whether any of the strings holds a Chinese character (answers follow the user's language)."""
    return any(isinstance(p, str) and _CJK_CHAR.search(p) is not None for p in parts)


_HAS_CJK = re.compile(rf"[{_CJK}]")
_PUNCT_RE = re.compile(r"[\s\W_]+", re.UNICODE)

ENGLISH_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t d ll m re ve""".split()
)
_ZH_STOP = frozenset(
    "的 了 是 在 和 也 就 都 而 及 与 着 或 一个 没有 我们 你们 他们 吗 呢 吧 啊 呀 么 什么 怎么 为什么".split()
)


_R = TypeVar("_R")
_TEXT_CACHES: list[_lru_cache_wrapper[Any]] = []


def text_cache(maxsize: int) -> Callable[[Callable[..., _R]], _lru_cache_wrapper[_R]]:
    """:func:`functools.lru_cache` for a function of what users said (a text, its words,
    a name in it), kept where :func:`clear_text_caches` finds it: a cache of every
    user's text cannot drop one user's keys, so forgetting empties them all."""

    def decorate(function: Callable[..., _R]) -> _lru_cache_wrapper[_R]:
        cached = lru_cache(maxsize=maxsize)(function)
        _TEXT_CACHES.append(cached)
        return cached

    return decorate


def clear_text_caches() -> None:
    """Empty every :func:`text_cache` of the process, so that no text deleted from the
    store stays in it as a key (the next searches tokenise their texts again)."""
    for cached in _TEXT_CACHES:
        cached.cache_clear()


def _cut_cjk(run: str) -> list[str]:
    """Segment a CJK run in jieba's search mode (overlapping words, HMM for unknown ones)."""
    import rjieba  # loads its dictionary on first import (about 0.2 s)

    return [w for w in rjieba.cut_for_search(run, True) if w.strip()]


def leading_cjk_words(text: str) -> tuple[tuple[str, str], ...]:
    """The first words of a text that begins in Chinese (its first 12 characters), each
    with jieba's part-of-speech tag; none for a text that does not begin in Chinese.
    Cached: a search asks for the same notes' first words more than once."""
    if not text or _HAS_CJK.match(text) is None:
        return ()
    return tagged_words(text[:12])  # a name is short; the rest changes no tag


@text_cache(maxsize=4096)
def tagged_words(text: str) -> tuple[tuple[str, str], ...]:
    """A short text's words, each with jieba's part-of-speech tag. Cached."""
    import rjieba

    return tuple((str(word), str(tag)) for word, tag in rjieba.tag(text))


def in_dictionary(word: str) -> bool:
    """Whether jieba's dictionary holds a Chinese word. One it does not hold was put
    together from its characters by jieba's HMM (思雨, 诗涵, 网课), and its tag is a guess."""
    import rjieba

    return bool(rjieba.has_word(word))


def english_stem(word: str) -> str:
    """A deliberately small English stemmer: plurals, -ing and -ed."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word


_ACCENTED = re.compile(r"[\u00c0-\u024f\u0300-\u036f\u1e00-\u1eff]")
"""A Latin letter with an accent, or an accent left alone, as NFKC leaves them: the texts
:func:`without_accents` changes for the tokens (most hold none: a Chinese text's
characters are not decomposed for nothing)."""


def without_accents(text: str) -> str:
    """Latin letters without their accents (café: cafe, Zoë: zoe, fiancée: fiancee), so
    that a word is one word whether or not it is typed with them: compatibility
    decomposition without its combining marks, composed again (Chinese characters have
    none to lose; full-width forms become plain ones, as NFKC makes them)."""
    if text.isascii():  # nothing to decompose: most of the dictionary's glosses
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    )


def _tokens(text: str, with_parts: bool) -> tuple[str, ...]:
    normalized = unicodedata.normalize("NFKC", text).lower()
    if _ACCENTED.search(normalized):
        normalized = without_accents(normalized)
    out: list[str] = []
    for match in _TOKEN_RE.finditer(normalized):
        piece = match.group(0)
        if _HAS_CJK.match(piece):
            words = [w for w in _cut_cjk(piece) if w not in _ZH_STOP]
            out.extend(words)
            if not with_parts:
                continue
            known = set(words)
            out.extend(
                pair
                for pair in (piece[i : i + 2] for i in range(len(piece) - 1))
                if pair not in known and pair not in _ZH_STOP
            )
            out.extend(ch for ch in dict.fromkeys(piece) if ch not in known and ch not in _ZH_STOP)
        else:
            piece = piece.split("'")[0]
            if piece not in ENGLISH_STOP_WORDS:
                out.append(english_stem(piece))
    return tuple(out)


@text_cache(maxsize=4096)
def lexical_tokens(text: str) -> tuple[str, ...]:
    """Tokens for lexical indexing and querying, stop words removed, order kept."""
    return _tokens(text, with_parts=True)


@text_cache(maxsize=4096)
def word_tokens(text: str) -> tuple[str, ...]:
    """Only the words (no character bigrams or single characters): for comparing what two
    short texts say, where the parts of Chinese words would count twice."""
    return _tokens(text, with_parts=False)


_SPEAKER_TAG = re.compile(
    r"^\s*(?:[\[(（]?\d{1,2}:\d{2}(?::\d{2})?[\])）]?\s+)?"
    r"(?:[<\[【＜](?P<bracketed>[^<>\[\]【】＜＞\n]{1,40})[>\]】＞]\s*[:：]"
    r"|@?(?P<bare>[^\W\d][\w .-]{0,23}?(?:\s*[(（][^()（）\n]{1,12}[)）])?)"
    r"(?:(?<=\w\w)[说问答道])?(?::(?=[\s\"'“‘「])|：))\s*"
)
"""A speaker tag that opens a line: bracketed (``<Bart>:``, ``[Bart]:``, ``【小明】：``,
``＜Bart＞：``) or bare (``Caroline: "…"``, ``小明：``, ``@Bart:``, ``小明说：``), after the
time it was said, if given (``[10:00] Bart:``)."""
_ASIDE = re.compile(r"\s*[(（][^()（）\n]*[)）]$")
"""What a tag adds in brackets after the speaker's name: ``Bart（小朋友）``."""
_QUOTES = "\"'“”‘’「」『』"


def plain_transcript(text: str) -> str:
    """A pasted conversation as plain speech: each line without its speaker tag
    (``<Bart>:``, ``[Bart]:``, ``User:``, ``小明：``) and the quotes around what was said.

    Embedding models read the tags and quotes as content; for a query that is a stretch
    of dialogue they drown what was actually said (measured on MADial-Bench dev: dense
    recall@10 0.61 with the tags, 0.68 without).
    """
    lines = []
    for line in text.splitlines() or [text]:
        spoken = _SPEAKER_TAG.sub("", line, count=1).strip().strip(_QUOTES).strip()
        if spoken:
            lines.append(spoken)
    return "\n".join(lines) or text


_OWNER_PRONOUN = re.compile(r"我(?![们們])")


def without_owner_pronoun(text: str) -> str:
    """A Chinese query without the speaker's 我 (but 我们), as it is embedded: 我 says
    who asks, not what about, and two short texts that share it look alike to the
    embedders (我会弹钢琴吗? and 我 讨厌 下雨天: a cosine 0.01-0.03 above the same memory
    without 我, about three times the odds of relevance). Who is asked about is counted
    apart, as the owner shared with a memory about the owner. A text of 我 alone stays."""
    stripped = _OWNER_PRONOUN.sub("", text)
    return stripped if stripped.strip() else text


def transcript_speakers(text: str) -> list[str]:
    """Who speaks in a pasted conversation: its speaker tags (``<Bart>:``, ``Caroline:``,
    ``小明：``) in order, each once, when one of them starts two or more lines. Labels
    ("Note: ...", "Topic: ...\nQuestion: ...") tag a line each; in a conversation
    someone speaks again."""
    tags = []
    for line in text.splitlines():
        m = _SPEAKER_TAG.match(line)
        if m is not None and (tag := _tag_of(m)):
            tags.append(tag)
    if len(set(tags)) == len(tags):
        return []
    return list(dict.fromkeys(tags))


def opening_tag(text: str) -> str | None:
    """The speaker tag a text opens with (``Caroline: "…"``, ``<Bart>:``, ``小明：``),
    without an aside after the name, when something is said after it; else None."""
    m = _SPEAKER_TAG.match(text)
    if m is None or not text[m.end() :].strip(_QUOTES + " \n"):
        return None
    return _tag_of(m) or None


def _tag_of(m: re.Match[str]) -> str:
    """The speaker's name in a matched tag, without an aside after it (``Bart（小朋友）``)."""
    return _ASIDE.sub("", m["bracketed"] or m["bare"]).strip()


TOKENIZER_VERSION = 1
"""Raised by hand with any change to :func:`lexical_tokens` that :func:`lexical_signature`'s
probe would not show (a rule for text the probe does not hold)."""

_SIGNATURE_PROBE = (
    "The runners' QUICKLY running cats didn't stop at Ｃafé No.9 in 2023: they're happy!\n"
    "我们昨天在北京的咖啡馆喝了拿铁，小明觉得很开心。為什麼我家的猫叫咪咪？很困"
)
"""Text whose tokens stand for the tokenizer: English stemming and stop words, width and
case folding, apostrophes, Chinese words in search mode with their bigrams and
characters, stop words and traditional characters."""


@lru_cache(maxsize=1)
def lexical_signature() -> str:
    """What a lexical index was tokenized with: :data:`TOKENIZER_VERSION`, the segmenter's
    version and a digest of the stop words and of the probe's tokens. A store records it;
    a store whose signature differs holds documents that queries no longer tokenize alike
    (``memory-platform retokenize`` rebuilds them)."""
    from importlib.metadata import version

    digest = hashlib.blake2b(digest_size=8)
    for part in (sorted(ENGLISH_STOP_WORDS), sorted(_ZH_STOP), lexical_tokens(_SIGNATURE_PROBE)):
        digest.update("\x1f".join(part).encode() + b"\x1e")
    return f"v{TOKENIZER_VERSION}-rjieba{version('rjieba')}-{digest.hexdigest()}"


def tokens_document(text: str) -> str:
    """The space-separated token string stored in a lexical index."""
    return " ".join(lexical_tokens(text))


def fts_query(text: str) -> str | None:
    """An FTS5 ``MATCH`` expression: every distinct token quoted, joined with OR.

    Quoting makes any user text a phrase of plain tokens, so FTS5 operators in the
    input have no effect. Returns None when the text has no searchable token.
    """
    seen: dict[str, None] = {}
    for token in lexical_tokens(text):
        seen.setdefault(token, None)
    if not seen:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in seen)


def normalize_name(text: str) -> str:
    """Canonical form of a node's content for exact-name matching: NFKC, case-folded,
    punctuation and white space removed."""
    return _PUNCT_RE.sub("", unicodedata.normalize("NFKC", text).casefold())


def user_token(user_id: str) -> str:
    """A lexical token standing for a user: hashed, so no two user ids collide, and made
    only of letters and digits, so every analyzer keeps it whole."""
    return "u" + hashlib.blake2b(user_id.encode(), digest_size=12).hexdigest()


def distinctive_terms(parts: Iterable[str | None]) -> set[str]:
    """The parts long enough to tell one memory from another when a text repeats them
    (two Chinese characters, three other characters), stripped."""
    return {p.strip() for p in parts if p and len(p.strip()) >= (2 if has_cjk(p) else 3)}


def mentions(content: str, term: str) -> bool:
    """Whether ``content`` says ``term``: as a substring in Chinese, as whole words,
    ignoring case and accents (Café Luna says cafe luna), otherwise."""
    if has_cjk(term):
        return term in content
    if not (content.isascii() and term.isascii()):
        content, term = without_accents(content), without_accents(term)
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", content, re.IGNORECASE) is not None
