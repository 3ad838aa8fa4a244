"""Study method ``indefinite-svm`` (Luss & d'Aspremont 2007; Chen thesis eq. 5.8).

Grids: ``chen2009`` is the thesis's section 5.3.2 grid, C and rho in
{1e-3, ..., 1e3} (49 points); ``gu2012`` is Gu & Guo's {0.01, ..., 100} for
both (25 points).

The fold evaluator shares across the grid: one eigendecomposition of each
one-vs-one block of ``S`` per fold (all rank-one updates start from it), and
warm starts of ``alpha`` along the path (for each rho, C increasing: the
previous solution projected onto the new box; the first C of each rho starts
from the previous rho's solution at the same C).
"""

from __future__ import annotations

import numpy as np

from ..._methods import GU_GRID, Method, _powers, register_method

__all__ = ["ISVM_GRID"]

#: Chen thesis section 5.3.2: C and rho in {1e-3, ..., 1e3}.
ISVM_GRID = _powers(-3, 3)


def _build(**params):
    from ....kernel_learning._indefinite_svm import PAPER_READING, IndefiniteSVM

    # the papers' reading (S as given, the reference code's test heuristic)
    return IndefiniteSVM(**{**PAPER_READING, **params})


def _evaluate(S_train, y_train, S_test, params_list):
    """Predictions for every (C, rho) of the grid, sharing eigendecompositions
    and warm starts (see the module docstring)."""
    from ...._svm._multiclass import ovo_fit, ovo_labels
    from ...._validation import check_labels, symmetrize
    from ....kernel_learning._indefinite_svm import (
        _fit_binary,
        _Problem,
        _transform_rows,
    )

    S = symmetrize(S_train)
    S_test = np.asarray(S_test, dtype=np.float64)
    classes, y_idx = check_labels(y_train, S.shape[0])
    defaults = _build().get_params()  # the reading _build uses
    psi = float(np.mean(np.diag(S)))
    order = sorted(range(len(params_list)), key=lambda g: (params_list[g]["rho"], params_list[g]["C"]))

    def decisions(pair):
        """The pair's decision values ``(n_params, m)`` along the warm-started path."""
        prob = _Problem(
            S[np.ix_(pair.idx, pair.idx)], pair.y,
            eig_update={**defaults, **params_list[0]}["eig_update"],
        )
        St = S_test[:, pair.idx]
        out = np.zeros((len(params_list), S_test.shape[0]))
        by_C: dict[float, np.ndarray] = {}  # last alpha per C (previous rho)
        prev = None
        prev_rho = None
        for g in order:
            p = {**defaults, **params_list[g]}
            C, rho = p["C"], p["rho"]
            if rho != prev_rho:
                prev = by_C.get(C)
                prev_rho = rho
            start = None if prev is None else np.minimum(prev, C)
            model = _fit_binary(prob, C, rho, start, p["max_iter"], p["tol"], keep_history=False)
            prev = model["alpha"]
            by_C[C] = prev
            R = _transform_rows(model, St, p["test_transform"], psi)
            out[g] = R @ model["coef"] + model["b"]
        return out

    _, per_pair = ovo_fit(y_idx, len(classes), decisions)
    raw = np.stack(per_pair, axis=2)  # (n_params, m, n_pairs)
    return [ovo_labels(raw[g], classes) for g in range(len(params_list))]


register_method(
    Method(
        "indefinite-svm",
        _build,
        {"chen2009": {"C": ISVM_GRID, "rho": ISVM_GRID}, "gu2012": {"C": GU_GRID, "rho": GU_GRID}},
        "Indefinite SVM, learned PSD kernel near S (Luss & d'Aspremont 2007; Chen thesis eq. 5.8)",
        evaluate=_evaluate,
    ),
    replace=True,
)
