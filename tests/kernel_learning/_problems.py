"""Small indefinite problems shared by the kernel-learning tests (imported as
``_problems``: pytest puts this folder on sys.path for its test modules)."""

import numpy as np


def indefinite_problem(n, seed, k=2, noise=0.6):
    """Linear kernel of k Gaussian blobs plus symmetric noise (indefinite)."""
    rng = np.random.default_rng(seed)
    means = np.array([(-1.5, 1.0), (1.5, -1.0), (2.0, 2.0)])[:k]
    per = [n // k + (1 if i < n % k else 0) for i in range(k)]
    X = np.vstack([rng.normal(m, 1.0, (p, 2)) for m, p in zip(means, per, strict=True)])
    y = np.repeat(np.arange(k), per)
    N = rng.normal(0, noise, (n, n))
    return X @ X.T / 4 + 0.5 * (N + N.T), y
