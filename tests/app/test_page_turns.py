"""Turns page."""

from __future__ import annotations

import pandas as pd

from core.data import prepare
from pages._common import fingerprint


def test_turns_page_renders_and_follows_lambda(run_page):
    at = run_page("6_Turns.py")
    assert not at.exception and not at.error
    t1 = at.dataframe[0].value
    assert {"turn", "n", "accuracy", "human_ratio", "time_cost"} <= set(t1.columns)
    at.session_state["lam"] = 40.0
    at.run()
    t2 = at.dataframe[0].value
    assert not t2["human_ratio"].equals(t1["human_ratio"])


def test_turns_page_without_turn_column(run_page):
    df = pd.DataFrame({"machine_label": [0, 1] * 5, "machine_confidence": [0.3, 0.8] * 5})
    at = run_page("6_Turns.py", state={"data": prepare(df), "data_key": fingerprint(df)})
    assert not at.exception
    assert at.error and "turn" in at.error[0].value
