"""The HTTP API in front of Redis and a real Celery worker process."""

from __future__ import annotations

import json

import httpx
import pytest

from memory_platform import MemoryPlatform
from memory_platform.api import create_app
from memory_platform.config import ApiSettings
from tests.support.jobs import wait_for
from tests.support.net import serve
from tests.support.openai_stub import OpenAIStub
from tests.workers.test_celery_workers import GOOD, MESSAGES
from tests.workers.worker import Worker

pytestmark = pytest.mark.workers
KEY = {"X-API-Key": "worker-test-key"}


def api(client: MemoryPlatform) -> object:
    client.settings.api = ApiSettings(keys={KEY["X-API-Key"]: ["alice"]})
    return create_app(client)


def test_readiness_reports_redis_up_and_no_worker(client: MemoryPlatform) -> None:
    with serve(api(client)) as url:
        client.start_warm_up().join()  # started by the app; not ready before it ends
        ready = httpx.get(f"{url}/ready", timeout=30).json()
    assert ready["ready"] is True and ready["redis"]["ok"] is True
    assert ready["workers"] == {"ok": False, "mode": "celery", "count": 0, "names": []}


def test_a_session_ended_over_http_is_extracted_by_the_worker(
    client: MemoryPlatform, worker: Worker, stub: OpenAIStub
) -> None:
    stub.reply(json.dumps(GOOD))
    messages = [{**m, "timestamp": m["timestamp"].isoformat()} for m in MESSAGES]
    with (
        serve(api(client)) as url,
        httpx.Client(base_url=url, headers=KEY, timeout=30) as http,
    ):
        ready = http.get("/ready").json()
        assert ready["workers"]["ok"] is True and ready["workers"]["count"] == 1, ready
        assert http.post("/v1/users/alice/sessions/s1/messages", json={"messages": messages})
        job_id = http.post("/v1/users/alice/sessions/s1/end").json()["job_id"]
        status = wait_for(lambda: http.get(f"/v1/users/alice/jobs/{job_id}").json(), {"SUCCESS"})
        points = http.get("/v1/users/alice/knowledge/latest").json()["points"]

    assert status["result"]["status"] == "done", status
    assert [p["content"] for p in points] == [GOOD["knowledge"][0]["content"]]
