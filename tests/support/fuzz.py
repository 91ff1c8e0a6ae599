"""Seeded junk for fuzzing the tool calls: near-miss values an LLM or a client might send
(wrong types, hostile strings, huge numbers, deep nesting), shared by the fuzz tests of
``execute_tool``, HTTP and the MCP server's own tools."""

from __future__ import annotations

import random
from typing import Any

HOSTILE_TEXT = [
    "",
    " ",
    "\x00",
    "\ud800",
    "'; DROP TABLE memories; --",
    "MATCH (n) DETACH DELETE n",
    '") OR 1=1 --',
    "{{7*7}}",
    "<script>alert(1)</script>",
    "\u202e\u202d",
    "🙂" * 50,
    "a" * 5000,
    "9999-12-31T23:59:59+00:00",
    "0001-01-01",
    "下下个月",
    "yesterday",
    "NaN",
    "-1",
    "1e309",
    "\n\r\t",
    "$query",
    "\\",
    "%s%s%s",
    "null",
]


def junk(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON-able value, sometimes deeply nested."""
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(HOSTILE_TEXT)
    if roll < 0.25:
        return rng.choice([None, True, False])
    if roll < 0.35:
        return rng.choice([0, -1, 1, 2**63, -(2**70), 10**30])
    if roll < 0.45:
        return rng.choice([0.5, -0.0, 1.5, 1e308, -1e-308])
    if roll < 0.55:
        return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 30)))
    if roll < 0.7 and depth < 4:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if roll < 0.8 and depth < 4:
        return {rng.choice(["a", "时间", "", "$x"]): junk(rng, depth + 1) for _ in range(3)}
    if roll < 0.85:
        value: Any = "x"
        for _ in range(rng.randrange(50, 900)):  # deeper than any schema, still encodable
            value = [value]
        return value
    return rng.choice(HOSTILE_TEXT)
