"""Suite-wide test settings.

The suite runs with ``pytest -n 2`` on 2 cores: one BLAS thread per worker
avoids oversubscription (multi-threaded OpenBLAS under two workers made small
eigendecompositions 10-20x slower).
"""

import os
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np
import pytest
import scipy.io
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


#: The UW benchmark files, next to the checkout as ../shared/data/uw.
UW_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "uw"


@pytest.fixture
def load_uw():
    """``load_uw(name) -> (S, y)`` for a UW benchmark matrix, or skip the test."""

    def load(name):
        path = UW_DIR / f"{name}.mat"
        if not path.is_file():
            pytest.skip(f"{path} not found: the UW benchmark files belong in ../shared/data/uw")
        d = scipy.io.loadmat(path)
        return np.asarray(d["A"], dtype=np.float64), np.asarray(d["C"]).ravel().astype(int)

    return load
