#!/usr/bin/env bash
# Install what is needed and run the platform's main job on the embedded SQLite store.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "llm,workers"
exec .venv/bin/memory-platform demo "$@"
