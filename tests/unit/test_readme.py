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
    for _ in range(2):  # a reader runs it again in the same folder
        exec(compile(python_block("## Quickstart (Python)"), "README.md", "exec"), {})
        out = capsys.readouterr().out
        assert "<direct_matches>" in out and "睡眠" in out
    assert (tmp_path / "memories.db").exists()


def blocks(heading: str, language: str) -> list[str]:
    """Every ``language`` block of one README section."""
    text = README.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    section = text[start : end if end != -1 else len(text)]
    return re.findall(rf"```{language}\n(.*?)\n```", section, re.DOTALL)


@pytest.mark.slow
def test_langchain_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # a reader runs it again in the same folder
        exec(compile(python_block("## LangChain"), "README.md", "exec"), {})
        out = capsys.readouterr().out
        assert '"success": true' in out and "I live in Berlin" in out


def test_langgraph_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # a second run over the same store works too
        exec(compile(python_block("## LangGraph long-term store"), "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "{'text': 'I am allergic to peanuts'}"
    assert out[1].startswith("allergy ") and out[1].endswith(" I am allergic to peanuts")
    assert out[2] == "[('alice', 'facts')]"


def test_langmem_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    example = blocks("## LangGraph long-term store", "python")[1]
    exec(compile(example, "README.md", "exec"), {})
    found, users = capsys.readouterr().out.splitlines()
    assert '"namespace":["memories","alice"]' in found and "allergic to peanuts" in found
    assert users == "['alice']"


@pytest.mark.slow
def test_http_example_runs_against_the_served_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    import shlex

    from memory_platform import MemoryPlatform, Settings
    from memory_platform.api import create_app
    from tests.support.net import serve

    shell = blocks("## HTTP API", "bash")[0]
    keys = shlex.split(shell.splitlines()[0].removeprefix("export "))[0].split("=", 1)[1]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMORY_API__KEYS", keys)
    assert json.loads(keys)  # the documented variable is valid JSON
    with (
        MemoryPlatform(Settings(sqlite_path=tmp_path / "api.db")) as mp,
        serve(create_app(mp)) as url,
    ):
        code = python_block("## HTTP API").replace("http://127.0.0.1:8000", url)
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "<memory_context>" in out and "心情" in out


def test_documented_commands_exist() -> None:
    from typer.main import get_command

    from memory_platform.cli import app

    names = set(get_command(app).commands)  # type: ignore[attr-defined]
    for line in blocks("## Command line", "bash")[0].splitlines():
        words = line.split("#")[0].split()
        assert words[0] == "memory-platform"
        for word in " ".join(words[1:]).split(" | ") if "|" in line else [words[1]]:
            assert word.split()[0] in names, line


def _prose(text: str) -> str:
    """The text outside fenced code blocks (a ``#`` there is a comment, not a heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)


DOCS = [
    README,
    *sorted((README.parent / "docs").glob("*.md")),
    *sorted((README.parent / "benchmarks").rglob("*.md")),
]


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(README.parent)))
def test_headings_are_unique_and_links_resolve(page: Path) -> None:
    """A heading twice makes its anchor ambiguous; a relative link must name a file that
    is in the repository."""
    prose = _prose(page.read_text(encoding="utf-8"))
    headings = [line for line in prose.splitlines() if re.match(r"#{1,6} ", line)]
    repeated = sorted({h for h in headings if headings.count(h) > 1})
    assert not repeated, f"headings repeated in {page.name}: {repeated}"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
        if not re.match(r"[a-z]+:", target):
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(README.parent)))
def test_table_rows_have_the_cells_their_header_names(page: Path) -> None:
    """A row with more cells than its header loses the extra ones when rendered (seven
    rows of the measured-changes table lost the code they changed), one with fewer shifts
    its meaning. Pipes escaped (``\\|``) or inside backticks are not cell borders."""
    header = 0
    for number, line in enumerate(_prose(page.read_text(encoding="utf-8")).splitlines(), 1):
        if not line.startswith("|"):
            header = 0
            continue
        cells = len(re.split(r"(?<!\\)\|", re.sub(r"`[^`]*`", "``", line.strip().strip("|"))))
        if not header:
            header = cells
        assert cells == header, f"{page.name}:{number} has {cells} cells, its header {header}"


def test_the_results_table_is_the_committed_summary() -> None:
    from memory_platform.bench.summary import summary_from

    results = README.parent / "benchmarks" / "results"
    expected = summary_from(results)
    assert (results / "summary.md").read_text(encoding="utf-8").strip() == expected
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Results") : text.index("\n## ", text.index("## Results") + 3)]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    assert table == expected, "README results differ from benchmarks/results: copy summary.md"


def test_correcting_and_forgetting_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # a reader runs it again in the same folder
        exec(
            compile(python_block("## Correcting, forgetting and privacy"), "README.md", "exec"), {}
        )
        out = capsys.readouterr().out.splitlines()
        assert out == [
            "[('I moved to Berlin (time: 2024-03)', False), ('I moved to Paris (time: 2024-03)', True)]",
            "I moved to Paris (time: 2024-03)",
            "[]",
            "I diagnosed with asthma",
            "True forget",
        ]


def test_media_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.media import png

    monkeypatch.chdir(tmp_path)
    (tmp_path / "beach.png").write_bytes(png())
    for _ in range(2):  # a reader runs it again in the same folder
        exec(compile(python_block("## Images and sounds"), "README.md", "exec"), {})
        out = capsys.readouterr().out.splitlines()
        assert out == ["image/png caller", "episode text True"]
    media = tmp_path / "memories.db.media"
    assert not [p for p in media.rglob("*") if p.is_file()]  # forgotten with its episode
