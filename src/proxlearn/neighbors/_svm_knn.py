"""SVM-KNN: a local SVM trained on each test sample's nearest neighbours.

Zhang, Berg, Maire and Malik (2006), as evaluated by Chen et al. (2009),
sections 2.1.4, 2.2 and 7 (notes ``chen2009-jmlr.md`` section 2.12).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from proxlearn._validation import (
    InvalidParameterError,
    check_n_neighbors,
    check_option,
    check_positive,
    check_similarity,
    check_test_similarity,
)
from proxlearn.base import PairwiseMixin, row_chunks
from proxlearn.svm._small_svc import small_svc

from ._knn import LocalFitMixin, top_k_similar
from ._local_spectrum import local_eigh, modify_local, reconstruct

__all__ = ["SVMKNN"]

_SPECTRA = ("clip", "flip", "shift")
#: Memory budget (bytes) of the per-chunk work arrays (neighbour blocks, their
#: eigendecompositions, the modified kernels and the candidate masks).


class SVMKNN(PairwiseMixin, LocalFitMixin, ClassifierMixin, BaseEstimator):
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
    n_neighbors : int, default=10
        Neighbourhood size k; must not exceed the number of training samples
        (``fit`` raises :class:`~proxlearn._validation.InvalidParameterError`,
        no clamping).
    C : float, default=1.0
        SVM box constraint (``> 0``).
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
        The symmetrised training similarity matrix ``(S + S^T) / 2``.
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

    References
    ----------
    H. Zhang, A. C. Berg, M. Maire, J. Malik. SVM-KNN: discriminative nearest
    neighbor classification for visual category recognition. CVPR 2006.

    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi, L. Cazzanti.
    Similarity-based classification: concepts and algorithms. JMLR 10, 2009.
    """

    def __init__(self, n_neighbors=10, C=1.0, spectrum="clip"):
        self.n_neighbors = n_neighbors
        self.C = C
        self.spectrum = spectrum

    # ------------------------------------------------------------------ #
    def _check_params(self):
        """Validate the hyperparameters; return (C, spectrum)."""
        spectrum = check_option(self.spectrum, "spectrum", _SPECTRA)
        C = check_positive(self.C, "C")
        if isinstance(self.n_neighbors, bool) or not isinstance(
            self.n_neighbors, numbers.Integral
        ):
            raise InvalidParameterError(
                f"n_neighbors must be a positive integer, got {self.n_neighbors!r}."
            )
        return C, spectrum

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
            first (:func:`~proxlearn.neighbors._knn.top_k_similar`).
        Cs : sequence of float
        spectrum : {"clip", "flip", "shift"}

        Returns
        -------
        list of ndarray of shape (m,)
            Class indices, one array per entry of ``Cs``.
        """
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
        C, spectrum = self._check_params()
        S_test = check_test_similarity(S_test, self.n_features_in_)
        k = check_n_neighbors(self.n_neighbors, self.n_features_in_)
        out = np.empty(S_test.shape[0], dtype=np.intp)
        for sl in self._chunks(S_test.shape[0], k):
            nbrs, sims = top_k_similar(S_test[sl], k)
            out[sl] = self._predict_path(nbrs, sims, [C], spectrum)[0]
        return self.classes_[out]
