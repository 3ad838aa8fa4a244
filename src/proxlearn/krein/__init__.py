"""Learning in Kreĭn spaces: learners that keep the indefinite similarity.

Every other learner of the library makes the training matrix positive
semidefinite (clip, flip, shift, square, a learned proxy kernel) and maps test
rows to match. The learners here work in the reproducing kernel Kreĭn space
of the indefinite similarity itself (Ong, Mary, Canu & Smola 2004): their
solution is ``f(x) = s(x)^T a + b`` with the *original* similarities of a test
sample, and splits as ``f = f+ - f-`` over the positive and negative parts of
the space.

* :class:`KreinSVC`, :class:`KreinSVR`: KSVM (Loosli, Canu & Ong 2016), the SVM
  trained on ``|S|`` and mapped back.
* :class:`KreinLeastSquares`, :class:`KreinLeastSquaresClassifier`: Oglic &
  Gärtner's (2018) regularised least squares in the Kreĭn space, a quadratic
  over a hypersphere solved globally.

Derivations and errata: docs/methods.md, "Learning in Kreĭn spaces
(`proxlearn.krein`)".
"""

from ._ksvm import KreinSVC, KreinSVR
from ._least_squares import KreinLeastSquares, KreinLeastSquaresClassifier

__all__ = ["KreinLeastSquares", "KreinLeastSquaresClassifier", "KreinSVC", "KreinSVR"]
