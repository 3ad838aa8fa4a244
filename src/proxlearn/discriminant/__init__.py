"""Discriminant analysis on (indefinite) similarity matrices.

* :class:`IndefiniteKFD` -- regularised kernel Fisher discriminant applied to
  the symmetrised indefinite similarity (Pekalska & Haasdonk 2009; the IKFD
  baseline of Gu & Guo, AAAI 2012).
* :class:`SimilarityDiscriminantAnalysis`, :class:`LocalSDA` -- SDA and local
  SDA (Chen et al. 2009, section 6).
"""

from ._ikfd import IndefiniteKFD
from ._sda import LocalSDA, SimilarityDiscriminantAnalysis

__all__ = ["IndefiniteKFD", "LocalSDA", "SimilarityDiscriminantAnalysis"]
