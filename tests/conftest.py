"""Fixtures shared by every test: settings in a temporary folder, the real embedder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_platform import MemoryPlatform
from memory_platform.config import Settings
from memory_platform.embeddings import Embedder, make_embedder
from memory_platform.retrieval import planner as planner_module
from tests.support.neo4j_notifications import collecting_notifications
from tests.support.openai_stub import OpenAIStub

# Nothing may reach the network for model weights.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The engine's OpenMP threads sleep between parallel regions, as the platform sets them
# (embeddings._engine_threads_sleep_when_idle): tests run what users run. Spinning, a
# tool-fuzz test beside another process embedding ran past pytest-timeout's 600 s.


@pytest.fixture(autouse=True)
def _without_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees only the MEMORY_* variables it sets: a developer's or CI's own
    (e.g. MEMORY_NEO4J_URI for the Neo4j leg, read once in tests.support.neo4j_env)
    must not change what a test checks."""
    for key in list(os.environ):
        if key.startswith("MEMORY_"):
            monkeypatch.delenv(key)
    # The scripted LLM answers at once: a busy machine must not turn a late reply into an
    # outage that the planner's 1.5 s budget falls back on. A test that means a short
    # budget passes it to Settings, which wins over the environment.
    monkeypatch.setenv("MEMORY_RETRIEVAL__PLANNER_TIMEOUT", "120")
    # Likewise a planner resting after an outage rests for the rest of the test, however
    # long a slow machine takes between two searches (the rest's length: a clock test).
    monkeypatch.setattr(planner_module, "REST_AFTER_OUTAGE", 1e9)


@pytest.fixture(autouse=True)
def _neo4j_notifications_fail_the_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """On the Neo4j leg, a deprecation or a cartesian product the server reports for a
    statement of the test fails it (issue 12), naming the statement."""
    if request.node.get_closest_marker("neo4j") is None:
        yield
        return
    with collecting_notifications() as collector:
        yield
    offences = collector.offences()
    if offences:
        pytest.fail("Neo4j returned notifications:\n" + "\n".join(offences), pytrace=False)


@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    """Settings for an embedded store in a fresh temporary file."""
    return Settings(backend="sqlite", sqlite_path=tmp_path / "memories.db", _env_file=None)


@pytest.fixture(scope="session")
def embedder() -> Iterator[Embedder]:
    """The real default embedder, loaded once per test session."""
    return make_embedder(Settings(_env_file=None))


@pytest.fixture
def platform(sqlite_settings: Settings, embedder: Embedder) -> Iterator[MemoryPlatform]:
    """A platform on a fresh embedded store, sharing the session's loaded model."""
    mp = MemoryPlatform(sqlite_settings, embedder=embedder)
    yield mp
    mp.close()


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (the only stand-in: the LLM)."""
    with OpenAIStub() as server:
        yield server
