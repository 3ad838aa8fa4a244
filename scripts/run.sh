#!/usr/bin/env bash
# Main job: set up ./.venv and run the default job on the embedded data sets.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
.venv/bin/proxlearn demo --out out --jobs 2 "$@"
