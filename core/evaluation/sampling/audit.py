"""Plan an audit: the interval width to expect, and the audit size a target width needs.

Both rest on the half-width of a normal interval for a mean estimated from a simple random
sample of n rows out of a population of N (with the finite-population correction):

    h(n) = z * sqrt((1 - n / N) * s^2 / n),          z = the (1 + confidence) / 2 normal quantile.

For a class share estimated from an audit of the rows the machine keeps (see
:mod:`core.evaluation.estimate.shares`), the population is the N_K kept rows, s^2 is the variance of
the per-row difference d = 1[human = c] - 1[machine = c], which is at most the disagreement
rate r on kept rows, and the share's half-width is N_K / M * h(n). The estimator smooths the
audit's machine-versus-human table with half a count per cell, so with K classes the planner
uses s^2 = (r n + (K - 1)) / (n + K^2 / 2) (never 0, as the estimator's). Drawing labels at
random instead (no machine) has s^2 = p (1 - p) for a class of share p over all M rows.
"""

from __future__ import annotations

import math

from core.errors import DataError

__all__ = ["z_value", "srs_half_width", "srs_size_for_half_width", "smoothed_variance",
           "expected_half_width", "audit_size_for_half_width", "default_audit", "DEFAULT_AUDIT"]

#: The largest default audit (the Evaluate page's audit box starts at :func:`default_audit`).
DEFAULT_AUDIT = 200


def z_value(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level (1.95996... at 0.95)."""
    from scipy.special import ndtri  # what scipy.stats.norm.ppf computes, without its overhead

    if not isinstance(confidence, (int, float)) or not math.isfinite(confidence) \
            or not 0 < confidence < 1:
        raise DataError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return float(ndtri(0.5 + confidence / 2))


def srs_half_width(population: int, n: int, variance: float, *, confidence: float = 0.95) -> float:
    """Half-width of the normal interval for a mean from a simple random sample.

    Parameters
    ----------
    population : int
        N >= 1.
    n : int
        Sample size, 1 <= n <= N.
    variance : float >= 0
        Per-row variance s^2.
    confidence : float in (0, 1)

    Returns
    -------
    float
        z sqrt((1 - n / N) s^2 / n).
    """
    if not 1 <= n <= population:
        raise DataError(f"sample size must be between 1 and {population}, got {n}")
    return z_value(confidence) * math.sqrt(max(0.0, 1 - n / population) * variance / n)


def srs_size_for_half_width(population: int, variance: float, half_width: float, *,
                            confidence: float = 0.95) -> int:
    """Smallest simple random sample whose normal half-width is at most ``half_width``.

    n = ceil(n0 / (1 + (n0 - 1) / N)) with n0 = z^2 s^2 / h^2, clipped to [1, N]; N when
    ``half_width`` is 0 and the variance is positive; 0 when the variance is 0.
    """
    if variance <= 0:
        return 0
    if half_width <= 0:
        return int(population)
    n0 = z_value(confidence) ** 2 * variance / half_width ** 2
    # the exact solution of z^2 s^2 (1/n - 1/N) = h^2 (then checked and nudged for rounding)
    n = n0 / (1 + n0 / population)
    n = max(1, min(int(population), math.ceil(n - 1e-9)))
    while n < population and srs_half_width(population, n, variance,
                                            confidence=confidence) > half_width * (1 + 1e-12):
        n += 1
    return n


def smoothed_variance(disagreement: float, n: int, *, n_classes: int = 2) -> float:
    """s^2 = (r n + (K - 1)) / (n + K^2 / 2): the smoothed variance of the audit differences."""
    if not 0 <= disagreement <= 1:
        raise DataError(f"disagreement rate must be in [0, 1], got {disagreement}")
    if n_classes < 2:
        raise DataError(f"need at least two classes, got {n_classes}")
    return (disagreement * n + (n_classes - 1)) / (n + n_classes ** 2 / 2)


def expected_half_width(M: int, n_kept: int, n_audit: int, disagreement: float, *,
                        n_classes: int = 2, confidence: float = 0.95) -> float:
    """Expected half-width of a class-share interval for an audit of ``n_audit`` kept rows.

    Parameters
    ----------
    M : int
        All rows.
    n_kept : int
        Rows the machine keeps (audit included), N_K.
    n_audit : int
        Audit size, 1 <= n_audit <= n_kept.
    disagreement : float in [0, 1]
        Pilot estimate of the machine's disagreement with humans on kept rows (for example the
        error rate of the kept calibration rows).
    n_classes : int, default=2
    confidence : float, default=0.95

    Returns
    -------
    float
        In share units (0.01 = one percentage point). 0 when the machine keeps nothing.
    """
    if not 0 <= n_kept <= M:
        raise DataError(f"kept rows must be between 0 and M = {M}, got {n_kept}")
    if n_kept == 0:
        return 0.0
    var = smoothed_variance(disagreement, n_audit, n_classes=n_classes)
    return n_kept / M * srs_half_width(n_kept, n_audit, var, confidence=confidence)


def audit_size_for_half_width(M: int, n_kept: int, disagreement: float, target: float, *,
                              n_classes: int = 2, confidence: float = 0.95) -> int | None:
    """Smallest audit whose expected class-share half-width is at most ``target``.

    Returns
    -------
    int or None
        None when even auditing every kept row would not reach the target (it always does:
        the half-width is 0 then), 0 when the machine keeps nothing.
    """
    if not target > 0:
        raise DataError(f"target half-width must be > 0, got {target}")
    if n_kept == 0:
        return 0
    lo, hi = 1, n_kept
    if expected_half_width(M, n_kept, hi, disagreement, n_classes=n_classes,
                           confidence=confidence) > target:
        return None
    while lo < hi:  # the half-width decreases with the audit size
        mid = (lo + hi) // 2
        if expected_half_width(M, n_kept, mid, disagreement, n_classes=n_classes,
                               confidence=confidence) <= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def default_audit(n_kept: int, *, largest: int = DEFAULT_AUDIT) -> int:
    """The audit a plan starts with: a fifth of the rows the machine keeps, at most ``largest``.

    A fixed 200 is most of a small table's kept rows (200 of the 250 a 500-row table keeps at
    N = 50 %); a fifth keeps the audit a sample. 200 on 1,000 kept rows or more.

    >>> default_audit(1779), default_audit(250), default_audit(4)
    (200, 50, 0)
    """
    if n_kept < 0:
        raise DataError(f"kept rows must be >= 0, got {n_kept}")
    return int(min(largest, n_kept // 5))
