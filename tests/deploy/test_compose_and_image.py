"""docker-compose.yml and the Dockerfile, checked here since no Docker engine runs here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

from tests.deploy.conftest import (
    ROOT,
    assert_cli_accepts,
    assert_known_variables,
    assert_settings_load,
    resolve_compose_defaults,
)

COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
SERVICES = COMPOSE["services"]
PLATFORM = ("init-db", "api", "worker", "beat")
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def test_the_stack_has_its_services() -> None:
    assert set(SERVICES) == {"neo4j", "redis", *PLATFORM}
    assert SERVICES["neo4j"]["image"] == "neo4j:5.26"
    assert SERVICES["redis"]["image"] == "redis:7"
    assert {"neo4j-data", "redis-data"} <= set(COMPOSE["volumes"])


def test_neo4j_has_auth_ports_data_and_a_healthcheck() -> None:
    neo4j = SERVICES["neo4j"]
    assert {"7474:7474", "7687:7687"} <= set(neo4j["ports"])
    assert any(v.endswith(":/data") for v in neo4j["volumes"])
    assert "cypher-shell" in " ".join(neo4j["healthcheck"]["test"])
    auth = neo4j["environment"]["NEO4J_AUTH"]
    password = SERVICES["api"]["environment"]["MEMORY_NEO4J_PASSWORD"]
    assert auth == f"neo4j/{password}", "Neo4j and the platform share one password variable"
    assert "redis-cli" in SERVICES["redis"]["healthcheck"]["test"]


@pytest.mark.parametrize("name", PLATFORM)
def test_platform_services_run_the_image_with_a_real_command(name: str) -> None:
    service = SERVICES[name]
    assert service["build"] == "." and service["image"] == "memory-platform:latest"
    assert_cli_accepts(service["command"])


@pytest.mark.parametrize("name", ["api", "worker", "beat"])
def test_platform_services_wait_for_their_dependencies(name: str) -> None:
    depends = SERVICES[name]["depends_on"]
    assert depends["neo4j"]["condition"] == "service_healthy"
    assert depends["redis"]["condition"] == "service_healthy"
    assert depends["init-db"]["condition"] == "service_completed_successfully"
    assert SERVICES["init-db"]["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert SERVICES["init-db"]["restart"] == "no"


@pytest.mark.parametrize("name", PLATFORM)
def test_platform_environment_is_valid_settings_for_the_neo4j_backend(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {k: resolve_compose_defaults(str(v)) for k, v in SERVICES[name]["environment"].items()}
    assert_known_variables(env, f"docker-compose.yml {name}")
    settings = assert_settings_load(env, monkeypatch)
    assert settings.backend == "neo4j" and settings.redis_url and settings.api.keys
    bolt, redis = urlparse(settings.neo4j_uri or ""), urlparse(settings.redis_url)
    assert (bolt.hostname, bolt.port) == ("neo4j", 7687)
    assert (redis.hostname, redis.port) == ("redis", 6379)


def test_the_api_publishes_the_port_it_serves_and_checks_readiness() -> None:
    api = SERVICES["api"]
    port = api["command"][api["command"].index("--port") + 1]
    assert api["ports"] == [f"{port}:{port}"]
    assert f"127.0.0.1:{port}/ready" in " ".join(api["healthcheck"]["test"])
    assert "inspect ping" in " ".join(SERVICES["worker"]["healthcheck"]["test"])
    assert "MEMORY_API__KEYS:?" in (ROOT / "docker-compose.yml").read_text(), (
        "compose refuses to start without API keys"
    )


def test_dockerfile_installs_no_torch_and_runs_the_cli() -> None:
    assert re.search(r"^FROM python:3\.11", DOCKERFILE, re.MULTILINE)
    installs = [line for line in DOCKERFILE.splitlines() if line.startswith("RUN")]
    assert not any("torch" in line for line in installs), "the default embedder needs no torch"
    all_extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["all"]
    assert "embeddings" not in all_extra[0]  # the only extra with torch behind it
    assert "memory-platform prepare" in DOCKERFILE, "the build proves the bundled models load"
    assert re.search(r"^USER (?!root)\w+", DOCKERFILE, re.MULTILINE), (
        "the image does not run as root"
    )
    assert 'ENTRYPOINT ["memory-platform"]' in DOCKERFILE
    cmd = re.search(r"^CMD (\[.*\])$", DOCKERFILE, re.MULTILINE)
    assert cmd is not None
    assert_cli_accepts(yaml.safe_load(cmd.group(1)))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["memory-platform"] == "memory_platform.cli:main"
    assert "HF_HUB_OFFLINE=1" in DOCKERFILE, "no model download at run time"


def test_the_image_carries_the_unpacked_model_table_for_its_user() -> None:
    # the build's `prepare` writes the model's table and the dictionary's where the
    # unprivileged user reads them, not into root's home, so no container unpacks them
    # again at start (what `prepare` writes: tests/cli, test_prepare_*)
    cache = re.search(r"^ENV MEMORY_MODEL_CACHE_DIR=(\S+)$", DOCKERFILE, re.MULTILINE)
    assert cache is not None, "the image names its model cache directory"
    path = cache.group(1)
    assert path.startswith("/") and not path.startswith(("/root", "/home", "/tmp"))
    prepare = re.search(r"^\s*(?:RUN |&& )memory-platform prepare$", DOCKERFILE, re.MULTILINE)
    assert prepare is not None, "the image prepares its model cache"
    assert cache.start() < prepare.start() < DOCKERFILE.index("\nUSER ")


def test_the_build_context_holds_what_the_dockerfile_copies() -> None:
    ignored = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert {".venv", ".git", "*.db"} <= set(ignored)
    for source in re.findall(r"^COPY (.+) \S+$", DOCKERFILE, re.MULTILINE):
        for item in source.split():
            assert (ROOT / item).exists(), f"COPY {item}: not in the repository"
            assert not any(Path(item).match(pattern) for pattern in ignored), (
                f"COPY {item} is excluded by .dockerignore"
            )


@pytest.mark.slow
def test_the_wheel_the_image_installs_carries_cypher_workers_and_the_cli(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    wheel = next(tmp_path.glob("memory_platform-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "memory_platform/cypher/neo4j/schema.cypher" in names
    assert "memory_platform/cypher/browser/causal_chains.cypher" in names
    assert {"workers/celery_app.py", "workers/tasks.py", "memory_platform/cli/__init__.py"} <= names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "memory-platform = memory_platform.cli:main" in text


def test_the_readme_walkthrough_matches_the_stack() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## Production stack (docker compose)")
    section = readme[start : readme.index("\n## ", start + 3)]
    steps = re.search(r"```bash\n(.*?)\n```", section, re.DOTALL)
    assert steps is not None
    script = steps.group(1)
    required = re.findall(r"\$\{(\w+):\?", (ROOT / "docker-compose.yml").read_text())
    for name in {*required, "MEMORY_NEO4J_PASSWORD"}:
        assert f"export {name}=" in script, f"the walkthrough sets {name}"
    key = json.loads(re.search(r"export MEMORY_API__KEYS='(.*?)'", script).group(1))  # type: ignore[union-attr]
    assert all(f"X-API-Key: {k}" in script for k in key)
    assert "docker compose up -d --build" in script
    port = SERVICES["api"]["ports"][0].split(":")[0]
    assert f"localhost:{port}/ready" in script
    created = re.search(r"localhost:\d+(/v1/users/(\w+)/memories)", script)
    searched = re.search(r"localhost:\d+(/v1/users/(\w+)/search)", script)
    assert created and searched and created.group(2) == searched.group(2)
    routes = set(api_paths())
    assert "/v1/users/{user_id}/memories" in routes and "/v1/users/{user_id}/search" in routes
    assert "cypher/browser/" in section and "memory-platform.grass" in section


def api_paths() -> list[str]:
    from memory_platform.api import create_app
    from memory_platform.config import ApiSettings, Settings

    app = create_app(settings=Settings(api=ApiSettings(allow_anonymous=True), _env_file=None))
    return list(app.openapi()["paths"])
