"""User-similarity kernels from simple tables (Zhuang 2011, sec. 7.2.2).

=============================  ===============================================
function                       kernel (thesis name)
=============================  ===============================================
``cooccurrence_kernel``        shared items: groups (K4), common contacts (K5),
                               places (K6), favourites (K7)
``comment_kernel``             comments exchanged (K3)
``tfidf_cosine_kernel``        cosine of tf-idf tag vectors, idf over users (K2)
``centroid_rbf_kernel``        RBF between users' mean image histograms (K1)
``preprocess_user_kernel``     row-max scaling, symmetrising, shift to PSD
``social_user_kernels``        the seven of them, preprocessed, as an (n, n, 7) stack
=============================  ===============================================

The counts are not PSD in general (K3) or are on very different scales; the
thesis's preprocessing (digest 4.2) divides each row by its maximum,
symmetrises, and adds ``|lambda_min| I`` when the smallest eigenvalue is
negative.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._validation import InvalidParameterError

__all__ = [
    "SOCIAL_KERNEL_NAMES",
    "centroid_rbf_kernel",
    "comment_kernel",
    "cooccurrence_kernel",
    "preprocess_user_kernel",
    "social_user_kernels",
    "tfidf_cosine_kernel",
]

#: Names of the kernels of :func:`social_user_kernels`, in stack order (K1..K7).
SOCIAL_KERNEL_NAMES = ("visual", "textual", "comment", "group", "contact", "location", "fave")


def _table(A, name, *, square=False):
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or (square and A.shape[0] != A.shape[1]):
        shape = "square (n, n)" if square else "2-D (n_users, n_items)"
        raise InvalidParameterError(f"{name} must be a {shape} table, got shape {A.shape}.")
    if not np.all(np.isfinite(A)) or np.any(A < 0):
        raise InvalidParameterError(f"{name} must hold finite non-negative counts.")
    return A


def cooccurrence_kernel(incidence, *, binary=True) -> np.ndarray:
    """``B B^T``: how many items two users share; the diagonal counts each user's items.

    ``incidence`` is ``(n_users, n_items)``: group memberships (K4), contact
    lists (K5: common contacts), photo counts per place (K6), favourite marks
    (K7). ``binary=True`` counts an item once however often it occurs.

    Parameters
    ----------
    incidence : array-like of shape (n_users, n_items)
    binary : bool, default=True

    Returns
    -------
    K : ndarray of shape (n_users, n_users)

    Examples
    --------
    >>> from proxlearn.pairwise import cooccurrence_kernel
    >>> cooccurrence_kernel([[1, 1, 0], [0, 2, 1]]).tolist()
    [[2.0, 1.0], [1.0, 2.0]]

    See Also
    --------
    social_user_kernels : the seven kernels of a social network.
    """
    B = _table(incidence, "incidence")
    if binary:
        B = (B > 0).astype(np.float64)
    return B @ B.T


def comment_kernel(comments) -> np.ndarray:
    """``C + C^T`` of the comment counts ``C[i, j]`` (i on j's photos), K3.

    The diagonal keeps the self-comments (doubled, as the symmetrised count).

    Parameters
    ----------
    comments : array-like of shape (n_users, n_users)

    Returns
    -------
    K : ndarray of shape (n_users, n_users)

    Examples
    --------
    >>> from proxlearn.pairwise import comment_kernel
    >>> comment_kernel([[0, 2], [1, 0]]).tolist()
    [[0.0, 3.0], [3.0, 0.0]]

    See Also
    --------
    social_user_kernels : the seven kernels of a social network.
    """
    C = _table(comments, "comments", square=True)
    return C + C.T


def tfidf_cosine_kernel(counts) -> np.ndarray:
    """Cosine of tf-idf vectors, ``idf_t = log(n_users / users with tag t)`` (K2).

    Users without any tag get a zero row (and a zero self-similarity).

    Parameters
    ----------
    counts : array-like of shape (n_users, n_tags)

    Returns
    -------
    K : ndarray of shape (n_users, n_users)

    Examples
    --------
    >>> from proxlearn.pairwise import tfidf_cosine_kernel
    >>> tfidf_cosine_kernel([[1, 1, 0], [0, 1, 1], [0, 0, 0]]).round(3).tolist()
    [[1.0, 0.12, 0.0], [0.12, 1.0, 0.0], [0.0, 0.0, 0.0]]

    See Also
    --------
    social_user_kernels : the seven kernels of a social network.
    """
    T = _table(counts, "counts")
    df = np.count_nonzero(T, axis=0)
    idf = np.log(T.shape[0] / np.maximum(df, 1))
    X = T * idf
    norm = np.linalg.norm(X, axis=1)
    X = X / np.where(norm > 0, norm, 1.0)[:, None]
    return X @ X.T


def centroid_rbf_kernel(features, owner, n_users=None) -> np.ndarray:
    """``exp(-||u_i - u_j||^2 / sigma^2)`` of users' centroid features (K1).

    ``features`` (n_images, d) are per-image histograms (bags of visual
    words), ``owner`` the user of each image; ``sigma`` is the average
    Euclidean distance between the centroids (the thesis). A user without
    images sits at the mean of all images.

    Parameters
    ----------
    features : array-like of shape (n_images, d)
    owner : array-like of int, shape (n_images,)
    n_users : int, optional
        Number of users (default: ``owner.max() + 1``).

    Returns
    -------
    K : ndarray of shape (n_users, n_users)

    Examples
    --------
    >>> from proxlearn.pairwise import centroid_rbf_kernel
    >>> centroid_rbf_kernel([[0.0], [2.0], [4.0]], [0, 0, 1]).round(3).tolist()
    [[1.0, 0.368], [0.368, 1.0]]

    See Also
    --------
    social_user_kernels : the seven kernels of a social network.
    """
    F = np.asarray(features, dtype=np.float64)
    owner = np.asarray(owner)
    if F.ndim != 2 or owner.shape != (F.shape[0],) or owner.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"features must be (n_images, d) and owner n_images user indices, got "
            f"{F.shape} and {owner.shape}."
        )
    n = int(owner.max()) + 1 if n_users is None else int(n_users)
    sums = np.zeros((n, F.shape[1]))
    np.add.at(sums, owner, F)
    counts = np.bincount(owner, minlength=n)[:, None]
    U = np.where(counts > 0, sums / np.maximum(counts, 1), F.mean(axis=0))
    sq = np.maximum(((U[:, None] - U[None]) ** 2).sum(-1), 0.0)
    d = np.sqrt(sq)
    sigma = d[np.triu_indices(n, 1)].mean() if n > 1 else 1.0
    return np.exp(-sq / max(sigma, np.finfo(float).tiny) ** 2)


def preprocess_user_kernel(K) -> np.ndarray:
    """The thesis's preprocessing: rows divided by their maximum, ``(K + K^T)/2``,
    then ``+ |lambda_min| I`` if the smallest eigenvalue is negative.

    Rows whose maximum is not positive are left as they are.

    Parameters
    ----------
    K : array-like of shape (n, n)

    Returns
    -------
    K : ndarray of shape (n, n), symmetric positive semidefinite

    Examples
    --------
    >>> from proxlearn.pairwise import preprocess_user_kernel
    >>> preprocess_user_kernel([[2.0, 1.0], [4.0, 2.0]]).round(3).tolist()
    [[1.041, 0.75], [0.75, 0.541]]

    See Also
    --------
    social_user_kernels : applies it to each of the seven kernels.
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or not np.all(np.isfinite(K)):
        raise InvalidParameterError(f"K must be a finite square matrix, got shape {K.shape}.")
    mx = K.max(axis=1)
    K = K / np.where(mx > 0, mx, 1.0)[:, None]
    K = 0.5 * (K + K.T)
    lam_min = scipy.linalg.eigvalsh(K, subset_by_index=[0, 0])[0]
    if lam_min < 0:
        K = K + (-lam_min) * np.eye(K.shape[0])
    return K


def social_user_kernels(network) -> np.ndarray:
    """The seven kernels of sec. 7.2.2, preprocessed, as an ``(n, n, 7)`` stack.

    ``network`` has the tables of :class:`proxlearn.datasets.SocialNetwork`
    (``visual``/``owner``, ``tags``, ``comments``, ``groups``, ``contacts``,
    ``places``, ``favourites``); the order is :data:`SOCIAL_KERNEL_NAMES`.
    Note that K5 is built from the contact lists, so when contacts are also
    the target (friend prediction) it must be built from the training
    contacts only.

    Parameters
    ----------
    network : SocialNetwork

    Returns
    -------
    stack : ndarray of shape (n_users, n_users, 7)

    Examples
    --------
    >>> from proxlearn.datasets import make_social_network
    >>> from proxlearn.pairwise import social_user_kernels
    >>> social_user_kernels(make_social_network(n_users=30, random_state=0)).shape
    (30, 30, 7)

    See Also
    --------
    proxlearn.datasets.make_social_network : a network with these tables.
    proxlearn.mkl : learners on such stacks.
    """
    n = network.contacts.shape[0]
    raw = [
        centroid_rbf_kernel(network.visual, network.owner, n),
        tfidf_cosine_kernel(network.tags),
        comment_kernel(network.comments),
        cooccurrence_kernel(network.groups),
        cooccurrence_kernel(network.contacts),
        cooccurrence_kernel(network.places),
        cooccurrence_kernel(network.favourites),
    ]
    return np.stack([preprocess_user_kernel(K) for K in raw], axis=2)
