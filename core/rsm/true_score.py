"""True-score metrics for any number of ratings per response: rater error variance, true-score variance, MSE(T|M), PRMSE."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pandas as pd

from core.errors import DataError, describe_rows
from core.rsm.checks import as_scores


def ratings_matrix(human_scores: npt.ArrayLike) -> np.ndarray:
    """Human ratings as a float matrix of shape (n_responses, n_raters); NaN marks a missing rating."""
    if isinstance(human_scores, pd.DataFrame):
        human_scores = human_scores.to_numpy(dtype=float)
    try:
        arr = np.asarray(human_scores, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"human_scores: ratings must be numeric ({exc})") from None
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise DataError(f"human_scores: expected shape (n_samples, n_ratings), got {arr.shape}")
    if arr.shape[0] == 0:
        raise DataError("human_scores: no responses")
    if np.isinf(arr).any():
        raise DataError(f"human_scores: infinite rating in {describe_rows(np.flatnonzero(np.isinf(arr).any(axis=1)))}")
    none = np.flatnonzero(np.isnan(arr).all(axis=1))
    if none.size:
        raise DataError(f"human_scores: no rating at all in {describe_rows(none)}")
    return arr


def _counts_means(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    present = ~np.isnan(arr)
    c = present.sum(axis=1).astype(float)
    means = np.where(present, arr, 0.0).sum(axis=1) / c
    return c, means


def variance_of_errors(human_scores: npt.ArrayLike) -> float | None:
    """Rater error variance: pooled within-response variance (``variance_of_errors``).

    ``sigma_e^2 = sum_i V_i (c_i - 1) / sum_i (c_i - 1)`` over responses with ``c_i >= 2``
    ratings, where ``V_i`` is the variance of response i's ratings with divisor ``c_i - 1``.

    Parameters
    ----------
    human_scores : array-like of shape (n_samples, n_ratings)
        Ratings per response; NaN where a rater did not score the response. Every response
        needs at least one rating.

    Returns
    -------
    float or None
        None (missing) when no response has two or more ratings.
    """
    arr = ratings_matrix(human_scores)
    c, means = _counts_means(arr)
    multi = c > 1
    if not multi.any():
        return None
    dev = np.where(np.isnan(arr[multi]), 0.0, arr[multi] - means[multi, None])
    # sum_i V_i (c_i - 1) = sum_i sum_j (H_ij - mean_i)^2
    return float((dev**2).sum() / (c[multi] - 1).sum())


def true_score_variance(human_scores: npt.ArrayLike, *, variance_errors: float | None = None) -> float | None:
    """True-score variance ``sigma_T^2`` (``true_score_var``).

    ``(sum_i c_i (mean_i - mean)^2 - (N - 1) sigma_e^2) / (c. - sum_i c_i^2 / c.)`` where
    ``mean`` is the mean of all ``c.`` observed ratings.

    Parameters
    ----------
    human_scores : array-like of shape (n_samples, n_ratings)
        Ratings per response, NaN where missing.
    variance_errors : float, optional
        Rater error variance; estimated with :func:`variance_of_errors` when omitted.

    Returns
    -------
    float or None
        None when the error variance is undefined (no response with 2+ ratings); NaN when the
        denominator is 0 (a single response).
    """
    arr = ratings_matrix(human_scores)
    if variance_errors is None:
        variance_errors = variance_of_errors(arr)
        if variance_errors is None:
            return None
    c, means = _counts_means(arr)
    n = arr.shape[0]
    total = c.sum()
    grand_mean = np.nansum(arr) / total
    numerator = float((c * (means - grand_mean) ** 2).sum() - (n - 1) * variance_errors)
    denominator = float(total - (c**2).sum() / total)
    if denominator == 0:
        return math.nan
    return numerator / denominator


def mse_true(human_scores: npt.ArrayLike, y_pred: npt.ArrayLike, *, variance_errors: float | None = None) -> float | None:
    """Mean squared error of the system score as a predictor of the true score (``mse_true``).

    ``MSE(T|M) = (sum_i c_i (mean_i - M_i)^2 - N sigma_e^2) / c.``

    Parameters
    ----------
    human_scores : array-like of shape (n_samples, n_ratings)
        Ratings per response, NaN where missing.
    y_pred : array-like of shape (n_samples,)
        System scores M.
    variance_errors : float, optional
        Rater error variance; estimated with :func:`variance_of_errors` when omitted.

    Returns
    -------
    float or None
        None when the error variance is undefined.
    """
    arr = ratings_matrix(human_scores)
    m = as_scores(y_pred, "y_pred")
    if m.shape[0] != arr.shape[0]:
        raise DataError(f"human_scores and y_pred differ in length ({arr.shape[0]} vs {m.shape[0]})")
    if variance_errors is None:
        variance_errors = variance_of_errors(arr)
        if variance_errors is None:
            return None
    c, means = _counts_means(arr)
    return float(((c * (means - m) ** 2).sum() - arr.shape[0] * variance_errors) / c.sum())


def prmse_true(human_scores: npt.ArrayLike, y_pred: npt.ArrayLike, *, variance_errors: float | None = None) -> float | None:
    """Proportional reduction in mean squared error for true scores (``prmse_true``).

    ``PRMSE = 1 - MSE(T|M) / sigma_T^2``.

    Parameters
    ----------
    human_scores : array-like of shape (n_samples, n_ratings)
        Ratings per response, NaN where missing (the "y_true" of this metric).
    y_pred : array-like of shape (n_samples,)
        System scores M.
    variance_errors : float, optional
        Rater error variance; estimated with :func:`variance_of_errors` when omitted.

    Returns
    -------
    float or None
        None (missing) when no response has two or more ratings and no error variance is given;
        NaN when the true-score variance is 0 or NaN.
    """
    arr = ratings_matrix(human_scores)
    m = as_scores(y_pred, "y_pred")
    if m.shape[0] != arr.shape[0]:
        raise DataError(f"human_scores and y_pred differ in length ({arr.shape[0]} vs {m.shape[0]})")
    if variance_errors is None:
        variance_errors = variance_of_errors(arr)
        if variance_errors is None:
            return None
    var_t = true_score_variance(arr, variance_errors=variance_errors)
    mse = mse_true(arr, y_pred, variance_errors=variance_errors)
    if var_t is None or mse is None or math.isnan(var_t) or var_t == 0:
        return math.nan
    return 1.0 - mse / var_t
