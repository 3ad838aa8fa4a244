"""Progress lines of long iterative fits (the ``verbose`` parameter).

``verbose=0`` prints nothing; ``1`` prints a line at most every
:data:`EVERY_SECONDS` seconds and one when the loop ends; ``2`` prints every
iteration. Lines go to standard output, as scikit-learn's do, and are flushed so
that they show in a log file while the fit runs.
"""

from __future__ import annotations

import numbers
import sys
import time

from ._validation import InvalidParameterError

__all__ = ["EVERY_SECONDS", "IterationLog", "check_verbose"]

#: Seconds between two progress lines at ``verbose=1``.
EVERY_SECONDS = 2.0


def check_verbose(verbose) -> int:
    """``verbose`` as an int in {0, 1, 2, ...} (``True`` is 1).

    Parameters
    ----------
    verbose : bool or int

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        For a negative or non-integer value.

    See Also
    --------
    IterationLog : Prints at the checked level.

    Examples
    --------
    >>> from proxlearn._progress import check_verbose
    >>> check_verbose(True), check_verbose(False), check_verbose(2)
    (1, 0, 2)
    """
    if isinstance(verbose, bool):
        return int(verbose)
    if not isinstance(verbose, numbers.Integral) or verbose < 0:
        raise InvalidParameterError(
            f"verbose must be False/True or an integer >= 0, got {verbose!r}.")
    return int(verbose)


def _fmt(value) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


class IterationLog:
    """``log(t, name=value, ...)`` inside a loop, ``log.end(t, reason)`` after it.

    Parameters
    ----------
    what : str
        Who is iterating (``"ESKL, classes 0 vs 1"``), the start of every line.
    verbose : int
        See the module docstring.

    See Also
    --------
    check_verbose : The accepted values of ``verbose``.

    Examples
    --------
    >>> from proxlearn._progress import IterationLog
    >>> log = IterationLog("demo", verbose=2)
    >>> log(1, gap=0.5)
    demo: iteration 1, gap 0.5; ... s
    >>> log.end(1, "gap below tol")
    demo: stopped after 1 iterations (gap below tol); ... s
    """

    def __init__(self, what: str, verbose: int):
        self.what = what
        self.verbose = check_verbose(verbose)
        self.start = self.last = time.monotonic()

    def __call__(self, it: int, **values) -> None:
        if not self.verbose:
            return
        now = time.monotonic()
        if self.verbose >= 2 or now - self.last >= EVERY_SECONDS:
            self.last = now
            self._line(f"iteration {it}", values)

    def end(self, it: int, reason: str, **values) -> None:
        """The closing line: how many iterations, why it stopped, the final values."""
        if self.verbose:
            self._line(f"stopped after {it} iterations ({reason})", values)

    def _line(self, head: str, values: dict) -> None:
        parts = [f"{k} {_fmt(v)}" for k, v in values.items()]
        seconds = time.monotonic() - self.start
        print(f"{self.what}: {head}{', ' if parts else ''}{', '.join(parts)}; "
              f"{seconds:.1f} s", file=sys.stdout, flush=True)
