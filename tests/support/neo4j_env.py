"""The Neo4j server a test run was pointed at, read once before any test isolates its
environment (every test runs without the ambient ``MEMORY_*`` variables)."""

from __future__ import annotations

import os
from typing import Any

from memory_platform.config import Settings

NEO4J_ENV = {k: v for k, v in os.environ.items() if k.startswith("MEMORY_NEO4J_")}


def neo4j_settings() -> Settings | None:
    """Settings for the configured server, or None when ``MEMORY_NEO4J_URI`` is unset."""
    if not NEO4J_ENV.get("MEMORY_NEO4J_URI"):
        return None
    values: dict[str, Any] = {
        key.removeprefix("MEMORY_").lower(): value for key, value in NEO4J_ENV.items() if value
    }
    return Settings(backend="neo4j", _env_file=None, **values)
