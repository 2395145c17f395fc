"""Trade-off page: sliders move the metrics, constraints switch to the ILP, downloads exist."""

from __future__ import annotations

import pandas as pd
import pytest

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
    # lambda is a select slider over a log-like grid from 0 to the data's last breakpoint
    at.select_slider(key="_w_lam").set_value(30.0).run()
    assert at.session_state["lam"] == 30.0
    third = metrics(at)
    assert third["Time cost"] != second["Time cost"]
    assert not at.exception


def test_count_input_and_mode(run_page):
    at = run_page("2_Trade-off.py")
    at.select_slider(key="_w_lam").set_value(0.0).run()
    at.number_input(key="_w_count").set_value(123).run()
    assert metrics(at)["Humans"].startswith("123 of")
    at.radio(key="_w_mode").set_value("exactly").run()
    assert at.session_state["mode"] == "exactly"
    assert not at.exception


def test_state_survives_a_page_switch(run_page):
    at = run_page("2_Trade-off.py")
    at.number_input(key="_w_lam_box").set_value(7.5).run()  # not a slider step: the box
    # a new script run of another page in the same session keeps the canonical state
    at2 = run_page("2_Trade-off.py", state={k: at.session_state[k] for k in
                                              ("data", "data_key", "data_source", "lam", "share",
                                               "mode", "constraints")})
    assert at2.select_slider(key="_w_lam").value == 7.5
    assert at2.number_input(key="_w_lam_box").value == 7.5


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
    said = [c for c in at.caption if "exact optimiser (extra constraints active)" in c.value]
    assert said and "HiGHS" in said[0].proto.help  # the solver's name kept in the tooltip


def test_without_gold_reliability_is_na(run_page):
    df = pd.DataFrame({"machine_label": [0, 1, 1, 0] * 5,
                       "machine_confidence": [0.2, 0.9, 0.6, 0.8] * 5})
    data = prepare(df, name="nogold")
    at = run_page("2_Trade-off.py", state={"data": data, "data_key": fingerprint(df)})
    assert not at.exception and not at.error
    m = metrics(at)
    assert m["Accuracy"] == "n/a" and m["Time cost"] == "n/a"
    assert m["Expected reliability"] != "n/a"  # in the technical figures' expander
    # no unit in the table: effort 1 per sample, "effort units"; nobody goes to humans
    assert m["Predicted human effort"] == "0 effort units"
    # lambda 4.6 outweighs every gap 1 - c <= 0.8 at effort 1: the machine keeps all, and says so
    assert any(md.value == "**No sample goes to humans: the machine labels all 20 (expected "
               "accuracy 62.5%).**" for md in at.markdown)
    assert at.info[0].value.startswith("None of the 10 samples the budget allows goes to humans")


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
    from core.assignment import per_class_report
    from core.assignment import SAEInputs, solve

    at = run_page("2_Trade-off.py")
    assert not at.exception and not at.error
    data = at.session_state["data"]
    ss = at.session_state
    assignment = solve(SAEInputs.from_data(data), lam=ss["lam"],
                       n_human=int(ss["share"] * data.M), mode=ss["mode"])
    expected = per_class_report(data, assignment)
    # two tables side by side: the final labels' (with the gold count), the machine's alone
    final, machine = at.dataframe[-2].value, at.dataframe[-1].value
    assert final["label"].tolist() == machine["label"].tolist() == expected["label"].astype(str).tolist()
    shown = pd.concat([final.drop(columns="label"), machine.drop(columns="label")], axis=1)
    pd.testing.assert_frame_equal(shown.reset_index(drop=True)[list(expected.columns[1:])],
                                  expected.drop(columns="label"), check_dtype=False)
    assert list(machine.columns) == ["label", "precision (machine)", "recall (machine)",
                                     "f1 (machine)"]


# ----------------------------------------------------------------------- effort in seconds
def seconds_frame(copies: int = 2) -> pd.DataFrame:
    """The issue's case in small: effort in seconds, the paper's lambda far too large.

    confidence [0.9, 0.6, 0.2, 0.95], seconds [30, 60, 20, 10]: gains (1 - c) - lam s cross 0 at
    0.1/30, 0.4/60, 0.8/20 = 0.04 and 0.05/10; the machine is wrong on rows 1 and 2.
    """
    return pd.DataFrame({"model_pred": [0, 1, 1, 0] * copies,
                         "model_prob": [0.9, 0.6, 0.2, 0.95] * copies,
                         "gold": [0, 0, 0, 0] * copies,
                         "annot_seconds": [30.0, 60.0, 20.0, 10.0] * copies})


SECONDS_ROLES = {"machine_label": "model_pred", "machine_confidence": "model_prob",
                 "human_label": "gold", "human_effort": "annot_seconds"}


def seconds_state() -> dict:
    df = seconds_frame()
    data = prepare(df, SECONDS_ROLES, name="seconds")
    return {"data": data, "data_key": fingerprint(df, SECONDS_ROLES)}


def test_lambda_spans_the_range_of_the_data_in_seconds(run_page):
    at = run_page("2_Trade-off.py", state=seconds_state())
    assert not at.exception and not at.error
    slider = at.select_slider(key="_w_lam")
    assert "per second" in slider.label
    # the range ends at max (1 - c) / s = 0.8 / 20 = 0.04; the paper's 4.6 (the current value)
    # is kept as an option beyond it, and nobody goes to humans there
    assert "0.04" in slider.options and "0.01" in slider.options and "4.6" == slider.options[-1]
    # steps from the decade of the first breakpoint, 0.1 / 30 = 0.0033
    assert slider.options[:3] == ["0", "0.001", "0.0012"]
    m = metrics(at)
    assert m["Humans"] == "0 of 8"
    assert any(md.value == "**No sample goes to humans: the machine labels all 8 (accuracy "
               "50.0%).**" for md in at.markdown)
    # lambda = 0.01 in the box: the two copies of row 2 (ratio 0.04) go, of N = 4 allowed
    at.number_input(key="_w_lam_box").set_value(0.01).run()
    assert at.session_state["lam"] == 0.01 and at.select_slider(key="_w_lam").value == 0.01
    m = metrics(at)
    assert m["Humans"] == "2 of 8" and m["Accuracy"] == "75.0%"
    # effort 40 of 240 seconds: time cost 16.7%, a fall of 83%
    assert m["Time cost"] == "16.7%" and m["Human effort"] == "40 s"
    assert any(md.value == "**Accuracy rises from 50.0% to 75.0% while annotation effort falls "
               "by 83% compared with labelling everything (2 of 8 samples go to humans).**"
               for md in at.markdown)
    # 2 < N = 4 in "at most" mode: the page says why
    assert at.info and at.info[0].value.startswith("Only 2 of the 4 samples the budget allows go "
                                                   "to humans: at λ = 0.01 (per second)")
    # one click to the largest slider step below the pivot 0.1 / 15 = 0.00667: 0.006, where all
    # N = 4 go (rows 1 and 2, twice)
    at.button(key="_lam_to_pivot").click().run()
    assert at.session_state["lam"] == 0.006 and metrics(at)["Humans"] == "4 of 8"
    assert not at.info or not at.info[0].value.startswith("Only")
    # the units on the axes
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    at.button_group(key="_curves_view").set_value("λ").run()  # the curves against λ
    specs += [c.proto.spec for c in at.get("plotly_chart")]
    assert any("per second, log scale" in sp for sp in specs)
    assert any("share of the samples or of the effort (%)" in sp for sp in specs)
    assert any("Time cost (% of the effort of labelling everything)" in sp for sp in specs)


def test_slider_and_box_share_one_value(run_page):
    at = run_page("2_Trade-off.py", state=seconds_state())
    at.select_slider(key="_w_lam").set_value(0.005).run()
    assert at.session_state["lam"] == 0.005
    assert at.number_input(key="_w_lam_box").value == 0.005
    # 0.005: rows 1 (ratio 0.00667) and 2 (0.04) and, exactly at its ratio, not row 3 (tie: machine)
    assert metrics(at)["Humans"] == "4 of 8"
    at.number_input(key="_w_lam_box").set_value(0.0).run()
    assert at.select_slider(key="_w_lam").value == 0.0


def test_page_and_cli_agree_in_seconds(run_page, tmp_path, capsys):
    import json

    from core.cli import main

    path = tmp_path / "seconds.csv"
    seconds_frame().to_csv(path, index=False)
    code = main(["assign", str(path), "--lam", "0.01", "--json"] +
                [a for role, col in SECONDS_ROLES.items() for a in ("--col", f"{role}={col}")])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_human"] == 2 and out["accuracy"] == 0.75
    assert out["lambda_range"]["upper"] == pytest.approx(0.04)
    at = run_page("2_Trade-off.py", state={**seconds_state(), "lam": 0.01})
    assert metrics(at)["Humans"] == f"{out['n_human']} of 8"


def test_ends_with_the_next_step(run_page):
    at = run_page("2_Trade-off.py")
    assert at.markdown[-1].value == "**Next: Evaluate**"


def test_a_lambda_move_recomputes_neither_the_lambda_curve_nor_the_range(run_page, monkeypatch):
    """Moving λ re-solves and redraws the curve against N at the new λ; the curve against λ
    (its grid follows the data, N and mode only), the λ range and the frontier come from the
    cache. A move of N recomputes the range, once; the curve against λ is computed only when
    it is shown (one pair of curves at a time, issue 25), and then once."""
    import streamlit as st

    import core.assignment.report
    import pages._common as common

    st.cache_data.clear()  # other tests of this process ran the page at these settings
    calls = []
    real_sweep, real_range = common.sweep, common.lambda_range

    def sweep(inp, **kw):
        calls.append(("sweep", "lambda curve" if kw.get("n_values") is not None else
                      "N curve" if len(kw["lams"]) == 1 else "frontier"))
        return real_sweep(inp, **kw)

    def lambda_range(inp, **kw):
        calls.append(("range", kw["n_human"]))
        return real_range(inp, **kw)

    monkeypatch.setattr(common, "sweep", sweep)
    monkeypatch.setattr(common, "lambda_range", lambda_range)
    monkeypatch.setattr(core.assignment.report, "lambda_range", lambda_range)
    at = run_page("2_Trade-off.py")
    assert {c[1] for c in calls if c[0] == "sweep"} == {"N curve", "frontier"}
    for lam in (5.1, 7.3, 5.1):
        calls.clear()
        at.number_input(key="_w_lam_box").set_value(lam).run()
        assert not at.exception and at.session_state["lam"] == lam
        assert all(c == ("sweep", "N curve") for c in calls), calls
    assert calls == []  # 5.1 again: everything from the cache
    calls.clear()
    at.number_input(key="_w_count").set_value(123).run()
    assert calls == [("range", 123)]
    calls.clear()
    at.button_group(key="_curves_view").set_value("λ").run()
    assert calls == [("sweep", "lambda curve")] and len(at.get("plotly_chart")) == 3
    titles = " | ".join(c.proto.spec for c in at.get("plotly_chart"))
    assert "Reliability at N = 123" in titles and "Effort at N = 123" in titles
    assert "Reliability at λ" not in titles  # the other pair is not drawn


def test_a_new_dataset_brings_lambda_into_its_range(run_page):
    """The QA case: λ = 4.6 kept from the demo on efforts in seconds (range 0 to 0.04 here)
    routed nothing, with a slider from 0 to 4.6 and flat curves. Validating the new dataset sets
    λ to the largest slider step at which all N allowed samples go (0.006, as the page's
    "Use λ" button would), and the Trade-off page says so once."""
    data_page = run_page("1_Data.py")
    assert data_page.session_state["lam"] == 4.6  # the paper's λ, in range on the demo
    data_page.session_state["upload"] = {"name": "seconds.csv",
                                         "bytes": seconds_frame().to_csv(index=False).encode()}
    data_page.run()
    [b for b in data_page.button if "Validate" in str(b.label)][0].click().run()
    assert not data_page.exception and not data_page.error
    assert data_page.session_state["data"].name == "seconds.csv"
    assert data_page.session_state["lam"] == 0.006
    keep = ("data", "data_key", "data_source", "lam", "share", "mode", "_lam_note")
    at = run_page("2_Trade-off.py", state={k: data_page.session_state[k] for k in keep})
    assert not at.exception and not at.error
    assert at.info[0].value == ("λ was 4.6: on this dataset (λ from 0 to 0.04, per second) that "
                                "weighs effort so heavily that no sample would go to humans. It is "
                                "now 0.006: the largest λ on the slider at which humans still get "
                                "all N samples the budget allows.")
    assert metrics(at)["Humans"] == "4 of 8"
    at.run()  # said once
    assert not any(i.value.startswith("λ was") for i in at.info)
    # a λ inside the new range is kept
    at.number_input(key="_w_lam_box").set_value(0.01).run()
    assert at.session_state["lam"] == 0.01


def test_the_other_modes_frontier_is_ready_before_a_switch(run_page, monkeypatch):
    """Issue 11: switching "at most" / "exactly" waited for the other mode's frontier grid (21
    budgets x the λ grid; 0.4 s at 10^5 rows). The page computes it once drawn, so the switch
    only reads the cache."""
    import streamlit as st

    import pages._common as common

    calls: list[tuple[str, int]] = []
    real = common.sweep

    def counting(inp, *, lams, shares=None, n_values=None, mode="at_most"):
        calls.append((mode, len(shares or ())))
        return real(inp, lams=lams, shares=shares, n_values=n_values, mode=mode)

    monkeypatch.setattr(common, "sweep", counting)
    st.cache_data.clear()
    at = run_page("2_Trade-off.py")
    assert ("at_most", 21) in calls and ("exactly", 21) in calls  # both frontier grids
    calls.clear()
    at.radio(key="_w_mode").set_value("exactly").run()
    assert not at.exception
    assert ("exactly", 21) not in calls, calls  # read from the cache


def test_a_large_table_draws_its_charts_from_a_sample_and_says_so(run_page, monkeypatch):
    """issue 34: from LARGE_ROWS rows the sweeps behind the charts run on a seeded sample of
    CHART_ROWS rows, with a caption; the metrics printed stay the whole table's (the same as
    below the threshold). The thresholds are lowered so the demo table counts as large."""
    import pages._large as large

    small = run_page("2_Trade-off.py")
    m = small.session_state["data"].M
    assert not any("seeded sample" in c.value for c in small.caption)
    monkeypatch.setattr(large, "LARGE_ROWS", 100)
    monkeypatch.setattr(large, "CHART_ROWS", 150)
    at = run_page("2_Trade-off.py")
    assert not at.exception and not at.error
    said = [c.value for c in at.caption if "seeded sample" in c.value]
    assert said and f"150 of its {m:,} rows" in said[0] and "exact" in said[0]
    assert metrics(at) == metrics(small)  # exact numbers: all rows
    sample = at.session_state[at.session_state["data_key"] + ":sample"]
    assert sample.M == 150
    # the sample's rows are the data's rows: each row's confidence and effort carried together
    full = small.session_state["data"].frame
    pairs = set(zip(full["machine_confidence"], full["predicted_effort"]))
    assert all((a, l) in pairs for a, l in zip(sample.a, sample.l))


def test_sample_rows_and_budget_by_hand(monkeypatch):
    import pages._large as large

    monkeypatch.setattr(large, "CHART_ROWS", 4)
    rows = large.sample_rows(10)
    assert len(rows) == 4 and len(set(rows)) == 4 and list(rows) == sorted(rows)
    assert list(rows) == list(large.sample_rows(10))  # seeded: the same rows every run
    assert large.sample_budget(5, 10) == 2  # 5 of 10 rows -> half of the 4 sampled
    assert large.sample_budget(3, 3) == 3 and len(large.sample_rows(3)) == 3
