#!/usr/bin/env bash
# Install (like scripts/setup.sh) and reproduce every benchmark and evaluation figure:
#   bash scripts/bench.sh                       # quick: 1k memories, reports in bench-results/
#   bash scripts/bench.sh --scales 10k,100k --out-dir benchmarks/results   # the committed ones
# Extra arguments go to `memory-platform bench --all` (--backend neo4j, --data, --workdir).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "llm,workers"
exec .venv/bin/memory-platform bench --all "$@"
