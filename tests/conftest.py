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


#: The repository root (scripts under examples/ and investigations/).
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def import_script():
    """``import_script("examples/x.py")``: import a repository script that is not
    part of the package, as a module named after the file."""
    import importlib.util

    def load(relpath):
        path = REPO / relpath
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load


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


@pytest.fixture
def assert_grid_search_slices():
    """``check(estimator, grid, S, y)``: GridSearchCV's fold scores equal manual
    fits on ``S[train][:, train]`` scored on ``S[test][:, train]`` (pairwise tag)."""
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    def check(estimator, grid, S, y):
        cv = StratifiedKFold(3, shuffle=True, random_state=0)
        gs = GridSearchCV(estimator, grid, cv=cv).fit(S, y)
        for i, params in enumerate(gs.cv_results_["params"]):
            for f, (tr, te) in enumerate(cv.split(S, y)):
                clf = clone(estimator).set_params(**params).fit(S[np.ix_(tr, tr)], y[tr])
                score = clf.score(S[np.ix_(te, tr)], y[te])
                assert gs.cv_results_[f"split{f}_test_score"][i] == pytest.approx(score)

    return check


@pytest.fixture
def uw_holdout_error(load_uw):
    """``error(estimator, grid, name)``: test error on a stratified 80/20 split of a
    UW data set after 3-fold grid search on the training part (skips without data)."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

    def error(estimator, grid, name):
        S, y = load_uw(name)
        tr, te = train_test_split(np.arange(len(y)), test_size=0.2, stratify=y, random_state=0)
        gs = GridSearchCV(estimator, grid, cv=StratifiedKFold(3, shuffle=True, random_state=0))
        gs.fit(S[np.ix_(tr, tr)], y[tr])
        err = 1 - gs.score(S[np.ix_(te, tr)], y[te])
        print(f"{type(estimator).__name__} {name}: test error {err:.3f} with {gs.best_params_}")
        return err

    return error
