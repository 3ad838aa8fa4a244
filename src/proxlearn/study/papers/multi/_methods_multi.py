"""Study methods for several similarity matrices over the same objects.

Run on a :class:`~proxlearn.datasets.MultiSimilarityDataset`, whose ``matrix``
is the ``(n, n, m)`` stack that the runner slices like one matrix. Kundu et al.
(2010) Table 3 compares, per protein super-family, the SVM on each single
similarity, their average, SimpleMKL, the IndSVM and their EMKL / REKL; the
SCOP data are not available, so the ``kundu2010-multi`` section runs the same
comparison on the multi-similarity sets we have.

Grid set ``multi`` (also registered as ``chen2009``, so that ``proxlearn study``
runs them under its default protocols; the paper gives none): ``C`` in {1, 10, 100} for the SVM and
MKL methods; the kernel-learning methods add ``rho`` in {0.1, 1} and run 100
iterations (ESKL, REKL) or 50 (EMKL), best iterate kept. ``svm-clip-m<i>``
is the clip SVM on matrix ``i`` alone, ``svm-clip-average`` and
``indefinite-svm-average`` work on the mean of the matrices.
"""

from __future__ import annotations

from ..._methods import Method, register_method

__all__ = ["MULTI_C", "MULTI_RHO"]

MULTI_C = [1.0, 10.0, 100.0]
MULTI_RHO = [0.1, 1.0]


def _on_combined(make, index=None):
    def build(**params):
        from sklearn.pipeline import make_pipeline

        from ....transforms import CombineSimilarities

        return make_pipeline(CombineSimilarities(index=index), make(**params))

    return build


def _svm(**p):
    from ....svm import SimilaritySVC

    return SimilaritySVC("clip", **p)


def _isvm(**p):
    from ....kernel_learning._indefinite_svm import PAPER_READING, IndefiniteSVM

    # the papers' reading, under which these cells were computed (docs/methods.md)
    return IndefiniteSVM(**{**PAPER_READING, **p})


def _mkl(name):
    def build(**p):
        from .... import mkl

        # the papers' reading, under which these cells were computed: the matrices as
        # given (the classifiers' default normalize=True divides each by tr K / n)
        return getattr(mkl, name)(normalize=False, **p)

    return build


def _entropic(name, **fixed):
    def build(**p):
        from ....mkl import _entropic_kernel_learning as ekl

        # the paper's reading, under which these cells were computed (docs/methods.md)
        return getattr(ekl, name)(**ekl.PAPER_READING, **fixed, **p)

    return build


# the same grid under chen2009, the grid set of `proxlearn study`'s default protocols
_C = {g: {"C": MULTI_C} for g in ("multi", "chen2009")}
_C_RHO = {g: {"C": MULTI_C, "rho": MULTI_RHO} for g in ("multi", "chen2009")}

for _i in range(3):
    register_method(Method(f"svm-clip-m{_i}", _on_combined(_svm, _i), _C,
                           f"clip SVM on similarity matrix {_i} alone"), replace=True)
register_method(Method("svm-clip-average", _on_combined(_svm), _C,
                       "clip SVM on the mean of the similarity matrices"), replace=True)
register_method(Method("indefinite-svm-average", _on_combined(_isvm), _C_RHO,
                       "Indefinite SVM (Luss & d'Aspremont) on the mean of the matrices"),
                replace=True)
for _name, _cls in (("average-kernel-svm", "AverageKernelSVC"), ("simple-mkl", "SimpleMKL"),
                    ("nonsparse-mkl", "NonSparseMKL")):
    register_method(Method(_name, _mkl(_cls), _C,
                           f"{_cls} on the clipped matrices (mkl.{_cls})"), replace=True)
register_method(Method("lp-mkl", _mkl("LpMKL"), _C, "Lp-MKL, p = 2 (Kloft et al.)"),
                replace=True)
register_method(Method("eskl-l3-multi", _entropic("ESKL", loss="l3", max_iter=100), _C_RHO,
                       "ESKL, one kernel near all matrices (Kundu eq. 4), L3"), replace=True)
register_method(Method("emkl", _entropic("EMKL", loss="l1", max_iter=50), _C_RHO,
                       "EMKL, one kernel per matrix + non-sparse MKL (Kundu eq. 6), L1"),
                replace=True)
register_method(Method("rekl", _entropic("REKL", loss="l2", max_iter=100), _C_RHO,
                       "REKL, learned spectra per matrix + non-sparse MKL (Kundu eq. 7), L2"),
                replace=True)
