"""Loads the Cypher statements kept as ``.cypher`` files under the top-level ``cypher/``.

A wheel ships them as ``memory_platform/cypher``; a source checkout or an editable
install reads them from the repository's ``cypher/`` beside the package. Either way a
statement is addressed by its path without the suffix, e.g. ``"neo4j/memory/create"``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from .errors import ConfigurationError

__all__ = ["cypher", "cypher_root", "query_names", "split_statements"]


@cache
def cypher_root() -> Traversable:
    """The folder holding the ``.cypher`` files for this installation."""
    packaged = resources.files("memory_platform") / "cypher"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "cypher"
    if checkout.is_dir():
        return checkout
    raise ConfigurationError(
        "the Cypher files are missing: neither memory_platform/cypher (wheel) nor "
        "cypher/ beside the package (checkout) exists; reinstall memory-platform"
    )


def _walk(folder: Traversable, prefix: str) -> list[str]:
    names: list[str] = []
    for entry in folder.iterdir():
        if entry.is_dir():
            names.extend(_walk(entry, f"{prefix}{entry.name}/"))
        elif entry.name.endswith(".cypher"):
            names.append(prefix + entry.name.removesuffix(".cypher"))
    return names


@cache
def query_names() -> tuple[str, ...]:
    """Every statement name available, sorted."""
    return tuple(sorted(_walk(cypher_root(), "")))


@cache
def cypher(name: str) -> str:
    """The text of one statement file, loaded once.

    Raises:
        ConfigurationError: no file of that name exists.
    """
    if name not in query_names():
        raise ConfigurationError(f"no Cypher statement named {name!r}")
    node = cypher_root()
    for part in name.split("/")[:-1]:
        node = node / part
    return (node / (name.rsplit("/", 1)[-1] + ".cypher")).read_text(encoding="utf-8").strip()


def split_statements(text: str) -> list[str]:
    """The statements of a multi-statement file (``;`` at line end), comments removed."""
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("//")]
    statements = []
    for chunk in "\n".join(lines).split(";\n"):
        stmt = chunk.strip().rstrip(";").strip()
        if stmt:
            statements.append(stmt)
    return statements
