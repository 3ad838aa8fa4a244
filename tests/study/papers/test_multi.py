"""The study runner on several similarity matrices (MultiSimilarityDataset)."""

import numpy as np
import pytest

from proxlearn.datasets import MultiSimilarityDataset, load_dataset
from proxlearn.study import METHODS, get_protocol, run_study


def _informative_and_noise(n=48, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, 2)) + 2.5 * y[:, None]
    good = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4.0)
    Z = rng.normal(size=(n, 2))
    noise = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / 4.0)  # unrelated to y
    return MultiSimilarityDataset(np.stack([good, noise], -1), y, name="toy",
                                  matrix_names=("good", "noise"))


def test_multi_methods_run_and_use_the_informative_matrix():
    ds = _informative_and_noise()
    methods = ["svm-clip-m0", "svm-clip-m1", "svm-clip-average", "simple-mkl", "rekl",
               "indefinite-svm-average"]
    res = run_study([ds], methods, get_protocol("multi", n_splits=2), jobs=1)
    err = {m: res.errors("toy", m).mean() for m in methods}
    assert err["svm-clip-m0"] <= 10.0 and err["svm-clip-m1"] >= 25.0
    assert err["simple-mkl"] <= 10.0
    # REKL runs through the runner (10 test points per partition: its 10-30 % here is
    # too noisy a number to assert more than "a valid error")
    assert 0.0 <= err["rekl"] <= 100.0 and len(res.errors("toy", "rekl")) == 2
    weights = METHODS["simple-mkl"].build(C=10.0).fit(ds.matrix, ds.labels).weights_
    assert weights[0] > 0.8  # SimpleMKL puts its weight on the informative matrix


def test_plus_joined_names_stack_sets_over_the_same_objects():
    ds = load_dataset("digits-idm+digits-rbf")
    assert isinstance(ds, MultiSimilarityDataset) and ds.matrix_names == ("digits-idm",
                                                                          "digits-rbf")
    np.testing.assert_array_equal(ds.view(1).matrix, load_dataset("digits-rbf").matrix)
    with pytest.raises(Exception, match="unknown data set 'nope'"):
        load_dataset("digits-idm+nope")
