"""core.tooltalk.tables, split from tests/core/test_tooltalk.py (tests named after the module they test)."""

from __future__ import annotations

import math
from core import tooltalk as tt
from core.figures import tooltalk as ttfig
from tests.core.tooltalk_support import (
    ALARM_7,
    as_pred,
    conversation,
    EMAIL,
    QUERY,
    score,
)


def test_incorrect_action_versus_non_action_mismatch():
    wrong_email = as_pred(EMAIL)
    wrong_email["request"]["parameters"]["to"] = ["z@x.org"]
    narrow_query = as_pred(QUERY, response={"events": []})
    s = score(conversation(([EMAIL, QUERY], [narrow_query, wrong_email])))
    # both unmatched; only the action counts as incorrect
    assert (s.matches, s.actions, s.valid_actions, s.bad_actions) == (0, 1, 0, 1)
    assert [o.bad_action for o in s.outcomes] == [False, True]
    assert (s.action_precision, s.bad_action_rate, s.recall, s.success) == (0.0, 1.0, 0.0, False)
    table = tt.incorrect_actions([s])
    assert list(table["tool"]) == ["SendEmail"] and "recipients differ" in table["reason"][0]


def test_breakdowns_per_tool_and_action_kind():
    failed = as_pred(EMAIL, response=None, exception="Invalid session_token.")
    alarm8 = as_pred(ALARM_7)
    alarm8["request"]["parameters"]["time"] = "08:00:00"
    s = score(conversation(([ALARM_7, EMAIL, QUERY], [failed, as_pred(EMAIL), alarm8, as_pred(QUERY)])))
    tools = tt.tool_breakdown([s]).set_index("tool")
    assert list(tools.index) == ["AddAlarm", "QueryCalendar", "SendEmail"]
    assert tools.loc["AddAlarm", ["ground_truths", "matched_ground_truths", "predictions", "bad_actions"]].tolist() \
        == [1, 0, 1, 1]
    email_counts = ["predictions", "matched_predictions", "failed_predictions", "bad_actions"]
    assert tools.loc["SendEmail", email_counts].tolist() == [2, 1, 1, 0]
    assert tools.loc["SendEmail", "precision"] == 0.5 and bool(tools.loc["QueryCalendar", "is_action"]) is False
    kinds = tt.action_breakdown([s]).set_index("kind")
    assert kinds.loc["action", ["ground_truths", "matched_ground_truths", "predictions", "bad_actions"]].tolist() \
        == [2, 1, 3, 1]
    assert kinds.loc["non-action", "recall"] == 1.0
    only_alarm = score(conversation(([ALARM_7], [as_pred(ALARM_7)])))
    kinds = tt.action_breakdown([only_alarm]).set_index("kind")
    assert kinds.loc["non-action", "ground_truths"] == 0 and math.isnan(kinds.loc["non-action", "recall"])


def test_figures_build_from_the_tables():
    s = score(conversation(([ALARM_7, EMAIL], [as_pred(ALARM_7)])))
    fig = ttfig.conversation_figure(tt.conversation_table([s]))
    assert [t.name for t in fig.data] == ["precision", "recall", "soft success"]
    assert list(fig.data[1].x) == [0.5]
    fig = ttfig.tool_figure(tt.tool_breakdown([s]))
    assert list(fig.data[1].y) == [0, 1]  # missed: AddAlarm 0, SendEmail 1
    fig = ttfig.action_figure(tt.action_breakdown([s]))
    assert list(fig.data[0].x) == ["action", "non-action"]
