"""``memory-platform retokenize``: the lexical index rebuilt after the tokenizer changed."""

from __future__ import annotations

from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from memory_platform import MemoryPlatform
from memory_platform.cli import app
from memory_platform.config import Settings
from memory_platform.embeddings import Embedder
from memory_platform.indexing import retokenize
from memory_platform.models import Episode, VectorKind
from memory_platform.store import STALE_LEXICAL_INDEX_SHORT, open_store
from memory_platform.store.sqlite_driver import sqlite3

REF = datetime(2025, 11, 5, 10, 0, tzinfo=UTC)
TURNS = ["I adopted a dog named Rex", "我昨晚没睡好，今天很累", "We went hiking in the Alps"]


def old_tokenizer_store(path: Path) -> Settings:
    """A store whose documents an older tokenizer wrote: other tokens, another signature."""
    settings = Settings(backend="sqlite", sqlite_path=path, _env_file=None)
    store = open_store(settings)
    store.add_episodes(
        [
            Episode(user_id="ann", session_id="s", text=t, timestamp=REF + timedelta(minutes=i))
            for i, t in enumerate(TURNS)
        ]
    )
    store._record_lexical_signature("v0-an-older-tokenizer")
    store.close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("UPDATE lexical SET tokens = 'zzz'")
    return settings


def finds(settings: Settings, question: str) -> bool:
    store = open_store(settings)
    try:
        return bool(store.lexical_search("ann", question, kinds=[VectorKind.EPISODE]))
    finally:
        store.close()


def test_retokenize_rebuilds_a_stale_index_once_and_says_so(tmp_path: Path) -> None:
    settings = old_tokenizer_store(tmp_path / "m.db")
    runner = CliRunner()
    assert not finds(settings, "没睡好") and not finds(settings, "hiking in the Alps")

    result = runner.invoke(app, ["retokenize", "--db", str(settings.sqlite_path)])

    assert result.exit_code == 0, result.output
    assert "tokenized 3 of 3 lexical documents again" in result.stdout
    assert "tokenizing" in result.stderr  # the progress bar
    assert finds(settings, "没睡好") and finds(settings, "hiking in the Alps")

    again = runner.invoke(app, ["retokenize", "--db", str(settings.sqlite_path)])
    assert again.exit_code == 0, again.output
    assert "already built by this tokenizer: nothing to do" in again.stdout

    forced = runner.invoke(app, ["retokenize", "--db", str(settings.sqlite_path), "--all"])
    assert forced.exit_code == 0, forced.output
    assert "tokenized 3 of 3 lexical documents again" in forced.stdout


def test_retokenize_refuses_a_missing_store_without_creating_one(tmp_path: Path) -> None:
    missing = CliRunner().invoke(app, ["retokenize", "--db", str(tmp_path / "none.db")])

    assert missing.exit_code == 1 and "no memory store at" in missing.stderr
    assert not (tmp_path / "none.db").exists()


def test_readiness_names_a_stale_lexical_index_without_turning_unready(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Searches still work on a stale index (they miss words): the operator is told what
    to run, and the service is not taken out of rotation for it."""
    settings = old_tokenizer_store(tmp_path / "m.db")
    with MemoryPlatform(settings, embedder=embedder) as mp:
        stale = mp.health()
        assert stale["store"]["lexical_index"] == STALE_LEXICAL_INDEX_SHORT
        assert stale["store"]["ok"] is True
        assert "retokenize" in STALE_LEXICAL_INDEX_SHORT

        retokenize(settings)  # what the command runs
        after = mp.health()
        assert after["store"]["lexical_index"] == "current", after  # read per probe


def test_retokenize_needs_no_embedder_and_leaves_a_current_store_alone(tmp_path: Path) -> None:
    """A store whose vectors another model made is rebuilt all the same (only texts are
    read); one already built by this tokenizer is not rewritten unless asked."""
    settings = old_tokenizer_store(tmp_path / "m.db")
    minilm = {"embedding_provider": "sentence-transformers", "embedding_dim": 384}
    other_model = settings.model_copy(update={**minilm, "embedding_model": "all-MiniLM-L6-v2"})

    rebuilt = retokenize(other_model)
    again = retokenize(other_model)

    assert (rebuilt.rewritten, rebuilt.was_current) == (3, False)
    assert (again.documents, again.rewritten, again.was_current) == (3, 0, True)
    assert retokenize(settings, everything=True).rewritten == 3
    assert finds(settings, "没睡好")
