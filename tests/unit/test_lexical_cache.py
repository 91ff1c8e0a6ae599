"""Lexical hits are ranked by BM25 with Lucene's IDF over FTS5's statistics, for a small
user from FTS5's matches and for a big one from an index in memory, identically."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import pytest

from memory_platform.builder import build_memory
from memory_platform.models import Episode, LexicalHit, VectorKind
from memory_platform.store import EmbeddingSignature, lexical_cache
from memory_platform.store.lexical_cache import fts5_totals
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.textutil import fts_query, lexical_tokens, user_token
from memory_platform.tools.arguments import CreateMemoryArgs

SIGNATURE = EmbeddingSignature(model="all-MiniLM-L6-v2", dimension=384)
BIG = 60  # documents from which the tests' users count as big
KINDS = [VectorKind.MEMORY, VectorKind.EPISODE]
# a few common words and a long tail, Chinese and English, as in real memories
ZH = [
    "工作",
    "咖啡",
    "开会",
    "小明",
    "喜欢",
    "篮球",
    "下雨",
    "心情",
    "不好",
    "成都",
    "火锅",
    "失眠",
]
EN = ["coffee", "meeting", "hiking", "Caroline", "painting", "swimming", "rain", "tired", "Paris"]
QUERIES = [
    "我为什么心情不好?",
    "小明喜欢什么",
    "咖啡 工作 开会 下雨",
    "Caroline painting in Paris",
    "coffee coffee meeting",
    "why was I tired after swimming",
    "火锅",
    "nothing matches this",
]


def _words(rng: random.Random, count: int) -> str:
    vocab = ZH + EN
    weights = [1 / (rank + 1) for rank in range(len(vocab))]  # Zipf-like
    return " ".join(rng.choices(vocab, weights, k=count))


def _fill(store: SQLiteGraphStore, user: str, memories: int, episodes: int, seed: int) -> None:
    rng = random.Random(seed)
    store.write_memories(
        [
            build_memory(
                user,
                CreateMemoryArgs(
                    subject=rng.choice(["我", "小明", "Caroline"]),
                    memory_type=rng.choice(["事件", "事实"]),
                    topic=_words(rng, rng.randint(1, 3)),
                    object=_words(rng, rng.randint(1, 6)),
                ),
            )
            for _ in range(memories)
        ]
    )
    store.add_episodes(
        [
            Episode(user_id=user, text=_words(rng, rng.randint(2, 12)), speaker="Ann")
            for _ in range(episodes)
        ]
    )


def _ranked(hits: list[LexicalHit]) -> list[tuple[str, str, float]]:
    return [(h.kind.value, h.ref_id, h.score) for h in hits]


def _from_matches(
    store: SQLiteGraphStore, monkeypatch: pytest.MonkeyPatch, user: str, query: str, k: int
) -> list[tuple[str, str, float]]:
    """The ranking without an index: from FTS5's matches of this search."""
    with monkeypatch.context() as patched:
        patched.setattr(lexical_cache, "INDEX_FROM_DOCUMENTS", 10**9)
        return _ranked(store.lexical_search(user, query, KINDS, k))


def _reference(
    store: SQLiteGraphStore, user: str, query: str, kinds: list[VectorKind], k: int
) -> list[tuple[str, str, float]]:
    """BM25 (k1 1.2, b 0.75) with Lucene's IDF, written out from the formula: N and the
    average length over every document of every user (the user token's column counted),
    each word's document count from FTS5, ties by ref_id."""
    conn = store._conn()
    terms = list(dict.fromkeys(lexical_tokens(query)))
    match = fts_query(query)
    if match is None:
        return []
    texts = [row[0] for row in conn.execute("SELECT tokens FROM lexical")]
    documents = len(texts)
    average = sum(len(text.split()) + 1 for text in texts) / documents
    weight = {}
    for term in terms:
        quoted = 'tokens:"' + term.replace('"', '""') + '"'
        held = conn.execute("SELECT count(*) FROM lexical WHERE lexical MATCH ?", (quoted,))
        n = held.fetchone()[0]
        weight[term] = math.log(1 + (documents - n + 0.5) / (n + 0.5))
    scored = []
    for kind, ref, text in conn.execute(
        "SELECT d.kind, d.ref_id, lexical.tokens FROM lexical"
        " JOIN lexical_docs d ON d.rowid = lexical.rowid WHERE lexical MATCH ? AND +d.user_id = ?",
        (f'utok:"{user_token(user)}" AND tokens:({match})', user),
    ):
        counts = Counter(text.split())
        scale = 1.2 * (0.25 + 0.75 * (len(text.split()) + 1) / average)
        score = 0.0
        for term in terms:
            if counts[term]:
                score += weight[term] * (counts[term] * 2.2 / (counts[term] + scale))
        if kind in {x.value for x in kinds} and score > 0:
            scored.append((-score, ref, kind))
    scored.sort()
    return [(kind, ref, -negative) for negative, ref, kind in scored[:k]]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SQLiteGraphStore:
    monkeypatch.setattr(lexical_cache, "INDEX_FROM_DOCUMENTS", BIG)
    store = SQLiteGraphStore(tmp_path / "lex.db", SIGNATURE)
    _fill(store, "big", memories=150, episodes=80, seed=1)
    _fill(store, "other", memories=30, episodes=20, seed=2)  # FTS5's statistics span users
    return store


def test_hits_are_bm25_with_lucenes_idf_from_an_index_or_from_the_matches(
    store: SQLiteGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for query in QUERIES:
        for kinds in (KINDS, [VectorKind.EPISODE]):
            for k in (1, 10, 500):
                from_index = _ranked(store.lexical_search("big", query, kinds, k))
                assert len(store._lexicon) == 1  # ranked from the big user's index
                with monkeypatch.context() as patched:
                    patched.setattr(lexical_cache, "INDEX_FROM_DOCUMENTS", 10**9)
                    from_matches = _ranked(store.lexical_search("big", query, kinds, k))
                assert from_index == from_matches, (query, kinds, k)
                expected = _reference(store, "big", query, kinds, k)
                assert [(kind, ref) for kind, ref, _ in from_index] == [
                    (kind, ref) for kind, ref, _ in expected
                ], (query, kinds, k)
                assert [s for *_, s in from_index] == pytest.approx([s for *_, s in expected])
    hits = store.lexical_search("big", "咖啡 工作", KINDS, 10)
    assert len(hits) == 10 and len({h.ref_id for h in hits}) == 10
    small = _ranked(store.lexical_search("other", "咖啡 Caroline", KINDS, 10))
    assert len(store._lexicon) == 1  # a small user: ranked from the matches, no index
    assert small == _reference(store, "other", "咖啡 Caroline", KINDS, 10) and small


def test_an_index_built_a_few_documents_at_a_time_ranks_as_fts5_says(
    store: SQLiteGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is built in chunks of documents (7 here): postings that span chunks keep
    their documents in order and their counts, so the ranking is the reference's."""
    monkeypatch.setattr(lexical_cache, "_ADD_CHUNK", 7)
    for query in QUERIES:
        from_index = _ranked(store.lexical_search("big", query, KINDS, 500))
        expected = _reference(store, "big", query, KINDS, 500)
        assert [(kind, ref) for kind, ref, _ in from_index] == [
            (kind, ref) for kind, ref, _ in expected
        ], query
        assert [s for *_, s in from_index] == pytest.approx([s for *_, s in expected])
    index = store._lexicon._entries["big"]
    for where, _ in index.postings.values():
        assert list(where) == sorted(set(where))  # each document once, in order


def test_a_word_in_most_documents_still_counts(tmp_path: Path) -> None:
    # FTS5's own IDF is ~0 for a word in half the documents or more: in a small store the
    # shorter "Anna" outranked "coffee with Anna" for "coffee with Anna". Lucene's IDF
    # keeps every word of the question in the score, on both backends.
    store = SQLiteGraphStore(tmp_path / "small.db", SIGNATURE)
    texts = ["coffee with Anna", "Anna", "coffee at work", "coffee again", "more coffee"]
    ids = store.add_episodes([Episode(user_id="u", text=t, speaker="Bo") for t in texts])
    hits = store.lexical_search("u", "coffee with Anna", [VectorKind.EPISODE], 5)
    assert [h.ref_id for h in hits[:2]] == [ids[0], ids[1]]
    assert all(h.score > 0.1 for h in hits)  # the coffee-only ones score too
    store.close()


def test_the_index_follows_writes_deletes_and_other_processes(
    store: SQLiteGraphStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    query = "火锅 成都 咖啡"
    assert _ranked(store.lexical_search("big", query, KINDS, 20)) == _from_matches(
        store, monkeypatch, "big", query, 20
    )
    _fill(store, "big", memories=30, episodes=10, seed=3)  # appended to the index
    _fill(store, "other", memories=30, episodes=0, seed=4)  # moves the shared statistics
    assert _ranked(store.lexical_search("big", query, KINDS, 20)) == _from_matches(
        store, monkeypatch, "big", query, 20
    )

    gone = store.lexical_search("big", query, [VectorKind.MEMORY], 1)[0].ref_id
    assert store.delete_memory("big", gone)
    after = _ranked(store.lexical_search("big", query, KINDS, 20))
    assert gone not in {ref for _, ref, _ in after}
    assert after == _from_matches(store, monkeypatch, "big", query, 20)

    writer = SQLiteGraphStore(tmp_path / "lex.db", SIGNATURE)  # another process's writes
    _fill(writer, "big", memories=20, episodes=5, seed=5)
    writer.close()
    assert _ranked(store.lexical_search("big", query, KINDS, 50)) == _from_matches(
        store, monkeypatch, "big", query, 50
    )


def test_deletions_are_dropped_from_the_index_without_a_rebuild(
    store: SQLiteGraphStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    query = "咖啡 工作 Caroline coffee"
    store.lexical_search("big", query, KINDS, 10)
    built = store._lexicon._entries["big"]
    first = store.lexical_search("big", query, KINDS, 30)
    gone = {first[0].ref_id, first[3].ref_id}
    for ref in gone:
        assert store.delete_memory("big", ref) or store.delete_episodes("big", [ref])
    writer = SQLiteGraphStore(tmp_path / "lex.db", SIGNATURE)  # another process deletes
    gone.add(first[5].ref_id)
    assert writer.delete_memory("big", first[5].ref_id) or writer.delete_episodes(
        "big", [first[5].ref_id]
    )
    writer.close()
    _fill(store, "big", memories=5, episodes=5, seed=6)  # and writes, in the same refresh

    after = _ranked(store.lexical_search("big", query, KINDS, 30))
    assert store._lexicon._entries["big"] is built  # the same index, its rows dropped
    assert built.dropped == 3
    assert not gone & {ref for _, ref, _ in after}
    assert after == _from_matches(store, monkeypatch, "big", query, 30)

    # once a quarter of the index is gone it is built afresh, without the dropped rows
    memories = [m.id for m in store.list_memories("big", limit=1000)]
    for ref in memories[: len(memories) // 2]:
        assert store.delete_memory("big", ref)
    after = _ranked(store.lexical_search("big", query, KINDS, 30))
    rebuilt = store._lexicon._entries["big"]
    assert rebuilt is not built and rebuilt.dropped == 0
    in_file = (
        store._conn()
        .execute("SELECT count(*) FROM lexical_docs WHERE user_id = 'big'")
        .fetchone()[0]
    )
    assert len(rebuilt.ref_ids) == in_file
    assert after == _from_matches(store, monkeypatch, "big", query, 30)


def test_fts5_totals_are_read_from_its_own_record(store: SQLiteGraphStore) -> None:
    conn = store._conn()
    rows, tokens = fts5_totals(conn)
    assert rows == conn.execute("SELECT count(*) FROM lexical").fetchone()[0]
    texts = [r[0] for r in conn.execute("SELECT tokens FROM lexical")]
    assert tokens == sum(len(t.split()) for t in texts) + rows  # and one user token per row
