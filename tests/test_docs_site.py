"""The documentation site's API reference lists every public name (no Sphinx build).

The reference pages are ``docs/api/<package>.rst``, one per public module that
declares ``__all__``; each lists its names in ``autosummary`` tables, from which
Sphinx generates one page per name (``bash scripts/docs.sh`` builds the site).
A public name without an entry would have no page: these tests fail for it, and
for an entry that is no longer public. A name re-exported from another public
package is listed as ``~proxlearn.<owner>.<name>`` (documented once, where its
owner lists it). ``docs/_ext/api_page.py`` writes a module's page.
"""

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import proxlearn

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api"
ENTRY = re.compile(r"^~?(?:[\w.]+\.)?(\w+)$")


def _api_page_script():
    spec = importlib.util.spec_from_file_location("api_page", ROOT / "docs" / "_ext" / "api_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PUBLIC = _api_page_script().public_modules()


def _autosummary_entries(text):
    """The entries of every ``.. autosummary::`` block of a reST page."""
    entries = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != ".. autosummary::":
            continue
        for item in lines[i + 1:]:
            if item and not item.startswith(" "):
                break  # end of the directive's block
            item = item.strip()
            if item and not item.startswith(":"):
                entries.append(item)
    return entries


def _page(module_name):
    return API / f"{module_name.removeprefix('proxlearn.')}.rst"


def test_public_modules_found():
    # The walk must see the packages it is meant to check.
    assert {"proxlearn.svm", "proxlearn.mkl", "proxlearn.datasets"} <= set(PUBLIC), PUBLIC


def test_every_top_level_subpackage_is_public_here():
    subpackages = {f"proxlearn.{n}" for n in proxlearn.__all__ if n != "__version__"}
    assert subpackages <= set(PUBLIC), sorted(subpackages - set(PUBLIC))


@pytest.mark.parametrize("module_name", PUBLIC)
def test_every_public_name_has_an_entry(module_name):
    page = _page(module_name)
    assert page.is_file(), (f"{module_name} has no API page: python docs/_ext/api_page.py "
                            f"{module_name} --write, and add it to docs/api/index.rst")
    module = importlib.import_module(module_name)
    entries = _autosummary_entries(page.read_text(encoding="utf-8"))
    listed = {}
    for entry in entries:
        match = ENTRY.match(entry)
        assert match, f"{page.name}: unexpected autosummary entry {entry!r}"
        listed[match.group(1)] = entry
    missing = sorted(set(module.__all__) - set(listed))
    assert not missing, (f"public names of {module_name} without an entry in "
                         f"{page.relative_to(ROOT)}: {missing} (python docs/_ext/api_page.py "
                         f"{module_name} prints the page with them)")
    stale = sorted(set(listed) - set(module.__all__))
    assert not stale, f"{page.relative_to(ROOT)} lists names not in {module_name}.__all__: {stale}"
    for name, entry in listed.items():
        if entry.startswith("~"):
            # a re-export: the entry names the same object in its owner's package
            owner, _, short = entry[1:].rpartition(".")
            assert short == name
            assert getattr(importlib.import_module(owner), name) is getattr(module, name), entry
            assert name in importlib.import_module(owner).__all__, entry


def test_every_page_is_in_the_index():
    index = (API / "index.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   ([\w.]+)$", index, re.M))
    pages = {p.stem for p in API.glob("*.rst")} - {"index"}
    assert pages == listed, (sorted(pages - listed), sorted(listed - pages))
    assert {m.removeprefix("proxlearn.") for m in PUBLIC} == pages


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_every_example_opens_with_a_title(path):
    # The gallery (sphinx-gallery) takes each script's title from its docstring,
    # which must open with a reST title: a line, then '=' at least as long.
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
    assert doc, f"{path.name} has no docstring"
    lines = doc.strip("\n").splitlines()
    assert len(lines) >= 2 and set(lines[1]) == {"="} and len(lines[1]) >= len(lines[0]), (
        f"{path.name}: the docstring must open with a title underlined with '='")


def test_entry_parser_reads_blocks():
    # The parser above is what the other tests rely on: check it on a small page.
    text = ("T\n=\n\n.. autosummary::\n   :toctree: generated/\n\n   A\n   b_c\n\n"
            "Text\n\n.. autosummary::\n\n   ~proxlearn.x.D\n")
    assert _autosummary_entries(text) == ["A", "b_c", "~proxlearn.x.D"]
