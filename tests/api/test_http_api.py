"""The HTTP API through a real HTTP client against uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memory_platform import MemoryPlatform, Settings
from memory_platform.api import create_app
from memory_platform.config import ApiSettings
from memory_platform.embeddings import Embedder, make_embedder
from memory_platform.errors import (
    BackendUnavailable,
    ConfigurationError,
    ConflictError,
    ExtractionError,
    InvalidInputError,
    JobStopped,
    NotFoundError,
    QueueUnavailable,
    UserBusy,
)
from memory_platform.llm import LLMUnavailableError
from tests.support.jobs import wait_for
from tests.support.net import free_port, serve
from tests.support.openai_stub import OpenAIStub
from tests.unit.test_extraction import GOOD

ALICE_KEY = "alice-key-0123"
TEAM_KEY = "team-key-0123"
ADMIN_KEY = "admin-key-0123"
KEYS = {ALICE_KEY: ["alice"], TEAM_KEY: ["team-*"], ADMIN_KEY: ["*"]}
WHEN = {"reference_time": "2025-11-05T10:00:00+08:00"}


@pytest.fixture
def mp(tmp_path: Path, embedder: Embedder, stub: OpenAIStub) -> Iterator[MemoryPlatform]:
    settings = Settings(
        sqlite_path=tmp_path / "api.db",
        llm_base_url=stub.base_url,
        api=ApiSettings(keys=KEYS),
        _env_file=None,
    )
    with MemoryPlatform(settings, embedder=embedder) as platform:
        yield platform


@pytest.fixture
def base_url(mp: MemoryPlatform) -> Iterator[str]:
    with serve(create_app(mp)) as url:
        mp.start_warm_up().join()  # the app started it; /ready is 503 until it ends
        yield url


@pytest.fixture
def alice(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, headers={"X-API-Key": ALICE_KEY}, timeout=None) as client:
        yield client


def memory(subject: str, topic: str, obj: str, kind: str = "事实", **attributes: str) -> dict:
    return {
        "subject": subject,
        "memory_type": kind,
        "topic": topic,
        "object": obj,
        "attributes": attributes,
    }


def test_memories_links_and_layered_search(alice: httpx.Client, mp: MemoryPlatform) -> None:
    created = alice.post(
        "/v1/users/alice/memories", json=memory("我", "心情", "不好", 时间="今天"), params=WHEN
    )
    assert created.status_code == 201, created.text
    mood = created.json()["memory"]
    assert mood["user_id"] == "alice" and mood["status"] == "staged"
    assert {n["kind"] for n in created.json()["nodes"]} == {"Subject", "Topic", "Object", "Value"}
    tool = alice.post(
        "/v1/users/alice/tools/create_memory",
        json=memory("我", "睡眠", "不好", "事件", 时间="昨晚"),
        params=WHEN,
    )
    assert tool.status_code == 200 and tool.json()["success"], tool.text
    linked = alice.post(
        "/v1/users/alice/links",
        json={
            "source_memory_description": tool.json()["memory_id"],
            "target_memory_description": mood["id"],
            "relation_type": "导致",
        },
    )
    assert linked.status_code == 200 and linked.json()["success"], linked.text
    mp.wait_for_indexing("alice")

    found = alice.post(
        "/v1/users/alice/search", json={"query": "我为什么今天不开心?", "expand_depth": 1}
    )

    assert found.status_code == 200, found.text
    results = found.json()["results"]
    assert [r["layer"] for r in results] == ["direct", "related"]
    assert results[0]["id"] == mood["id"]
    assert set(results[0]["components"]) >= {"semantic", "importance", "graph", "recency"}
    assert 0.2 <= results[0]["relevance"] <= 1.0
    assert "<memory_context>" in found.json()["context"]
    strict = alice.post(
        "/v1/users/alice/search", json={"query": "我为什么今天不开心?", "min_relevance": 1.0}
    )
    assert strict.status_code == 200 and strict.json()["results"] == []
    assert "<no_relevant_memory>" in strict.json()["context"]
    bad = alice.post("/v1/users/alice/search", json={"query": "x", "min_relevance": 2})
    assert bad.status_code == 422 and "min_relevance" in bad.text

    def found(query: str, **options: object) -> list[tuple[str, str]]:
        response = alice.post("/v1/users/alice/search", json={"query": query, **options})
        assert response.status_code == 200, response.text
        return [(r["id"], r["layer"]) for r in response.json()["results"]]

    sleep = tool.json()["memory_id"]
    accessed = mp.get_memory("alice", mood["id"]).memory.access_count
    why = "我为什么今天不开心?"
    assert found(why, expand_depth=1, record_access=False) == [
        (mood["id"], "direct"), (sleep, "related"),
    ]  # fmt: skip
    assert mp.get_memory("alice", mood["id"]).memory.access_count == accessed  # not recorded
    along = found(why, expand_depth=1, relation_types=["RELATED_TO"])
    assert (sleep, "related") not in along  # the cause is no RELATED_TO neighbour
    assert found(why, kinds=["episode"]) == []
    mp.update_memory("alice", sleep, action="retract")
    assert sleep not in dict(found("昨晚睡眠不好"))
    assert sleep in dict(found("昨晚睡眠不好", include_invalid=True))
    record = alice.get(f"/v1/users/alice/memories/{mood['id']}").json()
    assert [link["type"] for link in record["links"]] == ["CAUSES"]
    listed = alice.get("/v1/users/alice/memories", params={"limit": 1, "offset": 1}).json()
    assert [m["id"] for m in listed] == [tool.json()["memory_id"]]

    assert alice.delete(f"/v1/users/alice/memories/{mood['id']}").status_code == 204
    gone = alice.get(f"/v1/users/alice/memories/{mood['id']}")
    assert gone.status_code == 404 and mood["id"] in gone.json()["error"]


def test_an_ambiguous_link_is_refused_with_candidates(alice: httpx.Client) -> None:
    for obj in ("咖啡", "红茶"):
        alice.post("/v1/users/alice/memories", json=memory("我", "喜欢", obj, "观点"))
    refused = alice.post(
        "/v1/users/alice/links",
        json={
            "source_memory_description": "我喜欢",
            "target_memory_description": "no such memory at all",
            "relation_type": "related",
        },
    )
    assert refused.status_code == 422
    assert refused.json()["success"] is False and refused.json()["error"]


@pytest.mark.parametrize(
    ("headers", "user", "status"),
    [
        ({}, "alice", 401),
        ({"X-API-Key": "wrong-key-0123"}, "alice", 401),
        ({"X-API-Key": "alice-key-0124"}, "alice", 401),  # a key differing only at its end
        ({"X-API-Key": ALICE_KEY[:-1]}, "alice", 401),  # a key's prefix
        ({"X-API-Key": ALICE_KEY + "4"}, "alice", 401),  # a key and more
        ({"X-API-Key": ALICE_KEY}, "bob", 403),
        ({"Authorization": f"Bearer {ALICE_KEY}"}, "alice", 200),
        ({"Authorization": f"Bearer {ALICE_KEY}"}, "bob", 403),
        ({"X-API-Key": TEAM_KEY}, "team-red", 200),
        ({"X-API-Key": TEAM_KEY}, "alice", 403),
        ({"X-API-Key": ALICE_KEY}, "Alice", 403),  # user ids are case-sensitive
        ({"X-API-Key": TEAM_KEY}, "TEAM-red", 403),  # and so are a key's patterns
        ({"X-API-Key": ADMIN_KEY}, "anyone", 200),
    ],
)
def test_each_key_reaches_only_its_users(
    base_url: str, headers: dict[str, str], user: str, status: int
) -> None:
    with httpx.Client(base_url=base_url, headers=headers, timeout=None) as client:
        for method, path in (("GET", "stats"), ("POST", "search"), ("DELETE", "")):
            body = {"query": "anything"} if method == "POST" else None
            params = {"confirm": user} if method == "DELETE" else None
            response = client.request(
                method, f"/v1/users/{user}/{path}".rstrip("/"), json=body, params=params
            )
            expected = 204 if (status == 200 and method == "DELETE") else status
            assert response.status_code == expected, (method, path, response.text)
            if status >= 400:
                assert response.json()["error"]
            # RFC 9110 §11.6.1: a 401 says how to authenticate, a 403 does not
            challenge = response.headers.get("www-authenticate")
            assert challenge == ("Bearer" if status == 401 else None)


def test_another_users_data_is_refused_even_with_its_memory_id(
    base_url: str, alice: httpx.Client
) -> None:
    with httpx.Client(base_url=base_url, headers={"X-API-Key": ADMIN_KEY}, timeout=None) as admin:
        bob_memory = admin.post("/v1/users/bob/memories", json=memory("我", "住在", "上海")).json()[
            "memory"
        ]["id"]
    assert alice.get(f"/v1/users/bob/memories/{bob_memory}").status_code == 403
    assert alice.get(f"/v1/users/alice/memories/{bob_memory}").status_code == 404
    assert alice.delete(f"/v1/users/alice/memories/{bob_memory}").status_code == 404


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("search", {}, "body.query"),
        ("search", {"query": "x", "max_results": 1000}, "body.max_results"),
        ("search", {"query": "x", "mode": "slow"}, "body.mode"),
        ("search", {"query": "x", "unknown": 1}, "body.unknown"),
        ("memories", {"subject": "我", "memory_type": "diary", "topic": "t"}, "body.memory_type"),
        ("memories", {"subject": "", "memory_type": "事实", "topic": "t"}, "body.subject"),
        ("memories", [1, 2], "body"),
        ("links", {"source_memory_description": "a"}, "body.target_memory_description"),
        ("sessions/s1/messages", {"messages": []}, "body.messages"),
        ("tool-calls", {"message": {"tool_calls": 5}}, "body.message.tool_calls"),
        ("tool-calls", {"message": {"tool_calls": [{"id": "c", "function": []}]}}, "body.message"),
        ("sessions/s1/messages", {"messages": [{"role": "robot", "content": "x"}]}, "body"),
        ("episodes", {"episodes": []}, "body.episodes"),
        ("episodes", {"episodes": [{"text": "x", "said_by": "me"}]}, "body.episodes"),
        ("episodes", {"episodes": [{"text": "x", "importance": 2}]}, "body.episodes"),
        ("episodes", {"episodes": [{"text": "   "}]}, "episodes[0]"),
        ("episodes", {"episodes": [{"text": "x", "expires_at": "soon"}]}, "body.episodes"),
        # a time whose UTC date falls before year 1: no date, not an internal error
        (
            "episodes",
            {"episodes": [{"text": "x", "timestamp": "0001-01-01T00:00+01:00"}]},
            "episodes[0]",
        ),
        (
            "sessions/s1/messages",
            {"messages": [{"role": "user", "content": "x", "timestamp": "9999-12-31T23:00-05:00"}]},
            "body.messages",
        ),
    ],
)
def test_invalid_requests_get_a_clear_422(
    alice: httpx.Client, path: str, body: object, field: str
) -> None:
    response = alice.post(f"/v1/users/alice/{path}", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["field"].startswith(field)
    assert response.json()["error"]


@pytest.mark.parametrize(
    ("value", "says"), [("NaN", "NaN"), ('"half \\ud800 a pair"', "lone surrogate")]
)
def test_what_json_text_cannot_hold_in_metadata_is_a_422_naming_it(
    alice: httpx.Client, value: str, says: str
) -> None:
    """Python's JSON parser reads NaN and Infinity, which JSON has not, and a lone
    surrogate's escape, which UTF-8 has no form for: the metadata that holds one is
    refused by name (a 500 from SQLite's JSON functions, or from encoding the row)."""
    body = '{"episodes": [{"text": "a note", "metadata": {"score": ' + value + "}}]}"
    response = alice.post(
        "/v1/users/alice/episodes", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "metadata" and says in response.json()["error"]


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (InvalidInputError("must be a number", "stars"), 422),
        (NotFoundError("memory", "m1"), 404),
        (ConflictError("the id is another user's"), 409),
        (JobStopped("user alice is being deleted; the job stopped"), 409),
        (UserBusy("a job of alice holds the user"), 503),
        (BackendUnavailable("Neo4j does not answer"), 503),
        (LLMUnavailableError("the LLM endpoint answered 429"), 503),
        (QueueUnavailable("Redis does not answer"), 503),
        (ExtractionError("the LLM gave no valid answer"), 500),
    ],
)
def test_each_platform_error_has_its_status(
    mp: MemoryPlatform, error: Exception, status: int
) -> None:
    """What a route raises decides the status: an import stopped by its user's deletion
    (``JobStopped``) is a conflict with that deletion, not a server fault (it was a 500);
    every 503 says when to ask again."""
    app = create_app(mp)

    def failing() -> None:
        raise error

    app.add_api_route("/failing", failing)
    with serve(app) as url:
        response = httpx.get(f"{url}/failing", timeout=None)
    assert response.status_code == status
    assert response.json()["error"] == str(error)
    assert (response.headers.get("retry-after") == "5") is (status == 503)


def test_malformed_json_and_bad_query_parameters_are_4xx(alice: httpx.Client) -> None:
    broken = alice.post(
        "/v1/users/alice/search",
        content=b'{"query": ',
        headers={"Content-Type": "application/json"},
    )
    assert broken.status_code == 422 and "JSON" in broken.json()["error"]
    assert alice.get("/v1/users/alice/memories", params={"limit": -1}).status_code == 422
    assert alice.get("/v1/users/alice/memories", params={"status": "lost"}).status_code == 422
    bad_time = alice.post(
        "/v1/users/alice/search", json={"query": "x"}, params={"reference_time": "soon"}
    )
    assert bad_time.status_code == 422 and bad_time.json()["field"] == "query.reference_time"


def test_tool_calls_never_fail_the_request(alice: httpx.Client) -> None:
    unknown = alice.post("/v1/users/alice/tools/forget_everything", json={})
    assert unknown.status_code == 200 and unknown.json()["success"] is False
    assert "create_memory" in unknown.json()["error"]
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "create_memory",
                    "arguments": json.dumps(memory("我", "喜欢", "爬山", "观点")),
                },
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "search_memories", "arguments": "{not json"},
            },
        ],
    }
    replies = alice.post("/v1/users/alice/tool-calls", json={"message": message}).json()
    assert [r["tool_call_id"] for r in replies] == ["call_1", "call_2"]
    outcome = [json.loads(r["content"])["success"] for r in replies]
    assert outcome == [True, False]


def test_turns_and_notes_are_stored_as_episodes_with_their_speaker_and_metadata(
    alice: httpx.Client, mp: MemoryPlatform
) -> None:
    """``POST /episodes`` stores what ``mp.add_episodes`` stores: the speaker as a field,
    metadata returned unchanged by search, a time as given."""
    episodes = [
        {"text": "I adopted a beagle named Max", "speaker": "Caroline", "session_id": "c1",
         "timestamp": "2023-05-08T13:56:00Z", "metadata": {"dia_id": "D1:3"}},
        {"text": "Caroline's dog loves the beach", "metadata": {"searchable": False}},
    ]  # fmt: skip
    added = alice.post("/v1/users/alice/episodes", json={"episodes": episodes})

    assert added.status_code == 201, added.text
    said, note = added.json()["episode_ids"]
    stored = {e.id: e for e in mp.store.get_episodes("alice", [said, note])}
    assert stored[said].speaker == "Caroline" and stored[said].session_id == "c1"
    assert stored[said].timestamp.isoformat() == "2023-05-08T13:56:00+00:00"
    assert mp.wait_for_indexing("alice")
    found = alice.post("/v1/users/alice/search", json={"query": "What breed is Caroline's dog?"})
    results = found.json()["results"]
    assert results[0]["id"] == said and results[0]["metadata"] == {"dia_id": "D1:3"}
    assert note not in {r["id"] for r in results}  # kept, never matched
    assert mp.store.get_episodes("bob", [said]) == []  # stored for alice alone


def test_a_session_ends_in_an_extraction_job_and_knowledge(
    alice: httpx.Client, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD, ensure_ascii=False))
    messages = [
        {"role": "user", "content": "我下周要去成都出差,顺便想吃火锅"},
        {"role": "assistant", "content": "好的,记下了"},
    ]
    added = alice.post("/v1/users/alice/sessions/s1/messages", json={"messages": messages})
    assert added.status_code == 201 and len(added.json()["episode_ids"]) == 2
    recent = alice.get("/v1/users/alice/sessions/s1/messages").json()["messages"]
    assert [m["role"] for m in recent] == ["user", "assistant"]

    ended = alice.post("/v1/users/alice/sessions/s1/end")
    assert ended.status_code == 202
    job_id = ended.json()["job_id"]
    state = wait_for(lambda: alice.get(f"/v1/users/alice/jobs/{job_id}").json())

    assert state["state"] == "SUCCESS" and state["result"]["status"] == "done", state
    latest = alice.get("/v1/users/alice/knowledge/latest").json()["points"]
    assert [p["content"] for p in latest][:2] == ["用户喜欢吃辣,尤其是火锅", "出差前提醒用户订酒店"]
    sampled = alice.get("/v1/users/alice/knowledge/sample", params={"top_k": 1, "seed": 3})
    assert len(sampled.json()["points"]) == 1
    with httpx.Client(
        base_url=str(alice.base_url), headers={"X-API-Key": ADMIN_KEY}, timeout=None
    ) as admin:
        assert admin.get(f"/v1/users/bob/jobs/{job_id}").status_code == 404


def test_a_pending_job_is_visible_to_its_owner_only_and_ids_are_unguessable(
    alice: httpx.Client, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD, ensure_ascii=False), delay=5)  # keeps the job pending
    alice.post(
        "/v1/users/alice/sessions/s1/messages",
        json={"messages": [{"role": "user", "content": "我下周要去成都出差"}]},
    )
    job_id = alice.post("/v1/users/alice/sessions/s1/end").json()["job_id"]
    again = alice.post("/v1/users/alice/sessions/s1/end").json()["job_id"]

    assert again == job_id  # ending a session twice is still one job
    assert "s1" not in job_id and "alice" not in job_id and len(job_id) >= 32
    with httpx.Client(
        base_url=str(alice.base_url), headers={"X-API-Key": ADMIN_KEY}, timeout=None
    ) as admin:
        # neither the pending job of another user nor an id never issued tells anything
        assert admin.get(f"/v1/users/bob/jobs/{job_id}").status_code == 404
        never = admin.get("/v1/users/bob/jobs/extract-00000000000000000000000000000000")
        assert never.status_code == 404
    assert alice.get(f"/v1/users/alice/jobs/{job_id}").json()["state"] in {"PENDING", "SUCCESS"}
    wait_for(lambda: alice.get(f"/v1/users/alice/jobs/{job_id}").json())


def test_consolidation_job_runs_for_the_user(alice: httpx.Client) -> None:
    alice.post("/v1/users/alice/memories", json=memory("我", "喜欢", "Coffee", "观点"))
    alice.post("/v1/users/alice/memories", json=memory("Tom", "bought", "coffee!", "事件"))
    job = alice.post("/v1/users/alice/consolidate")
    assert job.status_code == 202
    state = wait_for(lambda: alice.get(f"/v1/users/alice/jobs/{job.json()['job_id']}").json())
    assert state["state"] == "SUCCESS" and state["result"]["nodes_merged"] == 1, state
    assert alice.get("/v1/users/alice/stats").json()["staged"] == 0


def test_deleting_a_user_whose_job_is_running_answers_503_and_deletes_nothing(
    tmp_path: Path, embedder: Embedder, stub: OpenAIStub
) -> None:
    """Over HTTP: the user's extraction is waiting for the LLM, so the deletion (not
    waiting here, ``lock_wait`` 0) answers 503 with what to do and deletes nothing; once
    the job is done the same request deletes the user, the job's memories too."""
    settings = Settings(
        sqlite_path=tmp_path / "api.db",
        llm_base_url=stub.base_url,
        api=ApiSettings(keys=KEYS),
        worker={"lock_wait": 0},
        _env_file=None,
    )
    release = threading.Event()
    stub.reply(json.dumps(GOOD, ensure_ascii=False), hold=release)
    with (
        MemoryPlatform(settings, embedder=embedder) as platform,
        serve(create_app(platform)) as url,
        httpx.Client(base_url=url, headers={"X-API-Key": ALICE_KEY}, timeout=None) as alice,
    ):
        messages = [{"role": "user", "content": "我下周去成都,想吃火锅"}]
        alice.post("/v1/users/alice/sessions/s1/messages", json={"messages": messages})
        job = alice.post("/v1/users/alice/sessions/s1/end").json()["job_id"]
        assert stub.holding.wait(180)  # the extraction is asking the LLM
        try:
            busy = alice.delete("/v1/users/alice", params={"confirm": "alice"})
            assert busy.status_code == 503 and "try again" in busy.json()["error"]
            assert busy.headers["retry-after"] == "5"
            assert alice.get("/v1/users/alice/stats").json()["episodes"] == 1
        finally:
            release.set()
        state = wait_for(lambda: alice.get(f"/v1/users/alice/jobs/{job}").json())
        assert state["state"] == "SUCCESS", state
        assert alice.delete("/v1/users/alice", params={"confirm": "alice"}).status_code == 204
        stats = alice.get("/v1/users/alice/stats").json()
        assert (stats["memories"], stats["episodes"], stats["knowledge_versions"]) == (0, 0, 0)


def test_export_delete_import_round_trip(alice: httpx.Client, mp: MemoryPlatform) -> None:
    alice.post("/v1/users/alice/memories", json=memory("我", "住在", "上海"), params=WHEN)
    alice.post(
        "/v1/users/alice/sessions/s1/messages",
        json={"messages": [{"role": "user", "content": "hi"}]},
    )
    exported = alice.get("/v1/users/alice/export")
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = exported.text.splitlines()
    assert json.loads(lines[-1])["counts"] == {"memory": 1, "link": 0, "episode": 1, "knowledge": 0}

    # a client that normalises dot segments sends DELETE /v1/users/alice: refused
    dotted = alice.delete("/v1/users/alice/memories/..")
    assert dotted.status_code == 422 and "confirm" in dotted.json()["error"]
    assert alice.delete("/v1/users/alice", params={"confirm": "bob"}).status_code == 422
    assert alice.get("/v1/users/alice/stats").json()["memories"] == 1
    assert alice.delete("/v1/users/alice", params={"confirm": "alice"}).status_code == 204
    assert alice.get("/v1/users/alice/stats").json()["memories"] == 0
    truncated = alice.post("/v1/users/alice/import", content="\n".join(lines[:-1]))
    assert truncated.status_code == 422 and "truncated" in truncated.json()["error"]
    latin1 = alice.post("/v1/users/alice/import", content="\n".join(lines).encode("utf-16"))
    assert latin1.status_code == 422 and latin1.json()["field"] == "body"
    assert alice.get("/v1/users/alice/stats").json()["memories"] == 0

    imported = alice.post(
        "/v1/users/alice/import",
        content=exported.content,
        headers={"Content-Type": "application/x-ndjson"},
    )

    assert imported.status_code == 200, imported.text
    assert imported.json()["imported"] == {"memory": 1, "link": 0, "episode": 1, "knowledge": 0}
    again = alice.get("/v1/users/alice/export").text.splitlines()
    assert again[1:] == lines[1:]


def test_oversized_bodies_are_413_before_they_are_read(alice: httpx.Client) -> None:
    big = b'{"query": "' + b"x" * 2_000_000 + b'"}'
    declared = alice.post(
        "/v1/users/alice/memories", content=big, headers={"content-type": "application/json"}
    )
    assert declared.status_code == 413 and "larger than 1000000 bytes" in declared.json()["error"]
    at_the_limit = b'{"query": "' + b"x" * (1_000_000 - 13) + b'"}'
    assert len(at_the_limit) == 1_000_000
    read = alice.post(
        "/v1/users/alice/search", content=at_the_limit, headers={"content-type": "application/json"}
    )
    assert read.status_code == 422 and read.json()["field"] != "body"  # read, then judged

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"query": "'
        for _ in range(40):
            yield b"y" * 50_000
        yield b'"}'

    streamed = alice.post(
        "/v1/users/alice/search", content=chunks(), headers={"content-type": "application/json"}
    )
    assert streamed.status_code == 413
    imported = alice.post("/v1/users/alice/import", content=b"x" * 2_000_000)
    assert imported.status_code == 422  # imports may be larger; this one is just not JSON Lines
    assert alice.get("/v1/users/alice/stats").json()["memories"] == 0


def test_health_readiness_tools_and_openapi(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=None) as client:
        assert client.get("/health").json()["status"] == "ok"
        ready = client.get("/ready").json()
        assert ready["ready"] is True and ready["store"]["ok"] is True
        assert ready["store"]["lexical_index"] == "current"
        assert ready["workers"]["mode"] == "in-process"
        tools = client.get("/v1/tools", params={"lang": "en"}).json()
        assert [t["function"]["name"] for t in tools] == [
            "create_memory",
            "link_memories",
            "search_memories",
        ]
        spec = client.get("/openapi.json").json()
    assert spec["info"]["title"] == "memory-platform"
    assert all(path.startswith(("/v1/", "/health", "/ready")) for path in spec["paths"])
    assert {"/v1/users/{user_id}/search", "/v1/users/{user_id}/export"} <= set(spec["paths"])
    assert {"APIKeyHeader", "HTTPBearer"} <= set(spec["components"]["securitySchemes"])


@pytest.mark.slow
def test_the_server_loads_the_model_at_start_and_is_ready_after(tmp_path: Path) -> None:
    cold = make_embedder(Settings(_env_file=None))  # a fresh model object, not yet loaded
    settings = Settings(
        sqlite_path=tmp_path / "cold.db", api=ApiSettings(keys=KEYS), _env_file=None
    )
    with MemoryPlatform(settings, embedder=cold) as platform:
        assert platform.health()["models"] == {"ok": True, "detail": "loaded"}  # no warm-up yet
        with serve(create_app(platform)) as url, httpx.Client(base_url=url, timeout=None) as client:
            warm_up = platform.start_warm_up()
            warm_up.join()
            ready = client.get("/ready")
            assert ready.status_code == 200 and ready.json()["models"]["detail"] == "loaded"
            assert cold.loaded  # type: ignore[attr-defined]  # loaded by start-up, not by a request
            stats = client.get("/v1/users/alice/stats", headers={"X-API-Key": ALICE_KEY})
            assert stats.status_code == 200


def test_readiness_fails_when_redis_does_not_answer(tmp_path: Path, embedder: Embedder) -> None:
    settings = Settings(
        sqlite_path=tmp_path / "r.db",
        redis_url="redis://127.0.0.1:1/0",
        api=ApiSettings(allow_anonymous=True),
        _env_file=None,
    )
    with MemoryPlatform(settings, embedder=embedder) as mp, serve(create_app(mp)) as url:
        response = httpx.get(f"{url}/ready", timeout=None)
    assert response.status_code == 503 and response.headers["retry-after"] == "5"
    assert response.json()["redis"]["ok"] is False and response.json()["store"]["ok"] is True


def test_chat_goes_on_and_jobs_answer_503_while_redis_does_not_answer(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Redis down: messages are still stored, found and read back as the session's latest
    (failing the call would have the chat backend send them again, and store them twice);
    ending a session, queueing a consolidation and a job's status are a 503 that names
    Redis and says when to try again, never a 500."""
    settings = Settings(
        sqlite_path=tmp_path / "r.db",
        redis_url=f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        api=ApiSettings(allow_anonymous=True),
        _env_file=None,
    )
    with (
        MemoryPlatform(settings, embedder=embedder) as mp,
        serve(create_app(mp)) as url,
        httpx.Client(base_url=f"{url}/v1/users/alice", timeout=None) as alice,
    ):
        said = {"role": "user", "content": "I moved to Lisbon last spring"}
        added = alice.post("/sessions/s1/messages", json={"messages": [said]})
        assert added.status_code == 201, added.text
        [episode_id] = added.json()["episode_ids"]
        mp.wait_for_indexing("alice")
        found = alice.post("/search", json={"query": "Where did I move to?"}).json()["results"]
        assert [r["id"] for r in found] == [episode_id]

        recent = alice.get("/sessions/s1/messages")
        assert recent.status_code == 200, recent.text
        assert [(m["episode_id"], m["content"]) for m in recent.json()["messages"]] == [
            (episode_id, said["content"])
        ]

        for response in (
            alice.post("/sessions/s1/end"),
            alice.post("/consolidate"),
            alice.get("/jobs/extract-0123456789abcdef"),
        ):
            assert response.status_code == 503, (response.request.url, response.text)
            assert response.json()["error"].startswith("Redis does not answer (")
            assert response.headers["retry-after"] == "5"


def test_allowing_anonymous_access_opens_nothing_once_keys_are_configured(
    tmp_path: Path, embedder: Embedder
) -> None:
    """``allow_anonymous`` is for a development server without keys: a deployment that
    configures keys and leaves it on by mistake still refuses requests without one."""
    settings = Settings(
        sqlite_path=tmp_path / "k.db",
        api=ApiSettings(keys=KEYS, allow_anonymous=True),
        _env_file=None,
    )
    with MemoryPlatform(settings, embedder=embedder) as mp, serve(create_app(mp)) as url:
        anonymous = httpx.get(f"{url}/v1/users/alice/stats", timeout=None)  # no clock limit
        keyed = httpx.get(
            f"{url}/v1/users/alice/stats", headers={"X-API-Key": ALICE_KEY}, timeout=None
        )
    assert anonymous.status_code == 401 and anonymous.json()["error"]
    assert keyed.status_code == 200, keyed.text


def test_an_api_without_keys_refuses_to_start(tmp_path: Path) -> None:
    settings = Settings(sqlite_path=tmp_path / "x.db", _env_file=None)
    with pytest.raises(ConfigurationError, match="MEMORY_API__KEYS"):
        create_app(settings=settings)


def test_odd_user_ids_and_paging_are_4xx_and_unicode_ids_export(base_url: str) -> None:
    with httpx.Client(base_url=base_url, headers={"X-API-Key": ADMIN_KEY}, timeout=None) as admin:
        exported = admin.get("/v1/users/用户一/export")
        control = admin.get("/v1/users/a%0Db/stats")
        paging = admin.get("/v1/users/x/memories", params={"offset": 10**13})
    assert exported.status_code == 200
    disposition = exported.headers["content-disposition"]
    assert "filename*=UTF-8''%E7%94%A8%E6%88%B7%E4%B8%80.jsonl" in disposition
    assert control.status_code == 422 and "control characters" in control.json()["error"]
    assert paging.status_code == 422 and paging.json()["field"] == "query.offset"


def test_concurrent_requests_keep_every_write(base_url: str, mp: MemoryPlatform) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def work(i: int) -> tuple[int, int]:
        with httpx.Client(base_url=base_url, headers={"X-API-Key": ALICE_KEY}, timeout=None) as c:
            made = c.post("/v1/users/alice/memories", json=memory("我", "去过", f"城市{i}"))
            found = c.post("/v1/users/alice/search", json={"query": f"城市{i}"})
            return made.status_code, found.status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(work, range(24)))

    assert statuses == [(201, 200)] * 24
    assert mp.stats("alice").memories == 24
    mp.wait_for_indexing("alice")
    assert mp.stats("alice").vectors["memory"] == 24


def test_correct_retract_history_forget_and_audit_over_http(
    alice: httpx.Client, mp: MemoryPlatform
) -> None:
    created = alice.post(
        "/v1/users/alice/memories", json=memory("我", "居住", "柏林", 时间="上个月"), params=WHEN
    )
    old = created.json()["memory"]["id"]
    corrected = alice.post(
        "/v1/users/alice/memories/update",
        json={"memory_description": "我住在柏林", "object": "巴黎", "reason": "城市记错了"},
        params=WHEN,
    )
    assert corrected.status_code == 200, corrected.text
    new = corrected.json()["memory_id"]
    assert corrected.json()["supersedes"] == old
    history = alice.get(f"/v1/users/alice/memories/{old}/history")
    assert history.status_code == 200
    versions = history.json()
    assert [v["memory"]["id"] for v in versions] == [old, new]
    assert versions[0]["ended"]["by"] == "api" and versions[0]["ended"]["reason"] == "城市记错了"

    unclear = alice.post(
        "/v1/users/alice/memories/update",
        json={"memory_description": "完全无关的东西", "action": "retract"},
    )
    assert unclear.status_code == 422 and unclear.json()["success"] is False
    bad = alice.post(
        "/v1/users/alice/memories/update", json={"memory_description": new, "action": "erase"}
    )
    assert bad.status_code == 422 and "correct" in bad.text

    retracted = alice.post(
        "/v1/users/alice/memories/update", json={"memory_description": new, "action": "撤回"}
    )
    assert retracted.status_code == 200 and retracted.json()["action"] == "retract"

    vague = alice.post("/v1/users/alice/forget", json={"memory_description": "完全无关的东西"})
    assert vague.status_code == 422 and vague.json()["success"] is False  # nothing guessed
    forgotten = alice.post("/v1/users/alice/forget", json={"memory_description": new})
    assert forgotten.status_code == 200, forgotten.text
    assert set(forgotten.json()["forgotten"]) == {old, new}
    assert alice.get(f"/v1/users/alice/memories/{old}").status_code == 404
    audit = alice.get("/v1/users/alice/audit").json()
    assert [(e["action"], set(e["target_ids"])) for e in audit] == [("forget", {old, new})]
    assert "柏林" not in json.dumps(audit, ensure_ascii=False)
    tools = alice.get("/v1/tools", params={"extended": "true", "lang": "en"}).json()
    assert [t["function"]["name"] for t in tools][3:] == ["update_memory", "forget_memory"]


def test_media_and_sensitive_memories_over_http(alice: httpx.Client, mp: MemoryPlatform) -> None:
    from tests.support.media import png

    image = png()
    stored = alice.post(
        "/v1/users/alice/media",
        content=image,
        params={"modality": "image", "description": "our cat asleep on the piano"},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert stored.status_code == 201, stored.text
    assert stored.json()["mime"] == "image/png" and stored.json()["size"] == len(image)
    wrong = alice.post(
        "/v1/users/alice/media", content=image, params={"modality": "audio", "description": "x"}
    )
    assert wrong.status_code == 422 and "image/png, not audio" in wrong.text
    assert mp.stats("alice").episodes == 1
    large = b"\x89PNG\r\n\x1a\n" + bytes(1_200_000)  # over max_body_bytes, under media's
    big = alice.post(
        "/v1/users/alice/media",
        content=large,
        params={"description": "a scan of my passport", "sensitive": "true"},
    )
    assert big.status_code == 201, big.text
    [scan] = mp.store.get_episodes("alice", [big.json()["episode_id"]])
    assert scan.sensitive  # marked by the caller

    secret = alice.post(
        "/v1/users/alice/memories",
        json={**memory("I", "bank account", "ends in 4411"), "sensitive": True},
    )
    assert secret.status_code == 201
    mp.wait_for_indexing("alice")
    hidden = alice.post("/v1/users/alice/search", json={"query": "bank account"}).json()
    assert hidden["results"] == [] and "4411" not in hidden["context"]
    shown = alice.post(
        "/v1/users/alice/search", json={"query": "bank account", "include_sensitive": True}
    ).json()
    assert shown["results"][0]["sensitive"] is True and "4411" in shown["context"]
    pet = alice.post("/v1/users/alice/search", json={"query": "cat asleep piano"}).json()
    assert pet["results"][0]["matched_modality"] == "text"


def test_a_deployment_in_shanghai_reads_times_with_no_zone_on_its_clock(
    tmp_path: Path, embedder: Embedder
) -> None:
    settings = Settings(
        sqlite_path=tmp_path / "sh.db",
        timezone="Asia/Shanghai",
        api=ApiSettings(keys=KEYS),
        _env_file=None,
    )
    with (
        MemoryPlatform(settings, embedder=embedder) as mp,
        serve(create_app(mp)) as url,
        httpx.Client(base_url=url, headers={"X-API-Key": ALICE_KEY}, timeout=None) as alice,
    ):
        said = {"role": "user", "content": "我到成都了", "timestamp": "2025-11-05T07:30:00"}
        # a user abroad, whose clock the chat backend names: the workers read it there
        abroad = {"role": "user", "content": "刚到纽约", "timestamp": "2025-11-04T18:31:00-05:00"}
        added = alice.post(
            "/v1/users/alice/sessions/s1/messages", json={"messages": [said, abroad]}
        )
        assert added.status_code == 201, added.text
        episode, far = mp.store.get_episodes("alice", added.json()["episode_ids"])
        assert episode.timestamp.isoformat() == "2025-11-04T23:30:00+00:00"
        assert "utc_offset" not in episode.metadata
        assert far.timestamp.isoformat() == "2025-11-04T23:31:00+00:00"
        assert far.metadata["utc_offset"] == "-05:00"

        mp.wait_for_indexing("alice")
        found = alice.post(
            "/v1/users/alice/search",
            json={"query": "我昨天到哪了", "min_relevance": 0},
            params={"reference_time": "2025-11-06T09:00:00"},
        )
        assert found.status_code == 200, found.text
        [result] = [r for r in found.json()["results"] if r["id"] == episode.id]
        assert result["time"] == "2025-11-05 07:30"
        # a time in UTC (Z) is an instant: read on the clock alice's chat last named (her
        # New York message), as a call with no time is; an offset decides for itself
        for asked_at, shown in (("2025-11-06T01:00:00Z", "2025-11-04 18:30"),
                                ("2025-11-06T09:00:00+08:00", "2025-11-05 07:30")):  # fmt: skip
            found = alice.post(
                "/v1/users/alice/search",
                json={"query": "我昨天到哪了", "min_relevance": 0},
                params={"reference_time": asked_at},
            )
            assert found.status_code == 200, found.text
            [result] = [r for r in found.json()["results"] if r["id"] == episode.id]
            assert result["time"] == shown
