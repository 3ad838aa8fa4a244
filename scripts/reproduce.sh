#!/usr/bin/env bash
# The reproduction report: set up ./.venv and rerun every table of the founding
# papers that the data allows, writing docs/reproduction.md and docs/reproduction.json.
# Needs the UW benchmark files in ../shared/data (or PROXLEARN_DATA). Finished cells
# are cached, so an interrupted run resumes. Extra arguments go to `proxlearn reproduce`,
# e.g. --sections chen2009,loo --splits 3 --jobs 2
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
.venv/bin/proxlearn reproduce --jobs 2 "$@"
