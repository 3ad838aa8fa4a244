"""The defaults benchmark covers every public estimator (issue 40, item 1).

benchmarks/_defaults_panel.py must give each public estimator a row (its name
in a row's key, alone or with the transform or bank it is used with) or an entry
in ``NOT_IN_PANEL`` with the reason; a new estimator without either fails here.
"""

import sys
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

from _estimators import public_classes

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
PACKAGES = ["transforms", "svm", "neighbors", "discriminant", "kernel_learning", "ranking",
            "mkl", "kernel_approximation", "manifold", "cluster", "krein"]
PACKAGES.append("kernel_ridge")  # regression on similarities (issue 37, item 1)


@pytest.fixture(scope="module")
def panel():
    if not (BENCHMARKS / "_defaults_panel.py").exists():
        pytest.skip("benchmarks/ is not part of this installation")
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import _defaults_panel
    finally:
        sys.path.remove(str(BENCHMARKS))
    return _defaults_panel


def _names_in(key):
    for sep in "[]+":
        key = key.replace(sep, " ")
    return set(key.split())


def test_every_public_estimator_has_a_row_or_a_reason(panel):
    covered = set().union(*(_names_in(k) for k, s in panel.SPECS.items() if s.role != "baseline"))
    covered |= {"SimilaritySVC", "SimilarityKNeighborsClassifier"}  # the baselines themselves
    public = {name for _, name, _ in public_classes(PACKAGES, BaseEstimator)}
    missing = sorted(public - covered - set(panel.NOT_IN_PANEL))
    assert not missing, f"no defaults row and no NOT_IN_PANEL reason for {missing}"
    assert all(panel.NOT_IN_PANEL.values())
    stale = sorted(set(panel.NOT_IN_PANEL) - public)
    assert not stale, f"NOT_IN_PANEL names estimators that are not public: {stale}"
    both = sorted(set(panel.NOT_IN_PANEL) & covered)
    assert not both, f"{both} have a row; remove them from NOT_IN_PANEL"
