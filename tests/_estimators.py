"""The public estimator classes, discovered from the subpackages' ``__all__`` (shared by
the cross-cutting tests, so that a new estimator is covered by all of them at once)."""

import importlib
import inspect


def public_classes(packages, base):
    """``(package, name, class)`` for every class of the packages' ``__all__`` that
    subclasses ``base``, in the packages' order."""
    for pkg in packages:
        mod = importlib.import_module(f"proxlearn.{pkg}")
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if inspect.isclass(obj) and issubclass(obj, base):
                yield pkg, name, obj
