"""
Decision boundaries of similarity-based classifiers
===================================================

The classifiers of proxlearn see the objects only through similarities: an
``n x n`` training matrix for ``fit`` and an ``m x n`` test-to-train matrix for
``predict``. When the objects are points of the plane, every point of a grid
is a test object, so the decision regions can be drawn.

The similarity here is a Gaussian of the city-block (L1) distance,
``s(x, x') = exp(-||x - x'||_1^2 / 0.5)``, which is **not** positive
semidefinite (about half of the eigenvalues of the training matrix are
negative), on two data sets of scikit-learn's generators. Classifiers (one
column each):

* :class:`~proxlearn.neighbors.SimilarityKNeighborsClassifier`: k-NN by the
  similarities, with uniform votes and with kernel ridge interpolation weights
  (``weights="kri"``, Chen et al. 2009);
* :class:`~proxlearn.svm.SimilaritySVC`: an SVM on the similarity made a
  kernel by clipping its negative eigenvalues (``spectrum="clip"``) or by
  flipping them (``"flip"``); the test rows are transformed consistently;
* :class:`~proxlearn.svm.SimilarityFeatureSVC`: a linear SVM on the rows of
  the similarity used as feature vectors;
* :class:`~proxlearn.svm.LPMachine`: the sparse linear programming machine on
  the similarities.

The number in the corner of each panel is the accuracy on a held-out third of
the points (shown lighter).
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from scipy.spatial.distance import cdist
from sklearn.datasets import make_circles, make_moons
from sklearn.model_selection import train_test_split

from proxlearn.neighbors import SimilarityKNeighborsClassifier
from proxlearn.svm import LPMachine, SimilarityFeatureSVC, SimilaritySVC


def similarity(A, B):
    """Gaussian of the city-block distance: indefinite."""
    return np.exp(-cdist(A, B, "cityblock") ** 2 / 0.5)


classifiers = {
    "k-NN": SimilarityKNeighborsClassifier(n_neighbors=7),
    "k-NN, KRI weights": SimilarityKNeighborsClassifier(n_neighbors=7, weights="kri"),
    "SVM, clip": SimilaritySVC(spectrum="clip", C=10.0),
    "SVM, flip": SimilaritySVC(spectrum="flip", C=10.0),
    "similarities as features": SimilarityFeatureSVC(C=10.0),
    "LP machine": LPMachine(C=10.0),
}
datasets = {
    "moons": make_moons(n_samples=150, noise=0.3, random_state=0),
    "circles": make_circles(n_samples=150, noise=0.15, factor=0.5, random_state=1),
}

# %%
# The training similarity is indefinite
# -------------------------------------

X, y = datasets["moons"]
eigenvalues = np.linalg.eigvalsh(similarity(X, X))
print(f"moons: {np.sum(eigenvalues < 0)} of {len(eigenvalues)} eigenvalues negative, "
      f"smallest {eigenvalues[0]:.3f}, largest {eigenvalues[-1]:.3f}")

# %%
# Decision regions
# ----------------
# Each classifier is fitted on the training similarities and predicts the grid
# from its similarities to the training points; nothing else of the points is
# used.

cmap = ListedColormap(["#f4a582", "#92c5de"])
points = ListedColormap(["#b2182b", "#2166ac"])
fig, axes = plt.subplots(len(datasets), len(classifiers),
                         figsize=(2.6 * len(classifiers), 2.7 * len(datasets)))
for row, (data_name, (X, y)) in enumerate(datasets.items()):
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=1 / 3,
                                                        stratify=y, random_state=0)
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    g0, g1 = np.meshgrid(np.linspace(lo[0], hi[0], 80), np.linspace(lo[1], hi[1], 80))
    grid = np.column_stack([g0.ravel(), g1.ravel()])
    S_train = similarity(X_train, X_train)
    S_grid = similarity(grid, X_train)
    S_test = similarity(X_test, X_train)
    for col, (name, model) in enumerate(classifiers.items()):
        ax = axes[row, col]
        model.fit(S_train, y_train)
        regions = model.predict(S_grid).reshape(g0.shape)
        accuracy = np.mean(model.predict(S_test) == y_test)
        ax.contourf(g0, g1, regions, levels=[-0.5, 0.5, 1.5], cmap=cmap, alpha=0.8)
        ax.scatter(X_train[:, 0], X_train[:, 1], c=y_train, cmap=points, s=10,
                   edgecolors="k", linewidths=0.3)
        ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test, cmap=points, s=10, alpha=0.4)
        ax.text(0.97, 0.03, f"{accuracy:.2f}", transform=ax.transAxes, ha="right",
                va="bottom", fontsize=10, bbox={"facecolor": "white", "alpha": 0.7})
        ax.set_xticks([])
        ax.set_yticks([])
        if row == 0:
            ax.set_title(name, fontsize=10)
        if col == 0:
            ax.set_ylabel(data_name)
        print(f"{data_name:8s} {name:26s} held-out accuracy {accuracy:.3f}")
fig.tight_layout()
