#!/usr/bin/env bash
# Set up ./.venv with the development extras and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
export MPLBACKEND=Agg
exec .venv/bin/python -m pytest -n 2 -q "$@"
