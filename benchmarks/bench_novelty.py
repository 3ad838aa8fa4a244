"""Benchmark: novelty detection on similarities (issue 37, item 2).

``--auc`` (default): on every real similarity set of ``proxlearn.datasets``,
each class in turn is the inlier class and the others are outliers. A split
holds out 30% of the samples (stratified by class); the detector is fitted on
the inliers of the other 70% only and scores the held-out samples (held-out
inliers against all held-out outliers); the ROC AUC of a split is the mean over
the inlier classes. Five random splits; mean +- standard error. Methods at
their defaults:

* ``ocsvm`` = ``SimilarityOneClassSVM()`` (shift, whose consistent test rows
  are the rows as given; nu=0.5), and its variants ``clip``, ``flip``, ``none``,
  ``square`` (each with its consistent test map), ``clip-raw`` (clip, test rows
  not mapped), ``shift-linear`` (shift with Gu & Guo's exact test map), ``nu0.1``
  (shift, nu=0.1);
* ``sk-ocsvm``: scikit-learn's ``OneClassSVM(kernel="precomputed")`` fitted by
  hand on the clipped training matrix, test rows as given (what a user of
  scikit-learn does);
* ``lof`` = ``SimilarityLocalOutlierFactor(novelty=True)`` (n_neighbors=20);
* ``sk-lof``: ``LocalOutlierFactor(metric="precomputed", novelty=True)`` by hand
  on ``d = sqrt(max(s_ii + s_jj - 2 s_ij, 0))`` (test self-similarity: the
  training diagonal's mean); ``sk-lof-maxminus`` on ``d = max(S) - s`` (test
  entries clipped at 0), the other conversion a user might take.

``--timing``: fit time at ``n`` (default 2000) of ``SimilarityOneClassSVM()``
(spectrum correction included: the default shift needs the eigenvalues only)
and ``SimilarityOneClassSVM(spectrum="clip")`` against
``OneClassSVM(kernel="precomputed")`` on the already corrected matrix (and the
correction, ``SpectrumTransformer.fit``, alone), and of
``SimilarityLocalOutlierFactor`` against ``LocalOutlierFactor(metric="precomputed")``
on the already derived distances; process CPU time, one BLAS thread, alternating,
medians of ``--repeats``.

Usage: python benchmarks/bench_novelty.py [--auc] [--timing] [--datasets a b] [--splits 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.neighbors import LocalOutlierFactor
from sklearn.svm import OneClassSVM
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import timed_alternating  # noqa: E402

from proxlearn.datasets import load_dataset  # noqa: E402
from proxlearn.neighbors import SimilarityLocalOutlierFactor, similarity_distances  # noqa: E402
from proxlearn.svm import SimilarityOneClassSVM  # noqa: E402
from proxlearn.transforms import SpectrumTransformer  # noqa: E402

#: The real similarity sets (the synthetic Gu & Guo sets and the stacks left out;
#: protein-2 and protein-rbf-sq are parts / variants of protein and protein-rbf).
DATASETS = ("aural_sonar", "protein", "voting", "protein-rbf", "digits-idm", "digits-rbf",
            "digits-hog", "wine-sigmoid", "sonar-noisy", "liver-noisy", "ionosphere-noisy",
            "diabetes-noisy", "heart-noisy")


def _ours(**params):
    def run(S_tr, S_te):
        return SimilarityOneClassSVM(**params).fit(S_tr).decision_function(S_te)
    return run


def _sk_ocsvm(S_tr, S_te):
    K = SpectrumTransformer("clip").fit_transform(S_tr)
    return OneClassSVM(kernel="precomputed").fit(K).decision_function(S_te)


def _lof(S_tr, S_te):
    return SimilarityLocalOutlierFactor(novelty=True).fit(S_tr).decision_function(S_te)


def _sk_lof(S_tr, S_te):
    d = np.diag(S_tr)
    D = similarity_distances(S_tr, d, d)
    D_te = similarity_distances(S_te, np.full(len(S_te), d.mean()), d)
    lof = LocalOutlierFactor(metric="precomputed", novelty=True).fit(D)
    return lof.decision_function(D_te)


def _sk_lof_maxminus(S_tr, S_te):
    top = S_tr.max()
    D, D_te = top - S_tr, np.maximum(top - S_te, 0.0)
    np.fill_diagonal(D, 0.0)
    lof = LocalOutlierFactor(metric="precomputed", novelty=True).fit(D)
    return lof.decision_function(D_te)


METHODS = {
    "ocsvm": _ours(),
    "clip": _ours(spectrum="clip"),
    "flip": _ours(spectrum="flip"),
    "none": _ours(spectrum="none"),
    "square": _ours(spectrum="square"),
    "clip-raw": _ours(spectrum="clip", test_transform="raw"),
    "shift-linear": _ours(test_transform="linear"),
    "nu0.1": _ours(nu=0.1),
    "sk-ocsvm": _sk_ocsvm,
    "lof": _lof,
    "sk-lof": _sk_lof,
    "sk-lof-maxminus": _sk_lof_maxminus,
}


def split_aucs(S, y, methods, n_splits=5, seed=0):
    """``{method: [AUC of each split]}`` (mean over inlier classes per split): the
    protocol of the reproduction report's section ``beyond-novelty``
    (``proxlearn.study.papers.beyond._scoring.one_class_aucs``)."""
    from proxlearn.study.papers.beyond._scoring import one_class_aucs

    return {m: one_class_aucs(S, y, METHODS[m], n_splits, seed) for m in methods}


#: Paired comparisons printed under the table: (ours, against).
PAIRS = (("ocsvm", "sk-ocsvm"), ("ocsvm", "clip"), ("lof", "sk-lof"), ("ocsvm", "lof"))


def run_auc(datasets, methods, n_splits):
    from scipy.stats import ttest_rel

    cols = " | ".join(methods)
    print(f"| data set | n | classes | {cols} |")
    print("|---|---|---|" + "---|" * len(methods))
    means = {m: [] for m in methods}
    results = {}
    for name in datasets:
        data = load_dataset(name)
        S, y = np.asarray(data.matrix, dtype=float), np.asarray(data.labels)
        res = results[name] = split_aucs(S, y, methods, n_splits)
        cells = []
        for m in methods:
            a = np.asarray(res[m])
            means[m].append(a.mean())
            cells.append(f"{a.mean():.3f} +- {a.std(ddof=1) / np.sqrt(a.size):.3f}")
        print(f"| {name} | {len(y)} | {len(np.unique(y))} | " + " | ".join(cells) + " |",
              flush=True)
    print("| mean over sets | | | " + " | ".join(f"{np.mean(means[m]):.3f}" for m in methods)
          + " |")
    # paired over the splits (the same splits for every method): difference, paired t-test
    pairs = [(a, b) for a, b in PAIRS if a in methods and b in methods]
    if not pairs:
        return
    print()
    print("| data set | " + " | ".join(f"{a} - {b} (p)" for a, b in pairs) + " |")
    print("|---|" + "---|" * len(pairs))
    tally = {p: [0, 0, 0] for p in pairs}  # better, tied, worse at p < 0.05
    for name, res in results.items():
        cells = []
        for a, b in pairs:
            d = np.asarray(res[a]) - np.asarray(res[b])
            p = 1.0 if np.allclose(d, 0) else float(ttest_rel(res[a], res[b]).pvalue)
            tally[a, b][0 if (p < 0.05 and d.mean() > 0) else 2 if p < 0.05 else 1] += 1
            cells.append(f"{d.mean():+.3f} ({p:.2g})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| better / tied / worse (p < 0.05) | "
          + " | ".join("/".join(map(str, tally[p])) for p in pairs) + " |")


def timing_problem(n, seed=0):
    """An indefinite similarity of ``n`` points: linear kernel of 5-D Gaussian points plus
    symmetric noise (as benchmarks/bench_similarity_svc.py)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    Z = rng.normal(size=(n, n))
    return X @ X.T + (Z + Z.T) / 2


def run_timing(n, repeats):
    S = timing_problem(n)
    d = np.diag(S)
    D = similarity_distances(S, d, d)
    fns, refs = {}, {}
    for spectrum in ("shift", "clip"):
        ours = SimilarityOneClassSVM(spectrum=spectrum).fit(S)
        K = ours.transformer_._training_kernel()  # the corrected matrix libsvm is given
        refs[spectrum] = K
        fns[f"ours({spectrum})"] = (lambda sp: lambda: SimilarityOneClassSVM(spectrum=sp).fit(S))(
            spectrum)
        fns[f"sklearn(K_{spectrum})"] = (lambda K: lambda: OneClassSVM(
            kernel="precomputed").fit(K))(K)
    for spectrum in ("shift", "clip"):  # the correction alone (what sklearn's number leaves out)
        fns[f"correction({spectrum})"] = (lambda sp: lambda: SpectrumTransformer(sp).fit(S))(
            spectrum)
    fns["ours(LOF)"] = lambda: SimilarityLocalOutlierFactor(novelty=True).fit(S)
    fns["sklearn(LOF on D)"] = lambda: LocalOutlierFactor(metric="precomputed",
                                                          novelty=True).fit(D)
    t, out = timed_alternating(fns, repeats, clock=time.process_time)
    for k, v in t.items():
        print(f"n={n} {k:22s} {v:.3f} s (process CPU, median of {repeats})")
    for spectrum in ("shift", "clip"):
        a = out[f"ours({spectrum})"].ocsvm_.decision_function(refs[spectrum])
        b = out[f"sklearn(K_{spectrum})"].decision_function(refs[spectrum])
        gap = np.max(np.abs(a - b)) / np.max(np.abs(b))
        rest = t[f"ours({spectrum})"] - t[f"correction({spectrum})"]
        ratio = t[f"ours({spectrum})"] / t[f"sklearn(K_{spectrum})"]
        print(f"{spectrum}: ours/sklearn {ratio:.2f}"
              f", without the correction {rest / t[f'sklearn(K_{spectrum})']:.2f}"
              f" (training decision values agree to {gap:.1e} relative)")
    print(f"LOF: ours/sklearn {t['ours(LOF)'] / t['sklearn(LOF on D)']:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--auc", action="store_true")
    ap.add_argument("--timing", action="store_true")
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    ap.add_argument("--methods", nargs="*", default=list(METHODS))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with threadpool_limits(1):
        if args.auc or not args.timing:
            run_auc(args.datasets, args.methods, args.splits)
        if args.timing:
            run_timing(args.n, args.repeats)


if __name__ == "__main__":
    main()
