"""A real redis-server on a free port of 127.0.0.1, started for the session and stopped after."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from memory_platform import MemoryPlatform, Settings
from memory_platform.embeddings import Embedder
from tests.support.net import free_port
from tests.support.openai_stub import OpenAIStub
from tests.workers.worker import Worker


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail(
            "redis-server is not installed; scripts/test.sh installs it (apt-get install redis-server)"
        )
    port = free_port()
    folder: Path = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 20
    while True:
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.ConnectionError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def env(tmp_path: Path, redis_url: str, stub: OpenAIStub) -> dict[str, str]:
    redis.Redis.from_url(redis_url).flushall()
    values = {
        "MEMORY_SQLITE_PATH": str(tmp_path / "memories.db"),
        "MEMORY_REDIS_URL": redis_url,
        "MEMORY_LLM_BASE_URL": stub.base_url,
        "MEMORY_LLM_MAX_RETRIES": "3",
        # a wholly dead worker's task comes back after 20 s (the per-user lock keeps its
        # shipped defaults: the tests must see what users get)
        "MEMORY_WORKER__VISIBILITY_TIMEOUT": "20",
        "MEMORY_WORKER__RESTORE_INTERVAL": "1",
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    return {**os.environ, **values}


@pytest.fixture
def worker(env: dict[str, str], tmp_path: Path) -> Iterator[Worker]:
    running = Worker(env, tmp_path / "worker.log")
    running.start()
    yield running
    running.stop()


@pytest.fixture
def client(
    env: dict[str, str], embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MemoryPlatform]:
    for key in (
        "MEMORY_SQLITE_PATH",
        "MEMORY_REDIS_URL",
        "MEMORY_LLM_BASE_URL",
        "MEMORY_LLM_MAX_RETRIES",
    ):
        monkeypatch.setenv(key, env[key])
    mp = MemoryPlatform(Settings(_env_file=None), embedder=embedder)
    yield mp
    mp.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[pytest.TestReport]:
    """A failing worker test shows the worker's log: what the worker did is the evidence
    (a CI machine's run cannot be looked at afterwards)."""
    report: pytest.TestReport = yield
    running = getattr(item, "funcargs", {}).get("worker")
    if report.failed and isinstance(running, Worker):
        report.sections.append(("worker log (last 4000 characters)", running.log_tail()))
    return report
