"""core.scenario: the frozen Scenario, its one exact key, settings both ways, the services; the
dataset's content id (core.data.content)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from core import defaults
from core.assignment import (SAEInputs, assignment_json, constraints_from_settings, lambda_range,
                             per_turn_from, solve, sweep, turn_base_for)
from core.data import prepare
from core.demo import make_demo
from core.errors import DataError
from core.rsm import assignment_by_group
from core.scenario import (Scenario, assignment, assignment_report, constraints_of, data_key,
                           default_settings, fairness_by_group, lambda_range_of, scenario_for,
                           settings_of, sweep_of, turns_of)


@pytest.fixture(scope="module")
def demo():
    return prepare(make_demo(), name="Built-in demo")


def test_defaults_come_from_core_defaults():
    s = default_settings()
    assert s == {"lam": defaults.LAMBDA, "share": defaults.HUMAN_SHARE, "mode": defaults.MODE,
                 "constraints": {"effort_budget_share": None, "group_column": None,
                                 "group_bounds": {}}}
    s["constraints"]["group_bounds"]["x"] = [0, 1]
    assert default_settings()["constraints"]["group_bounds"] == {}  # a new copy each time


def test_key_is_exact_and_never_a_label(demo):
    a = scenario_for(demo, {"lam": 62.581038})
    b = scenario_for(demo, {"lam": 62.581039})
    assert f"{a.lam:g}" == f"{b.lam:g}" == "62.581"
    assert a.key != b.key
    assert scenario_for(demo, {"lam": 62.581038}).key == a.key  # stable
    assert scenario_for(demo, {"lam": 0.1 + 0.2}).key != scenario_for(demo, {"lam": 0.3}).key
    # every field enters the key
    for field, value in (("share", 0.25), ("n_human", 3), ("mode", "exactly"),
                         ("effort_budget_share", 0.5), ("group_column", "system"),
                         ("group_bounds", (("a", 0.1, None),)), ("round", "{}"),
                         ("dataset", "x" * 64), ("roles", "{}")):
        assert dataclasses.replace(a, **{field: value}).key != a.key, field
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.lam = 1.0


def test_settings_round_trip_and_n(demo):
    settings = {"lam": 7.25, "share": 0.3, "mode": "exactly",
                "constraints": {"effort_budget_share": 0.8, "group_column": "system",
                                "group_bounds": {"blender": [0.1, None]}}}
    sc = scenario_for(demo, settings)
    assert sc.n_human == int(0.3 * demo.M) == 1067  # 0.3 x 3,557 = 1,067.1
    assert settings_of(sc) == settings
    assert scenario_for(demo, settings_of(sc)) == sc
    assert sc.with_round({"audit": 200}).key != sc.key
    assert sc.with_round(None) == sc
    assert sc.data_key == data_key(demo.content_id, demo.roles)


def test_refused_settings_name_the_setting(demo):
    with pytest.raises(DataError, match="lambda must be a finite number >= 0"):
        scenario_for(demo, {"lam": -1})
    with pytest.raises(DataError, match="mode must be"):
        scenario_for(demo, {"mode": "most"})
    with pytest.raises(DataError, match=r"human share must be in \[0, 1\]"):
        scenario_for(demo, {"share": 1.5})
    with pytest.raises(DataError, match="must be numbers"):
        scenario_for(demo, {"lam": "a lot"})


def test_services_call_the_core_functions(demo):
    inp = SAEInputs.from_data(demo)
    settings = {"lam": 5.0, "share": 0.4,
                "constraints": {"effort_budget_share": None, "group_column": "system",
                                "group_bounds": {"blender": [0.3, None]}}}
    sc = scenario_for(demo, settings)
    cons = constraints_of(demo, sc)
    same = constraints_from_settings(demo, group_column="system",
                                     group_bounds={"blender": [0.3, None]})
    assert cons.group_bounds == same.group_bounds
    got = assignment(inp, sc, cons)
    want = solve(inp, lam=5.0, n_human=int(0.4 * demo.M), mode="at_most", constraints=same)
    assert np.array_equal(got.human, want.human)
    assert lambda_range_of(inp, sc) == lambda_range(inp, n_human=sc.n_human, mode="at_most")
    assert assignment_report(demo, inp, got) == assignment_json(demo, inp, got)
    pd.testing.assert_frame_equal(sweep_of(inp, sc, shares=[0.1, 0.2]),
                                  sweep(inp, lams=[5.0], shares=[0.1, 0.2]))
    f = demo.frame
    pd.testing.assert_frame_equal(
        fairness_by_group(demo, got.human, "system"),
        assignment_by_group(got.human, f["system"].to_numpy(),
                            machine_label=f["machine_label"].to_numpy(),
                            human_label=f["human_label"].to_numpy(),
                            human_effort=f["human_effort"].to_numpy()))
    base = turn_base_for(demo, n_boot=0, seed=0)
    pd.testing.assert_frame_equal(turns_of(base, got.human), per_turn_from(base, got.human))
    assert isinstance(sc, Scenario)


def test_a_dataset_has_its_content_id_once(demo, monkeypatch):
    import core.data.contract as contract

    data = prepare(make_demo(), name="demo")
    calls = []
    monkeypatch.setattr(contract, "content_id", lambda raw: calls.append(1) or "id")
    assert data.content_id == data.content_id == "id" and calls == [1]


def test_settings_differences_compare_exactly():
    from core.scenario import settings_differences

    used = {"lam": 62.581038, "share": 0.5, "mode": "at_most", "audit": 200, "seed": 0}
    now = {"lam": 62.581039, "share": 0.5, "mode": "exactly",
           "constraints": {"effort_budget_share": None}}
    assert settings_differences(used, now) == [("lam", 62.581038, 62.581039),
                                               ("mode", "at_most", "exactly")]
    assert settings_differences({"lam": 1, "share": 0.5}, {"lam": 1.0, "share": 0.5}) == []
    assert settings_differences({"alpha": 0.05}, now) == []  # a guarantee round: no N, no λ
