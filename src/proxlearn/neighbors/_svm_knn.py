"""SVM-KNN: a local SVM trained on each test sample's nearest neighbours.

Zhang, Berg, Maire and Malik (2006), as evaluated by Chen et al. (2009),
sections 2.1.4, 2.2 and 7.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from proxlearn._validation import (
    NORMALIZE,
    InvalidParameterError,
    check_classification_data,
    check_n_neighbors,
    check_positive,
    check_test_similarity,
    integer,
    options,
    positive,
    validate_params,
)
from proxlearn.base import PairwiseMixin, row_chunks
from proxlearn._normalize import ScaleNormalizeMixin
from proxlearn._svm._libsvm import small_svc

from .._cv import choose_k_by_cv
from .._graph import top_k_similar
from ._local_spectrum import local_eigh, modify_local, reconstruct, spectrum_map

__all__ = ["SVMKNN"]

_SPECTRA = ("clip", "flip", "shift")


class SVMKNN(PairwiseMixin, ScaleNormalizeMixin, ClassifierMixin, BaseEstimator):
    """Local SVM on the k nearest neighbours (SVM-KNN) for similarity data.

    For every test sample ``x`` (Chen et al. 2009, section 7; Zhang et al.
    2006):

    1. find its ``k`` most similar training samples ``x_1..x_k`` from the
       given row of test-to-train similarities (ties broken by the lower
       training index, as in
       :class:`~proxlearn.neighbors.SimilarityKNeighborsClassifier`);
    2. if all ``k`` neighbours have the same label, predict that label (Zhang
       et al.'s shortcut; no SVM is trained);
    3. otherwise take the ``k x k`` matrix ``S`` of similarities among the
       neighbours from the symmetrised training matrix, make it PSD locally
       with the chosen spectrum modification (sections 2.1.2-2.1.4), transform
       the local test vector ``s = [psi(x, x_1) .. psi(x, x_k)]`` consistently
       (section 2.2: ``s~ = P s`` for clip and flip, ``s~ = s`` for shift), fit
       ``SVC(kernel="precomputed", C=C)`` (one-vs-one for more than two
       classes among the neighbours, eq. (1)) on the neighbours and classify
       ``s~``.

    Parameters
    ----------
    n_neighbors : int or "auto", default="auto"
        Neighbourhood size k. An integer must not exceed the number of
        training samples (``fit`` raises
        :class:`~proxlearn._validation.InvalidParameterError`, no clamping).
        ``"auto"`` chooses k by a stratified 3-fold cross-validation on the
        training set over ``AUTO_K_GRID`` = 1, 2, 4, ..., 128 and "all the
        training samples" (the value Chen et al. tune by cross-validation;
        the chosen k is ``n_neighbors_``). ``"auto"`` is ours: the paper
        gives no default, and no fixed k holds up across data sets
        (docs/methods.md, "SVM-KNN defaults").
    C : float, default=1.0
        SVM box constraint (``> 0``), in the units of the normalised matrix
        (see ``normalize``).
    normalize : bool, default=True
        Divide the training matrix and the test rows by the training scale
        ``tr S / n`` (:mod:`proxlearn._normalize`), so that ``C`` does not
        depend on the units of ``S`` and predictions are unchanged by a
        positive factor on ``S``. ``False`` uses ``S`` as
        given (the papers' reading; identical for unit-diagonal ``S``).
    spectrum : {"clip", "flip", "shift"}, default="clip"
        Local spectrum modification. Clip is what Chen et al. use in Table 3;
        flip and shift are compared in Table 4. With clip,
        ``S~ = V diag(max(lam, 0)) V^T`` and ``P = V diag(1{lam > tol}) V^T``;
        with flip, ``S~ = V diag(|lam|) V^T`` and ``P = V diag(sgn(lam)) V^T``
        (``tol = k * eps * max|lam|``, eigenvalues within it count as zero);
        with shift, ``S~ = S + max(-lam_min, 0) I`` and ``s~ = s``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    S_fit_ : ndarray of shape (n_train, n_train)
        The symmetrised training similarity matrix ``(S + S^T) / 2``, divided
        by ``scale_``.
    scale_ : float
        The training scale divided out (``1.0`` with ``normalize=False``).
    n_neighbors_ : int
        The neighbourhood size used (``n_neighbors``, or the one chosen by
        ``"auto"``).
    cv_scores_ : dict or None
        With ``n_neighbors="auto"``: the mean inner-CV accuracy of each k
        tried (key ``"all"`` for the whole training fold); else ``None``.
    n_features_in_ : int
        Number of training samples (columns expected in test matrices).

    Notes
    -----
    **Neighbour search.** The test matrix is used as given both to find the
    neighbours and as ``s``. Chen et al. search with the symmetrised
    similarity ``(psi(x, x_i) + psi(x_i, x)) / 2`` (section 7.2); for
    asymmetric data pass that matrix.

    **Computation.** Test rows are processed in chunks (about 64 MB of work
    arrays). Within a chunk the neighbour search, the eigendecompositions of
    all mixed-label ``k x k`` blocks (one batched ``eigh``) and the
    transformed test vectors are vectorised; only the per-point SVM fit is a
    Python loop. The prediction is deterministic (libsvm without probability
    estimates uses no randomness). Within a local one-vs-one SVM, vote ties
    go to the lowest class index (scikit-learn's rule).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from proxlearn.neighbors import SVMKNN
    >>> X, y = load_iris(return_X_y=True)
    >>> S = rbf_kernel(X)
    >>> clf = SVMKNN(n_neighbors=8).fit(S, y)
    >>> clf.predict(S[25::50]).tolist(), round(clf.score(S, y), 2)
    ([0, 1, 2], 0.97)

    See Also
    --------
    SimilarityKNeighborsClassifier : weighted k-NN on the same neighbours.
    proxlearn.svm.SimilaritySVC : one global SVM on the spectrum-modified matrix.

    References
    ----------
    H. Zhang, A. C. Berg, M. Maire, J. Malik. SVM-KNN: discriminative nearest
    neighbor classification for visual category recognition. CVPR 2006.

    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi, L. Cazzanti.
    Similarity-based classification: concepts and algorithms. JMLR 10, 2009.
    """

    _parameter_constraints = {
        "spectrum": options(*_SPECTRA),
        "C": positive(),
        "n_neighbors": integer(1, what="a positive integer") | options("auto"),
        "normalize": NORMALIZE,
    }

    def __init__(self, n_neighbors="auto", C=1.0, spectrum="clip", *, normalize=True):
        self.n_neighbors = n_neighbors
        self.C = C
        self.spectrum = spectrum
        self.normalize = normalize

    # ------------------------------------------------------------------ #
    def fit(self, S, y):
        """Store the (normalised, symmetrised) training similarities and labels;
        with ``n_neighbors="auto"`` choose k by inner cross-validation.

        Parameters
        ----------
        S : array-like of shape (n_train, n_train)
            Training similarities; asymmetric input is replaced by
            ``(S + S^T) / 2``.
        y : array-like of shape (n_train,)

        Returns
        -------
        self
        """
        params = validate_params(self)
        C, spectrum = params["C"], params["spectrum"]
        S, classes, y_idx = check_classification_data(S, y, symmetric="symmetrize")
        n = S.shape[0]
        self.S_fit_ = S = self._fit_scale(S, params["normalize"])
        self.classes_ = classes
        self._y_idx = y_idx
        self.n_features_in_ = n
        if self.n_neighbors == "auto":
            self.n_neighbors_, self.cv_scores_ = self._select_k(C, spectrum)
        else:
            self.n_neighbors_ = check_n_neighbors(self.n_neighbors, n)
            self.cv_scores_ = None
        return self

    def _select_k(self, C, spectrum):
        """``(k, scores)`` by :func:`~proxlearn._cv.choose_k_by_cv`."""

        def fold_predictor(tr):
            inner = SVMKNN(n_neighbors=1, C=C, spectrum=spectrum, normalize=False)
            inner.S_fit_ = self.S_fit_[np.ix_(tr, tr)]
            inner._y_idx = self._y_idx[tr]
            inner.n_features_in_ = len(tr)

            def predict(nbrs, sims):
                out = np.empty(len(nbrs), dtype=np.intp)
                for sl in inner._chunks(len(nbrs), nbrs.shape[1]):
                    out[sl] = inner._predict_path(nbrs[sl], sims[sl], [C], spectrum)[0]
                return out

            return predict

        return choose_k_by_cv(self.S_fit_, self._y_idx, fold_predictor)

    # ------------------------------------------------------------------ #
    def _chunks(self, m, k):
        n = self.n_features_in_
        return row_chunks(m, 8 * (5 * k * k + 3 * n))

    def _local_problems(self, nbrs, sims, spectrum):
        """PSD local kernels and transformed test vectors for a batch.

        Parameters
        ----------
        nbrs : ndarray of shape (B, k), training indices
        sims : ndarray of shape (B, k), test-to-neighbour similarities
        spectrum : {"clip", "flip", "shift"}

        Returns
        -------
        K : ndarray of shape (B, k, k)
            Modified local training kernels (Chen et al. 2009, sec. 2.1.2-2.1.4).
        s_t : ndarray of shape (B, k)
            Consistently transformed test similarities (section 2.2).
        """
        S_loc = self.S_fit_[nbrs[:, :, None], nbrs[:, None, :]]
        if spectrum == "shift":
            # S + max(-lam_min, 0) I formed directly (exact off the diagonal).
            lam = local_eigh(S_loc)[0]
            shift = np.maximum(-lam[:, 0], 0.0)
            k = S_loc.shape[1]
            S_loc[:, np.arange(k), np.arange(k)] += shift[:, None]
            return S_loc, sims
        lam, V, s_t = modify_local(S_loc, sims, spectrum, transform_s=True)
        return reconstruct(lam, V), s_t

    def _predict_path(self, nbrs, sims, Cs, spectrum):
        """Label indices for every ``C`` in ``Cs`` from given neighbour lists.

        One local eigendecomposition per test point serves the whole ``C``
        grid. For each point the ``C`` values are visited in increasing order;
        once no dual coefficient of a local SVM reaches its bound, that dual
        solution satisfies the KKT conditions for every larger ``C`` (the box
        is inactive), so its prediction is reused without refitting.

        Parameters
        ----------
        nbrs, sims : ndarray of shape (m, k)
            Neighbour indices and test-to-neighbour similarities, most similar
            first (:func:`~proxlearn._graph.top_k_similar`).
        Cs : sequence of float
        spectrum : {"clip", "flip", "shift"}

        Returns
        -------
        list of ndarray of shape (m,)
            Class indices, one array per entry of ``Cs``.
        """
        if nbrs.shape[1] == self.n_features_in_:  # every neighbourhood is the training set
            return self._predict_path_global(nbrs, sims, Cs, spectrum)
        ynb = self._y_idx[nbrs]
        first = ynb[:, 0]
        out = [first.copy() for _ in Cs]
        mixed = np.flatnonzero((ynb != ynb[:, :1]).any(axis=1))
        if not mixed.size:
            return out
        order = sorted(range(len(Cs)), key=lambda i: Cs[i])
        k = nbrs.shape[1]
        for sl in self._chunks(mixed.size, k):
            rows = mixed[sl]
            K, s_t = self._local_problems(nbrs[rows], sims[rows], spectrum)
            for j, row in enumerate(rows):
                local_classes, y_enc = np.unique(ynb[row], return_inverse=True)
                saturated = None
                for i in order:
                    if saturated is None:
                        pred, max_dual = small_svc(K[j], y_enc, s_t[j][None, :], Cs[i])
                        label = local_classes[pred[0]]
                        if max_dual < Cs[i] * (1.0 - 1e-12):
                            saturated = label
                    else:
                        label = saturated
                    out[i][row] = label
        return out

    def predict_path(self, neighbors, similarities, *, C):
        """Predictions from precomputed neighbour lists for each value of ``C``.

        The grid-path protocol of proxlearn's estimators (docs/architecture.md):
        entry ``i`` equals the prediction of ``set_params(C=C[i])`` for test rows
        whose ``k`` most similar training samples are ``neighbors`` (most similar
        first, :func:`~proxlearn._graph.top_k_similar` of the test rows as
        given to :meth:`predict`; ``similarities`` are divided by ``scale_`` here),
        with ``k`` the number of columns. One local eigendecomposition per test point serves every
        ``C``, and a local SVM with no dual coefficient at its bound is reused for
        every larger ``C`` (its KKT conditions still hold).

        Parameters
        ----------
        neighbors, similarities : ndarray of shape (m, k)
        C : sequence of float

        Returns
        -------
        list of ndarray of shape (m,)
            Predicted labels, one array per value of ``C``.
        """
        check_is_fitted(self, "S_fit_")
        spectrum = validate_params(self, "spectrum")["spectrum"]  # C is the grid's
        nbrs = np.asarray(neighbors, dtype=np.intp)
        sims = np.asarray(similarities, dtype=np.float64)
        if nbrs.ndim != 2 or sims.shape != nbrs.shape:
            raise InvalidParameterError(
                "neighbors and similarities must be (m, k) arrays of the same shape, "
                f"got {nbrs.shape} and {sims.shape}."
            )
        Cs = [check_positive(c, "C") for c in C]
        scale = getattr(self, "scale_", 1.0)
        sims = sims if scale == 1.0 else sims / scale
        return [self.classes_[p] for p in self._predict_path(nbrs, sims, Cs, spectrum)]

    def _predict_path_global(self, nbrs, sims, Cs, spectrum):
        """``_predict_path`` for ``k = n_train``: the local problem of every test
        point is the whole training set (in another order, which does not change
        the SVM), so one eigendecomposition and one SVM per ``C`` serve all rows."""
        R = np.empty_like(sims)
        np.put_along_axis(R, nbrs, sims, axis=1)  # test rows in training order
        lam, V = local_eigh(self.S_fit_[None])
        if spectrum == "shift":
            K = self.S_fit_ + max(-lam[0, 0], 0.0) * np.eye(self.n_features_in_)
            s_t = R
        else:
            lam_t, mask = spectrum_map(lam, spectrum)
            K = reconstruct(lam_t, V)[0]
            s_t = ((R @ V[0]) * mask[0]) @ V[0].T
        local_classes, y_enc = np.unique(self._y_idx, return_inverse=True)
        out = [None] * len(Cs)
        saturated = None
        for i in sorted(range(len(Cs)), key=lambda i: Cs[i]):
            if saturated is None:
                pred, max_dual = small_svc(K, y_enc, s_t, Cs[i])
                out[i] = local_classes[pred]
                if max_dual < Cs[i] * (1.0 - 1e-12):
                    saturated = out[i]
            else:
                out[i] = saturated
        return out

    def predict(self, S_test):
        """Predict class labels with one local SVM per test sample.

        Parameters
        ----------
        S_test : array-like of shape (m, n_train)
            Similarities from each test sample to every training sample, in
            training order (see the class notes for asymmetric similarities).

        Returns
        -------
        y_pred : ndarray of shape (m,)
        """
        check_is_fitted(self, "S_fit_")
        C, spectrum = validate_params(self, "C", "spectrum").values()  # read here
        S_test = self._scale_test(check_test_similarity(S_test, self.n_features_in_))
        k = self.n_neighbors_
        out = np.empty(S_test.shape[0], dtype=np.intp)
        for sl in self._chunks(S_test.shape[0], k):
            nbrs, sims = top_k_similar(S_test[sl], k)
            out[sl] = self._predict_path(nbrs, sims, [C], spectrum)[0]
        return self.classes_[out]
