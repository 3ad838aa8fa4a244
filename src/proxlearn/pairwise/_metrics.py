"""Built-in measures of :func:`proxlearn.pairwise.pairwise_similarity`, by library.

==========================  =============  =========  ==========================================
metric                      kind           objects    computed by
==========================  =============  =========  ==========================================
``levenshtein``             dissimilarity  strings    ``rapidfuzz.distance.Levenshtein.distance``
``levenshtein-similarity``  similarity     strings    ``Levenshtein.normalized_similarity``:
                                                      ``1 - d / max(|a|, |b|)``
``indel``                   dissimilarity  strings    ``Indel.distance`` (insertions/deletions)
``indel-similarity``        similarity     strings    ``Indel.normalized_similarity``:
                                                      ``1 - d / (|a| + |b|)``
``hamming``                 dissimilarity  strings    ``Hamming.distance``; a length difference
                                                      counts as that many mismatches (``pad``)
``jaro-winkler``            similarity     strings    ``JaroWinkler.similarity`` (in [0, 1])
``smith-waterman``          similarity     sequences  parasail ``sw_striped_profile_sat``: local
                                                      alignment score
``needleman-wunsch``        similarity     sequences  parasail ``nw_striped_profile_sat``: global
                                                      alignment score
``smith-waterman-normalized``    similarity  sequences  ``s(a, b) / sqrt(s(a, a) s(b, b))``
``needleman-wunsch-normalized``  similarity  sequences  the same with the global score
``dtw``                     dissimilarity  series     ``dtaidistance.dtw.distance_matrix_fast``
                                                      (C); variable lengths allowed
``jaccard``                 similarity     sets       ``|a & b| / |a | b|`` (1 for two empty sets)
``tanimoto``                similarity     sets       the same (Tanimoto = Jaccard on sets /
                                                      binary fingerprints)
``jaccard-distance``        dissimilarity  sets       ``1 - jaccard``
a Python callable           ``kind=``      anything   ``f(a, b) -> float``, pair by pair
==========================  =============  =========  ==========================================

Every built-in measure is symmetric, ``s(a, b) = s(b, a)``, so that with ``Y=None``
only the tiles on and above the diagonal are computed (see
:mod:`proxlearn.pairwise._builders` for the diagonal tiles). Every value is returned as float64, equal to
the library's own per-pair call (the tests compare them exactly).

Alignment parameters (``metric_params``): ``matrix`` (a parasail substitution
matrix by name: ``"blosum62"`` (default), ``"blosum50"``, ``"pam250"``,
``"nuc44"``, ``"dnafull"``, ...), ``gap_open`` and ``gap_extend`` (positive
integers, parasail's convention: a gap of length ``L`` costs
``gap_open + (L - 1) gap_extend``). The defaults 11 / 1 are BLAST's for BLOSUM62.
The normalised scores need ``s(a, a) > 0`` for every sequence; a sequence whose
self-score is not positive is an error naming it. Sequences are checked against
the alphabet of the matrix (parasail would silently score unknown letters as its
last letter, ``*`` for BLOSUM / PAM, ``U`` for NUC.4.4); that last letter is
refused for the same reason.

Why parasail: its striped SIMD routines (Farrar 2007) with a query profile built
once per row object and reused for every column object; the ``_sat`` routines
start with 8-bit lanes and recompute with 16 / 32 bits only on saturation, so
the scores are exact (see ``benchmarks/bench_builders.py`` for the measured
pairs per second, and the profile against the plain call).

DTW parameters (``metric_params``, passed to dtaidistance): ``window``, ``psi``,
``penalty``, ``max_step``, ``max_length_diff``. dtaidistance's DTW is the square
root of the summed squared differences along the best warping path.

References
----------
Levenshtein (1966); Jaro (1989) and Winkler (1990); Smith & Waterman, J. Mol. Biol.
147 (1981); Needleman & Wunsch, J. Mol. Biol. 48 (1970); Gotoh, J. Mol. Biol. 162
(1982) for affine gaps; Farrar, Bioinformatics 23 (2007) for the striped SIMD
method; Daily, BMC Bioinformatics 17:81 (2016) for parasail; Sakoe & Chiba (1978)
for DTW; Jaccard (1912), Tanimoto (1958).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._validation import (
    InvalidParameterError,
    ObjectListError,
    check_sequences,
    check_series,
    check_sets,
    check_strings,
)

__all__ = ["METRICS", "Metric", "get_metric"]


@dataclass(frozen=True)
class Metric:
    """A built-in measure: what it returns and on which objects.

    Attributes
    ----------
    name : str
    kind : {"similarity", "dissimilarity"}
        Whether larger values mean more alike (similarity) or less (distance).
    objects : {"strings", "sequences", "series", "sets", "objects"}
    library : str
        The library that computes it.
    description : str
    defaults : dict
        Accepted ``metric_params`` and their defaults.
    prefer : {"threads", "processes"}
        joblib's hint for local parallelism: ``"threads"`` when the library
        releases the GIL for a whole block (rapidfuzz's ``cdist``).
    symmetric : bool
        ``s(a, b) = s(b, a)``: with ``Y=None`` only one triangle is computed.

    Examples
    --------
    >>> from proxlearn.pairwise import METRICS
    >>> m = METRICS["dtw"]
    >>> m.kind, m.objects, m.symmetric
    ('dissimilarity', 'series', True)

    See Also
    --------
    get_metric, pairwise_similarity
    """

    name: str
    kind: str
    objects: str
    library: str
    description: str
    defaults: dict = field(default_factory=dict)
    prefer: str = "processes"
    symmetric: bool = True


# ------------------------------------------------------------------- strings
_RAPIDFUZZ = {
    "levenshtein": ("Levenshtein", "distance", "dissimilarity", "edit distance (unit costs)"),
    "levenshtein-similarity": ("Levenshtein", "normalized_similarity", "similarity",
                               "1 - Levenshtein / max(len)"),
    "indel": ("Indel", "distance", "dissimilarity", "insertions + deletions only"),
    "indel-similarity": ("Indel", "normalized_similarity", "similarity",
                         "1 - Indel / (len(a) + len(b))"),
    "hamming": ("Hamming", "distance", "dissimilarity",
                "mismatches; a length difference counts as mismatches"),
    "jaro-winkler": ("JaroWinkler", "similarity", "similarity",
                     "Jaro-Winkler similarity in [0, 1]"),
}


def rapidfuzz_scorer(name: str):
    """The rapidfuzz per-pair function behind a string metric."""
    import rapidfuzz.distance as rd

    cls, fn, _, _ = _RAPIDFUZZ[name]
    return getattr(getattr(rd, cls), fn)


def _strings_block(name, A, B, params, same):
    from rapidfuzz.process import cdist

    # integer distances come back as exact uint32 (measured faster than asking rapidfuzz
    # for float64); normalised scores must be float64 (rapidfuzz's default is float32)
    dtype = None if _RAPIDFUZZ[name][1] == "distance" else np.float64
    return cdist(A, A if same else B, scorer=rapidfuzz_scorer(name), dtype=dtype,
                 workers=1, scorer_kwargs=params or None)


# ----------------------------------------------------------------- sequences
def parasail_matrix(name: str):
    """A parasail substitution matrix by name, and its alphabet (upper and lower case)."""
    import parasail

    M = getattr(parasail, str(name), None) if str(name).isidentifier() else None
    if not isinstance(M, parasail.Matrix):  # the built-in matrices are module attributes
        raise InvalidParameterError(
            f"unknown substitution matrix {name!r}; give a parasail matrix name such as "
            "'blosum62', 'blosum50', 'pam250' (proteins) or 'nuc44', 'dnafull' (DNA)."
        )
    mapper = np.asarray(M.mapper)
    unknown = np.bincount(mapper).argmax()  # where parasail sends letters it does not know
    alphabet = "".join(chr(c) for c in range(33, 127) if mapper[c] != unknown)
    return M, alphabet


def _alignment_function(name: str, profile: bool):
    import parasail

    algo = "sw" if name.startswith("smith") else "nw"
    return getattr(parasail, f"{algo}_striped{'_profile' if profile else ''}_sat")


def alignment_score(name, a, b, matrix, gap_open, gap_extend):
    """One parasail score without a profile (the per-pair reference of the tests)."""
    M, _ = parasail_matrix(matrix)
    return float(_alignment_function(name, False)(a, b, gap_open, gap_extend, M).score)


def _raw_scores(name, A, B, params, same):
    """Alignment scores of a block: one query profile per row object, reused for
    every column object (parasail's profile API)."""
    import parasail

    M, _ = parasail_matrix(params["matrix"])
    align = _alignment_function(name, True)
    go, ge = params["gap_open"], params["gap_extend"]
    out = np.empty((len(A), len(B)), dtype=np.float64)
    for i, a in enumerate(A):
        prof = parasail.profile_create_sat(a, M)
        start = i if same else 0
        for j in range(start, len(B)):
            out[i, j] = align(prof, B[j], go, ge).score
    if same:
        iu = np.triu_indices(len(A), 1)
        out[iu[1], iu[0]] = out[iu]
    return out


def self_scores(name, seqs, params):
    """``s(a, a)`` of every sequence (the normalisation of the ``-normalized`` scores)."""
    M, _ = parasail_matrix(params["matrix"])
    align = _alignment_function(name, False)
    return np.array([align(a, a, params["gap_open"], params["gap_extend"], M).score
                     for a in seqs], dtype=np.float64)


def _sequences_block(name, A, B, params, same):
    base = name.removesuffix("-normalized")
    if base == name:
        return _raw_scores(name, A, B, params, same)
    # prepared objects are (sequence, self-score) pairs
    sa, da = zip(*A)
    sb, db = (sa, da) if same else zip(*B)
    S = _raw_scores(base, list(sa), list(sb), params, same)
    S /= np.sqrt(np.multiply.outer(np.asarray(da), np.asarray(db)))
    return S


def _check_alignment_params(params):
    for key in ("gap_open", "gap_extend"):
        v = params[key]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise InvalidParameterError(
                f"{key} must be a non-negative integer (parasail scores are integers), got {v!r}."
            )
    parasail_matrix(params["matrix"])


def _prepare_sequences(name, X, params, what, ids):
    _check_alignment_params(params)
    _, alphabet = parasail_matrix(params["matrix"])
    X = check_sequences(X, alphabet, what, ids=ids, matrix=params["matrix"])
    if not name.endswith("-normalized"):
        return X
    d = self_scores(name.removesuffix("-normalized"), X, params)
    bad = np.flatnonzero(d <= 0)
    if bad.size:
        i = int(bad[0])
        who = f"object {i}" if ids is None else f"object {i} ({ids[i]})"
        raise ObjectListError(
            f"{what}: {who} has self-score {d[i]:g} <= 0 under {params['matrix']} with gaps "
            f"{params['gap_open']}/{params['gap_extend']}, so the normalised score "
            "s(a, b) / sqrt(s(a, a) s(b, b)) is undefined; use the raw score for it."
        )
    return list(zip(X, d.tolist()))


# -------------------------------------------------------------------- series
_DTW_KEYS = ("window", "psi", "penalty", "max_step", "max_length_diff")


def _dtw_block(name, A, B, params, same):
    from dtaidistance import dtw

    kw = {k: v for k, v in params.items() if v is not None}
    if same:
        return dtw.distance_matrix_fast(A, compact=False, parallel=False, **kw)
    na = len(A)
    D = dtw.distance_matrix_fast(list(A) + list(B), block=((0, na), (na, na + len(B))),
                                 compact=False, parallel=False, **kw)
    return np.ascontiguousarray(D[:na, na:])


# ---------------------------------------------------------------------- sets
def _incidence(sets, vocab):
    """Sparse 0/1 matrix (n_sets, n_items) of set membership."""
    import scipy.sparse as sp

    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(s) for s in sets])
    indices = np.fromiter((vocab[x] for s in sets for x in s), dtype=np.int64,
                          count=int(indptr[-1]))
    data = np.ones(indices.size, dtype=np.int64)
    return sp.csr_matrix((data, indices, indptr), shape=(len(sets), len(vocab)))


def _jaccard_block(name, A, B, params, same):
    B = A if same else B
    vocab = {}
    for s in (*A, *B):
        for x in s:
            vocab.setdefault(x, len(vocab))
    Ma = _incidence(A, vocab)
    Mb = Ma if same else _incidence(B, vocab)
    inter = np.asarray((Ma @ Mb.T).toarray(), dtype=np.float64)  # exact integer counts
    union = (np.array([len(s) for s in A], dtype=np.float64)[:, None]
             + np.array([len(s) for s in B], dtype=np.float64)[None, :] - inter)
    J = np.ones_like(inter)
    np.divide(inter, union, out=J, where=union > 0)  # two empty sets: 1
    if name == "jaccard-distance":
        J = 1.0 - J
    return J


# ------------------------------------------------------------------ registry
def _strings_prepare(name, X, params, what, ids):
    return check_strings(X, what, ids=ids)


#: name -> :class:`Metric`: every similarity or dissimilarity of raw objects that
#: :func:`pairwise_similarity` computes (filled by the registrations below).
METRICS: dict[str, Metric] = {}
_BLOCK = {}
_PREPARE = {}


def _register(metric, block, prepare):
    METRICS[metric.name] = metric
    _BLOCK[metric.name] = block
    _PREPARE[metric.name] = prepare


for _name, (_cls, _fn, _kind, _desc) in _RAPIDFUZZ.items():
    _register(Metric(_name, _kind, "strings", f"rapidfuzz {_cls}.{_fn}", _desc,
                     {"prefix_weight": 0.1} if _name == "jaro-winkler" else {},
                     prefer="threads"), _strings_block, _strings_prepare)
_ALIGN = {"matrix": "blosum62", "gap_open": 11, "gap_extend": 1}
for _name, _desc in (("smith-waterman", "local alignment score"),
                     ("needleman-wunsch", "global alignment score")):
    _register(Metric(_name, "similarity", "sequences", "parasail (striped SIMD, profile)",
                     _desc, dict(_ALIGN)), _sequences_block, _prepare_sequences)
    _register(Metric(f"{_name}-normalized", "similarity", "sequences",
                     "parasail (striped SIMD, profile)",
                     f"{_desc} / sqrt(self-scores)", dict(_ALIGN)),
              _sequences_block, _prepare_sequences)
def _dtw_prepare(name, X, params, what, ids):
    _check_dtw_params(params)
    return check_series(X, what, ids=ids)


def _check_dtw_params(params):
    """dtaidistance does not check these: a negative window returned all zeros, negative
    psi / max_step / max_length_diff infinite distances."""
    def number(key, integer, low, strict):
        v = params.get(key)
        if v is None:
            return
        kind = numbers.Integral if integer else numbers.Real
        ok = not isinstance(v, bool) and isinstance(v, kind) and np.isfinite(v) and (
            v > low if strict else v >= low)
        if not ok:
            what = "an integer" if integer else "a finite number"
            raise InvalidParameterError(
                f"DTW parameter {key} must be {what} {'>' if strict else '>='} {low} (or None "
                f"for no limit), got {v!r}.")

    number("window", True, 1, False)
    number("penalty", False, 0, False)
    number("max_step", False, 0, True)
    number("max_length_diff", True, 0, False)
    psi = params.get("psi")
    if psi is not None:
        parts = psi if isinstance(psi, tuple | list) else (psi,)
        if len(parts) not in (1, 4) or not all(
                not isinstance(p, bool) and isinstance(p, numbers.Integral) and p >= 0
                for p in parts):
            raise InvalidParameterError(
                "DTW parameter psi must be an integer >= 0 or a tuple of four of them "
                f"(relaxation at both ends of both series), got {psi!r}.")
        if len(parts) == 4 and (parts[0] != parts[2] or parts[1] != parts[3]):
            raise InvalidParameterError(
                f"DTW parameter psi={tuple(parts)!r} relaxes the two series differently, so "
                "d(a, b) != d(b, a), but the matrix is built as symmetric: use "
                "(start, end, start, end) or one integer.")


_register(Metric("dtw", "dissimilarity", "series", "dtaidistance (C)",
                 "dynamic time warping distance", dict.fromkeys(_DTW_KEYS)),
          _dtw_block, _dtw_prepare)
for _name, _kind, _desc in (("jaccard", "similarity", "|a & b| / |a | b|"),
                            ("tanimoto", "similarity", "Tanimoto = Jaccard on sets"),
                            ("jaccard-distance", "dissimilarity", "1 - Jaccard")):
    _register(Metric(_name, _kind, "sets", "scipy.sparse incidence products", _desc),
              _jaccard_block, lambda name, X, params, what, ids: check_sets(X, what, ids=ids))


def get_metric(name: str) -> Metric:
    """The :class:`Metric` record of a built-in measure (its ``kind``, objects, defaults).

    Examples
    --------
    >>> from proxlearn.pairwise import get_metric
    >>> get_metric("smith-waterman").defaults["matrix"]
    'blosum62'

    See Also
    --------
    Metric : the record returned.
    metric_kind : only its ``kind``.
    """
    if name not in METRICS:
        raise InvalidParameterError(
            f"unknown metric {name!r}; choose one of {', '.join(METRICS)} or pass a "
            "callable f(a, b) -> float."
        )
    return METRICS[name]


def resolve_params(metric: Metric, metric_params) -> dict:
    """The metric's defaults updated by ``metric_params`` (unknown keys are an error)."""
    params = dict(metric.defaults)
    extra = set(metric_params or {}) - set(params)
    if extra:
        accepted = ", ".join(params) or "none"
        raise InvalidParameterError(
            f"metric {metric.name!r} does not take {', '.join(sorted(extra))}; "
            f"accepted metric_params: {accepted}."
        )
    params.update(metric_params or {})
    return params


def prepare(name, X, params, what, ids):
    """Validate (and for normalised alignments, annotate) a list of objects."""
    return _PREPARE[name](name, X, params, what, ids)


def compute_block(name, A, B, params, same):
    """The ``(len(A), len(B))`` float64 block of a built-in metric (``same``: ``B is A``
    and only one triangle need be computed)."""
    return np.asarray(_BLOCK[name](name, A, B, params, same), dtype=np.float64)


def _short(obj, width=40) -> str:
    text = repr(obj)
    return text if len(text) <= width else text[:width - 3] + "..."


def callable_block(func, A, B, same, symmetric):
    """A block of a user's ``f(a, b)``, pair by pair (one triangle when symmetric)."""
    out = np.empty((len(A), len(B)), dtype=np.float64)
    for i, a in enumerate(A):
        start = i if (same and symmetric) else 0
        for j in range(start, len(B)):
            v = float(func(a, B[j]))
            if v != v:
                name = getattr(func, "__name__", "the metric")
                raise InvalidParameterError(
                    f"{name} returned NaN for the objects {_short(a)} and {_short(B[j])}; a "
                    "similarity must be a number for every pair (return a finite value, or "
                    "drop the objects it cannot compare).")
            out[i, j] = v
    if same and symmetric:
        iu = np.triu_indices(len(A), 1)
        out[iu[1], iu[0]] = out[iu]
    return out
