"""Gu & Guo (AAAI 2012): Tables 1-3 (synthetic and real similarities), the SVM-CA
method it registers, and the paper's claims.
"""

from __future__ import annotations

import numpy as np

from ..._claims import _Checker
from ..._protocols import GU_METHODS
from ..._section import Section
from . import _methods_svmca  # noqa: F401  (registers svm-ca)

PAPER = "Gu & Guo 2012"


def gu2012_claims(sections: dict) -> list[tuple[str, str]]:
    """Gu & Guo (AAAI 2012) sec. 5-6, on sections gu2012-synthetic and gu2012."""
    c = _Checker(sections)
    syn = ("synthetic-1", "synthetic-2", "synthetic-3", "synthetic-4")
    real = ("aural_sonar", "voting", "protein")
    out = []
    for key, dss in (("gu2012-synthetic", syn), ("gu2012", real)):
        for ds in dss:
            out.append(c.check(f"{ds} ({key}): SVM-CA has the lowest error of the six methods",
                               key, ds, list(GU_METHODS), lambda *v: v[-1] <= min(v[:-1])))
    out.append(c.check_sets(
        "synthetic: IKFD and SVM-CA are much better than the other methods (read: both below "
        "the best of clip, flip, shift and the Indefinite SVM)", "gu2012-synthetic", syn,
        ["ikfd", "svm-ca", "svm-clip", "svm-flip", "svm-shift", "indefinite-svm"],
        lambda i, ca, *o: max(i, ca) < min(o),
        lambda i, ca, *o: f"IKFD {i:.2f}, SVM-CA {ca:.2f}, best other {min(o):.2f}"))
    text = ("synthetic: the spectrum modifications degrade as the noise eta grows (read: the "
            "mean of clip, flip and shift higher at eta = 100 than at eta = 20, for both "
            "sigma^2)")
    pairs, ok = [], True
    for lo, hi in (("synthetic-1", "synthetic-2"), ("synthetic-3", "synthetic-4")):
        a, _ = c.means("gu2012-synthetic", lo, ["svm-clip", "svm-flip", "svm-shift"])
        b, _ = c.means("gu2012-synthetic", hi, ["svm-clip", "svm-flip", "svm-shift"])
        if None in a or None in b:
            continue
        pairs.append(f"{lo} {np.mean(a):.2f} -> {hi} {np.mean(b):.2f}")
        ok &= np.mean(b) > np.mean(a)
    out.append((text, "not run" if not pairs else
                f"{'holds' if ok else 'does NOT hold'} ({'; '.join(pairs)})"))
    for key, dss in (("gu2012-synthetic", syn), ("gu2012", real)):
        out.append(c.check_sets(
            f"{key}: the Robust (Indefinite) SVM behaves much like clip (read: within 1 point "
            "on every set)", key, dss, ["indefinite-svm", "svm-clip"],
            lambda a, b: abs(a - b) <= 1.0, lambda a, b: f"{a:.2f} vs {b:.2f}"))
    return out



claims = gu2012_claims

SECTIONS: tuple[Section, ...] = (
    Section(
        "gu2012-synthetic",
        "Gu & Guo (2012) Table 1: synthetic data",
        "gu2012-synthetic",
        ("synthetic-1", "synthetic-2", "synthetic-3", "synthetic-4"),
        GU_METHODS,
        note="50 random 80/20 partitions, 10-fold CV over C, rho in {0.01, ..., 100}, "
        "d in {2, 3, 5, 8, 13, 21, 34, 55}.",
    ),
    Section(
        "gu2012",
        "Gu & Guo (2012) Tables 2-3: aural_sonar, voting, protein",
        "gu2012",
        ("aural_sonar", "voting", "protein"),
        GU_METHODS,
        note="50 random 90/10 partitions. The paper's +- values are read as standard "
        "errors over 50 runs (sigma = SE x sqrt(50)) for the agreement rule.",
    ),
)
