"""Sphinx configuration of the proxlearn documentation site.

Build it with ``bash scripts/docs.sh`` (its own environment, warnings as errors,
nitpicky). The Markdown pages of this folder are pages of the site (MyST); the
API reference is generated from the docstrings (autosummary + numpydoc) by the
pages under ``api/``; ``references.bib`` holds the bibliography.

Intersphinx works offline: ``scripts/docs.sh`` tries to fetch each project's
``objects.inv`` into ``_build/intersphinx`` while it sets the environment up
(one short attempt, never during the build). A project whose inventory file
is there is linked; a project whose inventory could not be fetched is left out
of ``intersphinx_mapping``, so the build never reaches for the network and a
missing inventory cannot become a warning. A reference into another project
that no inventory resolves (none on this machine, or a name the inventory
lacks) is rendered as text by ``_ext/proxlearn_refs.py``, so the same sources
build without a warning online and offline; any other unresolved name still
fails the build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import proxlearn  # noqa: E402  (installed by scripts/docs.sh)

project = "proxlearn"
author = "proxlearn developers"
copyright = "2026, proxlearn developers"
release = proxlearn.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinxcontrib.bibtex",
    "matplotlib.sphinxext.plot_directive",  # the figures of the result pages
    "proxlearn_refs",  # _ext/proxlearn_refs.py: references to private names, constants
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    # Appended to reproduction.md by the report's command (it is the report's last
    # section), so it is a part of that page, not a page of its own.
    "reproduction-discussion.md",
    # Written by benchmarks/bench_defaults.py --report without a title; the page
    # defaults.md gives it one and includes it.
    "defaults-table.md",
    # sphinx-gallery writes these next to the rendered examples; the gallery's
    # index pages are the sources.
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
]
nitpicky = True

# -- MyST (the Markdown pages) ---------------------------------------------------
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
# GitHub-style anchors for headings down to level 6, so the pages' links
# `page.md#some-heading` (written for GitHub) resolve on the site too.
myst_heading_anchors = 6
suppress_warnings = [
    # Heading levels only (the page renders the same): docs/defaults-table.md and the
    # tables pasted from it into benchmarks.md are written by
    # `benchmarks/bench_defaults.py --report`, whose sections are H4 so that they sit
    # under a level-3 section of benchmarks.md.
    "myst.header",
]

# -- autodoc / autosummary / numpydoc ---------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False, "inherited-members": False}
# Signatures carry no annotations worth linking (and annotation text such as
# "ArrayLike" is not a documented object): the numpydoc Parameters say the types.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True

# -- bibliography ---------------------------------------------------------------
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# -- sphinx-gallery --------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # Scripts named plot_*.py run at build time (their figures go on the page);
    # every script of examples/ is one (tests/test_examples.py imports them too).
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",  # matched against the file name
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "reference_url": {"proxlearn": None},
    "show_memory": False,
    # sg_execution_times.rst (an orphan page of the built site, not committed): each
    # example's run time on the machine that built it; every example must stay
    # under a minute on 2 cores (issue 38).
    "write_computation_times": True,
}

# -- figures of the result pages (matplotlib's plot directive) -----------------------
# reproduction-figures.rst and scaling.rst draw their figures at build time with the
# functions of _ext/proxlearn_figures.py (on sys.path above); only the figures are
# shown, in PNG.
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"font.size": 9}

# -- intersphinx (offline; see the module docstring) -------------------------------
INVENTORIES = {
    # name: (documentation URL, package names whose references it resolves)
    "python": ("https://docs.python.org/3", ()),
    "numpy": ("https://numpy.org/doc/stable", ("numpy",)),
    "scipy": ("https://docs.scipy.org/doc/scipy", ("scipy",)),
    "sklearn": ("https://scikit-learn.org/stable", ("sklearn",)),
}
# Dependencies whose documentation the site does not link (no inventory is
# fetched for them): references to them are rendered as text.
UNLINKED_PACKAGES = {"highspy", "cvxpy", "clarabel", "numba", "rapidfuzz", "parasail",
                     "dtaidistance", "dask", "distributed", "joblib", "matplotlib", "rich",
                     "threadpoolctl"}
INVENTORY_DIR = Path(os.environ.get("PROXLEARN_DOCS_INVENTORIES", HERE / "_build" / "intersphinx"))
intersphinx_mapping = {}
for _name, (_url, _packages) in INVENTORIES.items():
    _local = INVENTORY_DIR / f"{_name}.inv"
    if _local.is_file() and _local.stat().st_size > 0:
        intersphinx_mapping[_name] = (_url, str(_local))
    else:
        print(f"intersphinx: no local inventory for {_name} ({_local}); "
              f"references into it are plain text", file=sys.stderr)
# Unresolved references into these packages are text (see the module docstring).
proxlearn_text_packages = frozenset(
    UNLINKED_PACKAGES | {"np"} | {p for _, ps in INVENTORIES.values() for p in ps})
intersphinx_cache_limit = -1  # never re-fetch during a build
intersphinx_timeout = 1

# -- HTML ------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"proxlearn {release}"
html_static_path = []
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "navbar_align": "left",
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_copy_source = False


def _skip_member(app, what, name, obj, skip, options):
    # scikit-learn's metadata-routing setters (set_fit_request, ...) are generated
    # on every estimator class; their docstrings are scikit-learn's, not ours.
    if name.startswith("set_") and name.endswith("_request"):
        return True
    # Members inherited from scikit-learn (get_params, set_params, score, ...) are
    # documented by scikit-learn; ours (fit, predict, ... of our base classes) stay.
    if (getattr(obj, "__module__", None) or "").split(".")[0] == "sklearn":
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
