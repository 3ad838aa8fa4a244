"""Registry, data search path, and the real UW benchmark files."""

import os
import shutil

import numpy as np
import pytest
import scipy.io

import proxlearn.datasets._registry as registry
from proxlearn.datasets import (
    REGISTRY,
    DatasetNotFoundError,
    DatasetSpec,
    data_search_path,
    describe,
    get_data_home,
    list_datasets,
    load_dataset,
)

EMBEDDED = ["synthetic-1", "synthetic-2", "synthetic-3", "synthetic-4",
            "digits-idm", "wine-sigmoid"]
UW = ["aural_sonar", "protein", "voting", "protein-2", "protein-rbf"]


def _toy_mat(path, n=4):
    path.parent.mkdir(parents=True, exist_ok=True)
    scipy.io.savemat(path, {"A": np.eye(n), "C": np.arange(n).reshape(-1, 1) % 2 + 1})
    return path


def test_registry_names():
    assert set(EMBEDDED + UW) <= set(REGISTRY)


def test_get_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert get_data_home() == tmp_path / "proxlearn"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert str(get_data_home()).endswith(os.path.join(".local", "share", "proxlearn"))


def test_search_path_order(isolated_search, monkeypatch):
    a, b, home = isolated_search / "a", isolated_search / "b", isolated_search / "home"
    monkeypatch.setenv("PROXLEARN_DATA", os.pathsep.join([str(a), "", str(b), str(a)]))
    assert data_search_path(home) == [home, a, b, isolated_search / "xdg" / "proxlearn"]


def test_checkout_dir_is_found(uw_dir):
    found = [d.resolve() for d in registry._checkout_data_dirs()]
    assert uw_dir.parent.resolve() in found


def test_stray_shared_data_above_the_cwd_is_never_searched(tmp_path, monkeypatch):
    """Issue #14: `info aural_sonar` loaded a stray copy from a parent of the cwd."""
    _toy_mat(tmp_path / "shared" / "data" / "uw" / "voting.mat", n=5)
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    stray = (tmp_path / "shared" / "data").resolve()
    assert stray not in [d.resolve() for d in registry._checkout_data_dirs()]
    assert stray not in [d.resolve() for d in data_search_path()]


def _fake_module(root, *parts):
    mod = root.joinpath(*parts, "proxlearn", "datasets", "_registry.py")
    mod.parent.mkdir(parents=True)
    mod.write_text("")
    return mod


def test_checkout_rule_needs_a_real_checkout(tmp_path):
    """../shared/data counts only next to a source checkout (pyproject.toml, src/proxlearn)."""
    (tmp_path / "shared" / "data").mkdir(parents=True)
    repo_mod = _fake_module(tmp_path / "repo", "src")
    assert registry._checkout_data_dirs(repo_mod) == []  # no pyproject.toml yet
    (tmp_path / "repo" / "pyproject.toml").write_text("")
    assert registry._checkout_data_dirs(repo_mod) == [tmp_path.resolve() / "shared" / "data"]
    # an installed package never walks up to a shared/ folder of some ancestor
    site = _fake_module(tmp_path / "venv" / "lib" / "python3.11", "site-packages")
    assert registry._checkout_data_dirs(site) == []


def test_lookup_in_uw_subdir_and_flat(isolated_search, monkeypatch):
    flat = _toy_mat(isolated_search / "flat" / "aural_sonar.mat", n=4)
    sub = _toy_mat(isolated_search / "env" / "uw" / "aural_sonar.mat", n=6)
    ds = load_dataset("aural_sonar", data_home=flat.parent)
    assert ds.n == 4 and ds.source == str(flat.resolve()) and ds.name == "aural_sonar"
    monkeypatch.setenv("PROXLEARN_DATA", str(sub.parent.parent))
    assert load_dataset("aural_sonar").n == 6
    assert load_dataset("aural_sonar", data_home=flat.parent).n == 4  # data_home first
    xdg = _toy_mat(isolated_search / "xdg" / "proxlearn" / "uw" / "voting.mat", n=8)
    assert load_dataset("voting").source == str(xdg.resolve())


def test_missing_file_error_lists_every_place(isolated_search, monkeypatch):
    env = isolated_search / "envdir"
    monkeypatch.setenv("PROXLEARN_DATA", str(env))
    with pytest.raises(DatasetNotFoundError) as info:
        load_dataset("protein", data_home=isolated_search / "dh")
    msg = str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    for d in (isolated_search / "dh", env, isolated_search / "xdg" / "proxlearn"):
        assert str(d / "uw" / "protein.mat") in msg and str(d / "protein.mat") in msg
    assert "PROXLEARN_DATA" in msg and "uw/protein.mat" in msg


def test_unknown_name(isolated_search):
    with pytest.raises(DatasetNotFoundError, match=r"unknown data set 'nope'.*aural_sonar"):
        load_dataset("nope")


def test_path_as_name(isolated_search):
    p = _toy_mat(isolated_search / "mine.mat")
    ds = load_dataset(str(p))
    assert ds.name == "mine" and ds.n == 4


def test_new_dataset_is_one_entry(isolated_search, monkeypatch):
    spec = DatasetSpec(description="test set", n=4, file="extra.mat", subdir="uw")
    monkeypatch.setitem(REGISTRY, "extra", spec)
    rec = {r.name: r for r in list_datasets()}["extra"]
    assert not rec.available and "extra.mat" in rec.reason and rec.location == ""
    with pytest.raises(DatasetNotFoundError, match="extra.mat"):
        load_dataset("extra")
    _toy_mat(isolated_search / "xdg" / "proxlearn" / "uw" / "extra.mat")
    rec = {r.name: r for r in list_datasets()}["extra"]
    assert rec.available and rec.location.endswith("extra.mat")
    assert load_dataset("extra").n == 4


def test_list_datasets_without_files(isolated_search):
    from proxlearn.datasets import MULTI_REGISTRY

    recs = {r.name: r for r in list_datasets()}
    assert set(recs) == set(REGISTRY) | set(MULTI_REGISTRY)
    # a multi-similarity set is available exactly when all its parts are
    assert not recs["protein-multi"].available and "protein" in recs["protein-multi"].reason
    assert recs["digits-multi"].available
    for name in EMBEDDED:
        assert recs[name].available and recs[name].location == "embedded"
    for name in UW:
        assert not recs[name].available and "PROXLEARN_DATA" in recs[name].reason
    assert recs["synthetic-1"].n == 300 and recs["protein-2"].n == 144


# ----------------------------------------------------------- real UW files

# Table of /work/shared/data/README.md: n, class counts, #negative eigenvalues,
# lambda_min, lambda_max (3 significant digits).
UW_TABLE = {
    "aural_sonar": (100, {"1": 50, "2": 50}, 38, -2.10, 35.1),
    "protein": (213, {"1": 72, "2": 72, "3": 39, "4": 30}, 40, -12.4, 72.0),
    "voting": (435, {"1": 267, "2": 168}, 163, -0.267, 239),
}


@pytest.mark.parametrize("name", list(UW_TABLE))
def test_uw_sets_match_readme(uw_dir, name):
    ds = load_dataset(name, data_home=uw_dir.parent)
    n, counts, n_neg, lam_min, lam_max = UW_TABLE[name]
    info = describe(ds)
    assert info["n"] == n and info["class_counts"] == counts
    assert info["n_negative_eigenvalues"] == n_neg
    assert info["lambda_min"] == pytest.approx(lam_min, rel=5e-3)
    assert info["lambda_max"] == pytest.approx(lam_max, rel=5e-3)
    assert info["symmetric"] and info["diagonal"] == {"min": 1.0, "mean": 1.0, "max": 1.0}


def test_uw_found_through_env_copy(uw_dir, isolated_search, monkeypatch):
    shutil.copy(uw_dir / "aural_sonar.mat", isolated_search / "aural_sonar.mat")
    monkeypatch.setenv("PROXLEARN_DATA", str(isolated_search))
    assert load_dataset("aural_sonar").n == 100


def test_protein_2(uw_dir):
    ds = load_dataset("protein-2", data_home=uw_dir.parent)
    full = load_dataset("protein", data_home=uw_dir.parent)
    assert ds.name == "protein-2" and ds.n == 144
    assert ds.class_counts == {1: 72, 2: 72}
    keep = np.isin(full.labels, [1, 2])
    np.testing.assert_array_equal(ds.matrix, full.matrix[np.ix_(keep, keep)])


def test_protein_rbf(uw_dir):
    ds = load_dataset("protein-rbf", data_home=uw_dir.parent)
    full = load_dataset("protein", data_home=uw_dir.parent)
    assert ds.n == 213 and ds.class_counts == full.class_counts
    np.testing.assert_allclose(ds.matrix, ds.matrix.T, atol=0)
    np.testing.assert_allclose(np.diag(ds.matrix), 1.0)
    i, j = 3, 150  # norm not squared
    expected = np.exp(-np.linalg.norm(full.matrix[i] - full.matrix[j]))
    assert ds.matrix[i, j] == pytest.approx(expected, rel=1e-12)
    assert np.all((ds.matrix > 0) & (ds.matrix <= 1))
