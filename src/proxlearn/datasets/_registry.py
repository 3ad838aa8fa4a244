"""Registered data sets and the data search path.

Every named data set is one entry of :data:`REGISTRY`. File-based sets are
looked up, for each folder of :func:`data_search_path`, as
``<folder>/<subdir>/<file>`` and then ``<folder>/<file>``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.spatial.distance import pdist, squareform

from ..exceptions import InvalidParameterError
from ._base import DatasetNotFoundError, SimilarityDataset
from ._embedded import make_digits_idm, make_digits_similarity, make_wine_sigmoid
from ._io import SUPPORTED_SUFFIXES, load_similarity
from ._kind import DEFAULT_CONVERSION, resolve_kind
from ._multi import MULTI_REGISTRY, MultiSimilarityDataset
from ._synthetic import GU_GUO_SETTINGS, make_gu_guo_synthetic
from ._splice import SPLICE_SAMPLE, splice_alignment_dataset
from ._uci import UCI_FILES, uci_similarity_dataset

__all__ = [
    "REGISTRY",
    "DatasetRecord",
    "DatasetSpec",
    "data_search_path",
    "get_data_home",
    "list_datasets",
    "load_dataset",
]


@dataclass(frozen=True)
class DatasetSpec:
    """How to obtain one named data set.

    ``file`` (with ``subdir``) names a matrix file on the data search path and
    ``derive`` optionally transforms the loaded file; without ``file``,
    ``build`` makes the set from embedded data.

    Examples
    --------
    >>> from proxlearn.datasets import REGISTRY
    >>> spec = REGISTRY["synthetic-2"]
    >>> spec.n, spec.kind, spec.file is None
    (300, 'similarity', True)

    See Also
    --------
    REGISTRY : the registered specs.
    load_dataset : loads a registered name.
    """

    description: str
    n: int
    kind: str = "similarity"
    file: str | None = None
    subdir: str = ""
    derive: Callable[[SimilarityDataset], SimilarityDataset] | None = None
    build: Callable[[], SimilarityDataset] | None = None
    #: reads ``file`` itself (feature files); default: :func:`load_similarity`
    read: Callable[[Path], SimilarityDataset] | None = None

    @property
    def embedded(self) -> bool:
        return self.file is None


@dataclass(frozen=True)
class DatasetRecord:
    """One row of :func:`list_datasets`.

    Examples
    --------
    >>> from proxlearn.datasets import list_datasets
    >>> rec = next(r for r in list_datasets() if r.name == "synthetic-2")
    >>> rec.available, rec.n
    (True, 300)

    See Also
    --------
    list_datasets : returns one per registered set.
    """

    name: str
    available: bool
    location: str  # file path, "embedded", or "" when unavailable
    reason: str  # why it is unavailable ("" when available)
    kind: str
    n: int
    description: str


def _protein_rbf(ds: SimilarityDataset, squared: bool = False) -> SimilarityDataset:
    """Chen et al. (JMLR 2009, sec. 7.1) Protein RBF-sim over the rows ``s`` of the
    full 213 x 213 matrix (transductive, as in the paper).

    ``squared=False`` (``protein-rbf``): ``exp(-||s(x) - s(x')||_2)``, which
    reproduces the paper's Table 3 column; ``squared=True`` (``protein-rbf-sq``):
    ``exp(-||s(x) - s(x')||_2^2)``, the formula as printed, kept to show the
    difference."""
    name = "protein-rbf-sq" if squared else "protein-rbf"
    S = np.exp(-squareform(pdist(ds.matrix, metric="sqeuclidean" if squared else "euclidean")))
    return SimilarityDataset(matrix=S, labels=ds.labels, name=name,
                             description=REGISTRY[name].description,
                             class_names=ds.class_names, source=ds.source)


def _uw(description, n):
    return dict(description=description, n=n, subdir="uw")


#: name -> spec. Adding a data set in the same format is one entry.
REGISTRY: dict[str, DatasetSpec] = {
    "aural_sonar": DatasetSpec(
        file="aural_sonar.mat", **_uw(
            "Aural Sonar: human-judged similarity of sonar echoes, target vs clutter "
            "(Philips et al. 2006; Chen et al. 2009)", 100)),
    "protein": DatasetSpec(
        file="protein.mat", **_uw(
            "Protein: sequence-alignment similarity of globins, 4 classes "
            "(Hofmann & Buhmann 1997; Chen et al. 2009)", 213)),
    "voting": DatasetSpec(
        file="voting.mat", **_uw(
            "Voting: value-difference similarity of UCI congressional votes "
            "(Chen et al. 2009)", 435)),
    "protein-2": DatasetSpec(
        file="protein.mat",
        derive=lambda ds: ds.subset([1, 2], name="protein-2"),
        **_uw("Protein-2: classes 1 and 2 of Protein (Chen thesis 2010, ch. 5)", 144)),
    "protein-rbf": DatasetSpec(
        file="protein.mat", derive=_protein_rbf,
        **_uw("Protein RBF-sim: exp(-||s(x)-s(x')||_2) on the rows of Protein "
              "(Chen et al. 2009)", 213)),
    "protein-rbf-sq": DatasetSpec(
        file="protein.mat", derive=lambda ds: _protein_rbf(ds, squared=True),
        **_uw("Protein RBF-sim with the squared norm, exp(-||s(x)-s(x')||_2^2), as printed "
              "in Chen et al. (2009) sec. 7.1 (protein-rbf, unsquared, matches its tables)",
              213)),
    **{
        f"synthetic-{k}": DatasetSpec(
            description=(f"Gu & Guo 2012 Synth {k}: 3 Gaussian classes, sigma2={s2:g}, "
                         f"linear kernel + symmetric noise std eta/5, eta={eta:g}"),
            n=300,
            build=lambda s2=s2, eta=eta, k=k: _named(
                make_gu_guo_synthetic(s2, eta, random_state=k), f"synthetic-{k}"),
        )
        for k, (s2, eta) in GU_GUO_SETTINGS.items()
    },
    "digits-idm": DatasetSpec(
        description=("sklearn digits (40/class), Image Distortion Model "
                     "(Keysers et al. 2007) -> exp(-D/median)"),
        n=400, build=make_digits_idm),
    "digits-rbf": DatasetSpec(
        description="the digits of digits-idm, Euclidean RBF on pixels (PSD)",
        n=400, build=lambda: make_digits_similarity("rbf")),
    "digits-hog": DatasetSpec(
        description="the digits of digits-idm, cosine of gradient-orientation histograms",
        n=400, build=lambda: make_digits_similarity("hog")),
    **{
        f"{name}-noisy": DatasetSpec(
            file=UCI_FILES[name][0], subdir="uci", n=n,
            description=(f"UCI {display}, Gaussian kernel + symmetric noise (stand-in for "
                         "Kundu et al. 2010 Table 1's similarities)"),
            read=lambda path, name=name, display=display: uci_similarity_dataset(
                path, name, display))
        for name, display, n in (("sonar", "Sonar", 208), ("liver", "Liver (BUPA)", 345),
                                 ("ionosphere", "Ionosphere", 351),
                                 ("diabetes", "Pima diabetes", 768),
                                 ("heart", "Statlog heart", 270))
    },
    "splice-sw": DatasetSpec(
        file=UCI_FILES["splice"][0], subdir="uci", n=SPLICE_SAMPLE,
        description=("UCI splice junctions: DNA sequences (LIBSVM splice.train, a stratified "
                     "400), normalised Smith-Waterman local alignment (pairwise builder)"),
        read=splice_alignment_dataset),
    "wine-sigmoid": DatasetSpec(
        description="sklearn wine, indefinite sigmoid kernel (as Gu & Guo 2012 on Glass)",
        n=178, build=make_wine_sigmoid),
}


def _named(ds: SimilarityDataset, name: str) -> SimilarityDataset:
    ds.name = name
    return ds


def get_data_home() -> Path:
    """Per-user data folder: ``$XDG_DATA_HOME/proxlearn`` or
    ``~/.local/share/proxlearn`` (not created here).

    Examples
    --------
    >>> from proxlearn.datasets import get_data_home
    >>> get_data_home().name
    'proxlearn'

    See Also
    --------
    data_search_path : every folder searched for data files.
    fetch_uw : downloads into it.
    """
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "proxlearn"


def _checkout_data_dirs(module_file=__file__) -> list[Path]:
    """``../shared/data`` next to the source checkout this package runs from.

    Only that one documented place: the checkout is the folder holding
    ``pyproject.toml`` and ``src/proxlearn`` three levels above this module
    (an editable install). An installed package, or the current directory,
    never makes proxlearn look in arbitrary parent folders (a stray copy in a
    parent of the working directory would be loaded silently).
    """
    module = Path(module_file).resolve()
    repo = module.parents[3] if len(module.parents) > 3 else None
    if (repo is None or module.parents[1].name != "proxlearn"
            or module.parents[2].name != "src" or not (repo / "pyproject.toml").is_file()):
        return []
    cand = repo.parent / "shared" / "data"
    return [cand] if cand.is_dir() else []


def data_search_path(data_home=None) -> list[Path]:
    """Folders searched for data files, in order, without duplicates.

    1. ``data_home``; 2. every entry of ``$PROXLEARN_DATA`` (separated by
    ``os.pathsep``); 3. :func:`get_data_home`; 4. ``../shared/data`` next to
    the source checkout, when proxlearn runs from one (never relative to the
    current directory).

    Examples
    --------
    >>> from proxlearn.datasets import data_search_path
    >>> data_search_path("/tmp/my-data")[0].as_posix()
    '/tmp/my-data'

    See Also
    --------
    get_data_home, load_dataset
    """
    dirs = [Path(data_home).expanduser()] if data_home is not None else []
    dirs += [Path(p).expanduser() for p in
             os.environ.get("PROXLEARN_DATA", "").split(os.pathsep) if p.strip()]
    dirs.append(get_data_home())
    dirs += _checkout_data_dirs()
    out, seen = [], set()
    for d in dirs:
        key = os.path.normcase(os.path.abspath(d))
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _candidates(spec: DatasetSpec, data_home) -> list[Path]:
    out = []
    for d in data_search_path(data_home):
        if spec.subdir:
            out.append(d / spec.subdir / spec.file)
        out.append(d / spec.file)
    return out


def _locate(name: str, spec: DatasetSpec, data_home) -> Path:
    cands = _candidates(spec, data_home)
    for c in cands:
        if c.is_file():
            return c
    where = "; ".join(str(c) for c in cands)
    target = f"{spec.subdir}/{spec.file}" if spec.subdir else spec.file
    raise DatasetNotFoundError(
        f"data set {name!r} needs the file {spec.file!r}, which was not found. "
        f"Searched: {where}. "
        + (f"Download it with `proxlearn fetch {name}` (proxlearn.datasets.fetch_uw), or put "
           if spec.subdir == "uw" else "Put ")
        + f"{target} in {get_data_home()} (or any folder) and point the PROXLEARN_DATA "
        "environment variable (or data_home=, or --data-home) to that folder."
    )


def load_dataset(name_or_path, *, data_home=None, kind="auto", convert=DEFAULT_CONVERSION,
                 labels_path=None, require_labels=True
                 ) -> SimilarityDataset | MultiSimilarityDataset:
    """Load a registered data set by name, or any matrix file by path.

    A name of :data:`MULTI_REGISTRY` (``protein-multi``, ``digits-multi``) returns a
    :class:`MultiSimilarityDataset` stacking registered sets over the same objects;
    so does ``"a+b+..."`` for any names or paths over the same objects (same labels
    in the same order, checked), e.g. ``"blast.mat+sw.mat+nw.mat"``.

    Parameters
    ----------
    name_or_path : str or Path
        A name from :func:`list_datasets` or a path accepted by
        :func:`load_similarity`.
    data_home : str or Path, optional
        Extra folder searched first for data files.
    kind : {"auto", "similarity", "dissimilarity"}, default="auto"
        Whether the matrix holds similarities; ``"auto"`` detects and converts
        a dissimilarity with ``convert`` (see :func:`resolve_kind`). The
        registered sets are similarities and are never converted by ``"auto"``.
    convert : str or None, default="negative"
        Conversion of a dissimilarity (``s = -d`` by default); ``None`` keeps it.
    labels_path, require_labels
        For a file path, as in :func:`load_similarity`. A registered set has
        its own labels: ``labels_path`` is refused there.

    Raises
    ------
    DatasetNotFoundError
        Unknown name, or the data set's file is not on the search path (the
        message lists every place searched).

    Examples
    --------
    >>> from proxlearn.datasets import load_dataset
    >>> ds = load_dataset("synthetic-2")
    >>> ds.matrix.shape, sorted(set(ds.labels.tolist()))
    ((300, 300), [1, 2, 3])

    See Also
    --------
    list_datasets : the registered names and where they are.
    load_similarity : any matrix file.
    load_feature_dataset : feature-vector data sets.
    """
    key = str(name_or_path)
    if key in MULTI_REGISTRY:  # several registered sets over the same objects
        if labels_path is not None:
            raise InvalidParameterError(
                f"{key!r} is a registered multi-similarity set with its own labels.")
        multi = MULTI_REGISTRY[key]
        return MultiSimilarityDataset.from_datasets(
            [load_dataset(p, data_home=data_home, kind=kind, convert=convert)
             for p in multi.parts], name=key, description=multi.description)
    if "+" in key and key not in REGISTRY and not Path(key).expanduser().exists():
        # "a+b": several sets over the same objects, stacked (a MultiSimilarityDataset)
        parts = [p for p in key.split("+") if p]
        return MultiSimilarityDataset.from_datasets(
            [load_dataset(p, data_home=data_home, kind=kind, convert=convert,
                          labels_path=labels_path, require_labels=require_labels)
             for p in parts], name=key)
    spec = REGISTRY.get(key)
    if spec is not None:
        if labels_path is not None:
            raise InvalidParameterError(
                f"{key!r} is a registered data set with its own labels; a labels file "
                "applies to a matrix file given by its path."
            )
        if spec.embedded:
            return resolve_kind(spec.build(), kind, convert)
        path = _locate(key, spec, data_home)
        if spec.read is not None:
            return resolve_kind(spec.read(path), kind, convert)
        ds = load_similarity(path, kind="similarity", name=key, description=spec.description)
        return resolve_kind(spec.derive(ds) if spec.derive else ds, kind, convert)
    path = Path(key).expanduser()
    if path.exists() or path.suffix.lower() in SUPPORTED_SUFFIXES:
        return load_similarity(path, kind=kind, convert=convert, labels_path=labels_path,
                               require_labels=require_labels)
    raise DatasetNotFoundError(
        f"unknown data set {key!r}. Registered names: {', '.join(REGISTRY)}; several "
        f"similarities of the same objects: {', '.join(MULTI_REGISTRY)}, or any 'a+b+...' "
        f"of names or files. Or give a path to a {'/'.join(SUPPORTED_SUFFIXES)} file."
    )


def list_datasets(data_home=None) -> list[DatasetRecord]:
    """Every registered data set, with whether (and where) it is available.

    File-based sets are located but not loaded; embedded sets are always
    available (built on demand from data shipped with scikit-learn or
    generated).

    Parameters
    ----------
    data_home : str or Path, optional
        Searched first, as in :func:`load_dataset`.

    Returns
    -------
    list of DatasetRecord

    Examples
    --------
    >>> from proxlearn.datasets import list_datasets
    >>> [r.name for r in list_datasets()][6:10]
    ['synthetic-1', 'synthetic-2', 'synthetic-3', 'synthetic-4']

    See Also
    --------
    load_dataset, list_feature_datasets
    """
    out = []
    for name, spec in REGISTRY.items():
        if spec.embedded:
            loc, reason = "embedded", ""
        else:
            try:
                loc, reason = str(_locate(name, spec, data_home)), ""
            except DatasetNotFoundError:
                loc = ""
                reason = (f"{spec.file} not found on the data search path "
                          "(set PROXLEARN_DATA)")
        out.append(DatasetRecord(name=name, available=bool(loc), location=loc,
                                 reason=reason, kind=spec.kind, n=spec.n,
                                 description=spec.description))
    singles = {r.name: r for r in out}
    for name, multi in MULTI_REGISTRY.items():
        missing = [p for p in multi.parts if p not in singles or not singles[p].available]
        out.append(DatasetRecord(
            name=name, available=not missing,
            location="" if missing else " + ".join(multi.parts),
            reason=f"needs {', '.join(missing)}" if missing else "", kind="similarity",
            n=multi.n, description=multi.description))
    return out
