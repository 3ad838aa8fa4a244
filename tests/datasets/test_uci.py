"""UCI feature files of Kundu et al. Table 1 and the stand-in indefinite similarity."""

from pathlib import Path

import numpy as np
import pytest

from proxlearn.datasets import DatasetNotFoundError, load_dataset
from proxlearn.datasets._uci import perturbed_gaussian_similarity, read_uci

UCI_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "uci"

# ../shared/data/uci/README.md: n and class counts
EXPECTED = {"sonar": (208, {"M": 111, "R": 97}), "liver": (345, {"1": 145, "2": 200}),
            "ionosphere": (351, {"b": 126, "g": 225}), "diabetes": (768, {"0": 500, "1": 268}),
            "heart": (270, {"1": 150, "2": 120})}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_registered_uci_sets_match_the_data_readme(name):
    if not UCI_DIR.is_dir():
        pytest.skip(f"../shared/data/uci not found (expected {UCI_DIR})")
    ds = load_dataset(f"{name}-noisy", data_home=UCI_DIR.parent)
    n, counts = EXPECTED[name]
    assert ds.n == n and {str(k): v for k, v in ds.class_counts.items()} == counts
    S = ds.matrix
    assert np.allclose(S, S.T) and np.allclose(np.diag(S), 1.0)
    assert np.linalg.eigvalsh(S).min() < -0.5  # indefinite, as Table 1 needs


def test_stand_in_similarity_is_the_documented_formula():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) * [1.0, 10.0, 0.1, 0.0]  # scales differ; one constant column
    S = perturbed_gaussian_similarity(X, eta=0.0)
    Z = (X[:, :3] - X[:, :3].mean(0)) / X[:, :3].std(0)
    D2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    np.testing.assert_allclose(S, np.exp(-D2 / np.median(D2[~np.eye(30, dtype=bool)])),
                               atol=1e-12)
    A = perturbed_gaussian_similarity(X, random_state=1)
    np.testing.assert_array_equal(A, perturbed_gaussian_similarity(X, random_state=1))
    E = A - S
    assert np.allclose(E, E.T) and np.all(np.diag(E) == 0)
    assert 0.08 < E[~np.eye(30, dtype=bool)].std() < 0.12  # eta = 0.1


def test_bad_or_missing_files(tmp_path, isolated_search):
    bad = tmp_path / "sonar.data"
    bad.write_text("h1,h2,label\n1,2,R\n1,R\n")
    with pytest.raises(ValueError, match="row 3 has 2 fields"):
        read_uci(bad, "sonar")
    bad.write_text("h1,h2,label\n1,x,R\n")
    with pytest.raises(ValueError, match="non-numeric"):
        read_uci(bad, "sonar")
    with pytest.raises(DatasetNotFoundError, match="uci/bupa.data") as exc:
        load_dataset("liver-noisy")
    assert "proxlearn fetch" not in str(exc.value)  # not a UW file: no fetch advice


def test_generated_similarities_do_not_depend_on_blas_threads():
    """Its bits are part of every study cell's cache key: a run under
    OMP_NUM_THREADS=1 must find the cells of a multi-threaded one (at 351 x 34, the
    size of Ionosphere, the product's last bit differed with 2 threads)."""
    from threadpoolctl import threadpool_limits

    from proxlearn.datasets import make_digits_similarity

    X = np.random.default_rng(0).normal(size=(351, 34))
    for build in (lambda: perturbed_gaussian_similarity(X),
                  lambda: make_digits_similarity("rbf").matrix,
                  lambda: make_digits_similarity("hog").matrix):
        with threadpool_limits(limits=1):
            one = build()
        with threadpool_limits(limits=2):
            two = build()
        np.testing.assert_array_equal(one, two)
