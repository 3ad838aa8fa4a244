"""Pictures of similarity data sets.

:func:`plot_dataset` draws the two views Chen's thesis (2010, Figures
4.1-4.5) uses to introduce each benchmark: the similarity matrix with the
samples grouped by class, and its eigenvalue spectrum.

Matplotlib is imported lazily and only its object-oriented API (``Figure`` +
the Agg canvas) is used, so no GUI backend or global pyplot state is touched.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["plot_dataset"]


def plot_dataset(dataset, path=None, *, dpi=110):
    """Similarity matrix ordered by class, next to its eigenvalue spectrum.

    Left: ``S`` with rows and columns sorted by class (stable, so the original
    order is kept within a class), class boundaries drawn as lines and class
    names at the block centres. Right: the eigenvalues of the symmetric part
    ``(S + S^T) / 2`` in decreasing order, negative ones in red, with a zero
    line (Chen thesis, Figs. 4.1-4.5).

    Parameters
    ----------
    dataset : proxlearn.datasets.SimilarityDataset
    path : str or Path, optional
        Where to save the figure (format from the suffix, e.g. ``.png``).
    dpi : int

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    proxlearn.datasets.describe : The numbers behind the spectrum panel.

    Examples
    --------
    >>> from proxlearn.datasets import load_dataset
    >>> from proxlearn.plotting import plot_dataset
    >>> fig = plot_dataset(load_dataset("synthetic-2"))
    >>> [ax.get_title() != "" for ax in fig.axes[:2]]
    [True, True]
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from .datasets._base import EIGENVALUE_RTOL, spectrum

    S = dataset.matrix
    labels = dataset.labels if dataset.labels is not None else np.zeros(dataset.n)
    classes, y_idx = np.unique(labels, return_inverse=True)
    order = np.argsort(y_idx, kind="stable")
    S_ord = S[np.ix_(order, order)]
    counts = np.bincount(y_idx.ravel(), minlength=len(classes))
    bounds = np.cumsum(counts)[:-1] - 0.5
    centres = np.cumsum(counts) - counts / 2.0 - 0.5

    fig = Figure(figsize=(11, 4.6), dpi=dpi)
    FigureCanvasAgg(fig)
    ax_m, ax_s = fig.subplots(1, 2, width_ratios=[1, 1.25])
    fig.subplots_adjust(left=0.04, right=0.98, bottom=0.12, top=0.86, wspace=0.22)

    im = ax_m.imshow(S_ord, cmap="viridis", interpolation="nearest")
    for b in bounds:
        ax_m.axhline(b, color="white", lw=1.0)
        ax_m.axvline(b, color="white", lw=1.0)
    names = list(dataset.class_names) or ["(no labels)"]
    if len(names) <= 20:
        ax_m.set_xticks(centres, names, rotation=90 if len(names) > 6 else 0)
        ax_m.set_yticks(centres, names)
    ax_m.set_title(f"{dataset.kind} matrix, ordered by class")
    fig.colorbar(im, ax=ax_m, shrink=0.9, pad=0.03)

    w = spectrum(S)[::-1]
    tol = EIGENVALUE_RTOL * np.max(np.abs(w))
    k = np.arange(1, w.size + 1)
    neg = w < -tol
    ax_s.plot(k, w, color="0.6", lw=0.8, zorder=1)
    ax_s.scatter(k[~neg], w[~neg], s=8, color="tab:blue", label=r"$\lambda \geq 0$", zorder=2)
    ax_s.scatter(k[neg], w[neg], s=10, color="tab:red",
                 label=f"$\\lambda < 0$ ({int(neg.sum())})", zorder=3)
    ax_s.axhline(0.0, color="black", lw=0.8)
    lo, hi = float(w.min()), float(w.max())
    ax_s.set_ylabel(r"eigenvalue of $(S + S^\top)/2$")
    if lo < 0 < hi and hi / max(-lo, 1e-300) > 50:  # tiny negative tail: symlog
        ax_s.set_yscale("symlog", linthresh=max(-lo, hi * 1e-3) / 10)
        ax_s.set_ylim(1.6 * lo, 1.6 * hi)
        ax_s.set_ylabel(r"eigenvalue of $(S + S^\top)/2$ (symlog scale)")
    ax_s.set_xlabel("eigenvalue index (decreasing)")
    ax_s.set_title(f"spectrum: $\\lambda_{{min}}$ = {lo:.3g}, $\\lambda_{{max}}$ = {hi:.3g}")
    ax_s.legend(loc="upper right")
    ax_s.grid(alpha=0.3)
    n_cls = f"{len(classes)} classes" if dataset.labels is not None else "no labels"
    fig.suptitle(f"{dataset.name}  (n = {dataset.n}, {n_cls})")
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path)
    return fig
