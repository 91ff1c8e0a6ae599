"""The command line, driven through typer's runner with real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memory_platform.cli import app

runner = CliRunner()


@pytest.mark.slow
def test_demo_replays_the_seed_examples_and_is_repeatable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "demo.db"

    first = runner.invoke(app, ["demo", "--db", str(db)])
    second = runner.invoke(app, ["demo", "--db", str(db), "--json"])

    assert first.exit_code == 0, first.output
    assert "我情绪不开心" in first.output and "CAUSES" in first.output
    assert "15 memories" in first.output
    report = json.loads(second.stdout)
    assert report["stats"]["memories"] == 15  # a second run starts over, nothing doubles
    assert report["stats"]["links"] == 5
    calls = [c for turn in report["transcript"] for c in turn["calls"]]
    assert all(c["result"]["success"] for c in calls)


def test_bad_settings_print_one_line_and_exit_non_zero(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMORY_EMBEDDING_DIM", "-3")
    result = runner.invoke(app, ["demo", "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 1
    assert "embedding_dim (MEMORY_EMBEDDING_DIM)" in result.output
    assert "Traceback" not in result.output


def test_help_shows_flags_without_type_labels() -> None:
    from typer.testing import CliRunner

    from memory_platform.cli import app

    result = CliRunner().invoke(app, ["demo", "--help"])

    assert result.exit_code == 0 and "--json" in result.stdout
    assert "<bool>" not in result.stdout
