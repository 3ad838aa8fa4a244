"""Write the API reference page of a public module: docs/api/<module>.rst.

Usage (from the repository root, with proxlearn importable)::

    python docs/_ext/api_page.py proxlearn.krein            # print the page
    python docs/_ext/api_page.py proxlearn.krein --write    # write docs/api/krein.rst

The page lists the module's ``__all__`` in autosummary tables (classes, functions,
exceptions and warnings, constants), in the order of ``__all__``; a name that
another public package defines and lists is shown as ``~proxlearn.<owner>.<name>``
(its page is its owner's). A new page also needs a line in docs/api/index.rst.
A ``References`` section that ends an existing page (the papers its names come
from, cited from docs/references.bib) is kept when the page is rewritten.
``tests/test_docs_site.py`` checks that every public name has its entry; edit a
page by hand afterwards as you like (order, grouping), the test only needs the
entries.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
from pathlib import Path

import proxlearn

API = Path(__file__).resolve().parents[1] / "api"

GROUPS = (
    ("Classes", lambda o: inspect.isclass(o) and not issubclass(o, BaseException)),
    ("Functions", lambda o: inspect.isfunction(o) or inspect.isbuiltin(o)),
    ("Exceptions and warnings", lambda o: inspect.isclass(o) and issubclass(o, BaseException)),
    ("Constants", lambda o: not (inspect.isclass(o) or inspect.isfunction(o)
                                 or inspect.isbuiltin(o))),
)


def public_modules():
    """Every public module of proxlearn that declares ``__all__``."""
    names = []
    for info in pkgutil.walk_packages(proxlearn.__path__, prefix="proxlearn."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        if hasattr(importlib.import_module(info.name), "__all__"):
            names.append(info.name)
    return sorted(names)


def _owner(obj, modules):
    """The public module whose subtree defines ``obj`` (deepest match), or None."""
    defined_in = getattr(obj, "__module__", "") or ""
    owners = [m for m in modules if defined_in == m or defined_in.startswith(m + ".")]
    return max(owners, key=len) if owners else None


def page(module_name):
    module = importlib.import_module(module_name)
    modules = public_modules()
    lines = [module_name, "=" * len(module_name), "", f".. automodule:: {module_name}",
             "   :no-members:", "", f".. currentmodule:: {module_name}", ""]
    for title, belongs in GROUPS:
        own, elsewhere = [], []
        for name in module.__all__:
            obj = getattr(module, name)
            if not belongs(obj):
                continue
            owner = _owner(obj, modules) if inspect.isclass(obj) or inspect.isfunction(obj) else None
            if owner not in (None, module_name) and name in importlib.import_module(owner).__all__:
                elsewhere.append(f"~{owner}.{name}")
            else:
                own.append(name)
        if not own and not elsewhere:
            continue
        lines += [title, "-" * len(title), ""]
        if own:
            lines += [".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in own] + [""]
        if elsewhere:
            lines += ["Documented with the package that defines them:", "",
                      ".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in elsewhere] + [""]
    return "\n".join(lines).rstrip() + "\n"


#: The hand-written section that ends a page: the papers its names come from.
REFERENCES = "\nReferences\n----------\n"


def kept_references(path):
    """The ``References`` section ending the existing page at ``path`` (written by
    hand, citing docs/references.bib), so that rewriting the page keeps it; ``""``
    when there is none."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    return old[old.index(REFERENCES):] if REFERENCES in old else ""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="a public module, e.g. proxlearn.svm")
    parser.add_argument("--write", action="store_true", help="write docs/api/<module>.rst")
    args = parser.parse_args(argv)
    text = page(args.module)
    if args.write:
        path = API / f"{args.module.removeprefix('proxlearn.')}.rst"
        text += kept_references(path)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}; add it to docs/api/index.rst")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
