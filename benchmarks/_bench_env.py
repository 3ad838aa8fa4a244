"""Import first in a benchmark script: one BLAS / OpenMP thread and the Agg backend
unless the caller set them (before numpy is imported), and this tree's ``src`` and
``benchmarks`` first on ``sys.path`` (the cached cells describe this tree's code, not an
installed copy of another checkout)."""

import os
import sys
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
