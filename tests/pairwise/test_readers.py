"""read_objects: FASTA, text and CSV time series with labels; bad records named."""

import numpy as np
import pytest

from proxlearn.exceptions import InvalidParameterError, ObjectListError
from proxlearn.pairwise import read_objects


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_fasta_ids_labels_and_multiline_sequences(tmp_path):
    p = _write(tmp_path, "x.fasta", ">sp1 kinase extra words\nHEAG AWG\nHEE\n;comment\n"
                                    ">sp2 globin\nPAWHEAE\n\n>sp3 kinase\nMKV\n")
    f = read_objects(p)
    assert f.format == "fasta"
    assert f.objects == ["HEAGAWGHEE", "PAWHEAE", "MKV"]
    assert f.ids == ["sp1", "sp2", "sp3"]
    assert f.labels.tolist() == ["kinase", "globin", "kinase"]


def test_fasta_without_labels_and_integer_labels(tmp_path):
    assert read_objects(_write(tmp_path, "a.fa", ">a\nAC\n>b\nGT\n")).labels is None
    y = read_objects(_write(tmp_path, "b.fa", ">a 1\nAC\n>b 2\nGT\n")).labels
    assert y.dtype.kind == "i" and y.tolist() == [1, 2]


@pytest.mark.parametrize(("text", "match"), [
    (">a 1\nAC\n>b 2\n>c 1\nGG\n", r"record b \(line 3\) has an empty sequence"),
    ("AC\n>a\nGG\n", "line 1: sequence before the first '>' header"),
    (">a 1\nAC\n>b\nGG\n", "record b has no label while earlier records have one"),
    (">a\nAC\n>b 2\nGG\n", "record b has a label while earlier records have none"),
    (">\nAC\n", "line 1: FASTA header without an id"),
])
def test_bad_fasta_names_the_record(tmp_path, text, match):
    with pytest.raises(ObjectListError, match=match):
        read_objects(_write(tmp_path, "bad.fasta", text))


def test_text_lines_and_tab_labels(tmp_path):
    f = read_objects(_write(tmp_path, "w.txt", "kitten\tcat\nsitting\tdog\n"))
    assert f.objects == ["kitten", "sitting"] and f.labels.tolist() == ["cat", "dog"]
    assert f.ids == ["line 1", "line 2"]
    assert read_objects(_write(tmp_path, "v.txt", "a b\nc")).objects == ["a b", "c"]
    with pytest.raises(ObjectListError, match="line 2 is an empty string"):
        read_objects(_write(tmp_path, "e.txt", "abc\n\nabd\n"))


def test_csv_series_variable_lengths_and_labels(tmp_path):
    f = read_objects(_write(tmp_path, "s.csv", "1,0.5,1.5,2\n2,3,4,,\n1,7,8,9\n"),
                     label_column=0)
    assert f.labels.tolist() == [1, 2, 1]
    np.testing.assert_array_equal(f.objects[1], [3.0, 4.0])
    np.testing.assert_array_equal(f.objects[2], [7.0, 8.0, 9.0])
    h = read_objects(_write(tmp_path, "h.csv", "t0,t1,class\n1,2,a\n3,4,b\n"))
    assert h.labels.tolist() == ["a", "b"] and h.ids == ["line 2", "line 3"]
    np.testing.assert_array_equal(h.objects[0], [1.0, 2.0])
    last = read_objects(_write(tmp_path, "t.tsv", "1\t2\tx\n3\t4\ty\n"), label_column=-1)
    assert last.labels.tolist() == ["x", "y"]
    assert read_objects(_write(tmp_path, "n.csv", "1,2\n3,4\n")).labels is None
    w = read_objects(_write(tmp_path, "w.csv", "1 2  3\n4\t5\n"))
    np.testing.assert_array_equal(w.objects[0], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(w.objects[1], [4.0, 5.0])


@pytest.mark.parametrize(("text", "match"), [
    ("1,2,3\n4,nan,6\n", "line 2, value 2: nan in a time series"),
    ("1,2,3\n4,,6\n", "line 2, value 2: an empty field in a time series"),
    ("1,2\n4,abc\n", "line 2, value 2: 'abc' is not a number"),
])
def test_bad_csv_names_the_line(tmp_path, text, match):
    with pytest.raises(ObjectListError, match=match):
        read_objects(_write(tmp_path, "bad.csv", text))


def test_format_from_suffix_or_named(tmp_path):
    p = _write(tmp_path, "x.dat", "abc\n")
    with pytest.raises(InvalidParameterError, match="cannot tell the format"):
        read_objects(p)
    assert read_objects(p, "text").objects == ["abc"]
    with pytest.raises(InvalidParameterError, match="label_column applies to CSV"):
        read_objects(p, "text", label_column=0)
    with pytest.raises(ObjectListError, match="no fasta records"):
        read_objects(_write(tmp_path, "empty.fa", "\n"))


def test_a_first_row_mixing_names_and_numbers_is_an_error_not_a_dropped_header(tmp_path):
    """One typo in the first data row dropped it as a header (issue #39, item 2.7)."""
    p = _write(tmp_path, "typo.csv", "1,2,3o\n4,5,6\n")
    with pytest.raises(ObjectListError, match=r"line 1 mixes names and numbers \('3o'"):
        read_objects(p)
    f = read_objects(p, header=True)  # the user says it is a header
    assert len(f.objects) == 1 and f.ids == ["line 2"]


def test_pandas_column_numbers_are_a_header_and_said_so(tmp_path):
    """pandas' header 0,1,2 was read as a data row (issue #39, item 2.7)."""
    p = _write(tmp_path, "pd.csv", "0,1,2,3\n5,6,7,8\n9,8,7,6\n")
    with pytest.warns(UserWarning, match="read as a header of column numbers"):
        f = read_objects(p)
    assert f.ids == ["line 2", "line 3"]
    g = read_objects(p, header=False)
    assert len(g.objects) == 3
    np.testing.assert_array_equal(g.objects[0], [0, 1, 2, 3])
    with pytest.raises(InvalidParameterError, match="header must be"):
        read_objects(p, header="yes")


@pytest.mark.parametrize("labels,expect", [
    (["01", "1", "+1"], ["01", "1", "+1"]), (["1", "2", "-3"], [1, 2, -3]),
    (["1", "1.0"], ["1", "1.0"]), (["0", "10"], [0, 10])])
def test_labels_are_integers_only_in_plain_form(tmp_path, labels, expect):
    """01, 1 and +1 were one class after int() (issue #39, item 2.8)."""
    text = "".join(f">s{i} {lab}\nACD\n" for i, lab in enumerate(labels))
    y = read_objects(_write(tmp_path, "l.fasta", text)).labels
    assert y.tolist() == expect and len(set(y.tolist())) == len(set(expect))


def test_a_file_that_is_not_utf8_is_named_with_its_line(tmp_path):
    """A latin-1 byte raised a bare UnicodeDecodeError (issue #39, item 2.6)."""
    p = tmp_path / "l1.fasta"
    p.write_bytes(">a caf\xe9\nACD\n>b tea\nACE\n".encode("latin-1"))
    with pytest.raises(ObjectListError, match=r"l1\.fasta: line 1: byte b'\\xe9' is not valid utf-8"):
        read_objects(p)
    assert read_objects(p, encoding="latin-1").labels.tolist() == ["café", "tea"]
    with pytest.raises(InvalidParameterError, match="unknown text encoding"):
        read_objects(p, encoding="klingon")
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffabc\nabd\n".encode("utf-8"))
    assert read_objects(bom).objects == ["abc", "abd"]
