"""
Re-ranking, tie strength and kernel completion (Zhuang ch. 6-7, Chen ch. 6)
===========================================================================

Demonstrations of Zhuang (2011) ch. 6-7 and Chen (2010) ch. 6 on data we have.

The thesis's Flickr crawls are not available and Chen's chapter 6 has no
experiments, so nothing here reproduces a published table. Each part is a
demonstration on data that ships with an installed package (scikit-learn's
8x8 digits) or on the project's documented generator, against the obvious
baselines, over repeated random draws (mean and standard deviation over the
draws):

1. **Re-ranking** (ch. 6). Every digit image gets noisy, incomplete "tags":
   its class tag with probability 0.6, each of 5 related tags of its class
   (like "paris" for "eiffel tower") with probability 0.2, and Poisson(3)
   noise tags; its pixels get Gaussian noise (sd 0.35). A query ``q`` is
   one class tag; its candidate set is (up to 200 of) the images tagged
   ``q``, and an image is relevant when its true class is ``q``. Rankings:
   *Raw* (the text search's order, random), *Text* (VisualRank on the tf-idf
   cosine kernel of the tags), *Linear* / *RBF* (VisualRank on visual kernels
   of the pixels), and *NPK* (VisualRank on the kernel of eq. 6.2 learned by
   :class:`proxlearn.ranking.NPKReranker` from the RBF kernel and the text
   kernel; *NPK (clip)* walks on ``max(K, 0)`` instead of the default
   distance affinity). Metric: precision@k (the thesis's Top-k accuracy),
   averaged over the 10 queries.
2. **Tie strength** (ch. 7) on :func:`proxlearn.datasets.make_social_network`
   (no public multi-view social data set ships with an installed package).
   Friend recommendation as sec. 7.5.1: 20 % of the users are test users
   whose contact lists are hidden; the seven user kernels (the contact kernel
   from the visible lists only) are combined by alignf against the training
   users' contacts (or uniformly, or one kernel alone); tie strength is the
   kernel logistic pair model (eq. 7.3) on sampled pairs (sec. 7.4.2); each
   test user's candidates are ranked by it. Metric: precision@m, m = 1..10.
   Pair kernels: the symmetric tensor kernel; for alignf also the thesis's
   difference kernel, whose scores ``g(u_i) - g(u_j)`` rank the candidates
   of every user in the same order (it cannot personalise; shown to make the
   point), and the metric-learning pair kernel; and the combined kernel's
   own row ``K(u_i, .)`` without the logistic stage.
3. **Kernel completion** (Chen ch. 6). Digits 3, 5 and 8; the kernel of
   interest ``K`` is an RBF kernel on the 8x8 images (the expensive sensor),
   the auxiliary ``K_aux`` an RBF kernel on 2x2-pooled 4x4 images (a cheap
   low-resolution sensor, the thesis's own example). ``K`` is known on a third
   of the training images only. Test images have ``K_aux`` to every training
   image and ``K`` to the known ones (case 2 of the thesis; case 1, ``K_aux``
   only, is also run for the completion methods). Classifiers: SVM on ``K11``
   alone, on ``K_aux`` alone, on the em / Frobenius completions (test rows by
   (6.8)), the joint SVM + completion :class:`~proxlearn.kernel_learning.CompletionSVC` (6.7), and the
   unattainable SVM on the full ``K`` as a reference. Metric: test accuracy.

This page runs the three parts at reduced sizes (a few draws; the completion
part on 8 training and 5 test images per class), in under 20 s of CPU.
The full run is a command::

    python examples/plot_ranking_ties_completion.py --out docs --draws 5 [--quick]

It writes ``demonstrations.md`` (tables) and three PNG figures into
``--out``/``figures`` and prints the tables (docs/demonstrations.md is its
output). ``--quick`` runs small sizes. The full run takes about an hour on 2
cores (the completion part solves one small SDP per test image and method).
"""

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from proxlearn.datasets import make_social_network
from proxlearn.kernel_learning import CompletionSVC, KernelCompleter, complete_test_row
from proxlearn.mkl import alignf
from proxlearn.pairwise import SOCIAL_KERNEL_NAMES, social_user_kernels, tfidf_cosine_kernel
from proxlearn.ranking import (
    KernelLogisticRegression,
    NPKReranker,
    pair_kernel,
    sample_tie_pairs,
    visual_rank,
)

RANK_CUTOFFS = (3, 5, 10, 20, 50, 100)
RANK_METHODS = ("Raw", "Text", "Linear", "RBF", "NPK (clip)", "NPK")
PAIR_KIND = "tensor"


def precision_at(order, relevant, ks):
    """Fraction of relevant items among the first ``k`` of ``order``, per ``k``."""
    rel = np.asarray(relevant, dtype=bool)[order]
    return np.array([rel[:k].mean() for k in ks])


def _digits():
    d = load_digits()
    return d.data / 16.0, d.target, d.images


def _median_gamma(X):
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return 1.0 / np.median(sq[np.triu_indices(len(X), 1)])


# --------------------------------------------------------------------------- 1. re-ranking
def make_tags(y, rng, *, p_class=0.6, n_related=5, p_related=0.2, noise_rate=3.0,
              n_noise_vocab=40):
    """Tag counts ``(n, 10 + 10 n_related + n_noise_vocab)`` of the digit images.

    Columns: the 10 class tags, then ``n_related`` related tags per class, then
    a noise vocabulary. Noise tags are drawn uniformly from the class tags and
    the noise vocabulary together, so an image can carry a wrong class tag.
    """
    n, n_cls = len(y), 10
    n_vocab = n_cls + n_cls * n_related + n_noise_vocab
    T = np.zeros((n, n_vocab))
    T[np.arange(n), y] += rng.random(n) < p_class
    rel = rng.random((n, n_related)) < p_related
    cols = n_cls + y[:, None] * n_related + np.arange(n_related)[None, :]
    np.add.at(T, (np.repeat(np.arange(n), n_related)[rel.ravel()], cols[rel]), 1)
    noise_pool = np.r_[np.arange(n_cls), np.arange(n_cls + n_cls * n_related, n_vocab)]
    k = rng.poisson(noise_rate, n)
    rows = np.repeat(np.arange(n), k)
    np.add.at(T, (rows, rng.choice(noise_pool, k.sum())), 1)
    return np.minimum(T, 1.0)  # each tag at most once per image (sec. 6.4)


def rerank_draw(X, y, seed, *, n_candidates=200, queries=range(10), ks=RANK_CUTOFFS,
                visual_noise=0.35, npk_params=None):
    """Precision@k per method (rows) and cutoff (columns), averaged over queries.

    The pixels get Gaussian noise of standard deviation ``visual_noise`` (a
    noisy camera: the clean digits are separable enough that every visual
    ranking is nearly perfect).
    """
    rng = np.random.default_rng(seed)
    T = make_tags(y, rng)
    X = X + rng.normal(scale=visual_noise, size=X.shape)
    out = {m: [] for m in RANK_METHODS}
    for q in queries:
        cand = np.flatnonzero(T[:, q] > 0)
        if len(cand) > n_candidates:
            cand = rng.choice(cand, n_candidates, replace=False)
        rel = y[cand] == q
        Xc = X[cand]
        K_text = tfidf_cosine_kernel(T[cand])
        K_lin = Xc @ Xc.T
        K_rbf = rbf_kernel(Xc, gamma=_median_gamma(Xc))
        orders = {
            "Raw": rng.permutation(len(cand)),
            "Text": np.argsort(-visual_rank(K_text), kind="stable"),
            "Linear": np.argsort(-visual_rank(K_lin), kind="stable"),
            "RBF": np.argsort(-visual_rank(K_rbf), kind="stable"),
        }
        npk = NPKReranker(**(npk_params or {})).fit(K_rbf, K_text)
        orders["NPK"] = npk.ranking_  # VisualRank on kernel_affinity(kernel_)
        clip = visual_rank(npk.kernel_)  # on max(kernel_, 0), the literal reading
        orders["NPK (clip)"] = np.argsort(-clip, kind="stable")
        for m in RANK_METHODS:
            out[m].append(precision_at(orders[m], rel, ks))
    return {m: 100 * np.mean(v, axis=0) for m, v in out.items()}


# --------------------------------------------------------------------------- 2. tie strength
def _rank_candidates(score_fn, users, n):
    """Candidates of each user (everyone else), best first."""
    orders = []
    for i in users:
        cand = np.delete(np.arange(n), i)
        s = score_fn(i, cand)
        orders.append(cand[np.argsort(-s, kind="stable")])
    return orders


def ties_draw(seed, *, n_users=300, test_fraction=0.2, max_pairs=1200, C=1e-3, ms=range(1, 11)):
    """Precision@m (rows: method) of friend recommendation for the hidden users."""
    rng = np.random.default_rng(seed)
    net = make_social_network(n_users=n_users, random_state=seed)
    n = n_users
    test = np.sort(rng.choice(n, int(round(test_fraction * n)), replace=False))
    train = np.setdiff1d(np.arange(n), test)
    visible = net.contacts.copy()
    visible[test] = 0  # the test users' own lists are hidden
    Ks = social_user_kernels(dataclasses.replace(net, contacts=visible))
    Ks = Ks / np.trace(Ks, axis1=0, axis2=1)[None, None, :] * n  # mean self-similarity 1
    Y = visible[np.ix_(train, train)].astype(float)
    theta = alignf(Ks[np.ix_(train, train)], 0.5 * (Y + Y.T), normalize="l1")
    combos = {name: Ks[:, :, t] for t, name in enumerate(SOCIAL_KERNEL_NAMES)}
    combos["uniform"] = Ks.mean(axis=2)
    combos["alignf"] = Ks @ theta
    pairs, labels = sample_tie_pairs(Y, Ks[np.ix_(train, train)], random_state=seed)
    if len(pairs) > max_pairs:
        keep = rng.choice(len(pairs), max_pairs, replace=False)
        pairs, labels = pairs[keep], labels[keep]
    pairs = train[pairs]
    users = [i for i in test if net.contacts[i].any()]
    truth = {i: net.contacts[i] > 0 for i in users}

    def evaluate(orders):
        return 100 * np.mean(
            [precision_at(o, truth[i], ms) for i, o in zip(users, orders, strict=True)], axis=0
        )

    out = {}
    for name, K in combos.items():
        for kind in (PAIR_KIND, "difference", "metric") if name == "alignf" else (PAIR_KIND,):
            G = pair_kernel(K, pairs, kind=kind)
            clf = KernelLogisticRegression(C=C, spectrum="none", normalize=False).fit(G, labels)

            def score(i, cand, K=K, kind=kind, clf=clf):
                P = np.column_stack([np.full(len(cand), i), cand])
                return clf.decision_function(pair_kernel(K, P, pairs, kind=kind))

            label = name if kind == PAIR_KIND else f"alignf, {kind} kernel"
            out[label] = evaluate(_rank_candidates(score, users, n))
    Ka = combos["alignf"]
    out["alignf row K(u_i, .)"] = evaluate(_rank_candidates(lambda i, c: Ka[i, c], users, n))
    return out, theta


# --------------------------------------------------------------------------- 3. completion
def completion_draw(seed, *, classes=(3, 5, 8), n_per_class=20, n_test_per_class=15,
                    known_fraction=1 / 3, C=1.0):
    """Test accuracy (%) per method for one random draw."""
    X, y, images = _digits()
    rng = np.random.default_rng(seed)
    tr, te = [], []
    for c in classes:
        idx = rng.permutation(np.flatnonzero(y == c))
        tr.append(idx[:n_per_class])
        te.append(idx[n_per_class:n_per_class + n_test_per_class])
    tr = rng.permutation(np.concatenate(tr))
    te = np.concatenate(te)
    low = images.reshape(-1, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(len(y), -1) / 16.0
    g_hi = _median_gamma(X[tr])
    g_lo = _median_gamma(low[tr])
    both = np.r_[tr, te]
    K_all = rbf_kernel(X[both], gamma=g_hi)
    A_all = rbf_kernel(low[both], gamma=g_lo)
    n, n1 = len(tr), int(round(known_fraction * len(tr)))
    K, A = K_all[:n, :n], A_all[:n, :n]
    K_te, A_te = K_all[n:, :n], A_all[n:, :n]
    ytr, yte = y[tr], y[te]
    K11 = K[:n1, :n1]
    ones = np.ones(len(te))

    def svc(Ktrain, ytrain, Ktest):
        return 100 * np.mean(SVC(kernel="precomputed", C=C).fit(Ktrain, ytrain).predict(Ktest)
                             == yte)

    acc = {
        "K11 alone": svc(K11, ytr[:n1], K_te[:, :n1]),
        "K_aux alone": svc(A, ytr, A_te),
    }
    for method in ("em", "frobenius"):
        Kc = KernelCompleter(method, max_iter=5000).fit_transform(K11, A)
        R2, _ = complete_test_row(Kc, A, A_te, ones, known=K_te[:, :n1], known_self=ones)
        acc[f"{method} + SVM"] = svc(Kc, ytr, R2)
        R1, _ = complete_test_row(Kc, A, A_te, ones)
        acc[f"{method} + SVM (case 1)"] = svc(Kc, ytr, R1)
    joint = CompletionSVC(eta=1.0 / (2 * n * C), max_samples=n).fit(A, ytr, K11=K11)
    acc["joint (6.7)"] = 100 * np.mean(joint.predict(A_te, ones, K_te[:, :n1], ones) == yte)
    acc["joint (6.7) (case 1)"] = 100 * np.mean(joint.predict(A_te, ones) == yte)
    acc["full K (reference)"] = svc(K, ytr, K_te)
    return acc


# --------------------------------------------------------------------------- report
def _mean_std(rows):
    keys = list(rows[0])
    return {k: (np.mean([r[k] for r in rows], axis=0), np.std([r[k] for r in rows], axis=0))
            for k in keys}


def _cell(m, s):
    return f"{m:.1f} ({s:.1f})"


def _table(stats, columns, header):
    lines = ["| " + " | ".join([header] + [str(c) for c in columns]) + " |",
             "|" + "---|" * (len(columns) + 1)]
    for name, (m, s) in stats.items():
        m, s = np.atleast_1d(m), np.atleast_1d(s)
        lines.append("| " + " | ".join([name] + [_cell(a, b) for a, b in zip(m, s)]) + " |")
    return "\n".join(lines)


def plot_curves(stats, xs, xlabel, ylabel, title):
    """One line (mean, with the standard deviation as error bars) per method."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for i, (name, (m, s)) in enumerate(stats.items()):
        ax.errorbar(xs, m, yerr=s, marker="os^"[i // 10 % 3], ms=3, capsize=2, label=name,
                    ls="-" if i < 10 else "--")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_bars(stats):
    """Horizontal bars of the completion accuracies (mean, standard deviation)."""
    names = list(stats)
    m = [float(stats[k][0]) for k in names]
    s = [float(stats[k][1]) for k in names]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.barh(names, m, xerr=s, capsize=3, color="tab:blue", alpha=0.8)
    ax.invert_yaxis()
    ax.set(xlabel="test accuracy (%)", title="Kernel completion (mean, std over draws)")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


def _save(fig, path):
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    """The command line: the full demonstrations, written as ``demonstrations.md``."""
    ap = argparse.ArgumentParser(description="Demonstrations of Zhuang (2011) ch. 6-7 and "
                                 "Chen (2010) ch. 6 on data we have.")
    ap.add_argument("--out", default="docs", help="folder for demonstrations.md and figures/")
    ap.add_argument("--draws", type=int, default=5, help="repeated random draws")
    ap.add_argument("--quick", action="store_true", help="small sizes (for tests)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    quick = args.quick
    draws = range(args.draws)
    X, y, _ = _digits()
    timings = {}

    t = time.perf_counter()
    rr = [rerank_draw(X, y, s, n_candidates=60 if quick else 200,
                      queries=range(2) if quick else range(10),
                      ks=(3, 5, 10) if quick else RANK_CUTOFFS) for s in draws]
    timings["re-ranking"] = time.perf_counter() - t
    ks = (3, 5, 10) if quick else RANK_CUTOFFS
    rr_stats = _mean_std(rr)

    t = time.perf_counter()
    ties = [ties_draw(s, n_users=80 if quick else 300, max_pairs=300 if quick else 1200)
            for s in draws]
    timings["tie strength"] = time.perf_counter() - t
    tie_stats = _mean_std([r for r, _ in ties])
    thetas = np.array([th for _, th in ties])

    t = time.perf_counter()
    comp = [completion_draw(s, n_per_class=6 if quick else 20,
                            n_test_per_class=3 if quick else 15) for s in draws]
    timings["completion"] = time.perf_counter() - t
    comp_stats = _mean_std(comp)

    ms = list(range(1, 11))
    rr_table = _table(rr_stats, [f"P@{k}" for k in ks], "method")
    tie_table = _table(tie_stats, [f"P@{m}" for m in ms], "kernel")
    comp_table = _table(comp_stats, ["accuracy (%)"], "method")
    theta_line = ", ".join(f"{nm} {m:.3f} ({s:.3f})" for nm, m, s in
                           zip(SOCIAL_KERNEL_NAMES, thetas.mean(0), thetas.std(0), strict=True))
    n_draws = len(draws)
    text = f"""# Demonstrations: re-ranking, tie strength, kernel completion

Generated by `python examples/plot_ranking_ties_completion.py --out docs --draws {n_draws}`
{"(--quick sizes) " if quick else ""}on 2 CPU cores; every cell is the mean (standard deviation) over
{n_draws} random draws. These are demonstrations on data we have, **not reproductions**:
the thesis's Flickr crawls are not available and Chen's chapter 6 has no experiments.
The set-ups are described in the script's docstring. Run times: {", ".join(
        f"{k} {v:.0f} s" for k, v in timings.items())}.

## 1. Re-ranking digits with noisy tags (Zhuang ch. 6)

Precision@k (%) averaged over the 10 digit queries; candidates are the (up to 200)
images tagged with the query, a relevant image is one of the query's class.
*Raw* is the text search's own (random) order, so its precision is the base rate.
NPK uses `NPKReranker()` defaults (5 visual neighbours, `C = 1`, `B = n`, VisualRank on
the Gaussian affinity of the learned kernel's distances), not tuned; *NPK (clip)* walks on
`max(K, 0)` instead. The learned kernel has zero row sums (`K 1 = 0`, eq. 6.2 cannot see a
constant), and VisualRank on a symmetric graph is close to degree centrality, so on
`max(K, 0)` it ranks items by the positive mass of their rows.

{rr_table}

![re-ranking](figures/demo_reranking.png)

## 2. Friend recommendation from seven user kernels (Zhuang ch. 7)

`make_social_network(n_users=300)`; 20 % of the users have their contact lists hidden
and get a ranked list of everyone else; precision@m (%) against their hidden contacts.
Single kernels, their uniform average and the alignf combination all go through the same
kernel logistic pair model (eq. 7.3, tensor pair kernel, up to 1,200 sampled training pairs,
`C = 1e-3`). Further rows: alignf with the thesis's difference pair kernel, whose scores
`g(u_i) - g(u_j)` rank every user's candidates in the same order, alignf with the
metric-learning pair kernel, and the alignf kernel's row `K(u_i, .)` used directly without the
logistic stage.

{tie_table}

alignf weights (l1-normalised, as the thesis's Table 7.3): {theta_line}.

![tie strength](figures/demo_ties.png)

## 3. Completing a high-resolution kernel from a low-resolution one (Chen ch. 6)

Digits 3, 5, 8; 20 training and 15 test images per class; `K` = RBF on the 8x8 images,
`K_aux` = RBF on 4x4 images (2x2 average pooling); `K` known on the first third of the
training images. Case 2: test images have `K` to the known training images and `K_aux` to
all; case 1: `K_aux` only. SVM `C = 1` everywhere (joint: `eta = 1 / (2 n C)`, `gamma = 0.01`).

{comp_table}

![completion](figures/demo_completion.png)
"""
    (out / "demonstrations.md").write_text(text)
    _save(plot_curves(rr_stats, ks, "k", "precision@k (%)",
                      "Re-ranking digits (mean, std over draws)"),
          out / "figures" / "demo_reranking.png")
    _save(plot_curves(tie_stats, ms, "m", "precision@m (%)", "Friend recommendation"),
          out / "figures" / "demo_ties.png")
    _save(plot_bars(comp_stats), out / "figures" / "demo_completion.png")
    print(text)
    return {"reranking": rr_stats, "ties": tie_stats, "theta": thetas, "completion": comp_stats}



# sphinx_gallery_start_ignore
if __name__ == "__main__" and sys.argv[1:]:  # the command line, with options
    main()
    sys.exit()
# sphinx_gallery_end_ignore

# %%
# 1. Re-ranking digits with noisy tags
# ------------------------------------
# Three draws of the tags and the pixel noise; precision@k averaged over the
# ten digit queries. *Raw* is the text search's own (random) order, so its
# precision is the base rate.

X, y, _ = _digits()
reranking = _mean_std([rerank_draw(X, y, seed) for seed in range(3)])
plot_curves(reranking, RANK_CUTOFFS, "k", "precision@k (%)",
            "Re-ranking digits (mean, std over 3 draws)")

# %%
# 2. Friend recommendation from seven user kernels
# ------------------------------------------------
# Two draws of a 200-user network; the seven user kernels combined by alignf
# (weights below), uniformly, or one at a time, each through the kernel
# logistic pair model.

ties = [ties_draw(seed, n_users=200, max_pairs=600) for seed in range(2)]
tie_strength = _mean_std([r for r, _ in ties])
plot_curves(tie_strength, range(1, 11), "m", "precision@m (%)",
            "Friend recommendation (mean, std over 2 draws)")
theta = np.mean([th for _, th in ties], axis=0)
print("alignf weights:", ", ".join(f"{name} {w:.3f}"
                                   for name, w in zip(SOCIAL_KERNEL_NAMES, theta, strict=True)))

# %%
# 3. Completing a high-resolution kernel from a low-resolution one
# ----------------------------------------------------------------
# Two draws of 8 training and 5 test images per class (digits 3, 5, 8);
# ``K`` is known on a third of the training images.

completion = _mean_std([completion_draw(seed, n_per_class=8, n_test_per_class=5)
                        for seed in range(2)])
plot_bars(completion)
