"""core.workspace.active_rounds and the workspace round service with inclusion probabilities:
an active or random round is planned, stored, restored, labelled, estimated and re-planned."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import prepare
from core.errors import DataError
from core.evaluation.sampling.design import load_design
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.active_rounds import (budget_of, earlier_labels, earlier_rounds, fix_settings,
                                          group_table, suggested_share)
from core.workspace.tables import plan_frame, plan_inclusion
from tests.judge_table import BAD, judge_table


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "ws")


def test_plan_stores_the_inclusion_probabilities(ws):
    data = prepare(judge_table(per_group=100), name="judge")
    rid = R.plan_round(ws, data, kind="budget",
                       settings={"design": "active", "labels": 160, "seed": 1})
    rnd, design = R.round_design(ws, rid)
    pi = rnd["inclusion"]
    assert pi.shape == (400,) and design.inclusion is not None
    # the budget: 160 expected labels; pi in (0, 1]; routed exactly where pi = 1
    assert pi.sum() == pytest.approx(160, rel=1e-6)
    assert ((pi > 0) & (pi <= 1)).all()
    sel = rnd["selection"]
    assert ((sel == "routed") == (pi >= 1)).all() and (sel == "routed").any()
    assert set(sel) <= {"routed", "audit", "machine"}
    # the queue is every routed and audit row
    assert int(np.isfinite(rnd["queue_rank"]).sum()) == int((sel != "machine").sum())
    # the design is kept with the round: 160 expected labels, one recommended frontier row
    rec = ws.latest_result(rid, "design")
    assert rec["design"] == "active" and rec["expected_labels"] == pytest.approx(160, rel=1e-6)
    assert sum(r["recommended"] for r in rec["frontier"]) == 1
    assert {r["design"] for r in rec["frontier"]} == {"active", "routing", "random"}


def test_few_labels_store_plain_random_labelling_in_place_of_the_active_design(ws):
    """At 80 labels on 400 rows the active design is expected to be worth fewer labels than
    PPI++'s and random labelling is about as accurate: the round stores random labelling."""
    data = prepare(judge_table(per_group=100), name="judge")
    rid = R.plan_round(ws, data, kind="budget",
                       settings={"design": "active", "labels": 80, "seed": 1})
    assert np.allclose(ws.round(rid)["inclusion"], 80 / 400)
    rec = ws.latest_result(rid, "design")
    assert rec["design"] == "random" and rec["worth_vs_ppi"] >= 1 - 1e-9
    shown = [r for r in rec["frontier"] if r["recommended"]]
    assert [r["design"] for r in shown] == ["random"]
    assert [r["design"] for r in rec["frontier"] if r.get("displaced")] == ["active"]


def test_random_round_has_equal_probabilities(ws):
    data = prepare(judge_table(per_group=100), name="judge")
    rid = R.plan_round(ws, data, kind="budget",
                       settings={"design": "random", "labels": 100, "seed": 0})
    pi = ws.round(rid)["inclusion"]
    assert np.allclose(pi, 100 / 400)  # 100 labels over 400 rows
    assert ws.latest_result(rid, "design")["design"] == "random"


def test_effort_budget_in_the_efforts_unit(ws):
    df = judge_table(per_group=100)
    data = prepare(df, name="judge")
    total = df["predicted_effort_seconds"].sum()
    rid = R.plan_round(ws, data, kind="budget",
                       settings={"design": "active", "effort_budget": 0.25 * total})
    pi = ws.round(rid)["inclusion"]
    assert (pi * df["predicted_effort_seconds"].to_numpy()).sum() == pytest.approx(
        0.25 * total, rel=1e-6)


def test_everything_labelled_gives_the_exact_result(ws):
    """A budget of every row routes every row (pi = 1): the estimates are the gold's own
    shares, computed here by counting."""
    df = judge_table(per_group=50)
    data = prepare(df, name="judge")
    rid = R.plan_round(ws, data, kind="budget", settings={"design": "active", "labels": 200})
    R.simulate_annotators(ws, rid)
    s = R.round_summary(ws, rid, groups=["language"])
    est = s["estimate"]
    assert est["design"] == "active"
    yes = float((df["human_label"] == "yes").mean())
    assert est["class_shares"]["yes"]["estimate"] == pytest.approx(yes)
    assert est["accuracy"]["estimate"] == pytest.approx(1.0)
    for lang in ("de", "en", "fr", "ja"):
        assert s["group_accuracy"]["language"][lang]["estimate"] == pytest.approx(1.0)
    assert s["worse_groups"] == []
    # the final table carries the probabilities, so hmceval estimate reads the design back
    _, design = R.round_design(ws, rid)
    final = R.final_table(design)
    assert (final["inclusion_probability"] == 1.0).all()
    assert (final["final_label"] == df["human_label"]).all()
    back = load_design(final.drop(columns=["human_label"]).rename(
        columns={"human_label_returned": "human_label"}))
    assert back.inclusion is not None and (back.inclusion == 1.0).all()


def test_bad_group_is_named_with_its_cause_and_the_fix_raises_its_share(ws):
    df = judge_table(seed=0)
    data = prepare(df, name="judge")
    settings = {"design": "active", "labels": 400, "seed": 0}
    rid = R.plan_round(ws, data, kind="budget", settings=settings)
    R.simulate_annotators(ws, rid)
    s = R.round_summary(ws, rid, groups=["language"])
    assert [w["group"] for w in s["worse_groups"]] == [BAD]
    w = s["worse_groups"][0]
    assert len(s["group_notes"]) == 1 and s["group_notes"][0].startswith("language = ja:")
    assert "the machine is right on" in s["group_notes"][0]
    # the machine's accuracy on ja, from its labelled rows weighted by 1 / pi (counted here)
    _, design = R.round_design(ws, rid)
    lab = design.has_label & (df["language"] == BAD).to_numpy()
    right = design.human_label[lab] == design.machine_label[lab]
    weight = 1 / design.inclusion[lab]
    assert w["machine_accuracy"] == pytest.approx((weight * right).sum() / weight.sum())
    assert w["machine_accuracy"] < 0.6 < w["rest_machine_accuracy"]
    # the table: the true final-label accuracy of each group (from the gold) in its interval
    table = group_table(s["group_accuracy"], s["worse_groups"])
    final = R.final_table(design)
    truth = (final["final_label"] == df["human_label"]).groupby(df["language"]).mean()
    for row in table.itertuples():
        assert row.ci_low <= truth[row.group] <= row.ci_high, row
    assert table.set_index("group")["worse"].to_dict() == {"de": False, "en": False,
                                                           "fr": False, "ja": True}
    # the fix: a new round stratified by language with a least share for ja
    share = suggested_share(w)
    fix = fix_settings(settings, w, 0.5)
    assert fix == {"design": "active", "labels": 400.0, "seed": 0, "lam": 0.0,
                   "stratify": "language", "min_share": {"ja": 0.5}}
    rid2 = R.plan_round(ws, data, kind="budget", settings=fix)
    pi = ws.round(rid2)["inclusion"]
    ja = (df["language"] == BAD).to_numpy()
    assert pi[ja].mean() == pytest.approx(0.5, rel=1e-6)  # 250 of 500 expected
    assert pi[~ja].sum() == pytest.approx(150, rel=1e-6)  # the other 150 labels
    strata = ws.latest_result(rid2, "design")["strata"]
    assert [r["group"] for r in strata] == ["de", "en", "fr", "ja"]
    assert 0 < share <= 1


def test_suggested_share_by_hand():
    # (0.96 - 0.58) / (1 - 0.58) = 0.38 / 0.42 = 0.904762
    assert suggested_share({"rest_accuracy": 0.96, "machine_accuracy": 0.58,
                            "human_share": 0.3}) == 0.9048
    # never below the share it has
    assert suggested_share({"rest_accuracy": 0.9, "machine_accuracy": 0.8,
                            "human_share": 0.7}) == 0.7
    # no machine accuracy: twice its share
    assert suggested_share({"rest_accuracy": 0.9, "machine_accuracy": None,
                            "human_share": 0.2}) == 0.4


def test_group_table_worth_random_by_hand():
    # M = 100, accuracy 0.8, interval [0.7, 0.9]: 1.96^2 * 0.16 (1/n - 1/100) <= 0.1^2
    # -> 1/n <= 0.01 + 0.01 / 0.614633 = 0.0262699 -> n >= 38.07 -> 39
    by = {"g": {"a": {"M": 100, "estimate": 0.8, "ci_low": 0.7, "ci_high": 0.9,
                      "conservative": False, "machine_accuracy": 0.7, "human_share": 0.2,
                      "effort": 3.0}}}
    table = group_table(by, [])
    assert table.loc[0, "worth_random"] == 39
    assert not table.loc[0, "worse"]


def test_budget_fields_are_named():
    with pytest.raises(DataError, match="'labels' .* or 'effort_budget'"):
        budget_of({"design": "active"})
    with pytest.raises(DataError, match="'labels' \\(the budget\\) must be a number > 0"):
        budget_of({"labels": -3})
    with pytest.raises(DataError, match="'effort_budget' \\(the budget\\) must be a number"):
        budget_of({"effort_budget": "lots"})


def test_routing_and_older_plans_have_no_probabilities(ws):
    data = prepare(judge_table(per_group=50), name="judge")
    rid = R.plan_round(ws, data, kind="budget",
                       settings={"lam": 0.0, "share": 0.2, "audit": 20, "seed": 0})
    assert ws.round(rid)["inclusion"] is None
    assert R.round_design(ws, rid)[1].inclusion is None
    assert ws.latest_result(rid, "design") is None
    # a plan file written before inclusion probabilities existed reads as None
    old = plan_frame(np.array(["routed", "machine"], dtype=object), np.array([1.0, np.nan]))
    assert list(old.columns) == ["selection", "queue_rank"] and plan_inclusion(old) is None
    with pytest.raises(DataError, match="2 rows but 3 inclusion"):
        plan_frame(np.array(["a", "b"], dtype=object), np.ones(2), np.ones(3))


def test_labels_outside_an_active_queue_are_refused(ws):
    data = prepare(judge_table(per_group=50), name="judge")
    rid = R.plan_round(ws, data, kind="budget", settings={"design": "active", "labels": 30})
    sel = ws.round(rid)["selection"]
    machine_row = int(np.flatnonzero(sel == "machine")[0])
    with pytest.raises(DataError):
        R.import_labels(ws, rid, np.array([machine_row]), ["yes"], source="csv")
    queued = np.flatnonzero(sel != "machine")[:3]
    R.import_labels(ws, rid, queued, ["yes"] * 3, source="csv")
    assert R.progress(*R.round_design(ws, rid))["labelled"] == 3


def test_report_shows_the_design_the_groups_and_the_warning(ws):
    import re

    from core.workspace.report import round_report_html, round_scenario

    df = judge_table(seed=0)
    data = prepare(df, name="judge")
    rid = R.plan_round(ws, data, kind="budget",
                       settings={"design": "active", "labels": 400, "seed": 0})
    R.simulate_annotators(ws, rid)
    page = round_report_html(ws, rid)
    text = re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", re.sub("<script.*?</script>", "", page,
                                                             flags=re.S)))
    assert "Active design: every response had a known probability" in text
    assert "a budget of 400 expected labels" in text
    # the plan's promise, in the report as on the page: whether both targets are reachable
    frontier = pd.DataFrame(ws.latest_result(rid, "design")["frontier"])
    active = frontier[frontier["design"] == "active"]
    said = "no design is expected both to keep the final labels" in text
    assert said == (not active["meets_targets"].astype(bool).any())
    assert "Accuracy of the final labels by group" in text
    # one row per language, each with its interval; ja flagged and named in one warning
    s = R.round_summary(ws, rid)
    for lang, r in s["group_accuracy"]["language"].items():
        low, high = f"{r['ci_low'] * 100:.1f}%", f"{r['ci_high'] * 100:.1f}%"
        assert f"language = {lang} 500 {r['estimate'] * 100:.1f}% {low} – {high}" in text
    assert page.count("class='warning'>language = ja: final labels") == 1
    assert "language = de: final labels" not in page
    # figures: progress, one forest per class, the groups, the frontier
    assert page.count("Plotly.newPlot") == 5
    # the settings to reproduce plan the same design again
    again = round_scenario(ws, rid)["settings"]["evaluate"]
    assert {k: again[k] for k in ("design", "labels", "budget_in", "seed")} == {
        "design": "active", "labels": 400, "budget_in": "labels", "seed": 0}


def test_a_round_planned_on_an_earlier_rounds_labels(ws):
    df = judge_table(seed=1)
    data = prepare(df, name="judge")
    assert earlier_rounds(ws, data) == []
    pilot = R.plan_round(ws, data, kind="budget",
                         settings={"design": "random", "labels": 120, "seed": 0})
    R.simulate_annotators(ws, pilot)
    _, d1 = R.round_design(ws, pilot)
    rows1 = np.flatnonzero(d1.has_label & (d1.selection == "audit"))
    assert earlier_rounds(ws, data) == [{"id": pilot, "labels": len(rows1)}]
    # drawn with known probabilities and labelled in full: its p1 goes with its labels, so the
    # round on it is planned for the two-stage interval
    assert np.allclose(earlier_labels(ws, data, pilot).inclusion, d1.inclusion)
    main = R.plan_round(ws, data, kind="budget", settings={
        "design": "active", "labels": 300, "seed": 1, "calibrate_on": pilot})
    rnd, d2 = R.round_design(ws, main)
    # the pilot's labelled rows are carried: labelled, for sure, with the same labels
    assert (d2.selection[rows1] == "routed").all() and (d2.inclusion[rows1] == 1).all()
    assert list(d2.human_label[rows1]) == list(d1.human_label[rows1])
    assert np.isnan(rnd["queue_rank"][rows1]).all()
    free = np.setdiff1d(np.arange(data.M), rows1)
    assert d2.inclusion[free].sum() == pytest.approx(300, rel=1e-6)
    record = ws.latest_result(main, "design")
    assert record["calibrated_on"] == {"source": f"round {pilot}", "labels": len(rows1)}
    assert record["expected_labels"] == pytest.approx(300, rel=1e-6)
    # planned for what the two-stage estimate is expected to report: the estimator's model on
    # the recalibrated probabilities, the pilot's own half-width combined in; the frontier
    # (what meets_targets and targets_note read) says the same of the recommended design
    from core.evaluation.estimate import estimator_half_width, pilot_half_width
    from core.evaluation.sampling import calibrated_probabilities

    e = earlier_labels(ws, data, pilot)
    classes = list(d2.data.labels)
    codes = np.array([classes.index(v) for v in d2.machine_label])
    q = d2.inputs().a
    human = np.array([classes.index(v) for v in e.labels])
    half1 = pilot_half_width(codes, q, len(classes), rows=np.asarray(e.rows), human_codes=human,
                             pilot_pi=np.asarray(e.inclusion))
    probs = calibrated_probabilities(codes, q, len(classes), rows=np.asarray(e.rows),
                                     human_codes=human, weights=e.weights)
    h = estimator_half_width(probs, codes, q, d2.inclusion, pilot_half=half1)
    assert record["expected_half_width"] == pytest.approx(h, rel=1e-9)
    rec = [r for r in record["frontier"] if r["recommended"]][0]
    assert rec["expected_half_width"] == pytest.approx(h, rel=1e-9)
    assert rec["meets_targets"] == record["meets_targets"]
    # labelled and estimated as any round: the carried rows count among the labelled ones
    R.simulate_annotators(ws, main)
    from core.workspace.report import round_report_html

    assert f"planned on the {len(rows1):,} labels of round {pilot}" in round_report_html(ws, main)
    est = R.round_summary(ws, main)["estimate"]
    assert est["n_labelled"] >= len(rows1) + (d2.selection[free] != "machine").sum()
    # the earlier round was drawn with known probabilities and labelled in full: the estimate
    # uses it as a sample of the table too (two stages), the pilot's rows and p1 as planned
    _, d2 = R.round_design(ws, main)
    assert np.array_equal(np.flatnonzero(d2.pilot_rows), rows1)
    assert np.allclose(d2.pilot_inclusion, d1.inclusion)
    assert est["method"] == "two-stage"
    # what is refused, with the reason
    with pytest.raises(DataError, match="no round with id 99"):
        R.plan_round(ws, data, kind="budget",
                     settings={"design": "active", "labels": 50, "calibrate_on": 99})
    other = prepare(judge_table(seed=2), name="other")
    with pytest.raises(DataError, match="planned on another dataset"):
        R.plan_round(ws, other, kind="budget",
                     settings={"design": "active", "labels": 50, "calibrate_on": pilot})
    with pytest.raises(DataError, match="not planned on an earlier round's labels yet"):
        R.plan_round(ws, data, kind="budget", settings={
            "design": "active", "labels": 50, "calibrate_on": pilot, "stratify": "language"})


def test_fix_settings_raise_several_groups_of_one_column_at_once():
    """issue 33: the page said 'Not built yet: a fix that re-optimises every group at once'.
    Several worse groups of one column are raised in one round, each to its own least share;
    groups of two columns cannot share one stratification and are refused."""
    active = {"design": "active", "labels": 400, "seed": 3, "lam": 0.0}
    ja = {"column": "language", "group": "ja"}
    ko = {"column": "language", "group": "ko"}
    fix = fix_settings(active, [ja, ko], [0.5, 0.25])
    assert fix == {"design": "active", "labels": 400.0, "seed": 3, "lam": 0.0,
                   "stratify": "language", "min_share": {"ja": 0.5, "ko": 0.25}}
    # a routing round: its labelled rows become the labels budget
    routing = {"design": "routing", "share": 0.2, "lam": 4.6, "audit": 50}
    assert fix_settings(routing, [ja, ko], [0.5, 0.25], n_rows=120)["labels"] == 120.0
    with pytest.raises(DataError, match="stratified by one column"):
        fix_settings(active, [ja, {"column": "topic", "group": "law"}], [0.5, 0.5])
    with pytest.raises(DataError, match="one least share for each"):
        fix_settings(active, [ja, ko], [0.5])
    with pytest.raises(DataError, match=r"\[0, 1\]"):
        fix_settings(active, [ja, ko], [0.5, 1.5])


def test_fix_shortfall_says_before_the_click_that_the_budget_is_too_small():
    """issue 33: the page suggested 82 % of ja's 500 rows with a 400-label round; the click
    then failed ('need a budget of 615.8'). Counted by hand: 0.82 x 500 = 410 > 400."""
    from core.workspace.active_rounds import fix_shortfall

    active = {"design": "active", "labels": 400, "seed": 0}
    said = fix_shortfall(active, {"ja": 500}, {"ja": 0.82})
    assert said == ("At least 82% of ja (410 of its 500 rows) needs more labels than the new "
                    "round's budget of 400: it would be refused. Lower the share, or plan a "
                    "round with a larger budget above.")
    assert fix_shortfall(active, {"ja": 500}, {"ja": 0.8}) is None  # 400 labels: enough
    # two groups add up: 0.5 x 500 + 0.4 x 400 = 410 > 400
    assert fix_shortfall(active, {"ja": 500, "fr": 400}, {"ja": 0.5, "fr": 0.4}) is not None
    # a routing round's budget is the rows it labelled
    routing = {"design": "routing", "share": 0.2, "lam": 4.6, "audit": 50}
    assert fix_shortfall(routing, {"ja": 500}, {"ja": 0.82}, n_rows=450) is None
    assert fix_shortfall(routing, {"ja": 500}, {"ja": 0.82}, n_rows=300).endswith("above.")
    # a budget in effort is not compared with labels
    assert fix_shortfall({"design": "active", "effort_budget": 10.0}, {"ja": 500},
                         {"ja": 0.82}) is None


def test_a_pilot_labelled_in_part_is_not_used_as_a_sample(ws):
    # the labelled part of a pilot is not a draw with known probabilities (who labelled first
    # is not random to the design): the round on it is estimated as written (pi = 1 carried)
    data = prepare(judge_table(seed=2), name="judge")
    pilot = R.plan_round(ws, data, kind="budget",
                         settings={"design": "random", "labels": 160, "seed": 0})
    R.simulate_annotators(ws, pilot, fraction=0.6)
    assert earlier_labels(ws, data, pilot).inclusion is None
    main = R.plan_round(ws, data, kind="budget", settings={
        "design": "active", "labels": 300, "seed": 1, "calibrate_on": pilot})
    _, d2 = R.round_design(ws, main)
    assert d2.pilot_rows is None and d2.pilot_inclusion is None
    R.simulate_annotators(ws, main)
    assert R.round_summary(ws, main)["estimate"]["method"] != "two-stage"
