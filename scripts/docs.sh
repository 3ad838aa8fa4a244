#!/usr/bin/env bash
# Build the documentation site into docs/_build/html (open docs/_build/html/index.html).
# Usage: bash scripts/docs.sh
#
# Its own environment, ./.venv-docs (created if missing; PROXLEARN_DOCS_VENV names
# another): proxlearn and its `docs` extra, whose versions pyproject.toml pins; the
# package's own dependencies are pinned by constraints.txt, as in scripts/setup.sh.
# Warnings are errors and references are nitpicky (-W --keep-going -n): the build
# fails on any warning, after listing all of them. Every page is read afresh (-E),
# so a second build reports the same warnings as the first.
#
# Offline: the build itself never opens a network connection. While setting up,
# each intersphinx inventory (Python, numpy, SciPy, scikit-learn) missing from
# docs/_build/intersphinx/ is fetched once, with a short timeout; a project whose
# inventory is not there is not linked (references to it are plain text, see
# docs/conf.py), so a machine without network builds the same site, less those
# links. PROXLEARN_DOCS_FETCH=0 skips the attempt.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${PROXLEARN_DOCS_VENV:-.venv-docs}
PY=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip -c constraints.txt >/dev/null
"$VENV/bin/python" -m pip install --quiet -c constraints.txt -e ".[docs]"

INVENTORIES=docs/_build/intersphinx
mkdir -p "$INVENTORIES"
if [ "${PROXLEARN_DOCS_FETCH:-1}" != 0 ]; then
    "$VENV/bin/python" - "$INVENTORIES" <<'EOF'
import sys
import urllib.request
from pathlib import Path

# The same URLs as INVENTORIES in docs/conf.py.
URLS = {
    "python": "https://docs.python.org/3/objects.inv",
    "numpy": "https://numpy.org/doc/stable/objects.inv",
    "scipy": "https://docs.scipy.org/doc/scipy/objects.inv",
    "sklearn": "https://scikit-learn.org/stable/objects.inv",
}
folder = Path(sys.argv[1])
for name, url in URLS.items():
    path = folder / f"{name}.inv"
    if path.is_file() and path.stat().st_size > 0:
        continue
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            data = response.read()
        if not data.startswith(b"# Sphinx inventory"):
            raise ValueError("not a Sphinx inventory")
    except Exception as exc:  # no network, or not this file: build without the links
        print(f"docs: {name} inventory not fetched ({type(exc).__name__}); "
              f"its names will be plain text", file=sys.stderr)
        continue
    path.write_bytes(data)
EOF
fi

# autosummary writes one stub page per public name here; a stub left from a name that
# is no longer public would be a page outside every toctree (a warning): start afresh.
rm -rf docs/api/generated
export MPLBACKEND=Agg
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
exec "$VENV/bin/python" -m sphinx -b html -E -W --keep-going -n -q docs docs/_build/html
