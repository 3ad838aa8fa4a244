"""Text matrices as users write them: pandas' to_csv layout, label columns, no labels."""

import numpy as np
import pytest

from proxlearn.cli import main
from proxlearn.datasets import load_dataset, load_similarity
from proxlearn.exceptions import InvalidParameterError, LabelError

S = np.array([[1.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.0]])


def _rows(prefix):
    return "\n".join(f"{p},{','.join(str(float(v)) for v in row)}" for p, row in zip(prefix, S))


@pytest.mark.parametrize("text", [
    # DataFrame(S).to_csv(path): empty corner, column names 0..n-1, index 0..n-1
    ",0,1,2\n" + _rows(["0", "1", "2"]),
    # DataFrame(S, index=names, columns=names).to_csv(path)
    ",a,b,c\n" + _rows(["a", "b", "c"]),
    # index named, as df.rename_axis("id").to_csv
    "id,a,b,c\n" + _rows(["a", "b", "c"]),
    # quoted names with commas and spaces
    '"",\"x, 1\",\"y 2\",z\n' + _rows(['"x, 1"', '"y 2"', "z"]),
    # header without index: to_csv(index=False)
    "a,b,c\n" + "\n".join(",".join(str(float(v)) for v in row) for row in S),
])
def test_pandas_layouts_are_read(tmp_path, text):
    p = tmp_path / "m.csv"
    p.write_text(text + "\n")
    (tmp_path / "m_labels.txt").write_text("1\n1\n2\n")
    ds = load_similarity(p, kind="similarity")
    np.testing.assert_array_equal(ds.matrix, S)
    assert ds.labels.tolist() == [1, 1, 2]


def test_label_column_by_header_name(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text(",a,b,c,label\n" + "\n".join(
        f"{n},{','.join(str(float(v)) for v in row)},{lab}"
        for n, row, lab in zip("abc", S, ["cat", "cat", "dog"])) + "\n")
    ds = load_similarity(p, kind="similarity")
    np.testing.assert_array_equal(ds.matrix, S)
    assert ds.labels.tolist() == ["cat", "cat", "dog"]


def test_plain_numbers_still_work_and_ragged_still_fails(tmp_path):
    p = tmp_path / "plain.txt"
    p.write_text("\n".join(" ".join(str(float(v)) for v in row) for row in S) + "\n")
    (tmp_path / "plain_labels.txt").write_text("1 1 2")
    np.testing.assert_array_equal(load_similarity(p, kind="similarity").matrix, S)
    r = tmp_path / "ragged.csv"
    r.write_text("1,2,3\n4,5\n6,7,8\n")
    with pytest.raises(Exception, match="different numbers of entries"):
        load_similarity(r, labels_path=tmp_path / "plain_labels.txt")


def test_unlabelled_matrix(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    p = tmp_path / "nolabels.csv"
    p.write_text("\n".join(",".join(str(float(v)) for v in row) for row in S) + "\n")
    with pytest.raises(LabelError, match="no labels found"):
        load_similarity(p)
    ds = load_similarity(p, require_labels=False, kind="similarity")
    assert ds.labels is None and ds.class_counts == {} and ds.n == 3
    assert main(["info", str(p), "--plot", str(tmp_path / "p.png")]) == 0
    assert "no labels" in capsys.readouterr().out
    assert (tmp_path / "p.png").stat().st_size > 0
    assert main(["study", str(p), "--methods", "knn"]) == 2  # a study needs labels
    assert "no labels found" in capsys.readouterr().err


def test_labels_option(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    p = tmp_path / "m.csv"
    p.write_text("\n".join(",".join(str(float(v)) for v in row) for row in S) + "\n")
    lab = tmp_path / "classes.txt"
    lab.write_text("x\ny\ny\n")
    assert main(["info", str(p), "--labels", str(lab), "--json"]) == 0
    assert '"class_counts": {"x": 1, "y": 2}' in capsys.readouterr().out
    lab.write_text("x\ny\n")
    assert main(["info", str(p), "--labels", str(lab)]) == 2
    assert "2 labels but the similarity matrix has 3 rows" in capsys.readouterr().err
    with pytest.raises(InvalidParameterError, match="registered data set"):
        load_dataset("synthetic-1", labels_path=lab)


def test_row_names_without_header(tmp_path):
    p = tmp_path / "named.csv"
    p.write_text("\n".join(f"{n},{','.join(str(float(v)) for v in row)}"
                           for n, row in zip("abc", S)) + "\n")
    (tmp_path / "named_labels.txt").write_text("1\n2\n2\n")
    np.testing.assert_array_equal(load_similarity(p, kind="similarity").matrix, S)


def test_a_label_column_under_another_name_is_named_in_the_error(tmp_path):
    """A label column named 'species' was reported as "could not convert 'obj0'", blaming
    the index column (issue #39, section 4)."""
    from proxlearn.exceptions import SimilarityMatrixError

    S = np.eye(4) + 0.1
    rows = [",obj0,obj1,obj2,obj3,species"] + [
        f"obj{i}," + ",".join(map(str, S[i])) + f",{'ab'[i % 2]}" for i in range(4)]
    p = tmp_path / "sp.csv"
    p.write_text("\n".join(rows) + "\n")
    with pytest.raises(SimilarityMatrixError, match=r"'species' \(column 6\).*label / labels"):
        load_similarity(p)
    p.write_text("\n".join([rows[0].replace("species", "label"), *rows[1:]]) + "\n")
    assert load_similarity(p).labels.tolist() == ["a", "b", "a", "b"]


def test_missing_labels_message_lists_each_candidate_once_and_both_ways(tmp_path, capsys):
    p = tmp_path / "m.txt"
    np.savetxt(p, np.eye(3) + 0.1)
    with pytest.raises(LabelError) as info:
        load_similarity(p)
    msg = str(info.value)
    assert msg.count("m_labels.txt") == 2  # once in the list, once in the advice
    assert "--labels PATH" in msg and "labels_path=" in msg and str(tmp_path) in msg
