"""A stream round in the report and in a scenario (``core.workspace.stream_report``): the
Evaluate page's settings rebuilt from a stored stream's (a strict < or > read as <= / >=),
the plan in words, and the result section's HTML on a stored stream with labels (every class
share and the accuracy in its table, escaped text, no chart before the first label)."""

from __future__ import annotations

import numpy as np
import pytest

from core.data import prepare
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.stream_report import (stream_plan_words, stream_result, stream_result_html,
                                          stream_scenario)
from core.workspace.stream_rounds import plan_stream_round, stream_of
from tests.judge_table import judge_table


def test_stream_scenario_by_hand():
    assert stream_scenario({"labels": "300"}) == {
        "kind": "stream", "stream_labels": 300, "stream_design": "weighted", "seed": 0,
        "stream_use_target": False, "stream_question": "none"}
    got = stream_scenario({"labels": 200, "stream_design": "uniform", "seed": 4,
                           "target_half_width": 0.02, "decide": "share(unsafe) < 0.1"})
    assert got == {"kind": "stream", "stream_labels": 200, "stream_design": "uniform", "seed": 4,
                   "stream_use_target": True, "stream_question": "share", "stream_op": "<=",
                   "stream_threshold": 0.1, "stream_class": "unsafe", "stream_target": 0.02}
    acc = stream_scenario({"labels": 50, "decide": "accuracy > 0.9"})
    assert (acc["stream_question"], acc["stream_op"], acc["stream_threshold"]) == ("accuracy", ">=", 0.9)
    assert "stream_class" not in acc


def test_stream_plan_words():
    words = stream_plan_words({"labels": 1200, "target_half_width": 0.02,
                               "decide": "accuracy >= 0.9"}, 5673)
    assert words.startswith("Labelling stream: humans label a queue of up to 1,200 of the 5,673 "
                            "responses from its top, in order, drawn at random (weighted towards "
                            "the responses the machine was unsure of) with known chances, and "
                            "stop when every class share is within ± 2.0% or when the question "
                            "is decided (are the final labels at least 90.0% accurate?). ")
    plain = stream_plan_words({"labels": 10, "stream_design": "uniform"}, 20)
    assert "(uniform)" in plain and "stop when the intervals are narrow enough." in plain


@pytest.fixture
def stored(tmp_path):
    ws = Workspace(tmp_path / "ws")
    data = prepare(judge_table(per_group=60), name="judge")
    rid = plan_stream_round(ws, data, {"labels": 40, "seed": 2, "target_half_width": 0.3})
    return ws, data, rid


def test_the_result_before_any_label_has_no_chart(stored):
    ws, _, rid = stored
    res, verdict, target = stream_result(ws, rid)
    assert res["labels"] == 0 and target == 0.3
    html, chart = stream_result_html(res, verdict, target, lambda fig: "CHART")
    assert chart is None and html.startswith("<h2>The result</h2>")


def test_the_result_with_labels_lists_every_share_and_the_accuracy(stored):
    ws, data, rid = stored
    order = stream_of(ws, rid).order
    gold = data.frame["human_label"].to_numpy(object)
    R.import_labels(ws, rid, order[:25], list(gold[order[:25]]), source="test")
    res, verdict, target = stream_result(ws, rid)
    assert res["labels"] == 25
    html, chart = stream_result_html(res, verdict, target, lambda fig: "CHART")
    assert chart == "CHART"
    assert "after 25 labels" in html and "accuracy of the final labels" in html
    for c in res["class_shares"]:
        assert f"share of {c}" in html
    assert html.count("<tr>") >= len(res["class_shares"]) + 2
    # the sentence is escaped into the page
    fake = {**verdict, "sentence": "<script>x</script>"}
    assert "&lt;script&gt;" in stream_result_html(res, fake, target, lambda f: "")[0]
    assert np.isfinite(res["accuracy"]["estimate"])
