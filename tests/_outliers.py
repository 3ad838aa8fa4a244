"""scikit-learn's estimator checks for the outlier detectors on similarities (issue 37,
item 2), shared by tests/svm/test_one_class.py and tests/neighbors/test_outlier.py."""

import warnings

from sklearn.utils.estimator_checks import parametrize_with_checks

from proxlearn.base import SKLEARN_CHECK_EXCEPTIONS

#: scikit-learn's outlier checks that fail by design (the others pass), with the reason.
OUTLIER_CHECK_EXCEPTIONS = {
    "check_outliers_train": "scikit-learn's outlier checks fit raw (300, 2) features and skip "
                            "the pairwise conversion; refused with a clear error (not square)",
    "check_outliers_fit_predict": "the same raw (300, 2) features, refused as not square",
    "check_outlier_contamination": "reads scikit-learn's own constraint objects from "
                                   "_parameter_constraints; proxlearn's tables are another "
                                   "type (the (0, 0.5] range is tested with the estimator)",
}


def _expected_failed(est):
    out = {**SKLEARN_CHECK_EXCEPTIONS, **OUTLIER_CHECK_EXCEPTIONS}
    if not hasattr(est, "predict"):  # LOF with novelty=False: no 1-D test row is given
        out.pop("check_fit2d_predict1d")
    return out


def sklearn_outlier_checks(estimators):
    """``parametrize_with_checks`` over ``estimators`` with the expected failures above;
    decorate ``test(estimator, check)`` and call :func:`run_check` in it."""
    return parametrize_with_checks(list(estimators), expected_failed_checks=_expected_failed)


def run_check(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)
