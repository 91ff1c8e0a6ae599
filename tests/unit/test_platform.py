"""The facade: fast writes, background embedding, recovery after a crash, episodes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memory_platform import InvalidInputError, MemoryPlatform, NotFoundError, Settings
from memory_platform.builder import build_memory
from memory_platform.embeddings import Embedder
from memory_platform.indexing import EmbeddingIndexer
from memory_platform.models import Episode, VectorKind
from memory_platform.store import open_store
from memory_platform.tools.arguments import CreateMemoryArgs
from tests.support.files import stored_bytes

USER = "platform-user"


def test_opens_the_configured_sqlite_store(sqlite_settings: Settings, embedder: Embedder) -> None:
    with MemoryPlatform(
        Settings(backend="sqlite", sqlite_path=sqlite_settings.sqlite_path, _env_file=None),
        embedder=embedder,
    ) as mp:
        assert mp.store.backend_name == "sqlite"
    assert sqlite_settings.sqlite_path.exists()


def test_create_memory_returns_before_embedding_and_becomes_searchable(
    platform: MemoryPlatform, embedder: Embedder
) -> None:
    memory_id = platform.create_memory(
        USER, subject="Melanie", memory_type="event", topic="painted", object="a lake sunrise"
    )

    assert platform.get_memory(USER, memory_id).memory.status.value == "staged"
    assert platform.wait_for_indexing(USER)
    query = embedder.embed(["Melanie's painting of a sunrise"])[0]
    hits = platform.store.vector_search(USER, VectorKind.MEMORY, query, k=1)
    assert hits[0].ref_id == memory_id


def test_memories_written_without_embeddings_are_embedded_on_next_start(
    sqlite_settings: Settings, embedder: Embedder
) -> None:
    # Simulate a crash between the write and its embedding: write through the store only.
    store = open_store(sqlite_settings)
    graph = build_memory(
        USER, CreateMemoryArgs(subject="我", memory_type="事实", topic="喜好", object="爵士乐")
    )
    store.write_memory(graph)
    assert len(store.pending_embeddings(USER)) == 3
    store.close()

    with MemoryPlatform(sqlite_settings, embedder=embedder) as mp:
        assert mp.wait_for_indexing(USER)
        assert mp.stats(USER).vectors == {"memory": 1, "topic": 1, "object": 1}


def test_create_memory_validates_like_the_tool(platform: MemoryPlatform) -> None:
    with pytest.raises(InvalidInputError, match="memory_type"):
        platform.create_memory(USER, subject="我", memory_type="mood", topic="x")
    with pytest.raises(InvalidInputError, match="user_id"):
        platform.create_memory("", subject="我", memory_type="fact", topic="x")
    for attributes in ("x", [1], [("k", "v")]):
        with pytest.raises(InvalidInputError, match="attributes"):
            platform.create_memory(
                USER, subject="我", memory_type="fact", topic="x", attributes=attributes
            )  # type: ignore[arg-type]
    assert platform.stats().memories == 0


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda mp: mp.list_memories(USER, status="retired"), "status"),
        (lambda mp: mp.list_memories(USER, limit=0), "limit"),
        (lambda mp: mp.purge_archived(USER, older_than_days=float("inf")), "older_than_days"),
        (lambda mp: mp.purge_archived(USER, older_than_days=float("nan")), "older_than_days"),
        (lambda mp: mp.purge_archived(USER, older_than_days=0), "older_than_days"),
        (lambda mp: mp.latest_knowledge(USER, top_k=float("nan")), "top_k"),
        (lambda mp: mp.latest_knowledge(USER, top_k=-1), "top_k"),
        (lambda mp: mp.latest_knowledge(USER, min_score="high"), "min_score"),
        (lambda mp: mp.sample_knowledge(USER, min_score=float("nan")), "min_score"),
        (lambda mp: mp.sample_knowledge(USER, top_k=2.5), "top_k"),
        # a lone surrogate (a JSON escape of half a pair) reached the store and raised
        # UnicodeEncodeError; an id of another type, whatever the store made of it
        (lambda mp: mp.get_memory(USER, "m\ud800"), "memory_id"),
        (lambda mp: mp.memory_history(USER, "m\ud800"), "memory_id"),
        (lambda mp: mp.delete_memory(USER, 42), "memory_id"),
        (lambda mp: mp.delete_episodes(USER, ["e\udfff"]), "episode_ids"),
        (lambda mp: mp.forget(USER, "e\udfff"), "item_id"),
        (lambda mp: mp.link_memories(USER, "x\ud800", "y", "相关"), "source_memory_description"),
        (lambda mp: mp.add_media(USER, "photo\x00.png"), "media"),
        # and arguments of the wrong type raised TypeError or AttributeError from inside
        (
            lambda mp: mp.create_memory(USER, "I", "fact", "t", reference_time="now"),
            "reference_time",
        ),
        (lambda mp: mp.extract_knowledge(USER, "s", None), "messages"),
        (lambda mp: mp.summarize_messages(USER, "s", None), "episode_ids"),
        (lambda mp: mp.format_context("what I said"), "results"),
        (lambda mp: mp.import_user(42), "data"),
    ],
)
def test_arguments_out_of_range_or_not_text_are_a_clear_error(
    platform: MemoryPlatform, call: Callable[[MemoryPlatform], object], field: str
) -> None:
    """Each was a TypeError, a UnicodeEncodeError or a silent empty answer."""
    with pytest.raises(InvalidInputError, match=field):
        call(platform)


def test_add_episodes_keeps_metadata_and_parses_times(platform: MemoryPlatform) -> None:
    ids = platform.add_episodes(
        USER,
        [
            {
                "text": "Caroline went to a support group.",
                "timestamp": "2023-05-08T13:56:00",
                "session_id": "s1",
                "speaker": "Caroline",
                "metadata": {"dia_id": "D1:3"},
            },
            {
                "text": "Melanie painted a sunrise.",
                "timestamp": datetime(2023, 5, 8, 14, 0, tzinfo=UTC),
                "session_id": "s1",
                "speaker": "Melanie",
            },
        ],
    )
    single = platform.add_episode(USER, "Later that week they met again.", session_id="s1")

    episodes = {e.id: e for e in platform.store.get_episodes(USER, [*ids, single])}
    assert episodes[ids[0]].metadata == {"dia_id": "D1:3"}
    assert episodes[ids[0]].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert platform.store.next_episode_ids(USER, ids) == {ids[0]: ids[1], ids[1]: single}
    assert platform.wait_for_indexing(USER)
    assert platform.stats(USER).vectors["episode"] == 3


def test_a_speaker_pasted_into_the_text_fills_the_empty_field(platform: MemoryPlatform) -> None:
    transcript = [
        "Caroline: I went to a LGBTQ support group yesterday.",
        'Melanie: "That is great, Caroline!"',
        "Caroline: It was so powerful.",
        "Melanie: I painted a lake sunrise last year.",
        "Note: ask about the adoption agencies.",
        "Q: what did she paint?",
        "A: a lake sunrise",
        "Question: what did she paint?",
        "Question: and when?",
        "From: Caroline",
        "From: Melanie",
    ]
    ids = platform.add_episodes(USER, [{"text": t, "session_id": "s1"} for t in transcript])
    later = platform.add_episodes(
        USER,
        [
            {"text": "Caroline: I'm researching adoption agencies.", "session_id": "s2"},
            {"text": "Jon: my dance studio opened.", "session_id": "s2"},
            {"text": "Melanie: So proud of you!", "session_id": "s2", "speaker": "Mel"},
        ],
    )

    stored = {e.id: e for e in platform.store.get_episodes(USER, ids + later)}
    assert [stored[i].speaker for i in ids] == [
        "Caroline", "Melanie", "Caroline", "Melanie", None, None, None, None, None, None, None,
    ]  # fmt: skip
    assert [stored[i].text for i in ids] == transcript  # the text as given
    # hers already stored; Jon's tag opens one turn only; a given speaker stays
    assert [stored[i].speaker for i in later] == ["Caroline", None, "Mel"]


def test_a_speaker_given_is_kept_and_a_chinese_label_is_none(platform: MemoryPlatform) -> None:
    """A turn stored with its speaker is never re-tagged from its text: its opening tag
    is no turn of that name (one such turn later stays speakerless), and a second turn
    of the tag fills only the turns stored without one. 备注 opening two lines is a label."""
    [given] = platform.add_episodes(
        USER, [{"text": "Melanie: So proud of you!", "session_id": "s1", "speaker": "Mel"}]
    )
    first = platform.add_episode(USER, "Melanie: I painted a lake.", session_id="s1")
    assert platform.store.get_episodes(USER, [first])[0].speaker is None  # one turn of hers
    second = platform.add_episode(USER, "Melanie: And a sunrise.", session_id="s1")
    notes = platform.add_episodes(
        USER, [{"text": f"备注：{t}", "session_id": "s2"} for t in ("带颜料", "给画廊打电话")]
    )
    notes += platform.add_episodes(
        USER, [{"text": f"Monday: {t}", "session_id": "s3"} for t in ("gym", "rest")]
    )  # a day opening two lines names no one either

    stored = {e.id: e.speaker for e in platform.store.get_episodes(USER, [given, first, second])}
    assert stored == {given: "Mel", first: "Melanie", second: "Melanie"}
    assert [e.speaker for e in platform.store.get_episodes(USER, notes)] == [None] * 4


@pytest.mark.parametrize(
    ("episode", "message"),
    [
        ({"text": ""}, "at least 1 character"),
        ({"text": "x", "timestamp": "yesterday-ish"}, "ISO-8601"),
        ({"text": "x", "mood": "sad"}, "unknown keys"),
        ({"text": "x", "metadata": "abc"}, r"metadata: must be a dict"),
        ({"text": "x", "metadata": [["k", "v"]]}, r"metadata: must be a dict"),
        ({"text": "Caroline: hi", "session_id": ["s1"]}, "session_id"),
        ("just text", "must be a dict"),
    ],
)
def test_bad_episodes_are_refused_and_none_written(
    platform: MemoryPlatform, episode: object, message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message):
        platform.add_episodes(USER, [{"text": "fine"}, episode])  # type: ignore[list-item]
    assert platform.stats(USER).episodes == 0


def test_delete_memory_and_user(platform: MemoryPlatform) -> None:
    memory_id = platform.create_memory(
        USER, subject="我", memory_type="事实", topic="住址", object="上海"
    )
    platform.delete_memory(USER, memory_id)
    with pytest.raises(NotFoundError):
        platform.delete_memory(USER, memory_id)
    with pytest.raises(NotFoundError):
        platform.get_memory(USER, memory_id)
    platform.create_memory(USER, subject="我", memory_type="事实", topic="职业", object="老师")
    platform.delete_user(USER)
    assert platform.stats(USER).memories == 0


def test_warm_up_loads_the_models_and_freezes_the_start_up_heap(
    platform: MemoryPlatform,
) -> None:
    """After warm-up a full garbage collection no longer walks what start-up allocated
    (tens of milliseconds per collection otherwise, a stall in one search of thirty)."""
    import gc

    from memory_platform.retrieval import gloss

    gc.unfreeze()
    gloss._tables.pop("people", None)  # as in a new process
    try:
        platform.warm_up()
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # the modules, the models, the platform
        assert platform.embedder.loaded  # type: ignore[attr-defined]
        assert gloss._tables["people"] is not None  # every Chinese search reads it
        assert platform.search("u", "warm", record_access=False) == []
    finally:
        gc.unfreeze()


class _WritesDuringFirstBatch:
    """The real embedder, with one write landing while its first batch is being embedded,
    as a chat message does when it arrives during a background pass."""

    def __init__(self, inner: Embedder, write: Callable[[], object]) -> None:
        self._inner = inner
        self._write: Callable[[], object] | None = write
        self.model_name = inner.model_name
        self.dimension = inner.dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        if self._write is not None:
            write, self._write = self._write, None
            write()
        return self._inner.embed(texts)


def test_a_turn_appended_during_an_embedding_pass_reaches_the_last_turns_vector(
    platform: MemoryPlatform, embedder: Embedder
) -> None:
    assert platform.wait_for_indexing(USER)
    store = platform.store
    start = datetime(2024, 5, 1, tzinfo=UTC)
    said = ["I adopted a puppy.", "Her name is Luna."]
    turns = [
        Episode(user_id=USER, session_id="s", text=text, speaker="Ann",
                timestamp=start + timedelta(minutes=i))
        for i, text in enumerate(said)
    ]  # fmt: skip
    tail = store.add_episodes(turns)[-1]
    later = Episode(user_id=USER, session_id="s", text="She chews my shoes.", speaker="Ann",
                    timestamp=start + timedelta(minutes=5))  # fmt: skip
    racing = _WritesDuringFirstBatch(embedder, lambda: store.add_episodes([later]))

    EmbeddingIndexer(store, racing).run_pass(USER)  # type: ignore[arg-type]

    assert store.pending_embeddings(USER) == []
    stored = store.get_vectors(USER, VectorKind.EPISODE, [tail])[tail]
    whole = embedder.embed(
        ["Ann: I adopted a puppy.\nAnn: Her name is Luna.\nAnn: She chews my shoes."]
    )
    stale = embedder.embed(["Ann: I adopted a puppy.\nAnn: Her name is Luna."])
    assert float(np.dot(stored, whole[0])) > float(np.dot(stored, stale[0]))
    assert float(np.dot(stored, whole[0])) > 0.99


def test_a_forgotten_items_words_are_not_left_in_the_embedded_file(
    sqlite_settings: Settings, embedder: Embedder
) -> None:
    """``forget`` deletes for good: on the embedded store the full-text index deletes a
    document's words with it, so neither a forgotten turn's words nor a forgotten
    memory's are left in the file; what is kept is."""
    secret_words = ["zqxjvarkelmundo", "zqxjbrontefalis"]  # nothing else starts "zqxj"
    with MemoryPlatform(sqlite_settings, embedder=embedder) as mp:
        mp.add_episodes("u", [{"text": f"weather note {i}"} for i in range(200)])
        [turn] = mp.add_episodes("u", [{"text": f"my safe word is {secret_words[0]}"}])
        memory = mp.create_memory("u", "我", "事实", "船名", secret_words[1])
        mp.add_episodes("u", [{"text": f"later note {i}"} for i in range(200)])
        mp.forget("u", turn)
        mp.forget("u", memory)
        assert mp.search("u", "weather note", expand_depth=0)
    stored = stored_bytes(sqlite_settings.sqlite_path)
    for word in secret_words:  # a term may share its first letters with the one before it
        assert word[4:].encode() not in stored, word
    assert b"eather" in stored
