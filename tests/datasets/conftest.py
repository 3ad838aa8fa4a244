"""Fixtures for the data set tests: isolated cache and data search path."""

from pathlib import Path

import pytest

import proxlearn.datasets._registry as registry

UW_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "uw"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Never touch ~/.cache: one cache folder per test session (worker)."""
    monkeypatch.setenv("PROXLEARN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def isolated_search(tmp_path, monkeypatch):
    """A data search path that sees none of the real data files."""
    monkeypatch.delenv("PROXLEARN_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(registry, "_checkout_data_dirs", lambda: [])
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def uw_dir():
    """The real UW benchmark files, or skip."""
    if not all((UW_DIR / f"{n}.mat").is_file() for n in ("aural_sonar", "protein", "voting")):
        pytest.skip(f"../shared/data/uw not found: expected the UW .mat files in {UW_DIR}")
    return UW_DIR
