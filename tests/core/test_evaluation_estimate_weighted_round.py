"""The weighted estimators on a round's table (``core.evaluation.estimate.weighted_round``): the
coded arrays and inclusion probabilities a table gives (routing's audit rate, a partly labelled
draw scaled down) by hand, group columns and covariates, the worse-group sentence, and the
estimate object's keys, counts and design kind, with the estimators on coded arrays
(:mod:`core.evaluation.estimate.weighted`) as the oracle. The coverage simulations of
:func:`group_accuracy` live in ``test_evaluation_estimate_weighted.py``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.estimate.weighted import weighted_estimates
from core.evaluation.estimate.weighted_round import (ESTIMATE_KEYS, design_arrays,
                                                     design_covariates, estimate_weighted_design,
                                                     group_accuracy, group_values,
                                                     worse_group_sentence)
from core.evaluation.sampling.design import load_design


def routing_table():
    return pd.DataFrame({
        "machine_label": ["a", "b", "a", "a", "b", "a", "a", "b", "a", "b"],
        "machine_confidence": [0.6, 0.55, 0.9, 0.8, 0.95, 0.9, 0.7, 0.99, 0.9, 0.8],
        "human_label": ["b", "b", "a", "b", None, None, None, None, None, None],
        "grp": ["x", "y", "x", None, "y", "x", "y", "x", "y", "x"],
        "selection": ["routed", "routed", "audit", "audit", "machine", "machine", "machine",
                      "machine", "machine", "machine"]})


def drawn_table(labelled_audit=4):
    """40 rows: 4 routed (pi 1), the rest drawn with pi 0.25; 8 drawn, ``labelled_audit`` labelled."""
    rng = np.random.default_rng(3)
    m = 40
    mach = rng.integers(0, 2, m)
    gold = np.where(rng.random(m) < 0.8, mach, 1 - mach)
    pi = np.r_[np.ones(4), np.full(m - 4, 0.25)]
    sel = np.array(["routed"] * 4 + ["audit"] * 8 + ["machine"] * (m - 12), dtype=object)
    human = np.where(np.arange(m) < 4 + labelled_audit, gold, -1)
    df = pd.DataFrame({"machine_label": mach, "machine_confidence": rng.uniform(0.5, 1, m),
                       "human_label": pd.array(np.where(human >= 0, human, 0), dtype="Int64"),
                       "selection": sel, "inclusion_probability": pi,
                       "grp": np.where(np.arange(m) % 2, "odd", "even")})
    df.loc[human < 0, "human_label"] = pd.NA
    return df, mach, gold, pi


def test_routing_table_gets_the_audit_rate_on_kept_rows():
    arr = design_arrays(load_design(routing_table()))
    assert arr["classes"] == ["a", "b"]
    assert arr["machine"].tolist() == [0, 1, 0, 0, 1, 0, 0, 1, 0, 1]
    assert arr["human"].tolist() == [1, 1, 0, 1, -1, -1, -1, -1, -1, -1]
    assert arr["labelled"].tolist() == [True] * 4 + [False] * 6
    # 2 labelled audit rows of the 8 kept (audit + machine): rate 1/4; routed rows 1
    np.testing.assert_allclose(arr["pi"], [1, 1] + [0.25] * 8)
    assert arr["notes"] == []


def test_a_partly_labelled_draw_scales_its_probabilities_down():
    df, *_ = drawn_table(labelled_audit=4)
    arr = design_arrays(load_design(df))
    # 4 of the 8 drawn audit rows labelled: pi < 1 scaled by 1/2, routed rows kept at 1
    np.testing.assert_allclose(arr["pi"], np.r_[np.ones(4), np.full(36, 0.125)])
    assert "4 of the 8 drawn audit rows" in arr["notes"][0] and "0.500" in arr["notes"][0]
    full, *_ = drawn_table(labelled_audit=8)
    assert design_arrays(load_design(full))["notes"] == []


def test_unplanned_or_unlabelled_rows_are_refused():
    t = routing_table()
    t.loc[6, "selection"] = ""
    with pytest.raises(DataError, match="1 rows have no selection .*row 7"):
        design_arrays(load_design(t))
    t = routing_table()
    t.loc[1, "human_label"] = None
    with pytest.raises(DataError, match="1 routed rows have no human label: row 2"):
        design_arrays(load_design(t))


def test_group_values_and_their_checks():
    d = load_design(routing_table())
    values, uniq = group_values(d, "grp")
    assert values.tolist()[3] == "(missing)" and uniq == ["(missing)", "x", "y"]
    with pytest.raises(DataError, match="group column 'lang' is not in the table; available:"):
        group_values(d, "lang")
    wide = routing_table().assign(ident=[f"v{i}" for i in range(10)])
    wide = pd.concat([wide] * 21, ignore_index=True)
    wide["ident"] = [f"v{i}" for i in range(len(wide))]
    with pytest.raises(DataError, match="group column 'ident' has 210 distinct values"):
        group_values(load_design(wide), "ident")


def test_covariates_are_one_indicator_per_group_value():
    d = load_design(routing_table())
    cov = design_covariates(d, ["grp"])
    values = routing_table()["grp"].fillna("(missing)")
    expected = np.column_stack([values == v for v in ["(missing)", "x", "y"]]).astype(float)
    np.testing.assert_array_equal(cov, expected)
    assert design_covariates(d, None) is None
    # a column with one value adds nothing
    assert design_covariates(load_design(routing_table().assign(one="z")), ["one"]) is None


def test_worse_group_sentence_by_hand():
    w = {"column": "language", "group": "ja", "accuracy": 0.8, "rest_accuracy": 0.9,
         "machine_accuracy": 0.7, "rest_machine_accuracy": 0.85, "human_share": 0.2,
         "rest_human_share": 0.1, "effort": 30.0, "rest_effort": 20.0}
    s = worse_group_sentence(w)
    # shares as core.format.pct writes them (one decimal)
    assert s == ("language = ja: final labels 80.0% accurate against 90.0% for the rest "
                 "(significantly worse): the machine is right on an estimated 70.0% of its rows, "
                 "judged from the labelled ones (rest 85.0%); humans label 20.0% of its rows "
                 "(rest 10.0%); its effort per row is 1.50x the rest's; fix: give it a minimum "
                 "human share, or plan a design stratified by this column.")
    bare = worse_group_sentence({"column": "c", "group": "g", "accuracy": 0.5,
                                 "rest_accuracy": 0.75})
    assert bare == ("c = g: final labels 50.0% accurate against 75.0% for the rest (significantly "
                    "worse); fix: give it a minimum human share, or plan a design stratified "
                    "by this column.")


def test_estimate_object_keys_counts_and_the_estimators_numbers():
    df, mach, gold, pi = drawn_table(labelled_audit=8)
    res = estimate_weighted_design(load_design(df), groups=["grp"])
    assert list(res)[:len(ESTIMATE_KEYS)] == list(ESTIMATE_KEYS)
    assert list(res)[len(ESTIMATE_KEYS):] == ["n_labelled", "audit_errors", "notes", "design",
                                              "method", "worse_groups"]
    assert res["design"] == "active"  # routed rows at pi = 1
    assert (res["M"], res["n_routed"], res["n_audit"], res["n_machine"]) == (40, 4, 8, 28)
    assert res["audit_errors"] == int((mach[4:12] != gold[4:12]).sum())
    lab = np.arange(40) < 12
    own = weighted_estimates(mach, np.where(lab, gold, -1), lab, pi,
                             df["machine_confidence"].to_numpy(), n_classes=2)
    for c in (0, 1):
        got = res["class_shares"][str(c)]
        assert (got["estimate"], got["ci_low"], got["ci_high"]) == pytest.approx(
            (own["class_shares"][c]["estimate"], own["class_shares"][c]["ci_low"],
             own["class_shares"][c]["ci_high"]), abs=1e-12)
    assert set(res["by_group"]["grp"]) == {"even", "odd"}
    assert res["by_group"]["grp"]["even"]["M"] == 20


def test_a_uniform_draw_is_a_random_design_and_group_accuracy_has_every_group():
    df, *_ = drawn_table(labelled_audit=8)
    df = df.iloc[4:].reset_index(drop=True)  # no routed rows: every pi 0.25
    res = estimate_weighted_design(load_design(df))
    assert res["design"] == "random" and res["by_group"] == {} and res["worse_groups"] == []
    by, worse, notes = group_accuracy(load_design(df), ["grp"])
    assert set(by["grp"]) == {"even", "odd"} and by["grp"]["odd"]["M"] == 18
    for g in by["grp"].values():
        assert 0 <= g["ci_low"] <= g["estimate"] <= g["ci_high"] <= 1
    assert len(worse) == len(notes)
