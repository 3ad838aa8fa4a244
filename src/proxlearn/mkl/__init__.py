"""Combining several kernels over the same objects (multiple kernel learning).

Convention for ``m`` kernels (or similarity matrices) over the same ``n`` objects:
an ``(n, n, m)`` array, stacked on the **last** axis, and ``(n_test, n_train, m)``
for test rows, so that scikit-learn's pairwise slicing slices every matrix
(:func:`check_multi_similarity`, :func:`check_multi_test`, which also accept a list
of ``m`` matrices; :func:`check_kernel_stack` is a deprecated alias).

* :func:`alignf`: the non-negative combination best aligned with a target kernel
  (centred kernel-target alignment, Cortes-Mohri-Rostamizadeh 2010; Zhuang 2011
  Theorem 7.35).
* Binary MKL solvers with certificates: :func:`simple_mkl` (SimpleMKL),
  :func:`lp_mkl` (Lp-MKL), :func:`nonsparse_mkl` (Kundu et al. 2010 eq. 10),
  :func:`uniform_mkl`; and the classifiers :class:`SimpleMKL`, :class:`LpMKL`,
  :class:`NonSparseMKL`, :class:`AverageKernelSVC` on ``(n, n, m)`` similarities;
  :class:`MKLClassifierCV`: any of them with ``C`` by cross-validation.
* Kernels learned from several indefinite similarity matrices by entropic mirror
  descent, on top of the non-sparse MKL (Kundu et al. 2010): :class:`ESKL`,
  :class:`EMKL`, :class:`REKL`; :class:`ESKLCV`, :class:`EMKLCV`, :class:`REKLCV`
  choose ``C`` and ``rho`` by cross-validation.
* Zhuang (2011) ch. 4-5 on features: :class:`KernelBank`, :class:`TwoLayerMKL`,
  :class:`TwoLayerMKLCV` (``C`` by cross-validation), :class:`TwoLayerMKLInf`,
  :class:`IKL` (infinite kernel learning), :class:`GMKL`,
  :class:`ArcCosineSVC`, :class:`KTASVC`, :class:`UMKL`.
* Beyond classification: :class:`SimpleMKLRegressor` (SimpleMKL for
  epsilon-SVR), :class:`LpMKLKernelRidge` (Lp-norm MKL kernel ridge regression),
  :class:`SimpleMKLOneClass` (SimpleMKL for the one-class SVM), and their solvers
  :func:`simple_mkl_svr`, :func:`lp_mkl_krr`, :func:`simple_mkl_one_class`.
"""

from .._multi_input import check_multi_similarity, check_multi_test
from ._arccos import ArcCosineSVC, arccos_kernel
from ._bank import DEFAULT_DEGREES, DEFAULT_WIDTHS, KernelBank, LazyKernelStack
from ._classifiers import KTASVC, AverageKernelSVC, LpMKL, NonSparseMKL, SimpleMKL
from ._cv import MKLClassifierCV
from ._entropic_kernel_learning import EMKL, ESKL, REKL
from ._entropic_kernel_learning_cv import EMKLCV, ESKLCV, REKLCV
from ._ikl import IKL
from ._gmkl import GMKL, GMKLResult, gmkl, gmkl_gradient, product_gaussian_kernel
from ._kta import alignf, check_kernel_stack
from ._solvers import MKLResult, lp_mkl, nonsparse_mkl, simple_mkl, uniform_mkl
from ._regression import (
    LpMKLKernelRidge,
    SimpleMKLOneClass,
    SimpleMKLRegressor,
    lp_mkl_krr,
    simple_mkl_one_class,
    simple_mkl_svr,
)
from .._svm._dual import box_knapsack_max, svm_dual
from ._umkl import UMKL, UMKLResult, umkl, umkl_objective
from ._two_layer import TwoLayerMKL, TwoLayerMKLCV, TwoLayerMKLInf, two_layer_mkl

__all__ = [
    "ArcCosineSVC",
    "EMKL",
    "EMKLCV",
    "ESKL",
    "ESKLCV",
    "REKL",
    "REKLCV",
    "GMKL",
    "GMKLResult",
    "IKL",
    "arccos_kernel",
    "gmkl",
    "gmkl_gradient",
    "product_gaussian_kernel",
    "DEFAULT_DEGREES",
    "DEFAULT_WIDTHS",
    "AverageKernelSVC",
    "KTASVC",
    "KernelBank",
    "LazyKernelStack",
    "TwoLayerMKL",
    "TwoLayerMKLCV",
    "UMKL",
    "UMKLResult",
    "umkl",
    "umkl_objective",
    "TwoLayerMKLInf",
    "two_layer_mkl",
    "LpMKL",
    "MKLClassifierCV",
    "MKLResult",
    "NonSparseMKL",
    "SimpleMKL",
    "alignf",
    "box_knapsack_max",
    "check_kernel_stack",
    "check_multi_similarity",
    "check_multi_test",
    "lp_mkl",
    "nonsparse_mkl",
    "simple_mkl",
    "svm_dual",
    "uniform_mkl",
    # MKL regression and one-class
    "LpMKLKernelRidge",
    "SimpleMKLOneClass",
    "SimpleMKLRegressor",
    "lp_mkl_krr",
    "simple_mkl_one_class",
    "simple_mkl_svr",
]
