"""Trade-off page: sliders move the metrics, constraints switch to the ILP, downloads exist."""

from __future__ import annotations

import pandas as pd

from core.data import prepare
from pages._common import fingerprint


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def test_loads_and_sliders_change_metrics(run_page):
    at = run_page("2_Trade-off.py")
    assert not at.exception and not at.error
    first = metrics(at)
    at.slider(key="_w_share").set_value(0.2).run()
    assert at.session_state["share"] == 0.2
    second = metrics(at)
    assert second["Human ratio"] != first["Human ratio"]
    assert second["Accuracy"] != first["Accuracy"]
    at.slider(key="_w_lam").set_value(30.0).run()
    assert at.session_state["lam"] == 30.0
    third = metrics(at)
    assert third["Time cost"] != second["Time cost"]
    assert not at.exception


def test_count_input_and_mode(run_page):
    at = run_page("2_Trade-off.py")
    at.slider(key="_w_lam").set_value(0.0).run()
    at.number_input(key="_w_count").set_value(123).run()
    assert metrics(at)["Humans"].startswith("123 of")
    at.radio(key="_w_mode").set_value("exactly").run()
    assert at.session_state["mode"] == "exactly"
    assert not at.exception


def test_state_survives_a_page_switch(run_page):
    at = run_page("2_Trade-off.py")
    at.slider(key="_w_lam").set_value(7.5).run()
    # a new script run of another page in the same session keeps the canonical state
    at2 = run_page("2_Trade-off.py", state={k: at.session_state[k] for k in
                                              ("data", "data_key", "data_source", "lam", "share",
                                               "mode", "constraints")})
    assert at2.slider(key="_w_lam").value == 7.5


def test_infeasible_constraints_show_error(run_page):
    at = run_page("2_Trade-off.py", state={"constraints": {"effort_budget_share": 0.0,
                                                           "group_column": "system",
                                                           "group_bounds": {"blender": [0.5, None]}}})
    assert not at.exception
    assert at.error and "infeasible" in at.error[0].value


def test_feasible_constraints_use_ilp(run_page):
    at = run_page("2_Trade-off.py", state={"constraints": {"effort_budget_share": 0.2,
                                                           "group_column": None, "group_bounds": {}}})
    assert not at.exception and not at.error
    assert any("general ILP" in c.value for c in at.caption)


def test_without_gold_reliability_is_na(run_page):
    df = pd.DataFrame({"machine_label": [0, 1, 1, 0] * 5,
                       "machine_confidence": [0.2, 0.9, 0.6, 0.8] * 5})
    data = prepare(df, name="nogold")
    at = run_page("2_Trade-off.py", state={"data": data, "data_key": fingerprint(df)})
    assert not at.exception and not at.error
    m = metrics(at)
    assert m["Accuracy"] == "n/a" and m["Time cost"] == "n/a"
    assert m["Expected reliability"] != "n/a"


def test_page_and_cli_build_the_same_constraints():
    import argparse

    import numpy as np

    from core.cli.common import constraints_from_args
    from core.demo import make_demo
    from pages._common import build_constraints

    data = prepare(make_demo(60, seed=3), name="demo")
    spec = {"effort_budget_share": 0.25, "group_column": "system",
            "group_bounds": {"blender": [0.2, None], "gpt2-ft": [None, 0.6]}}
    args = argparse.Namespace(effort_budget=None, effort_budget_share=0.25, group_col="system",
                              group_share=["blender=0.2:", "gpt2-ft=:0.6"])
    page, cli = build_constraints(data, spec), constraints_from_args(args, data)
    assert page.effort_budget == cli.effort_budget == 0.25 * data.frame["predicted_effort"].sum()
    assert page.group_bounds == cli.group_bounds == {"blender": (0.2, None), "gpt2-ft": (None, 0.6)}
    assert np.array_equal(page.groups, cli.groups)
    assert np.array_equal(page.groups, data.raw["system"].to_numpy(dtype=object))
    assert build_constraints(data, {"effort_budget_share": None, "group_column": "system",
                                    "group_bounds": {}}) is None


def test_refused_constraints_show_the_data_error(run_page):
    # a subgroup that does not occur used to be skipped silently (solved without the bound)
    at = run_page("2_Trade-off.py", state={"constraints": {"effort_budget_share": None,
                                                           "group_column": "system",
                                                           "group_bounds": {"nosuch": [0.5, None]}}})
    assert not at.exception
    assert at.error and "'nosuch' does not occur in column 'system'" in at.error[0].value
    assert at.session_state["constraints"]["group_bounds"] == {"nosuch": [0.5, None]}


def test_per_class_table_is_the_core_report(run_page):
    from core.report import per_class_report
    from core.sae import SAEInputs, solve

    at = run_page("2_Trade-off.py")
    assert not at.exception and not at.error
    data = at.session_state["data"]
    ss = at.session_state
    assignment = solve(SAEInputs.from_data(data), lam=ss["lam"],
                       n_human=int(ss["share"] * data.M), mode=ss["mode"])
    expected = per_class_report(data, assignment)
    shown = at.dataframe[-1].value
    assert shown["label"].tolist() == expected["label"].astype(str).tolist()
    pd.testing.assert_frame_equal(shown.drop(columns="label").reset_index(drop=True),
                                  expected.drop(columns="label"), check_dtype=False)
