"""Support vector machines on similarity data."""

from ._feature_svc import SimilarityFeatureSVC
from ._kernel_svc import SimilaritySVC
from ._lp_machine import LPMachine
from ._psvm import PotentialSVM

__all__ = ["LPMachine", "PotentialSVM", "SimilarityFeatureSVC", "SimilaritySVC"]
