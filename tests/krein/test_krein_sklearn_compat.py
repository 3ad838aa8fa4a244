"""scikit-learn's estimator checks for the Kreĭn learners (pairwise tag: the checks
build kernels), with the library's documented exceptions."""

import warnings

from sklearn.utils.estimator_checks import parametrize_with_checks

from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS
from proxlearn.krein import KreinLeastSquares, KreinLeastSquaresClassifier, KreinSVC, KreinSVR


@parametrize_with_checks(
    [KreinSVC(), KreinSVR(), KreinLeastSquares(), KreinLeastSquaresClassifier()],
    expected_failed_checks=lambda est: dict(SKLEARN_CHECK_EXCEPTIONS),
)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)
