"""plot_dataset: matrix ordered by class + eigenvalue spectrum."""

import numpy as np
import pytest

from proxlearn.datasets import SimilarityDataset, describe, make_gu_guo_synthetic
from proxlearn.plotting import plot_dataset


def test_png_written_and_valid(tmp_path):
    import matplotlib.image

    ds = make_gu_guo_synthetic(2, 100, n_per_class=20)
    path = tmp_path / "sub" / "plot.png"
    fig = plot_dataset(ds, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = matplotlib.image.imread(path)
    assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 400
    assert len(fig.axes) >= 2


def test_matrix_is_ordered_by_class_with_boundaries():
    rng = np.random.default_rng(0)
    y = np.array([2, 1, 3, 1, 2, 3, 3, 1])
    S = rng.normal(size=(8, 8))
    ds = SimilarityDataset(S, y, name="toy", class_names=("a", "b", "c"))
    fig = plot_dataset(ds)
    ax_m, ax_s = fig.axes[0], fig.axes[1]
    order = np.argsort(y, kind="stable")
    np.testing.assert_array_equal(ax_m.images[0].get_array(), S[np.ix_(order, order)])
    hlines = sorted(line.get_ydata()[0] for line in ax_m.lines if line.get_ydata()[0] ==
                    line.get_ydata()[1])
    assert hlines == [2.5, 4.5]  # after 3 samples of class 1 and 2 of class 2
    assert [t.get_text() for t in ax_m.get_yticklabels()] == ["a", "b", "c"]
    # negative eigenvalues drawn as their own (red) scatter, count in the legend
    n_neg = describe(ds)["n_negative_eigenvalues"]
    sizes = [len(c.get_offsets()) for c in ax_s.collections]
    assert n_neg > 0 and n_neg in sizes and sum(sizes) == 8
    assert f"({n_neg})" in " ".join(t.get_text() for t in ax_s.get_legend().get_texts())


def test_no_pyplot_state_touched():
    import sys

    plot_dataset(make_gu_guo_synthetic(2, 20, n_per_class=5))
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        assert plt.get_fignums() == []
