"""Kernel learning from indefinite similarities.

* :class:`SimSVM`: spectrum weights learned jointly with the SVM (Chen 2010
  thesis eq. 5.20; exact SOCP 5.31, random LP 5.28, SDP 5.21).
* :class:`FullKernelSVM`: a full PSD kernel learned near ``S`` with the SVM
  (thesis eq. 5.6, transductive 5.16), cvxpy SDP for small ``n``.
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
* :class:`ESKL`, :class:`EMKL`, :class:`REKL`: kernels learned from several
  indefinite similarity matrices by entropic mirror descent (Kundu et al. 2010);
  :class:`ESKLCV`, :class:`EMKLCV`, :class:`REKLCV` choose ``C`` and ``rho`` by
  cross-validation.
* :class:`WarpedKernel`: a learned transductive kernel extended to new points
  by kernel warping (Zhuang 2011 eq. 6.9, Sindhwani-Niyogi-Belkin 2005).
* :class:`SimpleNPKL`, :class:`NPKL`: a kernel over the given points learned
  from must-link / cannot-link pairs and the kNN Laplacian
  (:func:`knn_laplacian`), by closed forms and dual ascent or as a cvxpy SDP
  (Zhuang 2011 chapter 3; Hoi, Jin & Lyu 2007); :class:`SimpleNPKLCV` chooses
  ``C`` by cross-validation over the constraints (:func:`held_out_agreement`: how well
  a kernel k-means clustering keeps the held-out pairs; or :func:`held_out_auc`).
"""

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
from ._kundu import EMKL, ESKL, REKL
from ._kundu_cv import EMKLCV, ESKLCV, REKLCV
from ._full_kernel_svm import FullKernelSVM, SolverFailedError, modify_test_rows
from ._simmkl import SimMKL
from ._simsvm import SimSVM
from ._svmca import SVMCA, ComponentsClampedWarning
from ._warping import WarpedKernel, graph_laplacian
from ._laplacian import knn_graph, knn_laplacian
from ._npkl import NPKL, SimpleNPKL
from ._npkl_cv import SimpleNPKLCV, constraint_groups, held_out_agreement, held_out_auc

__all__ = [
    "NPKL",
    "SimpleNPKL",
    "SimpleNPKLCV",
    "held_out_auc",
    "held_out_agreement",
    "constraint_groups",
    "knn_graph",
    "knn_laplacian",
    "BaseKernelSVC",
    "CompletionResult",
    "CompletionSVC",
    "ComponentsClampedWarning",
    "DiffusionKernel",
    "EMKL",
    "EMKLCV",
    "ESKL",
    "ESKLCV",
    "FullKernelSVM",
    "IndefiniteSVM",
    "KernelCompleter",
    "LinearSimilarityKernel",
    "RBFSimilarityKernel",
    "REKL",
    "REKLCV",
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
