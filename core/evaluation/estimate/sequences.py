"""The confidence sequences a labelling stream reads (:mod:`core.evaluation.estimate.anytime` builds
its terms): the asymptotic Gaussian-mixture sequence, exactly as GLIDE 0.11's
``AsymptoticConfidenceSequence`` computes it, and a betting sequence valid in finite samples;
and the labels a sequence tuned at a size needs for a half-width.
"""

from __future__ import annotations

import math

import numpy as np

from core.errors import DataError

__all__ = ["SEQUENCE_METHODS", "asymptotic_sequence", "betting_sequence", "labels_for_half_width"]

#: The confidence sequences on offer: the asymptotic one (default) and the betting one.
SEQUENCE_METHODS = ("asymptotic", "betting")


def asymptotic_sequence(estimates: np.ndarray, stds: np.ndarray, *, alpha: float = 0.05,
                        tightest_at: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """The running mean of per-batch estimates and its two-sided asymptotic radius.

    The Gaussian-mixture boundary (Robbins 1970; Waudby-Smith et al. 2024, Theorem 2.2), as
    GLIDE 0.11's ``AsymptoticConfidenceSequence`` computes one side at miscoverage
    ``alpha / 2``: with ``V_b`` the running sum of the squared standard errors and
    ``rho^2 = (L + log(L + 1)) / V_target``, ``L = -2 log(alpha)``, ``V_target`` the sum up
    to batch ``tightest_at`` (or the last batch before it),

        radius_b = sqrt(2 (V_b rho^2 + 1) / (b^2 rho^2) * log(1 + sqrt(V_b rho^2 + 1) / alpha)).

    Parameters
    ----------
    estimates : array of shape (B,)
        Per-batch estimates, in order.
    stds : array of shape (B,)
        Their standard errors (>= 0), each known before its batch's label where the guarantee
        is to be exact (a predictable estimate).
    alpha : float in (0, 1)
        Miscoverage over all looks at once, both sides together.
    tightest_at : int >= 1
        The batch near which the sequence is tightest.

    Returns
    -------
    running_mean, radius : ndarrays of shape (B,)
    """
    est = np.asarray(estimates, dtype=float)
    sd = np.asarray(stds, dtype=float)
    if est.ndim != 1 or len(est) == 0 or sd.shape != est.shape:
        raise DataError("a confidence sequence needs one estimate and one standard error per batch")
    if not (np.all(np.isfinite(est)) and np.all(np.isfinite(sd)) and np.all(sd >= 0)):
        raise DataError("the batch estimates and standard errors must be finite, the errors >= 0")
    if not 0 < alpha < 1:
        raise DataError(f"alpha must be in (0, 1), got {alpha}")
    if int(tightest_at) < 1:
        raise DataError(f"tightest_at must be >= 1, got {tightest_at}")
    b = np.arange(1, len(est) + 1)
    mean = np.cumsum(est) / b
    v = np.cumsum(sd ** 2)
    target = v[min(int(tightest_at), len(est)) - 1]
    if target <= 0:
        raise DataError("the standard errors must add up to a positive variance by the batch "
                        "the sequence is tightest at")
    log_term = -2.0 * math.log(alpha)
    rho2 = (log_term + math.log(log_term + 1.0)) / target
    scaled = v * rho2 + 1.0
    radius = np.sqrt(2.0 * scaled / (b ** 2 * rho2) * np.log(1.0 + np.sqrt(scaled) / alpha))
    return mean, radius


def betting_sequence(terms: np.ndarray, stds: np.ndarray, low: np.ndarray, high: np.ndarray,
                     *, alpha: float = 0.05, grid: int = 2001, truncation: float = 0.5
                     ) -> tuple[np.ndarray, np.ndarray]:
    """A confidence sequence valid in finite samples for the common mean of bounded terms.

    Waudby-Smith and Ramdas (2024, "Estimating means of bounded random variables by betting",
    the hedged capital process with predictable plug-in bets): for every candidate mean ``m``
    on a grid of [0, 1], two bettors stake ``lambda_t`` on the term being above ``m`` and
    below it; their averaged wealth ``(K+ + K-) / 2`` is a nonnegative martingale when ``m`` is
    the mean (each term has mean ``m`` given the past, and lies in its predictable range
    ``[low_t, high_t]``), so by Ville's inequality it ever reaches ``1 / alpha`` with
    probability at most ``alpha``: the candidates it has not reached form the sequence, at
    every number of terms at once, with no normal approximation. The bet is
    ``sqrt(2 log(2 / alpha) / (sd_t^2 t log(1 + t)))``, capped at ``truncation`` of what keeps
    the wealth positive over the term's range.

    Parameters
    ----------
    terms : array of shape (n,)
        The terms (each with conditional mean the quantity, given the terms before it).
    stds : array of shape (n,)
        Predictable standard errors of the terms (> 0).
    low, high : arrays of shape (n,)
        Each term's range, known before it.
    alpha : float
    grid : int
        Candidate means on [0, 1]; the interval is widened by one grid step each side.
    truncation : float in (0, 1)

    Returns
    -------
    lower, upper : ndarrays of shape (n,)
    """
    z = np.asarray(terms, dtype=float)
    n = len(z)
    m = np.linspace(0.0, 1.0, int(grid))
    step = m[1] - m[0]
    t = np.arange(1, n + 1, dtype=float)
    sd2 = np.maximum(np.asarray(stds, dtype=float) ** 2, 1e-12)
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (sd2 * t * np.log1p(t)))  # (n,)
    a = np.asarray(low, dtype=float)[:, None]
    b = np.asarray(high, dtype=float)[:, None]
    room_up = np.where(m[None, :] > a, truncation / np.maximum(m[None, :] - a, 1e-300), np.inf)
    room_down = np.where(b > m[None, :], truncation / np.maximum(b - m[None, :], 1e-300), np.inf)
    lam_up = np.minimum(lam[:, None], room_up)
    lam_down = np.minimum(lam[:, None], room_down)
    diff = z[:, None] - m[None, :]
    log_up = np.cumsum(np.log1p(lam_up * diff), axis=0)
    log_down = np.cumsum(np.log1p(-lam_down * diff), axis=0)
    wealth = np.logaddexp(log_up, log_down) - math.log(2.0)
    keep = wealth < math.log(1.0 / alpha)
    lower = np.empty(n)
    upper = np.empty(n)
    for i in range(n):
        idx = np.flatnonzero(keep[i])
        if len(idx):
            lower[i], upper[i] = m[idx[0]] - step, m[idx[-1]] + step
        else:  # every candidate refuted (probability at most alpha): an empty interval
            lower[i] = upper[i] = float(np.clip(z[: i + 1].mean(), 0, 1))
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


def labels_for_half_width(per_label_sd: float, half_width: float, *, alpha: float = 0.05) -> int:
    """Labels a sequence tuned at that size needs for a radius of ``half_width``.

    At the batch it is tuned to, :func:`asymptotic_sequence`'s radius is
    ``c(alpha) * sd / sqrt(n)`` with ``c^2 = 2 (1 + 1/x) log(1 + sqrt(1 + x) / alpha)``,
    ``x = L + log(L + 1)``, ``L = -2 log(alpha)`` (c = 3.04 at alpha = 0.05, against 1.96
    for a fixed-n interval).
    """
    if not (half_width > 0 and per_label_sd >= 0):
        raise DataError(f"the target half-width must be > 0, got {half_width}")
    log_term = -2.0 * math.log(alpha)
    x = log_term + math.log(log_term + 1.0)
    c2 = 2.0 * (1.0 + 1.0 / x) * math.log(1.0 + math.sqrt(1.0 + x) / alpha)
    return max(1, int(math.ceil(c2 * per_label_sd ** 2 / half_width ** 2)))
