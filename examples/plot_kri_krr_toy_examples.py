"""
KRI and KRR weights on the toy examples of Chen et al. (2009)
=============================================================

Examples 1-3 of Chen et al. (2009), section 5.2.2 (k = 4 neighbours; Chen 2010
thesis section 3.2.2):

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
logarithmic grid of the ridge parameter lambda from 1e-3 to 1e3 and drawn
against lambda, one figure per example with a KRI and a KRR panel.

From the command line, ``python examples/plot_kri_krr_toy_examples.py --out
FOLDER [--n-lambda N]`` also writes the three figures as PNG files into
``FOLDER``.
"""

import argparse
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

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

    ``S`` (k x k) holds the similarities among the neighbours (positive
    semidefinite in all three examples, so no spectrum modification is active),
    ``s`` (k,) those of the test sample to the neighbours. Returns ``kri`` and
    ``krr``, both (L, k): the KRI weights (eq. 12, on the simplex) and the
    normalised KRR weights ``w - mean(w) + 1/k`` with ``w = (S + lambda I)^{-1} s``
    (eq. 15, footnote 5).
    """
    kri = np.array([kri_weights(S, s, lam) for lam in lambdas])
    krr = normalize_krr_weights(np.array([krr_weights(S, s, lam) for lam in lambdas]))
    return kri, krr


def plot_weights(title, lambdas, kri, krr):
    """A two-panel figure (KRI, normalised KRR) of each weight against lambda."""
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
    return fig


def main(argv=None):
    """The command line: compute the three examples and write one PNG per example.

    ``argv``: ``--out FOLDER`` (default ``examples/out``), ``--n-lambda N``.
    Returns ``{"lambdas": (L,) array, "example1": {"kri": (L, 4), "krr": (L, 4),
    "figure": Path}, ...}``.
    """
    parser = argparse.ArgumentParser(description="KRI and KRR weights on the toy examples "
                                     "of Chen et al. (2009), section 5.2.2.")
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
        path = out / f"kri_krr_{name}.png"
        fig = plot_weights(title, lambdas, kri, krr)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        results[name] = {"kri": kri, "krr": krr, "figure": path}
        print(f"{name}: {path}")
    return results


# sphinx_gallery_start_ignore
if __name__ == "__main__" and sys.argv[1:]:  # the command line, with options
    main()
    sys.exit()
# sphinx_gallery_end_ignore

# %%
# Example 1: affinity
# -------------------
# The neighbours are equally dissimilar to each other: both rules rank the
# weights as the similarities to the test sample, ``w1 > w2 > w3 > w4``, and
# spread them evenly (1/4 each) as lambda grows.

lambdas = np.logspace(-3, 3, 61)
weights = {}
for name, (title, S, s) in EXAMPLES.items():
    weights[name] = compute_weights(S, s, lambdas)

plot_weights(EXAMPLES["example1"][0], lambdas, *weights["example1"])

# %%
# Example 2: diversity
# --------------------
# ``x_2`` and ``x_3`` are near copies of each other: they share their weight,
# so ``w2 = w3`` stays below ``w1`` and ``w4`` although all four neighbours are
# equally similar to the test sample.

plot_weights(EXAMPLES["example2"][0], lambdas, *weights["example2"])

# %%
# Example 3: interaction
# ----------------------
# ``x_2`` is the most similar neighbour and takes the largest weight; ``x_3``,
# although more similar to the test sample than ``x_1``, is redundant with
# ``x_2`` and gets less weight than ``x_1``.

plot_weights(EXAMPLES["example3"][0], lambdas, *weights["example3"])

for name, (kri, krr) in weights.items():
    print(f"{name}, lambda = 1: KRI {np.round(kri[30], 3)}, KRR {np.round(krr[30], 3)}")
