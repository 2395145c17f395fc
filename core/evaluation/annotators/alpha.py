"""Krippendorff's alpha for annotators' labels, with a bootstrap interval.

Alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability") compares the observed
disagreement between the values given to the same unit with the disagreement expected by
chance; it takes any number of annotators, missing labels (a unit labelled by two of five
annotators counts with its one pair) and a level of measurement (``nominal``, ``ordinal``,
``interval``).

With ``N`` the (units x values) counts of the pairable units (two or more values), the
coincidences are ``o_ck = sum_u (N_uc N_uk - [c = k] N_uc) / (m_u - 1)``, ``n_c = sum_k o_ck``,
``n = sum_c n_c``, and ``alpha = 1 - (n - 1) sum o_ck d_ck / sum_{c,k} n_c n_k d_ck`` with the
level's squared difference ``d_ck``: ``[c != k]`` (nominal), ``(c - k)^2`` (interval),
``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2`` (ordinal, over the sorted values that occur).
It is the ``krippendorff`` package's ``alpha`` (the tests' oracle).

The interval is a percentile bootstrap over units (each replicate draws the pairable units
with replacement and recomputes alpha from the drawn units' coincidences): every unit's
contribution is computed once, so a thousand replicates cost one matrix product. The interval
always holds its estimate: when the replicates' percentiles miss it (few replicates: one gave
[0.771, 0.771] around an estimate of 0.619; or a skewed alpha) it is widened to it, as the
per-turn intervals are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.errors import DataError

__all__ = ["AlphaResult", "krippendorff_alpha", "alpha_interval", "LEVELS"]

LEVELS = ("nominal", "ordinal", "interval")


@dataclass(frozen=True)
class AlphaResult:
    """Alpha with its bootstrap interval.

    Attributes
    ----------
    estimate : float
        Alpha; NaN when undefined (no unit with two values, or a single value overall).
    ci_low, ci_high : float
        The percentile bootstrap interval at ``level`` (NaN when undefined or ``n_boot`` is 0).
    level : str
        The level of measurement.
    confidence : float
    n_units : int
        Pairable units (two or more values).
    n_values : int
        Values in the pairable units.
    n_boot : int
    """

    estimate: float
    ci_low: float
    ci_high: float
    level: str
    confidence: float
    n_units: int
    n_values: int
    n_boot: int

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "level": self.level, "confidence": self.confidence, "n_units": self.n_units,
                "n_values": self.n_values, "n_boot": self.n_boot}


def _unit_counts(reliability_data: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(counts of shape (pairable units, V), sorted values of shape (V,))."""
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise DataError("reliability data must be a matrix (annotators x units)")
    if np.isinf(data).any():
        raise DataError("reliability data hold an infinite value")
    ok = ~np.isnan(data)
    values = np.unique(data[ok])
    if not len(values):
        return np.zeros((0, 0)), values
    codes = np.searchsorted(values, np.where(ok, data, values[0]))
    counts = np.zeros((data.shape[1], len(values)))
    cols = np.broadcast_to(np.arange(data.shape[1]), data.shape)
    np.add.at(counts, (cols[ok], codes[ok]), 1.0)
    return counts[counts.sum(axis=1) >= 2], values


def _distance(values: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    if level == "nominal":
        return 1.0 - np.eye(len(values))
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    cum = np.concatenate([[0.0], np.cumsum(n_v)])
    lo = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
    hi = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
    return (cum[hi + 1] - cum[lo] - (n_v[:, None] + n_v[None, :]) / 2.0) ** 2


def _alpha_from(o: np.ndarray, values: np.ndarray, level: str) -> float:
    n_v = o.sum(axis=0)
    n = n_v.sum()
    d = _distance(values, n_v, level)
    expected = float(n_v @ d @ n_v)
    if n <= 1 or expected <= 0:
        return float("nan")
    return float(1.0 - (n - 1) * float((o * d).sum()) / expected)


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise DataError(f"level of measurement '{level}' is not one of {', '.join(LEVELS)}")


def krippendorff_alpha(reliability_data: npt.ArrayLike, *, level: str = "nominal") -> float:
    """Krippendorff's alpha.

    Parameters
    ----------
    reliability_data : array-like of shape (n_annotators, n_units)
        The value each annotator gave each unit (numeric codes: for ``ordinal`` their order,
        for ``interval`` their values), NaN where the annotator gave none.
    level : {"nominal", "ordinal", "interval"}, default="nominal"

    Returns
    -------
    float
        Alpha in (-inf, 1]; NaN when no unit has two values or only one value occurs (the
        ``krippendorff`` package raises an error there).
    """
    _check_level(level)
    counts, values = _unit_counts(reliability_data)
    if not len(counts):
        return float("nan")
    m = counts.sum(axis=1)
    o = (counts / (m - 1)[:, None]).T @ counts - np.diag((counts / (m - 1)[:, None]).sum(axis=0))
    return _alpha_from(o, values, level)


def alpha_interval(reliability_data: npt.ArrayLike, *, level: str = "nominal",
                   n_boot: int = 1000, confidence: float = 0.95,
                   seed: int = 0) -> AlphaResult:
    """Krippendorff's alpha and a percentile bootstrap interval over units.

    Parameters
    ----------
    reliability_data : array-like of shape (n_annotators, n_units)
        As :func:`krippendorff_alpha`.
    level : {"nominal", "ordinal", "interval"}, default="nominal"
    n_boot : int, default=1000
        Bootstrap replicates (0: no interval).
    confidence : float, default=0.95
    seed : int, default=0

    Returns
    -------
    AlphaResult
        Replicates where alpha is undefined (a single value drawn) are left out of the
        percentiles; the interval always holds the estimate (widened to it when the
        percentiles miss it).
    """
    _check_level(level)
    if not 0 < confidence < 1:
        raise DataError(f"confidence must be in (0, 1), got {confidence}")
    counts, values = _unit_counts(reliability_data)
    nan = float("nan")
    if not len(counts):
        return AlphaResult(nan, nan, nan, level, confidence, 0, 0, int(n_boot))
    m = counts.sum(axis=1)
    k = counts.shape[1]
    scaled = counts / (m - 1)[:, None]
    per_unit = (scaled[:, :, None] * counts[:, None, :]).reshape(len(counts), k * k)
    per_unit -= np.stack([np.diag(r) for r in scaled]).reshape(len(counts), k * k)
    est = _alpha_from(per_unit.sum(axis=0).reshape(k, k), values, level)
    lo = hi = nan
    if n_boot > 0 and not np.isnan(est):
        rng = np.random.default_rng(seed)
        u = len(counts)
        boots = []
        step = max(1, min(n_boot, 2_000_000 // max(u, 1)))
        for start in range(0, n_boot, step):
            b = min(step, n_boot - start)
            weights = rng.multinomial(u, np.full(u, 1.0 / u), size=b).astype(float)
            for o in (weights @ per_unit).reshape(b, k, k):
                boots.append(_alpha_from(o, values, level))
        boots_arr = np.asarray(boots)
        boots_arr = boots_arr[~np.isnan(boots_arr)]
        if len(boots_arr):
            tail = (1 - confidence) / 2 * 100
            lo, hi = (float(x) for x in np.percentile(boots_arr, [tail, 100 - tail]))
            lo, hi = min(lo, est), max(hi, est)  # the interval holds its estimate
    return AlphaResult(est, lo, hi, level, confidence, int(len(counts)), int(m.sum()),
                       int(n_boot))
