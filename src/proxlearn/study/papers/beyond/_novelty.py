"""Section ``beyond-novelty``: the one-class models on similarities against scikit-learn's
``OneClassSVM`` run by hand on the clipped matrix, ROC AUC of one class against the rest
(:func:`~proxlearn.study.papers.beyond._scoring.one_class_aucs`).

=====================  ==========================================================
method                 what (each at its defaults)
=====================  ==========================================================
``ocsvm``              ``svm.SimilarityOneClassSVM()``: shift, ``nu=0.5``, consistent
                       test rows (for shift: the rows as given)
``ocsvm-clip``         ``svm.SimilarityOneClassSVM(spectrum="clip")``
``lof``                ``neighbors.SimilarityLocalOutlierFactor(novelty=True)``
``simple-mkl-ocsvm``   ``mkl.SimpleMKLOneClass()`` on the data set's stack
                       (digits-idm: digits-multi; protein: protein-multi)
``sk-ocsvm-clip``      by hand: ``SpectrumTransformer("clip").fit_transform`` of the
                       training block, scikit-learn's
                       ``OneClassSVM(kernel="precomputed")``, test rows as given
``sk-lof``             by hand: scikit-learn's ``LocalOutlierFactor(metric=
                       "precomputed", novelty=True)`` on the distances ``sqrt(max(s_ii
                       + s_jj - 2 s_ij, 0))`` (test self-similarity: the training
                       diagonal's mean)
=====================  ==========================================================
"""

from __future__ import annotations

import numpy as np

__all__ = ["NOVELTY_METHODS", "STACKS", "novelty_method"]

#: Table order.
NOVELTY_METHODS = ("ocsvm", "ocsvm-clip", "lof", "simple-mkl-ocsvm", "sk-ocsvm-clip", "sk-lof")
#: The stack over the same objects (first matrix: the data set) for the MKL rows.
STACKS = {"digits-idm": "digits-multi", "protein": "protein-multi"}
STACK_METHODS = ("simple-mkl-ocsvm",)


def novelty_method(name):
    """``score(S_inliers, S_test) -> scores`` (larger: more normal) of a method."""
    from sklearn.neighbors import LocalOutlierFactor
    from sklearn.svm import OneClassSVM

    from ....mkl import SimpleMKLOneClass
    from ....neighbors import SimilarityLocalOutlierFactor, similarity_distances
    from ....svm import SimilarityOneClassSVM
    from ....transforms import SpectrumTransformer

    def ours(make):
        return lambda S_tr, S_te: make().fit(S_tr).decision_function(S_te)

    def sk_ocsvm(S_tr, S_te):
        K = SpectrumTransformer("clip").fit_transform(S_tr)
        return OneClassSVM(kernel="precomputed").fit(K).decision_function(S_te)

    def sk_lof(S_tr, S_te):
        d = np.diag(S_tr)
        D = similarity_distances(S_tr, d, d)
        D_te = similarity_distances(S_te, np.full(len(S_te), d.mean()), d)
        return LocalOutlierFactor(metric="precomputed", novelty=True).fit(D).decision_function(D_te)

    return {
        "ocsvm": ours(SimilarityOneClassSVM),
        "ocsvm-clip": ours(lambda: SimilarityOneClassSVM(spectrum="clip")),
        "lof": ours(lambda: SimilarityLocalOutlierFactor(novelty=True)),
        "simple-mkl-ocsvm": ours(SimpleMKLOneClass),
        "sk-ocsvm-clip": sk_ocsvm,
        "sk-lof": sk_lof,
    }[name]


def run_novelty(sec, *, splits, jobs, cache_dir, seed, data_home, progress):
    """The section's runner: every (data set, method) over the partitions, cached."""
    from ..._section import _load
    from ._scoring import one_class_aucs, run_cells

    n_splits = splits or 5
    datasets, missing = _load(sec.datasets, data_home)
    cells = []
    for data in datasets:
        y = np.asarray(data.labels)
        for m in sec.methods:
            if m in STACK_METHODS:
                if data.name not in STACKS:
                    continue
                stack, _ = _load([STACKS[data.name]], data_home)
                if not stack or not np.array_equal(np.asarray(stack[0].labels), y):
                    continue
                S = np.asarray(stack[0].matrix, dtype=float)
            else:
                S = np.asarray(data.matrix, dtype=float)
            cells.append((data.name, m, (S, y.astype(str)),
                          lambda S=S, y=y, m=m: one_class_aucs(S, y, novelty_method(m),
                                                               n_splits, seed)))
    out = run_cells(sec, cells, "auc", n_splits, seed, cache_dir, progress)
    out["missing_data"] = missing
    return out
