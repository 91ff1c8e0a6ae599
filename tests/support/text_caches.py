"""Whether the process's text caches hold a text, for tests of what forgetting leaves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory_platform.textutil import lexical_tokens, tagged_words, word_tokens

TOKENISERS: tuple[Callable[[str], Any], ...] = (lexical_tokens, word_tokens, tagged_words)
"""The text caches every search fills with its candidates' texts."""


def held(cached: Any, *key: Any) -> bool:
    """Whether ``cached`` (an ``lru_cache``) held ``key``: a call of it hits. The call
    puts the key in if it was not there."""
    hits = cached.cache_info().hits
    cached(*key)
    return bool(cached.cache_info().hits > hits)


def held_anywhere(text: str) -> bool:
    """Whether any tokeniser's cache holds ``text`` (each is asked; none is left out)."""
    return any([held(tokenise, text) for tokenise in TOKENISERS])
