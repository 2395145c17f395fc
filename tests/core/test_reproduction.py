"""Reproduce the paper's SAE results from the authors' released per-sample data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.assignment import collaborative_labels
from core.assignment import evaluate, n_from_share, solve, sweep


def test_reference_point_matches_authors_output(hmceval_inputs, shared_data):
    inp = hmceval_inputs
    assert inp.M == 5673
    n = n_from_share(0.5, inp.M)
    assert n == 2836
    res = evaluate(inp, solve(inp, lam=4.6, n_human=n))
    ref = pd.read_csv(shared_data / "hmceval" / "ilp_out_trustscore_f2_lambda4.6_q0.5.tsv", sep="\t")
    expected = {"precision": ref["precision_macro"][0], "recall": ref["recall_macro"][0],
                "f1": ref["f1_macro"][0], "accuracy": ref["accuracy"][0],
                "human_ratio": ref["human_ratio"][0], "time_cost": ref["real_time_cost"][0]}
    for key, value in expected.items():
        assert res[key] == pytest.approx(value, abs=5e-5), key
    # the figures quoted in the README of the release, to 4 decimals
    assert round(res["precision"], 5) == 0.98326
    assert round(res["recall"], 5) == 0.97573
    assert round(res["f1"], 5) == 0.97942
    assert round(res["accuracy"], 5) == 0.98484
    assert round(res["human_ratio"], 5) == 0.49991
    assert round(res["time_cost"], 5) == 0.50556


def test_machine_only_and_lambda_zero(hmceval_inputs):
    inp = hmceval_inputs
    res = evaluate(inp, solve(inp, lam=4.6, n_human=2836))
    mo = res["machine_only"]
    assert (round(mo["precision"], 4), round(mo["recall"], 4), round(mo["f1"], 4),
            round(mo["accuracy"], 4)) == (0.8181, 0.8034, 0.8103, 0.8623)
    r0 = evaluate(inp, solve(inp, lam=0.0, n_human=2836))
    assert round(r0["accuracy"], 5) == 0.98925
    assert round(r0["time_cost"], 5) == 0.63894


def test_final_labels_agree_with_the_authors(hmceval_data, hmceval_inputs):
    """The authors' `final_predict` column: the same labels except where ties were broken apart."""
    inp = hmceval_inputs
    a = solve(inp, lam=4.6, n_human=2836)
    final = collaborative_labels(inp.machine_label, inp.human_label, a.human).astype(int)
    authors = hmceval_data.raw["final_predict"].to_numpy()
    assert (final != authors).sum() <= 2


def test_paper_grid_shapes(hmceval_inputs):
    """Figures 2 and 3: the full 21 x 451 grid, its monotone trends and its corners."""
    inp = hmceval_inputs
    lams = np.round(np.arange(0, 45.0001, 0.1), 10)
    shares = np.round(np.arange(0, 1.0001, 0.05), 10)
    grid = sweep(inp, lams=lams, shares=shares)
    assert len(grid) == 9471 == len(lams) * len(shares)
    # corners: N = 0 is the machine alone, whatever lambda
    zero = grid[grid["N"] == 0]
    assert np.allclose(zero["accuracy"], 0.8623303366825313)
    assert (zero["human_ratio"] == 0).all() and (zero["time_cost"] == 0).all()
    # lambda = 0, N = M: everyone goes to a human (every gain 1 - a_i > 0 except a_i = 1)
    full = grid[(grid["lambda"] == 0) & (grid["N"] == inp.M)].iloc[0]
    n_pos = int((inp.a < 1).sum())
    assert full["n_human"] == n_pos
    assert full["accuracy"] >= 0.999
    # Figure 2 (lambda fixed at 0.1): reliability and effort rise with N
    f2 = grid[np.isclose(grid["lambda"], 0.1)].sort_values("N")
    for key in ("accuracy", "human_ratio", "time_cost"):
        assert (np.diff(f2[key].to_numpy()) >= -1e-12).all(), key
    assert f2["accuracy"].iloc[-1] > 0.99 and f2["accuracy"].iloc[0] < 0.87
    # Figure 3 (N/M = 0.5): effort falls as lambda grows, the human ratio stays at 0.5 then drops
    f3 = grid[np.isclose(grid["human_share"], 0.5)].sort_values("lambda")
    assert (np.diff(f3["time_cost"].to_numpy()) <= 1e-12).all()
    assert (np.diff(f3["human_ratio"].to_numpy()) <= 1e-12).all()
    assert f3["human_ratio"].iloc[0] == pytest.approx(2836 / 5673)
    assert f3["human_ratio"].iloc[-1] < 0.3
    assert f3["accuracy"].iloc[0] > f3["accuracy"].iloc[-1]
