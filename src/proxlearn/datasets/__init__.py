"""Similarity data sets: loaders, a registry of named sets, and generators.

* :func:`load_dataset` / :func:`list_datasets`: named sets. The UW benchmarks
  (``aural_sonar``, ``protein``, ``voting`` and the derived ``protein-2``,
  ``protein-rbf``; Chen et al., JMLR 2009) are read from the data search path
  (:func:`data_search_path`: ``data_home``, ``$PROXLEARN_DATA``,
  :func:`get_data_home`, ``../shared/data`` of a checkout). Embedded sets need
  no files: ``synthetic-1`` ... ``synthetic-4`` (Gu & Guo, AAAI 2012),
  ``digits-idm`` (and the same digits as ``digits-rbf``, ``digits-hog``) and
  ``wine-sigmoid``.
* :class:`MultiSimilarityDataset`: ``m`` matrices over the same objects, stacked
  ``(n, n, m)`` (Kundu et al. 2010); registered: ``protein-multi``, ``digits-multi``.
* :func:`fetch_uw`: download a UW benchmark file (pinned commit, SHA-256 checked)
  into the per-user data folder.
* :func:`load_similarity`: any ``.mat`` / ``.npz`` / ``.csv`` / ``.txt`` file.
* :func:`resolve_kind`: a dissimilarity is detected (``kind="auto"``) or declared
  and converted once at load time (``s = -d`` by default).
* :func:`describe`: size, symmetry and spectrum summary (``proxlearn info``).
* :func:`load_feature_dataset` / :func:`list_feature_datasets`: feature vectors
  (:class:`FeatureDataset`, not yet a similarity) of the benchmarks of Zhuang
  (2011) ch. 3-5: UCI / LIBSVM files under ``uci/`` on the data search path,
  scikit-learn's iris and wine, and the generators :func:`make_banana`,
  :func:`make_ringnorm`, :func:`make_waveform`, :func:`make_chessboard`,
  :func:`make_spiral`.
"""

from ._base import EIGENVALUE_RTOL, DatasetNotFoundError, SimilarityDataset, describe
from ._embedded import (
    get_cache_home,
    idm_distances,
    make_digits_idm,
    make_digits_similarity,
    make_wine_sigmoid,
)
from ._features import (
    FEATURE_REGISTRY,
    FEATURE_UNAVAILABLE,
    FeatureDataset,
    FeatureRecord,
    FeatureSpec,
    list_feature_datasets,
    load_feature_dataset,
    make_banana,
    make_chessboard,
    make_ringnorm,
    make_spiral,
    make_waveform,
    waveform_base_waves,
)
from ._fetch import UW_BASE_URL, UW_FILES, fetch_uw
from ._io import SUPPORTED_SUFFIXES, load_similarity
from ._kind import DEFAULT_CONVERSION, KIND_OPTIONS, resolve_kind
from ._multi import MULTI_REGISTRY, MultiSimilarityDataset, MultiSpec
from ._registry import (
    REGISTRY,
    DatasetRecord,
    DatasetSpec,
    data_search_path,
    get_data_home,
    list_datasets,
    load_dataset,
)
from ._social import SocialNetwork, make_social_network
from ._strings import PROTEIN_ALPHABET, make_mutated_strings
from ._synthetic import GU_GUO_MEANS, GU_GUO_SETTINGS, make_gu_guo_synthetic, make_noisy_blobs

__all__ = [
    "DEFAULT_CONVERSION",
    "EIGENVALUE_RTOL",
    "FEATURE_REGISTRY",
    "FEATURE_UNAVAILABLE",
    "GU_GUO_MEANS",
    "GU_GUO_SETTINGS",
    "KIND_OPTIONS",
    "MULTI_REGISTRY",
    "REGISTRY",
    "SUPPORTED_SUFFIXES",
    "UW_BASE_URL",
    "UW_FILES",
    "DatasetNotFoundError",
    "DatasetRecord",
    "DatasetSpec",
    "FeatureDataset",
    "FeatureRecord",
    "FeatureSpec",
    "MultiSimilarityDataset",
    "MultiSpec",
    "PROTEIN_ALPHABET",
    "SimilarityDataset",
    "SocialNetwork",
    "data_search_path",
    "describe",
    "fetch_uw",
    "get_cache_home",
    "get_data_home",
    "idm_distances",
    "list_datasets",
    "list_feature_datasets",
    "load_dataset",
    "load_feature_dataset",
    "load_similarity",
    "make_banana",
    "make_chessboard",
    "make_digits_idm",
    "make_digits_similarity",
    "make_gu_guo_synthetic",
    "make_mutated_strings",
    "make_noisy_blobs",
    "make_ringnorm",
    "make_social_network",
    "make_spiral",
    "make_waveform",
    "make_wine_sigmoid",
    "resolve_kind",
    "waveform_base_waves",
]
