"""Study methods ``eskl-l1``, ``eskl-l2``, ``eskl-l3`` (Kundu et al. 2010, eq. 4, m = 1).

The paper tunes "the algorithm parameters" by 5-fold cross validation and gives
no grid (../shared/notes/kundu2010-nips.md, sections 3.6 and 5). Ours, under the
grid set ``chen2009`` that the ``kundu2010`` protocol uses: ``C`` in
{0.1, 1, 10, 100} (the SVM part) and ``rho`` in {0.01, 0.1, 1, 10} (the weight of
the loss ``L(K - S)``), 16 points; ``tau`` is the training matrix's trace (``n``
for the unit-diagonal UW sets, the digest's first option), the step-size scale 1,
300 mirror-descent iterations with the best iterate kept. Test rows go through
the inductive map ``K S^+ s`` of the estimator (the paper describes no test map).
These cells use the paper's reading (``mkl._entropic_kernel_learning.PAPER_READING``); the
estimator's defaults differ (positive directions, clipped start, scale-free;
docs/methods.md, Kundu section). ``eskl-l1@default`` (and ``-l2``, ``-l3``) are the
same rows at the estimator's defaults, on the same grid: the report's second ledger
judges the paper's rows by them.
"""

from __future__ import annotations

from ..._methods import Method, register_method

__all__ = ["ESKL_C", "ESKL_RHO"]

ESKL_C = [0.1, 1.0, 10.0, 100.0]
ESKL_RHO = [0.01, 0.1, 1.0, 10.0]

#: The paper's column labels and our loss names (Table 2 prints [L2], [L1], [L3]).
_LOSSES = {"eskl-l1": "l1", "eskl-l2": "l2", "eskl-l3": "l3"}


def _builder(loss, paper=True):
    def build(**params):
        from ....mkl._entropic_kernel_learning import ESKL, PAPER_READING

        return ESKL(loss=loss, **(PAPER_READING if paper else {}), **params)

    return build


for _name, _loss in _LOSSES.items():
    for _paper in (True, False):
        register_method(
            Method(
                _name if _paper else f"{_name}@default",
                _builder(_loss, _paper),
                {"chen2009": {"C": ESKL_C, "rho": ESKL_RHO}},
                f"ESKL with loss {_loss.upper()} (Kundu et al. 2010, eq. 4, Algorithm 1 with "
                "the exact matrix exponentiated-gradient step)"
                + ("" if _paper else ", at the estimator's defaults (the default reading)"),
            ),
            replace=True,
        )
