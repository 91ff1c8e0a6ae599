"""Switching a store to another embedding model: one command, resumable, nothing lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memory_platform import EmbeddingMismatchError, MemoryPlatform
from memory_platform.cli import app
from memory_platform.config import ENSEMBLE_MODEL, Settings
from memory_platform.embeddings import Embedder, OpenAIEmbedder
from memory_platform.errors import ConfigurationError
from memory_platform.indexing import reembed
from memory_platform.store import open_store
from tests.support.openai_stub import OpenAIStub

TURNS = [
    {"text": "I adopted a dog named Rex", "speaker": "Ann"},
    {"text": "我昨晚没睡好，今天很累"},
    {"text": "We went hiking in the Alps last summer", "speaker": "Ann"},
    {"text": "我喜欢喝咖啡"},
    {"text": "My sister moved to Paris", "speaker": "Ann"},
]


def minilm_store(path: Path) -> Settings:
    """A store whose vectors were made by all-MiniLM-L6-v2."""
    old = Settings(embedding_provider="sentence-transformers", sqlite_path=path, _env_file=None)
    with MemoryPlatform(old) as mp:
        mp.add_episodes("ann", TURNS)
        assert mp.wait_for_indexing()
    return Settings(sqlite_path=path, embedding_batch_size=2, _env_file=None)


def test_reembed_switches_the_store_to_the_configured_model(
    tmp_path: Path, embedder: Embedder
) -> None:
    settings = minilm_store(tmp_path / "m.db")
    with pytest.raises(EmbeddingMismatchError, match="memory-platform reembed"):
        MemoryPlatform(settings, embedder=embedder)

    seen: list[tuple[int, int]] = []
    report = reembed(settings, progress=lambda done, total: seen.append((done, total)))

    assert report.previous_model == "all-MiniLM-L6-v2" and not report.resumed
    assert report.model == ENSEMBLE_MODEL
    assert report.queued == report.embedded == 5
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        assert mp.store.pending_count() == 0
        hits = mp.search("ann", "我为什么今天很累?", record_access=False)
        assert hits and hits[0].text == "我昨晚没睡好，今天很累"
    again = reembed(settings, embedder=embedder)
    assert again.resumed and again.queued == again.embedded == 0


def test_an_interrupted_reembed_loses_nothing_and_the_next_run_finishes(
    tmp_path: Path, embedder: Embedder
) -> None:
    settings = minilm_store(tmp_path / "m.db")

    def stop_after_first_batch(done: int, _total: int) -> None:
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reembed(settings, progress=stop_after_first_batch, embedder=embedder)

    store = open_store(settings)  # the store already takes the new model
    try:
        assert store.pending_count() == 3
        assert len(store.list_episodes("ann", limit=100)) == 5
    finally:
        store.close()
    report = reembed(settings, embedder=embedder)
    assert report.resumed and report.queued == 3 and report.embedded == 3
    with MemoryPlatform(settings, embedder=embedder) as mp:
        assert mp.store.pending_count() == 0
        assert mp.search("ann", "Where does Ann's sister live?", record_access=False)


def test_a_text_the_new_embedder_refuses_stays_pending_and_the_rest_is_embedded(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Switching to an endpoint that refuses one text (past its context, or by its content
    filter) stopped at the batch holding it: the text stays pending, everything else gets
    its vector, and the refusal is raised at the end for the user to act on."""
    settings = minilm_store(tmp_path / "m.db")
    store = open_store(settings, check_signature=False)
    try:
        store.reset_embeddings()
        longest = max(store.pending_embeddings(None, limit=10), key=lambda p: len(p.text.encode()))
    finally:
        store.close()
    with OpenAIStub(embed=embedder.embed) as stub:
        stub.max_input_bytes = len(longest.text.encode()) - 1  # that text alone is refused
        endpoint = OpenAIEmbedder(stub.base_url, "stub-embedder", dimension=embedder.dimension)
        with pytest.raises(ConfigurationError):
            reembed(settings, embedder=endpoint)

    store = open_store(settings)  # the store takes the new model, all but one text embedded
    try:
        assert [p.ref_id for p in store.pending_embeddings(None, limit=10)] == [longest.ref_id]
    finally:
        store.close()


def test_reembed_all_embeds_a_store_on_the_same_model_again(
    tmp_path: Path, embedder: Embedder
) -> None:
    settings = Settings(sqlite_path=tmp_path / "same.db", _env_file=None)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        mp.add_episodes("ann", TURNS)
        assert mp.wait_for_indexing()

    assert reembed(settings, embedder=embedder).queued == 0  # nothing to switch, nothing done
    report = reembed(settings, embedder=embedder, everything=True)

    assert not report.resumed and report.previous_model == report.model
    assert report.queued == report.embedded == len(TURNS)
    result = CliRunner().invoke(app, ["reembed", "--db", str(settings.sqlite_path), "--all"])
    assert result.exit_code == 0, result.output
    assert "re-embedded 5 of 5 items" in result.stdout and "all items again" in result.stdout


def test_reembed_command_shows_progress_and_refuses_a_missing_store(tmp_path: Path) -> None:
    settings = minilm_store(tmp_path / "m.db")
    runner = CliRunner()

    result = runner.invoke(app, ["reembed", "--db", str(settings.sqlite_path)])

    assert result.exit_code == 0, result.output
    assert f"re-embedded 5 of 5 items with {ENSEMBLE_MODEL}" in result.stdout
    assert "switched from all-MiniLM-L6-v2" in result.stdout
    missing = runner.invoke(app, ["reembed", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 1 and "no memory store" in missing.stderr
