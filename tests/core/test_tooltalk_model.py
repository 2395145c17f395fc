"""core.tooltalk.model, split from tests/core/test_tooltalk.py (tests named after the module they test)."""

from __future__ import annotations

import json
from core import tooltalk as tt
from core.demo import tooltalk as tt_demo
from tests.core.tooltalk_support import (  # noqa: F401  (pytest fixtures)
    README_ACTIONS,
    score,
    shared_files,
)


def test_action_and_non_action_tools_match_the_readme_table():
    assert len(tt.ACTION_TOOLS) == 18 and len(tt.NON_ACTION_TOOLS) == 10 and len(tt.ALL_TOOLS) == 28
    assert {"SendEmail", "SendMessage", "DeleteAlarm", "UserLogin", "LogoutUser"} <= tt.ACTION_TOOLS
    assert {"QueryUser", "GetReminders", "HistoricWeather", "GetAccountInformation"} <= tt.NON_ACTION_TOOLS
    assert not tt.is_action("BookFlight")  # unknown tools count as non-action


def test_wrong_argument_in_easy_action_conversations_is_an_incorrect_action(shared_files):
    """Change one exactly compared argument of every easy action conversation's call."""
    changed = 0
    for path in shared_files[:28]:
        obj = tt_demo.ground_truth_as_predictions(json.loads(path.read_text(encoding="utf-8")))
        p = next(p for t in obj["conversation"] for p in t.get("predictions", []) if p["role"] == "api")
        name = p["request"]["api_name"]
        if name not in README_ACTIONS or name in ("SendMessage",):
            continue
        params = p["request"]["parameters"]
        key = "to" if name == "SendEmail" else next(
            k for k in sorted(params) if k not in tt.TEXT_THRESHOLDS.get(name, {}) and k != "due_date")
        params[key] = ["nobody@example.org"] if key == "to" else f"{params[key]}-changed"
        s = score(obj)
        assert (s.matches, s.actions, s.bad_actions, s.bad_action_rate, s.success) == (0, 1, 1, 1.0, False), name
        changed += 1
    assert changed == 17  # 18 action tools, SendMessage excluded (its receiver is not checked)
