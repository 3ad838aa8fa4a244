"""docs/_ext/proxlearn_figures.py: the figures of the site's result pages (no Sphinx build).

The reproduction page says that a cell agrees exactly when the interval drawn at
our mean crosses the diagonal; the first test checks that claim against the
verdicts of the committed report, so a change of the study's rule fails here
rather than leaving the page wrong.
"""

import importlib.util
import math
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def figures():
    path = ROOT / "docs" / "_ext" / "proxlearn_figures.py"
    spec = importlib.util.spec_from_file_location("proxlearn_figures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(mean, paper, sigma, agrees, n=20, metric="error"):
    return {"dataset": "d", "method": "m", "metric": metric, "mean": mean, "paper": paper,
            "sigma": sigma, "n_partitions": n, "agrees": agrees}


SMALL = {"chen2009": {"rows": [_row(10.0, 11.0, 4.0, True), _row(30.0, 11.0, 4.0, False),
                               _row(12.0, 12.5, None, None), _row(12.0, None, None, None)]}}


def test_interval_crosses_diagonal_exactly_when_the_report_says_agrees(figures):
    counts = figures.verdict_counts()
    assert sum(c[True] + c[False] for c in counts.values()) > 100
    for names in figures.PAPERS.values():
        for name in names:
            for r in figures.compared_rows(name):
                if r["verdict"] is None:
                    assert r["tolerance"] is None
                    continue
                crosses = abs(r["ours"] - r["paper"]) <= r["tolerance"] * (1 + 1e-12)
                assert crosses == r["verdict"], (name, r)


def test_compared_rows_keeps_cells_with_a_paper_value(figures):
    rows = figures.compared_rows("chen2009", SMALL)
    assert [r["ours"] for r in rows] == [10.0, 30.0, 12.0]
    assert rows[0]["tolerance"] == pytest.approx(2 * math.sqrt(2 / 20) * 4.0)
    assert rows[2]["tolerance"] is None and rows[2]["verdict"] is None
    assert figures.verdict_counts(SMALL) == {"chen2009": {True: 1, False: 1, None: 1}}


def test_agreement_figure_draws_one_point_per_cell_in_its_verdicts_colour(figures):
    fig = figures.agreement_figure("chen2009", SMALL)
    (ax,) = fig.axes
    drawn = {}
    for container in ax.containers:
        line = container.lines[0]
        drawn[matplotlib.colors.to_hex(line.get_color())] = sorted(line.get_ydata())
    plt.close(fig)
    colour = {v: c for v, (_, c) in figures.VERDICTS.items()}
    assert drawn == {colour[True]: [10.0], colour[False]: [30.0], colour[None]: [12.0]}


def test_growth_exponent_of_a_power_law(figures):
    n = np.array([100.0, 200.0, 400.0, 800.0])
    assert figures.growth_exponent(n, 3e-6 * n**2.5) == pytest.approx(2.5)


def test_scaling_figure_reads_the_studys_points(figures):
    sections = {"zhuang2011-ch3": {"scaling": {
        "simplenpkl-ll": {"points": [[400, 0.1, 0, 0], [800, 0.4, 0, 0]]}}}}
    fig = figures.npkl_scaling_figure(sections)
    x, y = fig.axes[0].lines[0].get_data()
    plt.close(fig)
    np.testing.assert_allclose(x, [400, 800])
    np.testing.assert_allclose(y, [0.1, 0.4])
