"""The app entry point: navigation over every page, and the last-resort error guard."""

from __future__ import annotations

import pytest

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def test_app_runs_the_default_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception and not at.error
    assert at.title[0].value == "HMCEval Studio"  # the Home page (issue 13)
    assert at.session_state["data_source"] == "demo"
    # the Data page stays one click away
    at.switch_page("pages/1_Data.py").run()
    assert not at.exception and at.title[0].value == "Data"


def test_unexpected_page_error_becomes_a_message(tmp_path, monkeypatch):
    """A page that raises shows an st.error naming the page, not a traceback."""
    import shutil

    app_dir = tmp_path / "app"
    shutil.copytree(ROOT / "pages", app_dir / "pages")
    shutil.copy(ROOT / "app.py", app_dir / "app.py")
    for page in (app_dir / "pages").glob("[0-9]*_*.py"):
        page.unlink()
    (app_dir / "pages" / "1_Broken.py").write_text("raise ValueError('boom')\n")
    monkeypatch.syspath_prepend(str(app_dir))
    import pages._registry as registry  # the app declares its pages there

    monkeypatch.setattr(registry, "PAGES", (registry.PageSpec("1_Broken.py", "Broken", ""),))
    at = AppTest.from_file(str(app_dir / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert at.error and "The Broken page failed" in at.error[0].value and "boom" in at.error[0].value


# issue 13: every page ends with the next step of the workflow (Confidence and Effort: their page
# tests; the Evaluate page's steps before and after a result: tests/app/test_page_evaluate.py)
NEXT_STEPS = {
    "0_Home.py": "Data", "1_Data.py": "Trade-off", "2_Trade-off.py": "Evaluate",
    "2a_Evaluate.py": "plan a round (1 · Plan the round, above)",
    "5_Fairness.py": "Turns", "6_Turns.py": "Evaluate", "7_Scorekeeping.py": "ToolTalk",
    "8_ToolTalk.py": "Home",
}


@pytest.mark.parametrize("page, step", sorted(NEXT_STEPS.items()))
def test_every_page_ends_with_the_next_step(run_page, page, step, tmp_path, monkeypatch):
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))  # Evaluate: no round yet
    at = run_page(page, timeout=300)
    assert not at.exception
    # run alone (no navigation) the step is shown as text instead of a page link
    nexts = [m.value for m in at.markdown if m.value.startswith("**Next: ")]
    assert nexts == [f"**Next: {step}**"], nexts


def test_number_boxes_state_their_allowed_range(run_page):
    """A typed value outside a number box's range is not taken (the browser keeps the last
    value), so every bounded box says its range in its help."""
    from pages._common import range_help

    assert range_help(None, 0, 5673) == "Allowed: 0 to 5,673."
    assert range_help("Seed.", 0, 2**31 - 1) == "Seed. Allowed: 0 to 2,147,483,647."
    assert range_help("λ.", 0.0, None) == "λ. Allowed: 0 or more."
    assert range_help(None, -1e15, 1e15) == "Allowed: any number."  # not -1e+15 (issue 33)
    assert range_help(None, 0.0, 1e15) == "Allowed: 0 or more."
    assert range_help(None, 1234.5678, 5e14) == "Allowed: 1,235 to 500,000,000,000,000."
    assert range_help(None, 0.001, 0.5) == "Allowed: 0.001 to 0.5."
    assert range_help("x", None, None) == "x"
    for page in ("2_Trade-off.py", "2a_Evaluate.py", "4_Effort.py", "5_Fairness.py"):
        at = run_page(page, timeout=300)
        boxes = at.number_input
        assert boxes, page
        for box in boxes:
            bounded = box.proto.has_min or box.proto.has_max
            assert not bounded or "Allowed: " in (box.help or ""), (page, box.label, box.help)


FIGURE_PAGES = ["1_Data.py", "2_Trade-off.py", "2a_Evaluate.py", "3_Confidence.py",
                "4_Effort.py", "5_Fairness.py", "6_Turns.py", "7_Scorekeeping.py", "8_ToolTalk.py"]


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_every_figure_reads_on_its_own(run_page, page, tmp_path, monkeypatch):
    """Issue 13: every figure on the demo has a title that fits, titled axes and every mark in
    the legend (``figure_problems``); the Evaluate page once a round has a result."""
    from tests.app.conftest import figure_problems

    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    at = run_page(page, timeout=300)
    if page == "2a_Evaluate.py":
        for label in ("Plan the round", "Fill labels from gold"):
            [b for b in at.button if b.label == label][0].click().run()
    figures = at.get("plotly_chart")
    assert figures, page
    problems = {i: figure_problems(f) for i, f in enumerate(figures)}
    assert not any(problems.values()), problems


def test_the_launcher_starts_without_a_scriptruncontext_warning():
    """issue 33: ``python app.py`` printed "missing ScriptRunContext! This warning can be
    ignored" at start-up (the launcher asked for the context without suppressing the warning);
    a user reads it as an error. An invalid port stops the server right after the launcher ran."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, str(root / "app.py"), "--server.port", "notaport"],
                         capture_output=True, text=True, timeout=60, cwd=root)
    assert "is not a valid integer" in run.stderr + run.stdout  # the launcher reached Streamlit
    assert "ScriptRunContext" not in run.stderr + run.stdout
