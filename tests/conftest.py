"""Suite-wide test settings.

The suite runs with ``pytest -n 2`` on 2 cores: one BLAS thread per worker
avoids oversubscription (multi-threaded OpenBLAS under two workers made small
eigendecompositions 10-20x slower).
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True, scope="session")
def _single_blas_thread():
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Build embedded data sets into a per-run cache, not the user's ~/.cache."""
    old = os.environ.get("PROXLEARN_CACHE")
    os.environ["PROXLEARN_CACHE"] = str(tmp_path_factory.mktemp("proxlearn-cache"))
    yield
    if old is None:
        os.environ.pop("PROXLEARN_CACHE", None)
    else:
        os.environ["PROXLEARN_CACHE"] = old
