"""Whether an English note opens with what was done, its subject left out.

Notes an agent keeps about its user often leave the user out: "Likes jazz music", "Works
as a nurse", "Adopted a dog named Rex", "Has been to Paris", "Allergic to peanuts". Such
a note is about the owner, as "User likes jazz music" is. English has no tag of its words
here (the segmenter tags Chinese only), so the words that can open such a note come from
a table shipped with the package (``english_forms.txt.gz``, made from lemminflect's
lexicon by ``scripts/english_forms.py``): inflected verbs (likes, went), auxiliaries (has,
is, can), adjectives (before a preposition: "Allergic to") and adverbs (before either:
"Never eats meat").

A name is no verb ("Caroline went…"), and a word that can be both a subject and a verb
("Dogs", "Drew") is read as the subject where a finite verb follows it ("Drew went…",
"Dogs are…"). What the table cannot tell: a plural noun before a base verb ("Kids love
the park" reads as "[she] kids …"), a name spelt like an auxiliary or an inflected verb
("Will went…", "Rose early…"); each counts the note as the owner's.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache
from pathlib import Path

from .names import LATIN_WORD

__all__ = ["opens_with_a_described_thing", "opens_with_verb"]

_FORMS = Path(__file__).with_name("english_forms.txt.gz")
_PREPOSITIONS = frozenset("to of in at about with for from on by".split())
_ADVERBS_BEFORE = 2
"""How many adverbs may come before the verb ("Also often goes hiking")."""


@lru_cache(maxsize=1)
def _forms() -> dict[str, str]:
    """Each word's kinds (``v`` inflected verb, ``x`` auxiliary, ``a`` adjective, ``r``
    adverb), read once: 30,000 words, about 0.01 s and 5 MB."""
    with gzip.open(_FORMS, "rt", encoding="utf-8") as table:
        return dict(
            line.split(" ", 1) for line in table.read().splitlines() if line and line[0] != "#"
        )


def _adverb(kinds: str) -> bool:
    """Whether a word can be an adverb and not a verb (never, often; not "do")."""
    return "r" in kinds and "v" not in kinds and "x" not in kinds


def _finite(kinds: str, word: str) -> bool:
    """Whether a word can be the finite verb after a subject (went, likes, are): an
    inflected verb but a bare ``-ing`` form, or an auxiliary."""
    return "x" in kinds or ("v" in kinds and not word.endswith("ing"))


def opens_with_verb(text: str) -> bool:
    """Whether an English text opens with a verb whose subject was left out ("Likes jazz",
    "Went to Paris", "Has a sister", "Never eats meat", "Allergic to peanuts"), by the
    shipped table of word forms; False for a text that opens with a name or a noun."""
    words = [word.casefold().replace("’", "'") for word in LATIN_WORD.findall(text[:120])[:6]]
    forms = _forms()
    at = 0
    while at < min(_ADVERBS_BEFORE, len(words) - 1) and _adverb(forms.get(words[at], "")):
        at += 1
    if at >= len(words):
        return False
    first = words[at].removesuffix("n't")
    after = words[at + 1] if at + 1 < len(words) else ""
    kinds = forms.get(first, "")
    if "x" in kinds:
        return True  # "Has been to Paris", "Does not eat meat", "Can swim"
    if "v" in kinds:
        return not _finite(forms.get(after, ""), after)  # "Drew went" names Drew
    return "a" in kinds and after in _PREPOSITIONS


def opens_with_a_described_thing(text: str) -> bool:
    """Whether an English text opens with an adjective and the thing it describes, no
    determiner before them ("Favourite food is sushi", "Best friend is Anna", "Older
    sister lives in Paris"): a noun phrase whose "my" was left out, not a name. The word
    after the adjective is in lower case and no finite verb, so "Frank plays golf",
    "Amber is a nurse" and "Frank Smith …" still open with a name."""
    m = _FIRST_TWO.match(text.lstrip(" \t\n\"'“‘「("))
    if m is None or not m["second"].islower():
        return False
    second = m["second"].casefold()
    return (
        "a" in _forms().get(m["first"].casefold(), "")
        and not _finite(_forms().get(second, ""), second)
        and second not in _PREPOSITIONS  # "Allergic to …" is what was left of a verb
    )


_FIRST_TWO = re.compile(r"(?P<first>[A-Za-z]+)[ \t]+(?P<second>[A-Za-z]+)\b")
"""A text's first two words in Latin letters, separated by spaces only."""
