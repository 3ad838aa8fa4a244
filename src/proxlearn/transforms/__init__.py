"""Transforms of similarity matrices: symmetrisation, dissimilarity conversion,
spectrum modification (clip, flip, shift, square), similarities as features,
and the weighted combination of several similarity matrices.

Every transformer is fitted on the ``n x n`` training matrix and transforms
``m x n`` test-to-train matrices consistently with the training matrix.
"""

from ._combine import CombineSimilarities
from ._dissimilarity import DissimilarityToSimilarity
from ._features import SimilarityFeatures
from ._spectrum import SpectrumTransformer, modify_spectrum, spectrum_modify
from ._symmetrize import Symmetrize

__all__ = [
    "CombineSimilarities",
    "DissimilarityToSimilarity",
    "SimilarityFeatures",
    "SpectrumTransformer",
    "Symmetrize",
    "modify_spectrum",
    "spectrum_modify",
]
