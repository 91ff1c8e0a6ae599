"""The README's quickstart runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def python_block(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    match = re.search(r"```python\n(.*?)\n```", section, re.DOTALL)
    assert match, f"no python block under {heading!r}"
    return match.group(1)


def test_readme_starts_with_the_two_commands() -> None:
    first_block = re.search(r"```bash\n(.*?)\n```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "exec bash scripts/test.sh" in ci


@pytest.mark.slow
def test_quickstart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(python_block("## Quickstart (Python)"), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "<direct_matches>" in out and "睡眠" in out
    assert (tmp_path / "memories.db").exists()
