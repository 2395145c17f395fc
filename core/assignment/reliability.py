"""Reliability and effort metrics of a human/machine assignment (paper section 4.3).

Reliability: macro precision, recall, F1 and accuracy of the *collaborative* labels (the
machine's label where the machine keeps the sample, the human label where a human evaluates
it) against the gold labels. Effort: human ratio and time cost (human effort of the samples
sent to humans over the total human effort).

Macro averages follow scikit-learn's ``precision_recall_fscore_support(average="macro")``:
the classes averaged are those occurring in the gold labels or in the evaluated labels, and a
class with no predicted (resp. gold) sample has precision (resp. recall) 0. F1 per class is
``2 tp / (2 tp + fp + fn)`` (0 when that denominator is 0).

Bad labels raise :class:`core.errors.DataError` naming the side and rows: a missing label
(None/NaN), a label outside the given ``labels``, or gold and evaluated labels of different
lengths. Empty input gives NaN for every score (nothing to score).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows

__all__ = [
    "RELIABILITY_KEYS",
    "collaborative_labels",
    "confusion_counts",
    "scores_from_confusion",
    "classification_scores",
    "per_class_table",
    "assignment_metrics",
]

RELIABILITY_KEYS = ("precision", "recall", "f1", "accuracy")


def collaborative_labels(machine_label: np.ndarray, human_label: np.ndarray,
                         human: np.ndarray) -> np.ndarray:
    """Final labels of a collaborative evaluation.

    Parameters
    ----------
    machine_label, human_label : array-like of shape (M,)
    human : bool array-like of shape (M,)
        True where the sample is evaluated by a human.

    Returns
    -------
    numpy.ndarray of shape (M,)
    """
    human = np.asarray(human, dtype=bool)
    return np.where(human, np.asarray(human_label, dtype=object), np.asarray(machine_label, dtype=object))


def _labels_array(values, name: str) -> np.ndarray:
    """A 1-D object array of labels; DataError naming ``name`` and the rows for missing labels."""
    arr = np.asarray(values.to_numpy(dtype=object) if isinstance(values, (pd.Series, pd.Index)) else values,
                     dtype=object)
    if arr.ndim != 1:
        raise DataError(f"{name}: expected a 1-D array of labels, got shape {arr.shape}")
    missing = np.flatnonzero(pd.isna(arr))
    if missing.size:
        raise DataError(f"{name}: missing label in {describe_rows(missing)}")
    return arr


def _encode(y_true, y_pred, labels=None) -> tuple[np.ndarray, np.ndarray, list]:
    yt = _labels_array(y_true, "y_true")
    yp = _labels_array(y_pred, "y_pred")
    if yt.shape[0] != yp.shape[0]:
        raise DataError(f"y_true and y_pred differ in length ({yt.shape[0]} vs {yp.shape[0]})")
    if labels is None:
        labels = sorted(set(yt.tolist()) | set(yp.tolist()), key=lambda v: (str(type(v)), v))
    index = {v: i for i, v in enumerate(labels)}
    try:
        return (np.fromiter((index[v] for v in yt), dtype=np.int64, count=len(yt)),
                np.fromiter((index[v] for v in yp), dtype=np.int64, count=len(yp)), list(labels))
    except KeyError as exc:  # a value outside the given labels
        raise DataError(f"label {exc.args[0]!r} is not among the labels {labels}") from None


def confusion_counts(y_true, y_pred, *, labels=None) -> np.ndarray:
    """Confusion matrix ``C[i, j]`` = number of samples with gold ``labels[i]`` labelled ``labels[j]``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (M,)
    labels : sequence, optional
        Class order; defaults to the sorted union of both.

    Returns
    -------
    numpy.ndarray of shape (C, C), int64
    """
    t, p, labels = _encode(y_true, y_pred, labels)
    c = len(labels)
    return np.bincount(t * c + p, minlength=c * c).reshape(c, c)


def scores_from_confusion(cm: np.ndarray) -> dict[str, np.ndarray]:
    """Macro precision/recall/F1 and accuracy from one or many confusion matrices.

    Parameters
    ----------
    cm : array of shape (C, C) or (G, C, C)
        Gold in rows, evaluated label in columns.

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1``, ``accuracy`` as floats (shape ``()``) or arrays of
        shape (G,), and ``precision_per_class``, ``recall_per_class``, ``f1_per_class``,
        ``support`` of shape (C,) or (G, C). Classes absent from both gold and evaluated labels
        are left out of the macro averages (their per-class value is NaN).
    """
    cm = np.asarray(cm, dtype=float)
    single = cm.ndim == 2
    if single:
        cm = cm[None]
    tp = np.diagonal(cm, axis1=1, axis2=2)
    pred = cm.sum(axis=1)
    true = cm.sum(axis=2)
    present = (pred > 0) | (true > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(pred > 0, tp / np.where(pred > 0, pred, 1), 0.0)
        rec = np.where(true > 0, tp / np.where(true > 0, true, 1), 0.0)
        den = 2 * tp + (pred - tp) + (true - tp)
        f1 = np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)
    n_present = present.sum(axis=1)
    total = cm.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            "precision": np.where(present, prec, 0).sum(axis=1) / n_present,
            "recall": np.where(present, rec, 0).sum(axis=1) / n_present,
            "f1": np.where(present, f1, 0).sum(axis=1) / n_present,
            "accuracy": tp.sum(axis=1) / total,
            "precision_per_class": np.where(present, prec, np.nan),
            "recall_per_class": np.where(present, rec, np.nan),
            "f1_per_class": np.where(present, f1, np.nan),
            "support": true,
        }
    if single:
        out = {k: (v[0] if v.ndim == 2 else float(v[0])) for k, v in out.items()}
    return out


def classification_scores(y_true, y_pred, *, labels=None) -> dict[str, float]:
    """Macro precision, recall, F1 and accuracy.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (M,)
    labels : sequence, optional

    Returns
    -------
    dict with float ``precision``, ``recall``, ``f1``, ``accuracy``
    """
    s = scores_from_confusion(confusion_counts(y_true, y_pred, labels=labels))
    return {k: float(s[k]) for k in RELIABILITY_KEYS}


def per_class_table(y_true, y_pred, *, labels=None) -> pd.DataFrame:
    """Per-class precision, recall, F1 and support.

    Returns
    -------
    pandas.DataFrame with columns ``label``, ``precision``, ``recall``, ``f1``, ``support``
    """
    t, p, labels = _encode(y_true, y_pred, labels)
    s = scores_from_confusion(confusion_counts(y_true, y_pred, labels=labels))
    return pd.DataFrame({
        "label": labels,
        "precision": s["precision_per_class"],
        "recall": s["recall_per_class"],
        "f1": s["f1_per_class"],
        "support": s["support"].astype(int),
    })


def assignment_metrics(human: np.ndarray, *, machine_label: np.ndarray,
                       machine_confidence: np.ndarray, human_label: np.ndarray | None = None,
                       human_confidence: np.ndarray | float = 1.0,
                       human_effort: np.ndarray | None = None,
                       predicted_effort: np.ndarray | None = None,
                       labels=None) -> dict[str, Any]:
    """Reliability and effort of one assignment.

    Parameters
    ----------
    human : bool array of shape (M,)
        True where the sample goes to a human.
    machine_label, machine_confidence : arrays of shape (M,)
    human_label : array of shape (M,), optional
        Gold labels; without them ``precision``, ``recall``, ``f1``, ``accuracy`` and
        ``machine_only`` are ``None`` (unavailable, not zero).
    human_confidence : float or array of shape (M,), default=1
    human_effort : array of shape (M,), optional
        Ground-truth effort; without it ``time_cost`` is ``None``.
    predicted_effort : array of shape (M,), optional
        The optimiser's effort; without it ``time_cost_predicted`` is ``None``.

    Returns
    -------
    dict
        ``M``, ``n_human``, ``human_ratio``, ``time_cost``, ``time_cost_predicted``,
        ``expected_reliability`` (mean of the machine confidence of machine-kept samples and the
        human confidence of human samples), ``precision``, ``recall``, ``f1``, ``accuracy`` and
        ``machine_only`` (a dict of the four for the machine alone).
    """
    human = np.asarray(human, dtype=bool)
    m = len(human)
    a = np.asarray(machine_confidence, dtype=float)
    b = np.broadcast_to(np.asarray(human_confidence, dtype=float), (m,))
    out: dict[str, Any] = {"M": m, "n_human": int(human.sum()),
                           "human_ratio": float(human.mean()) if m else float("nan")}
    out["expected_reliability"] = float(np.where(human, b, a).mean())
    out["time_cost"] = _share(human_effort, human)
    out["time_cost_predicted"] = _share(predicted_effort, human)
    if human_label is None:
        for k in RELIABILITY_KEYS:
            out[k] = None
        out["machine_only"] = None
        return out
    final = collaborative_labels(machine_label, human_label, human)
    out.update(classification_scores(human_label, final, labels=labels))
    out["machine_only"] = classification_scores(human_label, machine_label, labels=labels)
    return out


def _share(effort: np.ndarray | None, human: np.ndarray) -> float | None:
    if effort is None:
        return None
    effort = np.asarray(effort, dtype=float)
    total = effort.sum()
    if total == 0:
        return float("nan")
    return float(effort[human].sum() / total)
