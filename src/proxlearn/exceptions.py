"""Public exceptions and warnings of proxlearn (as :mod:`sklearn.exceptions`).

Every error a user can provoke with bad input is a subclass of ``ValueError``
whose message says what was wrong and what to do; solver failures are
subclasses of :class:`SolverError` (a ``RuntimeError``) and are never hidden
behind a silent fallback. Catch them from here::

    from proxlearn.exceptions import SimilarityMatrixError, DissimilarityWarning

Convergence problems of iterative methods warn with scikit-learn's
:class:`sklearn.exceptions.ConvergenceWarning`, re-exported here for
convenience.

This module is the lowest layer of the package: it imports nothing of proxlearn.
"""

from __future__ import annotations

from sklearn.exceptions import ConvergenceWarning

__all__ = [
    "AsymmetricSimilarityWarning",
    "ComponentsClampedWarning",
    "ConvergenceWarning",
    "DatasetNotFoundError",
    "DissimilarityWarning",
    "DownloadError",
    "InvalidParameterError",
    "LabelError",
    "ObjectListError",
    "SimSVMSolverError",
    "SimSVMSolverWarning",
    "SimilarityMatrixError",
    "SimplexQPConvergenceWarning",
    "SolverError",
    "SolverFailedError",
    "StudyWarning",
    "TestMatrixError",
    "FeatureMatrixError",
]


# --- errors in the user's input ---------------------------------------------------


class SimilarityMatrixError(ValueError):
    """A similarity (or dissimilarity) matrix is malformed.

    Raised for non-square training matrices, ragged or non-numeric input,
    sparse or masked arrays, NaN/inf entries and overflowing values.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilaritySVC
    >>> SimilaritySVC().fit(np.ones((2, 3)), [0, 1])
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.SimilarityMatrixError: S must be a square n x n matrix ...

    See Also
    --------
    TestMatrixError : the test-to-train matrix does not fit the training set.
    DissimilarityWarning, AsymmetricSimilarityWarning
    """


class TestMatrixError(SimilarityMatrixError):
    """A test-to-train similarity matrix does not match the training set.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilaritySVC
    >>> SimilaritySVC().fit(np.eye(4), [0, 0, 1, 1]).predict(np.ones((2, 3)))
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.TestMatrixError: S_test has 3 columns but the estimator was fitted on 4 ...

    See Also
    --------
    SimilarityMatrixError : its base class (the training matrix).
    """

    __test__ = False  # not a pytest test class


class FeatureMatrixError(ValueError):
    """A feature matrix ``(n_samples, n_features)`` is malformed (not 2-D, not
    numeric, NaN/inf), or test features have another width than the training ones.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn._validation import check_features
    >>> check_features(np.array([1., 2.]))
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.FeatureMatrixError: X must be a 2-D (n_samples, n_features) array, ...

    See Also
    --------
    SimilarityMatrixError : the same for similarity matrices.
    """


class LabelError(ValueError):
    """Class labels do not fit the similarity matrix or the task.

    Wrong length, a single class, missing values (NaN / None) or a continuous
    target where classes are expected.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilaritySVC
    >>> SimilaritySVC().fit(np.eye(4), [0, 0, 0, 0])
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.LabelError: y has 1 class(es) ([0]) but at least 2 are needed ...

    See Also
    --------
    SimilarityMatrixError, InvalidParameterError
    """


class ObjectListError(ValueError):
    """A raw object given to a similarity builder (:mod:`proxlearn.pairwise`) is
    malformed: an empty string or sequence, a letter outside the substitution
    matrix's alphabet, NaN/inf in a time series, an object of the wrong type.
    The message names the record (its index, FASTA id or line number).

    Examples
    --------
    >>> from proxlearn._validation import check_strings
    >>> check_strings(["ab", ""], allow_empty=False)
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.ObjectListError: X: object 1 is an empty string.

    See Also
    --------
    proxlearn.pairwise.pairwise_similarity : the builders that raise it.
    """


class InvalidParameterError(ValueError):
    """A hyperparameter is outside its valid range for the data given.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.svm import SimilaritySVC
    >>> SimilaritySVC(C=-1).fit(np.eye(4), [0, 0, 1, 1])
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.InvalidParameterError: C must be finite and > 0, got -1.0.

    See Also
    --------
    LabelError, SimilarityMatrixError : the other input errors.
    """


class DatasetNotFoundError(FileNotFoundError):
    """A data set name is unknown or its file is not on the data search path.

    Examples
    --------
    >>> from proxlearn.datasets import load_dataset
    >>> load_dataset("no-such-set")
    Traceback (most recent call last):
    ...
    proxlearn.exceptions.DatasetNotFoundError: unknown data set 'no-such-set'. ...

    See Also
    --------
    proxlearn.datasets.list_datasets : the registered names.
    DownloadError
    """


class DownloadError(OSError):
    """A data file could not be downloaded, or its checksum differs from the pinned one.

    Examples
    --------
    >>> from proxlearn.exceptions import DownloadError
    >>> issubclass(DownloadError, OSError)
    True

    See Also
    --------
    DatasetNotFoundError
    proxlearn.datasets.fetch_uw : a loader that downloads.
    """


# --- solver failures --------------------------------------------------------------


class SolverError(RuntimeError):
    """An optimisation solver failed (status named in the message); never a silent fallback.

    Examples
    --------
    >>> from proxlearn.exceptions import SimSVMSolverError, SolverError, SolverFailedError
    >>> issubclass(SolverFailedError, SolverError), issubclass(SimSVMSolverError, RuntimeError)
    (True, True)

    See Also
    --------
    SolverFailedError, SimSVMSolverError : its subclasses.
    ConvergenceWarning : an iterative method stopped before its tolerance.
    """


class SolverFailedError(SolverError):
    """A conic solver (through cvxpy) did not return an optimal solution.

    Examples
    --------
    >>> from proxlearn.exceptions import SolverError, SolverFailedError
    >>> issubclass(SolverFailedError, SolverError)
    True

    See Also
    --------
    SolverError, SimSVMSolverError
    """


class SimSVMSolverError(SolverError):
    """The SimSVM conic / LP / dual-QP solver did not return an optimal solution.

    Examples
    --------
    >>> from proxlearn.exceptions import SimSVMSolverError, SolverError
    >>> issubclass(SimSVMSolverError, SolverError)
    True

    See Also
    --------
    SimSVMSolverWarning : a solution to reduced accuracy.
    SolverError
    """


# --- warnings ---------------------------------------------------------------------


class AsymmetricSimilarityWarning(UserWarning):
    """A method needing symmetry was given an asymmetric matrix and symmetrised it.

    Examples
    --------
    >>> from proxlearn.exceptions import AsymmetricSimilarityWarning
    >>> issubclass(AsymmetricSimilarityWarning, UserWarning)
    True

    See Also
    --------
    proxlearn.transforms.Symmetrize : symmetrise explicitly first.
    DissimilarityWarning
    """


class DissimilarityWarning(UserWarning):
    """A matrix passed as a similarity looks like a dissimilarity (distance).

    Examples
    --------
    >>> from proxlearn.exceptions import DissimilarityWarning
    >>> issubclass(DissimilarityWarning, UserWarning)
    True

    See Also
    --------
    proxlearn.transforms.DissimilarityToSimilarity : turn distances into similarities.
    SimilarityMatrixError, AsymmetricSimilarityWarning
    """


class SimSVMSolverWarning(UserWarning):
    """The SimSVM solver returned a solution to reduced accuracy (``AlmostSolved``).

    Examples
    --------
    >>> from proxlearn.exceptions import SimSVMSolverWarning
    >>> issubclass(SimSVMSolverWarning, UserWarning)
    True

    See Also
    --------
    SimSVMSolverError : the solver failed outright.
    """


class SimplexQPConvergenceWarning(UserWarning):
    """Some simplex QPs did not reach the KKT tolerance within ``max_iter``.

    Examples
    --------
    >>> from proxlearn.exceptions import SimplexQPConvergenceWarning
    >>> issubclass(SimplexQPConvergenceWarning, UserWarning)
    True

    See Also
    --------
    proxlearn.solvers.solve_simplex_qp : the solver that warns.
    ConvergenceWarning
    """


class StudyWarning(UserWarning):
    """Warnings raised inside a study's cells, reported once per kind when it ends
    (with how many cells raised it), instead of once per cell and inner fold.

    Examples
    --------
    >>> from proxlearn.exceptions import StudyWarning
    >>> issubclass(StudyWarning, UserWarning)
    True

    See Also
    --------
    proxlearn.study : the reproduction runner that collects them.
    ConvergenceWarning
    """


class ComponentsClampedWarning(UserWarning):
    """``n_components`` exceeded the number of positive eigenvalues and was clamped.

    Examples
    --------
    >>> from proxlearn.exceptions import ComponentsClampedWarning
    >>> issubclass(ComponentsClampedWarning, UserWarning)
    True

    See Also
    --------
    proxlearn.kernel_learning.SVMCA : the estimator that warns.
    """
