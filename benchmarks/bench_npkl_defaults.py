"""SimpleNPKL + KernelKMeans at its defaults against k-means, on real feature sets (issue 40).

Per data set and constraint ratio ``r`` in {0.1, 0.3, 0.7}: ``--draws`` constraint
sets from :func:`proxlearn.cluster.make_pairwise_constraints` (``random_state`` =
draw), features z-scored (scikit-learn's ``StandardScaler``), the learned kernel
clustered by ``KernelKMeans(n_classes, random_state=draw)``; the baseline is
scikit-learn's ``KMeans(n_classes, n_init=10, random_state=draw)`` on the same
features. Score: Rand index x 100 (the thesis's clustering accuracy); mean and
standard error over the draws. Verdict per row: better / tied (within 2 standard
errors of the difference) / worse.

Configurations (``--configs``): named ``SimpleNPKL`` parameter sets, e.g.
``default`` (the estimator's current defaults), ``text`` (eq. 3.3's normalised
Laplacian, the thesis's literal reading, at the default ``C = 1``), ``text-C0.3``
(the same Laplacian at ``C = 0.3``) and a grid over the Laplacian, ``C`` and
the loss (``--grid``).

Data: iris, wine, breast cancer (scikit-learn's 569 x 30), digits (a stratified
500-point subset of scikit-learn's digits, 10 classes), heart, sonar, ionosphere
(the UCI copies under ``$PROXLEARN_DATA``, e.g. /work/shared/data).

``--embeddings``: MVE and SPE at their defaults against kernel PCA (linear KPCA =
PCA of the same z-scored features) on the same sets: leave-one-out 1-NN accuracy in
2-D and trustworthiness (5 neighbours); then MVE on raw Wine with ``scale="auto"``
(the default) against ``scale=None`` (the input's units, the behaviour before
issue 40), CPU seconds, alternating, medians of ``--repeats``.

Run: ``PROXLEARN_DATA=/work/shared/data OMP_NUM_THREADS=1 python
benchmarks/bench_npkl_defaults.py [--draws 5] [--grid] [--out results.json]
[--embeddings [--repeats 3]]``.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.preprocessing import StandardScaler

from proxlearn.cluster import KernelKMeans, SimpleNPKL, make_pairwise_constraints, rand_index
from proxlearn.datasets import load_feature_dataset

DATASETS = ("iris", "wine", "breast_cancer", "digits500", "heart", "sonar", "ionosphere")
RATIOS = (0.1, 0.3, 0.7)
CONFIGS = {
    "default": {},
    "text": {"laplacian": "normalized"},
    "text-C0.3": {"laplacian": "normalized", "C": 0.3},
}


def load(name):
    if name == "iris":
        X, y = load_iris(return_X_y=True)
    elif name == "wine":
        X, y = load_wine(return_X_y=True)
    elif name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    elif name == "digits500":
        X, y = load_digits(return_X_y=True)
        rng = np.random.default_rng(0)
        idx = np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), 50, replace=False)
                                      for c in range(10)]))
        X, y = X[idx], y[idx]
    else:
        ds = load_feature_dataset(name)
        X, y = ds.X, ds.labels
    X = StandardScaler().fit_transform(np.asarray(X, dtype=float))
    return X, np.unique(y, return_inverse=True)[1]


def grid_configs():
    out = {}
    for lap in ("normalized", "unnormalized"):
        for C in (0.03, 0.1, 0.3, 1.0, 3.0):
            for loss in ("square-hinge", "linear"):
                out[f"{lap[:4]}-C{C:g}-{loss[:3]}"] = {"laplacian": lap, "C": C, "loss": loss}
    return out


def run(datasets, ratios, draws, configs):
    rows = []
    for name in datasets:
        X, y = load(name)
        c = int(y.max()) + 1
        for r in ratios:
            scores = {k: [] for k in ["k-means", *configs]}
            secs = {k: [] for k in configs}
            n_pairs = []
            for d in range(draws):
                pc = make_pairwise_constraints(y, r=r, random_state=d)
                n_pairs.append(len(pc))
                scores["k-means"].append(
                    rand_index(y, KMeans(c, n_init=10, random_state=d).fit_predict(X)))
                for key, kw in configs.items():
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        K = SimpleNPKL(**kw).fit_transform(X, pc)
                    secs[key].append(time.perf_counter() - t0)
                    lab = KernelKMeans(c, random_state=d).fit_predict(K)
                    scores[key].append(rand_index(y, lab))
            row = {"dataset": name, "n": int(X.shape[0]), "r": r,
                   "pairs": float(np.mean(n_pairs)), "draws": draws}
            km = np.asarray(scores["k-means"])
            for key, v in scores.items():
                v = np.asarray(v)
                se = float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0
                row[key] = (float(v.mean()), se)
                if key != "k-means":
                    diff = v - km
                    dse = float(diff.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0
                    md = float(diff.mean())
                    row[key + ":verdict"] = ("tied" if abs(md) <= 2 * dse else
                                             "better" if md > 0 else "worse")
                    row[key + ":seconds"] = float(np.median(secs[key]))
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def embeddings(datasets, repeats=3):
    from sklearn.decomposition import PCA
    from sklearn.manifold import trustworthiness
    from sklearn.model_selection import LeaveOneOut, cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    from _timing import timed_alternating
    from proxlearn.manifold import MVE, SPE

    print("| data | n | KPCA | MVE | SPE | MVE steps | MVE warnings |")
    for name in datasets:
        X, y = load(name)

        def quality(E, X=X, y=y):
            acc = cross_val_score(KNeighborsClassifier(1), E, y, cv=LeaveOneOut()).mean()
            return f"{100 * acc:.1f} / {trustworthiness(X, E, n_neighbors=5):.3f}"

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mve = MVE().fit(X)
        spe = SPE().fit(X)
        print(f"| {name} | {X.shape[0]} | {quality(PCA(2).fit_transform(X))} | "
              f"{quality(mve.embedding_)} | {quality(spe.embedding_)} | {mve.n_iter_} | "
              f"{len(w)} |", flush=True)
    X, _ = load_wine(return_X_y=True)  # raw units

    def fit(**kw):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = MVE(**kw).fit(X)
        return m.n_inner_iter_, len(w)

    arms = {"default": {}, "before issue 40 (scale=None, max_outer_iter=20)":
            {"scale": None, "max_outer_iter": 20}}
    t, out = timed_alternating({k: (lambda kw=kw: fit(**kw)) for k, kw in arms.items()},
                               repeats, clock=time.process_time)
    for k in t:
        print(f"raw wine, MVE {k}: {t[k]:.3f} s CPU, {out[k][0]} gradient steps, "
              f"{out[k][1]} warnings")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    ap.add_argument("--ratios", nargs="*", type=float, default=list(RATIOS))
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--embeddings", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    if a.embeddings:
        embeddings(a.datasets, a.repeats)
        return
    configs = grid_configs() if a.grid else CONFIGS
    rows = run(a.datasets, a.ratios, a.draws, configs)
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(rows, fh, indent=1)
    keys = ["k-means", *configs]
    print("| data | r | pairs | " + " | ".join(keys) + " |")
    for row in rows:
        cells = []
        for k in keys:
            m, s = row[k]
            v = row.get(k + ":verdict", "")
            cells.append(f"{m:.1f} ± {s:.1f}" + (f" ({v})" if v else ""))
        print(f"| {row['dataset']} | {row['r']:g} | {row['pairs']:.0f} | " + " | ".join(cells)
              + " |")


if __name__ == "__main__":
    main()
