"""core.assignment.goals: the cheapest setting for a goal, against hand-worked values and a
brute-force sweep of solve_fast over a fine grid of lambda and every N (issue 25)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.assignment import (GOAL_KEYS, SAEInputs, evaluate, goal_grid, goal_setting, recommend,
                             solve_fast)
from core.data import prepare
from core.errors import DataError


def four(l1: float = 45.0) -> pd.DataFrame:
    """Four samples, machine confidences 0.9, 0.6, 0.5, 0.8 (mean 0.7), human confidence 1,
    review times 10, 45, 20 and 100 seconds (175 in all)."""
    return pd.DataFrame({"machine_label": ["x", "y", "x", "y"], "machine_confidence": [0.9, 0.6, 0.5, 0.8],
                         "review_seconds": [10.0, l1, 20.0, 100.0]})


ROLES = {"machine_label": "machine_label", "machine_confidence": "machine_confidence",
         "predicted_effort": "review_seconds", "human_label": None, "human_effort": None}


def test_cheapest_for_a_target_expected_accuracy_by_hand():
    data = prepare(four(), ROLES)
    # 0.8 needs confidence gains >= 4 * 0.8 - 2.8 = 0.4: sample 2 alone (gain 0.5, 20 s) is the
    # cheapest ({1}: 0.4 for 45 s); expected accuracy (2.8 + 0.5) / 4 = 0.825
    r = goal_setting(data, target_accuracy=0.8)
    assert r.met and r.basis == "confidence" and r.effort_basis == "predicted"
    assert r.n_human == 1 and r.effort == pytest.approx(20.0)
    assert r.accuracy == pytest.approx(0.825) and r.effort_share == pytest.approx(20 / 175)
    assert r.effort_hours == pytest.approx(20 / 3600) and r.effort_unit == "seconds"
    assert "20 s" in r.message and "82.5%" in r.message
    # 0.9 needs gains >= 0.8: {1, 2} (0.9, 65 s) is the cheapest; (2.8 + 0.9) / 4 = 0.925
    r = goal_setting(data, target_accuracy=0.9)
    assert r.n_human == 2 and r.effort == pytest.approx(65.0) and r.accuracy == pytest.approx(0.925)
    assert "1.1 min" in r.message
    # every sample: 175 s, expected accuracy 1
    r = goal_setting(data, target_accuracy=1.0)
    assert r.n_human == 4 and r.effort == pytest.approx(175.0)
    # the setting reproduces with solve_fast
    inp = SAEInputs.from_data(data)
    got = solve_fast(inp, lam=r.lam, n_human=r.N, mode=r.mode)
    assert got.human.sum() == r.n_human


def test_most_accurate_within_a_budget_in_hours_by_hand():
    data = prepare(four(), ROLES)
    # 30 s: {0, 2} (gains 0.1 + 0.5, 30 s): (2.8 + 0.6) / 4 = 0.85
    r = goal_setting(data, effort_budget_hours=30 / 3600)
    assert r.met and r.goal == "effort" and r.n_human == 2
    assert r.effort == pytest.approx(30.0) and r.accuracy == pytest.approx(0.85)
    # no hours at all: the machine alone, 0.7
    r = goal_setting(data, effort_budget_hours=0)
    assert r.n_human == 0 and r.accuracy == pytest.approx(0.7) and r.effort == 0
    assert set(r.to_json()) == set(GOAL_KEYS) and r.to_json()["lambda"] == r.lam


def test_a_target_out_of_reach_is_said():
    data = prepare(four(), ROLES)
    inp = SAEInputs.from_arrays(data.frame["machine_confidence"], data.frame["predicted_effort"],
                                b=0.9)
    # humans 0.9 sure: the most is max(a, b) per sample, (0.9 + 0.9 + 0.9 + 0.9) / 4 = 0.9
    r = goal_setting(data, target_accuracy=0.95, inputs=inp)
    assert not r.met and r.accuracy == pytest.approx(0.9)
    assert r.message.startswith("No setting reaches")


def test_refusals():
    data = prepare(four(), ROLES)
    with pytest.raises(DataError, match="exactly one goal"):
        goal_setting(data)
    with pytest.raises(DataError, match="exactly one goal"):
        goal_setting(data, target_accuracy=0.9, effort_budget_hours=1)
    with pytest.raises(DataError, match=r"\[0, 1\]"):
        goal_setting(data, target_accuracy=95)
    with pytest.raises(DataError, match="hours >= 0"):
        goal_setting(data, effort_budget_hours=-1)
    with pytest.raises(DataError, match="gold label"):
        goal_setting(data, target_accuracy=0.9, basis="gold")
    unitless = prepare(four().rename(columns={"review_seconds": "cost"}),
                       {**ROLES, "predicted_effort": "cost"})
    with pytest.raises(DataError, match="unit of time"):
        goal_setting(unitless, effort_budget_hours=1)
    # a target in accuracy works whatever the unit, in the effort's own units
    assert "effort units" in goal_setting(unitless, target_accuracy=0.8).message


def brute_force(inp: SAEInputs, key: str, effort: np.ndarray):
    """Every (N, lambda) on a fine grid, by solve_fast + evaluate (no sweep)."""
    lams = np.r_[0.0, np.geomspace(1e-4, 1e3, 1500)]
    rows = []
    for lam in lams:
        for n in range(inp.M + 1):
            a = solve_fast(inp, lam=float(lam), n_human=n)
            res = evaluate(inp, a)
            rows.append((res[key], float(effort[a.human].sum()), n, float(lam)))
    return rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_accuracy_target_against_brute_force_with_gold(seed):
    rng = np.random.default_rng(seed)
    m = 12
    gold = rng.integers(0, 3, m)
    machine = np.where(rng.uniform(size=m) < 0.6, gold, (gold + 1) % 3)
    df = pd.DataFrame({"machine_label": machine, "human_label": gold,
                       "machine_confidence": np.round(rng.uniform(0.3, 1, m), 3),
                       "review_seconds": np.round(rng.uniform(5, 120, m), 1)})
    data = prepare(df, {"machine_label": "machine_label", "human_label": "human_label",
                        "machine_confidence": "machine_confidence",
                        "predicted_effort": "review_seconds", "human_effort": None})
    inp = SAEInputs.from_data(data)
    rows = brute_force(inp, "accuracy", inp.l)
    grid = goal_grid(inp)
    for target in (0.7, 0.8, 0.9, 1.0):
        r = goal_setting(data, target_accuracy=target, inputs=inp, grid=grid)
        assert r.basis == "gold"
        best = min(e for acc, e, _, _ in rows if acc >= target - 1e-12)
        assert r.met and r.effort == pytest.approx(best, abs=1e-9)
        assert r.accuracy >= target - 1e-12
    for hours in (0.005, 0.02, 0.05):
        r = goal_setting(data, effort_budget_hours=hours, inputs=inp, grid=grid)
        best = max(acc for acc, e, _, _ in rows if e <= hours * 3600 + 1e-9)
        assert r.accuracy == pytest.approx(best, abs=1e-12)
        assert r.effort <= hours * 3600 + 1e-9


def test_expected_accuracy_against_brute_force():
    rng = np.random.default_rng(7)
    m = 10
    df = pd.DataFrame({"machine_label": rng.integers(0, 2, m),
                       "machine_confidence": np.round(rng.uniform(0.4, 1, m), 3),
                       "review_minutes": np.round(rng.uniform(0.5, 4, m), 2)})
    data = prepare(df, {"machine_label": "machine_label", "machine_confidence": "machine_confidence",
                        "predicted_effort": "review_minutes", "human_label": None,
                        "human_effort": None})
    inp = SAEInputs.from_data(data)
    rows = brute_force(inp, "expected_reliability", inp.l)
    for target in (0.8, 0.9, 0.95):
        r = goal_setting(data, target_accuracy=target, inputs=inp)
        best = min(e for acc, e, _, _ in rows if acc >= target - 1e-12)
        assert r.effort == pytest.approx(best, abs=1e-9)
        assert r.effort_hours == pytest.approx(best / 60)


def test_recommend_by_hand():
    data = prepare(four(), ROLES)
    inp = SAEInputs.from_data(data)
    # the current setting sends samples 1 and 3 (gains 0.4 + 0.2, 145 s): expected 0.85
    cur = {"expected_reliability": 0.85, "time_cost_predicted": 145 / 175, "n_human": 2}
    rec = recommend(data, cur, inputs=inp)
    # within 145 s: {0, 1, 2} (gains 1.0, 75 s) -> 0.95, +10 points
    assert rec["gain_points"] == pytest.approx(10.0)
    assert rec["same_effort"]["n_human"] == 3
    # 0.85 at least: {0, 2} (0.6, 30 s): 115 s saved
    assert rec["saved"] == pytest.approx(115.0) and rec["saved_hours"] == pytest.approx(115 / 3600)
    assert "+10.0 points" in rec["sentence"] and "1.9 min less" in rec["sentence"]
    # a setting on the frontier loses nothing
    best = {"expected_reliability": 0.85, "time_cost_predicted": 30 / 175, "n_human": 2}
    rec = recommend(data, best, inputs=inp)
    assert rec["gain_points"] == pytest.approx(0.0) and rec["saved"] == pytest.approx(0.0)
    assert rec["sentence"] is None
