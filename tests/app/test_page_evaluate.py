"""Evaluate page (AppTest): the loop end to end, persistence across sessions, scenarios."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = "2a_Evaluate.py"


@pytest.fixture
def fresh_workspace(tmp_path, monkeypatch):
    """A workspace of this test's own (the page opens the folder named by the variable)."""
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    return tmp_path / "ws"


def click(at: AppTest, label: str) -> AppTest:
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r}; buttons: {[b.label for b in at.button]}"
    matches[0].click()
    at.run()
    assert not at.exception, at.exception
    return at


def test_budget_round_plan_simulate_result(run_page, fresh_workspace):
    at = run_page(PAGE)
    assert not at.exception and not at.error
    assert any("Expected interval on a class share" in i.value for i in at.info)
    assert any("No round for this dataset yet" in i.value for i in at.info)
    click(at, "Plan the round")
    assert any("Round #1 planned and saved" in s.value for s in at.success)
    assert any("still need a human label" in i.value for i in at.info)
    # partial import first: progress shows it
    at.slider[0].set_value(0.5).run()
    click(at, "Fill labels from gold")
    rounds = at.selectbox(key="_w_ev_round_id")
    assert "989 of 1,978 labelled" in rounds.format_func(rounds.value)
    at.slider[0].set_value(1.0).run()
    click(at, "Fill labels from gold")
    labels = [m.label for m in at.metric]
    assert labels == ["Share of '0'", "Share of '1'", "Accuracy of the final labels"]
    assert not at.warning
    assert any("Humans labelled **1,978 of 3,557 rows**" in m.value for m in at.markdown)
    assert any("rows at random" in m.value for m in at.markdown)
    assert len(at.get("plotly_chart")) >= 2  # progress + forest plot
    assert {d.label for d in at.get("download_button")} >= {
        "Queue (CSV)", "Label Studio tasks (JSON)", "Final labelled table (CSV)"}


def test_work_survives_a_new_session(run_page, fresh_workspace):
    """A reload or a second tab is a new session: the round and its labels are still there."""
    at = run_page(PAGE)
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    second = run_page(PAGE)  # a new session over the same workspace
    assert not second.exception
    box = second.selectbox(key="_w_ev_round_id")
    assert box.value == 1 and "1,978 of 1,978 labelled" in box.format_func(1)
    assert [m.label for m in second.metric][-1] == "Accuracy of the final labels"


def test_guarantee_round_certifies(run_page, fresh_workspace):
    at = run_page(PAGE)
    at.radio(key="_w_ev_kind").set_value("guarantee").run()
    at.number_input(key="_w_ev_alpha").set_value(0.1).run()
    at.number_input(key="_w_ev_audit").set_value(100).run()
    click(at, "How much would it certify on similar data?")
    assert any("simulated calibration samples" in i.value for i in at.info)
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    click(at, "Certify and route the other rows")
    assert any("With probability at least 90%" in s.value for s in at.success)
    click(at, "Fill labels from gold")
    assert [m.label for m in at.metric][-1] == "Accuracy of the final labels"
    assert not at.error


def test_validity_panel_reports_coverage(run_page, fresh_workspace):
    at = run_page(PAGE)
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    click(at, "Run the simulation")
    table = at.dataframe[-1].value
    assert list(table["quantity"]) == ["share of 0", "share of 1", "accuracy of final labels"]
    assert (table["coverage"] >= 0.9).all()


def test_saved_scenario_is_restored_exactly_from_the_sidebar(fresh_workspace):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/2a_Evaluate.py").run()
    assert not at.exception
    at.session_state["lam"] = 2.5
    at.session_state["share"] = 0.3
    at.run()
    click(at, "Plan the round")
    at.text_input[0].set_value("my plan")
    [b for b in at.button if b.label == "Save scenario"][0].click()
    at.run()
    assert any("Saved as scenario #1" in s.value for s in at.success)
    # a new session starts from the defaults, then restores the scenario with one click
    other = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    other.run()
    assert other.session_state["lam"] != 2.5
    assert "#1 my plan" in other.selectbox(key="_w_restore_choice").value
    click(other, "Restore scenario")
    assert other.session_state["lam"] == 2.5 and other.session_state["share"] == 0.3
    assert other.session_state["evaluate"]["round_id"] == 1
    assert other.session_state["data_source"] == "workspace"
    assert os.environ["HMCEVAL_WORKSPACE"] == str(fresh_workspace)


def test_a_saved_dataset_is_made_active_from_the_sidebar(fresh_workspace):
    import pandas as pd

    from core.data import prepare
    from core.workspace import Workspace
    from core.workspace.rounds import dataset_id_for

    raw = pd.DataFrame({"machine_label": [0, 1, 0, 1], "machine_confidence": [0.9, 0.8, 0.7, 0.6],
                        "gold": [0, 1, 1, 1]})
    dataset_id_for(Workspace(fresh_workspace), prepare(raw, {"human_label": "gold"}, name="tiny"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert at.session_state["data"].name == "Built-in demo"
    assert "#1 tiny (4 rows)" == at.selectbox(key="_w_open_choice").value
    click(at, "Make active")
    assert at.session_state["data"].name == "tiny" and at.session_state["data"].M == 4
    assert at.session_state["data"].roles["human_label"] == "gold"
