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
    """


class TestMatrixError(SimilarityMatrixError):
    """A test-to-train similarity matrix does not match the training set."""

    __test__ = False  # not a pytest test class


class FeatureMatrixError(ValueError):
    """A feature matrix ``(n_samples, n_features)`` is malformed (not 2-D, not
    numeric, NaN/inf), or test features have another width than the training ones."""


class LabelError(ValueError):
    """Class labels do not fit the similarity matrix or the task.

    Wrong length, a single class, missing values (NaN / None) or a continuous
    target where classes are expected.
    """


class ObjectListError(ValueError):
    """A raw object given to a similarity builder (:mod:`proxlearn.pairwise`) is
    malformed: an empty string or sequence, a letter outside the substitution
    matrix's alphabet, NaN/inf in a time series, an object of the wrong type.
    The message names the record (its index, FASTA id or line number)."""


class InvalidParameterError(ValueError):
    """A hyperparameter is outside its valid range for the data given."""


class DatasetNotFoundError(FileNotFoundError):
    """A data set name is unknown or its file is not on the data search path."""


class DownloadError(OSError):
    """A data file could not be downloaded, or its checksum differs from the pinned one."""


# --- solver failures --------------------------------------------------------------


class SolverError(RuntimeError):
    """An optimisation solver failed (status named in the message); never a silent fallback."""


class SolverFailedError(SolverError):
    """A conic solver (through cvxpy) did not return an optimal solution."""


class SimSVMSolverError(SolverError):
    """The SimSVM conic / LP / dual-QP solver did not return an optimal solution."""


# --- warnings ---------------------------------------------------------------------


class AsymmetricSimilarityWarning(UserWarning):
    """A method needing symmetry was given an asymmetric matrix and symmetrised it."""


class DissimilarityWarning(UserWarning):
    """A matrix passed as a similarity looks like a dissimilarity (distance)."""


class SimSVMSolverWarning(UserWarning):
    """The SimSVM solver returned a solution to reduced accuracy (``AlmostSolved``)."""


class SimplexQPConvergenceWarning(UserWarning):
    """Some simplex QPs did not reach the KKT tolerance within ``max_iter``."""


class StudyWarning(UserWarning):
    """Warnings raised inside a study's cells, reported once per kind when it ends
    (with how many cells raised it), instead of once per cell and inner fold."""


class ComponentsClampedWarning(UserWarning):
    """``n_components`` exceeded the number of positive eigenvalues and was clamped."""
