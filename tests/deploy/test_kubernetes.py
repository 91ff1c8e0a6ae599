"""The Kubernetes manifests and the Neo4j Helm values: parse, wiring, probes, settings names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from tests.deploy.conftest import (
    ROOT,
    assert_cli_accepts,
    assert_known_variables,
    assert_settings_load,
)

K8S = ROOT / "deploy" / "kubernetes"
KUSTOMIZATION = yaml.safe_load((K8S / "kustomization.yaml").read_text())


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


OBJECTS = [doc for name in KUSTOMIZATION["resources"] for doc in _documents(K8S / name)]
SECRET = _documents(K8S / "secret.example.yaml")[0]
VALUES = yaml.safe_load((ROOT / "deploy" / "helm" / "neo4j-values.yaml").read_text())


def objects(kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in OBJECTS if o["kind"] == kind}


DEPLOYMENTS = objects("Deployment")
CONFIG = objects("ConfigMap")["memory-platform-config"]["data"]


def test_every_resource_parses_with_the_required_fields() -> None:
    assert all((K8S / name).is_file() for name in KUSTOMIZATION["resources"])
    for obj in OBJECTS:
        assert {"apiVersion", "kind", "metadata"} <= set(obj), obj
        assert obj["metadata"]["name"]
    assert set(DEPLOYMENTS) == {
        "memory-platform-api",
        "memory-platform-worker",
        "memory-platform-beat",
    }
    assert SECRET["kind"] == "Secret" and "secret.example.yaml" not in KUSTOMIZATION["resources"]


@pytest.mark.parametrize("name", sorted(DEPLOYMENTS))
def test_deployments_are_wired_to_config_secret_and_resources(name: str) -> None:
    spec = DEPLOYMENTS[name]["spec"]
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    (container,) = spec["template"]["spec"]["containers"]
    assert container["image"] == "memory-platform"  # rewritten by the kustomization
    assert_cli_accepts(container["args"])
    requests = container["resources"]["requests"]
    assert {"cpu", "memory"} <= set(requests) and container["resources"]["limits"]["memory"]
    sources = {
        next(iter(ref.values()))["name"]: kind for ref in container["envFrom"] for kind in ref
    }
    assert sources == {
        "memory-platform-config": "configMapRef",
        SECRET["metadata"]["name"]: "secretRef",
    }
    assert spec["template"]["spec"]["securityContext"]["runAsNonRoot"] is True


def test_the_api_has_probes_on_health_and_readiness_and_a_service() -> None:
    pod = DEPLOYMENTS["memory-platform-api"]["spec"]["template"]["spec"]
    (api,) = pod["containers"]
    port = int(api["args"][api["args"].index("--port") + 1])
    assert api["ports"] == [{"name": "http", "containerPort": port}]
    assert api["readinessProbe"]["httpGet"] == {"path": "/ready", "port": "http"}
    assert api["livenessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    assert api["startupProbe"]["httpGet"]["path"] == "/health"
    service = objects("Service")["memory-platform-api"]
    assert service["spec"]["selector"].items() <= (
        DEPLOYMENTS["memory-platform-api"]["spec"]["template"]["metadata"]["labels"].items()
    )
    assert service["spec"]["ports"][0]["targetPort"] == "http"


def test_workers_are_probed_and_given_time_to_finish_tasks() -> None:
    pod = DEPLOYMENTS["memory-platform-worker"]["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] >= 300
    probe = " ".join(pod["containers"][0]["livenessProbe"]["exec"]["command"])
    assert "inspect ping" in probe and "workers.celery_app" in probe


def test_beat_runs_exactly_once() -> None:
    beat = DEPLOYMENTS["memory-platform-beat"]["spec"]
    assert beat["replicas"] == 1 and beat["strategy"]["type"] == "Recreate"
    scaled = {
        h["spec"]["scaleTargetRef"]["name"] for h in objects("HorizontalPodAutoscaler").values()
    }
    assert scaled == {"memory-platform-api", "memory-platform-worker"}
    assert scaled <= set(DEPLOYMENTS)


def test_config_and_secret_are_settings_that_load(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {**CONFIG, **SECRET["stringData"]}
    assert_known_variables(env, "ConfigMap + Secret")
    settings = assert_settings_load(env, monkeypatch)
    assert settings.backend == "neo4j" and settings.api.keys
    redis = urlparse(settings.redis_url or "")
    assert redis.hostname and redis.hostname.split(".")[0] in objects("Service")
    neo4j = urlparse(settings.neo4j_uri or "")
    assert neo4j.scheme == "neo4j", "neo4j:// routes to the cluster leader"
    assert neo4j.hostname and neo4j.hostname.split(".")[0] == f"{VALUES['neo4j']['name']}-lb-neo4j"
    assert neo4j.port == 7687


def test_neo4j_helm_values_describe_a_cluster() -> None:
    neo4j = VALUES["neo4j"]
    assert neo4j["edition"] == "enterprise" and neo4j["acceptLicenseAgreement"] == "yes"
    assert neo4j["minimumClusterSize"] >= 3
    secret_note = (K8S / "secret.example.yaml").read_text()
    assert f"secret generic {neo4j['passwordFromSecret']} " in secret_note
    assert VALUES["volumes"]["data"]["mode"] in {
        "share", "selector", "defaultStorageClass", "volume", "volumeClaimTemplate", "dynamic"
    }  # fmt: skip
    gib = lambda text: float(re.sub(r"[^0-9.]", "", text)) * (1 if text[-1] in "gG" else 1 / 1024)  # noqa: E731
    config = VALUES["config"]
    heap, cache = (
        gib(config["server.memory.heap.max_size"]),
        gib(config["server.memory.pagecache.size"]),
    )
    assert heap + cache < gib(neo4j["resources"]["memory"].removesuffix("i"))


def test_the_deploy_guide_covers_sizing_and_every_file() -> None:
    guide = (ROOT / "deploy" / "README.md").read_text(encoding="utf-8")
    for name in [*KUSTOMIZATION["resources"], "secret.example.yaml", "neo4j-values.yaml"]:
        assert name in guide, name
    assert "## Sizing" in guide
