"""Property-based requests generated from the API's own OpenAPI spec (schemathesis), sent
through HTTP to uvicorn: whatever a client sends, the answer is never a server error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_platform import MemoryPlatform, Settings
from memory_platform.api import create_app
from memory_platform.config import ApiSettings
from memory_platform.embeddings import Embedder
from tests.support.net import serve

KEY = "fuzz-key-0123456"
schemathesis.openapi.media_type("application/x-ndjson", st.binary(max_size=2000))


@pytest.fixture(scope="module")
def api_url(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[str]:
    settings = Settings(
        sqlite_path=tmp_path_factory.mktemp("fuzz") / "fuzz.db",
        api=ApiSettings(keys={KEY: ["*"]}),
        _env_file=None,
    )
    with MemoryPlatform(settings, embedder=embedder) as mp, serve(create_app(mp)) as url:
        mp.start_warm_up().join()  # the app started it; /ready is 503 until it ends
        yield url


@pytest.fixture(scope="module")
def api_schema(api_url: str) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{api_url}/openapi.json")


@pytest.mark.slow
def test_no_request_is_a_server_error(api_schema: schemathesis.BaseSchema, api_url: str) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 20  # every route of the spec is exercised
    for operation in operations:

        @settings(
            max_examples=12,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        @given(case=operation.as_strategy())
        def no_server_error(case: schemathesis.Case) -> None:
            # No read timeout: a loaded machine answers slower, and a slow answer is not a
            # server error (a hang would still end at pytest's own 600 s limit).
            response = case.call(base_url=api_url, headers={"X-API-Key": KEY}, timeout=None)
            assert response.status_code < 500, (case.as_curl_command(), response.text)
            if response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
                body = response.json()
                assert isinstance(body, dict) and (
                    body.get("error") or body.get("success") is False
                )

        no_server_error()
