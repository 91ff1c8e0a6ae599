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
