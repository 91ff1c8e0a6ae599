"""What a structured value says, as the text it is searched by.

Agents keep profiles as fields, not sentences: ``{"favorite_food": "sushi"}``,
``{"allergies": ["peanuts"], "age": 34}``. Searched by its string values alone, such an
item reads "sushi", and its lists and numbers are not read at all; LangGraph's own
stores embed the whole value as JSON, keys and braces included. Here a value reads as
what it says: its sentences as written, then each other field after its name
("favorite food: sushi; allergies: peanuts; age: 34"), nested fields by their own names.

A string is a sentence when it says more than a word or two (three words or more, or
more than five Chinese characters): it opens the text as written, its field's name after
it in brackets ("I like pizza (food preference)"), so a note that opens with its subject
is still read as about that subject. A field whose name says nothing (``text``,
``content``, ``memory``...) adds no name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..textutil import has_cjk

__all__ = ["value_text"]

_CONTAINERS = frozenset(
    "text content contents memory memories data value note notes description summary "
    "fact facts message body details info".split()
)
"""Field names that say nothing about what they hold."""
_DEPTH = 8
"""How deep nested fields are read; what lies deeper is not searched by."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _name(key: str) -> str:
    """A field's name as words: ``favorite_food``, ``favoriteFood`` → favorite food."""
    return " ".join(_CAMEL.sub(" ", key).replace("_", " ").replace("-", " ").split()).lower()


def _says_little(text: str) -> bool:
    """A word or two ("sushi", "New York", 老师): meaningless without its field's name."""
    if has_cjk(text):
        return len(re.sub(r"\s", "", text)) <= 5
    return len(text.split()) < 3


def _scalar(value: Any) -> str | None:
    """One value's text; None for a container or nothing (a date reads as written)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value.strip() or None
    if value is None or isinstance(value, Mapping | list | tuple | set | frozenset):
        return None
    return str(value)


def _parts(key: str, value: Any, depth: int = 0) -> Iterator[tuple[bool, str]]:
    """``(is_sentence, text)`` for each thing a field says."""
    label = None if key.casefold() in _CONTAINERS else _name(key)
    if depth > _DEPTH:
        return
    if isinstance(value, Mapping):
        inner_fields = []
        for inner_key, inner in value.items():
            for is_sentence, text in _parts(str(inner_key), inner, depth + 1):
                if is_sentence:
                    yield True, text
                else:
                    inner_fields.append(text)
        if inner_fields:  # {"sister": {"name": "Anna"}}: sister: name: Anna
            joined = ", ".join(inner_fields)
            yield False, f"{label}: {joined}" if label else joined
        return
    items = value if isinstance(value, list | tuple) else [value]
    words = []
    for item in items:
        said = _scalar(item)
        if said is None:
            if item is not value:  # a list's dict or list: read by this field's name
                yield from _parts(key, item, depth + 1)
        elif isinstance(item, str) and not _says_little(said):
            # a sentence opens with its own subject; its field's name follows it
            yield True, f"{said} ({label})" if label else said
        else:
            words.append(said)
    if words:  # a word or two, numbers, yes or no: meaningless without the field's name
        joined = ", ".join(words)
        yield (False, f"{label}: {joined}") if label else (True, joined)


def _joined(pieces: list[str]) -> str:
    """Sentences one after another, a full stop between those that lack one."""
    out = ""
    for piece in pieces:
        if out:
            out += " " if out[-1] in ".!?;。！？；" else "。" if has_cjk(out[-1]) else ". "
        out += piece
    return out


def value_text(value: Mapping[str, Any]) -> str:
    """The searchable text of a value: its sentences, then its other fields by name
    (empty for a value that says nothing)."""
    sentences: list[str] = []
    fields: list[str] = []
    for key, field in value.items():
        for is_sentence, text in _parts(str(key), field):
            (sentences if is_sentence else fields).append(text)
    return _joined([*sentences, "; ".join(fields)] if fields else sentences)
