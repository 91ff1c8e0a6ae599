"""The prefilter of big vector matrices: the answer stays the exact top k, whatever it skips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from memory_platform.builder import build_memory
from memory_platform.models import MemorySubgraph, NodeType, VectorKind
from memory_platform.store import EmbeddingSignature
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.store.vector_prefilter import Prefilter
from memory_platform.tools.arguments import CreateMemoryArgs

DIM = 384
SIGNATURE = EmbeddingSignature(model="all-MiniLM-L6-v2", dimension=DIM)


def _unit_rows(matrix: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


class _Sentences:
    """Unit vectors around a few topics, with a common direction, as sentence embeddings
    are: what a projection onto a few directions describes well (the noise leaves about
    as much out of it as real sentence vectors do, ``benchmarks/results/vector_prefilter.md``)."""

    def __init__(self, seed: int, topics: int = 24) -> None:
        self._rng = np.random.default_rng(seed)
        self._centres = self._rng.standard_normal((topics, DIM))
        self._common = self._rng.standard_normal(DIM)

    def sample(self, count: int) -> npt.NDArray[np.float32]:
        mix = self._rng.dirichlet(np.full(len(self._centres), 0.3), size=count)
        noise = 0.5 * self._rng.standard_normal((count, DIM))
        return _unit_rows(2.0 * self._common + mix @ self._centres * 3.0 + noise)


def _matmul(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    return matrix @ vector


def _exact_top(rows: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    return np.argsort(-(rows @ query), kind="stable")[:k].tolist()


def _top_of(found: tuple[np.ndarray, np.ndarray], k: int) -> list[int]:
    positions, scores = found
    return positions[np.argsort(-scores, kind="stable")[:k]].tolist()


def test_the_rows_it_keeps_hold_the_exact_top_k_and_few_others() -> None:
    sentences = _Sentences(7)
    rows = sentences.sample(6000)
    view = Prefilter.fit(rows).view()
    kept_share = []
    queries = [*sentences.sample(40), *rows[:10]]  # unseen questions, and stored rows
    for query in queries:
        found = view.candidates(rows, query, 20, _matmul)
        assert found is not None  # pruned: the bound rules most rows out
        positions, scores = found
        assert _top_of(found, 20) == _exact_top(rows, query, 20)
        assert np.allclose(scores, rows[positions] @ query, atol=1e-6)  # exact scores
        kept_share.append(len(positions) / len(rows))
    assert np.mean(kept_share) < 0.25


def test_rows_added_after_the_fit_are_bounded_too_even_unlike_the_fitted_ones() -> None:
    rng = np.random.default_rng(8)
    sentences = _Sentences(8)
    fitted = sentences.sample(4000)
    prefilter = Prefilter.fit(fitted)
    # new rows in directions the fit never saw: their bound is loose, never wrong
    strangers = _unit_rows(rng.standard_normal((300, DIM)))
    rows = np.vstack([fitted, strangers])
    prefilter.extend(rows)
    view = prefilter.view()
    for query in [*strangers[:20], *sentences.sample(20)]:
        found = view.candidates(rows, query, 10, _matmul)
        exact = _exact_top(rows, query, 10)
        assert found is None or _top_of(found, 10) == exact


def test_where_the_bound_rules_out_too_little_it_leaves_the_scan_to_the_caller() -> None:
    rng = np.random.default_rng(9)
    rows = _unit_rows(rng.standard_normal((4000, DIM)))  # no direction is special
    view = Prefilter.fit(rows).view()
    query = _unit_rows(rng.standard_normal((1, DIM)))[0]
    assert view.candidates(rows, query, 10, _matmul) is None
    # and a k so big that scoring its candidates would cost as much as the scan
    assert Prefilter.fit(rows[:200]).view().candidates(rows[:200], query, 20, _matmul) is None


def test_a_view_taken_before_rows_were_added_does_not_answer_for_more_rows() -> None:
    rows = _Sentences(10).sample(3000)
    prefilter = Prefilter.fit(rows[:2000])
    view = prefilter.view()
    assert view.candidates(rows, rows[0], 10, _matmul) is None  # rows it has not projected


def test_its_size_counts_the_projection_the_norms_and_the_directions() -> None:
    """The vector cache's budget counts the prefilter (a third of its matrix again)."""
    rows = _Sentences(11).sample(3000)
    prefilter = Prefilter.fit(rows[:2000])
    kept = DIM // 3
    assert prefilter.nbytes >= 4 * (DIM * kept + 2000 * (kept + 1))
    before = prefilter.nbytes
    prefilter.extend(rows)
    assert prefilter.nbytes >= 4 * (DIM * kept + 3000 * (kept + 1)) > before


def _memories(store: SQLiteGraphStore, user: str, vectors: np.ndarray) -> list[str]:
    graphs = [
        build_memory(user, CreateMemoryArgs(subject="我", memory_type="事件", topic=f"t{i}"))
        for i in range(len(vectors))
    ]
    store.write_memories(graphs)
    ids = [g.memory.id for g in graphs]
    store.set_embeddings(user, VectorKind.MEMORY, dict(zip(ids, vectors, strict=True)))
    return ids


def _hit_ids(store: SQLiteGraphStore, user: str, query: np.ndarray, k: int = 10) -> list[str]:
    return [h.ref_id for h in store.vector_search(user, VectorKind.MEMORY, query, k=k)]


def _small_prefilters(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Prefilters from 1 MB of vectors (683 of 384 dimensions); the sizes fitted, listed."""
    from memory_platform.store import vector_cache

    monkeypatch.setattr(vector_cache, "PREFILTER_FROM_BYTES", 1 << 20)
    fits: list[int] = []
    real_fit = Prefilter.fit
    monkeypatch.setattr(
        vector_cache.Prefilter, "fit", lambda rows: fits.append(len(rows)) or real_fit(rows)
    )
    return fits


def test_a_big_users_search_answers_exactly_through_its_prefilter_as_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fits = _small_prefilters(monkeypatch)
    store = SQLiteGraphStore(tmp_path / "big.db", SIGNATURE)
    sentences = _Sentences(11)
    ids = _memories(store, "u", sentences.sample(1500))
    _memories(store, "other", sentences.sample(50))
    queries = sentences.sample(12)

    def expected(query: np.ndarray) -> list[str]:
        stored = store.get_vectors("u", VectorKind.MEMORY, ids)  # float16 as stored
        matrix = np.vstack([stored[i] for i in ids])
        return [ids[i] for i in _exact_top(matrix, query, 10)]

    assert _hit_ids(store, "u", queries[0]) == expected(queries[0])  # fitted, then used
    entry = store._cache._entries[("u", "memory")]
    assert fits == [1500] and entry.prefilter is not None and entry.prefilter.rows == 1500
    assert store._cache.nbytes == sum(e.nbytes for e in store._cache._entries.values())
    assert [_hit_ids(store, "u", q) for q in queries] == [expected(q) for q in queries]
    assert len(_hit_ids(store, "other", queries[0], k=100)) == 50  # a small matrix: none
    assert store._cache._entries[("other", "memory")].prefilter is None and fits == [1500]

    added = _memories(store, "u", queries[:3])  # new memories: projected, then found
    ids += added
    for query, memory_id in zip(queries[:3], added, strict=True):
        assert _hit_ids(store, "u", query)[0] == memory_id
    assert entry.prefilter.rows == 1503

    deleted, ids = ids[:100], ids[100:]
    for memory_id in deleted:  # deletions mark rows dead: no reload, no fit
        store.delete_memory("u", memory_id)
    moved = sentences.sample(1)[0]  # and a vector written again is a new row
    store.set_embeddings("u", VectorKind.MEMORY, {ids[0]: moved})
    assert [_hit_ids(store, "u", q) for q in queries] == [expected(q) for q in queries]
    assert _hit_ids(store, "u", moved, k=1) == [ids[0]] == expected(moved)[:1]
    assert store._cache._entries[("u", "memory")] is entry and entry.dead == 101
    everything = _hit_ids(store, "u", queries[0], k=5000)
    assert sorted(everything) == sorted(ids) and fits == [1500]  # each once, none deleted
    assert set(store.get_vectors("u", VectorKind.MEMORY, deleted + ids[:5])) == set(ids[:5])

    deleted, ids = ids[:400], ids[400:]  # past a quarter dead: loaded afresh
    for memory_id in deleted:
        store.delete_memory("u", memory_id)
    assert [_hit_ids(store, "u", q) for q in queries] == [expected(q) for q in queries]
    reloaded = store._cache._entries[("u", "memory")]
    assert reloaded is not entry and reloaded.dead == 0 and reloaded.prefilter is not None
    assert reloaded.prefilter.rows == len(ids) and fits == [1500]  # carried, not fitted
    assert sorted(_hit_ids(store, "u", queries[1], k=5000)) == sorted(ids)
    store.close()


def test_a_deletion_in_another_process_is_never_answered_from_a_matrix_in_memory(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shared.db"
    store, other = SQLiteGraphStore(path, SIGNATURE), SQLiteGraphStore(path, SIGNATURE)
    sentences = _Sentences(14)
    vectors = sentences.sample(30)
    ids = _memories(store, "u", vectors)
    assert sorted(_hit_ids(store, "u", vectors[0], k=100)) == sorted(ids)  # held in memory
    entry = store._cache._entries[("u", "memory")]
    for memory_id in ids[:5]:
        other.delete_memory("u", memory_id)  # another store on the file, as a worker
    assert sorted(_hit_ids(store, "u", vectors[0], k=100)) == sorted(ids[5:])
    assert _hit_ids(store, "u", vectors[1], k=1) != [ids[1]]  # its own vector: gone
    assert store._cache._entries[("u", "memory")] is entry and entry.dead == 5
    assert set(store.get_vectors("u", VectorKind.MEMORY, ids)) == set(ids[5:])
    added = _memories(other, "u", vectors[:2])  # written elsewhere after: found
    assert _hit_ids(store, "u", vectors[1], k=1) == [added[1]]
    store.close()
    other.close()


def _topic_memories(
    store: SQLiteGraphStore, user: str, count: int, distinct: bool = False
) -> tuple[list[MemorySubgraph], list[str]]:
    """``count`` memories written, and their topic nodes: of one name ("工作", nodes that
    consolidation has not merged yet) or each of its own."""
    graphs = [
        build_memory(
            user,
            CreateMemoryArgs(
                subject="我", memory_type="事件", topic=f"t{i}" if distinct else "工作"
            ),
        )
        for i in range(count)
    ]
    store.write_memories(graphs)
    return graphs, [node.id for g in graphs if (node := g.node(NodeType.TOPIC)) is not None]


def _topic_nodes(store: SQLiteGraphStore, user: str, count: int) -> list[str]:
    return _topic_memories(store, user, count)[1]


def test_nodes_sharing_a_vector_fill_k_from_the_best_vector_down(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "n.db", SIGNATURE)
    rng = np.random.default_rng(12)
    best, second, third = _unit_rows(rng.standard_normal((3, DIM)))
    nodes = _topic_nodes(store, "u", 60)
    query = _unit_rows((best + 0.3 * second)[None, :].astype(np.float64))[0]
    store.set_embeddings(
        "u",
        VectorKind.TOPIC,
        {n: best for n in nodes[:30]}
        | {n: second for n in nodes[30:50]}
        | {n: third for n in nodes[50:]},
    )
    hits = store.vector_search("u", VectorKind.TOPIC, query, k=40)
    assert [h.ref_id for h in hits[:30]] == sorted(nodes[:30])  # ties by id
    assert {h.ref_id for h in hits[30:]} <= set(nodes[30:50]) and len(hits) == 40
    assert hits[0].score > hits[30].score == hits[39].score
    assert len(store.vector_search("u", VectorKind.TOPIC, query, k=100)) == 60
    assert {h.ref_id for h in store.vector_search("u", VectorKind.TOPIC, query, k=5)} <= set(
        nodes[:30]
    )
    store.close()


def test_memories_written_while_a_big_user_searches_are_found_once_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from memory_platform.store import vector_cache

    monkeypatch.setattr(vector_cache, "PREFILTER_FROM_BYTES", 1 << 20)
    store = SQLiteGraphStore(tmp_path / "busy.db", SIGNATURE)
    sentences = _Sentences(13)
    _memories(store, "u", sentences.sample(1200))
    _hit_ids(store, "u", sentences.sample(1)[0])  # fits the prefilter
    assert store._cache._entries[("u", "memory")].prefilter is not None

    written: list[tuple[str, np.ndarray]] = []
    more = threading.Condition()
    new = sentences.sample(200)
    failures: list[BaseException] = []

    def write() -> None:
        try:
            for start in range(0, len(new), 10):
                batch = new[start : start + 10]
                ids = _memories(store, "u", batch)
                with more:
                    written.extend(zip(ids, batch, strict=True))
                    more.notify()
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)
        finally:
            with more:
                more.notify()

    writer = threading.Thread(target=write)
    writer.start()
    checked = 0
    while checked < len(new) and not failures:
        with more:  # the next memory written before this search began
            more.wait_for(lambda seen=checked: seen < len(written) or not writer.is_alive())
            if checked == len(written):
                break
            memory_id, vector = written[checked]
        assert _hit_ids(store, "u", vector, k=1) == [memory_id]
        checked += 1
    writer.join()
    assert not failures and checked == len(new)
    assert store._cache._entries[("u", "memory")].prefilter.rows == 1400
    store.close()


def test_deleting_nodes_that_share_vectors_marks_them_without_reloading(tmp_path: Path) -> None:
    """Topic and object matrices keep one row per distinct vector; a deletion marks its ids
    gone (a row goes with its last id) instead of loading the matrix again, which took
    0.8-1.7 s per kind at 100,000 nodes (``benchmarks/results/vector_prefilter.md``)."""
    store = SQLiteGraphStore(tmp_path / "nodes.db", SIGNATURE)
    rng = np.random.default_rng(21)
    best, second, third = _unit_rows(rng.standard_normal((3, DIM)))
    graphs, nodes = _topic_memories(store, "u", 80)
    store.set_embeddings(
        "u",
        VectorKind.TOPIC,
        {n: best for n in nodes[:30]}
        | {n: second for n in nodes[30:70]}
        | {n: third for n in nodes[70:]},
    )

    def hits(query: npt.NDArray[np.float32], k: int) -> list[str]:
        return [h.ref_id for h in store.vector_search("u", VectorKind.TOPIC, query, k=k)]

    assert sorted(hits(best, 100)) == sorted(nodes)  # loaded: 3 distinct rows
    entry = store._cache._entries[("u", "topic")]
    assert entry.distinct == 3

    gone = [*range(5), *range(70, 80)]  # five of the best row's nodes, all of the third's
    for i in gone:
        store.delete_memory("u", graphs[i].memory.id)  # its topic node goes with it
    live = [n for i, n in enumerate(nodes) if i not in gone]
    assert sorted(hits(best, 100)) == sorted(live)
    assert hits(best, 25) == sorted(nodes[5:30])  # the best row's remaining nodes, by id
    assert sorted(hits(third, 80)) == sorted(live)  # the dead row answers nothing
    assert hits(third, 1)[0] in live
    assert store._cache._entries[("u", "topic")] is entry and entry.dead == 15
    assert set(store.get_vectors("u", VectorKind.TOPIC, nodes)) == set(live)

    [new_node] = _topic_nodes(store, "u", 1)
    store.set_embeddings("u", VectorKind.TOPIC, {new_node: third})  # the dead row's vector
    assert hits(third, 1) == [new_node] and entry.distinct == 3
    store.close()


def test_a_big_shared_matrix_answers_exactly_among_the_nodes_still_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prefilter of a topic matrix learns its threshold from live rows only: the
    deleted nearest nodes must not raise it above what the nodes left can reach. Past a
    quarter deleted the matrix loads afresh and keeps its rows' projections."""
    fits = _small_prefilters(monkeypatch)
    store = SQLiteGraphStore(tmp_path / "topics.db", SIGNATURE)
    sentences = _Sentences(23)
    vectors = sentences.sample(1400)
    graphs, nodes = _topic_memories(store, "u", 1500, distinct=True)
    # the last 100 nodes repeat the first 100 vectors, as nodes of one name do
    repeated = [*vectors, *vectors[:100]]
    store.set_embeddings("u", VectorKind.TOPIC, dict(zip(nodes, repeated, strict=True)))
    query = sentences.sample(1)[0]
    store.vector_search("u", VectorKind.TOPIC, query, k=10)  # loads, and fits the prefilter
    entry = store._cache._entries[("u", "topic")]
    assert entry.prefilter is not None and entry.distinct == 1400

    stored = store.get_vectors("u", VectorKind.TOPIC, nodes)
    nearest = sorted(nodes, key=lambda n: -float(stored[n] @ query))[:300]
    for g, node in zip(graphs, nodes, strict=True):
        if node in nearest:
            store.delete_memory("u", g.memory.id)
    left = store.get_vectors("u", VectorKind.TOPIC, nodes)
    assert len(left) == 1200  # a fifth gone: marked, not reloaded
    expected = sorted((float(v @ query) for v in left.values()), reverse=True)[:10]
    hits = store.vector_search("u", VectorKind.TOPIC, query, k=10)
    assert all(h.ref_id in left for h in hits)
    assert [h.score for h in hits] == pytest.approx(expected, abs=1e-5)
    assert store._cache._entries[("u", "topic")] is entry  # marked, not reloaded

    for g, node in zip(graphs, nodes, strict=True):  # 100 more: past a quarter
        if node in left and len(left) > 1100:
            store.delete_memory("u", g.memory.id)
            del left[node]
    expected = sorted((float(v @ query) for v in left.values()), reverse=True)[:10]
    hits = store.vector_search("u", VectorKind.TOPIC, query, k=10)
    assert all(h.ref_id in left for h in hits)
    assert [h.score for h in hits] == pytest.approx(expected, abs=1e-5)
    reloaded = store._cache._entries[("u", "topic")]
    assert reloaded is not entry and reloaded.dead == 0 and reloaded.prefilter is not None
    assert reloaded.prefilter.rows == reloaded.distinct and fits == [1400]  # carried over
    store.close()


def test_a_matrix_loads_a_chunk_at_a_time_into_a_buffer_of_its_exact_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading reads a few rows at a time (chunks of 7 here) into a buffer sized by a
    count first: every row lands where its id is, across chunk boundaries, for rows of
    their own and for nodes sharing a vector."""
    from memory_platform.store import vector_cache

    monkeypatch.setattr(vector_cache, "_LOAD_CHUNK", 7)
    store = SQLiteGraphStore(tmp_path / "chunks.db", SIGNATURE)
    sentences = _Sentences(31)
    vectors = sentences.sample(60)
    ids = _memories(store, "u", vectors)
    nodes = _topic_nodes(store, "u", 40)
    store.set_embeddings("u", VectorKind.TOPIC, {n: vectors[i % 9] for i, n in enumerate(nodes)})

    for i in (0, 6, 7, 13, 59):  # the first and last of chunks
        assert _hit_ids(store, "u", vectors[i], k=1) == [ids[i]]
    memories = store._cache._entries[("u", "memory")]
    assert memories.rows is not None and memories.rows.shape[0] == 60  # no spare rows
    for i in range(9):
        hits = store.vector_search("u", VectorKind.TOPIC, vectors[i], k=100)
        best = {h.ref_id for h in hits if h.score == pytest.approx(hits[0].score)}
        assert best == {n for j, n in enumerate(nodes) if j % 9 == i}
    assert store._cache._entries[("u", "topic")].distinct == 9

    one = sentences.sample(1)  # one more memory: the buffer doubles
    added = _memories(store, "u", one)
    assert _hit_ids(store, "u", one[0], k=1) == added
    grown = memories.rows
    assert grown is not None and grown.shape[0] == 120
    for vector in sentences.sample(5):  # and the next ones go into its spare rows
        [memory_id] = _memories(store, "u", vector[None, :])
        assert _hit_ids(store, "u", vector, k=1) == [memory_id]
    assert memories.rows is grown and memories.distinct == 66
    store.close()
