"""Discriminant analysis on (indefinite) similarity matrices.

* :class:`IndefiniteKFD` -- regularised kernel Fisher discriminant applied to
  the symmetrised indefinite similarity (Pekalska & Haasdonk 2009; the IKFD
  baseline of Gu & Guo, AAAI 2012).
"""

from ._ikfd import IndefiniteKFD

__all__ = ["IndefiniteKFD"]
