"""The shape rules of CONTRIBUTING.md, checked on the code itself (issue 14).

- no module of ``core`` over about 600 lines (a bigger subject becomes a package with named
  parts);
- no import cycle between the modules of ``core`` (imports at module level: what runs when a
  module is imported; an import inside a function is deferred on purpose);
- no private name (leading underscore, dunders aside) imported from another module, anywhere;
- ``core`` is a pure library: no streamlit import in it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(CORE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imported(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module an ``from X import ...`` reads."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _module_level(tree: ast.Module):
    """Import statements run when the module is imported (inside if/try blocks too)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try)):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            stack.extend(node.body + node.orelse + getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                stack.extend(handler.body)


def _graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        deps: set[str] = set()
        for node in _module_level(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                source = _imported(module, path, node)
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    deps.add(full if full in MODULES else source)
            else:
                deps.update(alias.name for alias in node.names)
        edges[module] = {d for d in deps if d in MODULES and d != module}
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    return found


def test_the_checks_see_the_package():
    assert len(MODULES) > 80 and "core.sae" in MODULES and "core.data.roles" in MODULES
    edges = _graph()
    assert "core.errors" in edges["core.data.contract"]  # a known import is seen
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_over_about_600_lines(module):
    n = len(MODULES[module].read_text().splitlines())
    assert n <= MAX_LINES, f"{MODULES[module].relative_to(ROOT)} has {n} lines: split it into named parts"


def test_no_import_cycle_in_core():
    assert _cycles(_graph()) == []


def test_no_private_name_imported_across_modules():
    offenders = []
    for path in sorted([*CORE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                source = _imported(module, path, node)
                for alias in node.names:
                    name = alias.name
                    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                        offenders.append(f"{path.relative_to(ROOT)}: from {source} import {name}")
    assert offenders == []


def test_core_never_imports_streamlit():
    offenders = [str(p.relative_to(ROOT)) for p in CORE.rglob("*.py")
                 for node in ast.walk(ast.parse(p.read_text()))
                 if isinstance(node, (ast.Import, ast.ImportFrom))
                 and any((getattr(node, "module", None) or a.name).split(".")[0] == "streamlit"
                         for a in node.names)]
    assert offenders == []
