"""core.evaluation.sampling.stratified: the budget split by group and the design planned per group."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.sampling.design import load_design
from core.evaluation.sampling.stratified import plan_stratified, stratum_budgets


def test_budget_split_by_size_by_hand():
    # 40 labels over 100 + 300 rows: the same rate 0.1 everywhere
    assert stratum_budgets({"a": 100, "b": 300}, 40) == pytest.approx({"a": 10, "b": 30})


def test_minimum_takes_from_the_others_by_hand():
    # a needs 0.5 * 100 = 50 of 80; b keeps the other 30
    assert stratum_budgets({"a": 100, "b": 300}, 80, minimum={"a": 50}) == pytest.approx(
        {"a": 50, "b": 30})
    # three groups: a fixed at 60 of 100; b (100) and c (300) share 40 as 10 and 30
    out = stratum_budgets({"a": 100, "b": 100, "c": 300}, 100, minimum={"a": 60})
    assert out == pytest.approx({"a": 60, "b": 10, "c": 30})


def test_a_group_is_never_given_more_than_its_rows_by_hand():
    # 60 of 100 rows: proportionally a would get 0.6 * 10 = 6 and b 54; with a minimum of the
    # whole group (10 rows) b keeps 50
    assert stratum_budgets({"a": 10, "b": 90}, 60, minimum={"a": 10}) == pytest.approx(
        {"a": 10, "b": 50})
    # a budget above a small group's size: it is labelled in full, the rest to the other
    assert stratum_budgets({"a": 5, "b": 95}, 99, minimum={"a": 5}) == pytest.approx(
        {"a": 5, "b": 94})


def test_minimums_beyond_the_budget_are_refused():
    with pytest.raises(DataError, match="minimum human shares need a budget of 90"):
        stratum_budgets({"a": 100, "b": 300}, 40, minimum={"a": 90})
    with pytest.raises(DataError, match="exceeds its size"):
        stratum_budgets({"a": 100, "b": 300}, 400, minimum={"a": 120})


def _table(m_per: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    grp = np.repeat(["x", "y", "z"], [m_per, m_per, 2 * m_per])
    m = len(grp)
    return pd.DataFrame({"sample_id": np.arange(1, m + 1), "grp": grp,
                         "machine_label": rng.choice(["a", "b"], m),
                         "confidence": rng.uniform(0.55, 0.99, m),
                         "predicted_effort": rng.uniform(1, 3, m)})


def test_each_group_gets_its_budget_and_the_minimum_share():
    design = load_design(_table(), {"subgroups": ["grp"]})
    plan, strata = plan_stratified(design, "grp", labels=160, min_share={"y": 0.5}, seed=3)
    pi = plan.inclusion
    grp = design.data.raw["grp"].to_numpy()
    # y: at least half of its 200 rows -> 100 expected labels; x (200) and z (400) share the
    # other 60 by size: 20 and 40
    assert pi[grp == "y"].sum() == pytest.approx(100, rel=1e-6)
    assert pi[grp == "x"].sum() == pytest.approx(20, rel=1e-6)
    assert pi[grp == "z"].sum() == pytest.approx(40, rel=1e-6)
    assert list(strata["group"]) == ["x", "y", "z"]
    assert list(strata["human_share"]) == pytest.approx([0.1, 0.5, 0.1], rel=1e-6)
    # the selection follows pi: routed exactly where pi = 1, others drawn with pi < 1
    sel = plan.selection
    assert ((sel == "routed") == (pi >= 1)).all()
    assert set(sel[pi < 1]) <= {"audit", "machine"}
    assert plan.design.expected_labels == pytest.approx(160, rel=1e-6)
    # the queue: every audit and routed row once, 1..n
    rank = plan.queue_rank[np.isfinite(plan.queue_rank)]
    assert sorted(rank) == list(range(1, int((sel != "machine").sum()) + 1))


def test_effort_budget_is_split_by_the_groups_effort():
    df = _table()
    design = load_design(df, {"subgroups": ["grp"]})
    eff = df["predicted_effort"].to_numpy()
    total = eff.sum()
    plan, strata = plan_stratified(design, "grp", effort_budget=0.2 * total, seed=0)
    grp = df["grp"].to_numpy()
    for g in ("x", "y", "z"):
        mask = grp == g
        # the same uniform rate everywhere: 20 % of each group's effort
        assert (plan.inclusion[mask] * eff[mask]).sum() == pytest.approx(0.2 * eff[mask].sum(),
                                                                         rel=1e-6)


def test_bad_input_names_the_field():
    design = load_design(_table(), {"subgroups": ["grp"]})
    with pytest.raises(DataError, match="'nope' is not in the table"):
        plan_stratified(design, "nope", labels=50)
    with pytest.raises(DataError, match="has no value 'w'"):
        plan_stratified(design, "grp", labels=50, min_share={"w": 0.5})
    with pytest.raises(DataError, match=r"must be in \[0, 1\]"):
        plan_stratified(design, "grp", labels=50, min_share={"x": 1.5})
    with pytest.raises(DataError, match="one of the two"):
        plan_stratified(design, "grp")
