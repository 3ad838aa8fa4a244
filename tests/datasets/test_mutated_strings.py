"""make_mutated_strings: the documented generator of issue #19."""

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from proxlearn.datasets import PROTEIN_ALPHABET, make_mutated_strings
from proxlearn.exceptions import InvalidParameterError


def test_shapes_labels_alphabet_and_seed():
    X, y, protos = make_mutated_strings(103, n_classes=5, random_state=1, return_prototypes=True)
    assert len(X) == 103 and y.shape == (103,) and len(protos) == 5
    assert np.bincount(y).tolist() == [21, 21, 21, 20, 20]  # balanced to within one
    assert all(20 <= len(p) <= 60 for p in protos)
    assert set("".join(X)) <= set(PROTEIN_ALPHABET)
    X2, y2 = make_mutated_strings(103, n_classes=5, random_state=1)
    assert X2 == X and np.array_equal(y2, y)
    assert make_mutated_strings(103, n_classes=5, random_state=2)[0] != X


def test_no_mutation_gives_the_prototypes():
    X, y, protos = make_mutated_strings(30, n_classes=3, mutation_rate=0.0, random_state=0,
                                        return_prototypes=True)
    assert X == [protos[c] for c in y]


def test_edits_per_object_follow_the_rate():
    # each edit changes the edit distance to the prototype by at most one
    X, y, protos = make_mutated_strings(400, n_classes=2, min_length=40, max_length=40,
                                        mutation_rate=0.1, random_state=0,
                                        return_prototypes=True)
    d = np.array([Levenshtein.distance(x, protos[c]) for x, c in zip(X, y)])
    assert 0 < d.mean() <= 40 * 0.1 + 0.5  # E[edits] = 4; substitutions may keep the letter
    assert d.mean() > 2.0


@pytest.mark.parametrize("kwargs", [
    {"n_samples": 0}, {"n_classes": 0}, {"min_length": 0}, {"min_length": 30, "max_length": 20},
    {"mutation_rate": 1.5}, {"alphabet": "A"},
])
def test_bad_parameters(kwargs):
    with pytest.raises(InvalidParameterError):
        make_mutated_strings(**{"n_samples": 10, **kwargs})
