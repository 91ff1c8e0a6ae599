#!/usr/bin/env bash
# Install what is needed (the package with its dev extras, redis-server) and run the whole
# test suite. Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "test: installing ${missing[*]} (Debian packages)"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash scripts/setup.sh "dev"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m tests.support.cypher_lint
# Two test processes: 8.3 min of pytest where one took 13.9 (2026-11-28, 2-core machine).
# Against a Neo4j server one, as before: the contract tests share its database.
workers=(-n 2)
if [ -n "${MEMORY_NEO4J_URI:-}" ]; then
  workers=()
fi
exec .venv/bin/python -m pytest "${workers[@]}" "$@"
