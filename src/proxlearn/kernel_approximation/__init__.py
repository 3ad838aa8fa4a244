"""Kernel approximation for (indefinite) proximities at linear cost.

:class:`NystroemSpectrum` corrects the spectrum (clip, flip, shift, square) of
the Nystroem approximation built from the similarities of all objects to ``m``
landmarks only, and returns an explicit feature map for linear models;
:class:`LazySimilarity` wraps a similarity function so that only the landmark
columns are ever computed. Named after :mod:`sklearn.kernel_approximation`.
"""

from ._nystroem import LazySimilarity, NystroemSpectrum

__all__ = ["LazySimilarity", "NystroemSpectrum"]
