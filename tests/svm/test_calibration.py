"""SimilarityCalibratedClassifier: reproducible at its defaults (issue 40)."""

import numpy as np

from proxlearn.svm import SimilarityCalibratedClassifier


def _problem(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.tile([0, 1, 2], n // 3)
    X = rng.normal(size=(n, 4)) + 0.9 * np.eye(4)[y]
    E = rng.normal(scale=0.4, size=(n, n))
    return X @ X.T + (E + E.T) / 2, y


def test_default_fit_is_reproducible():
    """random_state=None used to shuffle the folds from the global RNG: two fits on the
    same data gave different probabilities (up to 3 accuracy points on the panel)."""
    S, y = _problem()
    np.random.seed(1)
    a = SimilarityCalibratedClassifier().fit(S, y)
    np.random.seed(2)
    b = SimilarityCalibratedClassifier().fit(S, y)
    for (tr_a, _, _), (tr_b, _, _) in zip(a.calibrated_, b.calibrated_, strict=True):
        np.testing.assert_array_equal(tr_a, tr_b)
    np.testing.assert_array_equal(a.predict_proba(S[:20]), b.predict_proba(S[:20]))


def test_default_folds_are_stratified_in_sample_order():
    S, y = _problem(n=90)  # 30 per class: 10 per class in each of 3 folds
    clf = SimilarityCalibratedClassifier(cv=3).fit(S, y)
    held_out = [np.setdiff1d(np.arange(len(y)), tr) for tr, _, _ in clf.calibrated_]
    assert [h[0] for h in held_out] == sorted(h[0] for h in held_out)  # unshuffled
    for h in held_out:
        assert np.all(np.bincount(y[h]) == 10)


def test_random_state_shuffles_the_folds():
    S, y = _problem()
    plain = SimilarityCalibratedClassifier(cv=3).fit(S, y)
    shuffled = SimilarityCalibratedClassifier(cv=3, random_state=0).fit(S, y)
    again = SimilarityCalibratedClassifier(cv=3, random_state=0).fit(S, y)
    assert any(not np.array_equal(p[0], s[0])
               for p, s in zip(plain.calibrated_, shuffled.calibrated_, strict=True))
    for s, t in zip(shuffled.calibrated_, again.calibrated_, strict=True):
        np.testing.assert_array_equal(s[0], t[0])
