#!/usr/bin/env bash
# Create ./.venv (if missing) and install proxlearn into it with the given extras.
# Usage: bash scripts/setup.sh [extras]   e.g. bash scripts/setup.sh dev
#
# Versions are pinned by constraints.txt (the set the test suite last passed with),
# so that every fresh machine gets the same numpy / scipy / scikit-learn / cvxpy /
# solvers. pyproject.toml keeps open lower bounds for library users. To move to
# newer releases deliberately: bash scripts/refresh-constraints.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
extras=${1:-}
spec="."
[ -n "$extras" ] && spec=".[$extras]"
# Quiet, but fail loudly: pip's own error output is kept.
.venv/bin/python -m pip install --quiet --upgrade pip -c constraints.txt >/dev/null
.venv/bin/python -m pip install --quiet -c constraints.txt -e "$spec"
