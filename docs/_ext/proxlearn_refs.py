"""Sphinx extension: resolve the docstrings' references the way a reader of the source does.

The docstrings are written for ``help()`` and for the source: they name objects by
their short name in the module that defines them (``SimilarityMatrixError`` in
``mkl/_classifiers.py``), and they name private helpers and modules
(``proxlearn._normalize``, ``_simplex_newton``) that have no page on the site.
For a Python reference Sphinx could not resolve, this extension looks the target
up in Python, in the namespaces a reader would (the documented object's class and
its defining module, then the page's current module, then as an absolute name):

* the target is an object that has a page (a public name of some package's
  ``__all__``): the reference links to that page;
* the target exists but has no page (a private module or function, a constant
  outside every ``__all__``, a method without a docstring): it is rendered as code
  text, without a link;
* the target does not exist: nothing is done, Sphinx reports the reference, and
  the nitpicky build fails. Misspelt or stale names are still caught.

References into another project that its intersphinx inventory does not resolve
(the packages of ``proxlearn_text_packages``, set by conf.py; the inventory may be
missing on this machine) and to Python's builtins are rendered as text as well.

Module-level constants get their ``#:`` comment from the module that defines them
(autodoc looks only in the package that re-exports them, and would otherwise show
the docstring of the value's type, e.g. ``dict`` or ``numpy.ndarray``).
"""

from __future__ import annotations

import builtins
import importlib
import sys

from sphinx.pycode import ModuleAnalyzer

_SCALARS = (int, float, complex, str, bytes, bool, type(None), tuple)


def _import(name):
    """The object named by the dotted ``name`` (longest importable module prefix)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001 - not a module: try a shorter prefix
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _lookup(scope, target):
    obj = scope
    for attr in target.split("."):
        try:
            obj = getattr(obj, attr)
        except Exception:  # noqa: BLE001 - any failing getattr means "not there"
            return None
    return obj


class _Resolver:
    def __init__(self):
        self._pages = None

    def pages(self, env):
        """id(object) -> full name, for every documented Python object."""
        if self._pages is None:
            self._pages = {}
            for fullname, entry in env.domains["py"].objects.items():
                if entry.aliased:
                    continue
                obj = _import(fullname)
                if obj is not None and not isinstance(obj, _SCALARS):
                    self._pages.setdefault(id(obj), (fullname, obj))
        return self._pages

    def scopes(self, node):
        scopes = []
        doc = node.get("refdoc", "")
        if doc.startswith("api/generated/"):
            documented = _import(doc.rsplit("/", 1)[-1])
            if documented is not None:
                scopes.append(documented)
                module = sys.modules.get(getattr(documented, "__module__", "") or "")
                if module is not None:
                    scopes.append(module)
        current = node.get("py:module")
        if current:
            module = _import(current)
            if module is not None:
                cls = node.get("py:class")
                if cls:
                    scopes.append(_lookup(module, cls))
                scopes.append(module)
                defining = sys.modules.get(getattr(scopes[-1], "__name__", ""))
                scopes.append(defining)
        return [s for s in scopes if s is not None]

    def find(self, node, target):
        for scope in self.scopes(node):
            obj = _lookup(scope, target)
            if obj is not None:
                return obj
        if "." in target:
            return _import(target)
        # an autosummary table row: the summary's short name is relative to the
        # module that defines the listed object, some module of the current package
        package = node.get("py:module")
        if package:
            found = {id(obj): obj for name, module in sorted(sys.modules.items())
                     if name.startswith(package + ".")
                     and (obj := _lookup(module, target)) is not None}
            if len(found) == 1:
                return next(iter(found.values()))
        return None


_RESOLVER = _Resolver()


def _missing_reference(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if target.split(".")[0] in app.config.proxlearn_text_packages or hasattr(builtins, target):
        return contnode
    obj = _RESOLVER.find(node, target)
    if obj is None:
        return None  # nothing of that name: Sphinx reports it
    page = None if isinstance(obj, _SCALARS) else _RESOLVER.pages(env).get(id(obj))
    if page is not None and page[1] is obj:
        resolved = env.domains["py"].resolve_xref(
            env, node["refdoc"], app.builder, "obj", page[0], node, contnode)
        if resolved is not None:
            return resolved
    return contnode  # exists, has no page: code text


def _constant_docstring(app, what, name, obj, options, lines):
    if what not in ("data", "attribute") or not name.startswith("proxlearn."):
        return
    inherited = set()
    for doc in (type(obj).__doc__, getattr(obj, "__doc__", None)):
        if isinstance(doc, str) and doc.strip():
            inherited.add(doc.strip().splitlines()[0].strip())
    if lines and lines[0].strip() not in inherited:
        return  # the constant has a docstring (or a ``#:`` comment) of its own
    package, short = name.rsplit(".", 1)
    comment = None
    # the package's own modules first, then every other module of proxlearn
    modules = sorted(sys.modules.items(), key=lambda item: (
        not (item[0] == package or item[0].startswith(package + ".")), item[0]))
    for modname, module in modules:
        if not modname.startswith("proxlearn"):
            continue
        if getattr(module, short, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:  # noqa: BLE001 - a module without source: no comment
            continue
        if ("", short) in docs:
            comment = list(docs[("", short)])
            break
    lines[:] = comment if comment is not None else [f"Constant (a ``{type(obj).__name__}``)."]


def setup(app):
    app.add_config_value("proxlearn_text_packages", frozenset(), "env")
    app.connect("missing-reference", _missing_reference)
    # before numpydoc (priority 500) reformats the text
    app.connect("autodoc-process-docstring", _constant_docstring, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
