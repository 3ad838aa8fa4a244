"""
Kernel weights learned by multiple kernel learning on the UCI wine data
=======================================================================

Multiple kernel learning combines base kernels ``K = sum_t d_t K_t`` with
weights learned together with the SVM. :class:`~proxlearn.mkl.KernelBank`
builds the bank of Zhuang's thesis (chapter 4) from features: Gaussian kernels
of 10 widths and polynomial kernels of degrees 1-3, on all features and on each
feature alone (13 x 14 = 182 kernels for the 13 features of the UCI wine data,
which ships with scikit-learn).

:class:`~proxlearn.mkl.SimpleMKL` (an l1 constraint on the weights: sparse)
and :class:`~proxlearn.mkl.LpMKL` with ``p = 2`` (non-sparse) learn one
combination per pair of classes (one-vs-one). The figures show which kernels
they keep, and the accuracy on a held-out 30 % of the wines is compared with the
uniform average of the bank (:class:`~proxlearn.mkl.AverageKernelSVC`).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from proxlearn.mkl import AverageKernelSVC, KernelBank, LpMKL, SimpleMKL

wine = load_wine()
X_train, X_test, y_train, y_test = train_test_split(
    wine.data, wine.target, test_size=0.3, stratify=wine.target, random_state=0)

models = {
    "SimpleMKL (l1)": SimpleMKL(bank=KernelBank()),
    "LpMKL (p = 2)": LpMKL(p=2.0, bank=KernelBank()),
    "uniform average": AverageKernelSVC(bank=KernelBank()),
}
for name, model in models.items():
    model.fit(X_train, y_train)
    accuracy = np.mean(model.predict(X_test) == y_test)
    print(f"{name:16s} held-out accuracy {accuracy:.3f}")

simple = models["SimpleMKL (l1)"]
bank = simple.bank_
print(f"{bank.n_kernels_} kernels; SimpleMKL keeps "
      f"{', '.join(str(int(np.sum(w > 1e-6))) for w in simple.weights_)} "
      f"of them for the {len(simple.weights_)} pairs of classes")

# %%
# The weight of each feature
# --------------------------
# The weights summed over the 13 kernels of each single feature (and over the
# 13 kernels on all features), per pair of classes. SimpleMKL puts its weight
# on a few features; the l2 constraint of LpMKL spreads it.

features = [f for f, _, _ in bank.kernels_]
groups = ["all features"] + list(wine.feature_names)
pairs = [(a, b) for a in range(3) for b in range(a + 1, 3)]


def weight_per_feature(weights):
    """Rows: pairs of classes; columns: ``groups`` (weights summed per group)."""
    out = np.zeros((len(weights), len(groups)))
    for t, f in enumerate(features):
        out[:, 0 if f is None else f + 1] += weights[:, t]
    return out / out.sum(axis=1, keepdims=True)


fig, axes = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
x = np.arange(len(groups))
for ax, name in zip(axes, ("SimpleMKL (l1)", "LpMKL (p = 2)")):
    W = weight_per_feature(np.atleast_2d(models[name].weights_))
    for k, (a, b) in enumerate(pairs):
        ax.bar(x + (k - 1) * 0.27, W[k], width=0.27, label=f"class {a} vs {b}")
    ax.set_ylabel("share of the weight")
    ax.set_title(name)
axes[0].legend()
axes[1].set_xticks(x, groups, rotation=60, ha="right", fontsize=8)
fig.tight_layout()

# %%
# The kernels SimpleMKL keeps
# ---------------------------
# The ten largest weights of each pair's combination: the kernel (Gaussian of
# width sigma, or polynomial of a degree) and the feature it is computed on.



def kernel_label(t):
    """The bank's name of kernel ``t``, with the wine feature's name."""
    f, kind, parameter = bank.kernels_[t]
    on = "all features" if f is None else wine.feature_names[f]
    kernel = f"gaussian, sigma {parameter:g}" if kind == "gaussian" else f"poly, degree {parameter}"
    return f"{kernel}\n{on}"


fig, axes = plt.subplots(1, len(pairs), figsize=(12, 3.8))
for ax, (a, b), w in zip(axes, pairs, simple.weights_):
    top = np.argsort(w)[::-1][:10]
    ax.barh(np.arange(len(top)), w[top], color="tab:green")
    ax.set_yticks(np.arange(len(top)), [kernel_label(t) for t in top], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("weight")
    ax.set_title(f"class {a} vs {b}", fontsize=10)
fig.tight_layout()
