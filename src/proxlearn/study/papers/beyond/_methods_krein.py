"""Study methods of the section ``beyond-krein``: the Kreĭn learners against the
spectrum-corrected SVMs and the Indefinite SVM, every one at the library's
defaults (``normalize=True``: the matrix divided by ``tr S / n``), so that one
``C`` grid means the same for all.

=================  ==============================================  ====================
method             estimator                                       grid (set ``beyond``)
=================  ==============================================  ====================
``krein-svc``      ``krein.KreinSVC`` (KSVM, Loosli et al. 2016)   C
``krein-ls``       ``krein.KreinLeastSquaresClassifier`` (Oglic &  none: ``radius``
                   Gärtner 2018)                                    by its internal CV
``svc-clip``,      ``svm.SimilaritySVC(spectrum=...)``,            C
``svc-flip``,      consistent test rows
``svc-shift``
``isvm``           ``kernel_learning.IndefiniteSVM`` (Luss &       C x rho
                   d'Aspremont 2007), its defaults
=================  ==============================================  ====================

``C`` in {0.01, ..., 1000} (6 values), ``rho`` in {0.1, 1, 10}. These differ from the
papers' ``svm-clip`` / ``indefinite-svm`` rows, which run the matrix as given on the
papers' grids. The same grids are registered under ``chen2009`` so that
``proxlearn study`` runs them under its default protocols.
"""

from __future__ import annotations

from ..._methods import Method, _powers, register_method

__all__ = ["BEYOND_C", "BEYOND_RHO", "KREIN_METHODS"]

BEYOND_C = _powers(-2, 3)
BEYOND_RHO = [0.1, 1.0, 10.0]
#: The section's methods, in table order.
KREIN_METHODS = ("krein-svc", "krein-ls", "svc-clip", "svc-flip", "svc-shift", "isvm")


def _krein_svc(**p):
    from ....krein import KreinSVC

    return KreinSVC(**p)


def _krein_ls(**p):
    from ....krein import KreinLeastSquaresClassifier

    return KreinLeastSquaresClassifier(**p)


def _svc(spectrum):
    def build(**p):
        from ....svm import SimilaritySVC

        return SimilaritySVC(spectrum=spectrum, **p)

    return build


def _isvm(**p):
    from ....kernel_learning import IndefiniteSVM

    return IndefiniteSVM(**p)


def _isvm_path(S_train, y_train, S_test, params_list):
    """Every (C, rho) of the grid in one call (the estimator's grid path)."""
    return _isvm(**params_list[0]).grid_predictions(S_train, y_train, S_test, params_list)


def _grids(spec):
    return {g: spec for g in ("beyond", "chen2009")}


register_method(Method("krein-svc", _krein_svc, _grids({"C": BEYOND_C}),
                       "KSVM: SVM on |S| mapped back to S (Loosli, Canu & Ong 2016)"),
                replace=True)
register_method(Method("krein-ls", _krein_ls, _grids({}),
                       "least squares in the Kreĭn space, radius by internal CV "
                       "(Oglic & Gärtner 2018)"), replace=True)
for _spec in ("clip", "flip", "shift"):
    register_method(Method(f"svc-{_spec}", _svc(_spec), _grids({"C": BEYOND_C}),
                           f"SimilaritySVC(spectrum={_spec!r}) at its defaults"), replace=True)
register_method(Method("isvm", _isvm, _grids({"C": BEYOND_C, "rho": BEYOND_RHO}),
                       "Indefinite SVM at its defaults (Luss & d'Aspremont 2007)",
                       evaluate=_isvm_path), replace=True)
