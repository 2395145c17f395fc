"""Compare confidence estimators: quality metrics, curves and their effect on the SAE.

Used by the Confidence page; the metric numbers come from :func:`core.mce.metrics.confidence_report`,
the same function as ``hmceval confidence``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError
from core.mce.metrics import confidence_report, confidence_roc_curve, reliability_bins, risk_coverage_curve

__all__ = ["ConfidenceComparison", "compare_confidences", "estimator_inputs", "sae_by_estimator"]


@dataclass
class ConfidenceComparison:
    """Everything the Confidence page shows about several confidence columns.

    Attributes
    ----------
    table : DataFrame
        One row per column: ``confidence``, ``auc``, ``top_accuracy``, ``aurc``, ``ece``
        (NaN/None as :func:`confidence_report` gives them), ``mean`` (mean confidence).
    roc : dict name -> DataFrame (``threshold``, ``fpr``, ``tpr``)
    risk : dict name -> DataFrame (``coverage``, ``risk``, ``threshold``)
    bins : dict name -> DataFrame of :func:`reliability_bins` (only columns in [0, 1])
    accuracy : float
        The machine's accuracy on all samples (the risk at full coverage is ``1 - accuracy``).
    """

    table: pd.DataFrame
    roc: dict[str, pd.DataFrame]
    risk: dict[str, pd.DataFrame]
    bins: dict[str, pd.DataFrame]
    accuracy: float


def compare_confidences(y_true: Any, y_pred: Any, confidences: Mapping[str, Any], *, top: float = 0.5,
                        n_bins: int = 10) -> ConfidenceComparison:
    """Metrics and curves of several confidence columns against "the machine label is correct".

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Gold and machine labels.
    confidences : mapping name -> array-like of shape (n_samples,)
    top : float, default=0.5
        Fraction for the top-k accuracy.
    n_bins : int, default=10
        Bins of the ECE and the reliability diagrams.

    Returns
    -------
    ConfidenceComparison
    """
    report = confidence_report(y_true, y_pred, confidences, top=top, n_bins=n_bins)
    rows, roc, risk, bins = [], {}, {}, {}
    for name, conf in confidences.items():
        r = report[str(name)]
        c = np.asarray(conf, dtype=float)
        rows.append({"confidence": str(name), **r, "mean": float(c.mean())})
        roc[str(name)] = confidence_roc_curve(y_true, y_pred, c)
        risk[str(name)] = risk_coverage_curve(y_true, y_pred, c)
        if r["ece"] is not None:
            bins[str(name)] = reliability_bins(y_true, y_pred, c, n_bins=n_bins)
    first = next(iter(risk.values()))
    accuracy = 1.0 - float(first["risk"].iloc[-1])
    return ConfidenceComparison(table=pd.DataFrame(rows), roc=roc, risk=risk, bins=bins, accuracy=accuracy)


def estimator_inputs(data: Any, columns: Sequence[str]) -> dict[str, Any]:
    """The SAE's inputs with each confidence column as the machine confidence.

    They depend on the dataset only, not on N or lambda: a caller that solves at many
    parameters builds them once and passes them to :func:`sae_by_estimator`.

    Parameters
    ----------
    data : core.data.EvalData
    columns : sequence of str
        Source columns of ``data.raw``.

    Returns
    -------
    dict
        Column -> :class:`core.assignment.SAEInputs` of ``data.with_confidence(column)``.

    Raises
    ------
    DataError
        No column, or a column that is not a confidence (as :meth:`EvalData.with_confidence`).
    """
    from core.assignment import SAEInputs

    if not columns:
        raise DataError("no confidence column to compare")
    return {col: SAEInputs.from_data(data.with_confidence(col)) for col in columns}


def sae_by_estimator(data: Any, columns: Sequence[str], *, lam: float, n_human: int, mode: str = "at_most",
                     lams: Sequence[float] | None = None,
                     inputs: Mapping[str, Any] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The SAE result with each confidence column as the machine confidence (paper Figure 4).

    Parameters
    ----------
    data : core.data.EvalData
        The active dataset (gold labels needed for reliability; effort as the data provides).
    columns : sequence of str
        Source columns of ``data.raw`` to use in turn as ``machine_confidence``.
    lam : float
        The current lambda.
    n_human : int
        The current human budget N.
    mode : {"at_most", "exactly"}
    lams : sequence of float, optional
        A lambda grid for curves at this N (accuracy against time cost as lambda varies).
    inputs : mapping, optional
        :func:`estimator_inputs` of ``data`` (built here for the columns it lacks).

    Returns
    -------
    points : DataFrame
        One row per column at the current parameters: ``confidence`` and the metrics of
        :func:`core.assignment.evaluate` (``accuracy``, ``f1``, ``human_ratio``, ``time_cost``, ...).
    curves : DataFrame
        The :func:`core.assignment.sweep` rows over ``lams`` at N, with a ``confidence`` column (empty
        without ``lams``).
    """
    from core.assignment import evaluate, solve, sweep

    if not columns:
        raise DataError("no confidence column to compare")
    inputs = dict(inputs or {})
    missing = [c for c in columns if c not in inputs]
    if missing:
        inputs.update(estimator_inputs(data, missing))
    points, curves = [], []
    for col in columns:
        inp = inputs[col]
        res = evaluate(inp, solve(inp, lam=float(lam), n_human=int(n_human), mode=mode))
        res.pop("machine_only", None)
        points.append({"confidence": col, **res})
        if lams is not None and len(lams):
            sw = sweep(inp, lams=list(lams), n_values=[int(n_human)], mode=mode)
            sw.insert(0, "confidence", col)
            curves.append(sw)
    return pd.DataFrame(points), (pd.concat(curves, ignore_index=True) if curves else pd.DataFrame())
