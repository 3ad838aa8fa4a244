"""Support vector machines on similarity data."""

from ._feature_svc import SimilarityFeatureSVC
from ._kernel_svc import SimilaritySVC
from ._lp_machine import LPMachine, lp_machine_path
from ._psvm import PotentialSVM

__all__ = [
    "LPMachine",
    "PotentialSVM",
    "SimilarityFeatureSVC",
    "SimilaritySVC",
    "lp_machine_path",
]
