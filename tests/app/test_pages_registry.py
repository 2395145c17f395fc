"""The pages are declared in one list (pages/_registry.py): the navigation is that list, and
every "Next" link and page path written in pages/ names a page of it, so a renamed page fails
here instead of turning its links into plain text (issue 22)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pages._registry import PAGES, page_files, page_path, page_spec

ROOT = Path(__file__).resolve().parents[2]
PAGE_DIR = ROOT / "pages"
#: A string naming a page file: ``2_Trade-off.py`` or ``pages/2_Trade-off.py``.
PAGE_NAME = re.compile(r"^(?:pages/)?(\d\w*_[\w-]+\.py)$")


def _sources() -> list[Path]:
    return sorted(PAGE_DIR.glob("*.py")) + [ROOT / "app.py"]


def _next_step_targets(path: Path) -> list[tuple[int, str | None]]:
    """(line, first argument) of every ``next_step(...)`` call of a file; a first argument that
    is not a string literal or None is returned as its source text."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "next_step":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and (arg.value is None or isinstance(arg.value, str)):
                out.append((node.lineno, arg.value))
            else:
                out.append((node.lineno, "<not a literal: " + (ast.unparse(arg) if arg else "") + ">"))
    return out


def _page_literals(path: Path) -> list[tuple[int, str]]:
    """(line, file) of every string literal of a file that names a page file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            m = PAGE_NAME.match(node.value)
            if m:
                out.append((node.lineno, m.group(1)))
    return out


def test_the_list_is_the_page_files():
    on_disk = sorted(p.name for p in PAGE_DIR.glob("[0-9]*_*.py"))
    assert sorted(page_files()) == on_disk
    assert len(set(page_files())) == len(PAGES) and PAGES[0].file == "0_Home.py"
    assert len({p.url_path for p in PAGES}) == len(PAGES)
    assert page_spec("2_Trade-off.py").url_path == "trade-off"


def test_every_next_step_names_a_declared_page():
    declared = set(page_files())
    calls = [(path.name, line, target) for path in _sources()
             for line, target in _next_step_targets(path)]
    assert len(calls) >= 10  # every page ends with one
    bad = [c for c in calls if c[2] is not None and c[2] not in declared]
    assert bad == [], f"next_step(...) to a page that is not declared: {bad}"


def test_every_page_path_written_in_pages_is_declared():
    declared = set(page_files())
    found = [(path.name, line, name) for path in _sources() for line, name in _page_literals(path)]
    assert any(name == "2_Trade-off.py" for _, _, name in found)
    assert [f for f in found if f[2] not in declared] == []


def test_a_renamed_page_fails(tmp_path):
    """A "Next" link to a page renamed away is caught: by the check above on the source, and
    by next_step itself when the page runs."""
    renamed = tmp_path / "9_Somewhere.py"
    renamed.write_text('next_step("2_Tradeoff.py", "Trade-off")\n', encoding="utf-8")
    assert _next_step_targets(renamed) == [(1, "2_Tradeoff.py")]
    assert "2_Tradeoff.py" not in page_files()
    with pytest.raises(ValueError, match="no page '2_Tradeoff.py' is declared"):
        page_path("2_Tradeoff.py")
    from pages._common import next_step

    with pytest.raises(ValueError, match="declared"):
        next_step("2_Tradeoff.py", "Trade-off")


def test_the_app_navigation_is_the_list():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    for spec in PAGES[1:3]:
        at.switch_page(page_path(spec.file)).run()
        assert not at.exception
