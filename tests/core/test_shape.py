"""The shape rules of CONTRIBUTING.md, checked on the code itself (issue 14).

- no module of ``core`` over about 600 lines (a bigger subject becomes a package with named
  parts);
- no import cycle between the modules of ``core``, imports written inside functions included
  (deferring an import hides a cycle from the interpreter, not from the design: the layers
  must still point one way);
- no module-level ``__getattr__`` outside a package ``__init__`` (a module is not a re-export);
- no private name (leading underscore, dunders aside) imported from another module, anywhere;
- ``core`` is a pure library: no streamlit import in it;
- every module of ``core`` over 150 lines has a test file named after it
  (``tests/<tests dir>/test_<area>_<module>.py``); the ones still without are listed in
  :data:`WITHOUT_TEST_FILE` and may only leave that list; and at least
  :data:`MIN_SHARE_WITH_TEST_FILE` of all its modules (``__init__`` aside) have one (issue 32).
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


def _everywhere(tree: ast.Module):
    """Every import statement of a module: at module level, in functions, in classes."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if node in _type_checking_only(tree):
                continue
            yield node


def _type_checking_only(tree: ast.Module) -> set[ast.AST]:
    out: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(n for b in node.body for n in ast.walk(b))
    return out


def _graph(statements=_module_level) -> dict[str, set[str]]:
    """Module -> the modules of ``core`` it imports (``statements``: which import statements)."""
    edges: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        deps: set[str] = set()
        for node in statements(ast.parse(path.read_text())):
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
    assert len(MODULES) > 80 and "core.assignment" in MODULES and "core.data.roles" in MODULES
    edges = _graph()
    assert "core.errors" in edges["core.data.contract"]  # a known import is seen
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_over_about_600_lines(module):
    n = len(MODULES[module].read_text().splitlines())
    assert n <= MAX_LINES, f"{MODULES[module].relative_to(ROOT)} has {n} lines: split it into named parts"


def test_no_import_cycle_in_core():
    assert _cycles(_graph()) == []


def test_no_import_cycle_in_core_function_level_imports_included():
    cycles = _cycles(_graph(_everywhere))
    assert cycles == [], "import cycles (imports inside functions counted):\n" + "\n".join(
        " -> ".join(c) for c in cycles)


def test_the_graph_sees_imports_inside_functions():
    edges = _graph(_everywhere)
    # core.cli.common imports core.assignment inside constraints_from_args only
    assert "core.assignment" in edges["core.cli.common"]
    assert "core.assignment" not in _graph()["core.cli.common"]


def _module_getattr(path: Path) -> bool:
    return any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
               for node in ast.parse(path.read_text()).body)


def test_no_module_level_getattr_outside_a_package_init():
    """A module-level ``__getattr__`` re-exports names lazily; only a package ``__init__`` may,
    and only where a plain import would be a cycle or too slow (``core.mce``: torch)."""
    files = [*CORE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
    offenders = [str(p.relative_to(ROOT)) for p in sorted(files)
                 if p.name != "__init__.py" and _module_getattr(p)]
    assert offenders == []


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


# --- test files named after the modules they test ------------------------------------------

MIN_LINES_FOR_A_TEST_FILE = 150

#: Modules of ``core`` over 150 lines without a test file named after them (yet). A module
#: leaves this list when ``tests/*/test_<area>_<module>.py`` is written; none may join it.
WITHOUT_TEST_FILE: set[str] = {
    "core.mce.pipeline",
    "core.workspace.store",
}


def _test_names(module: str) -> list[str]:
    """The file names (without ``.py``) a test of ``module`` may have: ``test_<area>_<module>``,
    from the module's dotted name without ``core``; a CLI command ``core.cli.cmd_x`` is tested
    by ``test_cli_x``; a module directly under ``core`` by ``test_<module>``."""
    parts = module.split(".")[1:]
    if parts[:1] == ["cli"] and parts[-1].startswith("cmd_"):
        parts = ["cli", parts[-1][len("cmd_"):]]
    return ["test_" + "_".join(parts)]


def _tested_by_name(module: str, test_files: set[str]) -> bool:
    """A test file is named after the module when its name is one of :func:`_test_names`, or
    starts with one of them followed by ``_`` (``test_data_roles_properties``)."""
    return any(f == n or f.startswith(n + "_") for n in _test_names(module) for f in test_files)


def _modules_without_test_file() -> list[str]:
    test_files = {p.stem for p in (ROOT / "tests").rglob("test_*.py")}
    return sorted(m for m, p in MODULES.items()
                  if p.name != "__init__.py"
                  and len(p.read_text().splitlines()) > MIN_LINES_FOR_A_TEST_FILE
                  and not _tested_by_name(m, test_files))


def test_modules_over_150_lines_have_a_test_file_named_after_them():
    missing = set(_modules_without_test_file())
    joined = sorted(missing - WITHOUT_TEST_FILE)
    assert joined == [], ("modules over 150 lines without tests/*/test_<area>_<module>.py: "
                          + ", ".join(joined))
    left = sorted(WITHOUT_TEST_FILE - missing)
    assert left == [], "these now have a test file: remove them from WITHOUT_TEST_FILE: " + \
        ", ".join(left)


#: The least share of core's modules (``__init__`` aside, any size) with a test file named after
#: them (issue 32).
MIN_SHARE_WITH_TEST_FILE = 0.8


def _share_with_test_file(test_files: set[str]) -> tuple[float, list[str]]:
    """The share of core's modules (``__init__`` aside) that :func:`_tested_by_name` finds a
    test file for among ``test_files``, and the modules without one."""
    modules = [m for m, p in MODULES.items() if p.name != "__init__.py"]
    without = sorted(m for m in modules if not _tested_by_name(m, test_files))
    return (len(modules) - len(without)) / len(modules), without


def test_most_core_modules_have_a_test_file_named_after_them():
    test_files = {p.stem for p in (ROOT / "tests").rglob("test_*.py")}
    share, without = _share_with_test_file(test_files)
    assert share >= MIN_SHARE_WITH_TEST_FILE, (
        f"{share:.1%} of core's modules have a test file named after them, fewer than "
        f"{MIN_SHARE_WITH_TEST_FILE:.0%}; without one: " + ", ".join(without))


def test_the_share_counts_modules_not_packages_and_reads_names_as_documented():
    # no test file at all: none of core's modules is covered
    share, without = _share_with_test_file(set())
    assert share == 0.0 and "core.errors" in without
    assert not any(MODULES[m].name == "__init__.py" for m in without)
    # one file per module, written by the naming rule: all covered
    every = {_test_names(m)[0] for m, p in MODULES.items() if p.name != "__init__.py"}
    assert _share_with_test_file(every) == (1.0, [])
    # one module's file removed: that module, and only it, is without
    share, without = _share_with_test_file(every - {"test_errors"})
    assert without == ["core.errors"] and share < 1.0


def test_the_test_file_names_are_read_as_documented():
    assert _test_names("core.assignment.model") == ["test_assignment_model"]
    assert _test_names("core.cli.cmd_assign") == ["test_cli_assign"]
    assert _test_names("core.atomic") == ["test_atomic"]
    assert _tested_by_name("core.data.roles", {"test_data_roles_properties"})
    assert not _tested_by_name("core.data.roles", {"test_data_rolesx"})


# --- one public face per package of core.evaluation (issue 32) -----------------------------

EVALUATION_PACKAGES = ("sampling", "labelstudio", "labels", "annotators", "certify", "estimate")


def _defined(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                out.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return out


def _all_of(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return []


def test_evaluation_is_one_package_per_step_with_no_flat_module():
    flat = sorted(p.name for p in (CORE / "evaluation").glob("*.py") if p.name != "__init__.py")
    assert flat == []
    assert sorted(p.parent.name for p in (CORE / "evaluation").glob("*/__init__.py")) == \
        sorted(EVALUATION_PACKAGES)


def test_no_module_re_exports_a_name_it_does_not_define():
    """A module's ``__all__`` lists only what it defines: a name has one module, and outside its
    package one address, the package's face (only a package ``__init__`` re-exports)."""
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        extra = sorted(set(_all_of(tree)) - _defined(tree))
        if extra:
            offenders.append(f"{path.relative_to(ROOT)}: {', '.join(extra)}")
    assert offenders == []


def test_outside_a_package_evaluation_is_imported_through_the_package_face():
    """Code outside ``core/evaluation/<package>`` (the CLI, the workspace, the pages) imports
    ``from core.evaluation.<package> import name``, never from one of its modules; the modules
    of ``core.evaluation`` import one another by module (a face importing a face would be a
    cycle waiting to happen)."""
    offenders = []
    files = [p for p in [*CORE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
             if (CORE / "evaluation") not in p.parents]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").count(".") >= 3 \
                    and node.module.startswith("core.evaluation."):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module}")
            if isinstance(node, ast.Import):
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno} import {a.name}"
                              for a in node.names
                              if a.name.startswith("core.evaluation.") and a.name.count(".") >= 3]
    assert offenders == []


def test_every_face_name_is_defined_in_the_module_it_is_imported_from():
    for package in EVALUATION_PACKAGES:
        init = CORE / "evaluation" / package / "__init__.py"
        tree = ast.parse(init.read_text())
        faces = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
        assert faces, package
        exported: set[str] = set()
        for node in faces:
            assert node.module.startswith(f"core.evaluation.{package}."), node.module
            module = ast.parse((ROOT / (node.module.replace(".", "/") + ".py")).read_text())
            names = {a.name for a in node.names}
            assert names <= _defined(module), (node.module, sorted(names - _defined(module)))
            exported |= names
        assert set(_all_of(tree)) == exported, package


def test_the_packages_of_evaluation_point_one_way():
    """From the last step down (CONTRIBUTING.md): no package of ``core.evaluation`` imports a
    package that imports it back, through any of their modules (imports inside functions
    counted)."""
    edges: dict[str, set[str]] = {}
    for module, deps in _graph(_everywhere).items():
        if module.startswith("core.evaluation.") and module.count(".") >= 2:
            package = module.split(".")[2]
            edges.setdefault(package, set()).update(
                d.split(".")[2] for d in deps
                if d.startswith("core.evaluation.") and d.count(".") >= 2
                and d.split(".")[2] != package)
    assert set(edges) == set(EVALUATION_PACKAGES)
    assert _cycles(edges) == []
    assert "estimate" in edges["certify"] and "sampling" in edges["estimate"]  # seen at all


def test_no_two_modules_of_a_package_define_the_same_public_name():
    """A face re-exports every public name of its package once: two modules defining the same
    name would leave the face with whichever it imported last (a stream's floor once shadowed
    the active design's)."""
    clashes = []
    for package in EVALUATION_PACKAGES:
        where: dict[str, str] = {}
        for path in sorted((CORE / "evaluation" / package).glob("*.py")):
            if path.name == "__init__.py":
                continue
            for name in _defined(ast.parse(path.read_text())):
                if name.startswith("_"):
                    continue
                if name in where:
                    clashes.append(f"{package}: {name} in {where[name]} and {path.stem}")
                where[name] = path.stem
    assert clashes == []


MAX_PAGE_LINES = 400


def test_pages_are_thin():
    """A page (``pages/<n>_<Name>.py``, ``app.py``) is at most 400 lines: what it shows in parts
    goes to ``pages/_<page>_<part>.py`` and what it computes to ``core``."""
    pages = [*sorted((ROOT / "pages").glob("[0-9]*.py")), ROOT / "app.py"]
    assert len(pages) >= 9
    over = {str(p.relative_to(ROOT)): n for p in pages
            if (n := len(p.read_text().splitlines())) > MAX_PAGE_LINES}
    assert over == {}
