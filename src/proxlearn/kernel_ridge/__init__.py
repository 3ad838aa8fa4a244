"""Kernel ridge regression on similarities.

* :class:`SimilarityKernelRidge` -- kernel ridge regression on the
  spectrum-modified similarity (clip, flip, shift, square, none), solved in the
  eigenbasis the spectrum modification already computed, with the consistent
  test transformation of Chen et al. (2009), section 2.2.
"""

from ._kernel_ridge import SimilarityKernelRidge

__all__ = ["SimilarityKernelRidge"]
