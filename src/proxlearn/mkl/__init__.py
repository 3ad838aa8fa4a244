"""Combining several kernels over the same objects (multiple kernel learning).

* :func:`alignf`: the non-negative combination best aligned with a target kernel
  (centred kernel-target alignment, Cortes-Mohri-Rostamizadeh 2010; Zhuang 2011
  Theorem 7.35). The other MKL methods of the founding papers are still to come.

Convention for ``m`` kernels (or similarity matrices) over the same ``n`` objects:
an ``(n, n, m)`` array, stacked on the last axis (:func:`check_kernel_stack`).
"""

from ._kta import alignf, check_kernel_stack

__all__ = ["alignf", "check_kernel_stack"]
