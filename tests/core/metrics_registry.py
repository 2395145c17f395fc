"""The registry of core's metric functions and their properties.

Every metric function of the library that takes per-sample inputs and returns a number (or a
dict of numbers) is listed here once, with the properties the shared checks of
``tests/core/test_common.py`` rely on (modelled on scikit-learn's
``sklearn/metrics/tests/test_common.py``): how it is called, whether it is symmetric in its
two first arguments, whether the sample order matters, and what empty input gives.

``kind`` says how the metric is called:

* ``"scores"``: ``f(y_true, y_pred)`` on two numeric score arrays (NaN/inf is a ``DataError``);
* ``"labels"``: ``f(y_true, y_pred)`` on two class-label arrays (a missing label is a
  ``DataError``); ``binary_only`` metrics accept 0/1 labels only;
* ``"confidence"``: ``f(y_true, y_pred, confidence)`` with labels and a numeric confidence;
* ``"ratings"``: ``f(human_scores, y_pred)`` with a ratings matrix of shape
  (n_samples, n_ratings) (NaN marks a missing rating) and numeric system scores.

A length mismatch is a ``DataError`` for every metric. Nothing here imports streamlit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from core.assignment import reliability as _rel
from core.clembench import metrics as _clem
from core.hee import metrics as _hee
from core.mce import metrics as _mce
from core.rsm import metrics as _rsm
from core.rsm import true_score as _ts

__all__ = ["MetricSpec", "METRICS", "metric", "metrics_of_kind"]

Kind = Literal["scores", "labels", "confidence", "ratings"]


@dataclass(frozen=True)
class MetricSpec:
    """One metric function and its properties.

    Attributes
    ----------
    name : str
        Unique name, ``<area>.<function>``.
    func : callable
        The metric function itself.
    kind : {"scores", "labels", "confidence", "ratings"}
        How it is called (see the module docstring).
    symmetric : bool
        ``f(a, b) == f(b, a)`` for every valid ``a, b`` (only for ``scores``/``labels``).
    order_invariant : {"always", "distinct_confidence", "no"}
        Whether permuting the samples (all inputs alike) leaves the result unchanged;
        ``"distinct_confidence"``: only when no two confidences are equal (ties are broken by
        row order).
    empty : {"error", "nan"}
        What empty input gives: a ``DataError``, or NaN (every value NaN for a dict).
    binary_only : bool
        Labels must be 0/1.
    output : {"float", "dict"}
        A float (possibly NaN or None where documented) or a dict of floats.
    """

    name: str
    func: Callable[..., Any]
    kind: Kind
    symmetric: bool
    order_invariant: Literal["always", "distinct_confidence", "no"] = "always"
    empty: Literal["error", "nan"] = "error"
    binary_only: bool = False
    output: Literal["float", "dict"] = "float"


METRICS: tuple[MetricSpec, ...] = (
    # RSMTool's observed-score metrics (core.rsm.metrics)
    MetricSpec("rsm.exact_agreement", _rsm.exact_agreement, "scores", symmetric=True),
    MetricSpec("rsm.adjacent_agreement", _rsm.adjacent_agreement, "scores", symmetric=True),
    MetricSpec("rsm.cohen_kappa", _rsm.cohen_kappa, "scores", symmetric=True),
    MetricSpec("rsm.quadratic_weighted_kappa", _rsm.quadratic_weighted_kappa, "scores", symmetric=True),
    MetricSpec("rsm.pearson_r", _rsm.pearson_r, "scores", symmetric=True),
    MetricSpec("rsm.standardized_mean_difference", _rsm.standardized_mean_difference, "scores", symmetric=False),
    MetricSpec("rsm.mean_squared_error", _rsm.mean_squared_error, "scores", symmetric=True),
    MetricSpec("rsm.root_mean_squared_error", _rsm.root_mean_squared_error, "scores", symmetric=True),
    MetricSpec("rsm.r2_score", _rsm.r2_score, "scores", symmetric=False),
    # RSMTool's true-score metrics (core.rsm.true_score)
    MetricSpec("rsm.mse_true", _ts.mse_true, "ratings", symmetric=False),
    MetricSpec("rsm.prmse_true", _ts.prmse_true, "ratings", symmetric=False),
    # the effort model's regression metrics (core.hee.metrics)
    MetricSpec("hee.regression_metrics", _hee.regression_metrics, "scores", symmetric=False,
               empty="nan", output="dict"),
    # reliability of an assignment (core.assignment.reliability)
    MetricSpec("reliability.classification_scores", _rel.classification_scores, "labels", symmetric=False,
               empty="nan", output="dict"),
    # confidence estimation (core.mce.metrics)
    MetricSpec("mce.confidence_auc", _mce.confidence_auc, "confidence", symmetric=False),
    MetricSpec("mce.top_k_accuracy", _mce.top_k_accuracy, "confidence", symmetric=False,
               order_invariant="distinct_confidence"),
    MetricSpec("mce.aurc", _mce.aurc, "confidence", symmetric=False, order_invariant="distinct_confidence"),
    MetricSpec("mce.expected_calibration_error", _mce.expected_calibration_error, "confidence", symmetric=False),
    # clembench's privateshared game (core.clembench.metrics)
    MetricSpec("clembench.probe_accuracy", _clem.probe_accuracy, "labels", symmetric=True, binary_only=True),
    MetricSpec("clembench.cohen_kappa", _clem.cohen_kappa, "labels", symmetric=True, binary_only=True),
)


def metric(name: str) -> MetricSpec:
    """The registered metric called ``name`` (KeyError otherwise)."""
    for spec in METRICS:
        if spec.name == name:
            return spec
    raise KeyError(name)


def metrics_of_kind(kind: Kind) -> list[MetricSpec]:
    """The registered metrics called the ``kind`` way, in registry order."""
    return [spec for spec in METRICS if spec.kind == kind]
