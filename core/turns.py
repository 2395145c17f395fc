"""Per-turn analysis of a collaborative evaluation (the paper's section 5.4, Figure 6).

For every dialogue turn: the sample count, reliability of the collaborative labels (accuracy,
macro precision/recall/F1), the machine's own accuracy, the human ratio, the time cost (the
human share of that turn's ground-truth effort) and the mean machine confidence, with
percentile bootstrap 95% intervals (samples resampled within the turn) and a flag on turns
holding under 5% of the samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError
from core.reliability import collaborative_labels, scores_from_confusion

__all__ = ["TURN_KEYS", "per_turn", "per_turn_for", "bootstrap_scores"]

#: Keys of every per-turn record (``hmceval turns --json``), in order.
TURN_KEYS = ("turn", "n", "accuracy", "precision", "recall", "f1", "machine_accuracy",
             "human_ratio", "time_cost", "mean_confidence")
_CI_KEYS = ("accuracy", "precision", "recall", "f1", "machine_accuracy", "human_ratio")


def _codes(values: np.ndarray, labels: list) -> np.ndarray:
    index = {v: i for i, v in enumerate(labels)}
    return np.fromiter((index[v] for v in values.tolist()), dtype=np.int64, count=len(values))


def bootstrap_scores(gold: np.ndarray, pred: np.ndarray, n_classes: int, *, n_boot: int,
                     rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Macro scores of ``n_boot`` bootstrap resamples of (gold, pred) integer codes.

    Parameters
    ----------
    gold, pred : int arrays of shape (n,)
        Class codes in ``range(n_classes)``.
    n_classes : int
    n_boot : int
    rng : numpy.random.Generator

    Returns
    -------
    dict of arrays of shape (n_boot,)
        ``accuracy``, ``precision``, ``recall``, ``f1``.
    """
    n = len(gold)
    idx = rng.integers(0, n, size=(n_boot, n))
    c2 = n_classes * n_classes
    pair = gold[idx] * n_classes + pred[idx] + (np.arange(n_boot) * c2)[:, None]
    cms = np.bincount(pair.ravel(), minlength=n_boot * c2).reshape(n_boot, n_classes, n_classes)
    s = scores_from_confusion(cms)
    return {k: s[k] for k in ("accuracy", "precision", "recall", "f1")}


def per_turn(turn: np.ndarray, human: np.ndarray, *, machine_label: np.ndarray,
             machine_confidence: np.ndarray, human_label: np.ndarray | None = None,
             human_effort: np.ndarray | None = None, labels=None, n_boot: int = 1000,
             seed: int = 0, small_share: float = 0.05) -> pd.DataFrame:
    """Per-turn reliability and effort of an assignment.

    Parameters
    ----------
    turn : int array of shape (M,)
        Turn index of every sample.
    human : bool array of shape (M,)
        True where the sample goes to a human.
    machine_label, machine_confidence : arrays of shape (M,)
    human_label : array of shape (M,), optional
        Gold labels; without them the reliability columns are NaN.
    human_effort : array of shape (M,), optional
        Ground-truth effort; without it ``time_cost`` is NaN.
    labels : sequence, optional
        Class order (defaults to the sorted union of labels).
    n_boot : int, default=1000
        Bootstrap resamples per turn for the 95% intervals (0 switches them off).
    seed : int, default=0
    small_share : float, default=0.05
        Turns with fewer than this share of all samples are flagged ``small``.

    Returns
    -------
    pandas.DataFrame
        One row per turn, sorted by turn: :data:`TURN_KEYS`, ``small`` and, for the keys
        ``accuracy``, ``precision``, ``recall``, ``f1``, ``machine_accuracy`` and
        ``human_ratio``, the bounds ``<key>_lo`` and ``<key>_hi``.
    """
    turn = np.asarray(turn)
    human = np.asarray(human, dtype=bool)
    m = len(turn)
    if m == 0:
        raise DataError("no samples to analyse per turn")
    if len(human) != m:
        raise DataError("the assignment and the turn column have different lengths")
    conf = np.asarray(machine_confidence, dtype=float)
    mach = np.asarray(machine_label, dtype=object)
    gold = None if human_label is None else np.asarray(human_label, dtype=object)
    if gold is not None:
        if labels is None:
            labels = sorted(set(gold.tolist()) | set(mach.tolist()), key=lambda v: (str(type(v)), v))
        labels = list(labels)
        final = collaborative_labels(mach, gold, human)
        g_codes, f_codes, m_codes = (_codes(gold, labels), _codes(final, labels), _codes(mach, labels))
        c = len(labels)
    effort = None if human_effort is None else np.asarray(human_effort, dtype=float)
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for t in np.unique(turn):
        sel = np.flatnonzero(turn == t)
        n = len(sel)
        row: dict[str, Any] = {"turn": t.item() if hasattr(t, "item") else t, "n": n}
        h = human[sel]
        row["human_ratio"] = float(h.mean())
        if effort is not None:
            tot = effort[sel].sum()
            row["time_cost"] = float(effort[sel][h].sum() / tot) if tot > 0 else float("nan")
        else:
            row["time_cost"] = float("nan")
        row["mean_confidence"] = float(conf[sel].mean())
        if gold is not None:
            cm = np.bincount(g_codes[sel] * c + f_codes[sel], minlength=c * c).reshape(c, c)
            s = scores_from_confusion(cm)
            for k in ("accuracy", "precision", "recall", "f1"):
                row[k] = float(s[k])
            row["machine_accuracy"] = float((m_codes[sel] == g_codes[sel]).mean())
        else:
            for k in ("accuracy", "precision", "recall", "f1", "machine_accuracy"):
                row[k] = float("nan")
        if n_boot > 0:
            if gold is not None:
                bs = bootstrap_scores(g_codes[sel], f_codes[sel], c, n_boot=n_boot, rng=rng)
                bm = bootstrap_scores(g_codes[sel], m_codes[sel], c, n_boot=n_boot, rng=rng)
                bs["machine_accuracy"] = bm["accuracy"]
            else:
                bs = {}
            idx = rng.integers(0, n, size=(n_boot, n))
            bs["human_ratio"] = h[idx].mean(axis=1)
            for k in _CI_KEYS:
                if k in bs:
                    lo, hi = np.percentile(bs[k], [2.5, 97.5])
                    row[f"{k}_lo"], row[f"{k}_hi"] = float(lo), float(hi)
                else:
                    row[f"{k}_lo"] = row[f"{k}_hi"] = float("nan")
        row["small"] = n < small_share * m
        rows.append(row)
    out = pd.DataFrame(rows)
    first = list(TURN_KEYS) + ["small"]
    return out[first + [c for c in out.columns if c not in first]]


def per_turn_for(data: Any, human: np.ndarray, **kwargs) -> pd.DataFrame:
    """:func:`per_turn` on a :class:`core.data.EvalData` (needs its ``turn`` role).

    Raises
    ------
    DataError
        When the dataset has no turn column.
    """
    f = data.frame
    if "turn" not in f:
        raise DataError("the dataset has no turn column: map one to the 'turn' role")
    return per_turn(f["turn"].to_numpy(), human, machine_label=f["machine_label"].to_numpy(),
                    machine_confidence=f["machine_confidence"].to_numpy(),
                    human_label=f["human_label"].to_numpy() if data.has_gold else None,
                    human_effort=f["human_effort"].to_numpy() if data.has_effort else None,
                    labels=list(data.labels), **kwargs)
