"""Gram matrices of the generated data sets, with bits that do not depend on the machine's
BLAS thread count.

A data set's matrix is hashed into every study cell's cache key. A BLAS product's last
bits change with the number of threads (``Z Z^T`` at 351 x 34, the size of the UCI
Ionosphere stand-in, differed in its last bit between 1 and 2 threads), so a run under
``OMP_NUM_THREADS=1`` (as ``scripts/reproduce.sh`` runs) missed every cell of a
multi-threaded run. One BLAS thread for these small products costs nothing measurable.
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

__all__ = ["gram"]


def gram(A, B=None):
    """``A B^T`` (``A A^T`` when ``B`` is None) computed with one BLAS thread."""
    A = np.asarray(A, dtype=np.float64)
    B = A if B is None else np.asarray(B, dtype=np.float64)
    with threadpool_limits(limits=1, user_api="blas"):
        return A @ B.T
