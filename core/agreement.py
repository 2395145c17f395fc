"""Agreement between an evaluator and the gold (human) scores, in RSMTool's conventions.

Every function follows the definitions of ``../shared/reference/rsmtool-evaluation-metrics.txt``
(RSMTool 7+, SKLL's kappa) including their edge cases:

* percent exact / exact + adjacent agreement compare the scores as given (``|M - H| <= tol``);
* Cohen's kappa rounds both sides half to even to integers (SKLL), the label range runs from the
  lowest to the highest label over both raters and kappa is 1 when only one label occurs;
* quadratic weighted kappa is Haberman's continuous formula with ``ddof=0``;
* Pearson r is NaN for fewer than 2 responses or when either side is constant;
* SMD is ``(mean M - mean H) / denominator`` with sds of ``ddof=1``; NaN when the denominator
  is exactly 0;
* R2 is ``sklearn.metrics.r2_score`` (what RSMTool calls): ``1 - SS_res / SS_tot`` with the
  ``force_finite`` convention (1.0 when the human scores are constant and predicted exactly,
  0.0 when constant and not), NaN for a single response;
* the true-score metrics (rater error variance, true-score variance, MSE(T|M), PRMSE) use the
  general formulas for any number of ratings per response; they are *missing* (``None``) when no
  response has two or more ratings, which is distinct from NaN;
* DSM is the mean of ``z_M - z_H`` with the whole evaluation set's means and sds (``ddof=1``);
  missing (``None``) when either population sd is within ``1e-7`` of 0.

Zero scores are never excluded (RSMTool with ``exclude_zero_scores: false``): HMCEval labels are
0/1. Result tables use RSMTool's column names (:data:`EVAL_COLUMNS`, :data:`CONSISTENCY_COLUMNS`,
:data:`TRUE_SCORE_COLUMNS`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from core.errors import DataError, describe_rows

try:  # scikit-learn's dependency; optional here
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = None

__all__ = [
    "EVAL_COLUMNS",
    "EVAL_BY_GROUP_COLUMNS",
    "CONSISTENCY_COLUMNS",
    "TRUE_SCORE_COLUMNS",
    "DSM_TOLERANCE",
    "MAX_GROUPS",
    "round_half_even",
    "agreement",
    "exact_agreement",
    "adjacent_agreement",
    "cohen_kappa",
    "quadratic_weighted_kappa",
    "pearson_r",
    "standardized_mean_difference",
    "mean_squared_error",
    "root_mean_squared_error",
    "r2_score",
    "variance_of_errors",
    "true_score_variance",
    "mse_true",
    "prmse_true",
    "difference_of_standardized_means",
    "dsm_by_group",
    "eval_metrics",
    "eval_by_group",
    "consistency_metrics",
    "consistency_by_group",
    "true_score_metrics",
    "group_order",
    "evaluation_report",
]

#: Columns of the human-system evaluation table (RSMTool's ``eval`` file, in its order).
EVAL_COLUMNS: tuple[str, ...] = (
    "N", "h_mean", "h_sd", "h_min", "h_max", "sys_mean", "sys_sd", "sys_min", "sys_max",
    "corr", "wtkappa", "R2", "kappa", "exact_agr", "adj_agr", "SMD", "RMSE",
)
#: Columns of the per-subgroup table: the evaluation columns plus DSM.
EVAL_BY_GROUP_COLUMNS: tuple[str, ...] = EVAL_COLUMNS + ("DSM",)
#: Columns of the human-human consistency table (RSMTool's ``consistency`` file).
CONSISTENCY_COLUMNS: tuple[str, ...] = (
    "N", "h1_mean", "h1_sd", "h1_min", "h1_max", "h2_mean", "h2_sd", "h2_min", "h2_max",
    "corr", "wtkappa", "kappa", "exact_agr", "adj_agr", "SMD",
)
#: Columns of the true-score evaluation.
TRUE_SCORE_COLUMNS: tuple[str, ...] = (
    "N", "N_single", "N_multiple", "variance_of_errors", "true_score_var", "mse_true", "prmse_true",
)
#: A population sd within this distance of 0 makes DSM missing (RSMTool's ``np.isclose`` atol).
DSM_TOLERANCE = 1e-7
#: Most distinct labels a subgroup column may have (more is most likely an id column).
MAX_GROUPS = 100


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------
def _float_array(x: npt.ArrayLike, name: str) -> np.ndarray:
    """A 1-D float array; missing values (None, NaN, ``pd.NA``) become NaN."""
    if isinstance(x, (pd.Series, pd.Index)):
        if pd.api.types.is_numeric_dtype(x.dtype) or pd.api.types.is_bool_dtype(x.dtype):
            x = x.to_numpy(dtype=float, na_value=np.nan)
        else:
            x = x.to_numpy(dtype=object)
    arr = np.asarray(x)
    if arr.dtype == object:
        missing = pd.isna(arr)
        if missing.any():
            arr = np.where(missing, np.nan, arr)
    try:
        arr = np.asarray(arr, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name}: scores must be numeric ({exc})") from None
    if arr.ndim != 1:
        raise DataError(f"{name}: expected a 1-D array of scores, got shape {arr.shape}")
    return arr


def _as_scores(x: npt.ArrayLike, name: str) -> np.ndarray:
    """A 1-D float array without NaN/inf; ``DataError`` naming ``name`` and the rows otherwise."""
    arr = _float_array(x, name)
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise DataError(f"{name}: missing or non-finite score in {describe_rows(bad)}")
    return arr


def _optional_scores(x: npt.ArrayLike, n: int, name: str) -> np.ndarray:
    """Like :func:`_as_scores` but missing values stay NaN (a second rating that may be absent)."""
    arr = _float_array(x, name)
    if arr.shape[0] != n:
        raise DataError(f"{name}: expected {n} ratings, got {arr.shape[0]}")
    bad = np.flatnonzero(np.isinf(arr))
    if bad.size:
        raise DataError(f"{name}: infinite rating in {describe_rows(bad)}")
    return arr


def _pair(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, allow_empty: bool = False) -> tuple[np.ndarray, np.ndarray]:
    h = _as_scores(y_true, "y_true")
    m = _as_scores(y_pred, "y_pred")
    if h.shape[0] != m.shape[0]:
        raise DataError(f"y_true and y_pred differ in length ({h.shape[0]} vs {m.shape[0]})")
    if h.shape[0] == 0 and not allow_empty:
        raise DataError("no responses to evaluate (y_true and y_pred are empty)")
    return h, m


def _one_blas_thread():
    """Context limiting BLAS to one thread.

    The work here is memory-bound vector arithmetic and thin least squares; on a busy machine
    a multi-threaded BLAS spins for each tiny call and runs up to 100x slower (measured with
    ``bench/agreement.py``), so the report functions run single-threaded.
    """
    if _threadpool_limits is None:  # pragma: no cover
        import contextlib

        return contextlib.nullcontext()
    return _threadpool_limits(limits=1, user_api="blas")


def _sd(x: np.ndarray, ddof: int = 1) -> float:
    """Standard deviation; NaN (silently) when there are not more than ``ddof`` values."""
    n = x.shape[0]
    if n - ddof <= 0:
        return math.nan
    return float(np.std(x, ddof=ddof))


def _is_constant(x: np.ndarray) -> bool:
    return bool(np.all(x == x[0]))


# --------------------------------------------------------------------------------------------
# observed-score metrics
# --------------------------------------------------------------------------------------------
def round_half_even(x: npt.ArrayLike) -> np.ndarray:
    """Round scores to the nearest integer, halves to even (``numpy.rint``; SKLL, RSMTool).

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Numeric scores.

    Returns
    -------
    ndarray of shape (n_samples,), dtype int64
        ``0.5 -> 0``, ``1.5 -> 2``, ``2.5 -> 2``, ``-0.5 -> 0``.
    """
    arr = _as_scores(x, "scores")
    return np.rint(arr).astype(np.int64)


def agreement(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, tolerance: float = 0) -> float:
    """Percentage of responses with ``|y_pred - y_true| <= tolerance``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human (gold) scores H.
    y_pred : array-like of shape (n_samples,)
        System scores M (or a second rater's).
    tolerance : float, default=0
        0 for exact agreement, 1 for exact + adjacent agreement.

    Returns
    -------
    float
        A percentage in [0, 100].
    """
    h, m = _pair(y_true, y_pred)
    return float(np.count_nonzero(np.abs(m - h) <= tolerance) / h.shape[0] * 100.0)


def exact_agreement(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Percent exact agreement (``exact_agr``): :func:`agreement` with tolerance 0."""
    return agreement(y_true, y_pred, tolerance=0)


def adjacent_agreement(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Percent exact + adjacent agreement (``adj_agr``): :func:`agreement` with tolerance 1."""
    return agreement(y_true, y_pred, tolerance=1)


def cohen_kappa(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Unweighted Cohen's kappa in SKLL's convention (``kappa``).

    Both sides are rounded half to even to integers; the label set runs from the minimum to the
    maximum label over both raters (labels missing in between are added), shifted so that the
    lowest is 0. Kappa is ``1 - sum(w * X) / sum(w * m)`` with ``w_jk = [j != k]``, observed
    proportions ``X`` and chance proportions ``m_jk = p_j q_k``. With a single label overall
    (all weights 0) kappa is 1. Labels added between min and max have zero marginals, so they
    change no sum: the computation runs over the labels that occur.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human scores.
    y_pred : array-like of shape (n_samples,)
        System scores.

    Returns
    -------
    float
        Kappa in [-1, 1].
    """
    h, m = _pair(y_true, y_pred)
    hi = np.rint(h).astype(np.int64)
    mi = np.rint(m).astype(np.int64)
    lo, top = min(hi.min(), mi.min()), max(hi.max(), mi.max())
    if lo == top:
        return 1.0
    n = float(h.shape[0])
    observed_disagreement = np.count_nonzero(hi != mi) / n
    labels, inverse = np.unique(np.concatenate([hi, mi]), return_inverse=True)
    k = labels.shape[0]
    p = np.bincount(inverse[: h.shape[0]], minlength=k) / n
    q = np.bincount(inverse[h.shape[0]:], minlength=k) / n
    expected_disagreement = 1.0 - float(np.dot(p, q))
    return float(1.0 - observed_disagreement / expected_disagreement)


def quadratic_weighted_kappa(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, ddof: int = 0) -> float:
    """Quadratic weighted kappa for continuous scores (``wtkappa``, Haberman 2019).

    ``QWK = 2 Cov(M, H) / (Var(H) + Var(M) + (mean M - mean H)^2)`` with divisor ``N - ddof``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human scores.
    y_pred : array-like of shape (n_samples,)
        System scores.
    ddof : int, default=0
        Delta degrees of freedom of the variances and the covariance (RSMTool uses 0).

    Returns
    -------
    float
        NaN when the denominator is 0 (both sides constant with equal means).
    """
    h, m = _pair(y_true, y_pred)
    n = h.shape[0]
    if n - ddof <= 0:
        return math.nan
    hm, mm = h.mean(), m.mean()
    dh, dm = h - hm, m - mm
    cov = float(np.dot(dh, dm)) / (n - ddof)
    var_h = float(np.dot(dh, dh)) / (n - ddof)
    var_m = float(np.dot(dm, dm)) / (n - ddof)
    denominator = var_h + var_m + float(mm - hm) ** 2
    if denominator == 0:
        return math.nan
    return 2.0 * cov / denominator


def pearson_r(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Pearson's correlation coefficient (``corr``).

    Computed as in scipy >= 1.4: the dot product of the two centred, L2-normalised vectors,
    clipped to [-1, 1].

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Human and system scores.

    Returns
    -------
    float
        NaN for fewer than 2 responses or when either side has a single unique value.
    """
    h, m = _pair(y_true, y_pred)
    if h.shape[0] < 2 or _is_constant(h) or _is_constant(m):
        return math.nan
    dh, dm = h - h.mean(), m - m.mean()
    r = float(np.dot(dh / np.linalg.norm(dh), dm / np.linalg.norm(dm)))
    return max(-1.0, min(1.0, r))


def standardized_mean_difference(
    y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, method: str = "unpooled", ddof: int = 1
) -> float:
    """Standardised mean difference ``(mean M - mean H) / denominator`` (``SMD``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human scores H (first rater for human-human SMD).
    y_pred : array-like of shape (n_samples,)
        System scores M (second rater H2 for human-human SMD).
    method : {"unpooled", "pooled"}, default="unpooled"
        ``"unpooled"``: the sd of H (human-system SMD). ``"pooled"``:
        ``sqrt((sd_H^2 + sd_M^2) / 2)`` (human-human SMD).
    ddof : int, default=1
        Delta degrees of freedom of the sds.

    Returns
    -------
    float
        NaN when the denominator is exactly 0 (or undefined, e.g. one response with ``ddof=1``).
    """
    h, m = _pair(y_true, y_pred)
    numerator = float(m.mean() - h.mean())
    if method == "unpooled":
        denominator = _sd(h, ddof)
    elif method == "pooled":
        denominator = math.sqrt((_sd(h, ddof) ** 2 + _sd(m, ddof) ** 2) / 2.0)
    else:
        raise DataError(f"method: expected 'unpooled' or 'pooled', got {method!r}")
    if math.isnan(denominator) or denominator == 0:
        return math.nan
    return numerator / denominator


def mean_squared_error(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Mean squared error ``MSE(H|M) = mean((H - M)^2)``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Human and system scores.

    Returns
    -------
    float
    """
    h, m = _pair(y_true, y_pred)
    d = h - m
    return float(np.dot(d, d) / h.shape[0])


def root_mean_squared_error(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Root mean squared error (``RMSE``), the square root of :func:`mean_squared_error`."""
    return math.sqrt(mean_squared_error(y_true, y_pred))


def r2_score(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Proportional reduction in mean squared error for observed scores (``R2``).

    ``1 - SS_res / SS_tot`` with ``SS_tot = sum((H - mean H)^2)``: the ``sklearn.metrics.r2_score``
    that RSMTool calls, i.e. ``1 - MSE(H|M) / Var(H)`` with the ``ddof=0`` variance.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Human and system scores.

    Returns
    -------
    float
        NaN for a single response. When the human scores are constant (``SS_tot == 0``):
        1.0 if the system reproduces them exactly, else 0.0 (scikit-learn's ``force_finite``).
    """
    h, m = _pair(y_true, y_pred)
    if h.shape[0] == 1:
        return math.nan
    d = h - m
    ss_res = float(np.dot(d, d))
    c = h - h.mean()
    ss_tot = float(np.dot(c, c))
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return 1.0 - ss_res / ss_tot


# --------------------------------------------------------------------------------------------
# true-score metrics
# --------------------------------------------------------------------------------------------
def _ratings_matrix(human_scores: npt.ArrayLike) -> np.ndarray:
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
    arr = _ratings_matrix(human_scores)
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
    arr = _ratings_matrix(human_scores)
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
    arr = _ratings_matrix(human_scores)
    m = _as_scores(y_pred, "y_pred")
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
    arr = _ratings_matrix(human_scores)
    if variance_errors is None:
        variance_errors = variance_of_errors(arr)
        if variance_errors is None:
            return None
    var_t = true_score_variance(arr, variance_errors=variance_errors)
    mse = mse_true(arr, y_pred, variance_errors=variance_errors)
    if var_t is None or mse is None or math.isnan(var_t) or var_t == 0:
        return math.nan
    return 1.0 - mse / var_t


# --------------------------------------------------------------------------------------------
# subgroup differences
# --------------------------------------------------------------------------------------------
def difference_of_standardized_means(
    y_true: npt.ArrayLike,
    y_pred: npt.ArrayLike,
    *,
    population_true_mean: float,
    population_true_sd: float,
    population_pred_mean: float,
    population_pred_sd: float,
) -> float | None:
    """Difference of standardised means of one subgroup (``DSM``).

    ``mean_i(z_M_i - z_H_i)`` with ``z_H = (H - population mean H) / population sd H`` and
    likewise for M, the population being the whole evaluation set.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_group,)
        Human and system scores of the subgroup.
    population_true_mean, population_true_sd : float
        Mean and sd (``ddof=1``) of the human scores over the whole evaluation set.
    population_pred_mean, population_pred_sd : float
        Mean and sd (``ddof=1``) of the system scores over the whole evaluation set.

    Returns
    -------
    float or None
        None (missing) when either population sd is within ``1e-7`` of 0; NaN when a population
        sd is NaN (a one-response evaluation set).
    """
    h, m = _pair(y_true, y_pred)
    if abs(population_true_sd) <= DSM_TOLERANCE or abs(population_pred_sd) <= DSM_TOLERANCE:
        return None
    z = (m - population_pred_mean) / population_pred_sd - (h - population_true_mean) / population_true_sd
    return float(z.mean())


def group_order(groups: npt.ArrayLike | pd.Series) -> list[Hashable]:
    """Group labels ordered by size (largest first), ties broken by label in ascending order.

    The first label is RSMTool's reference (base) category; labels keep their type.

    Parameters
    ----------
    groups : array-like of shape (n_samples,)
        Group membership.

    Returns
    -------
    list
        Distinct labels.
    """
    counts = pd.Series(np.asarray(groups, dtype=object), dtype=object).value_counts(sort=False)
    frame = pd.DataFrame({"label": counts.index.to_list(), "count": counts.to_numpy()})
    try:
        frame = frame.sort_values(["count", "label"], ascending=[False, True], kind="mergesort")
    except TypeError:  # labels of mixed types: order ties by their text
        frame["text"] = frame["label"].map(str)
        frame = frame.sort_values(["count", "text"], ascending=[False, True], kind="mergesort")
    return frame["label"].to_list()


def _check_groups(groups: npt.ArrayLike | pd.Series, n: int, name: str = "groups") -> np.ndarray:
    if isinstance(groups, (pd.Series, pd.Index)):
        g = groups.to_numpy(dtype=object)
    else:
        g = np.asarray(groups, dtype=object)
    if g.ndim != 1 or g.shape[0] != n:
        raise DataError(f"{name}: {g.shape[0] if g.ndim else 0} group labels for {n} responses")
    bad = np.flatnonzero(pd.isna(g))
    if bad.size:
        raise DataError(f"{name}: missing group label in {describe_rows(bad)}")
    return g


def _levels(g: np.ndarray, name: str) -> list[Hashable]:
    levels = group_order(g)
    if len(levels) > MAX_GROUPS:
        raise DataError(
            f"{name}: {len(levels)} distinct labels; subgroup analyses take at most {MAX_GROUPS} "
            "(is it an id column?)"
        )
    return levels


def dsm_by_group(
    y_true: npt.ArrayLike, y_pred: npt.ArrayLike, groups: npt.ArrayLike
) -> dict[Hashable, float | None]:
    """DSM of every subgroup, standardised with the whole evaluation set.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Human and system scores of the whole evaluation set.
    groups : array-like of shape (n_samples,)
        Group membership.

    Returns
    -------
    dict
        Group label -> DSM (None when missing), in :func:`group_order`.
    """
    h, m = _pair(y_true, y_pred)
    g = _check_groups(groups, h.shape[0])
    pop = dict(
        population_true_mean=float(h.mean()), population_true_sd=_sd(h),
        population_pred_mean=float(m.mean()), population_pred_sd=_sd(m),
    )
    out: dict[Hashable, float | None] = {}
    for label in _levels(g, "groups"):
        mask = g == label
        out[label] = difference_of_standardized_means(h[mask], m[mask], **pop)
    return out


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------
def eval_metrics(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> dict[str, Any]:
    """The human-system evaluation row (RSMTool's ``eval``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human (gold) scores.
    y_pred : array-like of shape (n_samples,)
        System scores.

    Returns
    -------
    dict
        :data:`EVAL_COLUMNS` -> value (``N`` an int, the rest floats, NaN where undefined).
    """
    h, m = _pair(y_true, y_pred)
    return _eval_row(h, m)


def _eval_row(h: np.ndarray, m: np.ndarray) -> dict[str, Any]:
    return {
        "N": int(h.shape[0]),
        "h_mean": float(h.mean()), "h_sd": _sd(h), "h_min": float(h.min()), "h_max": float(h.max()),
        "sys_mean": float(m.mean()), "sys_sd": _sd(m), "sys_min": float(m.min()), "sys_max": float(m.max()),
        "corr": pearson_r(h, m),
        "wtkappa": quadratic_weighted_kappa(h, m),
        "R2": r2_score(h, m),
        "kappa": cohen_kappa(h, m),
        "exact_agr": agreement(h, m, tolerance=0),
        "adj_agr": agreement(h, m, tolerance=1),
        "SMD": standardized_mean_difference(h, m, method="unpooled"),
        "RMSE": root_mean_squared_error(h, m),
    }


def _group_rows(h: np.ndarray, m: np.ndarray, g: np.ndarray) -> dict[Hashable, dict[str, Any]]:
    dsm = dsm_by_group(h, m, g)
    rows: dict[Hashable, dict[str, Any]] = {}
    for label, value in dsm.items():
        mask = g == label
        row = _eval_row(h[mask], m[mask])
        row["DSM"] = value
        rows[label] = row
    return rows


def eval_by_group(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, groups: npt.ArrayLike) -> pd.DataFrame:
    """The evaluation row of every subgroup, with DSM (RSMTool's ``eval_by_<group>``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Human and system scores of the whole evaluation set.
    groups : array-like of shape (n_samples,)
        Group membership (any hashable labels; dots and spaces allowed).

    Returns
    -------
    pandas.DataFrame
        One row per group (index: the labels in :func:`group_order`), columns
        :data:`EVAL_BY_GROUP_COLUMNS`. ``DSM`` has object dtype so that a missing value stays
        ``None``, distinct from NaN.
    """
    h, m = _pair(y_true, y_pred)
    g = _check_groups(groups, h.shape[0])
    rows = _group_rows(h, m, g)
    index = pd.Index(list(rows), dtype=object, name="group")
    table = pd.DataFrame(
        {c: [rows[k][c] for k in rows] for c in EVAL_COLUMNS}, index=index, columns=list(EVAL_COLUMNS)
    )
    table["DSM"] = pd.Series([rows[k]["DSM"] for k in rows], index=index, dtype=object)
    return table


def consistency_metrics(y_true: npt.ArrayLike, y_true2: npt.ArrayLike) -> dict[str, Any] | None:
    """Human-human agreement on the double-scored responses (RSMTool's ``consistency``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        First human rating H (complete).
    y_true2 : array-like of shape (n_samples,)
        Second human rating H2; NaN where the response was not double-scored.

    Returns
    -------
    dict or None
        :data:`CONSISTENCY_COLUMNS` -> value over the ``N_2`` responses with both ratings
        (SMD with the pooled denominator); None when no response has both ratings.
    """
    h = _as_scores(y_true, "y_true")
    h2 = _optional_scores(y_true2, h.shape[0], "y_true2")
    both = ~np.isnan(h2)
    if not both.any():
        return None
    a, b = h[both], h2[both]
    return {
        "N": int(a.shape[0]),
        "h1_mean": float(a.mean()), "h1_sd": _sd(a), "h1_min": float(a.min()), "h1_max": float(a.max()),
        "h2_mean": float(b.mean()), "h2_sd": _sd(b), "h2_min": float(b.min()), "h2_max": float(b.max()),
        "corr": pearson_r(a, b),
        "wtkappa": quadratic_weighted_kappa(a, b),
        "kappa": cohen_kappa(a, b),
        "exact_agr": agreement(a, b, tolerance=0),
        "adj_agr": agreement(a, b, tolerance=1),
        "SMD": standardized_mean_difference(a, b, method="pooled"),
    }


def consistency_by_group(
    y_true: npt.ArrayLike, y_true2: npt.ArrayLike, groups: npt.ArrayLike
) -> dict[Hashable, dict[str, Any] | None]:
    """Human-human agreement within every subgroup (RSMTool's ``consistency_by_<group>``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        First human rating H (complete).
    y_true2 : array-like of shape (n_samples,)
        Second human rating H2; NaN where absent.
    groups : array-like of shape (n_samples,)
        Group membership.

    Returns
    -------
    dict
        Group label (in :func:`group_order` over all responses) -> :func:`consistency_metrics`
        of that group's double-scored responses (None when the group has none).
    """
    h = _as_scores(y_true, "y_true")
    h2 = _optional_scores(y_true2, h.shape[0], "y_true2")
    g = _check_groups(groups, h.shape[0])
    return {label: consistency_metrics(h[g == label], h2[g == label]) for label in _levels(g, "groups")}


def true_score_metrics(human_scores: npt.ArrayLike, y_pred: npt.ArrayLike) -> dict[str, Any]:
    """True-score evaluation of the system (``true_score_eval``).

    Parameters
    ----------
    human_scores : array-like of shape (n_samples, n_ratings)
        Ratings per response, NaN where missing (at least one per response).
    y_pred : array-like of shape (n_samples,)
        System scores.

    Returns
    -------
    dict
        :data:`TRUE_SCORE_COLUMNS` -> value; the four estimates are None (missing) when no
        response has two or more ratings.
    """
    arr = _ratings_matrix(human_scores)
    m = _as_scores(y_pred, "y_pred")
    if m.shape[0] != arr.shape[0]:
        raise DataError(f"human_scores and y_pred differ in length ({arr.shape[0]} vs {m.shape[0]})")
    c = (~np.isnan(arr)).sum(axis=1)
    ve = variance_of_errors(arr)
    out: dict[str, Any] = {
        "N": int(arr.shape[0]),
        "N_single": int((c == 1).sum()),
        "N_multiple": int((c > 1).sum()),
        "variance_of_errors": ve,
        "true_score_var": None,
        "mse_true": None,
        "prmse_true": None,
    }
    if ve is not None:
        out["true_score_var"] = true_score_variance(arr, variance_errors=ve)
        out["mse_true"] = mse_true(arr, m, variance_errors=ve)
        out["prmse_true"] = prmse_true(arr, m, variance_errors=ve)
    return out


# --------------------------------------------------------------------------------------------
# the whole report (the CLI and the dashboard both call this)
# --------------------------------------------------------------------------------------------
def _numeric_column(df: pd.DataFrame, col: str, *, allow_missing: bool) -> np.ndarray:
    if col not in df.columns:
        raise DataError(f"column {col!r} not found (columns: {', '.join(map(str, df.columns))})")
    s = df[col]
    if pd.api.types.is_bool_dtype(s):
        s = s.astype(float)
    num = pd.to_numeric(s, errors="coerce")
    values = num.to_numpy(dtype=float, na_value=np.nan)
    missing = s.isna().to_numpy()
    non_numeric = np.flatnonzero(np.isnan(values) & ~missing)
    if non_numeric.size:
        example = s.iloc[int(non_numeric[0])]
        raise DataError(f"column {col!r}: non-numeric value {example!r} in {describe_rows(non_numeric)}")
    inf = np.flatnonzero(np.isinf(values))
    if inf.size:
        raise DataError(f"column {col!r}: infinite value in {describe_rows(inf)}")
    if not allow_missing and missing.any():
        raise DataError(f"column {col!r}: missing value in {describe_rows(np.flatnonzero(missing))}")
    return values


def evaluation_report(
    df: pd.DataFrame,
    *,
    human: str,
    system: str,
    human2: str | None = None,
    groups: Sequence[str] = (),
    rounded: bool = False,
) -> dict[str, Any]:
    """All agreement and fairness statistics of one evaluator against the human scores.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_samples, n_columns)
        The evaluation set.
    human : str
        Column of the (first) human / gold scores H; complete and numeric.
    system : str
        Column of the evaluator's scores M; complete and numeric.
    human2 : str, optional
        Column of a second human rating H2; empty where a response was not double-scored.
    groups : sequence of str, default=()
        Subgroup columns (complete; any labels).
    rounded : bool, default=False
        Round the system scores half to even to integers first (RSMTool's ``*_round`` scores).

    Returns
    -------
    dict
        ``eval`` (:data:`EVAL_COLUMNS`), ``consistency`` (only with ``human2``; None when no
        response is double-scored), ``true_score`` (:data:`TRUE_SCORE_COLUMNS`; missing
        estimates without double-scored responses), and for every group column ``g``:
        ``eval_by_g`` (label -> :data:`EVAL_BY_GROUP_COLUMNS`), ``fairness_by_g``
        (see :func:`core.fairness.fairness_analyses`) and, with ``human2``,
        ``consistency_by_g`` (label -> :data:`CONSISTENCY_COLUMNS` or None).
    """
    with _one_blas_thread():
        return _evaluation_report(df, human=human, system=system, human2=human2, groups=groups, rounded=rounded)


def _evaluation_report(
    df: pd.DataFrame, *, human: str, system: str, human2: str | None, groups: Sequence[str], rounded: bool
) -> dict[str, Any]:
    from core.fairness import fairness_analyses

    if not isinstance(df, pd.DataFrame):
        raise DataError("expected a table (pandas DataFrame)")
    if df.shape[0] == 0:
        raise DataError("the table has no rows")
    h = _numeric_column(df, human, allow_missing=False)
    m = _numeric_column(df, system, allow_missing=False)
    if rounded:
        m = np.rint(m)
    report: dict[str, Any] = {"eval": _eval_row(h, m)}
    ratings = h.reshape(-1, 1)
    if human2 is not None:
        h2 = _numeric_column(df, human2, allow_missing=True)
        report["consistency"] = consistency_metrics(h, h2)
        ratings = np.column_stack([h, h2])
    report["true_score"] = true_score_metrics(ratings, m)
    for col in groups:
        if col not in df.columns:
            raise DataError(f"group column {col!r} not found (columns: {', '.join(map(str, df.columns))})")
        g = _check_groups(df[col], h.shape[0], name=f"group column {col!r}")
        _levels(g, f"group column {col!r}")
        report[f"eval_by_{col}"] = _group_rows(h, m, g)
        report[f"fairness_by_{col}"] = fairness_analyses(h, m, g, name=f"group column {col!r}")
        if human2 is not None:
            report[f"consistency_by_{col}"] = consistency_by_group(h, ratings[:, 1], g)
    return report
