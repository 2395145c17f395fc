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


def test_turns_page_table_is_the_core_table(run_page):
    import numpy as np

    from core.sae import SAEInputs, n_from_share, solve
    from core.turns import per_turn_for

    at = run_page("6_Turns.py")
    data = at.session_state["data"]
    n = n_from_share(float(at.session_state["share"]), data.M)
    a = solve(SAEInputs.from_data(data), lam=float(at.session_state["lam"]), n_human=n,
              mode=at.session_state["mode"])
    want = per_turn_for(data, a.human, n_boot=1000, seed=0)
    got = at.dataframe[0].value
    assert list(got.columns) == list(want.columns)
    for col in want.columns:
        assert np.array_equal(got[col].to_numpy(), want[col].to_numpy()), col
    # back at a visited setting after another one: the same table (cached parts included)
    lam = at.session_state["lam"]
    at.session_state["lam"] = 40.0
    at.run()
    at.session_state["lam"] = lam
    at.run()
    assert at.dataframe[0].value.equals(got)
