"""Tokens for the lexical indexes and the FTS query built from them."""

from __future__ import annotations

from memory_platform.textutil import fts_query, lexical_tokens, normalize_name, user_token


def test_chinese_is_segmented_with_single_characters_added() -> None:
    tokens = lexical_tokens("我很困")
    assert tokens[:2] == ("我", "很困")
    assert "困" in tokens


def test_english_is_lowercased_stemmed_and_stopworded() -> None:
    assert lexical_tokens("What did Caroline paint? She PAINTED sunsets!") == (
        "caroline",
        "paint",
        "paint",
        "sunset",
    )


def test_fts_query_quotes_every_token() -> None:
    assert fts_query('咖啡" OR *') == '"咖啡" OR "咖" OR "啡"'
    assert fts_query("NEAR(a b)") == '"near" OR "b"'
    assert fts_query("?!。") is None


def test_normalize_name_ignores_case_width_and_punctuation() -> None:
    assert normalize_name(" Ｘiao-Ming! ") == normalize_name("xiaoming") == "xiaoming"


def test_user_tokens_are_distinct_and_alphanumeric() -> None:
    a, b = user_token("user-1"), user_token("user 1")
    assert a != b
    assert a.isalnum() and b.isalnum()
