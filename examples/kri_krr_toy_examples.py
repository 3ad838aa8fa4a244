"""KRI and KRR weights on the toy examples of Chen et al. (2009), section 5.2.2.
=============================================================================

Reproduces Examples 1-3 (k = 4 neighbours; Chen 2010 thesis section 3.2.2):

* Example 1 (affinity): ``s = [4, 3, 2, 1]``, ``S = 5 I``. The neighbours are
  equally dissimilar to each other, so the weights follow the similarity to
  the test sample.
* Example 2 (diversity): ``s = [3, 3, 3, 3]``,
  ``S = [[5,1,1,1],[1,5,4,2],[1,4,5,2],[1,2,2,5]]``. ``x_2`` and ``x_3`` are very
  similar to each other, so they share (and lose) weight: ``w_2 = w_3`` is
  lower than ``w_1`` and ``w_4``.
* Example 3 (interaction): same ``S``, ``s = [2, 4, 3, 3]``. ``x_2`` gets the
  largest weight and ``x_1`` outweighs ``x_3`` although
  ``psi(x, x_1) < psi(x, x_3)``, because ``x_3`` is redundant with ``x_2``.

For each example the kernel ridge interpolation weights (KRI, eq. 12,
:func:`proxlearn.neighbors.kri_weights`) and the normalised kernel ridge
regression weights (KRR, eq. 15 with the display normalisation of footnote 5,
:func:`proxlearn.neighbors.krr_weights` and
:func:`proxlearn.neighbors.normalize_krr_weights`) are computed on a
logarithmic grid of the ridge parameter lambda from 1e-3 to 1e3, and plotted
against lambda, one PNG per example with a KRI and a KRR panel.

Usage::

    python examples/kri_krr_toy_examples.py [--out FOLDER] [--n-lambda N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from proxlearn.neighbors import kri_weights, krr_weights, normalize_krr_weights

S_DIVERSE = np.array(
    [[5.0, 1, 1, 1], [1, 5, 4, 2], [1, 4, 5, 2], [1, 2, 2, 5]], dtype=np.float64
)

#: name -> (title, neighbour similarity matrix S, test similarities s)
EXAMPLES = {
    "example1": ("Example 1 (affinity)", 5.0 * np.eye(4), np.array([4.0, 3, 2, 1])),
    "example2": ("Example 2 (diversity)", S_DIVERSE, np.array([3.0, 3, 3, 3])),
    "example3": ("Example 3 (interaction)", S_DIVERSE, np.array([2.0, 4, 3, 3])),
}


def compute_weights(S, s, lambdas):
    """KRI and normalised KRR weights for every lambda.

    Parameters
    ----------
    S : ndarray of shape (k, k)
        Similarities among the neighbours (PSD in all three examples, so no
        spectrum modification is active).
    s : ndarray of shape (k,)
        Similarities of the test sample to the neighbours.
    lambdas : ndarray of shape (L,)

    Returns
    -------
    kri : ndarray of shape (L, k)
        KRI weights (Chen et al. 2009, eq. 12): on the simplex.
    krr : ndarray of shape (L, k)
        Normalised KRR weights ``w - mean(w) + 1/k`` with
        ``w = (S + lambda I)^{-1} s`` (eq. 15, footnote 5).
    """
    kri = np.array([kri_weights(S, s, lam) for lam in lambdas])
    krr = normalize_krr_weights(np.array([krr_weights(S, s, lam) for lam in lambdas]))
    return kri, krr


def plot_example(path, title, lambdas, kri, krr):
    """Write a two-panel figure (KRI, normalised KRR) of weight vs lambda."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from matplotlib.ticker import FuncFormatter, NullFormatter

    # Plain-text tick labels and a fixed layout: mathtext and tight_layout
    # dominate the run time of this small script.
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.82, wspace=0.25)
    for ax, W, name in [(axes[0], kri, "KRI weights"), (axes[1], krr, "normalised KRR weights")]:
        for j in range(W.shape[1]):
            ax.semilogx(lambdas, W[:, j], label=f"w{j + 1}", lw=1.6,
                        ls=["-", "--", ":", "-."][j % 4])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("lambda")
        ax.set_ylabel("weight")
        ax.set_title(name)
        ax.grid(True, alpha=0.3)
    axes[0].legend(loc="best", fontsize=8)
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    """Compute the weights of the three examples and write the figures.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (``--out FOLDER``, ``--n-lambda N``).

    Returns
    -------
    results : dict
        ``{"lambdas": (L,) array, "example1": {"kri": (L, 4), "krr": (L, 4),
        "figure": Path}, ...}``.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "out"),
                        help="folder for the PNG figures (default: examples/out)")
    parser.add_argument("--n-lambda", type=int, default=61,
                        help="number of lambda values on the log grid 1e-3..1e3")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lambdas = np.logspace(-3, 3, args.n_lambda)
    results = {"lambdas": lambdas}
    for name, (title, S, s) in EXAMPLES.items():
        kri, krr = compute_weights(S, s, lambdas)
        fig = out / f"kri_krr_{name}.png"
        plot_example(fig, title, lambdas, kri, krr)
        results[name] = {"kri": kri, "krr": krr, "figure": fig}
    return results


if __name__ == "__main__":
    res = main()
    for key, val in res.items():
        if key != "lambdas":
            print(f"{key}: {val['figure']}")
