"""Study methods for Chen (2010) Table 5.5: SimMKL and the SVMs on single base kernels.

The base kernels depend on the data set (thesis section 5.4.3):

============  =====================================================
aural_sonar   linear on similarity features; RBF beta=0.01; RBF beta=0.1
protein-2     linear; RBF beta=0.1; RBF beta=0.05
amazon-2      linear; RBF beta=0.1; diffusion (normalised Laplacian, sigma^2=20)
============  =====================================================

Mechanism: :data:`SIMMKL_KERNELS` maps a data-set name to its kernel list.
Because the runner calls ``method.build(**params)`` and
``method.evaluate_grid(...)`` without the data-set name, every data set gets its
own registered methods, ``simmkl-<dataset>`` and ``svm-kernel{1,2,3}-<dataset>``
(the k-th kernel of that data set's list), built by :func:`simmkl_methods`.
The plain names ``simmkl`` and ``svm-kernel{1,2,3}`` (the names of
``targets.csv``) use :data:`DEFAULT_KERNELS` (the Aural Sonar list) until the
runner resolves a data-set-specific registration ``<method>-<dataset>`` first
(a small change to ``run_cell`` proposed in the SimMKL report).

Grids (``chen2009``, thesis section 5.4.3): SimMKL ``eta`` in 1e-4..1 (5 values),
``gamma`` in 1e-3..1e3 (7 values); single-kernel SVMs ``C`` in 1e-3..1e3.
"""

from __future__ import annotations

from ..._methods import Method, _powers, _svc_over_C, register_method

__all__ = ["DEFAULT_KERNELS", "SIMMKL_KERNELS", "simmkl_methods"]

#: Base kernels per data set (Chen 2010, section 5.4.3, Figs. 5.10-5.12).
SIMMKL_KERNELS: dict[str, tuple] = {
    "aural_sonar": ("linear", ("rbf", 0.01), ("rbf", 0.1)),
    "protein-2": ("linear", ("rbf", 0.1), ("rbf", 0.05)),
    "amazon-2": ("linear", ("rbf", 0.1), ("diffusion", 20.0)),
}
#: Kernels of the plain method names (no data-set suffix).
DEFAULT_KERNELS = SIMMKL_KERNELS["aural_sonar"]

SIMMKL_ETA = _powers(-4, 0)
SIMMKL_GAMMA = _powers(-3, 3)
C_CH5 = _powers(-3, 3)


def _simmkl_builder(kernels):
    def build(**params):
        from ....kernel_learning._simmkl import SimMKL

        # the thesis's reading (S as given), as the fold evaluator computes it
        return SimMKL(kernels=list(kernels), normalize=False, **params)

    return build


def _simmkl_evaluator(kernels):
    """Base kernels, eigendecomposition and SOCP compiled once per fold; the
    (eta, gamma) grid re-solves the same parametrised problem (the estimator's grid
    path, :meth:`~proxlearn.kernel_learning.SimMKL.grid_predictions`). A failed grid
    point counts as wrong on every validation sample."""
    build = _simmkl_builder(kernels)

    def evaluate(S_train, y_train, S_test, params_list):
        return build(**params_list[0]).grid_predictions(S_train, y_train, S_test, params_list,
                                                        on_failure="none")

    return evaluate


def _kernel_svc_builder(spec):
    def build(**params):
        from ....kernel_learning._base_kernels import BaseKernelSVC

        return BaseKernelSVC(kernel=spec, normalize=False, **params)  # the thesis reading

    return build


def _kernel_svc_evaluator(spec):
    def evaluate(S_train, y_train, S_test, params_list):
        from ....kernel_learning._base_kernels import base_kernel_pair

        K, K_test = base_kernel_pair(spec, S_train, S_test)
        return _svc_over_C(K, y_train, K_test, [p["C"] for p in params_list])

    return evaluate


def _describe(spec) -> str:
    if isinstance(spec, str):
        return spec
    return f"{spec[0]} {spec[1]:g}"


def simmkl_methods(kernels, suffix: str = "") -> list[Method]:
    """``simmkl`` and ``svm-kernel1..m`` methods for one kernel list.

    Parameters
    ----------
    kernels : sequence of kernel specs
    suffix : str
        Appended to the names (``"-aural_sonar"``), empty for the plain names.
    """
    desc = ", ".join(_describe(k) for k in kernels)
    out = [
        Method(
            f"simmkl{suffix}",
            _simmkl_builder(kernels),
            {"chen2009": {"eta": SIMMKL_ETA, "gamma": SIMMKL_GAMMA}},
            f"SimMKL (Chen 2010 eq. 5.36), S fused with [{desc}]",
            evaluate=_simmkl_evaluator(kernels),
        )
    ]
    for i, spec in enumerate(kernels, start=1):
        out.append(
            Method(
                f"svm-kernel{i}{suffix}",
                _kernel_svc_builder(spec),
                {"chen2009": {"C": C_CH5}},
                f"C-SVM on base kernel {i} ({_describe(spec)}), Chen 2010 Table 5.5",
                evaluate=_kernel_svc_evaluator(spec),
            )
        )
    return out


for _m in simmkl_methods(DEFAULT_KERNELS):
    register_method(_m, replace=True)
def _loadable(name: str) -> bool:
    from ....datasets import REGISTRY

    return name in REGISTRY


# variants only for data sets proxlearn can load (Amazon-2's kernels are kept in
# SIMMKL_KERNELS for the record: its data is not available anywhere here)
for _ds, _ks in SIMMKL_KERNELS.items():
    if not _loadable(_ds):
        continue
    for _m in simmkl_methods(_ks, suffix=f"-{_ds}"):
        register_method(_m, replace=True)
