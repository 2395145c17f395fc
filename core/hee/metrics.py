"""Regression metrics of the effort model (MSE, RMSE, MAE, R2 on min-max normalised time) and feature correlations."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows
from core.hee.columns import numeric_matrix


METRIC_NAMES = ("mse", "rmse", "mae", "r2")


def minmax_normalise(y: Sequence[float] | np.ndarray) -> tuple[np.ndarray, float, float]:
    """Min-max normalise to [0, 1].

    Parameters
    ----------
    y : array-like of shape (n,)

    Returns
    -------
    (ndarray of shape (n,), float, float)
        ``(y - min) / (max - min)``, min and max.

    Raises
    ------
    DataError
        Empty, non-finite or constant input (the normalisation is undefined).
    """
    arr = np.asarray(y, dtype=float)
    if arr.size == 0:
        raise DataError("cannot normalise an empty time column")
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise DataError(f"time values must be finite; {describe_rows(bad)} are not")
    lo, hi = float(arr.min()), float(arr.max())
    if hi == lo:
        raise DataError(f"the annotation time is constant ({lo:g}) in every row: min-max "
                        "normalisation and the regression are undefined")
    return (arr - lo) / (hi - lo), lo, hi


def regression_metrics(y_true: Sequence[float] | np.ndarray,
                       y_pred: Sequence[float] | np.ndarray) -> dict[str, float]:
    """MSE, RMSE, MAE and R2.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)

    Returns
    -------
    dict
        ``mse`` = mean((y - p)^2), ``rmse`` = sqrt(mse), ``mae`` = mean|y - p|,
        ``r2`` = 1 - SS_res / SS_tot; ``r2`` is NaN when ``y_true`` is constant (including a
        single sample), where the coefficient of determination is undefined. All NaN for
        empty input.

    Raises
    ------
    DataError
        Different lengths, or a NaN/inf value (naming the rows).
    """
    t = np.asarray(y_true, dtype=float).ravel()
    p = np.asarray(y_pred, dtype=float).ravel()
    if t.shape != p.shape:
        raise DataError(f"y_true and y_pred differ in length ({t.size} vs {p.size})")
    for name, arr in (("y_true", t), ("y_pred", p)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise DataError(f"{name}: missing or non-finite value in {describe_rows(bad)}")
    if t.size == 0:
        return {k: math.nan for k in METRIC_NAMES}
    err = t - p
    mse = float(np.mean(err ** 2))
    ss_tot = float(np.sum((t - t.mean()) ** 2))
    r2 = math.nan if ss_tot == 0 else 1.0 - float(np.sum(err ** 2)) / ss_tot
    return {"mse": mse, "rmse": math.sqrt(mse), "mae": float(np.mean(np.abs(err))), "r2": r2}


def significance_mark(p: float | None) -> str:
    """The paper's marks: ``"**"`` for p < 0.001, ``"*"`` for p < 0.05, else ``""``."""
    if p is None or not np.isfinite(p):
        return ""
    if p < 0.001:
        return "**"
    if p < 0.05:
        return "*"
    return ""


def feature_correlations(X: pd.DataFrame, y: Sequence[float] | np.ndarray, *,
                         labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Pearson and Spearman correlation of every feature with the real time.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n, n_features)
        Numeric features.
    y : array-like of shape (n,)
        Annotation time.
    labels : sequence of str, optional
        Display names of the features.

    Returns
    -------
    pandas.DataFrame with one row per feature
        ``feature``, ``label``, ``pearson``, ``pearson_p``, ``pearson_mark``, ``spearman``,
        ``spearman_p``, ``spearman_mark``. Coefficients and p-values are scipy's
        (two-sided); both are NaN when the feature or the time is constant or n < 2
        (undefined). With n = 2, r = +-1 and p = 1 (scipy's convention).
    """
    from scipy import stats

    yv = np.asarray(y, dtype=float)
    if len(yv) != len(X):
        raise DataError(f"the time has {len(yv)} values but the features have {len(X)} rows")
    M = numeric_matrix(X, list(X.columns))
    if not np.all(np.isfinite(yv)):
        raise DataError(f"time values must be finite; {describe_rows(np.flatnonzero(~np.isfinite(yv)))} are not")
    labels = list(labels) if labels is not None else [str(c) for c in X.columns]
    rows = []
    y_const = len(yv) < 2 or np.all(yv == yv[0])
    for j, c in enumerate(X.columns):
        x = M[:, j]
        if y_const or np.all(x == x[0]):
            pr = pp = sr = sp = math.nan
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = stats.pearsonr(x, yv)
                s = stats.spearmanr(x, yv)
            pr, pp = float(r.statistic), float(r.pvalue)
            sr, sp = float(s.statistic), float(s.pvalue)
        rows.append({"feature": c, "label": labels[j], "pearson": pr, "pearson_p": pp,
                     "pearson_mark": significance_mark(pp), "spearman": sr, "spearman_p": sp,
                     "spearman_mark": significance_mark(sp)})
    return pd.DataFrame(rows, columns=["feature", "label", "pearson", "pearson_p", "pearson_mark",
                                       "spearman", "spearman_p", "spearman_mark"])
