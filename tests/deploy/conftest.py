"""Helpers for checking deployment files against the code: settings names and CLI commands."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command

from memory_platform.cli import app
from memory_platform.config import Settings, environment_variables

ROOT = Path(__file__).resolve().parents[2]
# Variables the image or the libraries read that are not platform settings.
OTHER_VARIABLES = {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM"}


def assert_known_variables(env: dict[str, Any], where: str) -> None:
    known = set(environment_variables()) | OTHER_VARIABLES
    unknown = set(env) - known
    assert not unknown, f"{where}: not settings the platform reads: {sorted(unknown)}"


def assert_settings_load(env: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The variables, as a container would see them, make valid settings."""
    for key in [k for k in os.environ if k.startswith("MEMORY_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, str(value))
    return Settings(_env_file=None)


def assert_cli_accepts(args: list[str]) -> None:
    """``memory-platform <args>`` names a command and its options parse (nothing runs)."""
    commands = get_command(app).commands  # type: ignore[attr-defined]
    name, *rest = args
    assert name in commands, f"no command {name!r} in memory-platform"
    commands[name].make_context(name, list(rest))


def resolve_compose_defaults(value: str) -> str:
    """``${VAR:-default}`` -> default; ``${VAR:?message}`` -> a placeholder value."""
    value = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)
    return re.sub(r"\$\{(\w+):\?[^}]*\}", lambda m: _placeholder(m.group(1)), value)


def _placeholder(name: str) -> str:
    return '{"a-long-placeholder-key": ["*"]}' if name == "MEMORY_API__KEYS" else "placeholder"
