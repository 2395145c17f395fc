"""Dataset metrics pooled over ToolTalk conversations and the JSON report
(``core.tooltalk.aggregate``): counts summed and rates recomputed from the sums, as ToolTalk's
evaluation script does, worked out by hand; the report's layout."""

from __future__ import annotations

import math

import pytest

from core import tooltalk as tt
from core.tooltalk.aggregate import aggregate_scores, tooltalk_report
from tests.core.tooltalk_support import ALARM_7, EMAIL, QUERY, as_pred, conversation, score


def test_aggregate_pools_counts_instead_of_averaging():
    a = score(conversation(([ALARM_7, QUERY], [as_pred(ALARM_7), as_pred(QUERY)])))
    b = score(conversation(([EMAIL], [])))
    agg = aggregate_scores([a, b])
    assert agg["num_conversations"] == 2
    assert (agg["predictions"], agg["ground_truths"], agg["matches"], agg["actions"]) == (2, 3, 2, 1)
    # pooled precision 2/2 = 1, whereas the mean of per-conversation precisions would be 0.5
    assert agg["precision"] == 1.0 and agg["recall"] == pytest.approx(2 / 3)
    assert agg["action_precision"] == 1.0 and agg["bad_action_rate"] == 0.0
    assert agg["successes"] == 1 and agg["success_rate"] == 0.5 and agg["soft_success_rate"] == 0.5
    empty = aggregate_scores([])
    assert empty["num_conversations"] == 0 and math.isnan(empty["success_rate"])


def test_report_layout():
    s = score(conversation(([ALARM_7], [as_pred(ALARM_7)]), name="ok"))
    rep = tooltalk_report([s])
    assert list(rep) == ["conversations", "aggregate"]
    assert list(rep["conversations"][0]) == ["conversation", "source", *tt.METRIC_KEYS]
    assert rep["aggregate"]["success_rate"] == 1.0


def test_a_conversation_with_an_incorrect_action_pools_its_bad_actions():
    # conversation 1: one ground truth (ALARM_7), predicted EMAIL (an action that is wrong) and
    # ALARM_7; conversation 2: QUERY to call, nothing called
    a = score(conversation(([ALARM_7], [as_pred(EMAIL), as_pred(ALARM_7)])))
    b = score(conversation(([QUERY], [])))
    agg = aggregate_scores([a, b])
    assert (agg["predictions"], agg["ground_truths"], agg["matches"]) == (2, 2, 1)
    assert agg["actions"] == 2 and agg["bad_actions"] == 1
    # precision 1/2, recall 1/2, bad action rate 1/2 from the sums; neither conversation
    # succeeds (a bad action in the first, a missed call in the second)
    assert agg["precision"] == 0.5 and agg["recall"] == 0.5
    assert agg["bad_action_rate"] == 0.5 and agg["successes"] == 0
    assert agg["num_conversations"] == 2
    # the soft success is the mean of the per-conversation ones
    assert agg["soft_success_rate"] == pytest.approx((a.soft_success + b.soft_success) / 2)


def test_no_conversation_gives_nan_rates_not_an_error():
    agg = aggregate_scores([])
    assert agg["successes"] == 0 and math.isnan(agg["soft_success_rate"])
    assert math.isnan(agg["recall"])  # no ground truth
    assert tooltalk_report([])["conversations"] == []
    assert tt.METRIC_KEYS[:6] == ("predictions", "ground_truths", "matches", "actions",
                                  "valid_actions", "bad_actions")
