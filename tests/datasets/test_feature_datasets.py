"""Feature data sets (Zhuang 2011 ch. 3-5): UCI / LIBSVM files, sklearn sets, generators."""

from pathlib import Path

import numpy as np
import pytest

from proxlearn.datasets import (
    FEATURE_REGISTRY,
    DatasetNotFoundError,
    FeatureDataset,
    list_feature_datasets,
    load_feature_dataset,
    make_banana,
    make_chessboard,
    make_ringnorm,
    make_spiral,
    make_waveform,
    waveform_base_waves,
)
from proxlearn.datasets._uci import UCI_FILES, UCI_FORMATS
from proxlearn.exceptions import InvalidParameterError, LabelError

UCI_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "uci"

# ../shared/data/uci/README.md: n, features, class counts (labels as the files give them)
EXPECTED = {
    "sonar": (208, 60, {"M": 111, "R": 97}),
    "ionosphere": (351, 34, {"g": 225, "b": 126}),
    "diabetes": (768, 8, {0: 500, 1: 268}),
    "heart": (270, 13, {1: 150, 2: 120}),
    "liver": (345, 6, {1: 145, 2: 200}),
    "soybean": (47, 35, {"D1": 10, "D2": 10, "D3": 10, "D4": 17}),
    "breast": (683, 10, {2: 444, 4: 239}),
    "splice": (1000, 60, {1: 517, -1: 483}),
    "adult": (1605, 123, {-1: 1210, 1: 395}),
    "german": (1000, 24, {1: 700, 2: 300}),
    "glass": (214, 9, {1: 70, 2: 76, 3: 17, 5: 13, 6: 9, 7: 29}),
    "australian": (690, 14, {0: 383, 1: 307}),
}
GENERATED = {"banana": (400, 2), "ringnorm": (400, 20), "waveform": (400, 21),
             "chessboard": (100, 2), "spiral": (100, 3)}


def _uci_file(name):
    path = UCI_DIR / UCI_FORMATS[name].file
    if not path.is_file():
        pytest.skip(f"../shared/data/uci not found on the search path (expected {path})")
    return path


# --- file-based sets ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_file_sets_match_the_data_readme(name):
    _uci_file(name)
    ds = load_feature_dataset(name, data_home=UCI_DIR.parent)
    n, d, counts = EXPECTED[name]
    assert isinstance(ds, FeatureDataset)
    assert (ds.n_samples, ds.n_features) == (n, d) == (FEATURE_REGISTRY[name].n,
                                                       FEATURE_REGISTRY[name].d)
    assert ds.X.dtype == np.float64 and np.isfinite(ds.X).all()
    assert ds.class_counts == counts
    assert list(ds.classes) == sorted(counts)
    assert Path(ds.source).name == UCI_FORMATS[name].file


def test_file_layouts_first_rows():
    """Column handling of the README: label first (breast, splice, a1a), id dropped
    (glass), @ header (australian), sample code number kept (breast)."""
    for name in ("breast", "glass", "australian", "splice", "adult", "ionosphere"):
        _uci_file(name)

    def load(name):
        return load_feature_dataset(name, data_home=UCI_DIR.parent)

    breast = load("breast")
    np.testing.assert_array_equal(breast.X[0], [1000025, 5, 1, 1, 1, 2, 1, 3, 1, 1])
    assert breast.labels[0] == 2
    glass = load("glass")
    np.testing.assert_allclose(glass.X[0], [1.52101, 13.64, 4.49, 1.10, 71.78, 0.06, 8.75,
                                            0.0, 0.0])
    assert glass.labels[0] == 1 and glass.labels[-1] == 7
    aus = load("australian")
    np.testing.assert_array_equal(aus.X[0], [1, 2208, 1146, 2, 4, 4, 1585, 0, 0, 0, 1, 2,
                                             100, 1213])
    splice = load("splice")
    assert splice.labels[0] == 1 and splice.X[0, :3].tolist() == [2.0, 1.0, 2.0]
    adult = load("adult")
    assert set(np.unique(adult.X)) <= {0.0, 1.0}
    iono = load("ionosphere")
    assert np.all(iono.X[:, 1] == 0)  # the constant column, kept (34 features)


def test_old_uci_view_is_unchanged():
    assert {k: UCI_FILES[k] for k in ("sonar", "liver", "ionosphere", "diabetes", "heart")} == {
        "sonar": ("sonar.data", ",", 1, -1), "liver": ("bupa.data", ",", 1, -1),
        "ionosphere": ("ionosphere.data", ",", 1, -1), "diabetes": ("pima.data", ",", 1, -1),
        "heart": ("heart.dat", None, 1, -1)}


# --- always available ------------------------------------------------------------------


@pytest.mark.parametrize("name, n, d, counts", [
    ("iris", 150, 4, {0: 50, 1: 50, 2: 50}),
    ("wine", 178, 13, {0: 59, 1: 71, 2: 48}),
])
def test_sklearn_sets_always_load(name, n, d, counts, isolated_search):
    ds = load_feature_dataset(name)
    assert (ds.n_samples, ds.n_features) == (n, d)
    assert ds.class_counts == counts
    assert ds.source == f"sklearn.datasets.load_{name}"


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_sets_load_deterministically(name, isolated_search):
    a = load_feature_dataset(name)
    b = load_feature_dataset(name)
    c = load_feature_dataset(name, random_state=1)
    assert (a.n_samples, a.n_features) == GENERATED[name]
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert not np.array_equal(a.X, c.X)
    assert set(a.class_counts) == {-1, 1}
    assert a.source.startswith("generated: make_")


def test_list_feature_datasets(isolated_search, tmp_path):
    recs = {r.name: r for r in list_feature_datasets(data_home=tmp_path)}
    assert set(recs) == set(EXPECTED) | set(GENERATED) | {"iris", "wine"}
    for name, (n, d, _) in EXPECTED.items():
        r = recs[name]
        assert (r.n, r.d) == (n, d) and r.source == f"uci/{UCI_FORMATS[name].file}"
        assert not r.available and r.location == ""  # nothing on the isolated path
    for name, (n, d) in GENERATED.items():
        assert (recs[name].n, recs[name].d, recs[name].available) == (n, d, True)
    assert recs["iris"].available and recs["wine"].source == "sklearn.datasets.load_wine"


def test_list_feature_datasets_finds_the_shared_files():
    _uci_file("sonar")
    rec = {r.name: r for r in list_feature_datasets(data_home=UCI_DIR.parent)}["sonar"]
    assert rec.available and Path(rec.location) == UCI_DIR / "sonar.data"


# --- errors ----------------------------------------------------------------------------


def test_missing_file_names_file_places_and_fix(isolated_search, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with pytest.raises(DatasetNotFoundError) as exc:
        load_feature_dataset("german", data_home=home)
    msg = str(exc.value)
    assert "german.data-numeric" in msg and "uci/german.data-numeric" in msg
    assert str(home / "uci" / "german.data-numeric") in msg  # where it looked
    assert "PROXLEARN_DATA" in msg  # how to fix
    assert "proxlearn fetch" not in msg


def test_unknown_name(isolated_search):
    with pytest.raises(DatasetNotFoundError, match=r"unknown feature data set 'nope'.*sonar"):
        load_feature_dataset("nope")


def _counts(y):
    return {int(k): int(c) for k, c in zip(*np.unique(y, return_counts=True), strict=True)}


def _write_sonar(home, rows):
    (home / "uci").mkdir(parents=True, exist_ok=True)
    header = ",".join(f"A{i}" for i in range(1, 61)) + ",class"
    (home / "uci" / "sonar.data").write_text("\n".join([header, *rows]) + "\n")


def test_malformed_rows_are_named(isolated_search, tmp_path):
    good = ",".join(["0.5"] * 60) + ",R"
    _write_sonar(tmp_path, [good, good, ",".join(["0.5"] * 59) + ",M"])
    with pytest.raises(ValueError, match=r"sonar\.data: row 4 has 60 fields, expected 61"):
        load_feature_dataset("sonar", data_home=tmp_path)
    _write_sonar(tmp_path, [good, "0.1,0.2,0.3,0.4,oops," + ",".join(["0.5"] * 55) + ",M"])
    with pytest.raises(ValueError, match="row 3, column 5: non-numeric feature value 'oops'"):
        load_feature_dataset("sonar", data_home=tmp_path)
    _write_sonar(tmp_path, ["1,2,R", "3,4,M"])  # consistent, but not the documented layout
    with pytest.raises(ValueError, match="2 features after parsing, expected 60"):
        load_feature_dataset("sonar", data_home=tmp_path)
    _write_sonar(tmp_path, [good, good[:-1] + "M"])  # a well-formed copy loads
    ds = load_feature_dataset("sonar", data_home=tmp_path)
    assert ds.class_counts == {"M": 1, "R": 1} and ds.source == str(
        tmp_path / "uci" / "sonar.data")


def test_feature_dataset_checks_its_input():
    with pytest.raises(LabelError, match="one label per row"):
        FeatureDataset(X=np.zeros((3, 2)), labels=[1, 2])
    with pytest.raises(ValueError, match="NaN or inf"):
        FeatureDataset(X=[[0.0, np.nan]], labels=[1])
    with pytest.raises(ValueError, match="2-D"):
        FeatureDataset(X=np.zeros(3), labels=[1, 2, 3])


# --- generators ------------------------------------------------------------------------


@pytest.mark.parametrize("make, d", [(make_banana, 2), (make_ringnorm, 20),
                                     (make_chessboard, 2), (make_spiral, 3)])
def test_binary_generators_shape_balance_and_seed(make, d):
    X, y = make(101, random_state=7)
    assert X.shape == (101, d) and y.shape == (101,)
    assert _counts(y) == {1: 51, -1: 50}
    X2, y2 = make(101, random_state=7)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert not np.array_equal(X, make(101, random_state=8)[0])
    assert not (np.all(y[:50] == 1) or np.all(y[:50] == -1))  # rows are shuffled


def test_generator_signatures_take_the_documented_positional_order():
    np.testing.assert_array_equal(make_banana(50, 0.5, 3)[0],
                                  make_banana(50, noise=0.5, random_state=3)[0])
    np.testing.assert_array_equal(make_ringnorm(50, 5, 3)[0],
                                  make_ringnorm(50, n_features=5, random_state=3)[0])
    np.testing.assert_array_equal(make_waveform(50, 3)[0], make_waveform(50, random_state=3)[0])
    np.testing.assert_array_equal(make_chessboard(50, 3, 3)[0],
                                  make_chessboard(50, n_cells=3, random_state=3)[0])
    np.testing.assert_array_equal(make_spiral(50, 0.1, 3)[0],
                                  make_spiral(50, noise=0.1, random_state=3)[0])


@pytest.mark.parametrize("call", [
    lambda: make_banana(1), lambda: make_banana(10, noise=-1.0),
    lambda: make_ringnorm(10, n_features=0), lambda: make_ringnorm(10.5),
    lambda: make_waveform(2), lambda: make_chessboard(10, n_cells=1),
    lambda: make_spiral(10, noise=float("nan")), lambda: make_banana(True),
])
def test_generators_refuse_bad_parameters(call):
    with pytest.raises(InvalidParameterError):
        call()


def test_ringnorm_follows_breiman():
    d = 20
    X, y = make_ringnorm(20000, d, random_state=0)
    a = 2 / np.sqrt(d)
    outer, inner = X[y == 1], X[y == -1]
    # class 1: N(0, 4 I); class 2: N(a 1, I), a = 2 / sqrt(20)
    assert np.abs(outer.mean(0)).max() < 0.07 and abs(outer.var(0).mean() - 4) < 0.08
    assert np.abs(inner.mean(0) - a).max() < 0.04 and abs(inner.var(0).mean() - 1) < 0.03
    off = np.corrcoef(inner, rowvar=False)[~np.eye(d, dtype=bool)]
    assert np.abs(off).max() < 0.05  # independent coordinates
    # the Bayes rule of that model errs ~1.24% (Breiman: 1.3%; 1.50% if a = 1/sqrt(d))
    ll_outer = -(X**2).sum(1) / 8 - d * np.log(2)
    ll_inner = -((X - a) ** 2).sum(1) / 2
    err = np.mean(np.where(ll_outer > ll_inner, 1, -1) != y)
    assert 0.008 < err < 0.018
    X1, _ = make_ringnorm(4000, d, a=1 / np.sqrt(d), random_state=0)
    assert X1.shape == (4000, d)


def test_waveform_follows_the_cart_definition():
    h = waveform_base_waves()
    i = np.arange(1, 22)
    np.testing.assert_array_equal(h[0], np.maximum(6 - np.abs(i - 7), 0))
    assert [int(np.argmax(w)) + 1 for w in h] == [7, 15, 11] and h.max() == 6
    X, y = make_waveform(30000, binary=False, random_state=0)
    assert X.shape == (30000, 21)
    assert _counts(y) == {1: 10000, 2: 10000, 3: 10000}
    for k, (p, q) in {1: (0, 1), 2: (0, 2), 3: (1, 2)}.items():
        Xk = X[y == k]
        # E x_i = (h_p + h_q) / 2, Var x_i = 1 + (h_p - h_q)^2 / 12
        np.testing.assert_allclose(Xk.mean(0), (h[p] + h[q]) / 2, atol=0.06)
        np.testing.assert_allclose(Xk.var(0), 1 + (h[p] - h[q]) ** 2 / 12, rtol=0.07)
    Xb, yb = make_waveform(3001, random_state=1)
    assert _counts(yb) == {1: 1001, -1: 2000}  # class 1 vs classes 2 + 3
    Xb3, y3 = make_waveform(3001, binary=False, random_state=1)
    np.testing.assert_array_equal(Xb, Xb3)
    np.testing.assert_array_equal(yb, np.where(y3 == 1, 1, -1))


def test_banana_lies_on_the_documented_arcs():
    X, y = make_banana(2000, noise=0.0, random_state=0)
    r = 5.0
    pos, neg = X[y == 1], X[y == -1] + 0.75 * r
    np.testing.assert_allclose(np.hypot(*pos.T), r)
    np.testing.assert_allclose(np.hypot(*neg.T), r)
    phi_pos = np.mod(np.arctan2(pos[:, 0], pos[:, 1]), 2 * np.pi)  # x = r sin, y = r cos
    assert phi_pos.min() >= np.pi / 8 - 1e-9 and phi_pos.max() <= 11 * np.pi / 8 + 1e-9
    phi_neg = np.arctan2(neg[:, 0], neg[:, 1])  # in (3pi/8 - 5pi/4, 3pi/8) = (-7pi/8, 3pi/8)
    assert phi_neg.min() >= -7 * np.pi / 8 - 1e-9 and phi_neg.max() <= 3 * np.pi / 8 + 1e-9
    Xn, _ = make_banana(2000, noise=1.0, random_state=0)
    assert 0.8 < np.std(Xn - X) < 1.2  # same draws, plus N(0, 1) noise


def test_chessboard_labels_are_the_cell_parity():
    X, y = make_chessboard(2000, n_cells=4, random_state=0)
    assert X.min() >= 0 and X.max() < 4
    parity = np.floor(X).sum(1) % 2
    np.testing.assert_array_equal(y, np.where(parity == 0, 1, -1))
    cells = {tuple(c) for c in np.floor(X).astype(int)}
    assert len(cells) == 16
    X3, y3 = make_chessboard(500, n_cells=3, random_state=1)
    assert X3.max() < 3 and np.all(y3 == np.where(np.floor(X3).sum(1) % 2 == 0, 1, -1))


def test_spiral_lies_on_the_documented_curves():
    X, y = make_spiral(1000, noise=0.0, n_turns=1.5, random_state=0)
    t = X[:, 2]
    assert t.min() >= 0 and t.max() < 1
    np.testing.assert_allclose(np.hypot(X[:, 0], X[:, 1]), 0.25 + t)
    theta = 2 * np.pi * 1.5 * t + np.where(y == 1, 0.0, np.pi)
    np.testing.assert_allclose(X[:, 0], (0.25 + t) * np.cos(theta), atol=1e-12)
    np.testing.assert_allclose(X[:, 1], (0.25 + t) * np.sin(theta), atol=1e-12)


def test_unavailable_sets_say_why():
    from proxlearn.datasets import FEATURE_UNAVAILABLE, DatasetNotFoundError, load_feature_dataset

    assert set(FEATURE_UNAVAILABLE) == {"titanic", "thyroid", "flaresolar"}
    with pytest.raises(DatasetNotFoundError, match="Raetsch"):
        load_feature_dataset("thyroid")
