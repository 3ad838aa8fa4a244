"""SimilarityDataset and load_similarity on small files written to tmp_path."""

import numpy as np
import pytest
import scipy.io

from proxlearn._validation import LabelError, SimilarityMatrixError
from proxlearn.datasets import DatasetNotFoundError, SimilarityDataset, load_similarity

S4 = np.array([[1.0, 0.5, 0.1, 0.0],
               [0.5, 1.0, 0.2, 0.1],
               [0.1, 0.2, 1.0, 0.7],
               [0.0, 0.1, 0.7, 1.0]])
Y4 = np.array([1, 1, 2, 2])


# ----------------------------------------------------------------- dataset

def test_dataset_properties_and_subset():
    S = np.arange(36, dtype=float).reshape(6, 6)
    ds = SimilarityDataset(S, np.array([3, 1, 2, 1, 3, 2]), name="toy",
                           class_names=("one", "two", "three"))
    assert ds.n == 6 and ds.matrix.dtype == np.float64
    assert ds.classes.tolist() == [1, 2, 3]
    assert ds.class_counts == {1: 2, 2: 2, 3: 2}
    sub = ds.subset([3, 1])
    assert sub.name == "toy[1+3]" and sub.n == 4
    assert sub.class_names == ("one", "three")
    keep = [0, 1, 3, 4]
    np.testing.assert_array_equal(sub.matrix, S[np.ix_(keep, keep)])
    np.testing.assert_array_equal(sub.labels, [3, 1, 1, 3])
    assert ds.n == 6  # original untouched
    with pytest.raises(LabelError, match="classes are"):
        ds.subset([7])


def test_dataset_default_class_names_and_string_labels():
    ds = SimilarityDataset(S4, np.array(["b", "a", "b", "a"]))
    assert ds.class_names == ("a", "b")
    assert ds.class_counts == {"a": 2, "b": 2}


@pytest.mark.parametrize("matrix, labels, err, match", [
    (np.ones((3, 4)), [1, 2, 1], SimilarityMatrixError, "must be square"),
    (np.array([[1, np.nan], [0, 1]]), [1, 2], SimilarityMatrixError, "NaN"),
    (np.array([[1, np.inf], [0, 1]]), [1, 2], SimilarityMatrixError, "inf"),
    (np.eye(3), [1, 2], LabelError, "2 labels but the similarity matrix has 3 rows"),
])
def test_dataset_validation(matrix, labels, err, match):
    with pytest.raises(err, match=match):
        SimilarityDataset(matrix, np.asarray(labels))


def test_dataset_rejects_bad_kind_and_class_names():
    with pytest.raises(ValueError, match="kind"):
        SimilarityDataset(S4, Y4, kind="distance")
    with pytest.raises(LabelError, match="class_names"):
        SimilarityDataset(S4, Y4, class_names=("only one",))


# ----------------------------------------------------------------- .mat

def test_mat_autodetect_uw_layout(tmp_path):
    p = tmp_path / "toy.mat"
    scipy.io.savemat(p, {"A": S4, "C": Y4.reshape(-1, 1).astype(np.uint8)})
    ds = load_similarity(p)
    assert ds.name == "toy" and ds.n == 4 and ds.kind == "similarity"
    np.testing.assert_array_equal(ds.matrix, S4)
    assert ds.labels.tolist() == [1, 1, 2, 2]
    assert ds.source.endswith("toy.mat")


def test_mat_explicit_keys_and_ambiguity(tmp_path):
    p = tmp_path / "two.mat"
    scipy.io.savemat(p, {"K1": S4, "K2": 2 * S4, "lab": Y4, "grp": Y4[::-1]})
    with pytest.raises(SimilarityMatrixError, match=r"several square matrices.*K1.*K2"):
        load_similarity(p)
    with pytest.raises(LabelError, match=r"several label vectors.*lab.*grp|grp.*lab"):
        load_similarity(p, matrix_key="K2")
    ds = load_similarity(p, matrix_key="K2", labels_key="grp", kind="dissimilarity",
                         convert=None)
    np.testing.assert_array_equal(ds.matrix, 2 * S4)
    assert ds.labels.tolist() == [2, 2, 1, 1] and ds.kind == "dissimilarity"
    conv = load_similarity(p, matrix_key="K2", labels_key="grp", kind="dissimilarity")
    np.testing.assert_array_equal(conv.matrix, -2 * S4)  # declared: converted, s = -d
    assert conv.kind == "similarity" and "declared a dissimilarity" in conv.conversion
    with pytest.raises(SimilarityMatrixError, match=r"no variable 'nope'.*K1"):
        load_similarity(p, matrix_key="nope")


def test_mat_missing_labels_lists_keys(tmp_path):
    p = tmp_path / "nolab.mat"
    scipy.io.savemat(p, {"S": S4, "other": np.arange(3)})
    with pytest.raises(LabelError, match=r"no label vector of length 4.*other.*length 3"):
        load_similarity(p)
    lab = tmp_path / "y.txt"
    lab.write_text("a\nb\na\nb\n")
    assert load_similarity(p, labels_path=lab).labels.tolist() == ["a", "b", "a", "b"]


def test_mat_no_square_matrix(tmp_path):
    p = tmp_path / "rect.mat"
    scipy.io.savemat(p, {"X": np.ones((4, 3)), "y": Y4})
    with pytest.raises(SimilarityMatrixError, match=r"no square 2-D numeric matrix.*X \(4, 3\)"):
        load_similarity(p)


def test_mat_non_square_given_by_key(tmp_path):
    p = tmp_path / "rect.mat"
    scipy.io.savemat(p, {"X": np.ones((3, 4)), "y": np.array([1, 2, 1])})
    with pytest.raises(SimilarityMatrixError, match="must be square"):
        load_similarity(p, matrix_key="X", labels_key="y")


def test_mat_nan_and_label_mismatch(tmp_path):
    bad = S4.copy()
    bad[1, 2] = np.nan
    p = tmp_path / "nan.mat"
    scipy.io.savemat(p, {"S": bad, "y": Y4})
    with pytest.raises(SimilarityMatrixError, match=r"nan\.mat.*NaN.*\[1, 2\]"):
        load_similarity(p)
    p2 = tmp_path / "short.mat"
    scipy.io.savemat(p2, {"S": S4, "y": Y4})
    with pytest.raises(LabelError, match="3 labels but the similarity matrix has 4"):
        load_similarity(p2, labels_key="y", labels_path=_write(tmp_path / "l.txt", "1 2 1"))


@pytest.mark.parametrize("suffix, content", [
    (".mat", b"MATLAB 5.0 garbage that is not a mat file" * 3),
    (".mat", b""),
    (".npz", b"PK\x03\x04 truncated zip"),
])
def test_corrupt_binary_files(tmp_path, suffix, content):
    p = tmp_path / f"broken{suffix}"
    p.write_bytes(content)
    with pytest.raises(SimilarityMatrixError, match="not a readable"):
        load_similarity(p)


def test_missing_file_and_unsupported_type(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="not found") as info:
        load_similarity(tmp_path / "absent.mat")
    assert isinstance(info.value, FileNotFoundError)
    p = _write(tmp_path / "m.xlsx", "x")
    with pytest.raises(SimilarityMatrixError, match=r"unsupported file type '.xlsx'"):
        load_similarity(p)


# ----------------------------------------------------------------- .npz

def test_npz_preferred_keys(tmp_path):
    p = tmp_path / "d.npz"
    np.savez(p, S=S4, y=Y4, other=2 * S4, y2=Y4)  # S and y win the ties
    ds = load_similarity(p, name="custom")
    np.testing.assert_array_equal(ds.matrix, S4)
    assert ds.name == "custom" and ds.labels.tolist() == Y4.tolist()


def test_npz_inf_and_string_labels(tmp_path):
    p = tmp_path / "d.npz"
    np.savez(p, matrix=S4, labels=np.array(["x", "y", "x", "y"]))
    assert load_similarity(p).class_names == ("x", "y")
    bad = S4.copy()
    bad[0, 0] = np.inf
    np.savez(p, matrix=bad, labels=Y4)
    with pytest.raises(SimilarityMatrixError, match="inf"):
        load_similarity(p)


# ----------------------------------------------------------------- text

def _write(path, text):
    path.write_text(text)
    return path


def test_csv_with_sibling_labels(tmp_path):
    p = _write(tmp_path / "sim.csv", "\n".join(",".join(map(str, r)) for r in S4))
    _write(tmp_path / "sim_labels.csv", "cat\ndog\ncat\ndog\n")
    ds = load_similarity(p)
    np.testing.assert_allclose(ds.matrix, S4)
    assert ds.labels.tolist() == ["cat", "dog", "cat", "dog"]


def test_txt_whitespace_with_dot_labels(tmp_path):
    p = _write(tmp_path / "sim.txt", "\n".join(" ".join(map(str, r)) for r in S4) + "\n")
    _write(tmp_path / "sim.labels", "1 1 2 2")
    ds = load_similarity(p)
    assert ds.labels.dtype.kind == "i" and ds.class_counts == {1: 2, 2: 2}


def test_text_no_labels(tmp_path):
    p = _write(tmp_path / "sim.txt", "1 0\n0 1\n")
    with pytest.raises(LabelError, match=r"no labels found.*sim_labels\.txt.*labels_path"):
        load_similarity(p)


@pytest.mark.parametrize("text, match", [
    ("1,2,3\n4,5\n", "different numbers of entries"),
    ("1,a\n2,3\n", "not a numeric matrix"),
    ("1,2,3\n4,5,6\n", "must be square"),
    ("1,nan\n0,1\n", "NaN"),
    ("", "empty"),
])
def test_text_matrix_errors(tmp_path, text, match):
    p = _write(tmp_path / "m.csv", text)
    _write(tmp_path / "m_labels.csv", "1\n2\n")
    with pytest.raises(SimilarityMatrixError, match=match):
        load_similarity(p)


def test_text_label_count_mismatch(tmp_path):
    p = _write(tmp_path / "m.csv", "1,0\n0,1\n")
    _write(tmp_path / "m_labels.csv", "1\n2\n1\n")
    with pytest.raises(LabelError, match=r"m\.csv.*3 labels.*2 rows"):
        load_similarity(p)
