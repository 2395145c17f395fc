"""True-score metrics (``core.rsm.true_score``): rater error variance, true-score variance,
MSE(T|M) and PRMSE by hand for two ratings per response, a varying number of ratings and a
given error variance (RSMTool's formulas, written out in each test); missing (None) versus
degenerate (NaN); bad ratings refused naming the row."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.rsm import true_score as ag
from core.rsm.true_score import ratings_matrix

M = [1, 2, 2]


# ------------------------------------------------------------------------------------------
# true score
# ------------------------------------------------------------------------------------------
H1 = [1, 2, 3, 4]


H2 = [2, 2, 3, 3]


SYS = [1, 3, 3, 3]


def test_true_score_simple_case_both_formulas():
    # All responses double-scored. Simple formulas of the reference:
    #   sigma_e^2 = sum (H - H2)^2 / (2 N2) = (1 + 0 + 0 + 1) / 8 = 1/4
    #   H^ = [1.5, 2, 3, 3.5]; var(H^, ddof 1) = (1 + 1/4 + 1/4 + 1) / 3 = 5/6
    #   sigma_T^2 = 5/6 - (1/2)(1/4) = 17/24
    #   MSE(H^|M) = (1/4 + 1 + 0 + 1/4) / 4 = 3/8 ; MSE(T|M) = 3/8 - 1/8 = 1/4
    # General formulas (c_i = 2, c. = 8, grand mean 2.5, N = 4):
    #   sigma_T^2 = (2 (1 + 1/4 + 1/4 + 1) - 3/4) / (8 - 32/8) = (17/4) / 6 = 17/24
    #   MSE(T|M) = (2 (1/4 + 1 + 0 + 1/4) - 4/4) / 8 = 1/4
    #   PRMSE = 1 - (1/4) / (17/24) = 1 - 6/17 = 11/17
    ratings = np.column_stack([H1, H2])
    assert ag.variance_of_errors(ratings) == pytest.approx(1 / 4, abs=1e-15)
    assert ag.true_score_variance(ratings) == pytest.approx(17 / 24, abs=1e-15)
    assert ag.mse_true(ratings, SYS) == pytest.approx(1 / 4, abs=1e-15)
    assert ag.prmse_true(ratings, SYS) == pytest.approx(11 / 17, abs=1e-15)


def test_true_score_general_varying_number_of_ratings():
    # ratings [1,2,3], [2,2], [4]; M = [2, 2, 3]
    #   V_1 = 1 (c=3), V_2 = 0 (c=2) -> sigma_e^2 = (1*2 + 0*1) / (2 + 1) = 2/3
    #   means [2, 2, 4], c = [3, 2, 1], c. = 6, grand mean (6 + 4 + 4)/6 = 7/3
    #   sum c_i (mean_i - 7/3)^2 = 3/9 + 2/9 + 25/9 = 10/3 ; minus (N-1) sigma_e^2 = 4/3 -> 2
    #   denominator 6 - (9 + 4 + 1)/6 = 11/3 -> sigma_T^2 = 6/11
    #   MSE(T|M) = (3*0 + 2*0 + 1*1 - 3 * 2/3) / 6 = -1/6
    #   PRMSE = 1 + (1/6)/(6/11) = 47/36 (above 1: the reference allows it on small samples)
    nan = float("nan")
    ratings = [[1, 2, 3], [2, 2, nan], [4, nan, nan]]
    assert ag.variance_of_errors(ratings) == pytest.approx(2 / 3, abs=1e-15)
    assert ag.true_score_variance(ratings) == pytest.approx(6 / 11, abs=1e-15)
    assert ag.mse_true(ratings, [2, 2, 3]) == pytest.approx(-1 / 6, abs=1e-15)
    assert ag.prmse_true(ratings, [2, 2, 3]) == pytest.approx(47 / 36, abs=1e-14)


def test_true_score_given_error_variance():
    # a user-supplied rater error variance makes single-scored data usable:
    # H = [1, 2, 3], M = [1, 2, 2], sigma_e^2 = 1/2: c = 1 each, c. = 3
    #   sigma_T^2 = (2 - 2 * 1/2) / (3 - 1) = 1/2 ; MSE(T|M) = (1 - 3/2) / 3 = -1/6
    #   PRMSE = 1 + (1/6) / (1/2) = 4/3
    assert ag.prmse_true([1, 2, 3], M, variance_errors=0.5) == pytest.approx(4 / 3, abs=1e-15)


def test_true_score_rejects_response_without_rating():
    with pytest.raises(DataError, match="row 2"):
        ag.variance_of_errors([[1, 2], [float("nan"), float("nan")]])


def test_hand_worked_true_score():
    ratings = [[1, 2], [2, 2], [3, 4], [4, 4]]
    # per-response variances 0.5, 0, 0.5, 0 with one degree of freedom each: sigma_e^2 = 1/4
    # means 1.5, 2, 3.5, 4, grand mean 2.75: sigma_T^2 = (2 * 4.25 - 3/4) / (8 - 16/8) = 7.75/6
    # system 2, 2, 3, 5: sum c_i (mean_i - M_i)^2 = 2 * 1.5 = 3; MSE(T|M) = (3 - 4/4) / 8 = 1/4
    assert ag.mse_true(ratings, [2, 2, 3, 5]) == pytest.approx(0.25)
    assert ag.prmse_true(ratings, [2, 2, 3, 5]) == pytest.approx(1 - 0.25 / (7.75 / 6))
    assert ag.prmse_true(ratings, [2, 2, 3, 5]) == pytest.approx(25 / 31)


def test_ratings_matrix_shapes_and_refusals():
    assert ratings_matrix([1, 2, 3]).shape == (3, 1)
    frame = pd.DataFrame({"h1": [1, 2], "h2": [None, 3]})
    got = ratings_matrix(frame)
    assert got.shape == (2, 2) and math.isnan(got[0, 1])
    with pytest.raises(DataError, match="^human_scores: no responses$"):
        ratings_matrix(np.empty((0, 2)))
    with pytest.raises(DataError, match=r"infinite rating in row 2"):
        ratings_matrix([[1, 2], [np.inf, 1]])
    with pytest.raises(DataError, match="ratings must be numeric"):
        ratings_matrix([["a", 1]])
    with pytest.raises(DataError, match=r"expected shape \(n_samples, n_ratings\)"):
        ratings_matrix(np.ones((2, 2, 2)))


def test_mse_and_prmse_refuse_system_scores_of_another_length():
    with pytest.raises(DataError, match=r"differ in length \(2 vs 3\)"):
        ag.mse_true([[1, 2], [2, 3]], [1, 2, 3])
    with pytest.raises(DataError, match=r"differ in length \(2 vs 1\)"):
        ag.prmse_true([[1, 2], [2, 3]], [1])
    with pytest.raises(DataError, match="y_pred: missing"):
        ag.prmse_true([[1, 2], [2, 3]], [1, np.nan])


def test_a_perfect_system_on_error_free_ratings_has_prmse_one():
    rng = np.random.default_rng(0)
    t = rng.normal(3, 1, 200)
    ratings = np.column_stack([t, t])  # raters agree exactly: sigma_e^2 = 0
    assert ag.variance_of_errors(ratings) == 0.0
    assert ag.true_score_variance(ratings) == pytest.approx(np.var(t, ddof=1), rel=1e-12)
    assert ag.prmse_true(ratings, t) == pytest.approx(1.0, abs=1e-12)
    # the mean as a predictor explains nothing: PRMSE = 1 - var(T, ddof 0) / var(T, ddof 1)
    const = np.full(200, t.mean())
    assert ag.prmse_true(ratings, const) == pytest.approx(1 - 199 / 200, abs=1e-12)
