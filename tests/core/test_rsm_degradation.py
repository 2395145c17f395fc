"""RSMTool's degradation and disattenuated correlations (``core.rsm.degradation``): the rows of
RSMTool's own expected output of its test experiment ``lr-eval-with-scaling-and-h2-keep-zeros``
(``tests/data/experiments/lr-eval-with-scaling-and-h2-keep-zeros/output/`` in
EducationalTestingService/rsmtool, commit a844f716), the degenerate values as RSMTool's numpy
division gives them, and the by-group table by hand."""

from __future__ import annotations

import math

import pytest

from core.rsm.degradation import (ALL_DATA, DEGRADATION_COLUMNS, DISATTENUATED_COLUMNS,
                                  degradation, disattenuated_by_group,
                                  disattenuated_correlation)


# RSMTool's expected output, lr_eval_with_scaling_and_h2_keep_zeros_eval.csv, row "raw"
KEEP_ZEROS_EVAL_RAW = {"corr": 0.7801773732608225, "wtkappa": 0.7401809047638146,
                       "kappa": 0.3862885997281025, "exact_agr": 0.0, "adj_agr": 90.0,
                       "SMD": -0.00895498424118327}


# ... _consistency.csv (N 200: the four second scores of 0 are kept; h2_min 0.0)
KEEP_ZEROS_CONSISTENCY = {"corr": 0.7548403394172343, "wtkappa": 0.7433862433862435,
                          "kappa": 0.5886134067952251, "exact_agr": 72.0, "adj_agr": 98.0,
                          "SMD": -0.1496210831361695}


# ... _degradation.csv, row "raw"
KEEP_ZEROS_DEGRADATION_RAW = {"corr": 0.025337033843588208, "kappa": -0.20232480706712264,
                              "wtkappa": -0.0032053386224288882, "exact_agr": -72.0, "adj_agr": -8.0,
                              "SMD": 0.14066609889498624}


# ... _disattenuated_correlations.csv, row "raw"
KEEP_ZEROS_DISATTENUATED_RAW = {"corr_HM": 0.7801773732608225, "corr_HH": 0.7548403394172343,
                                "sqrt_HH": 0.8688154806500827, "corr_disattenuated": 0.8979782135984299}


def test_degradation_reproduces_rsmtool_keep_zeros_row():
    got = degradation(KEEP_ZEROS_EVAL_RAW, KEEP_ZEROS_CONSISTENCY)
    assert list(got) == list(DEGRADATION_COLUMNS)
    for c, v in KEEP_ZEROS_DEGRADATION_RAW.items():
        assert got[c] == pytest.approx(v, rel=1e-12, abs=1e-12), c


def test_disattenuated_correlation_reproduces_rsmtool_keep_zeros_row():
    got = disattenuated_correlation(KEEP_ZEROS_EVAL_RAW["corr"], KEEP_ZEROS_CONSISTENCY["corr"])
    assert list(got) == list(DISATTENUATED_COLUMNS)
    for c, v in KEEP_ZEROS_DISATTENUATED_RAW.items():
        assert got[c] == pytest.approx(v, rel=1e-12), c


def test_disattenuated_correlation_degenerate_values_as_rsmtool():
    # np.sqrt of a negative human-human r is NaN (RSMTool: "treat them as Nones"), so is the ratio
    neg = disattenuated_correlation(0.5, -0.25)
    assert math.isnan(neg["sqrt_HH"]) and math.isnan(neg["corr_disattenuated"])
    # r_HH = 0: pandas' division 0.5 / 0 = inf, 0 / 0 = NaN
    assert disattenuated_correlation(0.5, 0.0)["corr_disattenuated"] == math.inf
    assert math.isnan(disattenuated_correlation(0.0, 0.0)["corr_disattenuated"])
    # r_HH = 0.25: sqrt 0.5, 0.4 / 0.5 = 0.8
    assert disattenuated_correlation(0.4, 0.25) == {"corr_HM": 0.4, "corr_HH": 0.25, "sqrt_HH": 0.5,
                                                     "corr_disattenuated": pytest.approx(0.8, abs=1e-15)}
    assert degradation(KEEP_ZEROS_EVAL_RAW, None) is None


def test_degradation_is_column_by_column_by_hand():
    ev = {"corr": 0.7, "kappa": 0.5, "wtkappa": 0.6, "exact_agr": 60.0, "adj_agr": 95.0,
          "SMD": 0.1, "N": 100}
    cons = {"corr": 0.8, "kappa": 0.55, "wtkappa": 0.7, "exact_agr": 70.0, "adj_agr": 99.0,
            "SMD": -0.05}
    got = degradation(ev, cons)
    assert got == pytest.approx({"corr": -0.1, "kappa": -0.05, "wtkappa": -0.1,
                                 "exact_agr": -10.0, "adj_agr": -4.0, "SMD": 0.15})
    assert "N" not in got


def test_disattenuated_by_group_puts_the_whole_set_first():
    eval_rows = {ALL_DATA: {"corr": 0.9}, "a": {"corr": 0.4}, "b": {"corr": 0.6}}
    cons_rows = {ALL_DATA: {"corr": 0.81}, "a": {"corr": 0.25}, "b": {"corr": float("nan")}}
    got = disattenuated_by_group((0.6, 0.36), eval_rows, cons_rows)
    assert list(got) == [ALL_DATA, "a", "b"] and ALL_DATA == "All data"
    # whole set from the tuple given (0.6 / sqrt 0.36 = 1), not from eval_rows' ALL_DATA row
    assert got[ALL_DATA]["corr_disattenuated"] == pytest.approx(1.0)
    assert got["a"] == {"corr_HM": 0.4, "corr_HH": 0.25, "sqrt_HH": 0.5,
                        "corr_disattenuated": pytest.approx(0.8)}
    # a group without double-scored responses: NaN, as RSMTool's table
    assert math.isnan(got["b"]["sqrt_HH"]) and math.isnan(got["b"]["corr_disattenuated"])
