"""digits-idm (Image Distortion Model) and wine-sigmoid."""

import numpy as np
import pytest

import proxlearn.datasets._embedded as embedded
from proxlearn.datasets import (
    describe,
    get_cache_home,
    idm_distances,
    load_dataset,
    make_digits_idm,
    make_wine_sigmoid,
)


def _loo_1nn(S, y):
    """Leave-one-out 1-NN accuracy on a similarity (largest off-diagonal entry)."""
    S = S.copy()
    np.fill_diagonal(S, -np.inf)
    return float(np.mean(y[S.argmax(axis=1)] == y))


def _reference_idm(a, b, window, context, features):
    """Plain-loop IDM of one pair for checking the vectorised version."""
    fa = embedded._local_features(a[None], features, context)[:, :, 0]
    fb = embedded._local_features(b[None], features, context)[:, :, 0]
    H, W, _ = fa.shape
    total = 0.0
    for i in range(H):
        for j in range(W):
            total += min(
                np.sum((fa[i, j] - fb[i + di, j + dj]) ** 2)
                for di in range(-window, window + 1) for dj in range(-window, window + 1)
                if 0 <= i + di < H and 0 <= j + dj < W
            )
    return total


@pytest.mark.parametrize("features, context, window", [
    ("gradient", 1, 1), ("pixel", 0, 1), ("both", 1, 2), ("pixel", 1, 0)])
def test_idm_matches_loop_reference(features, context, window):
    rng = np.random.default_rng(0)
    imgs = rng.uniform(0, 16, size=(5, 6, 7))
    D = idm_distances(imgs, window=window, context=context, features=features, block=2)
    for a, b in [(0, 1), (1, 0), (3, 4), (2, 0)]:
        assert D[a, b] == pytest.approx(
            _reference_idm(imgs[a], imgs[b], window, context, features), rel=1e-9, abs=1e-9)
    np.testing.assert_array_equal(np.diag(D), 0.0)


def test_idm_tolerates_small_shifts_and_is_asymmetric():
    img = np.zeros((8, 8))
    img[2:6, 3] = 10.0
    shifted = np.roll(img, 1, axis=1)
    blob = img.copy()
    blob[0, 7] = 10.0  # the line plus a far-away dot
    D0 = idm_distances(np.stack([img, shifted]), window=0, context=0, features="pixel")
    D1 = idm_distances(np.stack([img, shifted, blob]), window=1, context=0, features="pixel")
    assert D0[0, 1] > 0 and D1[0, 1] == 0.0  # a one-pixel shift is free with warp 1
    assert D1[0, 2] != D1[2, 0]  # the dot has no partner in img
    assert D1[0, 2] == 0.0 and D1[2, 0] > 0


def test_small_digits_idm_is_indefinite_and_informative():
    ds, D = make_digits_idm(n_per_class=15, random_state=3, return_distances=True)
    assert ds.n == 150 and ds.class_counts == {c: 15 for c in range(10)}
    assert np.linalg.norm(D - D.T) / (2 * np.linalg.norm(D)) > 0.01  # asymmetric IDM
    np.testing.assert_allclose(ds.matrix, ds.matrix.T)
    np.testing.assert_allclose(np.diag(ds.matrix), 1.0)
    Ds = (D + D.T) / 2
    m = np.median(Ds[~np.eye(150, dtype=bool)])
    np.testing.assert_allclose(ds.matrix, np.exp(-Ds / m))
    info = describe(ds)
    assert info["n_negative_eigenvalues"] > 0 and info["lambda_min"] < -1e-3
    assert _loo_1nn(ds.matrix, ds.labels) > 0.85  # chance is 0.10


def test_registered_digits_idm_and_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path / "c"))
    assert get_cache_home() == tmp_path / "c"
    ds = load_dataset("digits-idm")
    assert ds.n == 400 and ds.source == "embedded" and len(ds.class_names) == 10
    info = describe(ds)
    assert info["n_negative_eigenvalues"] >= 10
    assert info["negative_mass_ratio"] > 0.005
    assert _loo_1nn(ds.matrix, ds.labels) > 0.9
    files = list((tmp_path / "c").glob("digits-idm-v*.npz"))
    assert len(files) == 1
    # cached copy is used: tamper with it and see the tampered values come back
    with np.load(files[0]) as z:
        arrays = dict(z)
    arrays["S"] = arrays["S"] * 0.5
    np.savez(files[0], **arrays)
    np.testing.assert_allclose(load_dataset("digits-idm").matrix, 0.5 * ds.matrix)
    # corrupt cache is rebuilt
    files[0].write_bytes(b"not an npz")
    np.testing.assert_allclose(load_dataset("digits-idm").matrix, ds.matrix)
    with np.load(files[0]) as z:  # and rewritten
        np.testing.assert_allclose(z["S"], ds.matrix)


def test_cache_key_depends_on_parameters(monkeypatch, tmp_path):
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path))
    a = make_digits_idm(n_per_class=5, random_state=0)
    b = make_digits_idm(n_per_class=5, random_state=1)
    assert len(list(tmp_path.glob("*.npz"))) == 2
    assert not np.allclose(a.matrix, b.matrix)


def test_unwritable_cache_still_builds(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("PROXLEARN_CACHE", str(blocker / "sub"))
    assert make_digits_idm(n_per_class=3).n == 30


def test_wine_sigmoid_is_indefinite():
    ds = load_dataset("wine-sigmoid")
    assert ds.n == 178 and ds.class_counts == {0: 59, 1: 71, 2: 48}
    info = describe(ds)
    assert info["symmetric"]
    assert info["n_negative_eigenvalues"] > 50 and info["negative_mass_ratio"] > 0.3
    assert np.all(np.abs(ds.matrix) < 1)
    assert _loo_1nn(ds.matrix, ds.labels) > 0.85
    psd_like = describe(make_wine_sigmoid(a=1e-4, c=0.0))  # ~ linear kernel, rank 13
    assert psd_like["negative_mass_ratio"] < info["negative_mass_ratio"] / 10
