"""core.tooltalk.score, split from tests/core/test_tooltalk.py (tests named after the module they test)."""

from __future__ import annotations

import copy
import io
import json
import math
import zipfile
from pathlib import Path
import numpy as np
import pytest
from core import tooltalk as tt
from core.demo import tooltalk as tt_demo
from core.errors import DataError
from core.figures import tooltalk as ttfig


TOKEN = "tok-1"


class TableSimilarity:
    """Similarity from a table of (prediction, ground truth) pairs; 1 for equal texts, else 0.
    Records every call."""

    def __init__(self, table: dict[tuple[str, str], float] | None = None):
        self.table = dict(table or {})
        self.calls: list[tuple[str, str]] = []

    def __call__(self, a: str, b: str) -> float:
        self.calls.append((a, b))
        if (a, b) in self.table:
            return self.table[(a, b)]
        return 1.0 if a == b else 0.0


def call(name, params, response=None, exception=None, turn=0):
    return tt.ToolCall(api_name=name, parameters=params, response=response, exception=exception,
                       request={"api_name": name, "parameters": params}, turn=turn)


def api(name, params, response=None, exception=None):
    return {"request": {"api_name": name, "parameters": params}, "response": response, "exception": exception}


def conversation(*turns, name="c"):
    """turns: (ground-truth apis, predictions) per assistant turn."""
    out = []
    for k, (apis, preds) in enumerate(turns):
        out.append({"role": "user", "text": f"u{k}"})
        t = {"role": "assistant", "text": f"a{k}", "apis": apis}
        if preds is not None:
            t["predictions"] = preds + [{"role": "assistant", "text": f"a{k}"}]
        out.append(t)
    return {"name": name, "conversation": out}


def score(obj, sim=None, **kw):
    conv = tt.parse_conversation(obj, source="x.json")
    return tt.evaluate_conversation(conv, similarity=sim or TableSimilarity(), **kw)


ALARM_7 = api("AddAlarm", {"session_token": TOKEN, "time": "07:00:00"}, {"alarm_id": "a1"})


def as_pred(a, **changes):
    out = {**copy.deepcopy(a), "role": "api", "metadata": None}
    out.update(changes)
    return out


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
