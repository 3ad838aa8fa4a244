"""Kundu et al. (NIPS 2010): Table 2 (aural_sonar) and Table 1 (UCI stand-ins), the
ESKL methods it registers, and the paper's claims. Table 3's methods on other data
(not a reproduction) are the ``multi`` plugin's.
"""

from __future__ import annotations

from ..._claims import _Checker
from ..._section import Section
from . import _methods_kundu  # noqa: F401  (registers eskl-*)

PAPER = "Kundu et al. 2010"


def kundu2010_claims(sections: dict) -> list[tuple[str, str]]:
    """Kundu et al. (NIPS 2010) sec. 5-7; Table 1 on stand-in similarities, Table 3's
    claims on our two multi-similarity sets (not the paper's data)."""
    out = []
    acc = {}  # (dataset) -> {method: accuracy}
    for key in ("kundu2010", "kundu2010-uci"):
        for r in sections.get(key, {}).get("rows", []):
            if r.get("mean") is not None:
                acc.setdefault(r["dataset"], {})[r["method"]] = r["mean"]
    losses = ("eskl-l1", "eskl-l2", "eskl-l3")
    base = ("svm-clip", "svm-flip", "svm-shift", "indefinite-svm")
    sets = [d for d, v in acc.items() if all(m in v for m in losses + base)]
    text = ("Tables 1-2: the best loss for ESKL depends on the data set (read: the best of "
            "L1/L2/L3 is not the same loss on every set, and the losses differ by 2+ points "
            "somewhere)")
    if not sets:
        out.append((text, "not run"))
    else:
        best = {d: max(losses, key=lambda m: acc[d][m]) for d in sets}
        spread = {d: max(acc[d][m] for m in losses) - min(acc[d][m] for m in losses)
                  for d in sets}
        ok = len(set(best.values())) > 1 and max(spread.values()) >= 2
        out.append((text, ("holds" if ok else "does NOT hold") + " (" + "; ".join(
            f"{d}: best {best[d]}, spread {spread[d]:.1f}" for d in sets) + ")"))
    text = ("Tables 1-2: ESKL (best loss) is the best or tied with the best (read: within 1 "
            "point of the best of clip, flip, shift and the Indefinite SVM)")
    if not sets:
        out.append((text, "not run"))
    else:
        res = {d: (max(acc[d][m] for m in losses), max(acc[d][m] for m in base)) for d in sets}
        ok = all(e >= b - 1 for e, b in res.values())
        out.append((text, ("holds" if ok else "does NOT hold") + " (" + "; ".join(
            f"{d}: ESKL {e:.1f}, best baseline {b:.1f}" for d, (e, b) in res.items())
            + "; Table 1's sets use stand-in similarities)"))
    c = _Checker(sections)
    multi = (("kundu2010-multi", "digits-multi"), ("kundu2010-multi-protein", "protein-multi"))
    ours = ("eskl-l3-multi", "emkl", "rekl")
    rivals = ("svm-clip-average", "indefinite-svm-average", "simple-mkl")
    parts, ok, ran = [], True, False
    for key, ds in multi:
        vals, _ = c.means(key, ds, [*ours, *rivals])
        if None in vals:
            continue
        ran = True
        good = min(vals[:3]) < min(vals[3:])
        ok &= good
        parts.append(f"{ds}: best learned {min(vals[:3]):.2f} vs best baseline "
                     f"{min(vals[3:]):.2f} (error %)")
    out.append(("Table 3: learning kernels from several similarities (ESKL, EMKL, REKL) beats "
                "the SVM on the averaged denoised matrix, the averaged Indefinite SVM and "
                "SimpleMKL (on our multi-similarity sets, not the paper's SCOP data)",
                "not run" if not ran else
                f"{'holds' if ok else 'does NOT hold'} ({'; '.join(parts)})"))
    parts, ok, ran = [], True, False
    for key, ds in multi:
        vals, _ = c.means(key, ds, ["emkl", "rekl"])
        if None in vals:
            continue
        ran = True
        ok &= abs(vals[0] - vals[1]) <= 2
        parts.append(f"{ds}: EMKL {vals[0]:.2f}, REKL {vals[1]:.2f}")
    out.append(("REKL yields similar performance to EMKL (read: within 2 points of error)",
                "not run" if not ran else
                f"{'holds' if ok else 'does NOT hold'} ({'; '.join(parts)})"))
    return out



claims = kundu2010_claims

SECTIONS: tuple[Section, ...] = (
    Section(
        "kundu2010",
        "Kundu et al. (2010) Table 2: aural_sonar accuracy and F-score",
        "kundu2010",
        ("aural_sonar",),
        ("svm-clip", "svm-flip", "svm-shift", "indefinite-svm", "eskl-l2", "eskl-l1",
         "eskl-l3", "eskl-l2@default", "eskl-l1@default",
         "eskl-l3@default"),
        note="5 balanced partitions, 5-fold CV; the paper prints no spread, so the "
        "agreement rule uses our own per-partition std (verdicts marked *). ESKL: "
        "C in {0.1, ..., 100}, rho in {0.01, ..., 10} (the paper gives no grid), "
        "tau = n, 300 iterations (the paper's reading, mkl._entropic_kernel_learning.PAPER_READING); "
        "eskl-*@default: the same grid at ESKL's defaults (the default reading, judged by the "
        "ledger's second count).",
    ),
    Section(
        "kundu2010-uci",
        "Kundu et al. (2010) Table 1: UCI sets, approximate (stand-in similarities)",
        "kundu2010",
        ("sonar-noisy", "liver-noisy", "ionosphere-noisy", "diabetes-noisy", "heart-noisy"),
        ("svm-clip", "svm-flip", "svm-shift", "indefinite-svm", "eskl-l2", "eskl-l1",
         "eskl-l3", "eskl-l2@default", "eskl-l1@default",
         "eskl-l3@default"),
        note="APPROXIMATE: the paper's similarities follow Ying et al. (2009), whose recipe "
        "is not printed; ours is a Gaussian kernel on z-scored features plus symmetric "
        "N(0, 0.1^2) noise (datasets._uci). Protocol and grids as section kundu2010. "
        "Liver's ESKL-L1 cells took about 2,100 s each until libsvm's slow solves on its "
        "learned kernels were polished (_svm._dual, 2026-11-27: 280-380 s now). "
        "Diabetes (2026-11-27) is the costliest row: its 15 ESKL cells (81 fits of 300 "
        "iterations each, at the inner folds' 342 rows) took 618-1,067 s each "
        "(11,753 s for the row's 35 cells, 100.3 minutes on 2 workers).",
    ),
)
