"""Kundu et al. (2010) Table 3's comparison of multi-similarity methods on data we have
(digits-multi, protein-multi): not a reproduction (Kundu's SCOP similarities are not
available), no paper numbers and no claims.
"""

from __future__ import annotations

from ..._section import Section
from . import _methods_multi  # noqa: F401  (registers the multi-similarity methods)

PAPER = None

_MULTI_COMMON = ("svm-clip-average", "indefinite-svm-average", "average-kernel-svm",
                 "simple-mkl", "lp-mkl", "nonsparse-mkl", "eskl-l3-multi", "emkl", "rekl")


def claims(sections: dict) -> list[tuple[str, str]]:
    """No paper numbers, no claims."""
    return []


SECTIONS: tuple[Section, ...] = (
    Section(
        "kundu2010-multi",
        "Kundu et al. (2010) Table 3's comparison on digits-multi (not a reproduction)",
        "multi",
        ("digits-multi",),
        ("svm-clip-m0", "svm-clip-m1", "svm-clip-m2", *_MULTI_COMMON),
        note="The SCOP proteins of Table 3 (PSI-BLAST, Smith-Waterman and Needleman-Wunsch "
        "scores) are not available: the same methods on digits-multi (m0 IDM, m1 pixel RBF, "
        "m2 orientation histograms); no paper numbers. 5 random 80/20 partitions, 3-fold "
        "CV, grid set multi (study.papers.multi); ten classes one-vs-one.",
    ),
    Section(
        "kundu2010-multi-protein",
        "Kundu et al. (2010) Table 3's comparison on protein-multi (not a reproduction)",
        "multi",
        ("protein-multi",),
        ("svm-clip-m0", "svm-clip-m1", *_MULTI_COMMON),
        note="protein-multi: m0 the alignment similarity, m1 its RBF-sim on the rows (Chen "
        "et al. 2009); as above, no paper numbers; four classes one-vs-one.",
    ),
)
