"""SVM with a spectrum-modified similarity matrix as a precomputed kernel."""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC

from .._validation import (
    MAX_ITER_OR_NO_LIMIT,
    NORMALIZE,
    check_labels,
    check_sample_weight,
    check_similarity,
    options,
    positive,
    unchecked,
    validate_params,
)
from ..base import PairwiseMixin
from .._svm._libsvm import MAX_ITER
from .._svm._platt import PlattProbabilityMixin
from .._svm._transformed import TransformedSVCMixin
from ..transforms._spectrum import (
    SPECTRUM_METHODS,
    SPECTRUM_TOL,
    TEST_TRANSFORMS,
    SpectrumTransformer,
)

__all__ = ["SimilaritySVC"]


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
