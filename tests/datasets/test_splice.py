"""splice-sw: real DNA sequences compared by the pairwise string builder."""

from pathlib import Path

import numpy as np
import pytest

from proxlearn.datasets import load_dataset
from proxlearn.datasets._splice import splice_alignment_dataset
from proxlearn.pairwise import pairwise_similarity

UCI_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "uci"


def _need_data():
    if not (UCI_DIR / "splice.train").is_file():
        pytest.skip(f"../shared/data/uci/splice.train not found (expected in {UCI_DIR})")


def test_splice_sw_is_the_alignment_of_a_stratified_sample():
    _need_data()
    ds = load_dataset("splice-sw", data_home=UCI_DIR.parent)
    S = ds.matrix
    assert S.shape == (400, 400) and ds.name == "splice-sw"
    # stratified: the file's 517 / 483 classes kept in proportion
    assert {str(k): v for k, v in ds.class_counts.items()} == {"+1": 207, "-1": 193}
    assert np.array_equal(S, S.T) and np.allclose(np.diag(S), 1.0)
    assert np.linalg.eigvalsh(S).min() < 0  # indefinite
    # the rows are the builder's output on the decoded sequences
    rows = [ln.split(",") for ln in (UCI_DIR / "splice.train").read_text().splitlines()
            if ln.strip()]
    seqs = ["".join("ACGT"[int(float(v)) - 1] for v in r[1:]) for r in rows]
    full = splice_alignment_dataset(UCI_DIR / "splice.train", n=1000)
    assert full.matrix.shape == (1000, 1000)
    some = [0, 17, 999]
    np.testing.assert_allclose(
        full.matrix[np.ix_(some, some)],
        pairwise_similarity([seqs[i] for i in some], metric="smith-waterman-normalized"),
        atol=1e-12)


def test_a_file_with_other_codes_is_refused(tmp_path):
    path = tmp_path / "splice.train"
    path.write_text("+1, " + ", ".join(["1"] * 59 + ["7"]) + "\n-1, "
                    + ", ".join(["2"] * 60) + "\n")
    with pytest.raises(ValueError, match="coded 1-4"):
        splice_alignment_dataset(path)
