"""Support vector machines on similarity data.

Every SVM-type classifier takes ``probability=True`` (Platt scaling by internal
cross-validation, :mod:`proxlearn._svm._platt`);
:class:`SimilarityCalibratedClassifier` calibrates any similarity classifier
(scikit-learn's ``CalibratedClassifierCV`` slices only rows of the matrix).
"""

from ._calibration import SimilarityCalibratedClassifier
from ._feature_svc import SimilarityFeatureSVC
from ._feature_svr import SimilarityFeatureSVR
from ._kernel_svc import SimilaritySVC
from ._kernel_svc_cv import SimilaritySVCCV
from ._kernel_svr import SimilaritySVR
from ._lp_machine import LPMachine, lp_machine_path
from ._one_class import SimilarityOneClassSVM
from ._psvm import PotentialSVM

__all__ = [
    "LPMachine",
    "PotentialSVM",
    "SimilarityCalibratedClassifier",
    "SimilarityFeatureSVC",
    "SimilarityFeatureSVR",
    "SimilarityOneClassSVM",
    "SimilaritySVC",
    "SimilaritySVCCV",
    "SimilaritySVR",
    "lp_machine_path",
]
