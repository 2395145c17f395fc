"""Evaluate page (AppTest), the active design: the design choice, the budget and the frontier,
an active round planned, labelled and estimated, the per-group accuracy, a worse group named
with its cause and the one-click fix."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.test_page_evaluate import click, fresh_workspace  # noqa: F401  (a fixture)
from tests.judge_table import judge_table

PAGE = "2a_Evaluate.py"




def _judge_state(**kw):
    from core.data import prepare
    from pages._common import fingerprint

    data = prepare(judge_table(**kw), name="judge")
    return {"data": data, "data_key": fingerprint(data.raw, data.roles), "data_source": "test"}


def _frontier_titles(at: AppTest) -> list[str]:
    import json

    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")
            if "title" in json.loads(c.proto.spec)["layout"]]


def test_few_labels_plan_plain_random_labelling_and_the_page_says_why(run_page,
                                                                     fresh_workspace):
    """At 100 of the demo's 3,557 labels the active design is expected to be worth fewer labels
    than PPI++'s: the page plans plain random labelling in its place, says why before any label,
    and the round is stored (and shown) as random labelling."""
    at = run_page(PAGE)
    at.radio(key="_w_ev_design").set_value("active").run()
    at.number_input(key="_w_ev_labels").set_value(100).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    plan = [m.value for m in at.markdown if m.value.startswith("**Humans will label about 100")]
    assert plan and "(drawn at random with known probabilities)" in plan[0], plan
    said = [w.value for w in at.warning
            if w.value.startswith("Plain random labelling is recommended instead of the "
                                  "active design")]
    assert len(said) == 1 and "times PPI++'s labels" in said[0]
    click(at, "Plan the round")
    from core.workspace import Workspace

    ws = Workspace(str(fresh_workspace))
    pi = ws.round(1)["inclusion"]
    assert pi.min() == pytest.approx(pi.max()) and pi.sum() == pytest.approx(100, rel=1e-9)
    assert ws.latest_result(1, "design")["design"] == "random"
    assert any(e.label == "The design of this round: Random" for e in at.expander), \
        [e.label for e in at.expander]


def test_active_round_plan_frontier_simulate_result(run_page, fresh_workspace):
    at = run_page(PAGE)
    assert not at.exception
    # the routing round stays the page's default; the design radio offers the four (two
    # batches: tests/app/test_page_evaluate_two_batch.py)
    radio = at.radio(key="_w_ev_design")
    assert radio.options == ["Active (recommended)", "Routing + audit", "Random",
                             "Two batches: a first batch, then the rest planned on its labels"]
    assert radio.value == "routing"
    radio.set_value("active").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    # the budget starts at the routing round's labels: N (1,778 of the demo's 3,557) + audit 200
    assert at.number_input(key="_w_ev_labels").value == 1978
    at.number_input(key="_w_ev_labels").set_value(400).run()
    plan = [m for m in at.markdown if m.value.startswith("**Humans will label about 400")]
    assert plan and "random labels" in plan[0].value, [m.value for m in at.markdown]
    # issue 33: the jargon in plain words, "worth N random labels" in a tooltip, PPI++ beside
    # the warning that names it
    assert plan[0].proto.help.startswith("Worth N random labels: labelling N rows picked at "
                                         "random would give an interval as narrow")
    assert any(c.value.startswith("PPI++ (prediction-powered inference): the usual estimate")
               for c in at.caption)
    assert "Designs for this budget (expected)" in _frontier_titles(at)
    # at 400 of 3,557 labels the demo's two promises conflict: the page says so, and what the
    # recommended design gives up; at the routing round's 1,978 labels it does not
    conflict = [w.value for w in at.warning if w.value.startswith("On these confidences no "
                                                                  "design is expected both")]
    assert len(conflict) == 1 and "points below routing" in conflict[0]
    assert any(c.value.startswith("Routing the same budget to the least confident rows")
               for c in at.caption)
    # issue 30: no labels yet, so the plan says what it rests on and the range it could take;
    # the demo's confidence is a trust score, 15 % of it below 1/2: not probabilities
    assert any("15% of them are below 1/(number of classes)" in c.value
               and "final accuracy)" in c.value for c in at.caption), [c.value for c in at.caption]
    # issue 33: no "Not built yet" on every plan (the one-click fix, after the labels, raises
    # every worse group of a column at once now)
    assert not any("Not built yet" in c.value for c in at.caption)
    click(at, "Plan the round")
    assert any("Round #1 planned and saved" in s.value for s in at.success)
    # the round is active: its probabilities are stored, the design shown with it
    from core.workspace import Workspace

    ws = Workspace(str(fresh_workspace))
    rnd = ws.round(1)
    assert rnd["settings"] == {"design": "active", "labels": 400, "seed": 0}
    assert rnd["inclusion"].sum() == pytest.approx(400, rel=1e-6)
    assert any(e.label.startswith("The design of this round: Active") for e in at.expander)
    click(at, "Fill labels from gold")
    labels = [m.label for m in at.metric]
    assert labels == ["Share of '0'", "Share of '1'", "Accuracy of the final labels"]
    # issue 30: the plan beside what the labels realise
    assert any(c.value.startswith("The plan against the labels so far") for c in at.caption)
    frames = [d.value for d in at.dataframe if "planned range" in d.value.columns]
    assert frames and list(frames[0][""]) == ["final accuracy", "widest class-share half-width",
                                              "labels"]
    # every interval says what it is worth in random labels: the class shares' worth, as the
    # estimate computes it from the labels
    from core.workspace.rounds import round_summary

    est = round_summary(ws, 1, groups=["system", "topic"])["estimate"]
    worth = est["class_shares"]["1"]["random_equivalent"]
    assert any(c.value.endswith(f"worth {worth:,} random labels") for c in at.caption)
    # a weighted design's accuracy interval is two-sided, not the routing's exact bound
    assert any(c.value.startswith("95% interval [") and "%]" in c.value for c in at.caption)
    assert any(s.value == "Accuracy of the final labels by group" for s in at.subheader)
    assert "Accuracy of the final labels by group" in _frontier_titles(at)


def test_worse_group_is_named_and_one_click_plans_the_fix(run_page, fresh_workspace):
    at = run_page(PAGE, state=_judge_state())
    at.radio(key="_w_ev_design").set_value("active").run()
    at.number_input(key="_w_ev_labels").set_value(400).run()
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    assert not at.error, [e.value for e in at.error]
    # one warning, naming the bad group with its cause in numbers; none for the fine groups
    warned = [w.value for w in at.warning if w.value.startswith("language = ")]
    assert len(warned) == 1 and warned[0].startswith("language = ja: final labels")
    assert "the machine is right on" in warned[0] and "humans label" in warned[0]
    assert "its effort per row is" in warned[0]
    # the per-group table: one row per language, ja flagged
    table = next(d.value for d in at.dataframe if "worth_random" in d.value.columns)
    assert list(table["group"]) == ["de", "en", "fr", "ja"]
    assert list(table["worse"]) == [False, False, False, True]
    # the fix says it starts without this round's labels (issue 33: "carried" beside "0 of")
    assert any(c.value.endswith("so none are carried into it.") for c in at.caption)
    # the suggested share asks more of ja's 500 rows than the 400 labels: said before the
    # click (issue 33: the click failed with "need a budget of 615.8")
    suggested = at.number_input(key="_w_fix_share_1_0").value
    short = [w.value for w in at.warning if "it would be refused" in w.value]
    assert suggested > 80 and len(short) == 1, (suggested, short)  # 0.8 x 500 = 400
    # the table's effort has its unit, the flag column its words
    import json

    table_el = next(d for d in at.dataframe if "worth_random" in d.value.columns)
    config = json.loads(table_el.proto.columns)
    assert config["effort"]["label"] == "effort per row (seconds)"
    assert config["worse"]["label"] == "significantly worse"
    # the fix: at least 50 % of ja labelled, same budget, stratified by language
    at.number_input(key="_w_fix_share_1_0").set_value(50.0).run()
    assert not [w for w in at.warning if "it would be refused" in w.value]
    click(at, "Plan a new round: at least 50% of language = ja labelled")
    assert any(s.value.startswith("Round #2 planned and saved: the active design stratified "
                                  "by 'language'") for s in at.success)
    from core.workspace import Workspace

    ws = Workspace(str(fresh_workspace))
    rnd = ws.round(2)
    assert rnd["settings"]["min_share"] == {"ja": 0.5}
    ja = (judge_table()["language"] == "ja").to_numpy()
    # 250 of ja's 500 rows expected, the other 150 of the 400 labels for the rest
    assert rnd["inclusion"][ja].sum() == pytest.approx(250, rel=1e-6)
    assert rnd["inclusion"][~ja].sum() == pytest.approx(150, rel=1e-6)
    assert at.selectbox(key="_w_ev_round_id").value == 2


def test_effort_budget_is_asked_in_hours(run_page, fresh_workspace):
    state = _judge_state(per_group=100)
    at = run_page(PAGE, state=state)
    at.radio(key="_w_ev_design").set_value("active").run()
    at.radio(key="_w_ev_budget_in").set_value("effort").run()
    box = at.number_input(key="_w_ev_effort_budget")
    assert box.label == "Budget (hours of predicted effort)"
    # 1 hour of predicted effort is 3,600 seconds in the round's settings
    box.set_value(1.0).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["evaluate"]["effort_budget"] == pytest.approx(3600.0)
    click(at, "Plan the round")
    from core.workspace import Workspace

    rnd = Workspace(str(fresh_workspace)).round(1)
    effort = state["data"].frame["predicted_effort"].to_numpy()
    assert (rnd["inclusion"] * effort).sum() == pytest.approx(3600.0, rel=1e-6)


def test_random_design_has_no_frontier_chart(run_page, fresh_workspace):
    at = run_page(PAGE, state=_judge_state(per_group=100))
    at.radio(key="_w_ev_design").set_value("random").run()
    at.number_input(key="_w_ev_labels").set_value(100).run()
    assert "Designs for this budget (expected)" not in _frontier_titles(at)
    # 100 labels over 400 rows at random: the plan says so
    assert any(m.value.startswith("**Humans will label about 100 of 400 samples (drawn at "
                                  "random") for m in at.markdown)
    click(at, "Plan the round")
    assert Workspace_round(fresh_workspace)["inclusion"].tolist() == [0.25] * 400


def Workspace_round(root):
    from core.workspace import Workspace

    return Workspace(str(root)).round(1)


def test_an_active_round_without_labels_waits_for_them(run_page, fresh_workspace):
    at = run_page(PAGE, state=_judge_state(per_group=100))
    at.radio(key="_w_ev_design").set_value("random").run()
    click(at, "Plan the round")
    assert any(i.value.startswith("No result yet: none of the") for i in at.info)
    assert not at.metric


def test_validity_panel_of_an_active_round_repeats_its_draws(run_page, fresh_workspace):
    """The panel repeats the active round (its stored inclusion probabilities), compares with
    PPI++ on as many random labels, and says so."""
    at = run_page(PAGE)
    at.radio(key="_w_ev_design").set_value("active").run()
    at.number_input(key="_w_ev_labels").set_value(400).run()
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    click(at, "Run the simulation")
    table = at.dataframe[-1].value
    assert list(table["quantity"]) == ["share of 0", "share of 1", "accuracy of final labels"]
    assert (table["coverage"] >= 0.9).all()
    assert table["plain_coverage"].iloc[:2].notna().all()
    assert any("inclusion probabilities" in c.value for c in at.caption)
    import json

    names = [t.get("name") for c in at.get("plotly_chart")
             for t in json.loads(c.proto.spec)["data"]]
    assert "PPI++ (the usual estimate) with as many random labels (for comparison)" in names


def test_a_round_is_planned_on_an_earlier_rounds_labels(run_page, fresh_workspace):
    from core.workspace import Workspace

    at = run_page(PAGE, state=_judge_state(per_group=100))
    at.radio(key="_w_ev_design").set_value("random").run()
    at.number_input(key="_w_ev_labels").set_value(100).run()
    assert "_ev_calibrate_on" not in [s.key for s in at.selectbox]  # nothing labelled yet
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    ws = Workspace(str(fresh_workspace))
    n1 = len(ws.round_labels(1))
    # the next plan rests on round #1's labels by default, and says so
    at.radio(key="_w_ev_design").set_value("active").run()
    box = at.selectbox(key="_ev_calibrate_on")
    assert box.value == 1 and box.label == "Plan on the labels of"
    assert any(c.value.startswith(f"Planned on the {n1:,} labels of round #1") for c in at.caption)
    assert any("recalibrated on the labels of round #1" in c.value for c in at.caption)
    click(at, "Plan the round")
    rnd = ws.round(2)
    assert rnd["settings"]["calibrate_on"] == 1
    assert set(ws.round_labels(2)) == set(ws.round_labels(1))  # carried, labelled already
    assert (rnd["inclusion"][sorted(ws.round_labels(1))] == 1).all()
    shown = [m.value for e in at.expander if e.label.startswith("The design of this round")
             for m in e.markdown]
    assert any(f"Planned on the {n1:,} labels of round 1" in v for v in shown), shown
    # choosing no earlier round plans on the confidences as reported
    at.selectbox(key="_ev_calibrate_on").select_index(0).run()
    assert not any(c.value.startswith("Planned on the") for c in at.caption)


def test_two_worse_groups_of_one_column_are_fixed_in_one_round(run_page, fresh_workspace):
    """issue 33: besides a fix per group, one click raises every worse group of the column at
    once, each to its least share."""
    import numpy as np

    from core.data import prepare
    from pages._common import fingerprint

    frame = judge_table()
    fr = (frame["language"] == "fr").to_numpy()
    wrong = fr & (np.random.default_rng(1).random(len(frame)) < 0.7)  # fr judged badly too
    frame.loc[wrong, "human_label"] = np.where(frame.loc[wrong, "machine_label"] == "yes",
                                               "no", "yes")
    data = prepare(frame, name="judge")
    at = run_page(PAGE, state={"data": data, "data_key": fingerprint(data.raw, data.roles),
                               "data_source": "test"})
    at.radio(key="_w_ev_design").set_value("active").run()
    at.number_input(key="_w_ev_labels").set_value(900).run()
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    # the warnings in the order of the fix widgets: _0 for the first, _1 for the second
    warned = [w.value.split(":")[0].split(" = ")[1] for w in at.warning
              if w.value.startswith("language = ")]
    assert sorted(warned) == ["fr", "ja"]
    at.number_input(key="_w_fix_share_1_0").set_value(40.0).run()
    at.number_input(key="_w_fix_share_1_1").set_value(30.0).run()
    together = [b.label for b in at.button if b.label.startswith("Plan a new round raising")]
    assert together == [f"Plan a new round raising every worse group of language at once "
                        f"({warned[0]} 40%, {warned[1]} 30%)"]
    click(at, together[0])
    assert not at.error, [e.value for e in at.error]
    from core.workspace import Workspace

    rnd = Workspace(str(fresh_workspace)).round(2)
    assert rnd["settings"]["stratify"] == "language"
    assert rnd["settings"]["min_share"] == {warned[0]: 0.4, warned[1]: 0.3}
    assert rnd["settings"]["labels"] == 900


def test_a_large_table_previews_the_design_in_chunked_passes(run_page, fresh_workspace,
                                                            monkeypatch):
    """issue 34: from LARGE_ROWS rows (lowered here) the active design's preview is solved by
    core.scale's chunked passes: the same sentence of expectations as the in-memory solve,
    and a caption saying how it was solved."""
    import pages._large as large

    def preview(at):
        at.radio(key="_w_ev_design").set_value("active").run()
        at.number_input(key="_w_ev_labels").set_value(400).run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        plan = [m.value for m in at.markdown if m.value.startswith("**Humans will label")]
        return plan, [c.value for c in at.caption]

    memory, captions = preview(run_page(PAGE))
    assert not any("chunked passes" in c for c in captions)
    import streamlit as st

    st.cache_data.clear()  # the in-memory preview is cached on the same data and settings
    monkeypatch.setattr(large, "LARGE_ROWS", 100)
    calls = []
    real = large.large_preview
    monkeypatch.setattr(large, "large_preview", lambda *a: calls.append(1) or real(*a))
    scaled, captions = preview(run_page(PAGE))
    assert calls and memory and scaled == memory
    assert any("chunked passes" in c for c in captions)
    st.cache_data.clear()  # the large path's preview is not left for the next test
