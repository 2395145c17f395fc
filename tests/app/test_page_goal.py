"""Trade-off page, the goal section (pages/_goal.py, issue 25): the page's answer is
core.assignment.goal_setting's, the buttons take the setting, hours on time effort."""

from __future__ import annotations

import pandas as pd

from core.assignment import SAEInputs, goal_setting
from core.data import prepare
from pages._common import fingerprint


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_goal_on_the_demo_matches_core_and_its_button_takes_it(run_page):
    at = run_page("2_Trade-off.py")
    assert not at.exception and not at.error
    data = at.session_state["data"]
    want = goal_setting(data, target_accuracy=0.95, inputs=SAEInputs.from_data(data))
    assert want.basis == "gold"
    assert [s.value for s in at.success] == [want.message]
    label = f"Use this setting (N = {want.N:,}, λ = {want.lam:.4g})"
    at.button(key="_goal_take").click().run()
    assert not at.exception
    assert at.session_state["lam"] == want.lam
    assert int(round(at.session_state["share"] * data.M)) == want.N
    assert metrics(at)["Humans"].startswith(f"{want.n_human:,} of")
    assert label.startswith("Use this setting")
    # the current setting is now the goal's: 95% or more, as core said
    assert float(metrics(at)["Accuracy"].rstrip("%")) >= 95.0


def test_budget_in_hours_on_seconds(run_page):
    # hand-worked: confidences 0.9, 0.6, 0.2, 0.95, review 30, 60, 20, 10 s, gold all 0 and the
    # machine wrong on rows 1 and 2; within 80 s (0.0222 h) the most accurate is rows 1 and 2
    # (80 s): accuracy 4/4
    df = pd.DataFrame({"model_pred": [0, 1, 1, 0], "model_prob": [0.9, 0.6, 0.2, 0.95],
                       "gold": [0, 0, 0, 0], "annot_seconds": [30.0, 60.0, 20.0, 10.0]})
    roles = {"machine_label": "model_pred", "machine_confidence": "model_prob",
             "human_label": "gold", "human_effort": "annot_seconds"}
    at = run_page("2_Trade-off.py", state={"data": prepare(df, roles, name="seconds"),
                                            "data_key": fingerprint(df, roles)})
    assert not at.exception
    at.radio(key="_goal_kind").set_value("An effort budget (hours)").run()
    at.number_input(key="_goal_hours").set_value(80 / 3600).run()
    assert not at.exception
    msg = at.success[0].value
    assert "within 1.3 min" in msg and "accuracy 100.0%" in msg and "1.3 min (" in msg


def test_goal_search_waits_for_the_toggle_on_large_tables(run_page, monkeypatch):
    """Above GOAL_AUTO_ROWS the search (seconds at 10^5 rows) runs only when switched on, so
    moving N or lambda stays as fast as without it (bench/app.py)."""
    import pages._goal as goal

    monkeypatch.setattr(goal, "GOAL_AUTO_ROWS", 1000)
    calls = []
    original = goal.goal_grid
    monkeypatch.setattr(goal, "goal_grid", lambda *a, **k: calls.append(1) or original(*a, **k))
    at = run_page("2_Trade-off.py")
    assert not at.exception and not at.error
    assert at.toggle(key="_goal_on").value is False
    assert any(c.value.startswith("Off: this table has 3,557 rows") for c in at.caption)
    assert not at.success and calls == []
    at.toggle(key="_goal_on").set_value(True).run()
    assert not at.exception
    data = at.session_state["data"]
    want = goal_setting(data, target_accuracy=0.95, inputs=SAEInputs.from_data(data))
    assert [s.value for s in at.success] == [want.message]


def test_the_goal_toggle_keeps_its_choice(run_page, monkeypatch):
    """Issue 33: the toggle was found off after "Use this setting", its caption ("Off: this table
    has N rows") contradicting its help ("On by itself up to 20,000 rows"). Its choice is kept
    per dataset: through "Use this setting", through a run that stops before it (a widget's
    own state is dropped by a run that does not draw it), and not carried to another dataset."""
    import pages._common as common
    import pages._goal as goal
    from core.errors import DataError

    monkeypatch.setattr(goal, "GOAL_AUTO_ROWS", 1000)  # the demo is a "large" table: off by itself
    at = run_page("2_Trade-off.py")
    assert at.toggle(key="_goal_on").value is False
    assert any(c.value.startswith("Off: this table has 3,557 rows") for c in at.caption)
    at.toggle(key="_goal_on").set_value(True).run()
    at.button(key="_goal_take").click().run()
    assert not at.exception and at.toggle(key="_goal_on").value is True
    # a run that stops before the goal section (the result refused), then a normal one
    real = common.current_result

    def refuse():
        raise DataError("refused for the test")

    monkeypatch.setattr(common, "current_result", refuse)
    at.run()
    assert not any(t.key == "_goal_on" for t in at.toggle)  # the page stopped before it
    monkeypatch.setattr(common, "current_result", real)
    at.run()
    assert at.toggle(key="_goal_on").value is True
    # switched off on a table small enough to be on by itself: the caption says so
    monkeypatch.setattr(goal, "GOAL_AUTO_ROWS", 20_000)
    at.toggle(key="_goal_on").set_value(False).run()
    assert at.toggle(key="_goal_on").value is False
    assert any(c.value.startswith("Off: switched off here") for c in at.caption)
    # another dataset starts from its own default (on: 8 rows)
    df = pd.DataFrame({"model_pred": [0, 1, 1, 0] * 2, "model_prob": [0.9, 0.6, 0.2, 0.95] * 2,
                       "gold": [0, 0, 0, 0] * 2})
    roles = {"machine_label": "model_pred", "machine_confidence": "model_prob",
             "human_label": "gold"}
    at.session_state["data"] = prepare(df, roles, name="small")
    at.session_state["data_key"] = fingerprint(df, roles)
    at.run()
    assert at.toggle(key="_goal_on").value is True
