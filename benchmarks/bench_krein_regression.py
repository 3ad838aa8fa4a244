"""Held-out R^2 of the Kreĭn regressors on real targets (docs/benchmarks.md, "Kreĭn
learners at their defaults"): a UCI feature predicted from a sigmoid similarity
``tanh(2 z.z' / d - 0.5)`` (indefinite) of the other z-scored features (wine, heart,
diabetes capped to its first 400 samples), and aural sonar's two classes as a +-1
target; 5 random 70/30 splits (seeds 0-4), mean +- standard error.
Usage: ``python benchmarks/bench_krein_regression.py``.
"""

import _bench_env  # noqa: F401  (one thread, this tree first on the path)

import warnings

import numpy as np
warnings.simplefilter("ignore")
from proxlearn.datasets import load_feature_dataset, load_dataset
from proxlearn.krein import KreinSVR, KreinLeastSquares
from sklearn.svm import SVR
probs = {}
for name in ['wine','heart','diabetes']:
    fd=load_feature_dataset(name)
    X=np.asarray(fd.X,float); X=(X-X.mean(0))/X.std(0); Z=X[:,1:]
    if len(X) > 400: X, Z = X[:400], Z[:400]
    probs[name]=(np.tanh(Z@Z.T/Z.shape[1]*2-0.5), X[:,0], Z)
ds=load_dataset('aural_sonar'); probs['aural_sonar(+-1)']=(np.asarray(ds.matrix,float), 2.0*(ds.labels==ds.labels.max())-1, None)
for name,(S,t,Z) in probs.items():
    res={}
    n=len(t)
    for seed in range(5):
        p=np.random.default_rng(seed).permutation(n); tr,te=p[:int(.7*n)],p[int(.7*n):]
        for lab, est in [("KreinSVR C=1", KreinSVR(C=1.0)), ("KreinSVR C=0.1", KreinSVR(C=0.1)), ("KreinSVR auto", KreinSVR()), ("KreinLeastSquares", KreinLeastSquares())]:
            res.setdefault(lab,[]).append(est.fit(S[np.ix_(tr,tr)],t[tr]).score(S[np.ix_(te,tr)],t[te]))
        if Z is not None:
            res.setdefault("RBF SVR on features",[]).append(SVR().fit(Z[tr],t[tr]).score(Z[te],t[te]))
    print(name, " | ".join(f"{k}: {np.mean(v):.2f} ± {np.std(v,ddof=1)/np.sqrt(len(v)):.2f}" for k,v in res.items()))
