"""The README's Python example runs as written and does what it says."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs():
    text = README.read_text()
    section = text.split("## Ten lines of Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    cv_acc, test_acc = (float(v) for v in out.getvalue().split())
    assert cv_acc > 0.8 and test_acc > 0.8  # 3 classes: chance is 1/3


def test_readme_names_the_ci_command():
    ci = (README.parent / ".ci" / "run").read_text()
    assert "bash scripts/test.sh" in ci
    assert "bash scripts/test.sh" in README.read_text()


def test_readme_says_how_to_get_the_command_on_path():
    """`proxlearn` lives in ./.venv/bin: the section that uses it bare says so (issue #14)."""
    section = README.read_text().split("## Command line", 1)[1].split("\n## ", 1)[0]
    first_block = section.index("```")
    preamble = section[:first_block]
    assert "source .venv/bin/activate" in preamble and ".venv/bin/proxlearn" in preamble


def test_readme_documents_the_pinned_install():
    text = README.read_text()
    assert "constraints.txt" in text and "scripts/refresh-constraints.sh" in text
    assert (README.parent / "scripts" / "refresh-constraints.sh").exists()
