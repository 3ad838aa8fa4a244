"""Kernel learning from indefinite similarities.

* :class:`SimSVM`: spectrum weights learned jointly with the SVM (Chen 2010
  thesis eq. 5.20; exact SOCP 5.31, random LP 5.28, SDP 5.21).
* :class:`FullKernelSVM`: a full PSD kernel learned near ``S`` with the SVM
  (thesis eq. 5.6, transductive 5.16) by our dual solver; the SDP through cvxpy
  as an option for small ``n``.
* :class:`SimMKL`: spectrum-modified ``S`` combined with base kernels (thesis
  eq. 5.35/5.36), with the base kernels of :mod:`._base_kernels`.
* :class:`IndefiniteSVM`: Luss & d'Aspremont's robust SVM (thesis eq. 5.8).
* :class:`SVMCA`: joint SVM and kernel component analysis (Gu & Guo 2012).
* :func:`em_complete`: kernel matrix completion from an auxiliary kernel by the
  em algorithm (Tsuda, Akaho & Asai 2003; Chen 2010 thesis sec. 6.1);
  :func:`frobenius_complete` its conic version (6.5), :class:`KernelCompleter`
  both as an estimator, :class:`CompletionSVC` the joint SVM + completion
  (6.6/6.7, transductive 6.9/6.10) with test rows by (6.8)
  (:func:`complete_test_row`).
* :class:`WarpedKernel`: a learned transductive kernel extended to new points
  by kernel warping (Zhuang 2011 eq. 6.9, Sindhwani-Niyogi-Belkin 2005).

ESKL, EMKL, REKL and their ``...CV`` variants moved to :mod:`proxlearn.mkl` (with the
MKL they build on); SimpleNPKL, NPKL, SimpleNPKLCV, ``knn_graph``, ``knn_laplacian``,
``held_out_agreement``, ``held_out_auc`` and ``constraint_groups`` moved to
:mod:`proxlearn.cluster` (the pairwise-constraint family, Zhuang 2011 chapter 3).
Importing them from here still works, with a ``FutureWarning``.
"""

import sys
import warnings

from .. import cluster as _cluster
from .. import mkl as _mkl
from ._completion import CompletionResult, em_complete, stein_loss
from ._completion_conic import (
    CompletionSVC,
    KernelCompleter,
    complete_test_row,
    frobenius_complete,
)
from ._base_kernels import (
    BaseKernelSVC,
    DiffusionKernel,
    LinearSimilarityKernel,
    RBFSimilarityKernel,
    base_kernel_pair,
    make_base_kernel,
)
from ._indefinite_svm import IndefiniteSVM
from ._full_kernel_svm import FullKernelSVM, SolverFailedError, modify_test_rows
from ._simmkl import SimMKL
from ._simsvm import SimSVM
from ._svmca import SVMCA, ComponentsClampedWarning
from ._warping import WarpedKernel, graph_laplacian

__all__ = [
    "BaseKernelSVC",
    "CompletionResult",
    "CompletionSVC",
    "ComponentsClampedWarning",
    "DiffusionKernel",
    "FullKernelSVM",
    "IndefiniteSVM",
    "KernelCompleter",
    "LinearSimilarityKernel",
    "RBFSimilarityKernel",
    "SimMKL",
    "SimSVM",
    "SVMCA",
    "SolverFailedError",
    "WarpedKernel",
    "base_kernel_pair",
    "complete_test_row",
    "em_complete",
    "frobenius_complete",
    "graph_laplacian",
    "make_base_kernel",
    "modify_test_rows",
    "stein_loss",
]

#: Public names that moved to :mod:`proxlearn.mkl`: deprecated aliases here.
_MOVED_TO_MKL = frozenset({"EMKL", "EMKLCV", "ESKL", "ESKLCV", "REKL", "REKLCV"})
#: Public names that moved to :mod:`proxlearn.cluster`: deprecated aliases here.
_MOVED_TO_CLUSTER = frozenset({"NPKL", "SimpleNPKL", "SimpleNPKLCV", "constraint_groups",
                               "held_out_agreement", "held_out_auc", "knn_graph",
                               "knn_laplacian"})


def __getattr__(name):
    if name in _MOVED_TO_MKL or name in _MOVED_TO_CLUSTER:
        home = _mkl if name in _MOVED_TO_MKL else _cluster
        # ``from proxlearn.kernel_learning import ESKL`` looks the name up twice (the
        # import system's ``hasattr`` for submodules, then the import itself): warn once
        if sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
            return getattr(home, name)
        warnings.warn(
            f"proxlearn.kernel_learning.{name} is deprecated and will be removed: it moved "
            f"to {home.__name__} (import it as `from {home.__name__} import {name}`).",
            FutureWarning, stacklevel=2)
        return getattr(home, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
