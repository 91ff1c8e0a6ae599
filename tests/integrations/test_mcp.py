"""The MCP server, driven by the SDK's own client over both real transports.

stdio: ``memory-platform mcp --transport stdio`` as a subprocess, as a desktop host runs
it. HTTP: the streamable-HTTP app served by uvicorn on 127.0.0.1, with API keys.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memory_platform import MemoryPlatform
from memory_platform.api.auth import KeyRing
from memory_platform.config import ApiSettings, Settings
from memory_platform.embeddings import Embedder
from memory_platform.integrations.mcp_server import KNOWLEDGE_URI, MemoryMcp, http_app
from memory_platform.models import KnowledgePoint, KnowledgeVersion
from tests.support.fuzz import junk
from tests.support.net import serve

TOOLS = {
    "create_memory", "link_memories", "search_memories", "update_memory", "forget_memory",
    "get_memory", "list_memories", "delete_memory", "get_context",
}  # fmt: skip
ALICE_KEY = "alice-key-0123456789"
ADMIN_KEY = "admin-key-0123456789"
KEYS = {ALICE_KEY: ["alice"], ADMIN_KEY: ["*"]}


def result_of(call: Any) -> dict[str, Any]:
    """The platform's JSON from a tool result (text content and structured agree)."""
    parsed: dict[str, Any] = json.loads(call.content[0].text)
    assert call.structured_content == parsed
    return parsed


async def exercise(client: Client) -> dict[str, Any]:
    """Every tool and resource once, as a host would; returns what was seen."""
    seen: dict[str, Any] = {"instructions": client.instructions}
    seen["tools"] = {t.name for t in (await client.list_tools()).tools}
    mood = result_of(
        await client.call_tool(
            "create_memory",
            {
                "subject": "I",
                "memory_type": "fact",
                "topic": "mood",
                "object": "low",
                "attributes": {"time": "today"},
            },
        )
    )
    sleep = result_of(
        await client.call_tool(
            "create_memory",
            {
                "subject": "I",
                "memory_type": "event",
                "topic": "sleep",
                "object": "badly",
                "attributes": {"time": "last night"},
            },
        )
    )
    seen["link"] = result_of(
        await client.call_tool(
            "link_memories",
            {
                "source_memory_description": sleep["memory_id"],
                "target_memory_description": mood["memory_id"],
                "relation_type": "causes",
            },
        )
    )
    seen["search"] = result_of(await client.call_tool("search_memories", {"query": "mood"}))
    seen["get"] = result_of(await client.call_tool("get_memory", {"memory_id": mood["memory_id"]}))
    seen["list"] = result_of(await client.call_tool("list_memories", {"limit": 5}))
    seen["context"] = result_of(await client.call_tool("get_context", {"query": "why low mood"}))
    bad = await client.call_tool("create_memory", {"subject": "I", "memory_type": "diary"})
    seen["bad"] = (bad.is_error, result_of(bad))
    seen["bad_list"] = result_of(await client.call_tool("list_memories", {"limit": 0}))
    seen["resources"] = {str(r.uri) for r in (await client.list_resources()).resources}
    recent = await client.read_resource("memory://recent")
    seen["recent"] = json.loads(recent.contents[0].text)  # type: ignore[union-attr]
    seen["delete"] = result_of(
        await client.call_tool("delete_memory", {"memory_id": sleep["memory_id"]})
    )
    seen["correct"] = result_of(
        await client.call_tool(
            "update_memory",
            {"memory_description": mood["memory_id"], "object": "better", "reason": "it passed"},
        )
    )
    seen["forget"] = result_of(
        await client.call_tool(
            "forget_memory", {"memory_description": seen["correct"]["memory_id"]}
        )
    )
    seen["ids"] = (mood["memory_id"], sleep["memory_id"])
    seen["mood_text"] = mood["text"]
    return seen


def check(seen: dict[str, Any]) -> None:
    mood, sleep = seen["ids"]
    assert seen["tools"] == TOOLS
    # the host's model is told how to record the user's name, which names the owner
    assert '"topic": "name"' in seen["instructions"]
    assert seen["link"]["success"] and seen["link"]["relation"] == "CAUSES"
    assert [r["id"] for r in seen["search"]["results"]][:1] == [mood]
    assert seen["get"]["memory"]["memory"]["id"] == mood
    assert [m["id"] for m in seen["list"]["memories"]] == [sleep, mood]  # newest first
    assert "<memory_context>" in seen["context"]["context"]
    is_error, bad = seen["bad"]
    assert is_error and bad["success"] is False and "memory_type" in bad["error"]
    assert seen["bad_list"]["success"] is False and "limit" in seen["bad_list"]["error"]
    assert seen["resources"] == {"memory://recent", "memory://knowledge/latest"}
    assert [m["id"] for m in seen["recent"]] == [sleep, mood]
    assert seen["delete"] == {"success": True, "deleted": sleep}
    correct = seen["correct"]
    assert correct["success"] and correct["supersedes"] == mood
    assert "better" in correct["text"] and "low" in correct["previous_text"]
    assert set(seen["forget"]["forgotten"]) == {mood, correct["memory_id"]}  # every version


def documented_host_config() -> dict[str, Any]:
    """The ``mcpServers`` entry of docs/mcp.md, as a host would read it."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "mcp.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)\n```", text, re.DOTALL)
    assert block is not None
    entry: dict[str, Any] = json.loads(block.group(1))["mcpServers"]["memory"]
    return entry


def zone_not_utcs_today(utc_now: datetime) -> ZoneInfo:
    """A time zone whose today is not UTC's, whatever the hour: UTC+14 from 10:00 UTC,
    UTC-12 before."""
    return ZoneInfo("Pacific/Kiritimati" if utc_now.hour >= 10 else "Etc/GMT+12")


@pytest.mark.slow
def test_stdio_server_as_a_desktop_host_runs_it(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    config = documented_host_config()  # the documented configuration, paths made local
    assert Path(config["command"]).name == "memory-platform"
    args = [str(db) if a.endswith("memories.db") else a for a in config["args"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    # the person's computer is in a zone where today is not UTC's today, whatever the hour
    utc_now = datetime.now(UTC)
    zone = zone_not_utcs_today(utc_now)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory_platform.cli", *args],
        env={**env, **config["env"], "TZ": str(zone)},
    )

    async def run() -> dict[str, Any]:
        async with Client(params) as client:
            return await exercise(client)

    days = {datetime.now(zone).date()}
    seen = anyio.run(run)
    days.add(datetime.now(zone).date())  # the day may turn during the run

    check(seen)
    assert utc_now.date() not in days
    assert any(f"time: {day.isoformat()}" in seen["mood_text"] for day in days)  # its today
    with MemoryPlatform(Settings(sqlite_path=db, _env_file=None)) as mp:
        assert mp.list_memories("alice") == []  # deleted, then both versions forgotten
        [entry] = mp.audit_log("alice")
        assert entry.action == "forget" and entry.actor == "agent"


def http_client(url: str, key: str, user: str, **more_headers: str) -> Callable[[], Awaitable[Any]]:
    async def run() -> dict[str, Any]:
        headers = {"X-API-Key": key, "X-Memory-User": user, **more_headers}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=None) as http,  # no wall-clock limit
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
        ):
            return await exercise(client)

    return run


def test_http_server_needs_a_key_for_the_user_and_keeps_users_apart(
    tmp_path: Path, embedder: Embedder
) -> None:
    settings = Settings(sqlite_path=tmp_path / "h.db", api=ApiSettings(keys=KEYS), _env_file=None)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        app = http_app(MemoryMcp(mp), KeyRing(settings.api))
        with serve(app) as url:
            seen = anyio.run(http_client(url, ALICE_KEY, "alice"))
            check(seen)
            hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            no_key = httpx.post(
                f"{url}/mcp", json=hello, headers={"X-Memory-User": "alice"}, timeout=None
            )
            wrong_key = httpx.post(
                f"{url}/mcp",
                json=hello,
                headers={"X-API-Key": "nope", "X-Memory-User": "alice"},
                timeout=None,
            )
            other_user = httpx.post(
                f"{url}/mcp",
                json=hello,
                headers={"X-API-Key": ALICE_KEY, "X-Memory-User": "bob"},
                timeout=None,
            )
            no_user = httpx.post(
                f"{url}/mcp",
                json=hello,
                headers={"X-API-Key": ADMIN_KEY, "X-Memory-User": "u" * 129},  # too long an id
                timeout=None,
            )
            bob = anyio.run(http_client(url, ADMIN_KEY, "bob"))
        assert no_key.status_code == 401 and wrong_key.status_code == 401
        assert no_user.status_code == 400 and "x-memory-user" in no_user.json()["error"].lower()
        assert other_user.status_code == 403 and "bob" in other_user.json()["error"]
        assert [m["id"] for m in bob["recent"]] == list(bob["ids"][::-1])  # only bob's own
        assert mp.list_memories("alice") == mp.list_memories("bob") == []
        # each user's forgetting is audited under that user, and only there
        assert [set(e.target_ids) for e in mp.audit_log("alice")] == [
            {seen["ids"][0], seen["correct"]["memory_id"]}
        ]
        assert [set(e.target_ids) for e in mp.audit_log("bob")] == [
            {bob["ids"][0], bob["correct"]["memory_id"]}
        ]


def test_a_remote_agent_names_its_users_time_zone(tmp_path: Path, embedder: Embedder) -> None:
    """``X-Memory-Timezone``: the request's "today" is its user's, not the deployment's
    (UTC here); a name that is no time zone is refused before the session sees it."""
    settings = Settings(sqlite_path=tmp_path / "z.db", api=ApiSettings(keys=KEYS), _env_file=None)
    utc_now = datetime.now(UTC)
    zone = zone_not_utcs_today(utc_now)
    with MemoryPlatform(settings, embedder=embedder) as mp:
        app = http_app(MemoryMcp(mp), KeyRing(settings.api))
        with serve(app) as url:
            days = {datetime.now(zone).date()}
            utc_days = {datetime.now(UTC).date()}
            zoned = anyio.run(
                http_client(url, ALICE_KEY, "alice", **{"X-Memory-Timezone": str(zone)})
            )
            plain = anyio.run(http_client(url, ADMIN_KEY, "bob"))
            days.add(datetime.now(zone).date())  # the day may turn during the runs
            utc_days.add(datetime.now(UTC).date())
            unknown = httpx.post(
                f"{url}/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"X-API-Key": ALICE_KEY, "X-Memory-User": "alice",
                         "X-Memory-Timezone": "Mars/Olympus_Mons"},
                timeout=None,
            )  # fmt: skip
    check(zoned)
    assert utc_now.date() not in days
    assert any(f"time: {day.isoformat()}" in zoned["mood_text"] for day in days)
    assert any(f"time: {day.isoformat()}" in plain["mood_text"] for day in utc_days)
    assert unknown.status_code == 400 and "Mars/Olympus_Mons" in unknown.json()["error"]


def test_arguments_that_are_no_object_come_back_as_a_tool_error(platform: MemoryPlatform) -> None:
    """The extra tools read their arguments as an object: anything else is an error the
    model can read, as the design's three tools already answered, not an exception."""
    tools = MemoryMcp(platform)
    for name in ("get_memory", "list_memories", "delete_memory", "get_context"):
        for arguments in ([1], "memory_id", 3.5):
            result = tools.call("u", name, arguments)  # type: ignore[arg-type]
            assert result == {
                "success": False,
                "error": f"{name}'s arguments must be a JSON object",
            }
    assert tools.call("u", "search_memories", [1])["success"] is False  # type: ignore[arg-type]


def test_list_memories_pages_back_from_the_newest(platform: MemoryPlatform) -> None:
    tools = MemoryMcp(platform)
    ids = [
        platform.create_memory("u", "I", "event", "visited", f"city {n}", reference_time=at)
        for n, at in enumerate(datetime(2025, 1, d, tzinfo=UTC) for d in range(1, 6))
    ]

    def page(**arguments: object) -> list[str]:
        result = tools.call("u", "list_memories", arguments)
        assert result["success"], result
        return [m["id"] for m in result["memories"]]

    newest_first = ids[::-1]
    assert page() == newest_first
    assert page(limit=2) == newest_first[:2]
    assert page(limit=2, offset=2) == newest_first[2:4]
    assert page(limit=2, offset=4) == newest_first[4:]
    assert page(offset=5) == []
    refused = tools.call("u", "list_memories", {"limit": True})
    assert refused["success"] is False and "limit" in refused["error"]


def test_the_knowledge_resource_a_padded_id_and_a_listed_time_read_what_is_stored(
    platform: MemoryPlatform,
) -> None:
    tools = MemoryMcp(platform)
    platform.store.add_knowledge_version(
        KnowledgeVersion(user_id="u", points=[KnowledgePoint(content="The user likes hot pot")])
    )
    memory_id = platform.create_memory(
        "u", "I", "event", "ate", "hot pot", attributes={"time": "2025-01-03"}
    )

    knowledge = json.loads(tools.read("u", KNOWLEDGE_URI))
    got = tools.call("u", "get_memory", {"memory_id": f"  {memory_id} "})
    [listed] = tools.call("u", "list_memories", {})["memories"]

    assert [p["content"] for p in knowledge] == ["The user likes hot pot"]
    assert got["success"] and got["memory"]["memory"]["id"] == memory_id
    event_time = platform.get_memory("u", memory_id).memory.event_time
    assert event_time is not None and listed["event_time"] == event_time.isoformat()


FACT = {"subject": "我", "memory_type": "事件", "topic": "吃", "object": "火锅"}


def test_fuzzed_arguments_to_the_servers_own_tools_never_escape_the_contract(
    platform: MemoryPlatform,
) -> None:
    """The four tools the MCP server adds to the design's five take seeded near-miss
    arguments (their own keys with junk values, a real memory id now and then, unknown
    keys, no object at all): every call comes back as a result with ``success``, a failure
    says why and deletes nothing. Seeded, so a failure reproduces."""
    tools = MemoryMcp(platform)
    keys = {
        "get_memory": ["memory_id"],
        "list_memories": ["limit", "offset"],
        "delete_memory": ["memory_id"],
        "get_context": ["query", "max_results"],
    }
    rng = random.Random(2026)
    successes: dict[str, int] = dict.fromkeys(keys, 0)
    for name, wanted in keys.items():
        for _ in range(150):
            ids = [m.id for m in platform.list_memories("u", limit=5)]
            if not ids:  # what a successful delete took away
                ids = [platform.execute_tool("u", "create_memory", FACT)["memory_id"]]
            arguments: Any = {key: junk(rng) for key in wanted if rng.random() < 0.8}
            if rng.random() < 0.4:
                arguments[rng.choice(wanted)] = rng.choice(
                    [rng.choice(ids), "我为什么胃疼?", 5, 0, 100]
                )
            if rng.random() < 0.1:
                arguments["unknown"] = junk(rng)
            if rng.random() < 0.05:
                arguments = junk(rng)
            before = platform.stats("u").memories
            result = tools.call("u", name, arguments)  # must not raise
            assert isinstance(result, dict) and isinstance(result.get("success"), bool), result
            if result["success"]:
                successes[name] += 1
            else:
                assert isinstance(result.get("error"), str) and result["error"], result
                assert platform.stats("u").memories == before, arguments
    assert all(successes.values()), successes  # the near misses include calls that work
