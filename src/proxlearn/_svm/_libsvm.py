"""libsvm on a precomputed kernel: the binding without per-call overhead, SVC's layout.

* :func:`libsvm_fit`: libsvm's C-SVC through the binding ``SVC.fit`` calls
  (:func:`proxlearn._svm._dual.svm_dual`, SVM-CA's alpha-step), and
  :func:`small_svc`, fit and predict in one call (SVM-KNN's local SVMs).
* :data:`MAX_ITER`: the library's cap on libsvm's SMO iterations.
* :func:`precomputed_svr`: scikit-learn's epsilon-SVR on a precomputed kernel with
  per-sample weights, the samples of weight 0 left out by us (libsvm drops them
  and ``support_`` then indexes the reduced problem), dual coefficients dense.
* :func:`svc_pairwise_coef`: a fitted ``SVC``'s one-vs-one machines as one
  coefficient matrix with the sign of :mod:`proxlearn._svm._multiclass`.

Why the binding. SVM-KNN trains one libsvm machine per test point, per neighbourhood size and
per ``C``: tens of thousands of ``k x k`` problems (k <= 128) in one
cross-validated study cell. For such sizes :class:`sklearn.svm.SVC` spends
about ten times longer validating its arguments (parameter constraints, array
checks, dataframe detection) than libsvm spends solving. :func:`small_svc`
calls the same libsvm binding that ``SVC.fit`` / ``SVC.predict`` call, with
exactly ``SVC``'s default settings, so the solution and the predictions are
identical (tested against ``SVC`` in ``tests/_svm/test_libsvm.py``). If a
future scikit-learn changes that private binding, the function falls back to
``SVC`` (slower, same answers).
"""

from __future__ import annotations

import numpy as np

from ._multiclass import ovo_pairs

__all__ = ["MAX_ITER", "binary_libsvm", "binary_svc", "libsvm_fit", "precomputed_svr",
           "small_svc", "svc_pairwise_coef"]

#: Default cap on libsvm's SMO iterations. Unbounded SMO can cycle for tens of
#: minutes at the papers' largest C values on ill-conditioned similarity
#: kernels (measured: 20 million iterations without convergence at C = 1e3 on
#: an inner fold of voting with the linear similarity-feature kernel, where
#: neighbouring folds converge in under 1e6). At about 1 s per million
#: iterations the cap bounds one fit to seconds; scikit-learn then warns with
#: ``ConvergenceWarning`` and the iterate reached is used.
MAX_ITER = 10_000_000

try:  # private binding used by SVC itself; guarded, see the module docstring
    from sklearn.svm import _libsvm as _libsvm
except ImportError:  # pragma: no cover - depends on the scikit-learn build
    _libsvm = None

_SVC_DEFAULTS = dict(degree=3, coef0=0.0, gamma=0.0, cache_size=200.0)
_use_binding = _libsvm is not None


def _via_svc(K, y_enc, K_test, C):
    from sklearn import config_context
    from sklearn.svm import SVC

    with config_context(skip_parameter_validation=True, assume_finite=True):
        svc = SVC(kernel="precomputed", C=C).fit(K, y_enc)
        return svc.predict(K_test).astype(np.intp), float(np.abs(svc.dual_coef_).max())


def libsvm_fit(K, y_enc, C, *, tol=1e-3, max_iter=-1):
    """libsvm C-SVC on a precomputed kernel through scikit-learn's binding.

    Exactly what ``SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter)``
    computes, without its per-call validation. ``y_enc`` holds codes ``0..c-1``.

    Returns
    -------
    dict or None
        ``support``, ``n_support``, ``dual_coef`` (libsvm's sign convention:
        the negative of ``SVC.dual_coef_`` for two classes), ``intercept``
        (likewise), ``prob_a``, ``prob_b`` and ``n_iter``; ``None`` when the
        private binding is unavailable or its signature changed (callers then
        use ``SVC``).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._libsvm import libsvm_fit
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K = np.outer(x, x) + 1  # a linear kernel on four points of a line
    >>> out = libsvm_fit(K, np.array([0, 0, 1, 1]), 1.0)
    >>> out["support"].tolist(), out["dual_coef"].tolist(), out["intercept"].tolist()
    ([1, 2], [[0.5, -0.5]], [2.0])

    See Also
    --------
    binary_libsvm : the binary case in ``SVC``'s sign convention.
    sklearn.svm.SVC : the estimator whose binding this calls.
    """
    global _use_binding
    if not _use_binding:
        return None
    try:
        _libsvm.set_verbosity_wrap(0)  # SVC does the same before every fit
        support, _, n_sv, dual, intercept, prob_a, prob_b, _, n_iter = _libsvm.fit(
            np.ascontiguousarray(K, dtype=np.float64),
            np.ascontiguousarray(y_enc, dtype=np.float64),
            svm_type=0,
            kernel="precomputed",
            C=float(C),
            tol=float(tol),
            shrinking=1,
            max_iter=int(max_iter),
            random_seed=0,
            **_SVC_DEFAULTS,
        )
    except TypeError:  # the private signature changed: use the public class
        _use_binding = False
        return None
    return {"support": support, "n_support": n_sv, "dual_coef": dual, "intercept": intercept,
            "prob_a": prob_a, "prob_b": prob_b, "n_iter": n_iter}


def binary_libsvm(K, y, C, *, tol, max_iter):
    """The binary C-SVC of :func:`libsvm_fit` in ``SVC``'s convention.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    C, tol, max_iter
        As for :func:`libsvm_fit`.

    Returns
    -------
    tuple or None
        ``(dual_coef, support, b, n_iter)``: ``y_i alpha_i`` of the support
        vectors ``support``, so that ``f = K[:, support] @ dual_coef + b`` is
        positive for ``y = +1``, and libsvm's SMO iterations; ``None`` when the
        private binding is unavailable (then :func:`binary_svc`).

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._libsvm import binary_libsvm
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K = np.outer(x, x) + 1  # a linear kernel on four points of a line
    >>> dual_coef, support, b, n_iter = binary_libsvm(K, np.array([-1.0, -1.0, 1.0, 1.0]), 1.0,
    ...                                               tol=1e-7, max_iter=-1)
    >>> dual_coef.tolist(), support.tolist(), float(b)
    ([-0.5, 0.5], [1, 2], -2.0)

    See Also
    --------
    binary_svc : the same through ``SVC``.
    proxlearn._svm._dual.svm_dual : the dual with warm starts and a certificate.
    """
    fit = libsvm_fit(K, (y > 0).astype(np.float64), C, tol=tol, max_iter=max_iter)
    if fit is None:
        return None
    # libsvm's first label is class 0 (y = -1): its sign is the negative of SVC's
    return (-fit["dual_coef"][0], fit["support"], -float(fit["intercept"][0]),
            int(np.max(fit["n_iter"])))


def binary_svc(K, y, C, *, tol, max_iter):
    """:func:`binary_libsvm` through :class:`sklearn.svm.SVC` (slower, same answers):
    the route when the private binding is unavailable. ``n_iter`` is at least
    ``max_iter`` when ``SVC`` stopped there (its ``ConvergenceWarning``, which is
    not shown).

    Returns
    -------
    tuple
        ``(dual_coef, support, b, n_iter)`` as :func:`binary_libsvm`.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._libsvm import binary_svc
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K = np.outer(x, x) + 1  # a linear kernel on four points of a line
    >>> dual_coef, support, b, n_iter = binary_svc(K, np.array([-1.0, -1.0, 1.0, 1.0]), 1.0,
    ...                                            tol=1e-7, max_iter=-1)
    >>> dual_coef.tolist(), support.tolist(), float(b)
    ([-0.5, 0.5], [1, 2], -2.0)

    See Also
    --------
    binary_libsvm : the fast route.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC

    clf = SVC(kernel="precomputed", C=float(C), tol=tol, shrinking=True, max_iter=max_iter)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        clf.fit(K, y)
    n_iter = int(np.max(clf.n_iter_))
    if any(issubclass(w.category, ConvergenceWarning) for w in caught):
        n_iter = max(n_iter, max_iter)
    # dual_coef_ = alpha_i y_i of the support vectors (classes_ = [-1, 1])
    return clf.dual_coef_[0], clf.support_, float(clf.intercept_[0]), n_iter


def small_svc(K, y_enc, K_test, C) -> tuple[np.ndarray, float]:
    """Fit ``SVC(kernel="precomputed", C=C)`` on ``K`` and predict ``K_test``.

    Parameters
    ----------
    K : ndarray of shape (k, k), float64
        PSD training kernel (already validated, finite).
    y_enc : ndarray of shape (k,), int
        Labels encoded as ``0 .. c-1`` with every code present (``np.unique``
        inverse); at least two classes.
    K_test : ndarray of shape (m, k), float64
    C : float > 0

    Returns
    -------
    pred : ndarray of shape (m,), int
        Predicted codes.
    max_abs_dual : float
        ``max |y_i alpha_i|`` over all one-vs-one machines; below ``C`` means
        no box constraint is active.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._libsvm import small_svc
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K = np.outer(x, x) + 1  # a linear kernel on four points of a line
    >>> pred, max_abs_dual = small_svc(K, np.array([0, 0, 1, 1]), K[[0, 3]], 1.0)
    >>> pred.tolist(), float(max_abs_dual)
    ([0, 1], 0.5)

    See Also
    --------
    libsvm_fit : the binding it calls.
    proxlearn.neighbors.SVMKNN : its caller, one small SVM per test point.
    """
    fit = libsvm_fit(K, y_enc, C)
    if fit is None:
        return _via_svc(K, y_enc, K_test, C)
    pred = _libsvm.predict(
        np.ascontiguousarray(K_test, dtype=np.float64),
        fit["support"],
        np.empty((0, 0)),
        fit["n_support"],
        fit["dual_coef"],
        fit["intercept"],
        fit["prob_a"],
        fit["prob_b"],
        svm_type=0,
        kernel="precomputed",
        **_SVC_DEFAULTS,
    )
    return pred.astype(np.intp), float(np.abs(fit["dual_coef"]).max())


def svc_pairwise_coef(svc, support, n):
    """The one-vs-one machines of a fitted precomputed-kernel ``SVC`` as one matrix.

    Parameters
    ----------
    svc : sklearn.svm.SVC
        Fitted on a precomputed kernel.
    support : ndarray of int
        The training sample of each of ``svc.support_`` (``svc.support_`` itself
        when the kernel had all ``n`` training columns).
    n : int
        Number of training samples.

    Returns
    -------
    V : ndarray of shape (n, n_pairs)
        Column ``p`` holds the dual coefficients of pair ``p`` (order of
        :func:`proxlearn._svm._multiclass.ovo_pairs`), so that
        ``K_test @ V + b`` are the pairwise decision values with the sign of
        :mod:`proxlearn._svm._multiclass` (positive favours the pair's second
        class). libsvm's own sign (``svc._dual_coef_``) is the opposite, which
        scikit-learn's public ``dual_coef_`` / ``intercept_`` undo for two
        classes only.
    b : ndarray of shape (n_pairs,)

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._libsvm import svc_pairwise_coef
    >>> x = np.array([0.0, 1.0, 3.0, 4.0])
    >>> K = np.outer(x, x) + 1  # a linear kernel on four points of a line
    >>> from sklearn.svm import SVC
    >>> svc = SVC(kernel="precomputed").fit(K, [0, 0, 1, 1])
    >>> V, b = svc_pairwise_coef(svc, svc.support_, 4)
    >>> V[:, 0].tolist(), b.tolist()
    ([0.0, -0.5, 0.5, 0.0], [-2.0])

    See Also
    --------
    proxlearn._svm._multiclass.ovo_pairs : the order of the pairs.
    proxlearn.svm.SimilaritySVC : its caller (prediction weights of the transformed SVM).
    """
    n_classes = len(svc.classes_)
    V = np.zeros((n, n_classes * (n_classes - 1) // 2))
    if n_classes == 2:
        V[support, 0] = svc.dual_coef_[0]
        return V, svc.intercept_.copy()
    start = np.concatenate([[0], np.cumsum(svc.n_support_)])
    for p, (i, j) in enumerate(ovo_pairs(n_classes)):  # libsvm's layout of dual_coef_
        si, sj = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
        V[support[si], p] = -svc.dual_coef_[j - 1, si]
        V[support[sj], p] = -svc.dual_coef_[i, sj]
    return V, -svc.intercept_


def precomputed_svr(K, y, C, epsilon, max_iter, sample_weight=None):
    """:class:`sklearn.svm.SVR` with ``kernel="precomputed"`` on ``K`` and targets ``y``,
    with per-sample weights (libsvm's ``C_i = C w_i``).

    The samples of weight 0 are left out of the problem here: libsvm drops them
    itself and scikit-learn's ``support_`` then indexes the reduced problem, so its
    ``predict`` on a full test kernel reads the wrong columns (as for ``SVC``, README
    "Sample weights"). The dual coefficients come back dense, 0 off the support.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,)
    C, epsilon : float
    max_iter : int
    sample_weight : ndarray of shape (n,) or None
        Validated weights (``None``: all 1).

    Returns
    -------
    svr : sklearn.svm.SVR
        Fitted on the samples of positive weight.
    coef : ndarray of shape (n,)
        ``alpha - alpha*`` of every sample (0 for weight 0 and off the support).
    keep : ndarray of int or None
        The samples the SVR was fitted on (``None``: all): its test kernels are
        ``K_test[:, keep]``.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._svm._libsvm import precomputed_svr
    >>> x = np.linspace(0, 1, 6)
    >>> K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    >>> svr, coef, keep = precomputed_svr(K, x, 1.0, 0.1, -1, np.array([1, 1, 0, 1, 1, 1.0]))
    >>> keep.tolist(), float(coef[2])
    ([0, 1, 3, 4, 5], 0.0)

    See Also
    --------
    sklearn.svm.SVR : the solver.
    """
    from sklearn.svm import SVR

    n = y.shape[0]
    keep = None if sample_weight is None or np.all(sample_weight > 0) else \
        np.flatnonzero(sample_weight > 0)
    if keep is None:
        svr = SVR(kernel="precomputed", C=C, epsilon=epsilon, max_iter=max_iter).fit(
            K, y, sample_weight=sample_weight)
        support = svr.support_
    else:
        svr = SVR(kernel="precomputed", C=C, epsilon=epsilon, max_iter=max_iter).fit(
            K[np.ix_(keep, keep)], y[keep], sample_weight=sample_weight[keep])
        support = keep[svr.support_]
    coef = np.zeros(n)
    coef[support] = svr.dual_coef_[0]
    return svr, coef, keep
