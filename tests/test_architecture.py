"""The import graph of proxlearn: no cycle among modules or among packages.

Lower layers never import higher ones (docs/architecture.md). Every import is
read from the source, function-local ones included (a cycle hidden in a function
is still a cycle): the graph of modules and the graph of packages (the first
name under ``proxlearn``: ``mkl``, ``_validation``, ...) must both be acyclic.
"""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "proxlearn"


def _module_name(path, src):
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(module, is_package, node):
    if node.level == 0:
        return node.module
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _graph(src=SRC):
    modules = {}
    for path in sorted(src.rglob("*.py")):
        modules[_module_name(path, src)] = path
    edges = {m: set() for m in modules}
    for m, path in modules.items():
        tree = ast.parse(path.read_text())
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(m, is_package, node)
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for t in targets:
                while t and t not in modules:  # "pkg.name": a module, else a name in pkg
                    t = t.rpartition(".")[0]
                if t and t != m and t.startswith(src.name):
                    edges[m].add(t)
    return edges


def _cycle(edges):
    """One cycle of the directed graph as a list of nodes, or None."""
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if state.get(v) is None:
                found = visit(v)
                if found:
                    return found
        state[u] = 2
        stack.pop()
        return None

    for u in sorted(edges):
        if state.get(u) is None:
            found = visit(u)
            if found:
                return found
    return None


def _package(module):
    parts = module.split(".")
    return ".".join(parts[:2])


@pytest.fixture(scope="module")
def edges():
    # the top-level package imports its subpackages for the user; nothing imports it back
    return {m: {t for t in ts if t != "proxlearn"} for m, ts in _graph().items()
            if m not in ("proxlearn", "proxlearn.__main__")}


def test_the_module_import_graph_has_no_cycle(edges):
    cycle = _cycle({m: {t for t in ts if not _is_parent(t, m)} for m, ts in edges.items()})
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def _is_parent(t, m):
    """A package's ``__init__`` is imported by the import of any of its modules."""
    return m.startswith(t + ".")


def test_the_package_import_graph_has_no_cycle(edges):
    packages = {}
    for m, ts in edges.items():
        packages.setdefault(_package(m), set()).update(
            _package(t) for t in ts if _package(t) != _package(m))
    cycle = _cycle(packages)
    assert cycle is None, "packages import each other: " + " -> ".join(cycle)


def test_the_graph_reader_sees_function_local_imports(tmp_path):
    """The reader itself: a cycle through a function-local import is found."""
    pkg = tmp_path / "toypkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "_low.py").write_text("def f():\n    from .sub._high import g\n    return g\n")
    (pkg / "sub" / "_high.py").write_text("from .._low import f\n\ndef g():\n    return f\n")
    found = _graph(pkg)
    assert found["toypkg._low"] == {"toypkg.sub._high"}
    assert _cycle(found) is not None
    # and in the real code: study._section's loader imports datasets inside a function
    assert "proxlearn.datasets" in _graph()["proxlearn.study._section"]


DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _layers():
    """``{top-level name: layer}`` read from the layer table of docs/architecture.md
    (rows ``| N. title | `a`, `b`, ... | what |``), so that the doc and this check
    cannot drift apart."""
    import re

    layers = {}
    for line in DOC.read_text().splitlines():
        row = re.match(r"\|\s*(\d+)\.[^|]*\|([^|]*)\|", line)
        if row:
            for name in re.findall(r"`([A-Za-z_][\w.<>]*)`", row.group(2)):
                layers.setdefault(name.split(".")[0], int(row.group(1)))
    return layers


def test_every_top_level_module_has_a_layer_in_the_doc():
    names = {p.stem if p.is_file() else p.name for p in SRC.iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    missing = sorted(names - set(_layers()))
    assert not missing, f"add these to the layer table of docs/architecture.md: {missing}"


def test_no_import_goes_up_or_sideways_into_a_private_module(edges):
    """Lower layers never import higher ones; within a layer a package uses another
    package's public names only (``transforms``, not ``transforms._spectrum``):
    a piece two siblings share moves down a layer (docs/architecture.md)."""
    layer = _layers()
    bad = []
    for m, ts in edges.items():
        pm = m.split(".")[1]
        for t in ts:
            parts = t.split(".")
            q = parts[1]
            if q == pm:
                continue
            if layer[q] > layer[pm]:
                bad.append(f"{m} -> {t} (layer {layer[pm]} imports layer {layer[q]})")
            elif (layer[q] == layer[pm] and not q.startswith("_") and len(parts) > 2
                  and parts[2].startswith("_")):
                bad.append(f"{m} -> {t} (a private module of a sibling package)")
    assert not bad, "\n".join(sorted(bad))
