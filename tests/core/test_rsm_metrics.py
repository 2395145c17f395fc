"""Agreement metrics against values worked out by hand from RSMTool's formulas.

Every expected number below is derived in the comment next to it from the definitions in
``../shared/reference/rsmtool-evaluation-metrics.txt``; none comes from running the code.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core import rsm as ag
from core.errors import DataError

H = [1, 2, 3]
M = [1, 2, 2]
# Worked by hand for H = [1, 2, 3], M = [1, 2, 2]:
#   mean H = 2, mean M = 5/3, dH = [-1, 0, 1], dM = [-2/3, 1/3, 1/3]
#   Cov(ddof 0) = (2/3 + 0 + 1/3) / 3 = 1/3; Var H (ddof 0) = 2/3; Var M (ddof 0) = 2/9
#   sd H (ddof 1) = 1; sd M (ddof 1) = sqrt((6/9) / 2) = sqrt(1/3)


# ------------------------------------------------------------------------------------------
# agreement
# ------------------------------------------------------------------------------------------
def test_exact_and_adjacent_agreement_by_hand():
    # |M - H| = [0, 1, 0, 3]: exact 2/4, within 1: 3/4
    assert ag.exact_agreement([1, 2, 3, 4], [1, 3, 3, 1]) == 50.0
    assert ag.adjacent_agreement([1, 2, 3, 4], [1, 3, 3, 1]) == 75.0
    assert ag.agreement([1, 2, 3, 4], [1, 3, 3, 1], tolerance=2) == 75.0


def test_agreement_compares_unrounded_scores():
    # RSMTool's agreement() takes the scores as given: 2.5 != 2 exactly, |2.5 - 2| <= 1
    assert ag.exact_agreement([1, 2], [1.0, 2.5]) == 50.0
    assert ag.adjacent_agreement([1, 2], [1.0, 3.5]) == 50.0


def test_round_half_even():
    assert ag.round_half_even([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 2.4999, 2.5001]).tolist() == [
        0, 2, 2, 4, 0, -2, 2, 3,
    ]


# ------------------------------------------------------------------------------------------
# Cohen's kappa (SKLL)
# ------------------------------------------------------------------------------------------
def test_kappa_by_hand():
    # H = [1,1,2,2], M = [1,2,2,2]: observed disagreement 1/4;
    # p_H = (1/2, 1/2), q_M = (1/4, 3/4): chance agreement 1/8 + 3/8 = 1/2 -> kappa = 1 - (1/4)/(1/2)
    assert ag.cohen_kappa([1, 1, 2, 2], [1, 2, 2, 2]) == pytest.approx(0.5, abs=1e-15)


def test_kappa_reference_example_labels_1_2_4():
    # The reference's example: predictions with labels 1, 2, 4 (3 missing, added by SKLL with
    # zero counts). H = [1,2,4,4], M = [1,2,4,2]: disagreement 1/4;
    # p = (1/4, 1/4, 0, 1/2), q = (1/4, 1/2, 0, 1/4) over labels 1..4;
    # chance agreement = 1/16 + 1/8 + 0 + 1/8 = 5/16 -> kappa = 1 - (1/4)/(11/16) = 7/11
    assert ag.cohen_kappa([1, 2, 4, 4], [1, 2, 4, 2]) == pytest.approx(7 / 11, abs=1e-15)


def test_kappa_negative_labels_are_shifted():
    # same structure as the previous case on labels -1, 0, 1: 7/11
    assert ag.cohen_kappa([-1, 0, 1, 1], [-1, 0, 1, 0]) == pytest.approx(7 / 11, abs=1e-15)


def test_kappa_far_apart_labels():
    # the kappa_by_hand case on labels 0 and 1,000,000 (a range too wide to count by value,
    # so the labels are sorted instead) and on 1,000,000 and 1,000,001 (counted): 1/2 each
    assert ag.cohen_kappa([0, 0, 10**6, 10**6], [0, 10**6, 10**6, 10**6]) == pytest.approx(0.5, abs=1e-15)
    assert ag.cohen_kappa([10**6, 10**6, 10**6 + 1, 10**6 + 1],
                          [10**6, 10**6 + 1, 10**6 + 1, 10**6 + 1]) == pytest.approx(0.5, abs=1e-15)


def test_kappa_single_label_is_one():
    assert ag.cohen_kappa([2, 2, 2], [2, 2, 2]) == 1.0
    # after rounding half to even everything is 2: 2.4 -> 2, 1.6 -> 2, 2.5 -> 2, 1.5 -> 2
    assert ag.cohen_kappa([2.4, 1.6], [2.5, 1.5]) == 1.0
    assert ag.cohen_kappa([0], [0]) == 1.0
    # scikit-learn's (and clembench's) value for the same case, by choice
    assert math.isnan(ag.cohen_kappa([2, 2, 2], [2, 2, 2], single_label=math.nan))


def test_kappa_is_sklearns_arithmetic_to_the_last_bit():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(2, 60))
        t, p = rng.integers(-2, 4, n), rng.integers(0, 5, n)
        if len(set(t) | set(p)) > 1:
            assert ag.cohen_kappa(t, p) == cohen_kappa_score(t, p)


def test_kappa_rounds_half_to_even():
    # H = [0.5, 1.5, 2.5] rounds to [0, 2, 2] (half to even) = M: kappa 1.
    # Rounding half up would give [1, 2, 3] and 1 agreement out of 3 instead.
    assert ag.cohen_kappa([0.5, 1.5, 2.5], [0, 2, 2]) == 1.0
    # M = [0.5, 0.5] rounds to [0, 0]; H = [0, 1]: disagreement 1/2; p = (1/2, 1/2), q = (1, 0):
    # chance agreement 1/2 -> kappa = 1 - (1/2)/(1/2) = 0
    assert ag.cohen_kappa([0, 1], [0.5, 0.5]) == 0.0


def test_kappa_complete_disagreement():
    # H all 0, M all 1: disagreement 1, chance agreement p0 q0 + p1 q1 = 0 -> kappa 0
    assert ag.cohen_kappa([0, 0], [1, 1]) == 0.0
    # H = [0,1], M = [1,0]: disagreement 1, chance agreement 1/2 -> kappa = 1 - 1/(1/2) = -1
    assert ag.cohen_kappa([0, 1], [1, 0]) == -1.0


# ------------------------------------------------------------------------------------------
# QWK, r, SMD, MSE, R2
# ------------------------------------------------------------------------------------------
def test_qwk_by_hand():
    # 2 Cov / (Var H + Var M + (mean M - mean H)^2) = (2/3) / (2/3 + 2/9 + 1/9) = (2/3) / 1
    assert ag.quadratic_weighted_kappa(H, M) == pytest.approx(2 / 3, abs=1e-15)


def test_qwk_continuous_by_hand():
    # H = [1, 3], M = [1.5, 2.5]: means 2, 2; Cov = ((-1)(-0.5) + (1)(0.5)) / 2 = 1/2;
    # Var H = 1, Var M = 1/4 -> QWK = 1 / (1 + 1/4) = 0.8
    assert ag.quadratic_weighted_kappa([1, 3], [1.5, 2.5]) == pytest.approx(0.8, abs=1e-15)


def test_qwk_nan_when_both_constant_and_equal_means():
    assert math.isnan(ag.quadratic_weighted_kappa([2, 2], [2, 2]))
    assert math.isnan(ag.quadratic_weighted_kappa([3], [3]))
    # constant but different means: 0 / (0 + 0 + 1) = 0
    assert ag.quadratic_weighted_kappa([2, 2], [3, 3]) == 0.0


def test_qwk_equals_kappa_for_binary_labels():
    # For 0/1 labels quadratic weights equal the unweighted ones, so QWK = kappa.
    # H = [0,0,1,1], M = [0,1,1,1]: kappa = 1 - (1/4)/(1/2) = 0.5 (as test_kappa_by_hand).
    # QWK: means 1/2, 3/4; dH = [-1/2, -1/2, 1/2, 1/2], dM = [-3/4, 1/4, 1/4, 1/4]
    # Cov = (3/8 - 1/8 + 1/8 + 1/8) / 4 = 1/8; Var H = 1/4, Var M = 3/16, diff^2 = 1/16
    # -> 2 (1/8) / (1/4 + 3/16 + 1/16) = 0.5
    assert ag.quadratic_weighted_kappa([0, 0, 1, 1], [0, 1, 1, 1]) == pytest.approx(0.5, abs=1e-15)
    assert ag.cohen_kappa([0, 0, 1, 1], [0, 1, 1, 1]) == pytest.approx(0.5, abs=1e-15)


def test_pearson_by_hand():
    # r = (1/3) / sqrt(2/3 * 2/9) = sqrt(3) / 2
    assert ag.pearson_r(H, M) == pytest.approx(math.sqrt(3) / 2, abs=1e-15)
    assert ag.pearson_r([1, 2], [2, 1]) == pytest.approx(-1.0, abs=1e-15)


def test_pearson_nan_cases():
    assert math.isnan(ag.pearson_r([1], [1]))  # a single response
    assert math.isnan(ag.pearson_r([2, 2, 2], [1, 2, 3]))  # constant human scores
    assert math.isnan(ag.pearson_r([1, 2, 3], [4, 4, 4]))  # constant system scores


def test_smd_by_hand():
    # unpooled: (5/3 - 2) / sd_H = -1/3; pooled: (-1/3) / sqrt((1 + 1/3) / 2) = -(1/3) / sqrt(2/3)
    assert ag.standardized_mean_difference(H, M) == pytest.approx(-1 / 3, abs=1e-15)
    assert ag.standardized_mean_difference(H, M, method="pooled") == pytest.approx(
        -(1 / 3) / math.sqrt(2 / 3), abs=1e-15
    )


def test_smd_nan_when_denominator_zero():
    assert math.isnan(ag.standardized_mean_difference([2, 2, 2], [1, 2, 3]))
    # pooled denominator sqrt((0 + 1) / 2) is not 0: (2 - 2) / ... = 0
    assert ag.standardized_mean_difference([2, 2, 2], [1, 2, 3], method="pooled") == 0.0
    assert math.isnan(ag.standardized_mean_difference([2, 2], [3, 3], method="pooled"))
    assert math.isnan(ag.standardized_mean_difference([2], [3]))  # sd with ddof 1 undefined
    with pytest.raises(DataError, match="method"):
        ag.standardized_mean_difference(H, M, method="williamson")


def test_mse_rmse_r2_by_hand():
    # H - M = [0, 0, 1]: MSE = 1/3; SS_res = 1, SS_tot = 2 -> R2 = 1 - 1/2
    assert ag.mean_squared_error(H, M) == pytest.approx(1 / 3, abs=1e-15)
    assert ag.root_mean_squared_error(H, M) == pytest.approx(math.sqrt(1 / 3), abs=1e-15)
    # sklearn's r2_score, which RSMTool calls: 1 - SS_res/SS_tot (the ddof-0 variance), not
    # 1 - MSE / sd_H^2 with the ddof-1 sd (that would be 2/3).
    assert ag.r2_score(H, M) == pytest.approx(0.5, abs=1e-15)


def test_r2_edge_cases():
    assert math.isnan(ag.r2_score([3], [3]))  # a single response
    assert ag.r2_score([2, 2], [2, 2]) == 1.0  # constant human scores predicted exactly
    assert ag.r2_score([2, 2], [2, 3]) == 0.0  # constant human scores, not predicted exactly


def test_bad_input_raises_data_error():
    with pytest.raises(DataError, match="differ in length"):
        ag.pearson_r([1, 2], [1, 2, 3])
    with pytest.raises(DataError, match="row 2"):
        ag.cohen_kappa([1, float("nan")], [1, 2])
    with pytest.raises(DataError, match="numeric"):
        ag.exact_agreement(["a", "b"], [1, 2])
    with pytest.raises(DataError, match="empty"):
        ag.eval_metrics([], [])


def test_true_score_missing_is_none_not_nan():
    single = np.array([[1.0], [2.0], [3.0]])
    assert ag.variance_of_errors(single) is None
    assert ag.true_score_variance(single) is None
    assert ag.mse_true(single, [1, 2, 3]) is None
    assert ag.prmse_true(single, [1, 2, 3]) is None
    ts = ag.true_score_metrics(single, [1, 2, 3])
    assert ts["N"] == 3 and ts["N_single"] == 3 and ts["N_multiple"] == 0
    for key in ("variance_of_errors", "true_score_var", "mse_true", "prmse_true"):
        assert ts[key] is None


def test_true_score_nan_when_defined_but_degenerate():
    # one response with two ratings: sigma_e^2 = (1 - 2)^2 / 2 = 1/2 is defined, but the
    # true-score variance denominator c. - sum c^2 / c. = 2 - 4/2 = 0: NaN, not missing
    ts = ag.true_score_metrics([[1, 2]], [1])
    assert ts["variance_of_errors"] == 0.5
    assert math.isnan(ts["true_score_var"])
    assert math.isnan(ts["prmse_true"])
    # MSE(T|M) = (2 (1.5 - 1)^2 - 1/2) / 2 = 0
    assert ts["mse_true"] == 0.0


# ------------------------------------------------------------------------------------------
# DSM and the per-group table
# ------------------------------------------------------------------------------------------
def test_dsm_by_hand():
    # H = [1,2,3,4], M = [2,2,3,5]; whole set: mean H 2.5, sd H sqrt(5/3); mean M 3, sd M sqrt(2)
    # group a (first two): mean z_M = (-1 - 1)/(2 sqrt 2) = -1/sqrt 2,
    #                      mean z_H = (-1.5 - 0.5)/(2 sqrt(5/3)) = -1/sqrt(5/3)
    # DSM_a = -1/sqrt(2) + 1/sqrt(5/3); DSM_b = -DSM_a
    expected = -1 / math.sqrt(2) + 1 / math.sqrt(5 / 3)
    dsm = ag.dsm_by_group([1, 2, 3, 4], [2, 2, 3, 5], ["a", "a", "b", "b"])
    assert dsm["a"] == pytest.approx(expected, abs=1e-15)
    assert dsm["b"] == pytest.approx(-expected, abs=1e-15)


def test_dsm_missing_when_population_sd_near_zero():
    # human scores constant: sd 0 -> DSM missing (None) for every group, not NaN
    dsm = ag.dsm_by_group([2, 2, 2, 2], [1, 2, 3, 4], ["a", "a", "b", "b"])
    assert dsm == {"a": None, "b": None}
    # system sd = 1e-7 * sqrt(1/3) ~ 5.8e-8: within 1e-7 of 0 -> missing
    tiny = [5.0, 5.0 + 1e-7, 5.0, 5.0 + 1e-7]
    assert float(np.std(tiny, ddof=1)) < 1e-7
    assert ag.dsm_by_group([1, 2, 3, 4], tiny, ["a", "a", "b", "b"]) == {"a": None, "b": None}
    # sd just above the tolerance is used
    small = [5.0, 5.0 + 1e-6, 5.0, 5.0 + 1e-6]
    assert all(v is not None for v in ag.dsm_by_group([1, 2, 3, 4], small, ["a", "a", "b", "b"]).values())


def test_difference_of_standardized_means_tolerance_is_inclusive():
    kw = dict(population_true_mean=0.0, population_pred_mean=0.0, population_pred_sd=1.0)
    assert ag.difference_of_standardized_means([1], [1], population_true_sd=1e-7, **kw) is None
    # 2e-7 is outside: z_H = 1 / 2e-7 = 5e6, z_M = 1 -> 1 - 5e6
    assert ag.difference_of_standardized_means([1], [1], population_true_sd=2e-7, **kw) == pytest.approx(1 - 5e6)


def test_group_order_largest_first_ties_by_name():
    assert ag.group_order(["b", "b", "a", "a", "c"]) == ["a", "b", "c"]
    assert ag.group_order(["z", "z", "z", "a", "a", "m"]) == ["z", "a", "m"]
    assert ag.group_order(["x.2", "x.10", "x.10", "x.2"]) == ["x.10", "x.2"]  # by text


def test_eval_by_group_with_dotted_labels():
    # groups "g.1" (rows 1-2) and "g.2.x" (rows 3-4), same data as test_dsm_by_hand
    table = ag.eval_by_group([1, 2, 3, 4], [2, 2, 3, 5], ["g.1", "g.1", "g.2.x", "g.2.x"])
    assert list(table.index) == ["g.1", "g.2.x"]
    assert list(table.columns) == list(ag.EVAL_BY_GROUP_COLUMNS)
    # g.1: H = [1, 2], M = [2, 2]: N 2, exact 50 %, adjacent 100 %, RMSE sqrt(1/2),
    # corr NaN (M constant), SMD (2 - 1.5) / sd([1, 2]) = 0.5 / sqrt(1/2)
    row = table.loc["g.1"]
    assert row["N"] == 2
    assert row["exact_agr"] == 50.0 and row["adj_agr"] == 100.0
    assert row["RMSE"] == pytest.approx(math.sqrt(0.5), abs=1e-15)
    assert math.isnan(row["corr"])
    assert row["SMD"] == pytest.approx(0.5 / math.sqrt(0.5), abs=1e-15)
    assert row["DSM"] == pytest.approx(-1 / math.sqrt(2) + 1 / math.sqrt(5 / 3), abs=1e-15)


def test_eval_by_group_keeps_missing_dsm_as_none():
    table = ag.eval_by_group([2, 2, 2, 2], [1, 2, 3, 4], ["a", "a", "b", "b"])
    assert table["DSM"].tolist() == [None, None]


def test_eval_metrics_columns_and_values():
    row = ag.eval_metrics(H, M)
    assert list(row) == list(ag.EVAL_COLUMNS)
    assert row["N"] == 3
    assert (row["h_mean"], row["h_sd"], row["h_min"], row["h_max"]) == (2.0, 1.0, 1.0, 3.0)
    assert row["sys_mean"] == pytest.approx(5 / 3) and row["sys_sd"] == pytest.approx(math.sqrt(1 / 3))
    assert (row["sys_min"], row["sys_max"]) == (1.0, 2.0)
    assert row["corr"] == pytest.approx(math.sqrt(3) / 2)
    assert row["wtkappa"] == pytest.approx(2 / 3)
    assert row["R2"] == pytest.approx(0.5)
    # kappa: disagreement 1/3; p = (1/3, 1/3, 1/3), q = (1/3, 2/3, 0): chance 1/9 + 2/9 = 1/3
    #   -> 1 - (1/3)/(2/3) = 1/2
    assert row["kappa"] == pytest.approx(0.5)
    assert row["exact_agr"] == pytest.approx(200 / 3) and row["adj_agr"] == 100.0
    assert row["SMD"] == pytest.approx(-1 / 3) and row["RMSE"] == pytest.approx(math.sqrt(1 / 3))


def test_eval_metrics_single_response():
    row = ag.eval_metrics([2], [3])
    assert row["N"] == 1
    assert math.isnan(row["h_sd"]) and math.isnan(row["corr"]) and math.isnan(row["R2"])
    assert math.isnan(row["SMD"])
    assert row["wtkappa"] == 0.0  # 0 / (0 + 0 + 1)
    assert row["kappa"] == 0.0  # disagreement 1, chance agreement 0
    assert row["RMSE"] == 1.0


# ------------------------------------------------------------------------------------------
# human-human consistency
# ------------------------------------------------------------------------------------------
def test_consistency_by_hand_on_double_scored_only():
    nan = float("nan")
    # double-scored rows: H = [1, 2, 3], H2 = [1, 2, 2] (the H, M example); row 4 has no H2
    c = ag.consistency_metrics([1, 2, 3, 4], [1, 2, 2, nan])
    assert list(c) == list(ag.CONSISTENCY_COLUMNS)
    assert c["N"] == 3
    assert (c["h1_mean"], c["h1_sd"]) == (2.0, 1.0)
    assert c["h2_mean"] == pytest.approx(5 / 3) and c["h2_sd"] == pytest.approx(math.sqrt(1 / 3))
    assert c["corr"] == pytest.approx(math.sqrt(3) / 2)
    assert c["wtkappa"] == pytest.approx(2 / 3)
    assert c["kappa"] == pytest.approx(0.5)
    assert c["exact_agr"] == pytest.approx(200 / 3) and c["adj_agr"] == 100.0
    # pooled SMD: (5/3 - 2) / sqrt((1 + 1/3)/2)
    assert c["SMD"] == pytest.approx(-(1 / 3) / math.sqrt(2 / 3))


def test_consistency_by_group():
    nan = float("nan")
    # group a: H = [1, 2], H2 = [1, 3]: exact 50 %, adjacent 100 %; group b: no second rating
    by = ag.consistency_by_group([1, 2, 3], [1, 3, nan], ["a", "a", "b"])
    assert list(by) == ["a", "b"]
    assert by["a"]["N"] == 2 and by["a"]["exact_agr"] == 50.0 and by["a"]["adj_agr"] == 100.0
    # pooled SMD: (2 - 1.5) / sqrt((1/2 + 2) / 2)
    assert by["a"]["SMD"] == pytest.approx(0.5 / math.sqrt(1.25))
    # DSM (RSMTool's consistency_by_<group>): population H = [1, 2, 3] (mean 2, sd 1), H2 over the
    # double-scored [1, 3] (mean 2, sd sqrt 2); group a: mean z_H2 = 0, mean z_H = -1/2 -> 1/2
    assert by["a"]["DSM"] == pytest.approx(0.5)
    # a group without a double-scored response is listed with N = 0 (RSMTool), not left out
    assert by["b"]["N"] == 0 and math.isnan(by["b"]["exact_agr"]) and math.isnan(by["b"]["DSM"])
    assert list(by["a"]) == list(ag.CONSISTENCY_BY_GROUP_COLUMNS)


def test_consistency_none_without_double_scored_responses():
    assert ag.consistency_metrics([1, 2], [float("nan"), float("nan")]) is None


# ------------------------------------------------------------------------------------------
# the whole report on a table
# ------------------------------------------------------------------------------------------
def test_evaluation_report_on_a_table():
    df = pd.DataFrame({
        "gold": [1, 2, 3, 4],
        "machine": [2.4, 1.6, 3.0, 5.0],  # rounds half to even to [2, 2, 3, 5]
        "second": [2, 2, 3, 3],
        "grp": ["g.1", "g.1", "g.2.x", "g.2.x"],
    })
    rep = ag.evaluation_report(df, human="gold", system="machine", human2="second", groups=["grp"], rounded=True)
    assert set(rep) == {"eval", "consistency", "degradation", "disattenuated_correlations", "true_score",
                        "eval_by_grp", "fairness_by_grp", "consistency_by_grp", "disattenuated_correlations_by_grp"}
    assert rep["eval"]["sys_mean"] == 3.0  # the rounded scores [2, 2, 3, 5]
    assert rep["eval_by_grp"]["g.1"]["DSM"] == pytest.approx(-1 / math.sqrt(2) + 1 / math.sqrt(5 / 3))
    # consistency: H = [1,2,3,4], H2 = [2,2,3,3]: exact 2/4, adjacent 4/4
    assert rep["consistency"]["exact_agr"] == 50.0 and rep["consistency"]["adj_agr"] == 100.0
    assert rep["true_score"]["variance_of_errors"] == pytest.approx(0.25)
    rep2 = ag.evaluation_report(df, human="gold", system="machine")
    assert "consistency" not in rep2 and rep2["true_score"]["prmse_true"] is None
    assert rep2["eval"]["sys_mean"] == pytest.approx(3.0)  # (2.4 + 1.6 + 3 + 5) / 4, unrounded


@pytest.mark.parametrize(
    ("frame", "kwargs", "message"),
    [
        (pd.DataFrame({"h": [1, 2]}), dict(human="h", system="m"), "column 'm' not found"),
        (pd.DataFrame({"h": [1, None], "m": [1, 2]}), dict(human="h", system="m"), "column 'h': missing value in row 2"),
        (pd.DataFrame({"h": [1, 2], "m": ["1", "x"]}), dict(human="h", system="m"), "column 'm': non-numeric value 'x' in row 2"),
        (pd.DataFrame({"h": [1, 2], "m": [1, 2], "g": ["a", None]}), dict(human="h", system="m", groups=["g"]), "missing group label in row 2"),
        (pd.DataFrame({"h": [1, 2], "m": [1, 2], "g": ["a", "a"]}), dict(human="h", system="m", groups=["g"]), "at least two groups"),
        (pd.DataFrame({"h": [], "m": []}), dict(human="h", system="m"), "no rows"),
        (pd.DataFrame({"h": range(200), "m": range(200), "id": range(200)}), dict(human="h", system="m", groups=["id"]), "200 distinct labels"),
    ],
)
def test_evaluation_report_bad_input(frame, kwargs, message):
    with pytest.raises(DataError, match=message):
        ag.evaluation_report(frame, **kwargs)


# ------------------------------------------------------------------------------------------
# published numbers: HMCEval Table 1 (machine evaluator vs human labels, MDRDC test set)
# ------------------------------------------------------------------------------------------
def test_machine_accuracy_of_hmceval_table_1(shared_data):
    d = pd.read_csv(shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv", sep="\t")
    row = ag.eval_metrics(d["target"], d["machine_predict"])
    # Table 1: machine accuracy 0.862 -> exact agreement 86.2 % (to the paper's 3 decimals)
    assert row["N"] == 5673
    assert round(row["exact_agr"] / 100, 3) == 0.862
    assert row["adj_agr"] == 100.0  # binary labels: always within 1
    # binary labels: QWK equals Cohen's kappa
    assert row["wtkappa"] == pytest.approx(row["kappa"], abs=1e-12)


def test_pandas_nullable_inputs():
    # a second rating as a nullable integer column: <NA> is "not double-scored"
    h2 = pd.Series([1, 2, None, 4], dtype="Int64")
    assert ag.consistency_metrics([1, 2, 3, 4], h2)["N"] == 3
    # in a score that must be complete it is an error naming the row
    with pytest.raises(DataError, match="y_true: missing or non-finite score in row 3"):
        ag.eval_metrics(h2, [1, 2, 3, 4])
    # booleans are 0/1 scores: [1, 0, 1] vs [1, 0, 0] agree on 2 of 3
    assert ag.exact_agreement(pd.Series([True, False, True]), [1, 0, 0]) == pytest.approx(200 / 3)


def test_prmse_nan_when_true_score_variance_is_zero():
    # every rating is 1: sigma_e^2 = 0, sigma_T^2 = (0 - 0) / (4 - 8/4) = 0 -> PRMSE undefined.
    # MSE(T|M) = (2 (1 - 1)^2 + 2 (1 - 2)^2 - 0) / 4 = 1/2. (RSMTool's division would give -inf.)
    ts = ag.true_score_metrics([[1, 1], [1, 1]], [1, 2])
    assert ts["variance_of_errors"] == 0.0 and ts["true_score_var"] == 0.0
    assert ts["mse_true"] == 0.5
    assert math.isnan(ts["prmse_true"])
