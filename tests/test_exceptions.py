"""The public ``proxlearn.exceptions`` module and the package's lazy subpackages."""

import importlib
import inspect

import pytest

import proxlearn
import proxlearn.exceptions as exc


def test_every_public_name_is_an_exception_or_warning():
    for name in exc.__all__:
        obj = getattr(exc, name)
        assert inspect.isclass(obj) and issubclass(obj, Exception), name


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("proxlearn._validation", "SimilarityMatrixError"),
        ("proxlearn._validation", "TestMatrixError"),
        ("proxlearn._validation", "LabelError"),
        ("proxlearn._validation", "InvalidParameterError"),
        ("proxlearn._validation", "SolverError"),
        ("proxlearn._validation", "AsymmetricSimilarityWarning"),
        ("proxlearn._validation", "DissimilarityWarning"),
        ("proxlearn.solvers", "SimplexQPConvergenceWarning"),
        ("proxlearn.kernel_learning._simsvm_socp", "SimSVMSolverError"),
        ("proxlearn.kernel_learning._svmca", "ComponentsClampedWarning"),
        ("proxlearn.kernel_learning._full_kernel_svm", "SolverFailedError"),
        ("proxlearn.datasets", "DatasetNotFoundError"),
    ],
)
def test_one_class_per_name(module, name):
    """Old import paths give the very class that proxlearn.exceptions exports."""
    assert getattr(importlib.import_module(module), name) is getattr(exc, name)


def test_input_errors_are_value_errors_and_solver_errors_runtime_errors():
    for name in ("SimilarityMatrixError", "TestMatrixError", "LabelError", "InvalidParameterError"):
        assert issubclass(getattr(exc, name), ValueError)
    for name in ("SolverFailedError", "SimSVMSolverError"):
        assert issubclass(getattr(exc, name), exc.SolverError)
    assert issubclass(exc.SolverError, RuntimeError)
    assert issubclass(exc.DatasetNotFoundError, FileNotFoundError)


def test_raised_error_is_catchable_from_public_module():
    from proxlearn.svm import SimilaritySVC

    with pytest.raises(exc.SimilarityMatrixError, match="square"):
        SimilaritySVC().fit([[1.0, 0.0, 0.5]], [0])


def test_package_lists_and_lazily_imports_subpackages():
    for name in ("datasets", "transforms", "svm", "neighbors", "discriminant",
                 "kernel_learning", "study", "metrics", "exceptions"):
        assert name in proxlearn.__all__
        assert inspect.ismodule(getattr(proxlearn, name))
    assert "svm" in dir(proxlearn)
    with pytest.raises(AttributeError, match="no attribute 'bogus'"):
        proxlearn.bogus  # noqa: B018


def test_readme_import_block_runs():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("from proxlearn.exceptions import", 1)[1].split("```", 1)[0]
    exec("from proxlearn.exceptions import" + block, {})
