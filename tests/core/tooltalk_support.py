"""Helpers shared by the tests of core.tooltalk (one copy, imported by each test file)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
import pytest
from core import tooltalk as tt


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


EMAIL = api("SendEmail", {"session_token": TOKEN, "to": ["a@x.org"], "subject": "S", "body": "B"}, {"email_id": "e"})


QUERY = api("QueryCalendar", {"session_token": TOKEN, "start_time": "2023-09-11 00:00:00",
                              "end_time": "2023-09-11 23:59:59"}, {"events": [{"event_id": "ev1"}]})


def as_pred(a, **changes):
    out = {**copy.deepcopy(a), "role": "api", "metadata": None}
    out.update(changes)
    return out


def _bytes(obj) -> bytes:
    return json.dumps(obj).encode()


DEMO_EXPECTED = {  # mode -> (predictions, matches, actions, bad_actions, success) with exact text similarity
    "exact": (2, 2, 1, 0, True),
    "missing_call": (1, 1, 0, 0, False),
    "duplicate_action": (3, 2, 2, 1, False),
    "wrong_argument": (2, 1, 1, 1, False),
    "failed_then_fixed": (3, 2, 2, 0, True),
    "search_missing_result": (2, 1, 1, 0, False),
    "reordered_recipients_and_same_day": (2, 2, 2, 0, True),
    "paraphrase": (2, 0, 2, 2, False),
    "extra_lookup": (3, 2, 0, 0, True),
    "no_predictions": (0, 0, 0, 0, False),
    "unknown_tool": (3, 2, 1, 0, True),
    "wrong_recipient": (1, 0, 1, 1, False),
}


README_ACTIONS = {"ChangePassword", "DeleteAccount", "LogoutUser", "RegisterUser", "ResetPassword",
                  "SendVerificationCode", "UpdateAccountInformation", "UserLogin", "AddAlarm", "DeleteAlarm",
                  "CreateEvent", "DeleteEvent", "ModifyEvent", "SendEmail", "SendMessage", "AddReminder",
                  "CompleteReminder", "DeleteReminder"}


@pytest.fixture(scope="module")
def shared_files(shared_data) -> list[Path]:
    root = shared_data / "tooltalk"
    files = sorted((root / "easy").glob("*.json")) + sorted((root / "tooltalk").glob("*.json"))
    assert len(files) == 78
    return files
