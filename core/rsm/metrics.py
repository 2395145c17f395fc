"""Observed-score agreement metrics in RSMTool's conventions: agreement, kappas, r, SMD, MSE/RMSE, R2, DSM."""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
import numpy.typing as npt

from core.errors import DataError
from core.rsm.checks import as_scores, check_groups, check_pair, group_levels, is_constant, sample_sd


#: A population sd within this distance of 0 makes DSM missing (RSMTool's ``np.isclose`` atol).
DSM_TOLERANCE = 1e-7


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
    arr = as_scores(x, "scores")
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
    h, m = check_pair(y_true, y_pred)
    return float(np.count_nonzero(np.abs(m - h) <= tolerance) / h.shape[0] * 100.0)


def exact_agreement(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Percent exact agreement (``exact_agr``): :func:`agreement` with tolerance 0."""
    return agreement(y_true, y_pred, tolerance=0)


def adjacent_agreement(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> float:
    """Percent exact + adjacent agreement (``adj_agr``): :func:`agreement` with tolerance 1."""
    return agreement(y_true, y_pred, tolerance=1)


def _dense_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """The codes 0..k-1 of integer ``values`` in ascending order of value, and k (the number of
    distinct values): ``np.unique(values, return_inverse=True)``'s inverse, counted with a
    bincount over the values' range when it is small (scores are a handful of points), without
    sorting all the values."""
    if values.shape[0] == 0:
        return values.astype(np.int64), 0
    lo, hi = int(values.min()), int(values.max())
    if hi - lo > 4 * values.shape[0] + 1024:  # a sparse range: sorting is cheaper
        labels, inverse = np.unique(values, return_inverse=True)
        return inverse.reshape(-1), int(labels.shape[0])
    present = np.bincount(values - lo, minlength=hi - lo + 1) > 0
    code = np.cumsum(present) - 1
    return code[values - lo], int(present.sum())


def cohen_kappa(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, single_label: float = 1.0) -> float:
    """Unweighted Cohen's kappa (``kappa``): SKLL's convention, scikit-learn's arithmetic.

    Both sides are rounded half to even to integers (SKLL). Kappa is
    ``1 - sum(w * C) / sum(w * E)`` with ``w_jk = [j != k]``, the confusion matrix ``C`` (gold in
    rows) and the chance counts ``E = outer(column sums, row sums) / n``, computed in the order
    of ``sklearn.metrics.cohen_kappa_score`` so that 0/1 labels give its values to the last bit.
    SKLL's label range from the minimum to the maximum label adds labels with zero marginals,
    which change no sum: the computation runs over the labels that occur.

    The one case where the references disagree is a single label overall (all weights 0):
    SKLL (RSMTool) gives 1, scikit-learn (clembench) NaN. ``single_label`` chooses.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human scores.
    y_pred : array-like of shape (n_samples,)
        System scores.
    single_label : float, default=1.0
        Kappa when only one label occurs over both sides: 1.0 (SKLL, RSMTool) or NaN
        (scikit-learn's ``replace_undefined_by`` default, what clembench logs).

    Returns
    -------
    float
        Kappa in [-1, 1], or ``single_label``.
    """
    h, m = check_pair(y_true, y_pred)
    n = h.shape[0]
    inverse, k = _dense_codes(np.concatenate([np.rint(h), np.rint(m)]).astype(np.int64))
    if k == 1:
        return float(single_label)
    confusion = np.bincount(inverse[:n] * k + inverse[n:], minlength=k * k).reshape(k, k).astype(np.float64)
    sum0 = np.sum(confusion, axis=0)
    sum1 = np.sum(confusion, axis=1)
    expected = np.outer(sum0, sum1) / np.sum(sum0)
    w = np.ones((k, k), dtype=np.float64)
    np.fill_diagonal(w, 0)
    return float(1 - np.sum(w * confusion) / np.sum(w * expected))


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
    h, m = check_pair(y_true, y_pred)
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
    h, m = check_pair(y_true, y_pred)
    if h.shape[0] < 2 or is_constant(h) or is_constant(m):
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
    h, m = check_pair(y_true, y_pred)
    numerator = float(m.mean() - h.mean())
    if method == "unpooled":
        denominator = sample_sd(h, ddof)
    elif method == "pooled":
        denominator = math.sqrt((sample_sd(h, ddof) ** 2 + sample_sd(m, ddof) ** 2) / 2.0)
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
    h, m = check_pair(y_true, y_pred)
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
    h, m = check_pair(y_true, y_pred)
    if h.shape[0] == 1:
        return math.nan
    d = h - m
    ss_res = float(np.dot(d, d))
    c = h - h.mean()
    ss_tot = float(np.dot(c, c))
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return 1.0 - ss_res / ss_tot


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
    h, m = check_pair(y_true, y_pred)
    if abs(population_true_sd) <= DSM_TOLERANCE or abs(population_pred_sd) <= DSM_TOLERANCE:
        return None
    z = (m - population_pred_mean) / population_pred_sd - (h - population_true_mean) / population_true_sd
    return float(z.mean())


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
    h, m = check_pair(y_true, y_pred)
    g = check_groups(groups, h.shape[0])
    pop = dict(
        population_true_mean=float(h.mean()), population_true_sd=sample_sd(h),
        population_pred_mean=float(m.mean()), population_pred_sd=sample_sd(m),
    )
    out: dict[Hashable, float | None] = {}
    for label in group_levels(g, "groups"):
        mask = g == label
        out[label] = difference_of_standardized_means(h[mask], m[mask], **pop)
    return out
