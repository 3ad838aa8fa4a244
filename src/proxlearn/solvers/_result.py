"""The one result type of proxlearn's solvers.

:class:`SolverResult` is a :class:`scipy.optimize.OptimizeResult` (a ``dict``
with attribute access) with two additions: a readable ``repr`` (arrays shown by
shape, long lists by length) and *aliases*, older or domain names that read and
write a stored field (``res.objective`` is ``res.fun``; ``res["n_iter"]`` is
``res["nit"]``). Each solver's result subclasses it, names the fields that mean
what scipy's do as scipy does (``x``, ``fun``, ``nit``, ``success``, ``status``,
``message``) and lists its own fields and aliases in its docstring.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import OptimizeResult

__all__ = ["SolverResult"]

#: The fields shown first by the repr, in this order (the others follow as stored).
_FIRST = ("message", "success", "status", "fun", "x", "nit")


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        if value.size <= 6:
            return np.array2string(value, precision=6, separator=", ")
        return f"<ndarray {value.shape} {value.dtype}>"
    if isinstance(value, (list, tuple)) and len(value) > 6:
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, dict) and len(value) > 6:
        return f"<dict of {len(value)} keys>"
    text = repr(value)
    return text if len(text) <= 72 else text[:69] + "..."


class SolverResult(OptimizeResult):
    """Result of a proxlearn solver: a :class:`scipy.optimize.OptimizeResult` with aliases.

    Fields are dictionary keys read as attributes. Those with scipy's meaning
    carry scipy's names:

    ===========  ====================================================================
    ``x``        the solution (the solver's own variables)
    ``fun``      the objective at ``x``
    ``nit``      iterations
    ``success``  the stopping rule was met
    ``status``   0: converged, 1: ``max_iter`` reached (others per solver)
    ``message``  the reason for stopping, in words
    ===========  ====================================================================

    A subclass lists its own fields, and in ``_aliases`` the names kept for
    compatibility (``{"objective": "fun", "n_iter": "nit"}``): an alias reads,
    writes and deletes the field it names, as attribute or as key, and is not
    stored itself. ``repr`` shows arrays by shape and long lists by length.

    Examples
    --------
    >>> import numpy as np
    >>> from proxlearn.solvers import SolverResult
    >>> class Result(SolverResult):
    ...     _aliases = {"objective": "fun", "n_iter": "nit"}
    >>> res = Result(x=np.zeros(2), fun=0.5, nit=3, success=True, status=0, message="done")
    >>> res.objective, res["n_iter"], res.fun
    (0.5, 3, 0.5)
    >>> res.n_iter = 4
    >>> res.nit, sorted(res)
    (4, ['fun', 'message', 'nit', 'status', 'success', 'x'])
    >>> res
    Result(
      message: 'done'
      success: True
       status: 0
          fun: 0.5
            x: [0., 0.]
          nit: 4
    )

    See Also
    --------
    scipy.optimize.OptimizeResult : the base class.
    DualAscentResult, BoxLassoResult : results built on it.
    """

    #: ``alias -> stored field``.
    _aliases: dict = {}

    @staticmethod
    def stopping(success, status=None, message=None) -> dict:
        """``success``, ``status`` and ``message`` for a solver that stops either by
        its rule (status 0) or at ``max_iter`` (status 1), as keyword arguments."""
        success = bool(success)
        if status is None:
            status = 0 if success else 1
        if message is None:
            message = "stopping rule met" if success else "max_iter reached"
        return {"success": success, "status": int(status), "message": message}

    def _key(self, name):
        return type(self)._aliases.get(name, name)

    def __getitem__(self, name):
        return dict.__getitem__(self, self._key(name))

    def __setitem__(self, name, value):
        dict.__setitem__(self, self._key(name), value)

    def __delitem__(self, name):
        dict.__delitem__(self, self._key(name))

    def __contains__(self, name):
        return dict.__contains__(self, self._key(name))

    def get(self, name, default=None):
        return dict.get(self, self._key(name), default)

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e

    __setattr__ = __setitem__
    __delattr__ = __delitem__

    def __dir__(self):
        return list(self.keys()) + list(type(self)._aliases)

    def __repr__(self):
        first = [k for k in _FIRST if dict.__contains__(self, k)]
        keys = first + [k for k in self if k not in first]
        if not keys:
            return f"{type(self).__name__}()"
        width = max(map(len, keys))
        lines = [f"  {k:>{width}}: {_short(dict.__getitem__(self, k))}" for k in keys]
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    def __reduce__(self):
        return (_rebuild, (type(self), dict(self)))


def _rebuild(cls, fields):
    """Unpickle a :class:`SolverResult` without calling a subclass's ``__init__``."""
    out = dict.__new__(cls)
    dict.update(out, fields)
    return out
