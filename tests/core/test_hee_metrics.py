"""Regression metrics and feature correlations of the effort model (``core.hee.metrics``):
MSE, RMSE, MAE and R2 by hand, min-max normalisation, the paper's significance marks, and
Pearson/Spearman correlations with their p-values by hand (Student t with 3 degrees of
freedom in closed form) and against scipy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.hee.metrics import (METRIC_NAMES, feature_correlations, minmax_normalise,
                              regression_metrics, significance_mark)


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------
def test_regression_metrics_hand_values():
    m = regression_metrics([0, 1, 2, 3], [0, 1, 2, 2])
    # errors 0 0 0 1: MSE 1/4, MAE 1/4, SS_tot = 2.25+0.25+0.25+2.25 = 5 -> R2 = 1 - 1/5
    assert m == pytest.approx({"mse": 0.25, "rmse": 0.5, "mae": 0.25, "r2": 0.8})
    m = regression_metrics([0, 1, 2, 3], [1, 1, 1, 1])
    assert m["r2"] == pytest.approx(1 - (1 + 0 + 1 + 4) / 5)
    assert math.isnan(regression_metrics([2, 2, 2], [1, 2, 3])["r2"])  # constant truth
    one = regression_metrics([3.0], [1.0])
    assert one["mse"] == 4.0 and one["mae"] == 2.0 and math.isnan(one["r2"])
    assert all(math.isnan(v) for v in regression_metrics([], []).values())


def test_minmax_normalise():
    y, lo, hi = minmax_normalise([5, 10, 15, 7.5])
    assert y.tolist() == [0.0, 0.5, 1.0, 0.25] and (lo, hi) == (5.0, 15.0)
    with pytest.raises(DataError, match="constant"):
        minmax_normalise([3, 3, 3])
    with pytest.raises(DataError, match="row 2"):
        minmax_normalise([1, np.nan])


def test_significance_marks():
    assert significance_mark(0.000999) == "**"
    assert significance_mark(0.001) == "*"
    assert significance_mark(0.0499) == "*"
    assert significance_mark(0.05) == ""
    assert significance_mark(float("nan")) == "" and significance_mark(None) == ""


def _t3_two_sided_p(t):
    # Student t with 3 degrees of freedom: CDF = 1/2 + (1/pi) (t / (sqrt3 (1 + t^2/3)) + atan(t/sqrt3))
    cdf = 0.5 + (t / (math.sqrt(3) * (1 + t * t / 3)) + math.atan(t / math.sqrt(3))) / math.pi
    return 2 * (1 - cdf)


def test_feature_correlations_hand_values():
    X = pd.DataFrame({"x": [1, 2, 3, 4, 5], "c": [7, 7, 7, 7, 7]})
    y = [2, 4, 5, 4, 5]
    out = feature_correlations(X, y).set_index("feature")
    # Pearson: sum dx dy = 6, sum dx^2 = 10, sum dy^2 = 6 -> r = 6 / sqrt(60)
    r = 6 / math.sqrt(60)
    assert out.loc["x", "pearson"] == pytest.approx(r, abs=1e-12)
    t = r * math.sqrt(3) / math.sqrt(1 - r * r)
    assert out.loc["x", "pearson_p"] == pytest.approx(_t3_two_sided_p(t), rel=1e-9)
    # Spearman: ranks of y 1, 2.5, 4.5, 2.5, 4.5 -> 7 / sqrt(10 * 9)
    rs = 7 / math.sqrt(90)
    assert out.loc["x", "spearman"] == pytest.approx(rs, abs=1e-12)
    ts = rs * math.sqrt(3) / math.sqrt(1 - rs * rs)
    assert out.loc["x", "spearman_p"] == pytest.approx(_t3_two_sided_p(ts), rel=1e-9)
    assert out.loc["x", "pearson_mark"] == "" and out.loc["x", "spearman_mark"] == ""
    # constant feature: undefined
    assert math.isnan(out.loc["c", "pearson"]) and math.isnan(out.loc["c", "spearman_p"])
    assert out.loc["c", "pearson_mark"] == ""


def test_regression_metrics_refuse_bad_input_naming_rows():
    assert METRIC_NAMES == ("mse", "rmse", "mae", "r2")
    with pytest.raises(DataError, match=r"differ in length \(3 vs 2\)"):
        regression_metrics([1, 2, 3], [1, 2])
    with pytest.raises(DataError, match=r"^y_pred: missing or non-finite value in row 2$"):
        regression_metrics([1, 2], [1, np.inf])
    with pytest.raises(DataError, match=r"^y_true: missing or non-finite value in row 1$"):
        regression_metrics([np.nan, 2], [1, 2])


def test_regression_metrics_equal_scikit_learn():
    from sklearn import metrics as skm

    rng = np.random.default_rng(1)
    t, p = rng.normal(size=50), rng.normal(size=50)
    got = regression_metrics(t, p)
    assert got["mse"] == pytest.approx(skm.mean_squared_error(t, p), rel=1e-12)
    assert got["mae"] == pytest.approx(skm.mean_absolute_error(t, p), rel=1e-12)
    assert got["r2"] == pytest.approx(skm.r2_score(t, p), rel=1e-12)
    assert got["rmse"] == pytest.approx(math.sqrt(got["mse"]))


def test_minmax_normalise_refuses_empty_input():
    with pytest.raises(DataError, match="empty time column"):
        minmax_normalise([])


def test_feature_correlations_equal_scipy_and_refuse_bad_input():
    from scipy import stats

    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=40), "b": rng.integers(0, 5, 40)})
    y = 2 * X["a"] + rng.normal(size=40)
    out = feature_correlations(X, y, labels=["A", "B"]).set_index("feature")
    assert out["label"].tolist() == ["A", "B"]
    for c in ("a", "b"):
        r = stats.pearsonr(X[c], y)
        s = stats.spearmanr(X[c], y)
        assert out.loc[c, "pearson"] == pytest.approx(r.statistic, rel=1e-12)
        assert out.loc[c, "spearman_p"] == pytest.approx(s.pvalue, rel=1e-9)
    assert out.loc["a", "pearson_mark"] == "**"  # strong by construction
    with pytest.raises(DataError, match="the time has 3 values but the features have 40 rows"):
        feature_correlations(X, [1, 2, 3])
    with pytest.raises(DataError, match="row 2"):
        feature_correlations(X.head(2), [1.0, np.nan])
