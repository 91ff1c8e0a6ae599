"""Every Cypher statement is a file that loads, and every file is used by the code."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from memory_platform.errors import ConfigurationError
from memory_platform.queries import cypher, cypher_root, query_names, split_statements
from tests.support.cypher_lint import call_sites

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "memory_platform"


def referenced_names() -> set[str]:
    """Statement names the Python code asks for: the Neo4j store's calls (read as the
    Cypher lint reads them, conditional names included) and ``cypher("neo4j/...")``."""
    names = {site.name for site in call_sites()}
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        names.update(re.findall(r'cypher\(\s*"neo4j/([a-z_/]+)"\s*\)', source))
    return {f"neo4j/{n}" for n in names}


def test_every_file_loads_and_is_not_empty() -> None:
    names = query_names()
    assert "neo4j/schema" in names
    for name in names:
        assert cypher(name).strip(), name


def test_code_uses_exactly_the_files_that_exist() -> None:
    files = {n for n in query_names() if n.startswith("neo4j/")}
    used = referenced_names()
    assert used - files == set(), "the code asks for statements that have no file"
    assert files - used == set(), "statement files that no code uses"


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ConfigurationError):
        cypher("neo4j/memory/drop_everything")


def test_no_statement_pastes_values_into_the_text() -> None:
    for name in query_names():
        text = cypher(name)
        assert "{{" not in text and "%s" not in text, name


def test_schema_has_constraints_vector_and_fulltext_indexes() -> None:
    statements = split_statements(cypher("neo4j/schema"))
    vector = [s for s in statements if s.startswith("CREATE VECTOR INDEX")]
    assert {re.search(r"FOR \(n:(\w+)\)", s).group(1) for s in vector} == {  # type: ignore[union-attr]
        "Topic",
        "Object",
        "Memory",
        "Episode",
        "Knowledge",
    }
    assert all("toInteger($dimensions)" in s for s in vector)
    assert all("IF NOT EXISTS" in s for s in statements)
    assert any(s.startswith("CREATE FULLTEXT INDEX lexical_text") for s in statements)
    assert sum(s.startswith("CREATE CONSTRAINT") for s in statements) >= 5


def test_editable_install_reads_the_checkout() -> None:
    assert Path(str(cypher_root())) == ROOT / "cypher"


@pytest.mark.slow
def test_wheel_ships_the_cypher_files(tmp_path: Path) -> None:
    wheel_dir, target = tmp_path / "wheel", tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheel_dir),
        ],
        check=True,
    )
    wheel = next(wheel_dir.glob("memory_platform-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert "memory_platform/cypher/neo4j/schema.cypher" in names
    assert "workers/__init__.py" in names
    assert "memory_platform/retrieval/english_forms.txt.gz" in names
    assert "memory_platform/retrieval/pinyin.txt" in names
    shipped = [n for n in names if n.startswith("memory_platform/retrieval/backgrounds/")]
    assert len([n for n in shipped if n.endswith(".npy")]) == 4  # two models, two languages
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    probe = (
        "from memory_platform.queries import cypher_root, query_names, cypher;"
        "print(cypher_root()); print(len([cypher(n) for n in query_names()]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
    ).stdout.split()
    assert out[0].startswith(str(target))
    assert int(out[1]) == len(query_names())
