"""Similarity-based weighted k-nearest-neighbour classifier.

Chen et al. (2009), section 5 (weighted k-NN: uniform, affinity, KRI eq. 12,
KRR eq. 15) and section 7.2 (neighbour search, local spectrum modification).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from proxlearn._validation import (
    TestMatrixError,
    InvalidParameterError,
    boolean,
    check_classification_data,
    check_n_neighbors,
    check_sample_weight,
    check_similarity,
    check_test_similarity,
    integer,
    options,
    positive,
    validate_params,
)
from proxlearn._graph import top_k_similar
from proxlearn.base import PairwiseMixin, row_chunks

from ._weights import (
    KRI_SPECTRA,
    KRR_SPECTRA,
    kri_weights_batch,
    kri_weights_path,
    krr_weights_batch,
    krr_weights_path,
)

__all__ = ["SimilarityKNeighborsClassifier"]


_WEIGHTS = ("uniform", "affinity", "kri", "krr")
_DEFAULT_SPECTRUM = {"kri": "clip", "krr": "pinv"}
#: Memory budget (bytes) of the per-chunk work arrays; bounds the number of
#: test rows processed at once (the (chunk, k, k) neighbour blocks, their
#: eigendecompositions and the (chunk, n) candidate masks).
#: Relative tolerance under which two class scores count as tied.
_TIE_RTOL = 1e-10


class LocalFitMixin:
    """``fit`` of the lazy local classifiers (k-NN): validate and store.

    Stores the symmetrised training matrix ``S_fit_`` (Chen et al. 2009,
    section 2.1), ``classes_``, the label indices and ``n_features_in_``; the
    subclass provides ``_resolved_params`` (its validated parameters).
    """

    def fit(self, S, y):
        """Store the symmetrised training similarities and the labels.

        Parameters
        ----------
        S : array-like of shape (n_train, n_train)
            Training similarities ``S[i, j] = psi(x_i, x_j)``; asymmetric input
            is replaced by ``(S + S^T) / 2`` (with a warning above the
            tolerance of :func:`proxlearn._validation.check_similarity`).
        y : array-like of shape (n_train,)
            Class labels (at least two classes).

        Returns
        -------
        self
        """
        return self._fit_local(S, y)

    def _fit_local(self, S, y, sample_weight=None):
        self._resolved_params()
        S, classes, y_idx = check_classification_data(S, y, symmetric="symmetrize")
        check_n_neighbors(self.n_neighbors, S.shape[0])
        self._sample_weight = check_sample_weight(sample_weight, S.shape[0])
        self.S_fit_ = S
        self.classes_ = classes
        self._y_idx = y_idx
        self.n_features_in_ = S.shape[0]
        return self


class SimilarityKNeighborsClassifier(
    PairwiseMixin, LocalFitMixin, ClassifierMixin, BaseEstimator
):
    """Weighted k-NN classifier on a precomputed (possibly indefinite) similarity.

    Implements the similarity-based weighted k-NN of Chen et al. (2009),
    section 5: for a test sample with neighbours ``x_1..x_k`` the prediction
    is ``argmax_g sum_i w_i I{y_i = g}`` (eq. 9) with

    * ``"uniform"``: ``w_i = 1/k`` (majority vote);
    * ``"affinity"``: ``w_i`` proportional to ``psi(x, x_i)`` (section 5.1);
    * ``"kri"``: kernel ridge interpolation weights, the simplex-constrained QP
      of eq. (12), solved exactly (:func:`proxlearn.neighbors.kri_weights_batch`);
    * ``"krr"``: kernel ridge regression weights ``(S + reg I)^{-1} s``,
      eq. (15) (:func:`proxlearn.neighbors.krr_weights_batch`).

    For KRI and KRR the k x k matrix of similarities among the neighbours
    (taken from the symmetrised training matrix) is made PSD *locally*, per
    test point, with the chosen spectrum method (section 7.4: "for the local
    methods the modification is only done locally").

    Parameters
    ----------
    n_neighbors : int, default=5
        Neighbourhood size k. Must not exceed the number of training samples:
        ``fit`` (and ``kneighbors`` with a larger ``n_neighbors``) raise
        :class:`~proxlearn._validation.InvalidParameterError` instead of
        clamping.
    weights : {"uniform", "affinity", "kri", "krr"}, default="uniform"
    reg : float, default=1.0
        Ridge parameter lambda of KRI (``>= 0``) and KRR (``>= 0`` with
        ``spectrum="pinv"``, ``> 0`` otherwise). Ignored by uniform/affinity.
    spectrum : {"clip", "flip", "shift", "none", "pinv"} or None, default=None
        Local spectrum modification. ``None`` means the paper's recommendation:
        ``"clip"`` for KRI and ``"pinv"`` for KRR (section 7.4, Table 4).
        ``"pinv"`` is valid for KRR only. With ``"none"`` KRI raises if a local
        ``S + reg I`` is indefinite. Ignored by uniform/affinity.
    transform_s : bool, default=True
        For clip and flip, transform the test similarities consistently,
        ``s~ = P s`` (section 2.2); the paper leaves this open for KRI/KRR
        (our reading: transform by default). No effect for shift/none/pinv.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    S_fit_ : ndarray of shape (n_train, n_train)
        The symmetrised training similarity matrix ``(S + S^T) / 2``.
    n_features_in_ : int
        Number of training samples (columns expected in test matrices).

    Notes
    -----
    **Neighbour search.** ``predict(S_test)`` takes the (m, n_train) matrix of
    test-to-train similarities ``S_test[i, j] = psi(x_i, x_j)`` and uses it as
    given both to find the neighbours (the k largest entries of each row; ties
    broken by the lower training index) and as the vector ``s``. Chen et al.
    search neighbours with the symmetrised similarity
    ``(psi(x, x_i) + psi(x_i, x)) / 2`` (section 7.2): for asymmetric data pass
    the train-to-test similarities too, ``predict(S_test, S_train_test)`` with
    ``S_train_test[j, i] = psi(x_j, x_i)`` of shape (n_train, m), and the
    symmetrised ``(S_test + S_train_test.T) / 2`` is used for the search and as
    ``s`` (or pass that symmetrised matrix yourself). Test rows are processed
    in chunks, so memory beyond the given matrix is bounded by about 64 MB.

    **Affinity weights.** ``w_i = max(psi(x, x_i), 0) / sum_j max(psi(x, x_j), 0)``:
    negative similarities are clipped at 0; if all are ``<= 0`` the weights
    fall back to uniform.

    **Ties.** The predicted class maximises the summed weight over the classes
    present among the k neighbours (an absent class, with score 0, is never
    predicted, even when KRR weights make every present class negative).
    Classes whose score is within ``1e-10 * sum|w|`` of the maximum are tied,
    and the tie goes to the class of the nearest neighbour among the tied
    classes.

    **Probabilities.** ``predict_proba`` returns the class sums of the weights
    clipped at zero and renormalised (uniform, affinity and KRI weights are
    already non-negative and sum to one, so nothing changes for them). Negative
    KRR weights are set to 0; if no weight is positive the neighbours get
    uniform weights. Consequently for KRR the ``argmax`` of ``predict_proba``
    can differ from ``predict``, which uses the signed weights (eq. 9); and
    exact probability ties are resolved by ``predict``'s nearest-neighbour
    rule, not by the lowest class index.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from proxlearn.neighbors import SimilarityKNeighborsClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> S = rbf_kernel(X)
    >>> clf = SimilarityKNeighborsClassifier(weights="kri").fit(S, y)
    >>> clf.predict(S[25::50]).tolist(), round(clf.score(S, y), 2)
    ([0, 1, 2], 0.97)

    See Also
    --------
    kri_weights_batch, krr_weights_batch : the KRI and KRR weights.
    SVMKNN : a local SVM on the neighbours instead of weights.
    sklearn.neighbors.KNeighborsClassifier : k-NN on distances.

    References
    ----------
    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi, L. Cazzanti.
    Similarity-based classification: concepts and algorithms. JMLR 10, 2009.
    """

    def fit(self, S, y, sample_weight=None):
        """Store the symmetrised training similarities, the labels and the weights.

        Parameters
        ----------
        S : array-like of shape (n_train, n_train)
            Training similarities (asymmetric input is symmetrised with a warning).
        y : array-like of shape (n_train,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_train,), optional
            Each neighbour's vote (its uniform / affinity / KRI / KRR weight) is
            multiplied by its sample weight. A zero-weight sample can still be
            one of the ``k`` neighbours; its vote is then zero.

        Returns
        -------
        self
        """
        return self._fit_local(S, y, sample_weight)

    def __init__(
        self,
        n_neighbors=5,
        weights="uniform",
        reg=1.0,
        spectrum=None,
        transform_s=True,
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.reg = reg
        self.spectrum = spectrum
        self.transform_s = transform_s

    # ------------------------------------------------------------------ #
    _parameter_constraints = {
        "weights": options(*_WEIGHTS),
        "spectrum": options(*KRR_SPECTRA, None),
        "reg": positive(allow_zero=True),
        "transform_s": boolean(),
        "n_neighbors": integer(1, what="a positive integer"),
    }

    def _resolved_params(self):
        """The validated parameters (once per public call), ``spectrum`` resolved
        for the weights (``None``: the weights' default) and checked against them."""
        params = validate_params(self)
        weights, spectrum, reg = params["weights"], params["spectrum"], params["reg"]
        if weights == "kri":
            spectrum = spectrum or _DEFAULT_SPECTRUM["kri"]
            if spectrum not in KRI_SPECTRA:
                raise InvalidParameterError(
                    f"spectrum={spectrum!r} is not available for KRI weights (the "
                    "QP needs a PSD matrix); choose one of "
                    f"{sorted(KRI_SPECTRA)!r}. 'pinv' applies to KRR only."
                )
        elif weights == "krr":
            spectrum = spectrum or _DEFAULT_SPECTRUM["krr"]
        if weights == "krr" and spectrum != "pinv" and reg == 0.0:
            raise InvalidParameterError(
                f"reg must be > 0 for KRR weights with spectrum={spectrum!r} "
                "(the modified local matrix can be singular); use "
                "spectrum='pinv' for reg=0."
            )
        params["spectrum"] = spectrum
        return params

    # ------------------------------------------------------------------ #
    def _chunks(self, m, k):
        n = self.n_features_in_
        return row_chunks(m, 8 * (6 * k * k + 3 * n))

    def _weights(self, nbrs, sims, params=None):
        """Signed weights (c, k) of the neighbours ``nbrs`` with similarities ``sims``
        (``params``: :meth:`_resolved_params`, computed when not given)."""
        if params is None:
            params = self._resolved_params()
        weights, spectrum, reg = params["weights"], params["spectrum"], params["reg"]
        c, k = nbrs.shape
        if weights == "uniform":
            return np.full((c, k), 1.0 / k)
        if weights == "affinity":
            W = np.maximum(sims, 0.0)
            tot = W.sum(axis=1, keepdims=True)
            return np.where(tot > 0, W / np.where(tot > 0, tot, 1.0), 1.0 / k)
        S_loc = self.S_fit_[nbrs[:, :, None], nbrs[:, None, :]]
        batch = kri_weights_batch if weights == "kri" else krr_weights_batch
        return batch(S_loc, sims, reg, spectrum, transform_s=params["transform_s"])

    def _weights_path(self, nbrs, sims, regs, params):
        """KRI or KRR weights of the neighbours for several ``reg`` values at
        once: one local eigendecomposition per neighbourhood for the whole
        grid (warm-started QPs for KRI; see
        :func:`proxlearn.neighbors.kri_weights_path` and
        :func:`proxlearn.neighbors.krr_weights_path`)."""
        S_loc = self.S_fit_[nbrs[:, :, None], nbrs[:, None, :]]
        path = kri_weights_path if params["weights"] == "kri" else krr_weights_path
        return path(S_loc, sims, regs, params["spectrum"], transform_s=params["transform_s"])

    def _local_weights(self, S_test, k):
        """Yield (rows, neighbour indices, signed weights) chunk by chunk."""
        params = self._resolved_params()
        for sl in self._chunks(S_test.shape[0], k):
            nbrs, sims = top_k_similar(S_test[sl], k)
            yield sl, nbrs, self._weights(nbrs, sims, params)

    def _validate_test(self, S_test, S_train_test=None, n_neighbors=None):
        check_is_fitted(self, "S_fit_")
        S_test = check_test_similarity(S_test, self.n_features_in_)
        if S_train_test is not None:
            back = check_similarity(
                S_train_test, name="S_train_test", square=False, dissimilarity_check=False
            )
            if back.shape != S_test.shape[::-1]:
                raise TestMatrixError(
                    f"S_train_test has shape {back.shape} but S_test has shape "
                    f"{S_test.shape}; pass the ({self.n_features_in_}, m) matrix of "
                    "similarities from every training sample to each test sample."
                )
            S_test = 0.5 * (S_test + back.T)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        return S_test, check_n_neighbors(k, self.n_features_in_)

    def _class_onehot(self, nbrs):
        G = self.classes_.shape[0]
        return self._y_idx[nbrs][:, :, None] == np.arange(G)

    def predict(self, S_test, S_train_test=None):
        """Predict class labels (Chen et al. 2009, eq. 9).

        Parameters
        ----------
        S_test : array-like of shape (m, n_train)
            Similarities from each test sample to every training sample (see
            the class notes for asymmetric similarities).
        S_train_test : array-like of shape (n_train, m), optional
            Similarities from every training sample to each test sample; when
            given, the symmetrised test similarities are used.

        Returns
        -------
        y_pred : ndarray of shape (m,)
        """
        S_test, k = self._validate_test(S_test, S_train_test)
        out = np.empty(S_test.shape[0], dtype=np.intp)
        for sl, nbrs, W in self._local_weights(S_test, k):
            out[sl] = self._decide(nbrs, W)
        return self.classes_[out]

    def _voting(self, nbrs, W):
        """The neighbours' votes: their weights times their sample weights (if any)."""
        sw = getattr(self, "_sample_weight", None)
        return W if sw is None else W * sw[nbrs]

    def _decide(self, nbrs, W):
        """Class indices by eq. 9 with the documented tie rule."""
        W = self._voting(nbrs, W)
        onehot = self._class_onehot(nbrs)
        scores = np.einsum("ck,ckg->cg", W, onehot)
        present = onehot.any(axis=1)
        sc = np.where(present, scores, -np.inf)
        best = sc.max(axis=1, keepdims=True)
        tol = _TIE_RTOL * np.abs(W).sum(axis=1, keepdims=True)
        tied = present & (sc >= best - tol)
        ynb = self._y_idx[nbrs]
        rows = np.arange(nbrs.shape[0])[:, None]
        first = np.argmax(tied[rows, ynb], axis=1)
        return ynb[rows[:, 0], first]

    def predict_from_neighbors(self, neighbors, similarities):
        """Predict from precomputed neighbour lists (most similar first).

        ``predict(S_test)`` equals ``predict_from_neighbors(*top_k_similar(S_test, k))``
        with ``k = n_neighbors``. Because the ``k`` nearest neighbours are a
        prefix of the ``k_max`` nearest ones, a search for ``k_max`` serves a
        whole grid of ``k`` (``neighbors[:, :k]``): the study's cross-validation
        searches once per fold.

        Parameters
        ----------
        neighbors : ndarray of shape (m, k), int
            Training indices, most similar first.
        similarities : ndarray of shape (m, k)
            The corresponding test-to-train similarities.
        """
        nbrs, sims = self._check_neighbors(neighbors, similarities)
        W = self._weights(nbrs, sims, self._resolved_params())
        return self.classes_[self._decide(nbrs, W)]

    def predict_path(self, neighbors, similarities, *, reg):
        """:meth:`predict_from_neighbors` for each value of ``reg``, sharing the work.

        The grid-path protocol of proxlearn's estimators (docs/architecture.md):
        entry ``i`` equals ``set_params(reg=reg[i]).predict_from_neighbors(neighbors,
        similarities)``. With ``weights="kri"`` or ``"krr"`` one local
        eigendecomposition per neighbourhood serves every ``reg`` (warm-started QPs
        for KRI; :func:`proxlearn.neighbors.kri_weights_path`,
        :func:`proxlearn.neighbors.krr_weights_path`); other weights do not depend on
        ``reg``.

        Parameters
        ----------
        neighbors, similarities : ndarray of shape (m, k)
            As in :meth:`predict_from_neighbors`.
        reg : sequence of float

        Returns
        -------
        list of ndarray of shape (m,)
            Predicted labels, one array per value of ``reg``.
        """
        nbrs, sims = self._check_neighbors(neighbors, similarities)
        return [self.classes_[self._decide(nbrs, W)] for W in self._path_weights(nbrs, sims, reg)]

    def predict_proba_path(self, neighbors, similarities, *, reg):
        """:meth:`predict_proba_from_neighbors` for each value of ``reg`` (see
        :meth:`predict_path`); a list of (m, n_classes) arrays."""
        nbrs, sims = self._check_neighbors(neighbors, similarities)
        return [self._proba(nbrs, W) for W in self._path_weights(nbrs, sims, reg)]

    def _path_weights(self, nbrs, sims, regs):
        regs = [float(r) for r in regs]
        params = self._resolved_params()
        if params["weights"] in ("kri", "krr"):
            return self._weights_path(nbrs, sims, regs, params)
        W = self._weights(nbrs, sims, params)
        return [W] * len(regs)

    def _check_neighbors(self, neighbors, similarities):
        check_is_fitted(self, "S_fit_")
        nbrs = np.asarray(neighbors, dtype=np.intp)
        sims = np.asarray(similarities, dtype=np.float64)
        if nbrs.ndim != 2 or sims.shape != nbrs.shape:
            raise InvalidParameterError(
                "neighbors and similarities must be (m, k) arrays of the same shape, "
                f"got {nbrs.shape} and {sims.shape}."
            )
        return nbrs, sims

    def predict_proba(self, S_test, S_train_test=None):
        """Class probabilities from the non-negative part of the weights.

        ``P(g | x) = sum_{i: y_i = g} w_i^+ / sum_i w_i^+`` with
        ``w^+ = max(w, 0)``; uniform over the neighbours if no weight is
        positive (only possible for KRR). See the class notes.

        Returns
        -------
        proba : ndarray of shape (m, n_classes), columns in ``classes_`` order.
        """
        S_test, k = self._validate_test(S_test, S_train_test)
        G = self.classes_.shape[0]
        out = np.empty((S_test.shape[0], G))
        for sl, nbrs, W in self._local_weights(S_test, k):
            out[sl] = self._proba(nbrs, W)
        return out

    def _proba(self, nbrs, W):
        k = nbrs.shape[1]
        Wp = np.maximum(self._voting(nbrs, W), 0.0)
        tot = Wp.sum(axis=1, keepdims=True)
        Wp = np.where(tot > 0, Wp / np.where(tot > 0, tot, 1.0), 1.0 / k)
        return np.einsum("ck,ckg->cg", Wp, self._class_onehot(nbrs))

    def predict_proba_from_neighbors(self, neighbors, similarities):
        """:meth:`predict_proba` from precomputed neighbour lists.

        See :meth:`predict_from_neighbors`; used by leave-one-out studies, where
        each training sample's neighbours exclude itself.
        """
        nbrs, sims = self._check_neighbors(neighbors, similarities)
        return self._proba(nbrs, self._weights(nbrs, sims, self._resolved_params()))

    def kneighbors(self, S_test, n_neighbors=None, return_similarity=True, S_train_test=None):
        """Nearest training samples of each test row, most similar first.

        Parameters
        ----------
        S_test : array-like of shape (m, n_train)
        n_neighbors : int, optional
            Defaults to ``self.n_neighbors``; must not exceed ``n_train``.
        return_similarity : bool, default=True
        S_train_test : array-like of shape (n_train, m), optional
            Train-to-test similarities; when given the search uses the
            symmetrised similarities (see :meth:`predict`).

        Returns
        -------
        similarity : ndarray of shape (m, n_neighbors)
            Only if ``return_similarity``; non-increasing along each row.
        indices : ndarray of shape (m, n_neighbors)
            Training indices; ties broken by the lower index.
        """
        S_test, k = self._validate_test(S_test, S_train_test, n_neighbors)
        m = S_test.shape[0]
        idx = np.empty((m, k), dtype=np.intp)
        val = np.empty((m, k))
        for sl in self._chunks(m, k):
            idx[sl], val[sl] = top_k_similar(S_test[sl], k)
        return (val, idx) if return_similarity else idx


