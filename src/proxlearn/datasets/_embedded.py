"""Real similarity data built at load time from data bundled with scikit-learn.

Nothing here uses the network: scikit-learn ships the digits and wine data
inside its package.

* ``digits-idm``: Image Distortion Model distances (Keysers et al., "Deformation
  models for image recognition", IEEE TPAMI 29(8), 2007) between handwritten
  digits; asymmetric and non-metric, hence an indefinite similarity.
* ``wine-sigmoid``: the indefinite sigmoid kernel, as Gu & Guo (AAAI 2012,
  section 5) use on Glass.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from ._base import SimilarityDataset
from ._gram import gram

__all__ = [
    "IDM_VERSION",
    "get_cache_home",
    "idm_distances",
    "make_digits_idm",
    "make_digits_similarity",
    "make_wine_sigmoid",
]

#: Bump when the IDM computation changes so cached matrices are rebuilt.
IDM_VERSION = "1"


def get_cache_home() -> Path:
    """Cache folder: ``$PROXLEARN_CACHE``, else ``$XDG_CACHE_HOME/proxlearn``,
    else ``~/.cache/proxlearn``. Not created here.

    Examples
    --------
    >>> import os
    >>> from proxlearn.datasets import get_cache_home
    >>> get_cache_home().name == "proxlearn" or "PROXLEARN_CACHE" in os.environ
    True

    See Also
    --------
    get_data_home : the folder of downloaded data files.
    """
    env = os.environ.get("PROXLEARN_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "proxlearn"


# --------------------------------------------------------------------------
# Image Distortion Model
# --------------------------------------------------------------------------

def _sobel(imgs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal and vertical Sobel gradients, zero outside the image."""
    p = np.pad(imgs, ((0, 0), (1, 1), (1, 1)))
    H, W = imgs.shape[1:]

    def s(dy, dx):
        return p[:, 1 + dy:1 + dy + H, 1 + dx:1 + dx + W]

    gx = (s(-1, 1) + 2 * s(0, 1) + s(1, 1)) - (s(-1, -1) + 2 * s(0, -1) + s(1, -1))
    gy = (s(1, -1) + 2 * s(1, 0) + s(1, 1)) - (s(-1, -1) + 2 * s(-1, 0) + s(-1, 1))
    return gx / 8.0, gy / 8.0


def _local_features(imgs: np.ndarray, features: str, context: int) -> np.ndarray:
    """Per-pixel feature vectors: values in a (2c+1)^2 context window.

    Returns shape (H, W, n, f) with ``f`` padded with zero columns to a
    multiple of 8 (some BLAS builds are very slow for odd inner sizes; zeros do
    not change any distance).
    """
    maps = []
    if features in ("pixel", "both"):
        maps.append(imgs)
    if features in ("gradient", "both"):
        maps.extend(_sobel(imgs))
    if not maps:
        raise ValueError(f"features must be 'pixel', 'gradient' or 'both', got {features!r}.")
    F = np.stack(maps, axis=-1)
    n, H, W, _ = F.shape
    c = int(context)
    P = np.pad(F, ((0, 0), (c, c), (c, c), (0, 0)))
    ctx = [P[:, c + dy:c + dy + H, c + dx:c + dx + W]
           for dy in range(-c, c + 1) for dx in range(-c, c + 1)]
    F = np.concatenate(ctx, axis=-1)
    pad = (-F.shape[-1]) % 8
    F = np.pad(F, ((0, 0), (0, 0), (0, 0), (0, pad)))
    return np.ascontiguousarray(F.transpose(1, 2, 0, 3))


def idm_distances(images, *, window=1, context=1, features="gradient", block=50):
    """Image Distortion Model distances ``D[a, b]`` (Keysers et al. 2007, sec. 4).

    Every pixel ``(i, j)`` of image ``a`` is matched to the best pixel of image
    ``b`` within ``window`` pixels (``|di|, |dj| <= window``, inside the image):

        D[a, b] = sum_{i,j} min_{di,dj} || f_a(i, j) - f_b(i + di, j + dj) ||^2

    where ``f(i, j)`` is the local feature vector: the values (``"pixel"``),
    the horizontal and vertical Sobel gradients (``"gradient"``, Keysers'
    best-performing choice) or both, taken over a ``(2 context + 1)^2``
    neighbourhood (zero outside the image). Each pixel moves independently, so
    ``D`` is asymmetric, violates the triangle inequality, and has a zero
    diagonal.

    Vectorised over image pairs: for each displacement the squared differences
    of all pixel pairs come from one batched matrix product
    (``|u|^2 + |v|^2 - 2 u.v``), and rows are processed in blocks of ``block``
    images to bound memory at about ``64 * block * n * 8`` bytes per array for
    8 x 8 images.

    Parameters
    ----------
    images : array-like of shape (n, H, W)
    window : int
        Warp range (maximum displacement).
    context : int
        Radius of the local context window (0 = the single pixel).
    features : {"gradient", "pixel", "both"}
    block : int
        Number of query images per block.

    Returns
    -------
    D : ndarray of shape (n, n), float64, ``D[a, b]`` = cost of warping ``b``
        onto ``a``.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from proxlearn.datasets import idm_distances
    >>> D = idm_distances(load_digits().images[:5])
    >>> D.shape, bool((D >= 0).all())
    ((5, 5), True)

    See Also
    --------
    make_digits_idm : the digits-idm data set built from it.
    """
    imgs = np.asarray(images, dtype=np.float64)
    if imgs.ndim != 3:
        raise ValueError(f"images must have shape (n, H, W), got {imgs.shape}.")
    F = _local_features(imgs, features, context)  # (H, W, n, f)
    H, W, n, _ = F.shape
    FB = np.ascontiguousarray(F.transpose(0, 1, 3, 2))  # (H, W, f, n)
    sq = np.einsum("hwnf,hwnf->hwn", F, F)
    w = int(window)
    D = np.empty((n, n))
    for start in range(0, n, block):
        stop = min(start + block, n)
        FA, sa = F[:, :, start:stop], sq[:, :, start:stop]
        best = np.full((H, W, stop - start, n), np.inf)
        for dy in range(-w, w + 1):
            for dx in range(-w, w + 1):
                ya = slice(max(0, -dy), H - max(0, dy))
                xa = slice(max(0, -dx), W - max(0, dx))
                yb = slice(max(0, dy), H - max(0, -dy))
                xb = slice(max(0, dx), W - max(0, -dx))
                cost = np.matmul(FA[ya, xa], FB[yb, xb])
                cost *= -2.0
                cost += sa[ya, xa, :, None]
                cost += sq[yb, xb, None, :]
                np.minimum(best[ya, xa], cost, out=best[ya, xa])
        np.maximum(best, 0.0, out=best)  # rounding in the expansion
        D[start:stop] = best.sum(axis=(0, 1))
    np.fill_diagonal(D, 0.0)
    return D


def _digits_subset(n_per_class: int, random_state: int):
    from sklearn.datasets import load_digits

    digits = load_digits()
    rng = np.random.default_rng(random_state)
    idx = []
    for c in range(10):
        members = np.flatnonzero(digits.target == c)
        if n_per_class > members.size:
            raise ValueError(
                f"n_per_class={n_per_class} but digit {c} has only {members.size} images."
            )
        idx.append(rng.choice(members, size=n_per_class, replace=False))
    idx = np.sort(np.concatenate(idx))
    return digits.images[idx], digits.target[idx], idx


def _build_digits_idm(n_per_class, window, context, features, random_state):
    images, y, idx = _digits_subset(n_per_class, random_state)
    D = idm_distances(images, window=window, context=context, features=features)
    Ds = 0.5 * (D + D.T)
    scale = float(np.median(Ds[~np.eye(len(Ds), dtype=bool)]))
    S = np.exp(-Ds / scale)
    return S, y, idx, D, scale


def make_digits_idm(n_per_class=40, *, window=1, context=1, features="gradient",
                    random_state=0, cache=True, return_distances=False):
    """Handwritten digits under the Image Distortion Model, as a similarity.

    A stratified random subset (``n_per_class`` images of each digit, seeded)
    of scikit-learn's bundled 8 x 8 digits (1797 images, 10 classes) is
    compared with :func:`idm_distances` (Keysers et al. 2007). The asymmetric
    distance ``D`` is symmetrised, ``D_s = (D + D^T) / 2``, and turned into a
    similarity ``S = exp(-D_s / m)`` with ``m`` the median off-diagonal entry
    of ``D_s``; ``S`` has unit diagonal and, because the IDM is non-metric,
    is indefinite.

    The matrix is cached as ``.npz`` in :func:`get_cache_home`, keyed by
    :data:`IDM_VERSION` and every parameter; a missing or unreadable cache
    file is rebuilt (about a second for 400 images).

    Parameters
    ----------
    n_per_class : int
        Images per digit (default 40, n = 400).
    window, context, features
        See :func:`idm_distances`.
    random_state : int
        Seed of the subset.
    cache : bool
        Read and write the cache.
    return_distances : bool
        Also return the raw asymmetric ``D`` (never cached; forces a build).

    Returns
    -------
    dataset : SimilarityDataset
    D : ndarray of shape (n, n), only when ``return_distances=True``.

    Examples
    --------
    >>> from proxlearn.datasets import make_digits_idm
    >>> ds = make_digits_idm(n_per_class=3, cache=False)
    >>> ds.matrix.shape, len(set(ds.labels.tolist()))
    ((30, 30), 10)

    See Also
    --------
    make_digits_similarity : the same digits under other similarities.
    idm_distances : the distance it converts.
    """
    params = (int(n_per_class), int(window), int(context), str(features), int(random_state))
    key = "digits-idm-v{}-n{}-w{}-c{}-{}-s{}.npz".format(IDM_VERSION, *params)
    path = get_cache_home() / key
    S = y = idx = D = None
    if cache and not return_distances and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as z:
                S, y, idx, scale = z["S"], z["y"], z["idx"], float(z["scale"])
            if S.shape != (y.size, y.size) or not np.all(np.isfinite(S)):
                S = None
        except Exception:  # corrupt cache: rebuild below
            S = None
    if S is None:
        S, y, idx, D, scale = _build_digits_idm(*params)
        if cache:
            _write_cache(path, S=S, y=y, idx=idx, scale=np.float64(scale))
    ds = SimilarityDataset(
        matrix=S, labels=y, name="digits-idm", kind="similarity",
        class_names=tuple(str(c) for c in range(10)),
        description=(
            f"sklearn 8x8 digits ({params[0]}/class), Image Distortion Model "
            f"(Keysers et al. 2007; {features} {2 * params[2] + 1}x{2 * params[2] + 1} "
            f"context, warp {params[1]}), S = exp(-sym(D)/median)"
        ),
        source="embedded",
    )
    return (ds, D) if return_distances else ds


def _write_cache(path: Path, **arrays) -> None:
    """Write atomically; silently skip when the cache folder is not writable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp.npz")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except OSError:
        pass


# --------------------------------------------------------------------------
# Sigmoid kernel
# --------------------------------------------------------------------------

def make_wine_sigmoid(a=None, c=-0.5):
    """Sigmoid kernel ``tanh(a <x, x'> + c)`` on scikit-learn's wine data.

    Mirrors Gu & Guo's (AAAI 2012, section 5) sigmoid kernel on Glass, whose
    parameters the paper does not give. The 13 features of the 178 wines
    (3 cultivars, 59/71/48) are standardised (zero mean, unit variance); the
    defaults ``a = 1 / n_features`` and ``c = -0.5`` give a clearly
    indefinite matrix (about 107 negative eigenvalues, negative mass ratio
    about 0.55) whose diagonal stays positive. The sigmoid kernel is not PSD
    for any ``a > 0`` in general (Lin & Lin 2003).

    Returns
    -------
    SimilarityDataset

    Examples
    --------
    >>> from proxlearn.datasets import describe, make_wine_sigmoid
    >>> ds = make_wine_sigmoid()
    >>> ds.matrix.shape, describe(ds)["n_negative_eigenvalues"] > 50
    ((178, 178), True)

    See Also
    --------
    load_dataset : ``load_dataset("wine-sigmoid")`` returns the same set.
    proxlearn.transforms.SpectrumTransformer : makes it positive semidefinite.
    """
    from sklearn.datasets import load_wine

    wine = load_wine()
    X = wine.data.astype(np.float64)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    a = 1.0 / X.shape[1] if a is None else float(a)
    return SimilarityDataset(
        matrix=np.tanh(a * gram(X) + c), labels=wine.target, name="wine-sigmoid",
        kind="similarity", class_names=tuple(str(t) for t in wine.target_names),
        description=(
            f"sklearn wine (standardised), sigmoid kernel tanh({a:.4g}<x,x'> {c:+g}) "
            "as Gu & Guo 2012 on Glass"
        ),
        source="embedded",
    )


# --------------------------------------------------------------------------
# Further similarities between the digits of digits-idm (multi-similarity sets)
# --------------------------------------------------------------------------

def _orientation_histograms(images: np.ndarray, bins: int = 8, cell: int = 4) -> np.ndarray:
    """Magnitude-weighted gradient-orientation histograms on ``cell x cell`` pixel
    cells (a minimal HOG without block normalisation), one row per image."""
    gx, gy = _sobel(images.astype(np.float64))
    mag = np.hypot(gx, gy)
    b = np.floor((np.arctan2(gy, gx) + np.pi) / (2 * np.pi) * bins).astype(int) % bins
    n, H, W = images.shape
    cy, cx = np.meshgrid(np.arange(H) // cell, np.arange(W) // cell, indexing="ij")
    ncx = -(-W // cell)
    slot = (cy * ncx + cx)[None] * bins + b  # (n, H, W): cell and bin of each pixel
    hist = np.zeros((n, (-(-H // cell)) * ncx * bins))
    np.add.at(hist, (np.repeat(np.arange(n), H * W), slot.reshape(n, -1).ravel()),
              mag.reshape(n, -1).ravel())
    return hist


def make_digits_similarity(measure, n_per_class=40, *, random_state=0):
    """The digits of :func:`make_digits_idm` (same subset, same order) under another
    similarity, for the multi-similarity set ``digits-multi``.

    ``measure="rbf"``: ``exp(-||x - x'||^2 / median)`` on the 64 pixel values (PSD).
    ``measure="hog"``: cosine similarity of gradient-orientation histograms
    (8 orientations on 4 x 4 pixel cells, magnitude weighted; PSD).

    Parameters
    ----------
    measure : {"rbf", "hog"}
    n_per_class : int, default=40
    random_state : int, default=0
        The digit subset, as :func:`make_digits_idm`.

    Returns
    -------
    SimilarityDataset

    Examples
    --------
    >>> from proxlearn.datasets import make_digits_similarity
    >>> ds = make_digits_similarity("rbf", n_per_class=5)
    >>> ds.name, ds.matrix.shape
    ('digits-rbf', (50, 50))

    See Also
    --------
    make_digits_idm : the same digits under the IDM distance.
    MultiSimilarityDataset : ``digits-multi`` stacks the three.
    """
    images, y, _ = _digits_subset(int(n_per_class), int(random_state))
    if measure == "rbf":
        X = images.reshape(len(images), -1).astype(np.float64)
        sq = (X * X).sum(1)
        D2 = np.maximum(sq[:, None] + sq[None] - 2 * gram(X), 0.0)
        np.fill_diagonal(D2, 0.0)
        S = np.exp(-D2 / float(np.median(D2[~np.eye(len(X), dtype=bool)])))
        what = "Euclidean RBF exp(-d^2/median) on the 64 pixels"
    elif measure == "hog":
        Hh = _orientation_histograms(images)
        Hh /= np.maximum(np.linalg.norm(Hh, axis=1, keepdims=True), 1e-300)
        S = gram(Hh)
        what = "cosine of gradient-orientation histograms (8 bins, 4x4 cells)"
    else:
        raise ValueError(f"measure must be 'rbf' or 'hog', got {measure!r}.")
    return SimilarityDataset(
        matrix=0.5 * (S + S.T), labels=y, name=f"digits-{measure}", kind="similarity",
        class_names=tuple(str(c) for c in range(10)),
        description=f"the digits of digits-idm ({n_per_class}/class), {what}",
        source="embedded")
