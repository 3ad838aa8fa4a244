#!/usr/bin/env bash
# Refresh constraints.txt deliberately: install the newest releases that
# pyproject.toml allows (all extras) into a throw-away venv, run the whole test
# suite there, and only if it passes write the exact versions to constraints.txt.
# Review the diff (git diff constraints.txt), run bash scripts/test.sh, commit.
# Usage: bash scripts/refresh-constraints.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --upgrade pip
"$tmp/venv/bin/python" -m pip install --quiet -e ".[dev,distributed,docs]"
MPLBACKEND=Agg "$tmp/venv/bin/python" -m pytest -q -n 2 -p no:cacheprovider
{
    echo "# Exact versions the test suite passed with; used by scripts/setup.sh."
    echo "# Written by scripts/refresh-constraints.sh on $(date -u +%Y-%m-%d)"
    echo "# ($("$tmp/venv/bin/python" -c 'import platform; print("Python", platform.python_version(), platform.machine())'))."
    echo "# Do not edit by hand; rerun that script to move to newer releases."
    "$tmp/venv/bin/python" -m pip --version | awk '{print "pip==" $2}'
    "$tmp/venv/bin/python" -m pip freeze --exclude proxlearn | grep -v '^-e ' | sort -f
} > constraints.txt
echo "constraints.txt updated: review with git diff constraints.txt"
