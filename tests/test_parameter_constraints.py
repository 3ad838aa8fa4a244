"""The declarative parameter tables of ``proxlearn._validation`` (issue 36, item 5):
each constraint kind, their unions, the messages, and every estimator's table."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from proxlearn._validation import (
    MAX_ITER_OR_NO_LIMIT,
    boolean,
    instance_of,
    integer,
    only_if,
    options,
    positive,
    unchecked,
    validate_params,
)
from proxlearn.cluster import make_pairwise_constraints
from proxlearn.exceptions import InvalidParameterError

from _estimators import learners


def _refusal(constraint, value, name="p"):
    with pytest.raises(InvalidParameterError) as info:
        constraint.check(value, name)
    return str(info.value)


def test_positive():
    assert positive().check(2, "C") == 2.0 and isinstance(positive().check(2, "C"), float)
    assert positive(allow_zero=True).check(0, "tol") == 0.0
    assert _refusal(positive(), 0, "C") == "C must be finite and > 0, got 0.0."
    assert _refusal(positive(allow_zero=True), -1, "tol") == "tol must be finite and >= 0, got -1.0."
    assert _refusal(positive(), np.inf, "C") == "C must be finite and > 0, got inf."
    assert _refusal(positive(), True, "C") == "C must be a real number, got True."
    assert _refusal(positive(), "1", "C") == "C must be a real number, got '1'."


def test_integer():
    assert integer(1).check(np.int64(3), "k") == 3 and type(integer(1).check(np.int64(3), "k")) is int
    assert _refusal(integer(1), 0, "max_iter") == "max_iter must be an integer >= 1, got 0."
    assert _refusal(integer(2), 2.0, "cv") == "cv must be an integer >= 2, got 2.0."
    assert _refusal(integer(1), True, "k") == "k must be an integer >= 1, got True."
    assert integer(1, 3).check(3, "k") == 3
    assert _refusal(integer(1, 3), 4, "k") == "k must be an integer in [1, 3], got 4."
    named = integer(1, what="a positive integer")
    assert named.check(12, "k") == 12
    assert _refusal(named, 0, "k") == "k must be a positive integer, got 0."
    assert _refusal(named | options("auto"), "x", "k") == (
        "k must be a positive integer or 'auto', got 'x'.")


def test_boolean():
    assert boolean().check(np.bool_(True), "b") is True
    assert _refusal(boolean(), 1, "fit_intercept") == "fit_intercept must be True or False, got 1."
    msg = _refusal(boolean("True does this."), "yes", "b")
    assert msg == "b must be True or False, got 'yes'. True does this."


def test_options():
    c = options("clip", "flip", None)
    assert c.check("flip", "spectrum") == "flip" and c.check(None, "spectrum") is None
    assert _refusal(c, "Clip", "spectrum") == (
        "spectrum='Clip' is not supported; choose one of ['clip', 'flip', None].")
    # None / True match by identity: 0 is not None, 1 is not True
    assert _refusal(options(True, None), 1, "x").startswith("x=1 is not supported")
    assert _refusal(options("a"), ["a"], "x").startswith("x=['a'] is not supported")
    assert options(-1).check(np.int64(-1), "m") == -1


def test_instance_of_and_unchecked():
    assert instance_of(str, "a string").check("s", "x") == "s"
    assert _refusal(instance_of(str, "a string"), 3, "x") == "x must be a string, got 3."
    obj = object()
    assert unchecked("elsewhere").check(obj, "x") is obj
    assert not unchecked("elsewhere").checks and positive().checks


def test_only_if():
    class Est(BaseEstimator):
        _parameter_constraints = {"kernel": options("linear", "rbf"),
                                  "gamma": only_if(positive(), "kernel", "rbf")}

        def __init__(self, kernel="linear", gamma=1):
            self.kernel, self.gamma = kernel, gamma

    assert validate_params(Est(gamma=-1)) == {"kernel": "linear", "gamma": -1}  # unused
    assert validate_params(Est("rbf", 2))["gamma"] == 2.0
    with pytest.raises(InvalidParameterError, match="gamma must be finite and > 0, got -1.0"):
        validate_params(Est("rbf", -1))


def test_union_messages():
    c = positive() | options("auto")
    assert c.check("auto", "gamma") == "auto" and c.check(2, "gamma") == 2.0
    # a number out of range: the number's own message names the bound
    assert _refusal(c, -1, "gamma") == "gamma must be finite and > 0, got -1.0."
    # anything else: every alternative listed
    assert _refusal(c, "scale", "gamma") == "gamma must be a positive number or 'auto', got 'scale'."
    assert _refusal(c, None, "gamma") == "gamma must be a positive number or 'auto', got None."
    # a number of a listed option's kind: the whole list (-1 is allowed, 0 is not)
    assert MAX_ITER_OR_NO_LIMIT.check(-1, "max_iter") == -1
    assert _refusal(MAX_ITER_OR_NO_LIMIT, 0, "max_iter") == (
        "max_iter must be -1 (no limit) or an integer >= 1, got 0.")
    # unions flatten
    c3 = integer(1) | options("auto") | options(None)
    assert len(c3.members) == 3 and c3.check(None, "k") is None


class _Toy(BaseEstimator):
    _parameter_constraints = {"C": positive(), "k": integer(1) | options("auto")}

    def __init__(self, C=1, k="auto"):
        self.C = C
        self.k = k


def test_validate_params():
    assert validate_params(_Toy()) == {"C": 1.0, "k": "auto"}
    assert validate_params(_Toy(k=0), "C") == {"C": 1.0}  # only the names asked for
    with pytest.raises(InvalidParameterError, match="k must be an integer >= 1, got 0"):
        validate_params(_Toy(k=0))


TABLED = [(name, cls, kind) for name, (cls, kind) in learners(BaseEstimator).items()
          if hasattr(cls, "_parameter_constraints")]
IDS = [t[0] for t in TABLED]


def test_some_estimators_have_tables():
    assert len(TABLED) >= 5


@pytest.mark.parametrize("name,cls,kind", TABLED, ids=IDS)
def test_table_lists_every_parameter(name, cls, kind):
    """A table covers exactly ``get_params()``, and its defaults pass it."""
    est = cls()
    assert set(cls._parameter_constraints) == set(est.get_params(deep=False)), name
    validate_params(est)


class _Bad:
    """A value no checked constraint accepts."""


@pytest.mark.parametrize("name,cls,kind", TABLED, ids=IDS)
def test_table_checks_every_listed_parameter(name, cls, kind):
    """Every parameter the table checks refuses a bad value at ``fit``, naming it."""
    if kind not in ("sim-clf", "sim-transform", "kernel-cluster", "stack-clf", "stack-transform",
                    "feat-clf", "feat-constraints-kernel", "completion-clf",
                    "completion-transform", "sim-reg", "sim-outlier", "stack-reg",
                    "stack-outlier"):
        pytest.skip(f"input kind {kind}")
    S = np.eye(6) + 0.1
    y = np.array([0, 0, 0, 1, 1, 1])
    stack = np.stack([S, 2 * S], axis=2)
    X = {"stack-clf": stack, "stack-transform": stack, "stack-reg": stack,
         "stack-outlier": stack, "feat-clf": np.arange(18.0).reshape(6, 3) % 5}.get(kind, S)
    args = (X, y) if kind.endswith(("-clf", "-reg")) else (X,)
    if kind == "feat-constraints-kernel":
        args = (np.arange(18.0).reshape(6, 3) % 5,
                make_pairwise_constraints(y, r=0.7, random_state=0))
    if kind == "completion-transform":  # fit(K11, K_aux): the known block, the auxiliary kernel
        args = (S[:4, :4], S)
    checked = [p for p, c in cls._parameter_constraints.items() if c.checks]
    if not checked:
        pytest.skip(f"{name}: every parameter is checked elsewhere (its table says where)")
    for param in checked:
        c = cls._parameter_constraints[param]
        # a parameter used only with another's value (gamma with kernel="rbf"): set that too
        cond = {c.other: c.values[0]} if hasattr(c, "other") else {}
        est = cls().set_params(**cond, **{param: _Bad()})
        with pytest.raises(InvalidParameterError, match=f"^{param}"):
            est.fit(*args)
