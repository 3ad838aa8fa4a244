"""The user guide's examples run and its numbers are the measured ones.

* Every ``>>>`` session of ``docs/user_guide/*.md`` runs as a doctest (one test
  per page; the page is one namespace, as a reader runs it top to bottom).
* Every ``proxlearn ...`` command shown in a ``console`` block is run again and
  its output compared with the page, whitespace and table borders ignored (so
  the terminal's width does not matter).
* Every "better / tied / worse" count and seconds-per-cell figure that the
  decision guide quotes for an estimator is the one in docs/defaults-table.md
  (so a regenerated table that changes them makes the guide fail here).
"""

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDE = DOCS / "user_guide"
PAGES = sorted(GUIDE.glob("*.md"))
#: Box-drawing characters of rich's tables, ignored with whitespace.
BORDERS = re.compile(r"[\s\u2500-\u257f]+")


def test_the_guide_has_pages():
    names = {p.stem for p in PAGES}
    assert {"index", "your-matrix", "choosing", "test-transform", "scale"} <= names


def _doctest_pages():
    return [p for p in PAGES if ">>> " in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("page", _doctest_pages(), ids=lambda p: p.name)
def test_page_examples_run(page):
    # A fence line ends the expected output of the session's last example (the
    # line stays, empty, so that failures report the page's line numbers).
    text = re.sub(r"^\s*```.*$", "", page.read_text(encoding="utf-8"), flags=re.M)
    if "from distributed import" in text:  # the Dask example (the dev extra has it)
        pytest.importorskip("distributed")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, page.name, str(page), 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with np.printoptions(legacy="1.25"):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) failed in {page.name} (see output)"


def _console_blocks():
    blocks = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for body in re.findall(r"```console\n(.*?)```", text, re.S):
            lines = body.splitlines()
            assert lines[0].startswith("$ proxlearn "), (page.name, lines[0])
            blocks.append(pytest.param(lines[0][2:], "\n".join(lines[1:]),
                                       id=f"{page.stem}:{lines[0][2:]}"))
    return blocks


@pytest.mark.parametrize(("command", "shown"), _console_blocks())
def test_console_output_is_current(command, shown):
    args = command.split()[1:]
    env = dict(os.environ, COLUMNS="100", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "proxlearn.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert BORDERS.sub("", done.stdout) == BORDERS.sub("", shown)


def _per_estimator_rows():
    """``{estimator: (better, tied, worse, seconds)}`` of docs/defaults-table.md."""
    text = (DOCS / "defaults-table.md").read_text(encoding="utf-8")
    section = text.split("#### Per estimator", 1)[1].split("\n#### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 7 and cells[3].isdigit():
            rows[cells[0]] = (int(cells[3]), int(cells[4]), int(cells[5]), cells[7])
    return rows


#: In choosing.md a quoted row of a table reads ``| `Estimator` | 3 / 10 / 1 | 0.21 s |``:
#: a cell holding only the estimator's row name in the defaults table, in backticks,
#: then its better / tied / worse counts, then its median seconds per cell.
QUOTE = re.compile(r"\|\s*`([^`|]+)`\s*\|\s*(\d+) / (\d+) / (\d+)\s*\|\s*([\d.]+) s\s*\|")


def test_decision_guide_quotes_the_defaults_table():
    rows = _per_estimator_rows()
    text = (GUIDE / "choosing.md").read_text(encoding="utf-8")
    quotes = QUOTE.findall(text)
    assert len(quotes) >= 20, "the decision guide should quote the defaults table"
    for name, better, tied, worse, seconds in quotes:
        assert name in rows, f"{name} is not a row of docs/defaults-table.md"
        assert (int(better), int(tied), int(worse), seconds) == rows[name], name


# --- the bibliography -----------------------------------------------------------------

CITE = re.compile(r"\{cite:[pt]\}`([^`]+)`|:cite:[pt]:`([^`]+)`")


def _bib_keys():
    return set(re.findall(r"^@\w+\{([^,\s]+),", (DOCS / "references.bib").read_text(encoding="utf-8"),
                          re.M))


def _cited(paths):
    keys = set()
    for path in paths:
        for md, rst in CITE.findall(path.read_text(encoding="utf-8")):
            keys.update(k.strip() for k in (md or rst).split(","))
    return keys


def test_every_citation_is_in_the_bibliography():
    pages = [*PAGES, *(DOCS / "api").glob("*.rst"), DOCS / "index.rst"]
    missing = _cited(pages) - _bib_keys()
    assert not missing, f"cited but not in docs/references.bib: {sorted(missing)}"


def test_every_bibliography_entry_is_cited():
    # The bibliography page lists every entry (:all:); each should be the source of
    # something the guide or an API page names.
    pages = [*PAGES, *(DOCS / "api").glob("*.rst"), DOCS / "index.rst"]
    uncited = _bib_keys() - _cited(pages)
    assert not uncited, f"in docs/references.bib but cited nowhere: {sorted(uncited)}"


#: API pages of the packages whose estimators come from papers.
METHOD_PAGES = ("svm", "neighbors", "kernel_ridge", "krein", "discriminant", "kernel_learning",
                "mkl", "cluster", "manifold", "ranking", "kernel_approximation", "transforms")


@pytest.mark.parametrize("name", METHOD_PAGES)
def test_api_page_cites_its_sources(name):
    text = (DOCS / "api" / f"{name}.rst").read_text(encoding="utf-8")
    assert "\nReferences\n----------\n" in text, f"docs/api/{name}.rst has no References section"
    assert ":cite:" in text.split("\nReferences\n----------\n", 1)[1]


def test_api_page_script_keeps_the_references(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("api_page", DOCS / "_ext" / "api_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = tmp_path / "svm.rst"
    page.write_text("old tables\n\nReferences\n----------\n\n* :cite:p:`graepel1999lp`\n",
                    encoding="utf-8")
    assert module.kept_references(page) == "\nReferences\n----------\n\n* :cite:p:`graepel1999lp`\n"
    assert module.kept_references(tmp_path / "absent.rst") == ""


# --- the gallery example the test-transform page shows ------------------------------

def test_consistent_test_transform_example(import_script):
    """examples/plot_consistent_test_transform.py runs and shows what the page says:
    the consistent map gives the training kernel back, the raw rows do not (except
    shift's, equal off the diagonal), and square with raw rows loses its accuracy."""
    import matplotlib.pyplot as plt

    example = import_script("examples/plot_consistent_test_transform.py")
    plt.close("all")
    for method in ("clip", "flip", "shift", "square"):
        assert example.gaps[method, "consistent"] < 1e-12, method
    for method in ("clip", "flip", "square"):
        assert example.gaps[method, "raw"] > 0.1, method
    assert example.gaps["shift", "raw"] == 0.0
    consistent, raw = example.scores["square", "consistent"][0], example.scores["square", "raw"][0]
    assert consistent > 90 and raw < consistent - 30
