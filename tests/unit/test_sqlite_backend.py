"""What only the embedded backend promises: WAL, several processes, versioned schema."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memory_platform.builder import build_memory
from memory_platform.models import Episode, VectorKind
from memory_platform.store import EmbeddingSignature, lexical_cache
from memory_platform.store.sqlite import SQLiteGraphStore
from memory_platform.store.sqlite_driver import sqlite3
from memory_platform.store.sqlite_schema import MIGRATIONS, schema_version
from memory_platform.textutil import user_token
from memory_platform.tools.arguments import CreateMemoryArgs
from tests.support.files import stored_bytes

SIGNATURE = EmbeddingSignature(model="all-MiniLM-L6-v2", dimension=384)
REF = datetime(2025, 11, 5, 10, 0, tzinfo=UTC)

WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from memory_platform.builder import build_memory
    from memory_platform.models import VectorKind
    from memory_platform.store import EmbeddingSignature
    from memory_platform.store.sqlite import SQLiteGraphStore
    from memory_platform.tools.arguments import CreateMemoryArgs

    path, user, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SQLiteGraphStore(path, EmbeddingSignature(model="all-MiniLM-L6-v2", dimension=384))
    rng = np.random.default_rng(len(user))
    for i in range(count):
        graph = build_memory(user, CreateMemoryArgs(subject="我", memory_type="事件", topic=f"任务{i}"))
        store.write_memory(graph)
        store.set_embeddings(user, VectorKind.MEMORY, {graph.memory.id: rng.standard_normal(384)})
    store.close()
    """
)


def test_file_is_in_wal_mode_with_the_latest_schema(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    SQLiteGraphStore(path, SIGNATURE).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert schema_version(conn) == len(MIGRATIONS)
    again = SQLiteGraphStore(path, SIGNATURE)  # reopening migrates nothing and keeps data
    assert again.stats().memories == 0
    again.close()


def test_several_processes_write_one_file_and_see_each_other(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    reader = SQLiteGraphStore(path, SIGNATURE)
    assert reader.vector_search("p1", VectorKind.MEMORY, np.ones(384), k=5) == []  # warm the cache

    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"p{i}", "40"]) for i in range(3)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]

    for i in range(3):
        assert reader.stats(f"p{i}").memories == 40
        hits = reader.vector_search(f"p{i}", VectorKind.MEMORY, np.ones(384), k=100)
        assert len(hits) == 40  # the cache picked up the other processes' rows
    reader.close()


def test_upgrading_a_version_1_file_queues_what_has_no_vector(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path, isolation_level=None) as conn:
        schema_version(conn)
        conn.executescript(MIGRATIONS[0])
        conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', '1')")
        conn.execute(
            "INSERT INTO memories(id, user_id, memory_type, title, text, importance, status, created_at)"
            " VALUES ('m1', 'u', 'fact', 't', 'an old memory', 0.5, 'staged', 0)"
        )

    store = SQLiteGraphStore(path, SIGNATURE)
    pending = store.pending_embeddings("u")
    assert [(p.kind.value, p.ref_id, p.text) for p in pending] == [
        ("memory", "m1", "an old memory")
    ]
    store.set_embeddings("u", VectorKind.MEMORY, {"m1": np.ones(384)})
    assert store.pending_embeddings() == []
    assert store.users_with_staged() == ["u"]  # the old staged memory is in the new index
    store.close()


def test_upgrading_a_version_4_file_embeds_turns_again_with_the_turns_around_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v4.db"
    with sqlite3.connect(path, isolation_level=None) as conn:
        schema_version(conn)
        for script in MIGRATIONS[:4]:
            conn.executescript(script)
        conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', '4')")
        for ref, text, nxt in (("e1", "Did you go?", "e2"), ("e2", "Yes!", None)):
            conn.execute(
                "INSERT INTO episodes(id, user_id, session_id, text, speaker, timestamp, importance,"
                " next_id) VALUES (?, 'u', 's', ?, 'Ann', 0, 0.5, ?)",
                (ref, text, nxt),
            )
        conn.execute("DELETE FROM pending_vectors")  # both were embedded by version 4
        old = np.ones(384, dtype=np.float32).tobytes()
        for ref in ("e1", "e2"):
            conn.execute(
                "INSERT INTO vectors(user_id, kind, ref_id, embedding) VALUES ('u', 'episode', ?, ?)",
                (ref, old),
            )

    store = SQLiteGraphStore(path, SIGNATURE)
    # the reply is queued with the turn before it (version 5), the question with the turn
    # after it (version 7); their old vectors serve until the new ones are in
    assert [(p.ref_id, p.text) for p in store.pending_embeddings("u")] == [
        ("e2", "Ann: Did you go?\nAnn: Yes!"),
        ("e1", "Ann: Did you go?\nAnn: Yes!"),
    ]
    assert set(store.get_vectors("u", VectorKind.EPISODE, ["e1", "e2"])) == {"e1", "e2"}
    store.close()


def _back_to_version_13(conn: sqlite3.Connection) -> None:
    """Undo version 14 (the index of items by the episodes they name, and its triggers)."""
    for (trigger,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%told_by%'"
    ).fetchall():
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE told_by")
    conn.execute("UPDATE meta SET value = '13' WHERE key = 'schema_version'")


def test_upgrading_a_version_13_file_indexes_the_items_its_metadata_says_are_told_by(
    tmp_path: Path,
) -> None:
    """Memories and knowledge points extracted before the index are found by the turns
    they name once the file is upgraded, and the index follows later writes."""
    from memory_platform.models import KnowledgePoint, KnowledgeType, KnowledgeVersion

    path = tmp_path / "v13.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    args = CreateMemoryArgs(subject="我", memory_type="事件", topic="去", object="成都")
    graph = build_memory("u", args, reference_time=REF)
    graph.memory.metadata = {"episode_ids": ["t1", "t2"]}
    store.write_memory(graph)
    point = KnowledgePoint(content="去过成都", type=KnowledgeType.EXPERIENTIAL, score=0.7,
                           metadata={"episode_ids": ["t2"]})  # fmt: skip
    store.add_knowledge_version(KnowledgeVersion(user_id="u", points=[point]))
    store.close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        _back_to_version_13(conn)
        assert (
            conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'told_by'").fetchone()[0]
            == 0
        )

    store = SQLiteGraphStore(path, SIGNATURE)
    assert schema_version(store._conn()) == len(MIGRATIONS)
    found = store.told_by("u", ["t2"])
    assert (found.memory_ids, found.knowledge_ids) == ([graph.memory.id], [point.id])
    assert store.told_by("u", ["t1"]).memory_ids == [graph.memory.id]
    store.delete_memory("u", graph.memory.id)
    assert store.told_by("u", ["t1"]).memory_ids == []
    store.close()


def _back_to_version_12(conn: sqlite3.Connection) -> None:
    """Undo versions 14 and 13 (13: the knowledge versions' ``through`` column)."""
    _back_to_version_13(conn)
    conn.execute("ALTER TABLE knowledge_versions DROP COLUMN through")
    conn.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")


def test_upgrading_a_version_12_file_keeps_its_knowledge_versions_without_through(
    tmp_path: Path,
) -> None:
    """A version made before 13 records no ``through``: when it was made stands in."""
    from memory_platform.models import KnowledgeVersion

    path = tmp_path / "v12.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    made = KnowledgeVersion(user_id="u", session_id="s", through=REF)
    store.add_knowledge_version(made)
    store.close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        _back_to_version_12(conn)

    store = SQLiteGraphStore(path, SIGNATURE)
    assert schema_version(store._conn()) == len(MIGRATIONS)
    [read] = store.knowledge_versions("u")
    assert read.version_id == made.version_id and read.through is None
    assert store.session_read_through("u", "s") == {made.version_id: read.created_at}
    later = KnowledgeVersion(user_id="u", session_id="s", through=REF)
    store.add_knowledge_version(later)
    assert store.session_read_through("u", "s")[later.version_id] == REF
    store.close()


def _back_to_version_10(conn: sqlite3.Connection) -> None:
    """Undo versions 14 to 11 (11: the episodes' expiry column and its index)."""
    _back_to_version_12(conn)
    conn.execute("DROP INDEX episodes_expiry")
    conn.execute("ALTER TABLE episodes DROP COLUMN expires_at")
    conn.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")


def test_upgrading_a_version_10_file_gives_its_episodes_no_expiry(tmp_path: Path) -> None:
    from memory_platform.models import Episode

    path = tmp_path / "v10.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    kept = Episode(user_id="u", text="we went kayaking today", timestamp=REF)
    store.add_episodes([kept])
    store.close()
    with sqlite3.connect(path) as conn:
        _back_to_version_10(conn)

    store = SQLiteGraphStore(path, SIGNATURE)
    [read] = store.get_episodes("u", [kept.id])
    assert read.expires_at is None and not read.expired(REF)
    ending = Episode(user_id="u", text="a note", timestamp=REF, expires_at=REF)
    store.add_episodes([ending])
    assert store.expired_episode_ids("u", REF) == [ending.id]
    store.close()


def test_upgrading_a_version_11_file_drops_the_words_deleted_before_and_deletes_words_after(
    tmp_path: Path,
) -> None:
    """Files written before version 12 deleted documents without their words (FTS5 kept
    them in its segments until they merged): the upgrade merges those out once and sets
    FTS5 to delete a document's words with it from then on."""
    path = tmp_path / "v11.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    store.add_episodes([Episode(user_id="u", text=f"filler note {i}") for i in range(300)])
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:  # as version 11 left it
        _back_to_version_12(conn)
        conn.execute("INSERT INTO lexical(lexical, rank) VALUES ('secure-delete', 0)")
        conn.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    before, after = store.add_episodes(
        [Episode(user_id="u", text="zqxjvarkelmundo"), Episode(user_id="u", text="zqxjbrontefalis")]
    )
    store.delete_episodes("u", [before])
    store.close()
    stored = stored_bytes(path)
    assert b"varkelmundo" in stored  # what version 11 left behind

    store = SQLiteGraphStore(path, SIGNATURE)
    assert schema_version(store._conn()) == len(MIGRATIONS)
    store.delete_episodes("u", [after])
    assert store.lexical_search("u", "filler", k=3)
    store.close()
    stored = stored_bytes(path)
    assert b"varkelmundo" not in stored and b"brontefalis" not in stored


def test_a_file_of_a_newer_schema_is_refused_with_what_to_do(tmp_path: Path) -> None:
    from memory_platform.errors import ConfigurationError

    path = tmp_path / "newer.db"
    SQLiteGraphStore(path, SIGNATURE).close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                     (str(len(MIGRATIONS) + 1),))  # fmt: skip
    with pytest.raises(ConfigurationError, match=r"newer memory-platform.*upgrade"):
        SQLiteGraphStore(path, SIGNATURE)


def test_a_migration_another_process_ran_first_is_not_run_again(tmp_path: Path) -> None:
    """Two processes opening an old file at once both find it old; the second to take
    the write lock finds the migration done and skips it (adding a column twice fails)."""
    from memory_platform.store.sqlite_schema import apply_migration

    store = SQLiteGraphStore(tmp_path / "m.db", SIGNATURE)  # every migration run
    conn = store._conn()
    assert not apply_migration(conn, len(MIGRATIONS) - 1)  # as the slower process would
    assert schema_version(conn) == len(MIGRATIONS)
    store.close()


def test_upgrading_a_version_9_file_takes_unsearchable_episodes_out_of_both_channels(
    tmp_path: Path,
) -> None:
    from memory_platform.models import Episode
    from memory_platform.textutil import tokens_document, user_token

    path = tmp_path / "v9.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    hidden, later, shown = (
        Episode(user_id="u", text=text, timestamp=REF, metadata=meta)
        for text, meta in (
            ("raw record: kayaks on the lake", {"searchable": False}),
            ("another raw record about kayaks", {"searchable": False}),
            ("we went kayaking today", {}),
        )
    )
    store.add_episodes([hidden, later, shown])
    store.close()
    with sqlite3.connect(path) as conn:  # as version 9 left them: embedded, queued, indexed
        _back_to_version_10(conn)
        conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
        conn.execute(
            "INSERT INTO vectors(user_id, kind, ref_id, embedding) VALUES ('u', 'episode', ?, ?)",
            (hidden.id, np.ones(384, dtype=np.float16).tobytes()),
        )
        conn.execute(
            "INSERT INTO pending_vectors(user_id, kind, ref_id, text)"
            " VALUES ('u', 'episode', ?, ?)",
            (later.id, later.text),
        )
        for item in (hidden, later):
            cur = conn.execute(
                "INSERT INTO lexical_docs(user_id, kind, ref_id) VALUES ('u', 'episode', ?)",
                (item.id,),
            )
            conn.execute(
                "INSERT INTO lexical(rowid, tokens, utok) VALUES (?, ?, ?)",
                (cur.lastrowid, tokens_document(item.text), user_token("u")),
            )

    store = SQLiteGraphStore(path, SIGNATURE)
    assert [p.ref_id for p in store.pending_embeddings("u")] == [shown.id]
    assert store.get_vectors("u", VectorKind.EPISODE, [hidden.id]) == {}
    hits = store.lexical_search("u", "kayaks", kinds=[VectorKind.EPISODE])
    assert [h.ref_id for h in hits] == [shown.id]
    assert len(store.get_episodes("u", [hidden.id, later.id])) == 2  # kept, as they were
    store.close()
    with sqlite3.connect(path) as conn:  # no word statistics of theirs are left either
        assert conn.execute("SELECT count(*) FROM lexical_docs").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM lexical").fetchone() == (1,)


def test_the_vector_cache_stays_within_its_budget_and_reloads_what_it_dropped(
    tmp_path: Path,
) -> None:
    from memory_platform.builder import build_memory
    from memory_platform.tools.arguments import CreateMemoryArgs

    store = SQLiteGraphStore(tmp_path / "c.db", SIGNATURE)
    rng = np.random.default_rng(3)
    expected: dict[str, tuple[str, np.ndarray]] = {}
    for i in range(6):
        user = f"user-{i}"
        graph = build_memory(
            user, CreateMemoryArgs(subject="我", memory_type="事件", topic=f"t{i}")
        )
        store.write_memory(graph)
        vector = rng.standard_normal(384).astype(np.float32)
        store.set_embeddings(user, VectorKind.MEMORY, {graph.memory.id: vector})
        expected[user] = (graph.memory.id, vector)
    store.vector_search("user-0", VectorKind.MEMORY, expected["user-0"][1], k=1)
    one_matrix = store._cache.nbytes  # what one user's matrix of one vector holds
    store.close()
    store = SQLiteGraphStore(tmp_path / "c.db", SIGNATURE, vector_cache_bytes=2 * one_matrix)

    for user, (memory_id, vector) in [*expected.items(), *expected.items()]:
        hits = store.vector_search(user, VectorKind.MEMORY, vector, k=1)
        assert [h.ref_id for h in hits] == [memory_id]  # right after eviction too
        assert store._cache.nbytes <= 2 * one_matrix and len(store._cache) <= 2
    store.close()


def test_vectors_written_as_float32_by_older_versions_are_still_read(tmp_path: Path) -> None:
    from memory_platform.builder import build_memory
    from memory_platform.tools.arguments import CreateMemoryArgs

    path = tmp_path / "mixed.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    rng = np.random.default_rng(5)
    vectors: dict[str, np.ndarray] = {}
    for i in range(3):
        graph = build_memory("u", CreateMemoryArgs(subject="我", memory_type="事件", topic=f"t{i}"))
        store.write_memory(graph)
        vectors[graph.memory.id] = rng.standard_normal(384).astype(np.float32)
        vectors[graph.memory.id] /= np.linalg.norm(vectors[graph.memory.id])
    store.set_embeddings("u", VectorKind.MEMORY, vectors)
    store.close()
    old_id = next(iter(vectors))
    with sqlite3.connect(path) as conn:  # as versions before float16 storage wrote it
        conn.execute(
            "UPDATE vectors SET embedding = ? WHERE ref_id = ?",
            (vectors[old_id].tobytes(), old_id),
        )
    store = SQLiteGraphStore(path, SIGNATURE)
    for ref_id, vector in vectors.items():
        assert store.vector_search("u", VectorKind.MEMORY, vector, k=1)[0].ref_id == ref_id
    read = store.get_vectors("u", VectorKind.MEMORY, list(vectors))
    assert np.array_equal(read[old_id], vectors[old_id])  # float32 kept exactly
    store.close()


def _topic_nodes(store: SQLiteGraphStore, user: str, count: int) -> list[str]:
    from memory_platform.builder import build_memory
    from memory_platform.models import NodeType
    from memory_platform.tools.arguments import CreateMemoryArgs

    ids = []
    for _ in range(count):  # one topic node per memory, as before consolidation
        graph = build_memory(user, CreateMemoryArgs(subject="我", memory_type="事件", topic="工作"))
        store.write_memory(graph)
        topic = graph.node(NodeType.TOPIC)
        assert topic is not None
        ids.append(topic.id)
    return ids


def _unit(rng: np.random.Generator) -> np.ndarray:
    vector = rng.standard_normal(384).astype(np.float32)
    return vector / np.linalg.norm(vector)


def test_nodes_with_identical_vectors_are_scanned_once_and_found_each(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "n.db", SIGNATURE)
    rng = np.random.default_rng(9)
    work, other = _unit(rng), _unit(rng)
    nodes = _topic_nodes(store, "u", 5)
    store.set_embeddings("u", VectorKind.TOPIC, {n: work for n in nodes[:3]} | {nodes[3]: other})
    hits = store.vector_search("u", VectorKind.TOPIC, work, k=10)
    assert [h.ref_id for h in hits] == [*sorted(nodes[:3]), nodes[3]]  # ties by id
    assert hits[0].score == hits[2].score and hits[3].score < 0.5
    assert store._cache._entries[("u", "topic")].distinct == 2  # one row per distinct vector

    store.set_embeddings("u", VectorKind.TOPIC, {nodes[4]: work})  # a later write joins a row
    hits = store.vector_search("u", VectorKind.TOPIC, other, k=10)
    assert hits[0].ref_id == nodes[3] and {h.ref_id for h in hits[1:]} == {*nodes[:3], nodes[4]}
    assert store._cache._entries[("u", "topic")].distinct == 2
    read = store.get_vectors("u", VectorKind.TOPIC, nodes)
    for node in [*nodes[:3], nodes[4]]:
        assert np.allclose(read[node], work, atol=1e-3)
    assert np.allclose(read[nodes[3]], other, atol=1e-3)
    store.close()


def test_a_big_scan_is_split_over_two_threads_with_the_same_scores() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from memory_platform.store import vector_cache

    rng = np.random.default_rng(1)
    rows = (vector_cache._SPLIT_SCAN_BYTES // (384 * 4)) + 101  # just over the split size
    matrix = rng.standard_normal((rows, 384)).astype(np.float32)
    query = rng.standard_normal(384).astype(np.float32)
    used: list[str] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="scan-helper") as helper:
        original = helper.submit

        def spy(fn, *args):  # type: ignore[no-untyped-def]
            used.append("helper")
            return original(fn, *args)

        helper.submit = spy  # type: ignore[method-assign]
        split = vector_cache.scan_scores(matrix, query, helper)
        small = vector_cache.scan_scores(matrix[:1000], query, helper)
    assert used == ["helper"]  # the big matrix only
    assert split.shape == (rows,) and small.shape == (1000,)
    assert np.allclose(split, matrix @ query, atol=1e-4)


def test_one_blas_thread_holds_until_the_last_concurrent_caller_leaves() -> None:
    """threadpoolctl's limit is process-wide: a caller leaving must not lift it while
    another (a search's scan on another thread) is still inside."""
    import threading

    from memory_platform.store import vector_cache

    controller = vector_cache._blas_threads()
    if controller is None:  # pragma: no cover - threadpoolctl comes with the embedder
        pytest.skip("threadpoolctl is not installed")

    def blas_threads() -> int:
        return max(info["num_threads"] for info in controller.info() if info["user_api"] == "blas")

    before = blas_threads()
    inside, left = threading.Event(), threading.Event()
    seen: list[int] = []

    def other() -> None:
        with vector_cache._one_blas_thread():
            inside.set()
        seen.append(blas_threads())  # this caller left; the test's is still inside
        left.set()

    worker = threading.Thread(target=other)
    with vector_cache._one_blas_thread():
        worker.start()
        inside.wait()
        left.wait()  # no timeouts: a loaded machine only makes this slower
        assert seen == [1] and blas_threads() == 1
    worker.join()
    # the last one out (here the main thread, whose raise OpenBLAS honours) restored it
    assert vector_cache._one_blas_thread._inside == 0 and blas_threads() == before


def statements_made(
    store: SQLiteGraphStore, call: Callable[[SQLiteGraphStore], object]
) -> list[str]:
    """The statements ``call`` runs on the store's connection, as run."""
    conn = store._conn()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    call(store)
    conn.set_trace_callback(None)
    return statements


def query_plan(tmp_path: Path, call: Callable[[SQLiteGraphStore], object], table: str) -> str:
    """SQLite's plan for the one statement on ``table`` that ``call`` makes on a new store."""
    store = SQLiteGraphStore(tmp_path / "m.db", SIGNATURE)
    (statement,) = [s for s in statements_made(store, call) if f"FROM {table}" in s]
    plan = " ".join(row[3] for row in store._conn().execute("EXPLAIN QUERY PLAN " + statement))
    store.close()
    return plan


SIX = [f"id-{n}" for n in range(6)]
BY_IDS: dict[str, Callable[[SQLiteGraphStore], object]] = {
    "get_episodes": lambda store: store.get_episodes("u", SIX),
    "next_episode_ids": lambda store: store.next_episode_ids("u", SIX),
    "record_episode_access": lambda store: store.record_episode_access("u", SIX),
    "record_access": lambda store: store.record_access("u", SIX, datetime.now(UTC)),
    "get_nodes": lambda store: store.get_nodes("u", SIX),
    "delete_episodes": lambda store: store.delete_episodes("u", SIX),
    "delete_knowledge": lambda store: store.delete_knowledge("u", SIX),
    "set_embeddings": lambda store: store.set_embeddings(
        "u", VectorKind.TOPIC, {ref: np.ones(384, dtype=np.float32) for ref in SIX}
    ),
}


@pytest.mark.parametrize("call", list(BY_IDS.values()), ids=list(BY_IDS))
def test_items_asked_for_by_id_are_looked_up_by_id_not_through_the_users_index(
    tmp_path: Path, call: Callable[[SQLiteGraphStore], object]
) -> None:
    """With no statistics SQLite's planner takes ``user_id = ?`` for about ten rows, so for
    five ids or more it walked the user's index instead of looking each id up: every turn
    of a user with 100,000 (13 ms) for a search's candidate turns, their next turns and
    the access it records (``benchmarks/micro/lookup_by_ids.py``)."""
    store = SQLiteGraphStore(tmp_path / "m.db", SIGNATURE)
    statements = statements_made(store, call)
    by_ids = [s for s in statements if " IN (" in s and "'id-5'" in s]
    assert by_ids, statements
    for statement in by_ids:
        plan = " | ".join(
            row[3] for row in store._conn().execute("EXPLAIN QUERY PLAN " + statement)
        )
        assert "sqlite_autoindex" in plan and "user_id=?)" not in plan, (statement, plan)
    store.close()


ANALYZED_100K = {  # sqlite_stat1 of `bench --scale 100k`'s store, ANALYZEd: 1,002 users
    "sqlite_autoindex_episodes_1": "102000 1",
    "episodes_next": "102000 2",
    "episodes_user_session": "102000 1001 39 1",
    "episodes_user_speaker": "102000 1001 667 1",
}


def test_the_turns_around_a_new_one_are_found_through_its_session_in_an_analyzed_store(
    tmp_path: Path,
) -> None:
    """The store keeps no statistics, but a tool that opens the file may write them
    (``ANALYZE``, ``PRAGMA optimize``). With those of a store of 100,000 turns, SQLite's
    planner found the turn a new one follows through ``episodes_next`` while the statement
    asked for a turn with no next (taking ``next_id IS NULL`` for two turns: it is every
    session's last), 0.06 -> 3.3 ms a turn (``benchmarks/micro/sqlite_statistics.py``).
    The turns before and after a new one's time are found in its session's range."""
    store = SQLiteGraphStore(tmp_path / "m.db", SIGNATURE)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    session = [
        Episode(user_id="u", session_id="s", text=f"turn {n}", timestamp=start.replace(minute=n))
        for n in range(20)
    ]
    store.add_episodes(session)
    conn = store._conn()
    conn.execute("ANALYZE")
    conn.executemany(
        "UPDATE sqlite_stat1 SET stat = ? WHERE tbl = 'episodes' AND idx = ?",
        [(stat, index) for index, stat in ANALYZED_100K.items()],
    )
    conn.execute("ANALYZE sqlite_schema")  # the statistics are read again
    new = Episode(user_id="u", session_id="s", text="one more", timestamp=start.replace(minute=30))
    statements = statements_made(store, lambda store: store.add_episodes([new]))
    around = [s for s in statements if "ORDER BY timestamp" in s]
    plans = [" | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + s)) for s in around]
    assert len(plans) == 2, statements
    for plan, side in zip(plans, "<>", strict=True):
        assert (
            f"USING INDEX episodes_user_session (user_id=? AND session_id=? AND timestamp{side}?)"
            in plan
        ), plan
    assert store.next_episode_ids("u", [session[-1].id]) == {session[-1].id: new.id}
    store.close()


def test_graph_expansion_reads_from_the_memories_it_reached(tmp_path: Path) -> None:
    """Each hop of the expansion is read from the memories reached, not from every link
    of the user or every row of memory_nodes: SQLite 3.50's planner chose those scans
    (depth-1 searches 22 -> 104 ms on 10,000 memories) until ``CROSS JOIN`` fixed the order."""
    plan = query_plan(tmp_path, lambda store: store.expand("u", ["m1"], depth=2), "level a")
    assert "SCAN l USING INDEX links_user" not in plan, plan
    assert "SCAN x" not in plan and "SCAN l " not in plan, plan
    assert plan.count("SCAN a") == 3, plan


def test_a_memorys_links_are_read_by_its_id_not_by_its_user(tmp_path: Path) -> None:
    """Consolidation asks each memory's links; read through the user's index of links
    that was every link of the user each time (3.3 s of a 5.8 s consolidation)."""
    plan = query_plan(tmp_path, lambda store: store.get_links("u", "m1"), "links")
    assert "MULTI-INDEX OR" in plan and "links_user" not in plan, plan


def test_a_users_turns_of_one_speaker_are_found_by_an_index(tmp_path: Path) -> None:
    """A search asks whether a pasted conversation's speaker has a stored turn; without
    an index that read every turn of the user (12 ms for 100,000;
    ``benchmarks/micro/speaker_lookup.py``)."""
    plan = query_plan(tmp_path, lambda store: store.find_episodes("u", "Lisa", limit=1), "episodes")
    assert "USING INDEX episodes_user_speaker (user_id=? AND speaker=?)" in plan, plan


def test_the_users_with_staged_memories_are_read_from_an_index_of_those_alone(
    tmp_path: Path,
) -> None:
    """Each consolidation beat asks which users have staged memories; the wider index
    on (user, status) made that a read of every memory's entry (3.8 ms for 100,000;
    ``benchmarks/micro/staged_users.py``)."""
    plan = query_plan(tmp_path, lambda store: store.users_with_staged(), "memories")
    assert "USING COVERING INDEX memories_staged" in plan, plan


def test_episodes_of_an_id_prefix_are_read_from_the_id_index(tmp_path: Path) -> None:
    """The LangGraph store lists its items by their id prefix; read through the user's
    index, that was a read of every turn of the user (6 s for 100,000 turns;
    ``benchmarks/micro/store_listing.py``)."""
    plan = query_plan(tmp_path, lambda store: store.list_episodes("u", id_prefix="lg"), "episodes")
    assert "USING INDEX sqlite_autoindex_episodes_1 (id>? AND id<?)" in plan, plan


def test_the_clock_a_user_last_named_is_read_from_an_index_of_clocked_turns(
    tmp_path: Path,
) -> None:
    """Every tool call and search that names no clock asks for it
    (``MemoryPlatform.user_clock``); without the partial index that read and sorted every
    turn of the user (13-33 ms for 100,000; ``benchmarks/micro/latest_turns.py``)."""
    plan = query_plan(tmp_path, lambda store: store.latest_offset("u"), "episodes")
    assert "USING INDEX episodes_clock (user_id=?)" in plan, plan
    assert "TEMP B-TREE" not in plan, plan


def test_expired_episodes_are_read_from_an_index_of_those_that_expire(tmp_path: Path) -> None:
    """The daily purge and the LangGraph store's TTL sweep ask each user for expired
    episodes; by the user's index alone that decoded every turn's metadata."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    plan = query_plan(tmp_path, lambda store: store.expired_episode_ids("u", now), "episodes")
    assert "USING INDEX episodes_expiry (user_id=? AND expires_at>? AND expires_at<?)" in plan, plan


def test_a_deleted_users_words_are_not_left_in_the_full_text_index(tmp_path: Path) -> None:
    """Deleting a user merges the full-text index's segments, which keep a deleted
    document's words until merged: none of the user's words, nor their user token, is left
    in the file, while another user's are found as before."""
    path = tmp_path / "m.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    store.add_episodes([Episode(user_id="keep", text=f"filler note {i} about the weather")
                        for i in range(300)])  # fmt: skip
    words = ["zqxjvarkelmundo", "zqxjbrontefalis"]  # nothing else starts "zqxj"
    store.add_episodes([Episode(user_id="gone", text=f"my safe word is {words[0]}"),
                        Episode(user_id="gone", text=f"the boat is called {words[1]}")])  # fmt: skip
    store.add_episodes([Episode(user_id="keep", text=f"later note {i}") for i in range(300)])
    gone_token = user_token("gone")

    store.delete_user("gone")
    assert store.lexical_search("keep", "weather", [VectorKind.EPISODE], 3)
    [later] = store.add_episodes([Episode(user_id="keep", text="a note on zqxjcastellavor")])
    store.delete_episodes("keep", [later])  # FTS5 deletes words at once again after the merge
    store.close()  # the last connection checkpoints the write-ahead log into the file

    stored = stored_bytes(path)
    for word in [*words, "zqxjcastellavor"]:  # a term may share its first letters with the last
        assert word[4:].encode() not in stored, word
    assert gone_token[4:].encode() not in stored
    assert user_token("keep")[4:].encode() in stored


def test_a_deleted_users_vectors_and_lexical_index_leave_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a search loaded of a user (their vectors, a big user's lexical index) goes
    with the user, not when the caches' budgets would evict it; another user's stays."""
    monkeypatch.setattr(lexical_cache, "INDEX_FROM_DOCUMENTS", 5)  # both get an index
    store = SQLiteGraphStore(tmp_path / "m.db", SIGNATURE)
    rng = np.random.default_rng(0)
    query = rng.standard_normal(SIGNATURE.dimension)
    for user in ("gone", "keep"):
        ids = store.add_episodes(
            [Episode(user_id=user, text=f"note {i} about the weather") for i in range(20)]
        )
        vectors = {ref: rng.standard_normal(SIGNATURE.dimension) for ref in ids}
        assert store.set_embeddings(user, VectorKind.EPISODE, vectors) == 20
        assert store.vector_search(user, VectorKind.EPISODE, query, 3)
        assert store.lexical_search(user, "weather", [VectorKind.EPISODE], 3)
    cache, lexicon = store._cache, store._lexicon  # this process's copies
    held = cache.nbytes
    assert cache.holds("gone", "episode") and sorted(lexicon._entries) == ["gone", "keep"]

    store.delete_user("gone")
    assert not cache.holds("gone", "episode") and cache.holds("keep", "episode")
    assert 0 < cache.nbytes < held
    assert list(lexicon._entries) == ["keep"]
    assert store.vector_search("gone", VectorKind.EPISODE, query, 3) == []
    assert store.lexical_search("gone", "weather", [VectorKind.EPISODE], 3) == []
    assert len(store.vector_search("keep", VectorKind.EPISODE, query, 3)) == 3
    store.close()


def test_a_deleted_turns_and_memorys_text_is_not_left_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deleted rows are zeroed (``secure_delete``): the text of a deleted turn or memory
    cannot be read back from the file, on an SQLite built to keep it too (simulated: each
    connection starts with it off). Nor can its words: FTS5 deletes them from its index
    at once (its own ``secure-delete``), with no merge of the index after."""
    connect = sqlite3.connect

    def connect_keeping_deleted_bytes(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.execute("PRAGMA secure_delete = OFF")
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect_keeping_deleted_bytes)
    path = tmp_path / "m.db"
    store = SQLiteGraphStore(path, SIGNATURE)
    secret = "my bank PIN zqxjvarkelmundo is kept under the blue vase in the hallway"
    store.add_episodes([Episode(user_id="u", text=f"filler note {i} about the weather")
                        for i in range(200)])  # fmt: skip
    secret_turn = Episode(user_id="u", text=secret, timestamp=REF)
    store.add_episodes([secret_turn])
    graph = build_memory("u", CreateMemoryArgs(subject="我", memory_type="事实",
                                               topic="保险箱密码", object="藏在蓝色花瓶下面的钥匙",
                                               attributes={"备注": "zqxjbrontefalis"}))  # fmt: skip
    store.write_memory(graph)
    store.add_episodes([Episode(user_id="u", text=f"later filler {i}") for i in range(200)])
    assert store.lexical_search("u", "zqxjvarkelmundo zqxjbrontefalis", k=5)  # indexed

    store.delete_episodes("u", [secret_turn.id])
    assert store.delete_memory("u", graph.memory.id)
    store.close()  # the last connection checkpoints the write-ahead log into the file

    stored = stored_bytes(path)
    assert secret.encode() not in stored
    assert b"blue vase in the hallway" not in stored
    assert "藏在蓝色花瓶下面的钥匙".encode() not in stored
    for word in (b"zqxjvarkelmundo", b"zqxjbrontefalis"):  # nothing else starts "zqxj"
        assert word[4:] not in stored, word  # a term may share its first letters with the last
    assert b"filler note 17 about the weather" in stored  # what was kept is there
