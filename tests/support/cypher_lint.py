"""What each Cypher file is called with, and Neo4j's own linter run over every file.

``call_sites()`` reads ``memory_platform/store/neo4j.py`` (AST, not regexes) and returns,
for each statement name, the parameter names of every call that runs it. The linter
(``scripts/cypher-lint``, npm ``@neo4j-cypher/language-support``) is then given exactly
those names, so a ``$param`` no caller passes is a lint error. It is also given Neo4j's
catalogue of functions and procedures and the graph's names (:data:`GRAPH`): a misspelt
function or procedure is an error, a label, relationship type or key the store never
writes a warning, and so are deprecations and cartesian products (warnings count as
failures here).

Run as ``python -m tests.support.cypher_lint`` for a one-line summary (the test command
does); ``tests/unit/test_cypher_files.py`` asserts the same.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from memory_platform.models import VectorKind
from memory_platform.queries import cypher, query_names
from memory_platform.store.neo4j_schema import (
    GRAPH_KEYS,
    GRAPH_LABELS,
    GRAPH_RELATIONSHIP_TYPES,
)

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "memory_platform" / "store" / "neo4j.py"
LINTER = ROOT / "scripts" / "cypher-lint"
CACHE = ROOT / ".cypher-lint-cache"
# Saved Browser queries are run by people with `:param user_id => ...`; these are the
# parameters the guide (docs/neo4j-browser.md) tells them to set.
BROWSER_PARAMETERS = frozenset({"user_id", "session_id"})
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_COMMENT = re.compile(r"//[^\n]*")


def used_parameters(text: str) -> set[str]:
    """The ``$names`` a statement uses (comments ignored)."""
    return set(_PARAM.findall(_COMMENT.sub("", text)))


@dataclass(frozen=True)
class CallSite:
    """One call in the Neo4j store that runs a named statement."""

    name: str
    line: int
    parameters: frozenset[str]
    spreads: bool  # passes **mapping: its names cannot be checked


def _statement_names(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):  # "memory/expand_two" if ... else "memory/expand_step"
        return _statement_names(node.body) + _statement_names(node.orelse)
    if isinstance(node, ast.JoinedStr):
        pattern = "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "*"
            for v in node.values
        )
        if pattern == "vector/exact_*":  # f"vector/exact_{kind.value}" (not exact_many)
            return [f"vector/exact_{kind.value}" for kind in VectorKind]
        return [  # f"lexical/{kind}_page": every file it can name
            name.removeprefix("neo4j/")
            for name in query_names()
            if fnmatchcase(name, f"neo4j/{pattern}")
        ]
    return []


def _cypher_call_name(node: ast.expr) -> str | None:
    """``cypher("neo4j/x/y")`` -> ``"x/y"``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "cypher"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and node.args[0].value.startswith("neo4j/")
    ):
        return node.args[0].value.removeprefix("neo4j/")
    return None


def call_sites(path: Path = STORE) -> list[CallSite]:
    """Every ``_read`` / ``_run`` / ``.run(cypher(...), {...})`` call of the store."""
    sites: list[CallSite] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method = node.func.attr
        keywords = frozenset(k.arg for k in node.keywords if k.arg is not None)
        spreads = any(k.arg is None for k in node.keywords)
        names: list[str] = []
        if method == "_read" and node.args:
            names = _statement_names(node.args[0])
        elif method == "_run" and len(node.args) >= 2:
            names = _statement_names(node.args[1])
        elif method == "run" and node.args and (direct := _cypher_call_name(node.args[0])):
            names = [direct]
            mapping = node.args[1] if len(node.args) > 1 else None
            keywords = frozenset(
                k.value
                for k in (mapping.keys if isinstance(mapping, ast.Dict) else [])
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            )
            spreads = (
                spreads
                or bool(node.keywords)
                or (mapping is not None and not isinstance(mapping, ast.Dict))
            )
        sites.extend(CallSite(n, node.lineno, keywords, spreads) for n in names)
    return sites


def driver_run_calls_with_keywords(path: Path = STORE) -> list[int]:
    """Lines where the driver's ``run()`` gets keyword arguments (they clash with ``query``)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run"
            and node.keywords
        ):
            lines.append(node.lineno)
    return lines


def cypher_version(text: str) -> str:
    """The language a file is written in: Cypher 25 when its statements say so (the
    2026.01+ paths: SEARCH, vector indexes WITH filter properties), else Cypher 5."""
    code = _COMMENT.sub("", text).lstrip()
    return "CYPHER 25" if code.startswith("CYPHER 25") else "CYPHER 5"


GRAPH = {
    "labels": sorted(GRAPH_LABELS),
    "relationshipTypes": sorted(GRAPH_RELATIONSHIP_TYPES),
    "propertyKeys": sorted(GRAPH_KEYS),
}
"""The graph the statements may read (``store/neo4j_schema.py``), as the linter takes it."""


def lint_inputs() -> list[dict[str, object]]:
    """One linter job per file: its text, the parameters its callers supply, and the
    graph's names (:data:`GRAPH`)."""
    passed: dict[str, set[str]] = {}
    for site in call_sites():
        passed.setdefault(site.name, set()).update(site.parameters)
    jobs: list[dict[str, object]] = []
    for name in query_names():
        text = cypher(name)
        if name.startswith("neo4j/schema"):
            parameters = {"dimensions"}
        elif name.startswith("browser/"):
            parameters = set(BROWSER_PARAMETERS)
        else:
            parameters = passed.get(name.removeprefix("neo4j/"), set())
        jobs.append(
            {
                "name": name,
                "text": text,
                "parameters": sorted(parameters),
                "version": cypher_version(text),
                "graph": GRAPH,
            }
        )
    return jobs


class LinterMissing(RuntimeError):
    """The npm linter is not installed (``bash scripts/setup.sh dev`` installs it)."""


def run_linter(jobs: list[dict[str, object]]) -> list[dict[str, object]]:
    """Findings of ``@neo4j-cypher/language-support`` for the given jobs.

    The linter is deterministic and takes about a quarter of a second per file, so the
    findings are kept in ``.cypher-lint-cache/`` under a hash of the exact inputs and of
    the installed linter (its lock file): the test command's lint step and the tests
    that lint the same files again read them instead of parsing everything twice.
    """
    if not (LINTER / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        raise LinterMissing(
            f"the Cypher linter is not installed in {LINTER}: run `bash scripts/setup.sh dev` "
            "(it runs `npm ci` there)"
        )
    key = hashlib.sha256(
        (LINTER / "package-lock.json").read_bytes()
        + (LINTER / "lint.mjs").read_bytes()
        + json.dumps(jobs, sort_keys=True).encode()
    ).hexdigest()
    cached = CACHE / f"{key}.json"
    if cached.is_file():
        findings: list[dict[str, object]] = json.loads(cached.read_text(encoding="utf-8"))
        return findings
    findings = _lint(jobs)
    CACHE.mkdir(exist_ok=True)
    partial = cached.with_suffix(".tmp")
    partial.write_text(json.dumps(findings), encoding="utf-8")
    partial.replace(cached)  # whole or absent, even if two runs race
    return findings


def _lint(jobs: list[dict[str, object]]) -> list[dict[str, object]]:
    done = subprocess.run(
        ["node", str(LINTER / "lint.mjs")],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the Cypher linter failed: {done.stderr.strip()}")
    return list(json.loads(done.stdout))


def as_cypher_25(jobs: list[dict[str, object]]) -> list[dict[str, object]]:
    """The same jobs in Cypher 25: a 2026 database may default to it, so every statement
    must also be valid there."""
    return [{**job, "version": "CYPHER 25"} for job in jobs]


def main() -> int:
    jobs = lint_inputs()
    # Two node processes, one per language version: the test command's lint step runs
    # before the tests start, alone, and takes half the time on two cores.
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(run_linter, [jobs, as_cypher_25(jobs)]))
    findings = runs[0] + runs[1]
    for f in findings:
        print(f"cypher/{f['name']}.cypher:{f['line']}: {f['severity']}: {f['message']}")
    errors = sum(f["severity"] == "error" for f in findings)
    warnings = len(findings) - errors
    print(
        f"cypher lint: {len(jobs)} files, as written and as Cypher 25: "
        f"{errors} errors, {warnings} warnings"
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
