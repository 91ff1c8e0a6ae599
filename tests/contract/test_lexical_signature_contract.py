"""The lexical index records the tokenizer that built it, and ``retokenize`` rebuilds it.

Documents are tokenized once, when written; queries are tokenized at every search. A
change to the tokenizer (stop words, stemming, the segmenter's dictionary) would leave
old documents and new queries tokenized apart, silently: these tests pin that a store
says so and that the rebuild restores exactly what writing the items gave.
"""

from __future__ import annotations

import logging
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_platform.config import Settings
from memory_platform.models import Episode, KnowledgePoint, KnowledgeVersion, VectorKind
from memory_platform.store import STALE_LEXICAL_INDEX, GraphStore, open_store
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.store.sqlite_driver import sqlite3
from memory_platform.textutil import lexical_signature, user_token

from .test_store_contract import write

pytestmark = pytest.mark.contract

REF = datetime(2025, 11, 5, 10, 0, tzinfo=UTC)
KINDS = [VectorKind.MEMORY, VectorKind.EPISODE, VectorKind.KNOWLEDGE]
QUESTIONS = [
    "我为什么心情不好?",
    "What did Caroline paint at the lake?",
    "Where did you go yesterday?",
    "咖啡馆在哪里",
    "Does she like running?",
]


def _fill(store: GraphStore, user: str) -> None:
    """Items of every lexically indexed kind, one turn answering the turn before it."""
    write(store, user, "我", "事实", "心情", "不好")
    write(store, user, "Caroline", "event", "painted", "a sunset", {"place": "the lake"})
    turns = [
        ("Mel", "Where did you two go yesterday?"),
        ("Caroline", "我们在北京的咖啡馆喝了拿铁"),
        ("Mel", "a note to self", {"searchable": False}),
    ]
    store.add_episodes(
        [
            Episode(user_id=user, session_id="s1", speaker=speaker, text=text,
                    timestamp=REF + timedelta(minutes=i), metadata=meta[0] if meta else {})
            for i, (speaker, text, *meta) in enumerate(turns)
        ]
    )  # fmt: skip
    store.add_knowledge_version(
        KnowledgeVersion(user_id=user, points=[KnowledgePoint(content="Caroline loves running")])
    )


def _hits(store: GraphStore, user: str) -> list[list[tuple[str, float]]]:
    return [
        [(h.ref_id, round(h.score, 6)) for h in store.lexical_search(user, q, kinds=KINDS, k=10)]
        for q in QUESTIONS
    ]


def _scramble(store: GraphStore, user: str) -> None:
    """Overwrite the user's lexical documents with a word no question holds, as an older
    tokenizer's documents would differ from what queries now ask for."""
    if isinstance(store, SQLiteGraphStore):
        with closing(sqlite3.connect(store.path, isolation_level=None)) as conn:
            conn.execute("UPDATE lexical SET tokens = 'zzz' WHERE utok = ?", (user_token(user),))
        return
    driver = store._driver  # type: ignore[attr-defined]
    with driver.session(database=store._database) as session:  # type: ignore[attr-defined]
        session.run(
            "MATCH (n) WHERE n.user_id = $user AND n.search_tokens IS NOT NULL"
            " SET n.search_tokens = $tokens",
            {"user": user, "tokens": user_token(user) + " zzz"},
        ).consume()


@pytest.fixture
def scrambled(store: GraphStore, users) -> tuple[str, list[list[tuple[str, float]]]]:
    """A user whose documents an older tokenizer wrote, and what the questions found when
    the documents were as writing the items made them."""
    user = users()
    _fill(store, user)
    written = _hits(store, user)
    assert all(written), "every question finds something before the documents are scrambled"
    _scramble(store, user)
    assert not any(_hits(store, user))
    return user, written


def test_retokenize_rebuilds_every_document_as_writing_the_item_made_it(
    store: GraphStore, scrambled: tuple[str, list[list[tuple[str, float]]]]
) -> None:
    user, written = scrambled
    seen: list[tuple[int, int]] = []
    rewritten = store.retokenize(progress=lambda done, total: seen.append((done, total)))

    assert _hits(store, user) == written  # same items, same order, same scores
    total = seen[0][1]  # every user's documents (on a shared server, others' too)
    assert rewritten == total >= 5  # two memories, two searchable turns, one knowledge point
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert store.lexical_index_current()


def test_a_turn_kept_out_of_search_gets_no_document_from_a_rebuild(
    store: GraphStore, users
) -> None:
    user = users()
    _fill(store, user)
    store.retokenize()

    assert store.lexical_search(user, "note to self", kinds=KINDS) == []


def test_an_interrupted_rebuild_loses_nothing_and_a_second_run_finishes(
    store: GraphStore, scrambled: tuple[str, list[list[tuple[str, float]]]]
) -> None:
    user, written = scrambled
    store._record_lexical_signature("v0-an-older-tokenizer")

    class Interrupted(Exception):
        pass

    def stop_after_first_page(done: int, _total: int) -> None:
        if done:
            raise Interrupted

    with pytest.raises(Interrupted):
        store.retokenize(progress=stop_after_first_page, page_size=1)

    assert not store.lexical_index_current()  # the signature waits for the whole rebuild
    store.retokenize(page_size=2)
    assert _hits(store, user) == written
    assert store.lexical_index_current()


def test_a_store_knows_when_queries_tokenize_otherwise_until_it_is_rebuilt(
    store: GraphStore, users
) -> None:
    _fill(store, users())
    store._record_lexical_signature("v0-an-older-tokenizer")
    assert not store.lexical_index_current()

    store.retokenize()
    assert store._stored_lexical_signature() == lexical_signature()
    assert store.lexical_index_current()


# -- the embedded store: files made before the signature, and the warning at open ----------


def _settings(path: Path) -> Settings:
    return Settings(backend="sqlite", sqlite_path=path, _env_file=None)


def test_a_new_store_file_records_the_tokenizer_its_documents_are_written_with(
    tmp_path: Path,
) -> None:
    store = open_store(_settings(tmp_path / "new.db"))
    write(store, "u1", "我", "事实", "心情", "不好")

    assert store._stored_lexical_signature() == lexical_signature()
    assert store.lexical_index_current()
    store.close()


def test_a_store_with_documents_but_no_signature_is_not_taken_as_current(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "old.db")
    store = open_store(settings)
    write(store, "u1", "我", "事实", "心情", "不好")
    with closing(
        sqlite3.connect(store.path, isolation_level=None)
    ) as conn:  # as a file written before stores recorded it
        conn.execute("DELETE FROM meta WHERE key = 'lexical_signature'")

    assert not store.lexical_index_current()
    store.close()


def test_an_empty_store_without_a_signature_takes_the_current_one(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "empty.db")
    store = open_store(settings)
    with closing(sqlite3.connect(store.path, isolation_level=None)) as conn:
        conn.execute("DELETE FROM meta WHERE key = 'lexical_signature'")

    assert store.lexical_index_current()
    assert store._stored_lexical_signature() == lexical_signature()
    store.close()


def test_opening_a_store_tokenized_otherwise_warns_and_names_the_command(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = _settings(tmp_path / "m.db")
    with caplog.at_level(logging.WARNING, logger="memory_platform.store"):
        store = open_store(settings)
        write(store, "u1", "我", "事实", "心情", "不好")
        store._record_lexical_signature("v0-an-older-tokenizer")
        store.close()
        assert STALE_LEXICAL_INDEX not in caplog.text  # a fresh store is current

        open_store(settings).close()
    assert STALE_LEXICAL_INDEX in caplog.text
    assert "memory-platform retokenize" in STALE_LEXICAL_INDEX
