"""The ``loo`` protocol: leave-one-out class-probability quality of weighted k-NN.

Chen thesis section 4.6 (Tables 4.7 and 4.8): every sample is classified by
the other n - 1; the posteriors of the weighted k-NN methods are scored by
perplexity (lower is better) and normalised cross-entropy (NCE, higher is
better) with additive smoothing ``epsilon``, and the best value over the grids
``k in {1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256}`` (k < n) and,
for KRI, ``lambda in {1e-6, ..., 100}`` is reported.

Leaving sample i out of a k-NN classifier only removes i from the candidate
neighbours: the neighbour lists are computed once from the symmetrised matrix
with the diagonal excluded, and the local neighbour matrices never contain the
left-out sample. The NCE baseline of sample i is the class prior of the other
n - 1 samples.
"""

from __future__ import annotations

import numpy as np

from ...._validation import InvalidParameterError, check_labels, check_similarity
from ....metrics import normalized_cross_entropy, perplexity
from ..._methods import KRR_REG, _group_by_k, get_method

__all__ = ["LOO_K", "LOO_KRI_REG", "loo_grid", "loo_rows", "loo_study", "plot_perplexity_curves"]

#: Neighbourhood sizes of the leave-one-out tables (reference protocol).
LOO_K = [1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]
#: KRI regularisation grid of the leave-one-out tables.
LOO_KRI_REG = [float(10.0**e) for e in range(-6, 3)]


def loo_grid(method_name: str, n: int) -> list[dict]:
    """The leave-one-out grid of a k-NN method for a data set of n samples.

    Parameters
    ----------
    method_name : str
        ``"knn..."``; ``"knn-kri..."`` and ``"knn-krr..."`` add their ``reg``.
    n : int
        Number of samples (``n_neighbors < n``).

    Returns
    -------
    list of dict

    See Also
    --------
    loo_study : Evaluates the grid.

    Examples
    --------
    >>> from proxlearn.study import loo_grid
    >>> loo_grid("knn", 10)
    [{'n_neighbors': 1}, {'n_neighbors': 2}, {'n_neighbors': 4}, {'n_neighbors': 6}, {'n_neighbors': 8}]
    """
    ks = [k for k in LOO_K if k < n]
    if method_name.startswith("knn-kri"):
        return [{"n_neighbors": k, "reg": r} for k in ks for r in LOO_KRI_REG]
    if method_name.startswith("knn-krr"):
        return [{"n_neighbors": k, "reg": r} for k in ks for r in KRR_REG]
    return [{"n_neighbors": k} for k in ks]


def loo_study(datasets, methods, *, epsilon: float = 1e-4) -> dict:
    """Leave-one-out perplexity and NCE of k-NN methods.

    Returns
    -------
    dict
        ``{dataset: {method: {"perplexity", "perplexity_params", "nce",
        "nce_params", "curve": {"k": [...], "perplexity": [...]}}}}`` where the
        curve holds the best perplexity for each k (over the other parameters),
        as in the thesis's perplexity-versus-k figures.

    Parameters
    ----------
    datasets : sequence of SimilarityDataset
    methods : sequence of str
        k-NN method names (see :func:`loo_grid`).
    epsilon : float, default=1e-4
        Floor of the leave-one-out class probabilities.

    See Also
    --------
    loo_rows : The results beside the thesis's numbers.
    plot_perplexity_curves : The curves as a figure.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> from proxlearn.study import loo_study
    >>> r = loo_study([ds], ["knn"])[ds.name]["knn"]
    >>> round(r["perplexity"], 3), r["perplexity_params"]
    (1.204, {'n_neighbors': 8})
    """
    out: dict = {}
    for data in datasets:
        S = check_similarity(data.matrix, symmetric="symmetrize")
        y = np.asarray(data.labels)
        classes, y_idx = check_labels(y, S.shape[0])
        n = S.shape[0]
        onehot = np.eye(classes.size)[y_idx]
        prior = (onehot.sum(axis=0)[None, :] - onehot) / (n - 1)
        R = S.copy()
        np.fill_diagonal(R, -np.inf)  # a sample is never its own neighbour
        out[data.name] = {}
        for m in methods:
            if not m.startswith("knn"):
                raise InvalidParameterError(
                    f"the loo protocol scores k-NN posteriors; {m!r} is not a k-NN "
                    "method (use knn, knn-affinity, knn-kri, knn-krr, ...)."
                )
            grid = loo_grid(m, n)
            k_max = max(p["n_neighbors"] for p in grid)
            from ...._graph import top_k_similar

            nbrs, sims = top_k_similar(R, k_max)
            model = get_method(m).build(n_neighbors=k_max).fit(S, y)
            perp = np.empty(len(grid))
            nce = np.empty(len(grid))

            def score(g, P):
                perp[g] = perplexity(y, P, classes=classes, epsilon=epsilon)
                nce[g] = normalized_cross_entropy(
                    y, P, classes=classes, epsilon=epsilon, prior=prior
                )

            if model.weights in ("kri", "krr"):  # one local eigh per k for the reg grid
                for k, idx in _group_by_k(grid).items():
                    regs = [grid[g]["reg"] for g in idx]
                    probas = model.predict_proba_path(nbrs[:, :k], sims[:, :k], reg=regs)
                    for g, P in zip(idx, probas, strict=True):
                        score(g, P)
            else:
                for g, params in enumerate(grid):
                    k = params["n_neighbors"]
                    model.set_params(**params)
                    score(g, model.predict_proba_from_neighbors(nbrs[:, :k], sims[:, :k]))
            ks = sorted({p["n_neighbors"] for p in grid})
            curve = [
                float(min(perp[g] for g, p in enumerate(grid) if p["n_neighbors"] == k))
                for k in ks
            ]
            bp, bn = int(np.argmin(perp)), int(np.argmax(nce))
            out[data.name][m] = {
                "perplexity": float(perp[bp]),
                "perplexity_params": grid[bp],
                "nce": float(nce[bn]),
                "nce_params": grid[bn],
                "curve": {"k": ks, "perplexity": curve},
            }
    return out


def loo_rows(results: dict, targets) -> list[dict]:
    """Rows of ours vs the thesis's Tables 4.7 (perplexity) and 4.8 (NCE).

    Parameters
    ----------
    results : dict
        :func:`loo_study`'s output.
    targets : list of PaperValue
        The papers' numbers (:func:`load_targets`).

    Returns
    -------
    list of dict
        ``{dataset, method, perplexity, nce, paper_perplexity, paper_nce}``.

    See Also
    --------
    loo_study : Computes ``results``.

    Examples
    --------
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> from proxlearn.study import load_targets, loo_rows, loo_study
    >>> row = loo_rows(loo_study([ds], ["knn"]), load_targets())[0]
    >>> row["method"], row["paper_nce"]
    ('knn', None)
    """
    rows = []
    for ds, by_method in results.items():
        for m, r in by_method.items():
            row = {"dataset": ds, "method": m, "perplexity": r["perplexity"], "nce": r["nce"]}
            for metric in ("perplexity", "nce"):
                paper = [
                    t.mean
                    for t in targets
                    if t.protocol == "loo" and t.dataset == ds and t.method == m and t.metric == metric
                ]
                row[f"paper_{metric}"] = paper[0] if paper else None
            rows.append(row)
    return rows


def plot_perplexity_curves(results: dict, path) -> None:
    """Perplexity versus k per data set, one line per method (thesis Figs. 4.6-4.8).

    Parameters
    ----------
    results : dict
        :func:`loo_study`'s output.
    path : str or Path
        The image file written.

    See Also
    --------
    loo_study : Computes ``results``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from proxlearn.datasets import make_gu_guo_synthetic
    >>> ds = make_gu_guo_synthetic(2.0, 20.0, n_per_class=10)
    >>> from proxlearn.study import loo_study, plot_perplexity_curves
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     plot_perplexity_curves(loo_study([ds], ["knn"]), Path(tmp) / "loo.png")
    ...     (Path(tmp) / "loo.png").stat().st_size > 0
    True
    """
    from matplotlib.figure import Figure

    names = list(results)
    fig = Figure(figsize=(4.5 * len(names), 3.6))
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    for ax, ds in zip(axes, names, strict=True):
        for m, r in results[ds].items():
            ax.plot(r["curve"]["k"], r["curve"]["perplexity"], marker="o", ms=3, label=m)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("k")
        ax.set_ylabel("leave-one-out perplexity")
        ax.set_title(ds)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
