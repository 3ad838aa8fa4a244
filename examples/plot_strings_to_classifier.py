"""
Raw strings in, a cross-validated classifier out: the exact and the Nystroem route
==================================================================================

The objects are protein-like strings from
:func:`proxlearn.datasets.make_mutated_strings` (5 random prototypes of length
20-60, each object its class's prototype after random substitutions, insertions
and deletions). The similarity is the normalised Smith-Waterman score
``s(a, b) / sqrt(s(a, a) s(b, b))`` (BLOSUM62, gaps 11/1, parasail), which is
indefinite. Both routes are scored by the same stratified 5-fold cross-validation:

* **exact**: the ``n x n`` matrix is built once by
  :func:`proxlearn.pairwise.pairwise_similarity`, and
  :class:`proxlearn.svm.SimilaritySVC` (clip the spectrum, SVM on the clipped
  kernel) is cross-validated on it (the pairwise tag slices training rows and
  columns, and test-to-train rows);
* **Nystroem**: only the ``n x m`` similarities of all objects to ``m`` random
  landmark objects are computed (once). In every fold the landmarks that are
  training objects (about ``0.8 m``) are used:
  :class:`proxlearn.kernel_approximation.NystroemSpectrum` clips the spectrum of
  the approximation at linear cost and :class:`sklearn.svm.LinearSVC` trains on
  its features; test objects enter only through their similarities to those
  landmarks (no test label and no test-to-test similarity is used).

Here: 1,000 strings through both routes, the Nystroem route with 25 to 200
landmarks, and the Nystroem route alone on 5,000 strings (the exact route
would compute 12.5 million similarities there; benchmarks/bench_strings_pipeline.py
runs the Nystroem pipeline on 100,000 strings).

From the command line, ``python examples/plot_strings_to_classifier.py [--n 1000]
[--m 100] [--mutation-rate 0.5]`` prints, for both routes, the accuracy (mean
+- standard deviation over the folds), the number of similarities computed and
the wall times.
"""

import argparse
import sys
import time

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import LinearSVC

from proxlearn.datasets import make_mutated_strings
from proxlearn.kernel_approximation import NystroemSpectrum
from proxlearn.pairwise import pairwise_similarity
from proxlearn.svm import SimilaritySVC

METRIC = "smith-waterman-normalized"


def exact_route(X, y, cv):
    """Full matrix, then SimilaritySVC(clip) cross-validated on it."""
    t0 = time.perf_counter()
    S = pairwise_similarity(X, metric=METRIC)
    t_build = time.perf_counter() - t0
    scores = cross_val_score(SimilaritySVC(spectrum="clip", C=10.0), S, y, cv=cv)
    n = len(X)
    return {"accuracy": scores, "similarities": n * (n + 1) // 2, "build_s": t_build,
            "total_s": time.perf_counter() - t0}


def nystroem_route(X, y, cv, m, seed):
    """Similarities of all objects to m landmarks only (computed once); per fold the
    landmarks that are training objects, NystroemSpectrum(clip) + LinearSVC."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    pool = np.sort(rng.choice(len(X), size=m, replace=False))
    C = pairwise_similarity(X, [X[i] for i in pool], metric=METRIC)  # n x m, all we compute
    t_build = time.perf_counter() - t0
    scores = []
    for tr, te in cv.split(X, y):  # tr is sorted
        cols = np.flatnonzero(np.isin(pool, tr))  # landmarks of this fold: training objects
        ny = NystroemSpectrum("clip", landmarks=np.searchsorted(tr, pool[cols]))
        Phi = ny.fit_transform(C[np.ix_(tr, cols)])  # test rows and labels unused
        clf = LinearSVC(C=1.0, max_iter=20_000).fit(Phi, y[tr])
        scores.append(float(np.mean(clf.predict(ny.transform(C[np.ix_(te, cols)])) == y[te])))
    return {"accuracy": np.array(scores), "similarities": C.size, "build_s": t_build,
            "total_s": time.perf_counter() - t0}


def main(argv=None):
    """The command line: both routes on ``--n`` strings; prints and returns their results."""
    p = argparse.ArgumentParser(description="Raw strings in, a cross-validated classifier "
                                "out: the exact and the Nystroem route.")
    p.add_argument("--n", type=int, default=1000, help="number of strings")
    p.add_argument("--m", type=int, default=100, help="landmarks of the Nystroem route")
    p.add_argument("--classes", type=int, default=5)
    p.add_argument("--mutation-rate", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    X, y = make_mutated_strings(a.n, n_classes=a.classes, mutation_rate=a.mutation_rate,
                                random_state=a.seed)
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=a.seed)
    results = {"exact": exact_route(X, y, cv), "nystroem": nystroem_route(X, y, cv, a.m, a.seed)}
    print(f"{a.n} mutated strings, {a.classes} classes, mutation rate {a.mutation_rate}, "
          f"{METRIC}; stratified 5-fold CV")
    for name, r in results.items():
        acc = r["accuracy"]
        print(f"{name:9s} accuracy {acc.mean():.3f} +- {acc.std():.3f}   "
              f"similarities computed {r['similarities']:>9,}   build {r['build_s']:.2f} s, "
              f"total {r['total_s']:.2f} s")
    return results


# sphinx_gallery_start_ignore
if __name__ == "__main__" and sys.argv[1:]:  # the command line, with options
    main()
    sys.exit()
# sphinx_gallery_end_ignore

# %%
# The strings
# -----------
# Five random prototypes; every object is its class's prototype after random
# substitutions, insertions and deletions (as many as the prototype has
# letters, ``mutation_rate=1.0``: a hard setting, where the routes differ).

X, y = make_mutated_strings(1000, n_classes=5, mutation_rate=1.0, random_state=0)
for c in range(3):
    print(f"class {c}: {X[np.flatnonzero(y == c)[0]]}")
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)

# %%
# The exact route
# ---------------
# The normalised Smith-Waterman similarity is indefinite: its spectrum has
# negative eigenvalues, which :class:`~proxlearn.svm.SimilaritySVC` clips.

exact = exact_route(X, y, cv)
S = pairwise_similarity(X[:300], metric=METRIC)
eigenvalues = np.linalg.eigvalsh((S + S.T) / 2)[::-1]
fig, ax = plt.subplots(figsize=(6.5, 3.2))
ax.plot(eigenvalues, "k.", ms=3)
ax.axhline(0, color="grey", lw=0.5)
ax.set_yscale("symlog", linthresh=1e-2)
ax.set(xlabel="eigenvalue index (decreasing)", ylabel="eigenvalue",
       title=f"Spectrum of the first 300 strings: {np.sum(eigenvalues < 0)} negative")
fig.tight_layout()
print(f"exact route: accuracy {exact['accuracy'].mean():.3f} +- {exact['accuracy'].std():.3f}, "
      f"{exact['similarities']:,} similarities")

# %%
# The Nystroem route, with more and more landmarks
# ------------------------------------------------
# The accuracy of the landmark route against the number of similarities it
# computed; the exact route computed ``n (n + 1) / 2`` of them.

landmarks = (25, 50, 100, 200)
nystroem = {m: nystroem_route(X, y, cv, m, seed=0) for m in landmarks}
fig, ax = plt.subplots(figsize=(6.5, 3.6))
ax.errorbar([nystroem[m]["similarities"] for m in landmarks],
            [nystroem[m]["accuracy"].mean() for m in landmarks],
            yerr=[nystroem[m]["accuracy"].std() for m in landmarks],
            marker="o", capsize=3, label="Nystroem route (m = 25, 50, 100, 200)")
ax.errorbar([exact["similarities"]], [exact["accuracy"].mean()],
            yerr=[exact["accuracy"].std()], marker="s", color="k", capsize=3,
            label="exact route")
ax.set_xscale("log")
ticks = [nystroem[m]["similarities"] for m in landmarks] + [exact["similarities"]]
ax.set_xticks(ticks, [f"{t:,}" for t in ticks], fontsize=8)
ax.xaxis.set_minor_formatter(NullFormatter())
ax.set(xlabel="similarities computed", ylabel="5-fold CV accuracy",
       title="1,000 strings, 5 classes, mutation rate 1")
ax.legend(loc="lower right")
fig.tight_layout()

# %%
# Five times more strings
# -----------------------
# The Nystroem route on 5,000 strings with 200 landmarks computes a million
# similarities, an eighth of what the exact route would need.

X_big, y_big = make_mutated_strings(5_000, n_classes=5, mutation_rate=1.0, random_state=1)
big = nystroem_route(X_big, y_big, cv, 200, seed=1)
print(f"5,000 strings, Nystroem route (m = 200): accuracy {big['accuracy'].mean():.3f} "
      f"+- {big['accuracy'].std():.3f}, {big['similarities']:,} similarities, "
      f"{big['total_s']:.1f} s")
