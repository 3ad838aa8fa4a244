"""The gallery scripts of examples/ (run by the documentation build as well).

Importing a script runs its gallery part (the code after the command-line
functions, at the sizes of the documentation page), so each script is imported
once per module (fixtures of module scope) and the tests check what that run
computed as well as the command-line ``main`` at small sizes.
examples/plot_kri_krr_toy_examples.py: Chen et al. 2009, section 5.2.2,
Examples 1-3; ``main`` (which writes three figures) runs once, in a single
test, and the numerical properties are checked on its returned weights.
"""

import numpy as np
import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
NAMES = ("example1", "example2", "example3")


@pytest.fixture(scope="module")
def toy_module(import_script):
    return import_script("examples/plot_kri_krr_toy_examples.py")


def _check_example1(res):
    for key in ("kri", "krr"):
        W = res["example1"][key]
        assert np.all(np.diff(W, axis=1) <= 1e-12)  # w1 >= w2 >= w3 >= w4


def _check_example2(res):
    W = res["example2"]["kri"]
    np.testing.assert_allclose(W[:, 1], W[:, 2], rtol=0, atol=1e-9)  # w2 == w3
    assert np.all(W[:, 1] < W[:, 0]) and np.all(W[:, 1] < W[:, 3])
    K = res["example2"]["krr"]
    np.testing.assert_allclose(K[:, 1], K[:, 2], rtol=0, atol=1e-9)


def _check_example3(res):
    W = res["example3"]["kri"]
    assert np.all(W[:, 0] > W[:, 2])  # x1 outweighs x3 although psi(x,x1) < psi(x,x3)
    assert np.all(np.argmax(W[:-1], axis=1) == 1)  # x2 largest (until ~uniform)


def test_main_writes_figures_and_weights(toy_module, tmp_path):
    res = toy_module.main(["--out", str(tmp_path)])
    for name in NAMES:
        path = tmp_path / f"kri_krr_{name}.png"
        assert res[name]["figure"] == path
        data = path.read_bytes()
        assert data[:8] == PNG_MAGIC and len(data) > 5000
        assert data[12:16] == b"IHDR"
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert w > 300 and h > 200
    lam = res["lambdas"]
    assert lam[0] == pytest.approx(1e-3) and lam[-1] == pytest.approx(1e3)
    assert np.all(np.diff(np.log10(lam)) > 0)
    for name in NAMES:
        for key in ("kri", "krr"):
            W = res[name][key]
            assert W.shape == (lam.size, 4)
            np.testing.assert_allclose(W.sum(1), 1.0, atol=1e-8)
            np.testing.assert_allclose(W[-1], 0.25, atol=5e-3)  # lambda -> inf: 1/k
        assert np.all(res[name]["kri"] >= -1e-12)
    _check_example1(res)
    _check_example2(res)
    _check_example3(res)


@pytest.mark.parametrize(
    "name, kri_ref, krr_ref",
    [  # fixtures of the notes, section 2.10(f), lambda = 1 (normalised KRR)
        ("example1", [0.5, 0.3333, 0.1667, 0.0], [0.5, 0.3333, 0.1667, 0.0]),
        ("example2", [0.3519, 0.1852, 0.1852, 0.2778], [0.3607, 0.1795, 0.1795, 0.2802]),
        ("example3", [0.1852, 0.5185, 0.0185, 0.2778], [0.1879, 0.5168, 0.0168, 0.2785]),
    ],
)
def test_weights_match_fixtures(toy_module, name, kri_ref, krr_ref):
    _, S, s = toy_module.EXAMPLES[name]
    kri, krr = toy_module.compute_weights(S, s, np.array([1.0]))
    np.testing.assert_allclose(kri[0], kri_ref, atol=1e-4)
    np.testing.assert_allclose(krr[0], krr_ref, atol=1e-4)


def test_properties_on_fine_grid(toy_module):
    """The affinity/diversity/interaction properties on a finer grid (no plots)."""
    lam = np.logspace(-3, 3, 121)
    res = {"lambdas": lam}
    for name in NAMES:
        _, S, s = toy_module.EXAMPLES[name]
        kri, krr = toy_module.compute_weights(S, s, lam)
        res[name] = {"kri": kri, "krr": krr}
    _check_example1(res)
    _check_example2(res)
    _check_example3(res)


def test_gallery_run_of_toy_examples_matches_the_figures_weights(toy_module):
    lam = toy_module.lambdas
    res = {"lambdas": lam, **{name: {"kri": w[0], "krr": w[1]}
                              for name, w in toy_module.weights.items()}}
    _check_example1(res)
    _check_example2(res)
    _check_example3(res)


DEMO = "examples/plot_ranking_ties_completion.py"


@pytest.fixture(scope="module")
def demo_module(import_script):
    return import_script(DEMO)


def test_ranking_ties_completion_demo_runs_quick(tmp_path, demo_module):
    """The documented demonstration command, at its --quick sizes, one draw."""
    mod = demo_module
    res = mod.main(["--quick", "--draws", "1", "--out", str(tmp_path)])
    text = (tmp_path / "demonstrations.md").read_text()
    for name in ("demo_reranking", "demo_ties", "demo_completion"):
        assert (tmp_path / "figures" / f"{name}.png").read_bytes()[:8] == PNG_MAGIC
    assert set(res["reranking"]) == set(mod.RANK_METHODS)
    for stats in (res["reranking"], res["ties"], res["completion"]):
        for mean, std in stats.values():
            assert np.all((0 <= np.asarray(mean)) & (np.asarray(mean) <= 100))
            assert np.all(np.asarray(std) == 0)  # one draw
    assert "alignf, difference kernel" in res["ties"] and "full K (reference)" in text
    theta = res["theta"][0]
    assert theta.min() >= 0 and theta.sum() == pytest.approx(1.0)


def test_ranking_ties_completion_gallery_run(demo_module):
    """The page's run: every method scored, precisions and accuracies in [0, 100], the
    text ranking better than the random order, alignf's weights on the simplex."""
    mod = demo_module
    assert set(mod.reranking) == set(mod.RANK_METHODS)
    for stats in (mod.reranking, mod.tie_strength, mod.completion):
        for mean, _ in stats.values():
            assert np.all((0 <= np.asarray(mean)) & (np.asarray(mean) <= 100))
    assert mod.reranking["Text"][0][0] > mod.reranking["Raw"][0][0]
    assert mod.theta.min() >= 0 and mod.theta.sum() == pytest.approx(1.0)
    assert "full K (reference)" in mod.completion


def test_precision_at_counts_relevant_items_in_the_prefix(demo_module):
    mod = demo_module
    relevant = np.array([True, False, True, True])
    np.testing.assert_allclose(mod.precision_at(np.array([1, 0, 2, 3]), relevant, [1, 2, 4]),
                               [0.0, 0.5, 0.75])


STRINGS = "examples/plot_strings_to_classifier.py"


@pytest.fixture(scope="module")
def strings_module(import_script):
    return import_script(STRINGS)


def test_strings_to_classifier_gallery_run(strings_module):
    """The page's run: 1,000 strings (5 classes, chance 0.2) through both routes, the
    Nystroem route computing n x m similarities only, and 5,000 strings through it."""
    mod = strings_module
    assert mod.exact["similarities"] == 1000 * 1001 // 2
    assert mod.exact["accuracy"].mean() > 0.8
    for m, r in mod.nystroem.items():
        assert r["similarities"] == 1000 * m
        assert r["accuracy"].shape == (5,) and r["accuracy"].mean() > 0.5
    assert mod.big["similarities"] == 5000 * 200 and mod.big["accuracy"].mean() > 0.8


def test_strings_to_classifier_exact_and_nystroem_routes(capsys, strings_module):
    """examples/plot_strings_to_classifier.py's command line at small size: both routes
    learn the classes, and the Nystroem route computes only the n x m landmark
    similarities."""
    mod = strings_module
    capsys.readouterr()
    res = mod.main(["--n", "150", "--m", "30", "--classes", "3"])
    assert res["exact"]["similarities"] == 150 * 151 // 2
    assert res["nystroem"]["similarities"] == 150 * 30
    for route in ("exact", "nystroem"):
        acc = res[route]["accuracy"]
        assert acc.shape == (5,) and acc.mean() > 0.8  # chance is 1/3
    out = capsys.readouterr().out
    assert "exact" in out and "nystroem" in out and "similarities computed" in out


def test_npkl_clustering_example_runs_on_embedded_data(import_script):
    mod = import_script("examples/plot_npkl_clustering.py")
    # the page's run: one draw of constraints, three kernels of the 400 digits
    assert set(mod.kernels) == set(mod.METHODS)
    assert all(K.shape == (400, 400) for K in mod.kernels.values())
    assert set(mod.scores) == set(mod.METHODS)
    res = mod.run("digits-idm", r=0.7, runs=1)
    assert set(res) == {"clip + kernel k-means", "SimpleNPKL-LL", "SimpleNPKL-SHL"}
    for ri, ari, n_pairs in res.values():
        assert 0 <= ri <= 100 and -100 <= ari <= 100 and n_pairs > 0
    # ten balanced classes: random labels give a Rand index near 82 and ARI near 0
    assert res["SimpleNPKL-SHL"][1] > 50


def test_decision_boundaries_example(import_script):
    """The page's run: the similarity is indefinite and every classifier, fitted on the
    similarities alone, beats chance (0.5) on the held-out thirds by a margin."""
    mod = import_script("examples/plot_decision_boundaries.py")
    assert np.sum(mod.eigenvalues < 0) > 10
    assert mod.regions.shape == (80, 80) and set(np.unique(mod.regions)) <= {0, 1}
    assert mod.accuracy > 0.7  # the last classifier on the last data set


def test_mkl_weights_example(import_script):
    """The page's run: one combination per pair of wine classes, on the simplex for
    SimpleMKL, and SimpleMKL keeps few of the 182 kernels."""
    mod = import_script("examples/plot_mkl_weights.py")
    W = mod.simple.weights_
    assert W.shape == (3, mod.bank.n_kernels_) and mod.bank.n_kernels_ == 182
    assert np.all(W >= 0)
    np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-6)
    assert np.all(np.sum(W > 1e-6, axis=1) < 40)
    shares = mod.weight_per_feature(W)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
