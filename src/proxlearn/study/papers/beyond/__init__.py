"""Comparisons beyond the papers: learning in Kreĭn spaces, regression and novelty
detection on similarities (no paper numbers, no claims).

* ``beyond-krein``: the Kreĭn learners against the clip / flip / shift SVMs and the
  Indefinite SVM on every real similarity set, accuracy (study runner, protocol
  ``beyond``, methods in :mod:`._methods_krein`).
* ``beyond-regression``: the regressors against scikit-learn's SVR / KernelRidge on the
  clipped matrix, R^2 on targets built from real data (:mod:`._regression`).
* ``beyond-novelty``: the one-class models against scikit-learn's OneClassSVM on the
  clipped matrix, ROC AUC of one class against the rest (:mod:`._novelty`).

Scores, significance and tables: :mod:`._scoring`.
"""

from __future__ import annotations

from ..._section import Section
from . import _methods_krein  # noqa: F401  (registers the section's classifiers)
from ._methods_krein import KREIN_METHODS
from ._novelty import NOVELTY_METHODS, run_novelty
from ._regression import REGRESSION_METHODS, run_regression
from ._scoring import pivot_table

PAPER = None

#: Every real similarity set (no synthetic sets; protein-rbf-sq is a variant of
#: protein-rbf, the stacks are run by the MKL rows), and the string builder's output
#: on real DNA sequences (splice-sw).
REAL_SETS = ("aural_sonar", "protein", "protein-2", "voting", "protein-rbf", "digits-idm",
             "digits-rbf", "digits-hog", "wine-sigmoid", "sonar-noisy", "liver-noisy",
             "ionosphere-noisy", "diabetes-noisy", "heart-noisy", "splice-sw")
#: The novelty sets (protein-2 is two of protein's classes: left out).
NOVELTY_SETS = tuple(d for d in REAL_SETS if d != "protein-2")
_SCORING = "proxlearn.study.papers.beyond._scoring"


def claims(sections: dict) -> list[tuple[str, str]]:
    """No paper numbers, no claims."""
    return []


def _formatter(methods, digits, scale=1.0, what=""):
    def fmt(out):
        return [f"{what}, mean +- standard error over the partitions (bold: the best and "
                "those not significantly worse, one-sided Wilcoxon signed-rank test, 5%).", "",
                *pivot_table(out.get("rows", []), methods, digits, scale)]

    return fmt


SECTIONS: tuple[Section, ...] = (
    Section(
        "beyond-krein",
        "Beyond the papers: learning in Kreĭn spaces against spectrum corrections",
        "beyond",
        REAL_SETS,
        KREIN_METHODS,
        note="Not a reproduction: no paper numbers. KreinSVC (KSVM) and "
        "KreinLeastSquaresClassifier keep the indefinite similarity (test rows as given); "
        "svc-clip / -flip / -shift are SimilaritySVC with consistent test rows; isvm the "
        "Indefinite SVM; all at the library's defaults (matrix divided by tr S / n). 5 "
        "random stratified 80/20 partitions, C in {0.01, ..., 1000} (isvm also rho in "
        "{0.1, 1, 10}) by 3-fold CV, krein-ls's radius by its own internal CV "
        "(study.papers.beyond._methods_krein); multi-class: one-vs-one (krein-ls: "
        "one-vs-rest).",
        formatter=_formatter(KREIN_METHODS, 1, what="Test accuracy %"),
    ),
    Section(
        "beyond-regression",
        "Beyond the papers: regression on similarities against scikit-learn on the "
        "clipped matrix",
        "beyond-regression",
        ("glass-RI", "liver-drinks", "diabetes", "digits-ink"),
        REGRESSION_METHODS,
        note="Not a reproduction: no paper numbers. Targets built from real data "
        "(datasets._targets: a sigmoid kernel of the UCI glass / BUPA liver / scikit-learn "
        "diabetes features without the target, the IDM similarity of digits-idm for the "
        "images' ink). 5 random 70/30 partitions; hyperparameters chosen on the training "
        "part only (study.papers.beyond._regression); the MKL rows only where a stack "
        "of matrices over the same objects exists (digits-ink: digits-multi).",
        runner=run_regression,
        formatter=_formatter(REGRESSION_METHODS, 3, what="Test R^2"),
        modules=("proxlearn.study.papers.beyond._regression", _SCORING,
                 "proxlearn.datasets._targets", "proxlearn.svm._kernel_svr",
                 "proxlearn.kernel_ridge._kernel_ridge", "proxlearn.neighbors._regression",
                 "proxlearn.svm._feature_svr", "proxlearn.krein._ksvm",
                 "proxlearn.krein._least_squares", "proxlearn.mkl._regression"),
    ),
    Section(
        "beyond-novelty",
        "Beyond the papers: novelty detection on similarities against scikit-learn on the "
        "clipped matrix",
        "beyond-novelty",
        NOVELTY_SETS,
        NOVELTY_METHODS,
        note="Not a reproduction: no paper numbers. Each class in turn is the inlier "
        "class: the detector is fitted on the training inliers of a stratified 70/30 "
        "partition and scores every held-out sample; ROC AUC of held-out inliers against "
        "the other classes, averaged over the classes; 5 partitions; every model at its "
        "defaults (study.papers.beyond._novelty, as benchmarks/bench_novelty.py); "
        "simple-mkl-ocsvm on digits-multi / protein-multi for digits-idm / protein.",
        runner=run_novelty,
        formatter=_formatter(NOVELTY_METHODS, 3, what="ROC AUC"),
        modules=("proxlearn.study.papers.beyond._novelty", _SCORING,
                 "proxlearn.svm._one_class", "proxlearn.neighbors._outlier",
                 "proxlearn.mkl._regression"),
    ),
)
