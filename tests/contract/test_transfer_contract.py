"""Export and import on every backend: lossless round trips, refusals that write nothing."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest

from memory_platform import MemoryPlatform
from memory_platform.errors import ConflictError, InvalidInputError
from memory_platform.models import KnowledgePoint, KnowledgeVersion
from tests.support.memories import T0, create

pytestmark = pytest.mark.contract


def rich_user(mp: MemoryPlatform, user: str) -> None:
    """Everything an export must carry: shared and merged nodes, discovered and explicit
    links, an invalidated memory, accessed memories, episodes with and without a session
    (one marked sensitive), and a knowledge version."""
    create(mp, user, subject="我", memory_type="观点", topic="喜欢", object="咖啡", session="s1")
    hate = create(
        mp,
        user,
        T0 + timedelta(hours=1),
        session="s1",
        subject="我",
        memory_type="观点",
        topic="讨厌",
        object="咖啡",
        attributes={"原因": "太苦"},
    )
    bought = create(mp, user, subject="小明", memory_type="事件", topic="买了", object="Coffee")
    create(mp, user, subject="Tom", memory_type="fact", topic="bought", object="coffee!")
    linked = mp.link_memories(user, bought, hate, "导致")
    assert linked["success"], linked
    mp.consolidate(user)  # merges Coffee/coffee!, invalidates the older opinion
    mp.add_episodes(
        user,
        [
            {"text": "I like tea", "session_id": "s1", "speaker": "alice", "timestamp": T0},
            {"text": "me too", "session_id": "s1", "speaker": "bob", "timestamp": T0},
            {
                "text": "a note",
                "metadata": {"dia_id": "D1:3", "n": [1, 2], "sensitive": True},
                "expires_at": "2999-01-01T00:00:00Z",
            },
        ],
    )
    mp.store.add_knowledge_version(
        KnowledgeVersion(
            user_id=user,
            session_id="s1",
            points=[KnowledgePoint(content="likes tea", score=80, metadata={"from": "s1"})],
        )
    )
    mp.search(user, "咖啡")  # access counts and times are part of what is exported


def comparable(lines: list[str]) -> list[dict]:
    """The records of an export, without the one field that must differ (its time)."""
    records = [json.loads(line) for line in lines]
    records[0].pop("exported_at")
    return records


def test_export_import_round_trips_losslessly(mp: MemoryPlatform, users) -> None:
    user = users()
    rich_user(mp, user)
    mp.wait_for_indexing(user)
    vectors = mp.stats(user).vectors
    raw = list(mp.export_user(user))
    before = comparable(raw)
    kinds = [line["type"] for line in before]
    assert kinds[0] == "header" and kinds[-1] == "end"
    assert before[-1]["counts"] == {"memory": 4, "link": 5, "episode": 3, "knowledge": 1}
    assert before[-1]["sensitive"] == 1  # the note, marked by its caller
    assert [
        (r["sensitive"], r["episode"]["expires_at"])
        for r in before
        if r["type"] == "episode" and r["episode"]["text"] == "a note"
    ] == [(True, "2999-01-01T00:00:00Z")]  # an expiry too goes with the data
    assert any(
        n["merged_from"] for line in before if line["type"] == "memory" for n in line["nodes"]
    )
    assert any(line["memory"]["invalid_at"] for line in before if line["type"] == "memory")
    assert sorted(line["link"]["type"] for line in before if line["type"] == "link") == [
        "CAUSES",  # explicit, from link_memories
        "CONFLICTS_WITH",
        "RELATED_TO",  # the two opinions share 咖啡
        "RELATED_TO",  # discovered through the merged coffee node
        "SUPERSEDES",
    ]

    mp.delete_user(user)
    report = mp.import_user(iter(raw))

    assert report.imported == {"memory": 4, "link": 5, "episode": 3, "knowledge": 1}
    assert comparable(list(mp.export_user(user))) == before
    mp.wait_for_indexing(user)
    assert mp.stats(user).vectors == vectors  # rebuilt from the text
    found = mp.search(user, "Tom bought coffee", record_access=False)
    assert found and found[0].text.startswith("Tom")


def test_an_export_holds_the_accesses_of_the_searches_before_it(mp: MemoryPlatform, users) -> None:
    """Searches record their accesses off the caller's path; an export, and a deletion,
    come after every access already recorded. The access writer is held back here until
    a moment after the search returns, so an export that did not wait would miss it
    (whatever the machine's speed, one that waits cannot)."""
    user = users()
    memory_id = create(mp, user, subject="我", memory_type="观点", topic="喜欢", object="咖啡")
    mp.wait_for_indexing(user)
    gate = threading.Event()
    mp._retriever._access_pool.submit(gate.wait)  # the writer's next task waits for it
    assert [r.id for r in mp.search(user, "我喜欢咖啡吗?") if r.layer == "direct"] == [memory_id]
    threading.Timer(0.2, gate.set).start()

    exported = [json.loads(line) for line in mp.export_user(user)]

    (memory,) = [r["memory"] for r in exported if r["type"] == "memory"]
    assert memory["access_count"] == 1 and memory["last_accessed"] is not None
    mp._retriever._access_pool.submit(gate.wait)
    gate.clear()
    mp.search(user, "我喜欢咖啡吗?")
    threading.Timer(0.2, gate.set).start()
    mp.delete_user(user)
    mp.import_user(iter([json.dumps(r) for r in exported]))
    records = [json.loads(line) for line in mp.export_user(user)]
    (again,) = [r["memory"] for r in records if r["type"] == "memory"]
    assert again["access_count"] == 1  # the second search's access died with the user


def test_every_link_and_the_order_of_knowledge_versions_survive_a_round_trip(
    mp: MemoryPlatform, users
) -> None:
    """Links of one kind from one memory to several are each their own line, and the
    versions of knowledge are written back oldest first: the newest is the newest again."""
    user = users()
    cause = create(mp, user, subject="我", memory_type="事件", topic="熬夜", object="加班")
    effects = [
        create(mp, user, subject="我", memory_type="事实", topic=topic, object=thing)
        for topic, thing in (("头疼", "一整天"), ("迟到", "早会"))
    ]
    for effect in effects:
        assert mp.link_memories(user, cause, effect, "导致")["success"]
    for content in ("likes tea", "likes coffee now"):
        mp.store.add_knowledge_version(
            KnowledgeVersion(user_id=user, session_id="s", points=[KnowledgePoint(content=content)])
        )
    lines = mp.export_user(user)
    mp.delete_user(user)

    report = mp.import_user(lines)

    assert report.imported["link"] == 2
    assert sorted(link.target_id for link in mp.store.get_links(user, cause)) == sorted(effects)
    assert [p.content for p in mp.latest_knowledge(user)] == ["likes coffee now"]


@pytest.mark.parametrize("clash", ["episode", "knowledge"])
def test_an_import_that_clashes_after_its_memories_removes_what_it_wrote(
    mp: MemoryPlatform, users, clash: str
) -> None:
    """The memories are written first, then the episodes, then the knowledge: a clash at a
    later kind takes back every memory and episode the import wrote before it."""
    owner, thief = users(), users()
    memory = create(mp, owner, subject="我", memory_type="事实", topic="住在", object="上海")
    [episode] = mp.add_episodes(owner, [{"text": "a turn of the owner's"}])
    mp.store.add_knowledge_version(
        KnowledgeVersion(user_id=owner, session_id="s", points=[KnowledgePoint(content="x")])
    )
    lines = list(mp.export_user(owner))
    mp.delete_memory(owner, memory)  # free again; what is left of the owner's clashes
    if clash == "knowledge":
        mp.delete_episodes(owner, [episode])

    with pytest.raises(ConflictError, match="nothing was imported"):
        mp.import_user(lines, thief)

    assert mp.stats(thief).memories == 0 and mp.stats(thief).episodes == 0


def test_a_second_import_skips_what_is_there(mp: MemoryPlatform, users) -> None:
    user = users()
    rich_user(mp, user)
    lines = list(mp.export_user(user))

    again = mp.import_user(lines)

    links = sum(1 for line in lines if '"type": "link"' in line)
    assert links >= 1
    assert again.imported == {"memory": 0, "link": 0, "episode": 0, "knowledge": 0}
    assert again.skipped == {"memory": 4, "link": links, "episode": 3, "knowledge": 1}
    assert mp.stats(user).memories == 4 and mp.stats(user).episodes == 3


def test_the_header_user_id_is_stored_as_the_platform_reads_it(mp: MemoryPlatform, users) -> None:
    source, target = users(), users()
    create(mp, source, subject="我", memory_type="事实", topic="住在", object="上海")
    lines = [json.loads(line) for line in mp.export_user(source)]
    lines[0]["user_id"] = f"  {target} "  # padded, as a hand-edited file might be
    mp.delete_user(source)  # ids are kept, so the source must be gone from this store

    report = mp.import_user([json.dumps(line, ensure_ascii=False) for line in lines])

    assert report.user_id == target
    assert mp.stats(target).memories == 1 and mp.list_memories(target)[0].text.startswith("我")


def test_an_import_that_clashes_half_way_writes_nothing(mp: MemoryPlatform, users) -> None:
    owner, thief = users(), users()
    first = create(mp, owner, subject="我", memory_type="事实", topic="住在", object="上海")
    create(mp, owner, T0 + timedelta(hours=1), subject="我", memory_type="事实", topic="喜欢",
           object="咖啡")  # fmt: skip
    mp.add_episodes(owner, [{"text": "a turn of the owner's"}])
    lines = list(mp.export_user(owner))
    mp.delete_memory(owner, first)  # the first id is free again; the second is still owned

    with pytest.raises(ConflictError, match="nothing was imported"):
        mp.import_user(lines, thief)

    assert mp.stats(thief).memories == 0 and mp.stats(thief).episodes == 0
    assert mp.stats(owner).memories == 1 and mp.stats(owner).episodes == 1


def with_nan_metadata(lines: list[str]) -> list[str]:
    """The export with NaN (which Python's JSON writes and reads, and JSON has not) in the
    metadata of its last episode."""
    last = max(i for i, line in enumerate(lines) if json.loads(line).get("type") == "episode")
    record = json.loads(lines[last])
    record["episode"]["metadata"] = {**record["episode"]["metadata"], "score": float("nan")}
    return [*lines[:last], json.dumps(record), *lines[last + 1 :]]


def with_a_count_moved(lines: list[str]) -> list[str]:
    """The export whose end line has the right total, one of it counted as another kind."""
    end = json.loads(lines[-1])
    end["counts"]["memory"] -= 1
    end["counts"]["episode"] += 1
    return [*lines[:-1], json.dumps(end)]


def of_a_later_version(lines: list[str]) -> list[str]:
    """The export as a later release of the format would head it."""
    header = json.loads(lines[0])
    return [json.dumps({**header, "version": header["version"] + 1}), *lines[1:]]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda lines: lines[:-1], "truncated"),
        (lambda lines: [*lines, *lines], "in the middle"),  # two exports pasted together
        (of_a_later_version, "this release reads"),
        (lambda lines: lines[1:], "no header"),
        (lambda lines: [*lines[:2], "{not json", *lines[2:]], "line 3"),
        (lambda lines: [lines[0], *lines[2:]], "end line counts"),
        (with_a_count_moved, "end line counts"),
        (with_nan_metadata, "NaN"),  # the store would refuse it mid-way
    ],
)
def test_a_damaged_file_is_refused_before_anything_is_written(
    mp: MemoryPlatform, users, damage, message: str
) -> None:
    source, target = users(), users()
    rich_user(mp, source)
    lines = list(mp.export_user(source))

    with pytest.raises(InvalidInputError, match=message):
        mp.import_user(damage(lines), user_id=target)

    assert mp.stats(target).memories == 0 and mp.stats(target).episodes == 0


def test_import_accepts_lines_dicts_text_files_and_either_argument_order(
    mp: MemoryPlatform, users, tmp_path
) -> None:
    source = users()
    create(mp, source, subject="我", memory_type="事实", topic="住在", object="上海")
    lines = mp.export_user(source)
    file = tmp_path / "export.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    edited = tmp_path / "edited.jsonl"  # on Windows, and with a blank line at its end
    edited.write_bytes(("\r\n".join(lines) + "\r\n\r\n").encode())
    mp.delete_user(source)

    shapes = [
        lambda: mp.import_user(lines),
        lambda: mp.import_user([json.loads(line) for line in lines]),
        lambda: mp.import_user("\n".join(lines)),
        lambda: mp.import_user(file),
        lambda: mp.import_user(str(file)),
        lambda: mp.import_user(edited),
        lambda: mp.import_user([lines[0], "", *lines[1:], "  "]),
        lambda: mp.import_user(source, lines),
        lambda: mp.import_user(lines, user_id=source),
    ]
    for shape in shapes:
        report = shape()
        assert report.user_id == source
        assert mp.stats(source).memories == 1
        mp.delete_user(source)
