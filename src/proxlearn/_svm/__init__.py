"""The SVM machinery shared by the classifiers of every estimator package.

A low layer: it imports only :mod:`proxlearn._validation`,
:mod:`proxlearn.exceptions`, :mod:`proxlearn._normalize`, NumPy, SciPy and
scikit-learn, and
:mod:`proxlearn.svm`, :mod:`proxlearn.mkl`, :mod:`proxlearn.kernel_learning`,
:mod:`proxlearn.neighbors` and :mod:`proxlearn.discriminant` use it as peers.

* :mod:`._libsvm`: scikit-learn's libsvm binding without ``SVC``'s per-call
  validation (:func:`~._libsvm.libsvm_fit`, :func:`~._libsvm.small_svc`).
* :mod:`._dual`: the binary SVM dual on a precomputed kernel with warm start and
  polish (:func:`~._dual.svm_dual`), libsvm's KKT certificate
  (:func:`~._dual.kkt_violation`) and the bordered solve of the free set.
* :mod:`._multiclass`: the one-vs-one driver (pairs, sub-problems, votes and
  tie-breaks, the transductive assembly).
* :mod:`._platt`: Platt probabilities by internal cross-validation.
* :mod:`._transformed`: ``decision_function`` / ``predict`` of a
  precomputed-kernel SVM on a fitted kernel transform
  (:class:`~._transformed.TransformedSVCMixin`).
"""
