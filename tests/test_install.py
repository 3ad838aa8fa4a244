"""Reproducible installs: constraints.txt pins every dependency and setup.sh uses it."""

import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        assert m, f"constraints.txt line {line!r} is not an exact pin NAME==VERSION"
        pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in project.get("optional-dependencies", {}).values():
        reqs += [Requirement(r) for r in extra]
    return reqs


def test_every_declared_dependency_is_pinned_within_its_bounds():
    pins = _pins()
    for req in _declared():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} (pyproject.toml) has no pin in constraints.txt"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {req.name}=={pins[name]}, outside pyproject's {req.specifier}"
        )


def test_setup_script_installs_with_the_constraints():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    installs = [ln for ln in setup.splitlines() if "pip install" in ln]
    assert installs and all("-c constraints.txt" in ln for ln in installs)
    assert "bash scripts/setup.sh" in (ROOT / "scripts" / "test.sh").read_text()


@pytest.mark.skipif(
    Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
    reason="not running in the ./.venv that scripts/setup.sh made: installed versions are the caller's",
)
def test_the_venv_has_exactly_the_pinned_versions():
    """What the README's test command ran with is what constraints.txt says."""
    wrong = []
    for name, pinned in _pins().items():
        try:
            got = version(name)
        except PackageNotFoundError:
            continue  # pinned for another extra or platform
        if got != pinned:
            wrong.append(f"{name} {got} (pinned {pinned})")
    assert not wrong, "installed versions differ from constraints.txt: " + ", ".join(wrong)


def test_every_subpackage_is_reachable_from_the_top_level_import():
    """``import proxlearn; proxlearn.<sub>`` works for every subpackage on disk, and the
    package docstring describes each (issue #39: manifold and pairwise were missing)."""
    import importlib
    import pkgutil

    import proxlearn

    on_disk = {m.name for m in pkgutil.iter_modules(proxlearn.__path__)
               if not m.name.startswith("_") and m.name not in ("base", "cli")}
    assert on_disk <= set(proxlearn.__all__)
    for name in sorted(on_disk):
        assert getattr(proxlearn, name) is importlib.import_module(f"proxlearn.{name}")
        assert f"\n{name}\n" in proxlearn.__doc__, f"the package docstring omits {name}"
