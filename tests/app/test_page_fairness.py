"""Fairness page: comparisons, subgroups, second rater, text/ordinal labels, errors as st.error."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.data import prepare
from core.demo import make_demo
from core.reliability import assignment_metrics
from core.sae import SAEInputs, n_from_share, solve
from pages._common import fingerprint

PAGE = "5_Fairness.py"


def _state(frame: pd.DataFrame, roles: dict | None = None, **extra) -> dict:
    data = prepare(frame, roles, name="test")
    return {"data": data, "data_key": fingerprint(data.raw, data.roles), "data_source": "upload", **extra}


def _eval_table(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "exact_agr" in d.value.columns and "sys_mean" in d.value.columns)


def test_demo_machine_vs_gold(run_page):
    at = run_page(PAGE)
    assert not at.exception and not at.error
    charts = at.get("plotly_chart")
    assert len(charts) == 2  # DSM by the first subgroup column, and the collaborative rates
    ev = _eval_table(at)
    demo = make_demo()
    # exact agreement of the machine = its accuracy against gold, counted directly
    expected = 100 * float(np.mean(demo["machine_label"] == demo["human_label"]))
    assert ev.loc[0, "exact_agr"] == expected
    assert ev.loc[0, "N"] == len(demo)
    assert any("Fairness analyses" in m.value for m in at.markdown)
    assert any("Human-human" in h.value for h in at.subheader)


def test_collaborative_matches_reliability_accuracy(run_page):
    at = run_page(PAGE)
    at.radio(key="_w_fair_compare").set_value("collaborative").run()
    assert not at.exception and not at.error
    assert at.session_state["fair_compare"] == "collaborative"
    # the same assignment solved independently; its accuracy from core.reliability
    data = at.session_state["data"]
    inp = SAEInputs.from_data(data)
    n = n_from_share(float(at.session_state["share"]), data.M)
    asg = solve(inp, lam=float(at.session_state["lam"]), n_human=n, mode=at.session_state["mode"])
    f = data.frame
    acc = assignment_metrics(asg.human, machine_label=f["machine_label"].to_numpy(),
                             machine_confidence=f["machine_confidence"].to_numpy(),
                             human_label=f["human_label"].to_numpy())["accuracy"]
    assert abs(_eval_table(at).loc[0, "exact_agr"] - 100 * acc) < 1e-9


def test_raters_comparison_uses_double_scored_rows(run_page):
    at = run_page(PAGE)
    at.radio(key="_w_fair_compare").set_value("raters").run()
    assert not at.exception and not at.error
    demo = make_demo()
    n2 = int(demo["human_label_2"].notna().sum())
    assert _eval_table(at).loc[0, "N"] == n2
    assert any(f"{len(demo) - n2:,} samples without a second rating" in m.value for m in at.markdown)


def test_two_group_columns(run_page):
    at = run_page(PAGE)
    at.multiselect(key="_w_fair_groups").set_value(["system", "topic"]).run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 4
    assert at.session_state["fair_groups"] == ["system", "topic"]


def _ordinal_frame(seed: int = 0, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    gold = rng.integers(1, 6, n)
    group = np.where(np.arange(n) % 10 == 0, "grp.b", "grp.a")  # b: 10 %
    machine = np.where(group == "grp.b", np.minimum(gold + 1, 5), gold)  # group b scored one point higher
    return pd.DataFrame({"machine_label": machine, "confidence": rng.uniform(0.5, 1, n),
                         "human_label": gold, "lang": group})


def test_ordinal_scores_flag_the_biased_group(run_page):
    at = run_page(PAGE, state=_state(_ordinal_frame(), {"subgroups": ["lang"]}, fair_groups=["lang"]))
    assert not at.exception and not at.error
    assert at.warning and "grp.b" in at.warning[0].value and "grp.a" not in at.warning[0].value
    # not binary: no binary-labels note
    assert not any("Binary labels" in e.label for e in at.expander)


def test_text_labels_are_coded_and_explained(run_page):
    demo = make_demo()
    frame = demo.assign(machine_label=np.where(demo["machine_label"] == 1, "unsafe", "safe"),
                        human_label=np.where(demo["human_label"] == 1, "unsafe", "safe"))
    frame = frame.drop(columns=["human_label_2"])
    at = run_page(PAGE, state=_state(frame))
    assert not at.exception and not at.error
    assert any("`safe` = 0" in c.value and "`unsafe` = 1" in c.value for c in at.caption)
    expected = 100 * float(np.mean(frame["machine_label"] == frame["human_label"]))
    assert _eval_table(at).loc[0, "exact_agr"] == expected
    # no second-rater role: the page offers a column picker; a column of the wrong labels is an error
    at.selectbox(key="_w_fair_second").set_value("system").run()
    assert not at.exception
    assert at.error and "not one of the classes" in at.error[0].value


def test_second_rater_picked_by_the_user(run_page):
    demo = make_demo()
    frame = demo.rename(columns={"human_label_2": "rater_b_score"})
    at = run_page(PAGE, state=_state(frame, {"human_label_2": None}))
    assert not at.exception
    at.selectbox(key="_w_fair_second").set_value("rater_b_score").run()
    assert not at.exception and not at.error
    at.radio(key="_w_fair_compare").set_value("raters").run()
    assert not at.exception and not at.error
    assert _eval_table(at).loc[0, "N"] == int(demo["human_label_2"].notna().sum())


def test_without_gold_or_subgroups(run_page):
    demo = make_demo()
    at = run_page(PAGE, state=_state(demo.drop(columns=["human_label", "human_label_2"]), {"subgroups": []}))
    assert not at.exception
    assert at.warning and "no gold" in at.warning[0].value
    frame = demo[["machine_label", "confidence_ts", "human_label"]]
    at = run_page(PAGE, state=_state(frame, {"subgroups": []}))
    assert not at.exception and not at.error
    assert any("no subgroup columns" in i.value for i in at.info)


def test_unusable_group_column_is_an_error_for_that_column_only(run_page):
    frame = make_demo().assign(site="only-one")
    at = run_page(PAGE, state=_state(frame, {"subgroups": ["site", "system"]}, fair_groups=["site", "system"]))
    assert not at.exception
    assert len(at.error) == 1 and "site" in at.error[0].value and "at least two groups" in at.error[0].value
    assert len(at.get("plotly_chart")) == 2  # DSM and rates for `system` still shown


def _fairness_summary(at) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe if "R2 (adjusted)" in d.value.columns]


def test_page_and_cli_print_the_same_report(run_page, tmp_path, capsys):
    """One core function (core.rsm.agreement_report) behind the page and `hmceval agreement`."""
    import json

    from core.cli import main

    frame = _ordinal_frame()
    at = run_page(PAGE, state=_state(frame, {"subgroups": ["lang"]}))
    at.multiselect(key="_w_fair_groups").set_value(["lang"]).run()
    assert not at.exception and not at.error
    path = tmp_path / "ordinal.csv"
    frame.to_csv(path, index=False)
    assert main(["agreement", str(path), "--human", "human_label", "--system", "machine_label",
                 "--group", "lang", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    # hand-worked anchor: group b (every 10th row) is scored one point higher unless gold is 5
    gold, b = frame["human_label"].to_numpy(), np.arange(len(frame)) % 10 == 0
    assert cli["eval"]["exact_agr"] == 100 * (1 - float(np.mean(b & (gold < 5))))
    page_eval = _eval_table(at).iloc[0]
    for key, value in cli["eval"].items():
        assert page_eval[key] == value or (np.isnan(page_eval[key]) and np.isnan(value)), key
    by_group = next(d.value for d in at.dataframe if "DSM" in d.value.columns and "flag" in d.value.columns)
    for label, row in cli["eval_by_lang"].items():
        for key, value in row.items():
            shown = by_group.loc[label, key]
            assert shown == value or (value is None and pd.isna(shown)) or (np.isnan(shown) and np.isnan(value)), key
    summary = _fairness_summary(at)[0].set_index("analysis")
    for a, long in [("osa", "Overall score accuracy"), ("osd", "Overall score difference"),
                    ("csd", "Conditional score difference")]:
        assert summary.loc[long, "p-value"] == cli["fairness_by_lang"][a]["sig"]
