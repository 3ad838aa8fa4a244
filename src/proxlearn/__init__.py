"""proxlearn: learning from proximity (similarity and dissimilarity) data.

Classifiers, transforms and kernel-learning methods that take an n x n matrix
of pairwise similarities for training and an m x n test-to-train matrix for
prediction, in scikit-learn style. Handles asymmetric and indefinite (not PSD)
similarities.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("proxlearn")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
