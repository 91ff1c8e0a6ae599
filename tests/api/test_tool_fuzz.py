"""Seeded fuzzing of the three tools, in Python and over HTTP (issue 14).

2,000 generated payloads per tool go through ``execute_tool`` and through
``POST /v1/users/{user}/tools/{name}`` on a served API. Every call must come back as a
result with ``success`` (never an exception, never a 500), and a call that fails must
write nothing. The payloads are near-misses of valid arguments (right keys, wrong types,
hostile strings, deep nesting, huge numbers) plus raw strings that are not JSON. Seeded,
so a failure reproduces; no wall-clock limit anywhere.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from memory_platform import MemoryPlatform
from memory_platform.api import create_app
from memory_platform.config import ApiSettings, Settings
from memory_platform.embeddings import Embedder
from tests.support.fuzz import junk
from tests.support.net import serve

PAYLOADS_PER_TOOL = 2000
KEY = "fuzz-key-0123456789"

VALID = {
    "create_memory": {
        "subject": "我",
        "memory_type": "事件",
        "topic": "吃",
        "object": "火锅",
        "attributes": {"时间": "昨晚", "地点": "成都"},
        "importance": 0.6,
    },
    "link_memories": {
        "source_memory_description": "昨晚吃火锅",
        "target_memory_description": "胃疼",
        "relation_type": "导致",
    },
    "search_memories": {
        "query": "我为什么胃疼?",
        "memory_types": ["事件"],
        "time_range": {"start": "上周一", "end": "今天"},
        "max_results": 5,
        "expand_depth": 2,
    },
    "update_memory": {
        "memory_description": "昨晚吃火锅",
        "action": "纠正",
        "object": "麻辣烫",
        "attributes": {"地点": "重庆"},
        "reason": "记错了",
    },
    "forget_memory": {"memory_description": "胃疼"},
}


def payloads(name: str, seed: int) -> list[Any]:
    """Near-misses of the tool's valid arguments, and some raw non-JSON strings."""
    rng = random.Random(seed)
    out: list[Any] = []
    valid = VALID[name]
    for _ in range(PAYLOADS_PER_TOOL):
        roll = rng.random()
        if roll < 0.05:
            out.append(rng.choice(["", "{", "[]", "null", '{"query": }', "[" * 3000]))
            continue
        args = dict(valid)
        for key in rng.sample(sorted(valid), rng.randrange(1, len(valid) + 1)):
            action = rng.random()
            if action < 0.6:
                args[key] = junk(rng)
            elif action < 0.8:
                del args[key]
        if rng.random() < 0.2:
            args[rng.choice(["extra", "user_id", "__proto__", "id"])] = junk(rng)
        out.append(args if rng.random() < 0.8 else json.dumps(args, ensure_ascii=False))
    return out


def counts(mp: MemoryPlatform, user: str) -> tuple[int, int]:
    stats = mp.stats(user)
    return stats.memories, stats.links


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seed"), [(n, i) for i, n in enumerate(VALID)])
def test_fuzzed_tool_calls_never_escape_the_contract(
    tmp_path: Path, embedder: Embedder, name: str, seed: int
) -> None:
    settings = Settings(
        sqlite_path=tmp_path / "fuzz.db", api=ApiSettings(keys={KEY: ["*"]}), _env_file=None
    )
    with MemoryPlatform(settings, embedder=embedder) as mp:
        mp.execute_tool("fuzz", "create_memory", VALID["create_memory"])  # something to link
        mp.execute_tool("fuzz", "create_memory", {**VALID["create_memory"], "object": "胃疼"})
        failures = 0
        before = counts(mp, "fuzz")  # nothing else writes: each call's after is the next's before
        for payload in payloads(name, seed):
            result = mp.execute_tool("fuzz", name, payload)  # must not raise
            assert isinstance(result, dict) and isinstance(result.get("success"), bool), result
            after = counts(mp, "fuzz")
            if not result["success"]:
                failures += 1
                assert isinstance(result.get("error"), str) and result["error"]
                assert after == before, payload  # nothing half-written
            before = after
        assert failures > PAYLOADS_PER_TOOL // 2  # the generator does produce bad input

        statuses: dict[int, int] = {}
        with (
            serve(create_app(mp)) as url,
            httpx.Client(base_url=url, headers={"X-API-Key": KEY}, timeout=None) as client,
        ):
            before = counts(mp, "http")
            for payload in payloads(name, seed + 100):
                body = payload if isinstance(payload, str) else json.dumps(payload)
                response = client.post(
                    f"/v1/users/http/tools/{name}",
                    content=body.encode("utf-8", "surrogatepass"),
                    headers={"Content-Type": "application/json"},
                )
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                assert response.status_code != 500, (payload, response.text)
                after = counts(mp, "http")
                if response.status_code == 200 and not response.json()["success"]:
                    assert after == before, payload
                before = after
        assert set(statuses) <= {200, 400, 413, 422}, statuses
