"""Random-mutation strings in classes: raw objects for the similarity builders.

=========================  ======================================================
function                   objects
=========================  ======================================================
``make_mutated_strings``   ``k`` random prototype strings (lengths uniform in
                           ``[min_length, max_length]``); every object is its
                           class's prototype after random substitutions,
                           insertions and deletions
=========================  ======================================================

The default workload of the similarity builders' benchmarks (strings of length
20-60 in 5 classes, up to 100,000 objects): the edit distance between two objects of one class is about
twice the number of edits per object, between classes about that of two random
strings, so the classes are separable by edit distance and alignment score,
and the similarity matrices built from them are indefinite.
"""

from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError

__all__ = ["PROTEIN_ALPHABET", "make_mutated_strings"]

#: The 20 standard amino acids (one-letter codes), the default alphabet.
PROTEIN_ALPHABET = "ACDEFGHIKLMNPQRSTVWY"


def make_mutated_strings(n_samples=500, n_classes=5, *, min_length=20, max_length=60,
                         mutation_rate=0.15, alphabet=PROTEIN_ALPHABET, random_state=None,
                         return_prototypes=False):
    """Strings in classes, each a randomly mutated copy of its class prototype.

    1. ``n_classes`` prototypes: lengths uniform in ``[min_length, max_length]``,
       letters i.i.d. uniform over ``alphabet``.
    2. Labels: ``arange(n_samples) % n_classes`` in random order (classes differ
       in size by at most one).
    3. Object ``i`` of class ``c``: ``e ~ Binomial(len(prototype_c), mutation_rate)``
       edits applied one after the other, each a substitution (a uniform letter,
       possibly the same), an insertion (a uniform letter at a uniform position)
       or a deletion (of a uniform position; skipped when one letter is left),
       with probability 1/3 each.

    Parameters
    ----------
    n_samples : int, default=500
    n_classes : int, default=5
    min_length, max_length : int, default=20, 60
        Range of the prototypes' lengths (objects vary by their insertions and deletions).
    mutation_rate : float in [0, 1], default=0.15
        Expected edits per prototype letter.
    alphabet : str, default: the 20 amino acids
        Also valid for the BLOSUM / PAM matrices of the alignment metrics.
    random_state : int, numpy Generator or None
    return_prototypes : bool, default=False
        Also return the ``n_classes`` prototypes.

    Returns
    -------
    X : list of str, length n_samples
    y : ndarray of shape (n_samples,), int labels ``0 .. n_classes - 1``
    prototypes : list of str
        Only when ``return_prototypes=True``.

    Examples
    --------
    >>> from proxlearn.datasets import make_mutated_strings
    >>> X, y = make_mutated_strings(10, 2, random_state=0)
    >>> len(X), sorted(set(y.tolist())), all(20 <= len(s) <= 80 for s in X)
    (10, [0, 1], True)

    See Also
    --------
    proxlearn.pairwise.pairwise_similarity : edit distances and alignments of them.
    """
    n_samples, n_classes = int(n_samples), int(n_classes)
    if n_samples < 1 or n_classes < 1:
        raise InvalidParameterError("need n_samples >= 1 and n_classes >= 1.")
    if not 1 <= min_length <= max_length:
        raise InvalidParameterError(
            f"need 1 <= min_length <= max_length, got {min_length} and {max_length}.")
    if not 0.0 <= mutation_rate <= 1.0:
        raise InvalidParameterError(f"mutation_rate must be in [0, 1], got {mutation_rate}.")
    letters = np.array(list(alphabet))
    if letters.size < 2:
        raise InvalidParameterError("alphabet must have at least two letters.")
    rng = np.random.default_rng(random_state)
    lengths = rng.integers(min_length, max_length + 1, size=n_classes)
    prototypes = ["".join(rng.choice(letters, size=m)) for m in lengths]
    y = rng.permutation(np.arange(n_samples) % n_classes)
    n_edits = rng.binomial(lengths[y], mutation_rate)
    X = []
    for c, e in zip(y, n_edits):
        s = list(prototypes[c])
        ops = rng.integers(0, 3, size=e)
        new = rng.choice(letters, size=e)
        where = rng.random(e)
        for op, ch, u in zip(ops, new, where):
            if op == 0:  # substitution
                s[int(u * len(s))] = ch
            elif op == 1:  # insertion (len(s) + 1 positions)
                s.insert(int(u * (len(s) + 1)), ch)
            elif len(s) > 1:  # deletion
                del s[int(u * len(s))]
        X.append("".join(s))
    return (X, y, prototypes) if return_prototypes else (X, y)
