"""The ``verbose`` parameter of the long iterative fits (issue #39, section 4: a fit
that ran for many minutes showed nothing)."""

import numpy as np
import pytest

from proxlearn._progress import IterationLog
from proxlearn.exceptions import InvalidParameterError


def _problem(n=30, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 1.5 * (2 * y[:, None] - 1)
    E = rng.normal(scale=0.3, size=(n, n))
    return X, X @ X.T + (E + E.T) / 2, y


def _fits():
    from proxlearn.cluster import make_pairwise_constraints
    from proxlearn.cluster import SimpleNPKL
    from proxlearn.mkl import EMKL, ESKL, REKL
    from proxlearn.manifold import MVE
    from proxlearn.mkl import TwoLayerMKL

    X, S, y = _problem()
    stack = np.stack([S, X @ X.T], axis=-1)
    pc = make_pairwise_constraints(y, r=0.5, random_state=0)
    return {
        "ESKL": (lambda v: ESKL(verbose=v).fit(S, y)),
        "EMKL": (lambda v: EMKL(verbose=v, max_iter=20).fit(stack, y)),
        "REKL": (lambda v: REKL(verbose=v).fit(stack, y)),
        "SimpleNPKL": (lambda v: SimpleNPKL(verbose=v).fit(X, pc)),
        "MVE": (lambda v: MVE(verbose=v).fit(X)),
        "TwoLayerMKL": (lambda v: TwoLayerMKL(verbose=v).fit(np.stack([X @ X.T, (X @ X.T) ** 2 / 10], -1), y)),
    }


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(_fits()))
def test_verbose_prints_progress_and_the_default_prints_nothing(name, capsys):
    fit = _fits()[name]
    fit(0)
    assert capsys.readouterr().out == ""
    fit(2)
    lines = capsys.readouterr().out.splitlines()
    assert any(" iteration 1" in ln for ln in lines), lines
    assert any("stopped after" in ln for ln in lines), lines
    fit(1)  # a line every 2 s and the closing one: at least the closing one
    assert any("stopped after" in ln for ln in capsys.readouterr().out.splitlines())
    for bad in (-1, 1.5, "yes"):
        with pytest.raises(InvalidParameterError, match="verbose"):
            fit(bad)


def test_iteration_log_format(capsys, monkeypatch):
    import proxlearn._progress as progress

    log = IterationLog("thing", 1)
    monkeypatch.setattr(progress, "EVERY_SECONDS", 0.0)
    log(3, objective=1.23456789, steps=4)
    log.end(4, "converged", gap=1e-9)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("thing: iteration 3, objective 1.23457, steps 4; ")
    assert out[1].startswith("thing: stopped after 4 iterations (converged), gap 1e-09; ")
