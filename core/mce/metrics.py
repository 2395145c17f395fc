"""Quality metrics of a confidence estimate (MCE).

A confidence estimator scores how much the machine's label ``y_pred`` can be trusted. Its
quality is judged against the event "the machine label is correct", ``y_pred == y_true``:

- :func:`confidence_auc`: ROC AUC of the confidence as a predictor of that event (paper
  Table 3, "AUC");
- :func:`top_k_accuracy`: accuracy of the machine on its ``top`` fraction of most confident
  samples (paper Table 3, "accuracy (top-50%)");
- :func:`risk_coverage_curve` and :func:`aurc`: selective risk against coverage and the area
  under that curve (Geifman et al., 2018);
- :func:`reliability_bins` and :func:`expected_calibration_error`: reliability diagram and
  ECE (Guo et al., 2017).

Every function takes ``(y_true, y_pred, confidence)`` in the scikit-learn argument order, with
options as keywords. Labels may be numbers or strings (compared by :func:`core.validate.label_text`: numbers as
numbers, text stripped); a missing value
(NaN/None) in any of the three inputs raises :class:`core.errors.DataError` naming the rows.

Ranking convention: samples are ordered by decreasing confidence; equal confidences keep their
row order (a stable sort). :func:`top_k_accuracy` and the risk-coverage curve use this order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from core.errors import DataError, describe_rows
from core.validate import label_texts

__all__ = [
    "correctness",
    "confidence_auc",
    "confidence_roc_curve",
    "top_k_accuracy",
    "n_top",
    "risk_coverage_curve",
    "aurc",
    "reliability_bins",
    "expected_calibration_error",
    "confidence_report",
]


def _missing_mask(values: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(pd.Series(values, dtype=object)).to_numpy(), dtype=bool)


def _as_labels(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values, dtype=object)
    if arr.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {arr.shape}")
    bad = np.flatnonzero(_missing_mask(arr))
    if bad.size:
        raise DataError(f"{name} has missing values at {describe_rows(bad)}")
    return arr


def _as_confidence(values: Any, name: str = "confidence") -> np.ndarray:
    raw = values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values
    raw = np.asarray(raw, dtype=object) if not isinstance(raw, np.ndarray) else raw
    if raw.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {raw.shape}")
    missing = np.flatnonzero(_missing_mask(raw))
    if missing.size:
        raise DataError(f"{name} has missing values at {describe_rows(missing)}")
    try:
        arr = raw.astype(float)
    except (TypeError, ValueError):
        bad = [i for i, v in enumerate(raw.tolist()) if not _is_number(v)]
        raise DataError(f"{name} must be numeric; non-numeric values at {describe_rows(bad)}") from None
    inf = np.flatnonzero(~np.isfinite(arr))
    if inf.size:
        raise DataError(f"{name} has infinite values at {describe_rows(inf)}")
    return arr


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _check(y_true: Any, y_pred: Any, confidence: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate the three inputs; return (correct as bool array, confidence as float array)."""
    t = _as_labels(y_true, "y_true")
    p = _as_labels(y_pred, "y_pred")
    c = _as_confidence(confidence)
    if not (len(t) == len(p) == len(c)):
        raise DataError(
            f"y_true, y_pred and confidence must have the same length, got {len(t)}, {len(p)} and {len(c)}"
        )
    if len(t) == 0:
        raise DataError("no samples: y_true, y_pred and confidence are empty")
    return _equal_labels(t, p), c


def correctness(y_true: Any, y_pred: Any) -> np.ndarray:
    """Whether the machine label is correct, per sample.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Gold labels.
    y_pred : array-like of shape (n_samples,)
        Machine labels.

    Returns
    -------
    ndarray of bool, shape (n_samples,)
    """
    t = _as_labels(y_true, "y_true")
    p = _as_labels(y_pred, "y_pred")
    if len(t) != len(p):
        raise DataError(f"y_true and y_pred must have the same length, got {len(t)} and {len(p)}")
    return _equal_labels(t, p)


def _equal_labels(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Labels compared by the one typed rule (:func:`core.validate.label_text`): numbers as
    numbers (``"1.0"`` equals ``1``), text stripped."""
    kt = label_texts(pd.Series(t, dtype=object)).to_numpy()
    kp = label_texts(pd.Series(p, dtype=object)).to_numpy()
    return np.asarray(kt == kp, dtype=bool)


def confidence_auc(y_true: Any, y_pred: Any, confidence: Any) -> float:
    """ROC AUC of the confidence as a score for "the machine label is correct".

    Equals the Mann-Whitney probability that a correct sample has a higher confidence than an
    incorrect one, ties counted one half (identical to ``sklearn.metrics.roc_auc_score``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Gold labels.
    y_pred : array-like of shape (n_samples,)
        Machine labels.
    confidence : array-like of float, shape (n_samples,)
        Confidence of each machine label (any real scale; only the order matters).

    Returns
    -------
    float
        The AUC in [0, 1]; NaN when all machine labels are correct or all are wrong (the AUC
        is undefined with a single class).
    """
    correct, c = _check(y_true, y_pred, confidence)
    n_pos = int(correct.sum())
    n_neg = int(correct.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(c, method="average")
    u = float(ranks[correct].sum()) - n_pos * (n_pos + 1) / 2.0
    return u / (n_pos * n_neg)


def confidence_roc_curve(y_true: Any, y_pred: Any, confidence: Any) -> pd.DataFrame:
    """ROC curve of the confidence as a score for "the machine label is correct".

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Gold and machine labels.
    confidence : array-like of float, shape (n_samples,)

    Returns
    -------
    DataFrame with columns ``threshold``, ``fpr``, ``tpr``
        One row per distinct confidence value (decreasing), preceded by the point (0, 0) at
        threshold +inf. ``tpr`` is the fraction of correct samples with confidence >=
        threshold, ``fpr`` the fraction of incorrect ones. A rate is NaN when its class is
        empty.
    """
    correct, c = _check(y_true, y_pred, confidence)
    order = np.argsort(-c, kind="stable")
    cs = c[order]
    hits = correct[order].astype(float)
    tp = np.cumsum(hits)
    fp = np.cumsum(1.0 - hits)
    last = np.r_[np.flatnonzero(np.diff(cs) != 0), cs.size - 1]  # last index of each distinct value
    n_pos = correct.sum()
    n_neg = correct.size - n_pos
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = np.r_[0.0, tp[last]] / n_pos if n_pos else np.full(last.size + 1, np.nan)
        fpr = np.r_[0.0, fp[last]] / n_neg if n_neg else np.full(last.size + 1, np.nan)
    return pd.DataFrame({"threshold": np.r_[np.inf, cs[last]], "fpr": fpr, "tpr": tpr})


def n_top(n_samples: int, top: float) -> int:
    """Number of samples in the top ``top`` fraction: ``max(1, floor(top * n_samples))``.

    The floor matches the SAE's ``N = int(N/M * M)``; at least one sample is kept so that the
    accuracy is defined.
    """
    top = float(top)
    if not (0.0 < top <= 1.0) or np.isnan(top):
        raise DataError(f"top must be a fraction in (0, 1], got {top}")
    return max(1, int(np.floor(top * n_samples + 1e-9)))


def top_k_accuracy(y_true: Any, y_pred: Any, confidence: Any, *, top: float = 0.5) -> float:
    """Accuracy of the machine on its ``top`` fraction of most confident samples.

    Samples are sorted by decreasing confidence, ties kept in row order; the first
    ``n = max(1, floor(top * n_samples))`` are scored.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Gold and machine labels.
    confidence : array-like of float, shape (n_samples,)
    top : float in (0, 1], default=0.5
        Fraction of samples kept.

    Returns
    -------
    float
        Fraction of correct machine labels among the kept samples.
    """
    correct, c = _check(y_true, y_pred, confidence)
    k = n_top(correct.size, top)
    order = np.argsort(-c, kind="stable")
    return float(correct[order[:k]].mean())


def risk_coverage_curve(y_true: Any, y_pred: Any, confidence: Any) -> pd.DataFrame:
    """Selective risk against coverage when the machine keeps its most confident samples.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Gold and machine labels.
    confidence : array-like of float, shape (n_samples,)

    Returns
    -------
    DataFrame with n_samples rows and columns ``coverage``, ``risk``, ``threshold``
        Row ``k`` (1-based) keeps the ``k`` most confident samples (ties in row order):
        ``coverage = k / n``, ``risk`` = error rate of the machine on them, ``threshold`` =
        the confidence of the k-th sample.
    """
    correct, c = _check(y_true, y_pred, confidence)
    order = np.argsort(-c, kind="stable")
    errors = np.cumsum(~correct[order])
    k = np.arange(1, correct.size + 1)
    return pd.DataFrame({"coverage": k / correct.size, "risk": errors / k, "threshold": c[order]})


def aurc(y_true: Any, y_pred: Any, confidence: Any) -> float:
    """Area under the risk-coverage curve (AURC, Geifman et al. 2018); lower is better.

    ``AURC = (1/n) * sum_{k=1..n} risk(k)`` with ``risk(k)`` the machine's error rate on its
    ``k`` most confident samples (ties in row order).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    confidence : array-like of float, shape (n_samples,)

    Returns
    -------
    float
        In [0, 1].
    """
    curve = risk_coverage_curve(y_true, y_pred, confidence)
    return float(curve["risk"].mean())


def reliability_bins(y_true: Any, y_pred: Any, confidence: Any, *, n_bins: int = 10) -> pd.DataFrame:
    """Reliability-diagram bins of a confidence in [0, 1].

    Bin ``m`` (1-based) of ``n_bins`` equal-width bins holds the confidences in
    ``((m-1)/n_bins, m/n_bins]``; a confidence of exactly 0 goes to the first bin.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    confidence : array-like of float, shape (n_samples,)
        Must lie in [0, 1] (a DataError names the rows otherwise).
    n_bins : int, default=10

    Returns
    -------
    DataFrame with n_bins rows and columns ``lower``, ``upper``, ``count``, ``confidence``
    (mean confidence in the bin), ``accuracy`` (fraction of correct machine labels), ``gap``
    (``accuracy - confidence``). The last three are NaN for an empty bin.
    """
    correct, c = _check(y_true, y_pred, confidence)
    n_bins = int(n_bins)
    if n_bins < 1:
        raise DataError(f"n_bins must be a positive integer, got {n_bins}")
    out = np.flatnonzero((c < 0) | (c > 1))
    if out.size:
        raise DataError(f"confidence must lie in [0, 1] for calibration; out of range at {describe_rows(out)}")
    idx = np.clip(np.ceil(c * n_bins).astype(int) - 1, 0, n_bins - 1)
    rows = []
    for m in range(n_bins):
        sel = idx == m
        cnt = int(sel.sum())
        conf = float(c[sel].mean()) if cnt else float("nan")
        acc = float(correct[sel].mean()) if cnt else float("nan")
        rows.append(
            {"lower": m / n_bins, "upper": (m + 1) / n_bins, "count": cnt, "confidence": conf,
             "accuracy": acc, "gap": acc - conf}
        )
    return pd.DataFrame(rows)


def expected_calibration_error(y_true: Any, y_pred: Any, confidence: Any, *, n_bins: int = 10) -> float:
    """Expected calibration error (Guo et al., 2017).

    ``ECE = sum_m |B_m| / n * |accuracy(B_m) - confidence(B_m)|`` over the bins of
    :func:`reliability_bins` (empty bins contribute nothing).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    confidence : array-like of float in [0, 1], shape (n_samples,)
    n_bins : int, default=10

    Returns
    -------
    float
        In [0, 1].
    """
    bins = reliability_bins(y_true, y_pred, confidence, n_bins=n_bins)
    used = bins[bins["count"] > 0]
    n = bins["count"].sum()
    return float((used["count"] / n * (used["accuracy"] - used["confidence"]).abs()).sum())


def confidence_report(
    y_true: Any,
    y_pred: Any,
    confidences: Mapping[str, Any],
    *,
    top: float = 0.5,
    n_bins: int = 10,
) -> dict[str, dict[str, float | None]]:
    """All confidence-quality metrics for several confidence columns at once.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
    confidences : mapping name -> array-like of shape (n_samples,)
    top : float, default=0.5
        Fraction for :func:`top_k_accuracy`.
    n_bins : int, default=10
        Bins for :func:`expected_calibration_error`.

    Returns
    -------
    dict
        ``{name: {"auc", "top_accuracy", "aurc", "ece"}}``. ``ece`` is ``None`` (missing)
        for a confidence outside [0, 1], where calibration is undefined.
    """
    if not confidences:
        raise DataError("no confidence column given")
    report: dict[str, dict[str, float | None]] = {}
    for name, conf in confidences.items():
        c = _as_confidence(conf, f"confidence column {name!r}")
        in_range = bool(np.all((c >= 0) & (c <= 1)))
        report[str(name)] = {
            "auc": confidence_auc(y_true, y_pred, c),
            "top_accuracy": top_k_accuracy(y_true, y_pred, c, top=top),
            "aurc": aurc(y_true, y_pred, c),
            "ece": expected_calibration_error(y_true, y_pred, c, n_bins=n_bins) if in_range else None,
        }
    return report

