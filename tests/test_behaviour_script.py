"""scripts/behaviour.py: the record of every estimator's outputs, and its comparison."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "behaviour.py"


@pytest.fixture(scope="module")
def behaviour():
    spec = importlib.util.spec_from_file_location("behaviour", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_record_compares_equal_to_itself_and_a_changed_output_is_found(behaviour, tmp_path,
                                                                         capsys):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    behaviour.main(["record", str(a), "--estimators", "SimilaritySVC", "KernelKMeans",
                    "NystroemSpectrum"])
    behaviour.main(["record", str(b), "--estimators", "SimilaritySVC", "KernelKMeans",
                    "NystroemSpectrum"])
    keys = np.load(a).files
    assert "binary/SimilaritySVC/predict" in keys
    assert "three-class/SimilaritySVC/decision_function" in keys
    assert "binary/KernelKMeans/labels" in keys
    assert "binary/NystroemSpectrum/transform_test" in keys
    assert behaviour.main(["compare", str(a), str(b)]) == 0  # deterministic
    changed = dict(np.load(a))
    changed["binary/SimilaritySVC/decision_function"] = (
        changed["binary/SimilaritySVC/decision_function"] * (1 + 1e-9))
    changed["three-class/KernelKMeans/labels"] = (changed["three-class/KernelKMeans/labels"] + 1) % 3
    del changed["binary/NystroemSpectrum/transform"]
    np.savez(b, **changed)
    capsys.readouterr()
    assert behaviour.main(["compare", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "binary/SimilaritySVC/decision_function: relative difference" in out
    assert "three-class/KernelKMeans/labels" in out
    assert "binary/NystroemSpectrum/transform: missing after" in out
    assert "3 of" in out


def test_unknown_estimator_names_are_refused(behaviour, tmp_path):
    with pytest.raises(SystemExit, match="unknown estimator"):
        behaviour.main(["record", str(tmp_path / "x.npz"), "--estimators", "NoSuchSVC"])


def test_study_probes_are_recorded_per_section_data_set_and_method(behaviour, tmp_path,
                                                                  monkeypatch):
    from proxlearn.datasets import SimilarityDataset
    from proxlearn.study import _reproduce

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)) + 2, rng.normal(size=(20, 2)) - 2])
    data = SimilarityDataset(matrix=X @ X.T, labels=np.repeat([0, 1], 20), name="blobs")
    section = _reproduce.Section("tiny", "a tiny section", "custom", ("blobs", "absent"),
                                 ("svm-clip", "knn", "not-a-method"))
    monkeypatch.setattr(_reproduce, "SECTIONS", (section,))
    monkeypatch.setattr(_reproduce, "_load", lambda names, home: ([data], ["absent"]))
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for path in (a, b):
        behaviour.main(["record", str(path), "--estimators", "SimilaritySVC", "--study"])
    keys = [k for k in np.load(a).files if k.startswith("study/")]
    assert sorted(keys) == ["study/tiny/blobs/knn", "study/tiny/blobs/svm-clip"]
    assert behaviour.main(["compare", str(a), str(b)]) == 0
