"""core/demo/: one generator per area, in one home (no alias module), no import cycle; and
the shape rule "no private name imported across modules" for the parts split in issue 14
(core/demo, core/evaluation, core/workspace)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_each_demo_has_one_home():
    """The demos live in core.demo only: no alias module, no re-export from the areas."""
    import core.clembench as clembench
    import core.demo as demo
    import core.demo.clembench as demo_clembench
    import core.demo.evaluation as demo_evaluation
    import core.demo.tooltalk as demo_tooltalk
    import core.tooltalk as tooltalk

    assert demo.make_demo is demo_evaluation.make_demo
    assert sorted(demo_tooltalk.__all__) == sorted(["ground_truth_as_predictions",
                                                    "with_ground_truth_predictions",
                                                    "DEMO_PERTURBATIONS", "demo_conversations"])
    assert sorted(demo_clembench.__all__) == ["DEMO_PROFILES", "demo_episodes", "simulate_episode"]
    for name in demo_tooltalk.__all__:
        assert not hasattr(tooltalk, name)
    for name in demo_clembench.__all__:
        assert not hasattr(clembench, name)
    for gone in ("core/tooltalk/demo.py", "core/clembench/demo.py", "core/scorekeeping.py",
                 "core/agreement.py", "core/fairness.py"):
        assert not (ROOT / gone).exists(), f"{gone} is an alias module"


_ORDERS = [
    "import core.demo.tooltalk",
    "import core.demo.clembench",
    "from core.demo.tooltalk import demo_conversations",
    "from core.demo.clembench import demo_episodes",
    "import core.demo; from core.demo import tooltalk, clembench",
    "import core.tooltalk, core.clembench, core.demo",
]


@pytest.mark.parametrize("statement", _ORDERS)
def test_no_import_cycle_whatever_is_imported_first(statement):
    """Each import path works in a fresh interpreter (a cycle fails in one of the orders)."""
    run = subprocess.run([sys.executable, "-c", statement], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_the_areas_do_not_import_core_demo():
    code = ("import sys, core.tooltalk, core.clembench; "
            "print(sorted(m for m in sys.modules if m.startswith('core.demo')))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def _private_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("core"):
            bad += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                    if a.name.startswith("_") and a.name != "__all__"]
    return bad


def test_no_private_name_imported_across_modules_in_the_split_parts():
    files = [p for d in ("core/demo", "core/evaluation", "core/workspace")
             for p in sorted((ROOT / d).glob("*.py"))]
    assert len(files) > 15
    assert [b for p in files for b in _private_imports(p)] == []
