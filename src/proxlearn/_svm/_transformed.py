"""The SVM on a fitted kernel transform, shared by estimator packages.

:class:`TransformedSVCMixin` gives ``decision_function`` and ``predict`` to an
estimator whose ``fit`` stores a fitted transformer ``transformer_`` (training
similarities -> PSD kernel, test rows -> kernel rows) and a precomputed-kernel
:class:`sklearn.svm.SVC` ``svc_``: :class:`proxlearn.svm.SimilaritySVC`,
:class:`proxlearn.svm.SimilarityFeatureSVC` and
:class:`proxlearn.kernel_learning.BaseKernelSVC` use it as peers.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._normalize import ScaleNormalizeMixin
from .._validation import MAX_ITER_OR_NO_LIMIT, InvalidParameterError, check_test_similarity
from ._libsvm import svc_pairwise_coef
from ._multiclass import libsvm_vote, ovo_decision

__all__ = ["TransformedSVCMixin"]


class TransformedSVCMixin(ScaleNormalizeMixin):
    """``decision_function`` / ``predict`` of an SVM on a fitted kernel transform.

    For estimators whose ``fit`` stores a fitted transformer ``transformer_``
    (training similarities -> PSD kernel, test rows -> kernel rows) and an
    :class:`sklearn.svm.SVC` ``svc_`` fitted on the precomputed kernel. With a
    fitted ``scale_`` (``normalize``, :mod:`proxlearn._normalize`) the
    transformer was fitted on ``S / scale_`` and test rows are divided likewise.
    After ``_fold_svc``, a transformer linear in the test rows is folded into one
    weight matrix, so prediction never forms the transformed test kernel.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from proxlearn._svm._transformed import TransformedSVCMixin
    >>> from proxlearn.svm import SimilaritySVC
    >>> X, y = load_iris(return_X_y=True)
    >>> S = X @ X.T
    >>> clf = SimilaritySVC().fit(S, y)
    >>> isinstance(clf, TransformedSVCMixin), clf.predict(S[::50]).tolist()
    (True, [0, 1, 2])

    See Also
    --------
    proxlearn.svm.SimilaritySVC, proxlearn.svm.SimilarityFeatureSVC,
    proxlearn.kernel_learning.BaseKernelSVC : the estimators that use it.
    proxlearn._svm._libsvm.svc_pairwise_coef : the pairwise weights it folds.
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
