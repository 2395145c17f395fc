"""core.tooltalk.score, split from tests/core/test_tooltalk.py (tests named after the module they test)."""

from __future__ import annotations

import pytest
from core import tooltalk as tt
from core.errors import DataError
from tests.core.tooltalk_support import (
    ALARM_7,
    as_pred,
    call,
    conversation,
    score,
    TableSimilarity,
    TOKEN,
)


def test_no_ground_truth_is_a_data_error():
    with pytest.raises(DataError, match="no ground-truth tool calls"):
        score(conversation(([], [as_pred(ALARM_7)])))
    with pytest.raises(DataError, match="recall is undefined"):
        tt.tooltalk_metrics([], [])


def test_tooltalk_metrics_on_tool_calls():
    gt = [call("AddAlarm", {"session_token": TOKEN, "time": "07:00:00"}, {"alarm_id": "x"})]
    m = tt.tooltalk_metrics(gt, [call("AddAlarm", {"session_token": TOKEN, "time": "07:00:00"}, {"alarm_id": "y"})],
                            similarity=TableSimilarity())
    assert m["matches"] == 1 and m["success"] is True and list(m) == list(tt.METRIC_KEYS)
