"""The Examples sections of the docstrings run as doctests, so they stay true.

Every module under ``src/proxlearn`` whose docstrings hold an ``Examples``
section is imported and its doctests (``doctest.DocTestFinder``: the module,
its classes, functions and methods defined there) are run, one test per
module. Examples use small generated data (seeded numpy, scikit-learn's
bundled sets, proxlearn's generators and embedded sets); an example that needs
data outside the repository is marked ``# doctest: +SKIP`` with the reason
beside it.
"""

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import proxlearn

SRC = Path(proxlearn.__file__).resolve().parent
EXAMPLES = re.compile(r"^\s*Examples\n\s*-{3,}\s*$", re.M)


def _modules_with_examples():
    names = ["proxlearn"] if EXAMPLES.search((SRC / "__init__.py").read_text(encoding="utf-8")) else []
    for info in pkgutil.walk_packages([str(SRC)], prefix="proxlearn."):
        path = SRC.joinpath(*info.name.split(".")[1:])
        path = path / "__init__.py" if info.ispkg else path.with_suffix(".py")
        if path.is_file() and EXAMPLES.search(path.read_text(encoding="utf-8")):
            names.append(info.name)
    return sorted(names)


MODULES = _modules_with_examples()


def test_some_modules_have_examples():
    # The finder above must see the sections it is meant to run.
    assert len(MODULES) >= 10, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder(exclude_empty=True).find(module, name)
             if t.examples]
    assert tests, f"{name} has an Examples section but no doctest was found"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with np.printoptions(legacy="1.25"):  # 0.5, not np.float64(0.5), in outputs
        for test in tests:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name} (see output)"


#: Modules whose public classes and functions carry reference docstrings with
#: Examples and See Also (issue 36, part 6; extend as packages are done).
REFERENCE_MODULES = (
    "proxlearn.transforms.",
    "proxlearn.kernel_approximation.",
    "proxlearn.cluster.",
    "proxlearn.datasets.",
    "proxlearn.pairwise.",
    "proxlearn.metrics",
    "proxlearn.discriminant._sda",
    "proxlearn.solvers.",
    "proxlearn._graph",
    "proxlearn.exceptions",
    "proxlearn.manifold.",
    "proxlearn.ranking.",
    "proxlearn.svm.",
    "proxlearn.neighbors.",
    "proxlearn.discriminant._ikfd",
    "proxlearn._normalize",
    "proxlearn._multi_input",
    "proxlearn._svm._dual",
    "proxlearn._svm._libsvm",
    "proxlearn._svm._platt",
    "proxlearn._svm._multiclass",
    "proxlearn._svm._transformed",
    "proxlearn.study.",
    "proxlearn.base",
    "proxlearn._linalg",
    "proxlearn._scale",
    "proxlearn._files",
    "proxlearn._progress",
    "proxlearn._cv",
    "proxlearn.cli",
    "proxlearn.plotting",
    "proxlearn.kernel_learning.",
    "proxlearn.mkl.",
    "proxlearn.kernel_ridge.",
    "proxlearn.krein.",
)
#: Public names without an Examples section, and why.
NO_EXAMPLE = {
    "spectrum_modify": "deprecated: See Also names its replacement",
    "knn_graph": "deprecated: See Also names its replacement",
    "check_kernel_stack": "deprecated: See Also names its replacement",
}
PACKAGES = ("transforms", "kernel_approximation", "cluster", "datasets", "pairwise",
            "metrics", "discriminant", "solvers", "_graph",
            "exceptions", "manifold", "ranking", "svm",
            "neighbors", "_normalize", "_multi_input", "_svm._dual",
            "_svm._libsvm", "_svm._platt", "_svm._multiclass", "_svm._transformed",
            "study", "base", "_linalg", "_scale", "_files", "_progress", "_cv", "cli",
            "plotting", "kernel_learning", "mkl",
            "kernel_ridge", "krein", "krein._sphere", "krein._base")
SEE_ALSO = re.compile(r"^\s*See Also\n\s*-{3,}\s*$", re.M)


def _public_objects():
    for pkg in PACKAGES:
        module = importlib.import_module(f"proxlearn.{pkg}")
        for name in module.__all__:
            obj = getattr(module, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) \
                    and obj.__module__.startswith(REFERENCE_MODULES):
                qualname = f"{obj.__module__}.{name}"
                yield pytest.param(qualname, name, obj, id=qualname)


@pytest.mark.parametrize("qualname,name,obj", list(_public_objects()))
def test_public_docstrings_are_reference_text(qualname, name, obj):
    doc = inspect.getdoc(obj) or ""
    assert SEE_ALSO.search(doc), f"{qualname}: no See Also section"
    if name not in NO_EXAMPLE:
        assert EXAMPLES.search(doc), f"{qualname}: no Examples section"

