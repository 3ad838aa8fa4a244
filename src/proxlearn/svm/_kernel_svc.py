"""SVM with a spectrum-modified similarity matrix as a precomputed kernel."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    MAX_ITER_OR_NO_LIMIT,
    NORMALIZE,
    InvalidParameterError,
    check_labels,
    check_sample_weight,
    check_similarity,
    check_test_similarity,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from .._normalize import ScaleNormalizeMixin
from .._svm._libsvm import MAX_ITER, svc_pairwise_coef
from .._svm._multiclass import libsvm_vote, ovo_decision
from .._svm._platt import PlattProbabilityMixin
from ..transforms._spectrum import (
    SPECTRUM_METHODS,
    SPECTRUM_TOL,
    TEST_TRANSFORMS,
    SpectrumTransformer,
)

__all__ = ["SimilaritySVC", "TransformedSVCMixin"]

class TransformedSVCMixin(ScaleNormalizeMixin):
    """``decision_function`` / ``predict`` of an SVM on a fitted kernel transform.

    For estimators whose ``fit`` stores a fitted transformer ``transformer_``
    (training similarities -> PSD kernel, test rows -> kernel rows) and an
    :class:`sklearn.svm.SVC` ``svc_`` fitted on the precomputed kernel. With a
    fitted ``scale_`` (``normalize``, :mod:`proxlearn._normalize`) the
    transformer was fitted on ``S / scale_`` and test rows are divided likewise.
    """

    def _fit_svc(self, svc, K, y, sample_weight=None, *, checked=False):
        """Fit ``svc`` on the precomputed training kernel ``K`` with sample weights.

        Samples of weight 0 are left out here, and their columns skipped at
        prediction time: libsvm drops them itself, and scikit-learn's ``SVC``
        (1.9) then reports ``support_`` indices of the reduced problem, so its
        ``decision_function`` on a full test kernel reads the wrong columns
        (measured: decision values off by 4.6 on a 24-sample problem).
        ``checked``: the caller validated ``max_iter`` (its parameter table).
        """
        self._svc_columns = None
        if not checked:
            MAX_ITER_OR_NO_LIMIT.check(svc.max_iter, "max_iter")
        if sample_weight is not None and np.any(sample_weight == 0):
            keep = np.flatnonzero(sample_weight > 0)
            if np.unique(y[keep]).size < 2:
                raise InvalidParameterError(
                    "sample_weight is zero for every sample of all classes but one; at "
                    "least two classes need a positive weight."
                )
            K, y, sample_weight = K[np.ix_(keep, keep)], y[keep], sample_weight[keep]
            self._svc_columns = keep
        self.svc_ = svc.fit(K, y, sample_weight=sample_weight)

    def _svc_input(self, S_test):
        K = self.transformer_.transform(self._scale_test(S_test))
        cols = getattr(self, "_svc_columns", None)
        return K if cols is None else K[:, cols]

    def _fold_svc(self, n):
        """Fold the transformer's test map into the SVM's dual coefficients.

        For a transformer with ``transform(S_test) = S_test M`` (it offers
        ``transform_coef(V) = M V``), the one-vs-one decision values of the
        precomputed-kernel SVM, ``K_test[:, sv] @ coef + b`` with
        ``K_test = S_test M``, are ``S_test @ (M[:, sv] @ coef) + b``: one
        ``(n, n_pairs)`` weight matrix computed here makes prediction
        ``O(m n n_pairs)`` instead of the ``O(m n^2)`` of forming ``K_test``.
        Pairwise values use the :mod:`proxlearn._svm._multiclass`
        sign (:func:`~proxlearn._svm._libsvm.svc_pairwise_coef`).
        """
        svc = self.svc_
        cols = getattr(self, "_svc_columns", None)
        V, b = svc_pairwise_coef(svc, svc.support_ if cols is None else cols[svc.support_], n)
        # the transformer reads S_test / scale_: fold that factor in as well
        self._folded_coef = self.transformer_.transform_coef(V) / getattr(self, "scale_", 1.0)
        self._folded_intercept = b

    def _pairwise_decision(self, S_test):
        arr = check_test_similarity(S_test, self.n_features_in_)
        return arr @ self._folded_coef + self._folded_intercept

    def decision_function(self, S_test):
        """SVM decision values for test-to-train similarities ``(m, n)``.

        Shape ``(m,)`` for two classes (positive means ``classes_[1]``), else
        ``(m, n_classes)`` (one-vs-rest shaped aggregation of the one-vs-one
        votes, as :class:`sklearn.svm.SVC`).
        """
        check_is_fitted(self, "svc_")
        if getattr(self, "_folded_coef", None) is None:
            return self.svc_.decision_function(self._svc_input(S_test))
        return ovo_decision(self._pairwise_decision(S_test), len(self.classes_))

    def predict(self, S_test):
        """Predict class labels for test-to-train similarities ``(m, n)``."""
        check_is_fitted(self, "svc_")
        if getattr(self, "_folded_coef", None) is None:
            return self.svc_.predict(self._svc_input(S_test))
        # libsvm's vote, as SVC.predict (not the tie-breaks of ovo_labels)
        return self.classes_[libsvm_vote(self._pairwise_decision(S_test), len(self.classes_))]


class SimilaritySVC(PairwiseMixin, PlattProbabilityMixin, TransformedSVCMixin, ClassifierMixin, BaseEstimator):
    """SVM on similarities used as a kernel, after a spectrum modification.

    Chen et al. (2009), sections 2.1-2.2 and 7 ("SVM - similarities as
    kernel"): symmetrise ``S``, make it PSD by clip/flip/shift (or use
    ``S S^T``), train a precomputed-kernel SVM (libsvm via
    :class:`sklearn.svm.SVC`, one-vs-one for multiclass) and map test rows with
    the consistent transformation of section 2.2. Gu & Guo (2012), section 1.1,
    use the same baselines (Clip+SVM, Flip+SVM, Shift+SVM).

    Parameters
    ----------
    spectrum : {"clip", "flip", "shift", "square", "none"}, default="clip"
        Spectrum modification, see :class:`~proxlearn.transforms.SpectrumTransformer`.
        ``"none"`` feeds the (symmetrised, possibly indefinite) matrix to libsvm
        directly: its SMO then converges only to a stationary point of the
        non-convex dual (Lin & Lin 2003; Chen et al. section 2.1.1), so the
        result depends on the solver and carries no optimality guarantee.
    C : float, default=1.0
        SVM regularisation (> 0).
    test_transform : {"consistent", "linear", "raw"}, default="consistent"
        Treatment of test rows, see ``SpectrumTransformer``.
    tol : float or None, default=None
        Zero-eigenvalue tolerance, see ``SpectrumTransformer``.
    class_weight : dict, "balanced" or None, default=None
        Passed to :class:`sklearn.svm.SVC`.
    max_iter : int, default=10_000_000
        Iteration cap of libsvm's SMO (``-1``: none), see ``MAX_ITER``.
    probability, random_state : bool, default=False; int or None, default=None
        ``predict_proba`` by Platt scaling on an internal CV, see
        :class:`~proxlearn._svm._platt.PlattProbabilityMixin`.
    normalize : bool, default=True
        Divide ``S`` and the test rows by ``scale_ = tr S / n`` (1 for a
        unit-diagonal similarity), so that ``C`` does not depend on the units
        of ``S`` and a positive factor on ``S`` leaves every prediction
        unchanged; ``False`` uses ``S`` as given (Chen et al. 2009). See
        :mod:`proxlearn._normalize`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    scale_ : float
        The factor ``S`` was divided by (1.0 with ``normalize=False``).
    transformer_ : SpectrumTransformer
        Fitted on ``S / scale_``.
    svc_ : sklearn.svm.SVC
        Fitted with ``kernel="precomputed"``.
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        libsvm's SMO iterations per one-vs-one problem.
    n_features_in_ : int
        Number of training samples.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn.svm import SimilaritySVC
    >>> X, y = load_iris(return_X_y=True)
    >>> S = X @ X.T
    >>> clf = SimilaritySVC(spectrum="flip").fit(S, y)
    >>> clf.predict(S[::50]).tolist(), clf.scale_ > 0
    ([0, 1, 2], True)

    See Also
    --------
    proxlearn.transforms.SpectrumTransformer : the spectrum modifications.
    SimilaritySVCCV : ``C`` chosen by cross-validation.
    SimilarityFeatureSVC : similarities used as features instead.
    """

    def __init__(
        self,
        spectrum="clip",
        C=1.0,
        test_transform="consistent",
        tol=None,
        class_weight=None,
        max_iter=MAX_ITER,
        *,
        probability=False,
        random_state=None,
        normalize=True,
    ):
        self.spectrum = spectrum
        self.C = C
        self.test_transform = test_transform
        self.tol = tol
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.probability = probability
        self.random_state = random_state
        self.normalize = normalize

    _parameter_constraints = {
        "spectrum": options(*SPECTRUM_METHODS),
        "test_transform": options(*TEST_TRANSFORMS),
        "C": positive(),
        "normalize": NORMALIZE,
        "max_iter": MAX_ITER_OR_NO_LIMIT,
        "tol": SPECTRUM_TOL,
        "class_weight": unchecked("checked by scikit-learn's SVC"),
        "probability": unchecked("read as a truth value, as scikit-learn's SVC"),
        "random_state": unchecked("sklearn.utils.check_random_state, in the probability CV"),
    }

    def fit(self, S, y, sample_weight=None):
        """Fit on the ``n x n`` training similarity matrix.

        Parameters
        ----------
        S : array-like of shape (n, n)
            Training similarities (asymmetric input is symmetrised with an
            :class:`AsymmetricSimilarityWarning`, except for ``"square"``).
        y : array-like of shape (n,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n,), optional
            Per-sample weights of the hinge loss only (libsvm's ``C_i = C w_i``);
            the spectrum modification is computed from the whole matrix, every
            sample included. A zero weight leaves the sample out of the SVM (its
            similarities still enter the spectrum). An integer weight equals
            repeating the sample, and a zero weight equals removing it, only when
            the modification leaves the matrix unchanged (PSD input, or
            ``spectrum="none"``): an indefinite matrix's clipped spectrum depends on
            every row; and the scale ``tr S / n`` of ``normalize=True`` changes when
            samples are repeated or removed (unless the diagonal is constant).

        Returns
        -------
        self
        """
        params = validate_params(self)
        # validated once (before the labels, so that label errors come before
        # the eigendecomposition), in the form the transformer needs
        transformer = SpectrumTransformer(
            method=self.spectrum, test_transform=self.test_transform, tol=self.tol
        )
        arr = check_similarity(S, symmetric=transformer._symmetric_mode(self.spectrum))
        classes, y_idx = check_labels(y, arr.shape[0])
        sample_weight = check_sample_weight(sample_weight, arr.shape[0])
        scaled = self._fit_scale(arr, params["normalize"])  # a new array unless the scale is 1
        self.transformer_ = transformer._fit_checked(
            scaled, S if scaled is arr else scaled,
            params["spectrum"], params["test_transform"], params["tol"])
        K = self.transformer_._training_kernel()
        del arr, scaled
        self._fit_svc(
            SVC(kernel="precomputed", C=params["C"], class_weight=self.class_weight,
                max_iter=params["max_iter"]),
            K, classes[y_idx], sample_weight, checked=True,
        )
        self.classes_ = self.svc_.classes_
        self.n_iter_ = self.svc_.n_iter_  # SMO iterations per one-vs-one problem
        self.n_features_in_ = K.shape[0]
        self._fold_svc(self.n_features_in_)
        return self._fit_probability(S, y, sample_weight)
