"""Tokens for the lexical indexes and the FTS query built from them."""

from __future__ import annotations

import unicodedata

import pytest

from memory_platform.textutil import (
    _cut_cjk,
    distinctive_terms,
    english_stem,
    fts_query,
    has_cjk,
    in_dictionary,
    leading_cjk_words,
    lexical_tokens,
    mentions,
    normalize_name,
    opening_tag,
    plain_transcript,
    transcript_speakers,
    user_token,
    without_accents,
    without_owner_pronoun,
    word_tokens,
)


def test_chinese_is_segmented_with_single_characters_added() -> None:
    tokens = lexical_tokens("我很困")
    assert tokens[:2] == ("我", "很困")
    assert "困" in tokens


def test_a_chinese_run_adds_each_pair_and_character_that_is_no_word_of_it() -> None:
    """Words first, then the pairs of characters jieba did not make a word (the last
    too), then single characters; comparing texts (word tokens) takes the words alone."""
    assert lexical_tokens("我喜欢猫") == ("我", "喜欢", "猫", "我喜", "欢猫", "喜", "欢")
    assert word_tokens("我喜欢猫") == ("我", "喜欢", "猫")


def test_the_dictionary_holds_common_words_and_not_given_names() -> None:
    assert in_dictionary("学校") and in_dictionary("猫咪")
    assert not in_dictionary("思雨") and not in_dictionary("诗涵")


def test_english_is_lowercased_stemmed_and_stopworded() -> None:
    assert lexical_tokens("What did Caroline paint? She PAINTED sunsets!") == (
        "caroline",
        "paint",
        "paint",
        "sunset",
    )


@pytest.mark.parametrize(
    "forms",
    [
        ("party", "parties"),
        ("hobby", "hobbies"),
        ("city", "cities"),
        ("hike", "hikes"),
        ("dance", "dances"),
        ("stop", "stopped", "stopping", "stops"),
        ("run", "running", "runs"),
        ("visit", "visited", "visiting"),
        ("play", "played", "playing"),
        ("paint", "painted", "painting"),
        ("glass", "glass's"),
    ],
)
def test_the_forms_of_an_english_word_meet_in_one_token(forms: tuple[str, ...]) -> None:
    """A question asks "What hobbies…?" of a turn that says "my hobby": one token."""
    assert len({lexical_tokens(form) for form in forms}) == 1, [lexical_tokens(f) for f in forms]


@pytest.mark.parametrize("words", [("car", "cars", "care"), ("rat", "rats", "rate")])
def test_words_that_only_look_alike_keep_their_own_tokens(words: tuple[str, str, str]) -> None:
    word, plural, other = words
    assert lexical_tokens(word) == lexical_tokens(plural) != lexical_tokens(other)


def test_english_words_are_stemmed_as_stored_documents_hold_them() -> None:
    """Stores already indexed hold these tokens: a change to the stemmer changes the
    tokenizer's signature, and every store warns until ``memory-platform retokenize``
    rebuilds it, so it is made only for a measured gain. Porter's handling of a final e
    (hike and hiking, love and loved would meet) was measured on 2026-12-03 and not
    adopted: LoCoMo dev R@10 0.807 → 0.811, R@5 0.728 → 0.723, MADial unchanged
    (``benchmarks/README.md``, "Measured changes")."""
    expected = {
        "studies": "study",
        "hiking": "hik",
        "hike": "hike",
        "loved": "lov",
        "loves": "love",
        "glasses": "glasse",
        "class": "class",
        "buzz": "buz",
        "tells": "tell",
        "needed": "need",
        "ties": "tie",
        "sings": "sing",
        "using": "using",
        "used": "used",
        "flies": "fly",
        "bus": "bus",
        "egg": "egg",
    }
    assert {word: lexical_tokens(word) for word in expected} == {
        word: (stem,) for word, stem in expected.items()
    }


def test_any_of_several_texts_in_chinese_is_chinese() -> None:
    assert has_cjk("hello", None, "你好") and has_cjk("你好")
    assert not has_cjk("hello", None, "world") and not has_cjk()


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


def test_chinese_words_are_split_as_jieba_0_42_splits_them() -> None:
    """Stores already indexed hold these words: the segmenter must keep splitting alike
    (taken from jieba 0.42.1's search mode, which rjieba reproduces)."""
    expected = {
        "我为什么没心情工作": ["我", "什么", "为什么", "没", "心情", "工作"],
        "昨晚失眠了一整夜": ["昨晚", "失眠", "了", "一整", "整夜", "一整夜"],
        "小明在北京清华大学读计算机科学": [
            "小明", "在", "北京", "清华", "华大", "大学", "清华大学",
            "读", "计算", "算机", "科学", "计算机", "计算机科学",
        ],
        "她养了一只叫豆豆的柯基犬": ["她", "养", "了", "一只", "叫", "豆豆", "的", "柯基犬"],
    }  # fmt: skip
    for text, words in expected.items():
        assert _cut_cjk(text) == words


def test_a_query_is_embedded_without_the_speakers_wo() -> None:
    """我 says who asks, not what about (and 我们 is kept: we, not I)."""
    assert without_owner_pronoun("我会弹钢琴吗?") == "会弹钢琴吗?"
    assert without_owner_pronoun("我的生日是哪天?") == "的生日是哪天?"
    assert without_owner_pronoun("我们去公园吧") == "我们去公园吧"
    assert without_owner_pronoun("我") == "我"  # nothing else to embed
    assert without_owner_pronoun("What is my job?") == "What is my job?"


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("Caroline: I went camping.", "Caroline"),
        ('<Bart>:"我要表演魔术！"', "Bart"),
        ("小明：今天好累", "小明"),
        ("<Bart（小朋友）>: 你好", "Bart"),
        ("[10:00] Jon: the studio opened", "Jon"),
        ("Caroline:", None),  # nothing said after it
        ('Caroline: ""', None),
        ("see https://example.com: a link", None),
        ("I went camping.", None),
    ],
)
def test_the_speaker_tag_a_text_opens_with(text: str, tag: str | None) -> None:
    assert opening_tag(text) == tag


# Caches of a function's results that hold no user text: its keys are file names, query
# names or nothing. Every other module-level cache must be a text cache (cleared when
# anything is forgotten); a new one fails here until it is put in one list or the other.
_CACHES_WITHOUT_TEXT = {
    "memory_platform.jobs._unreachable",
    "memory_platform.queries.cypher",
    "memory_platform.queries.cypher_root",
    "memory_platform.queries.query_names",
    "memory_platform.retrieval.english_verbs._forms",
    "memory_platform.retrieval.gloss._code_digest",
    "memory_platform.retrieval.pinyin._readings",
    "memory_platform.retrieval.pinyin._syllables",
    "memory_platform.store.vector_cache._blas_threads",
    "memory_platform.textutil.lexical_signature",  # of a fixed probe text
}


def _module_caches() -> dict[str, object]:
    """Every ``functools`` cache defined at the top of a module of the package."""
    import functools
    import importlib
    import pkgutil

    import memory_platform

    found: dict[str, object] = {}
    for info in pkgutil.walk_packages(memory_platform.__path__, "memory_platform."):
        if info.name.endswith("__main__"):  # runs a command when imported
            continue
        module = importlib.import_module(info.name)  # the test env installs every extra
        for name, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def test_every_cache_of_user_text_is_one_forgetting_empties() -> None:
    from memory_platform import textutil

    caches = _module_caches()
    text_caches = {name for name, cache in caches.items() if cache in textutil._TEXT_CACHES}
    assert "memory_platform.textutil.lexical_tokens" in text_caches
    assert "memory_platform.retrieval.chinese_names._name_of" in text_caches
    assert set(caches) - text_caches == _CACHES_WITHOUT_TEXT


def test_clearing_the_text_caches_leaves_no_text_as_a_key() -> None:
    from memory_platform.textutil import clear_text_caches
    from tests.support.text_caches import TOKENISERS, held, held_anywhere

    text = "小雨昨天在西湖边弹吉他"
    for tokenise in TOKENISERS:
        tokenise(text)
    assert all(held(tokenise, text) for tokenise in TOKENISERS)
    clear_text_caches()
    assert not held_anywhere(text)


def test_distinctive_terms_are_two_chinese_characters_or_three_others() -> None:
    parts = [" 小猫 ", "猫", "tea", "ab", None, "", "  "]
    assert distinctive_terms(parts) == {"小猫", "tea"}


def test_a_text_mentions_a_chinese_term_anywhere_and_another_as_whole_words() -> None:
    assert mentions("我家的小猫很可爱", "小猫")
    assert mentions("She loves Green Tea.", "green tea")
    assert not mentions("She loves steak.", "tea")
    # a knowledge point forgotten with its memory whichever way either writes the name
    assert mentions("Ana likes the Café Luna downtown", "cafe luna")
    assert mentions("Ana likes the Cafe Luna downtown", "Café Luna")
    assert not mentions("Ana likes the Café Lunar", "cafe luna")
    assert not mentions("我家的狗", "小猫")


def test_the_lexical_signature_changes_with_the_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store compares it with the one it recorded: any change in how the probe text is
    tokenized, in the stop words or in the version must give another signature."""
    from memory_platform import textutil

    build = textutil.lexical_signature.__wrapped__
    before = build()
    assert before == textutil.lexical_signature() and before == build()
    assert before.startswith(f"v{textutil.TOKENIZER_VERSION}-rjieba")

    monkeypatch.setattr(textutil, "_ZH_STOP", textutil._ZH_STOP | {"咖啡"})
    assert build() != before  # a stop word, and the probe's tokens with it
    monkeypatch.undo()
    monkeypatch.setattr(textutil, "english_stem", lambda word: word)
    textutil.clear_text_caches()
    assert build() != before  # the probe's tokens alone
    monkeypatch.undo()
    textutil.clear_text_caches()
    monkeypatch.setattr(textutil, "TOKENIZER_VERSION", textutil.TOKENIZER_VERSION + 1)
    assert build() != before


def test_latin_words_are_tokenized_without_their_accents() -> None:
    """Written with accents or without, a word gives one token (before, é ended a word:
    café gave "caf" and José "jos", which Jose and cafe never matched)."""
    accented = "José and Zoë met at the Café in São Paulo: a naïve résumé, Ｃａｆé"
    plain = "Jose and Zoe met at the cafe in Sao Paulo: a naive resume, cafe"
    assert lexical_tokens(accented) == lexical_tokens(plain)
    assert "cafe" in lexical_tokens(accented)
    chinese = unicodedata.normalize("NFKC", "小明在咖啡馆喝拿铁，為什麼？我們去了北京")
    assert without_accents(chinese) == chinese  # no character of it is changed
    assert word_tokens("Chloé") == ("chloe",)


@pytest.mark.parametrize(
    ("text", "speakers"),
    [
        ("Caroline: hi\nMel: hello\nCaroline: how are you?", ["Caroline", "Mel"]),
        ("<Bart>: 你好\n小明：你好呀\n<Bart>: 今天去哪", ["Bart", "小明"]),
        ("Bart（小朋友）：我饿了\n妈妈：吃饭吧\nBart（小朋友）：好", ["Bart", "妈妈"]),
        # labels tag a line each: no one speaks twice, so no conversation
        ("Note: something\nTopic: x", []),
        ("Caroline: hi", []),
    ],
)
def test_a_pasted_conversation_names_its_speakers_once_each(text: str, speakers: list[str]) -> None:
    assert transcript_speakers(text) == speakers


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ('Caroline: "I went to the park"\nMel: Nice!', "I went to the park\nNice!"),
        ("A: B: hello", "B: hello"),  # one tag a line
        ("just text", "just text"),
        ("Caroline:", "Caroline:"),  # nothing said: the text as it was
        ("", ""),
    ],
)
def test_a_transcript_is_embedded_without_its_tags_and_quotes(text: str, plain: str) -> None:
    assert plain_transcript(text) == plain


def test_the_first_words_of_a_chinese_text_come_with_their_tags() -> None:
    words = leading_cjk_words("小明今天去了北京的咖啡馆喝拿铁")
    assert words[:2] == (("小明", "nr"), ("今天", "t"))
    assert "".join(w for w, _ in words) == "小明今天去了北京的咖啡馆"  # its first 12 characters
    assert leading_cjk_words("Hello 小明") == () and leading_cjk_words("") == ()


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("jumping", "jump"), ("running", "run"), ("stopped", "stop"), ("planning", "plan"),
        ("falling", "fall"), ("passing", "pass"), ("buzzing", "buz"), ("buzz", "buz"),
        ("cities", "city"), ("cats", "cat"), ("glass", "glass"),
    ],
)  # fmt: skip
def test_the_stemmer_undoubles_a_final_consonant_but_l_and_s(word: str, stem: str) -> None:
    assert english_stem(word) == stem
