"""proxlearn: learning from proximity (similarity and dissimilarity) data.

Classifiers, transforms and kernel-learning methods that take an n x n matrix
of pairwise similarities for training and an m x n test-to-train matrix for
prediction, in scikit-learn style. Handles asymmetric and indefinite (not PSD)
similarities.

Subpackages
-----------
datasets
    Loaders (.mat/.npz/.csv/.txt), the data search path, embedded, feature and synthetic sets.
pairwise
    Similarity builders from raw objects (strings, sequences, time series, sets), blockwise and Dask.
transforms
    Symmetrise, dissimilarity -> similarity, spectrum clip/flip/shift/square, similarity features.
kernel_approximation
    Nystroem-style spectrum correction at linear cost.
svm
    SVMs on similarities: as a kernel, as features, P-SVM, the LP machine, calibration;
    SVR and the one-class SVM on spectrum-modified similarities.
neighbors
    Weighted k-NN (uniform, affinity, KRI, KRR) classifier and regressor, SVM-KNN, the
    local outlier factor on similarities.
discriminant
    Similarity discriminant analysis (global, local) and the indefinite kernel Fisher discriminant.
kernel_learning
    SimSVM, the Indefinite SVM, full kernel SVM, SimMKL, SVM-CA, kernel warping,
    kernel completion.
kernel_ridge
    Kernel ridge regression on spectrum-modified similarities.
krein
    Learning in the Krein space of the indefinite similarity itself: KSVM (classifier and
    regressor), least squares over a hypersphere.
mkl
    Several kernels: SimpleMKL, Lp-MKL, non-sparse MKL, KTA, alignf; ESKL/EMKL/REKL (kernels
    learned from several similarities on that MKL); the base-kernel bank,
    two-layer MKL, IKL, UMKL, GMKL, arc-cosine kernels; MKL regression (SimpleMKL SVR,
    Lp-MKL kernel ridge) and the one-class SimpleMKL.
cluster
    Kernel k-means, constrained k-means, pairwise constraints, kernels learned from them
    (SimpleNPKL / NPKL and the kNN Laplacian), the Rand index.
manifold
    Embeddings by kernel learning: MVE, SPE, colored MVU.
ranking
    VisualRank, the NPK re-ranking kernel, pair kernels and kernel logistic tie strength.
solvers
    Small solvers owned by the project, each with its optimality certificate.
study
    Reproduction protocols, the nested-CV study runner, reports.
metrics
    Perplexity and normalised cross-entropy of class posteriors; HSIC and centred alignment.
plotting
    Matrix and spectrum plots.
exceptions
    Public errors and warnings (``SimilarityMatrixError``, ``DissimilarityWarning``, ...).

Subpackages are imported on first access, so ``import proxlearn`` stays cheap.

See Also
--------
proxlearn.datasets.load_dataset : A similarity data set by name.
proxlearn.svm.SimilaritySVC : The SVM on a similarity matrix.

Examples
--------
>>> import proxlearn
>>> from proxlearn.datasets import load_dataset
>>> ds = load_dataset("synthetic-2")
>>> model = proxlearn.svm.SimilaritySVC().fit(ds.matrix, ds.labels)
>>> model.predict(ds.matrix[:3]).shape
(3,)
"""

import importlib
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("proxlearn")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

_SUBMODULES = (
    "cluster",
    "datasets",
    "discriminant",
    "exceptions",
    "kernel_approximation",
    "kernel_learning",
    "kernel_ridge",
    "krein",
    "manifold",
    "metrics",
    "mkl",
    "neighbors",
    "pairwise",
    "plotting",
    "ranking",
    "solvers",
    "study",
    "svm",
    "transforms",
)

__all__ = ["__version__", *_SUBMODULES]


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))
