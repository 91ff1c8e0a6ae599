#!/usr/bin/env bash
# Create .venv and install the platform into it: torch (pinned CPU build) first, then the
# package with the extras named in $1 (default: embeddings,llm). Idempotent and quick on
# a second run: a stamp per pyproject.toml version and extras set skips pip.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-embeddings,llm,workers}"
python="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($python --version)"
  "$python" -m venv .venv
fi
stamp=".venv/.setup-$(sha256sum pyproject.toml | cut -c1-12)-${extras//,/-}"
if [ ! -f "$stamp" ]; then
  quiet() { grep -v "^WARNING: Location '.*' is ignored" >&2 || true; }
  echo "setup: installing torch==2.13.0 (CPU build) and memory-platform[$extras]"
  .venv/bin/pip install --disable-pip-version-check -q "torch==2.13.0" 2> >(quiet)
  .venv/bin/pip install --disable-pip-version-check -q -e ".[$extras]" 2> >(quiet)
  touch "$stamp"
fi

# The dev extras also lint Cypher offline with Neo4j's own tooling (npm, pinned by the lock).
if [[ ",$extras," == *",dev,"* ]]; then
  lint_dir=scripts/cypher-lint
  lint_stamp="$lint_dir/node_modules/.stamp-$(sha256sum "$lint_dir/package-lock.json" | cut -c1-12)"
  if [ ! -f "$lint_stamp" ]; then
    command -v npm >/dev/null 2>&1 || { echo "setup: npm is needed for the Cypher lint (apt-get install -y nodejs npm)" >&2; exit 1; }
    echo "setup: installing the Cypher linter (@neo4j-cypher/language-support)"
    npm ci --prefix "$lint_dir" --no-audit --no-fund --loglevel=error >/dev/null
    touch "$lint_stamp"
  fi
fi
