"""The privateshared game's metric functions: probe accuracy, Cohen's kappa, truncated kappa, main score, middle round."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from core.errors import DataError


def _as_binary(values: Iterable[Any], *, what: str) -> np.ndarray:
    arr = np.asarray(list(values), dtype=object)
    if arr.ndim != 1:
        raise DataError(f"{what} must be a flat sequence of 0/1 labels")
    bad = [i for i, v in enumerate(arr.tolist()) if not is_binary(v)]
    if bad:
        raise DataError(
            f"{what} must hold 0/1 labels; position {bad[0]} is {arr[bad[0]]!r}"
            + (f" ({len(bad)} bad values)" if len(bad) > 1 else "")
        )
    return arr.astype(np.int64)


def is_binary(v: Any) -> bool:
    """Whether ``v`` is a 0/1 label (a bool, or an integer equal to 0 or 1)."""
    if isinstance(v, (bool, np.bool_)):
        return True
    if isinstance(v, (int, np.integer)):
        return int(v) in (0, 1)
    return False


def probe_accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Fraction of probes answered correctly (clembench's ``Accuracy``).

    Equal, to the last bit, to ``sklearn.metrics.accuracy_score(y_true, y_pred)`` on 0/1
    labels: the number of matches divided by the number of probes.

    Parameters
    ----------
    y_true : sequence of int, shape (n_probes,)
        Ground truth ``gt`` (1 = the slot is already shared with the questioner).
    y_pred : sequence of int, shape (n_probes,)
        The parsed answers ``value`` (1 = "yes", 0 = "no").

    Returns
    -------
    float
        Accuracy in [0, 1].

    Raises
    ------
    DataError
        Empty input, different lengths, or labels other than 0/1.
    """
    t = _as_binary(y_true, what="y_true")
    p = _as_binary(y_pred, what="y_pred")
    if t.shape != p.shape:
        raise DataError(f"y_true has {t.size} probes but y_pred has {p.size}")
    if t.size == 0:
        raise DataError("no probes: accuracy is undefined for an empty probing round")
    return int(np.count_nonzero(t == p)) / int(t.size)


def cohen_kappa(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Cohen's kappa between ground truth and answers, as clembench computes it.

    clembench calls ``sklearn.metrics.cohen_kappa_score(y_true, y_pred)``; this is the library's
    one kappa, :func:`core.rsm.metrics.cohen_kappa`, which follows scikit-learn's arithmetic to
    the last bit, with scikit-learn's value for a single label: kappa is undefined (NaN, the
    ``replace_undefined_by`` default) when ground truth and answers use one and the same single
    label, e.g. all ``gt`` and all answers 0; a constant answer against a ground truth with both
    labels gives exactly 0.0.

    Parameters
    ----------
    y_true : sequence of int, shape (n_probes,)
        Ground truth labels (0/1).
    y_pred : sequence of int, shape (n_probes,)
        Answers (0/1).

    Returns
    -------
    float
        Kappa in [-1, 1], or NaN when undefined.

    Raises
    ------
    DataError
        Empty input, different lengths, or labels other than 0/1.
    """
    from core.rsm.metrics import cohen_kappa as kappa

    t = _as_binary(y_true, what="y_true")
    p = _as_binary(y_pred, what="y_pred")
    if t.shape != p.shape:
        raise DataError(f"y_true has {t.size} probes but y_pred has {p.size}")
    if t.size == 0:
        raise DataError("no probes: kappa is undefined without probes")
    return kappa(t, p, single_label=math.nan)


def truncated_kappa(kappa: float) -> float | int:
    """clembench's ``Truncated Kappa``: Python's ``max(0, kappa)``.

    Python's ``max`` keeps its first argument unless the second compares greater, so the result
    is the ``int`` 0 when ``kappa <= 0`` **and when kappa is NaN** (``nan > 0`` is false); this
    is what clembench logs for a non-aborted episode. (For an aborted episode clembench logs NaN
    without calling this; see :func:`score_episode`.)

    Parameters
    ----------
    kappa : float
        Cohen's kappa (may be NaN).

    Returns
    -------
    float or int
        ``kappa`` when ``kappa > 0``, otherwise the int 0.
    """
    return max(0, kappa)


def main_score(sf_acc: float, trunc_kappa: float) -> float:
    """clembench's ``Main Score``: 100 times the harmonic mean of slot filling and kappa.

    Computed in clembench's order, ``100 * (2 * sf_acc * trunc_kappa / (sf_acc +
    trunc_kappa))``, so the float result is bit-identical.

    Parameters
    ----------
    sf_acc : float
        Slot-filling accuracy in [0, 1] (NaN for an aborted episode).
    trunc_kappa : float
        Truncated kappa in [0, 1] (NaN for an aborted episode).

    Returns
    -------
    float
        NaN when either input is NaN; the int 0 when ``sf_acc + trunc_kappa == 0``; otherwise
        the score in [0, 100].
    """
    if math.isnan(sf_acc) or math.isnan(trunc_kappa):
        return math.nan
    if sf_acc + trunc_kappa == 0:
        return 0
    return 100 * (2 * sf_acc * trunc_kappa / (sf_acc + trunc_kappa))


def middle_round(n_slots: int) -> int:
    """Index of the probing round whose accuracy is ``Middle-Accuracy``.

    ``int((n_slots + 1) / 2) - 1``: round 2 (the third round) for 5 slots, round 7 for 15.

    Parameters
    ----------
    n_slots : int
        Number of slots of the game instance (the episode has ``n_slots + 1`` probing rounds).

    Returns
    -------
    int
        0-based probing round index.
    """
    if isinstance(n_slots, bool) or not isinstance(n_slots, (int, np.integer)) or n_slots < 1:
        raise DataError(f"n_slots must be a positive integer, got {n_slots!r}")
    return int((int(n_slots) + 1) / 2) - 1
