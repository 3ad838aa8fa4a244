"""Evaluation protocols of the founding papers: partitions and inner CV folds.

Each protocol fixes the number of random train/test partitions, the test
fraction, the number of inner cross-validation folds used to choose
hyperparameters, and the name of the grid set (see
:mod:`proxlearn.study._methods`).

=====================  ======  ====  ====  ============================================
protocol               splits  test  CV    source
=====================  ======  ====  ====  ============================================
``chen2009``           20      20%   10    Chen et al. (2009) section 7.2; thesis ch. 4
``gu2012``             50      10%   10    Gu & Guo (2012), real data
``gu2012-synthetic``   50      20%   10    Gu & Guo (2012), Table 1
``kundu2010``          5       bal.  5     Kundu et al. (2010): balanced   
``custom``             5       20%   5     anything set on the command line
``multi``              5       20%   3     several similarity matrices (grid set ``multi``)
``zhuang2011``         20      50%   5     Zhuang (2011) ch. 4-5, feature data
``beyond``             5       20%   3     comparisons beyond the papers (grid set ``beyond``)
=====================  ======  ====  ====  ============================================

Implementation choices (the papers leave them open):

* Outer partitions are **stratified** random splits (``StratifiedShuffleSplit``)
  so that every class appears in every training part; the papers say "random".
* ``kundu2010`` partitions are balanced: the test set takes ``ceil(0.2 *
  n_minority)`` samples of every class and the training set the same number
  ``n_minority - ceil(0.2 * n_minority)`` of every class; cells also report
  accuracy and the F-score (F1 of the positive class, the larger label).
* Inner folds are ``StratifiedKFold`` (shuffled, seeded). When a class has fewer
  training members than folds, stratification is impossible and the folds fall
  back to shuffled ``KFold``; :func:`inner_folds` warns once per call.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, StratifiedShuffleSplit

from .._validation import InvalidParameterError

__all__ = ["PROTOCOLS", "Protocol", "get_protocol", "inner_folds", "make_partitions"]


@dataclass(frozen=True)
class Protocol:
    """A reproduction protocol.

    Attributes
    ----------
    name : str
    n_splits : int
        Number of random train/test partitions.
    test_size : float
        Fraction of samples in each test part (ignored when ``balanced``).
    cv : int
        Inner cross-validation folds for hyperparameter selection.
    grids : str
        Name of the grid set that methods use under this protocol.
    balanced : bool
        Balanced partitions as in Kundu et al. (2010): every class contributes
        ``ceil(test_size * n_minority)`` test samples and ``n_minority`` minus
        that many training samples (the rest of the larger classes is unused).
        The paper says only "equal number of positive and negative
        training/test samples"; the sizes are inferred from the granularity of
        its accuracies (docs/methods.md, "Study reference notes: balanced partitions").
    metrics : tuple of str
        What the study reports per cell besides the test error: ``"accuracy"``
        (100 - error) and ``"f_score"`` (F1 of the positive class, in %).

    See Also
    --------
    get_protocol : A registered protocol, with fields overridden.
    make_partitions : The protocol's train/test partitions.

    Examples
    --------
    >>> from proxlearn.study import PROTOCOLS
    >>> p = PROTOCOLS["chen2009"]
    >>> p.n_splits, p.test_size, p.cv, p.grids
    (20, 0.2, 10, 'chen2009')
    """

    name: str
    n_splits: int
    test_size: float
    cv: int
    grids: str
    balanced: bool = False
    metrics: tuple[str, ...] = ("error",)


PROTOCOLS: dict[str, Protocol] = {
    p.name: p
    for p in (
        Protocol("chen2009", 20, 0.2, 10, "chen2009"),
        Protocol("gu2012", 50, 0.1, 10, "gu2012"),
        Protocol("gu2012-synthetic", 50, 0.2, 10, "gu2012"),
        Protocol(
            "kundu2010", 5, 0.2, 5, "chen2009", balanced=True, metrics=("error", "accuracy", "f_score")
        ),
        Protocol("custom", 5, 0.2, 5, "chen2009"),
        Protocol("multi", 5, 0.2, 3, "multi"),
        Protocol("zhuang2011", 20, 0.5, 5, "zhuang2011", metrics=("error", "accuracy")),
        Protocol("beyond", 5, 0.2, 3, "beyond", metrics=("error", "accuracy")),
    )
}


def get_protocol(name: str, **overrides) -> Protocol:
    """Look up a protocol by name, optionally overriding some fields.

    ``None`` values in ``overrides`` are ignored, so command-line options that
    were not given keep the protocol's defaults.

    Parameters
    ----------
    name : str
        A key of :data:`PROTOCOLS`.
    **overrides
        Fields of :class:`Protocol` to replace (``n_splits``, ``test_size``,
        ``cv``, ...).

    Returns
    -------
    Protocol

    Raises
    ------
    InvalidParameterError
        For an unknown name, fewer than 1 split, a test size outside (0, 1) or
        fewer than 2 folds.

    See Also
    --------
    Protocol : The fields.
    run_study : Runs methods on data sets under a protocol.

    Examples
    --------
    >>> from proxlearn.study import get_protocol
    >>> p = get_protocol("custom", n_splits=2, cv=2, test_size=None)
    >>> p.name, p.n_splits, p.cv, p.test_size
    ('custom', 2, 2, 0.2)
    """
    if name not in PROTOCOLS:
        raise InvalidParameterError(
            f"unknown protocol {name!r}; choose one of {sorted(PROTOCOLS)}."
        )
    changes = {k: v for k, v in overrides.items() if v is not None}
    proto = replace(PROTOCOLS[name], **changes)
    if proto.n_splits < 1:
        raise InvalidParameterError(f"splits must be >= 1, got {proto.n_splits}.")
    if not 0.0 < proto.test_size < 1.0:
        raise InvalidParameterError(
            f"test size must be a fraction in (0, 1), got {proto.test_size}."
        )
    if proto.cv < 2:
        raise InvalidParameterError(f"cv must be >= 2 folds, got {proto.cv}.")
    return proto


def make_partitions(y, protocol: Protocol, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded random train/test partitions for ``protocol``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels; every class needs at least 2 samples.
    protocol : Protocol
        Gives the number of partitions, the test fraction and whether they are
        balanced.
    seed : int, default=0
        The same seed gives the same partitions.

    Returns
    -------
    list of (ndarray, ndarray)
        ``(train_indices, test_indices)`` per partition, each sorted.

    See Also
    --------
    inner_folds : The cross-validation folds inside a training part.

    Examples
    --------
    >>> from proxlearn.study import get_protocol, make_partitions
    >>> parts = make_partitions([0] * 10 + [1] * 10, get_protocol("custom", n_splits=2))
    >>> len(parts), [(len(train), len(test)) for train, test in parts]
    (2, [(16, 4), (16, 4)])
    """
    y = np.asarray(y)
    _check_splittable(y, protocol)
    rng = np.random.default_rng(seed)
    if protocol.balanced:
        classes, counts = np.unique(y, return_counts=True)
        n_test = math.ceil(protocol.test_size * counts.min())
        if n_test >= counts.min():
            raise InvalidParameterError(
                f"the smallest class has {counts.min()} samples: too few for a "
                "balanced test set that leaves training samples of every class."
            )
        n_train = counts.min() - n_test
        parts = []
        for _ in range(protocol.n_splits):
            test, train = [], []
            for c in classes:
                members = rng.permutation(np.flatnonzero(y == c))
                test.append(members[:n_test])
                train.append(members[n_test : n_test + n_train])
            parts.append((np.sort(np.concatenate(train)), np.sort(np.concatenate(test))))
        return parts
    splitter = StratifiedShuffleSplit(
        n_splits=protocol.n_splits,
        test_size=protocol.test_size,
        random_state=int(rng.integers(2**31 - 1)),
    )
    return [
        (np.sort(tr), np.sort(te)) for tr, te in splitter.split(np.zeros(y.shape[0]), y)
    ]


def _check_splittable(y, protocol: Protocol) -> None:
    """Stratified partitions need two classes and two samples of every class."""
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise InvalidParameterError(
            f"the data set has 1 class ({classes.tolist()!r}); a classification study "
            "needs at least 2. Check the labels file."
        )
    small = [f"class {c} has {k} sample" for c, k in zip(classes.tolist(), counts) if k < 2]
    if small:
        raise InvalidParameterError(
            f"{'; '.join(small)}: the {protocol.name} protocol draws stratified random "
            "partitions, which need at least 2 samples of every class (one to train, one "
            "to test). Drop that class (SimilarityDataset.subset) or add samples."
        )


def inner_folds(y, n_folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Inner cross-validation folds on a training part (stratified when possible).

    Parameters
    ----------
    y : array-like of shape (n_train,)
        Labels of the training part.
    n_folds : int
        Number of folds (at most ``n_train``).
    seed : int
        Seeds the shuffle.

    Returns
    -------
    list of (ndarray, ndarray)
        ``(fit_indices, validation_indices)`` per fold, indices into ``y``.
        Unstratified shuffled folds, with a ``UserWarning``, when a class has
        fewer members than folds.

    See Also
    --------
    make_partitions : The outer train/test partitions.

    Examples
    --------
    >>> from proxlearn.study import inner_folds
    >>> folds = inner_folds([0, 0, 0, 1, 1, 1], 3, seed=0)
    >>> [len(val) for fit, val in folds]
    [2, 2, 2]
    """
    y = np.asarray(y)
    n_folds = min(n_folds, y.shape[0])
    _, counts = np.unique(y, return_counts=True)
    if counts.min() >= n_folds:
        cv = StratifiedKFold(n_folds, shuffle=True, random_state=seed)
    else:
        warnings.warn(
            f"a class has only {counts.min()} training samples, fewer than the "
            f"{n_folds} CV folds; using unstratified shuffled folds.",
            UserWarning,
            stacklevel=2,
        )
        cv = KFold(n_folds, shuffle=True, random_state=seed)
    return list(cv.split(np.zeros(y.shape[0]), y))


#: Every method of the chen2009 comparison (Chen et al. 2009 Tables 3-4).
CHEN_METHODS = (
    "knn", "knn-affinity", "knn-kri", "knn-kri-flip", "knn-kri-shift",
    "knn-krr", "knn-krr-clip", "knn-krr-flip", "knn-krr-shift", "local-sda",
    "svm-knn", "svm-knn-flip", "svm-knn-shift", "svm-clip", "svm-flip", "svm-shift",
    "svm-features-linear", "svm-features-rbf", "psvm", "lp-machine", "ikfd",
)  # fmt: skip
#: The six methods of Gu & Guo (2012) Tables 1-3.
GU_METHODS = ("svm-clip", "svm-flip", "svm-shift", "indefinite-svm", "ikfd", "svm-ca")
