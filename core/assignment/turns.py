"""Per-turn analysis of a collaborative evaluation (the paper's section 5.4, Figure 6).

For every dialogue turn: the sample count, reliability of the collaborative labels (accuracy,
macro precision/recall/F1), the machine's own accuracy, the human ratio, the time cost (the
human share of that turn's ground-truth effort) and the mean machine confidence, with
percentile bootstrap 95% intervals (samples resampled within the turn) and a flag on turns
holding under 5% of the samples.

The bootstrap resamples the counts, not the samples: resampling the n samples of a turn with
replacement and counting them gives confusion counts with the multinomial distribution of n draws
over the turn's observed (gold, label) cell shares, so the counts are drawn from that multinomial
directly (the same distribution as drawing n indices, without drawing them), and the human count
from the binomial. The part that does not depend on the assignment (turn groups, label codes,
machine-only scores and their intervals) is :func:`turn_base`, which a caller can keep and pass
to :func:`per_turn_from` for every assignment of the same data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError
from core.assignment.reliability import scores_from_confusion

__all__ = ["TURN_KEYS", "TurnBase", "turn_base", "turn_base_for", "per_turn", "per_turn_from",
           "per_turn_for", "bootstrap_scores", "bootstrap_confusion"]

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

    A resample of the n pairs with replacement is summarised by its confusion counts, which
    follow the multinomial distribution of n draws over the observed cell shares; they are drawn
    from it directly (same distribution, no n x n_boot index array).

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
    c = int(n_classes)
    cm = np.bincount(np.asarray(gold) * c + np.asarray(pred), minlength=c * c)
    return bootstrap_confusion(cm.reshape(c, c), n_boot=n_boot, rng=rng)


def bootstrap_confusion(cm: np.ndarray, *, n_boot: int,
                        rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Macro scores of ``n_boot`` multinomial resamples of one confusion matrix.

    Parameters
    ----------
    cm : int array of shape (C, C)
        Gold in rows, evaluated label in columns; n = ``cm.sum()`` > 0.
    n_boot : int
    rng : numpy.random.Generator

    Returns
    -------
    dict of arrays of shape (n_boot,)
        ``accuracy``, ``precision``, ``recall``, ``f1``.
    """
    cm = np.asarray(cm)
    c = cm.shape[0]
    n = int(cm.sum())
    counts = rng.multinomial(n, cm.ravel() / n, size=n_boot)
    s = scores_from_confusion(counts.reshape(n_boot, c, c))
    return {k: s[k] for k in ("accuracy", "precision", "recall", "f1")}


def _interval(values: np.ndarray, estimate: float) -> tuple[float, float]:
    """The percentile interval, widened to hold the estimate: with few resamples (or a skewed
    score) the 2.5/97.5 % quantiles can both fall on one side of it (``--bootstrap 1`` to 4
    gave intervals that excluded their estimate), as estimate.py's intervals are."""
    lo, hi = np.percentile(values, [2.5, 97.5])
    if np.isfinite(estimate):
        lo, hi = min(lo, estimate), max(hi, estimate)
    return float(lo), float(hi)


def _rng(seed: int, part: int, turn_index: int) -> np.random.Generator:
    """The generator of one turn's draws of one quantity (0 machine, 1 collaborative,
    2 human ratio): independent of the other turns and of the assignment."""
    return np.random.default_rng([int(seed), part, turn_index])


@dataclass(frozen=True)
class TurnBase:
    """What the per-turn analysis of a dataset needs that no assignment changes.

    Built by :func:`turn_base`; passed to :func:`per_turn_from` with an assignment.
    """

    turns: list                       # turn values, sorted
    inverse: np.ndarray               # (M,) index of each sample's turn in ``turns``
    order: np.ndarray                 # (M,) samples grouped by turn, in row order within a turn
    starts: np.ndarray                # (T + 1,) turn i is ``order[starts[i]:starts[i + 1]]``
    n: np.ndarray                     # (T,) samples per turn
    m: int                            # all samples
    n_classes: int                    # 0 without gold labels
    gold: np.ndarray | None           # (M,) gold codes
    machine: np.ndarray | None        # (M,) machine label codes
    effort: np.ndarray | None         # (M,) ground-truth effort
    static: pd.DataFrame              # (T rows) n, mean_confidence, machine_accuracy[_lo, _hi]
    n_boot: int
    seed: int


def turn_base(turn: np.ndarray, *, machine_label: np.ndarray, machine_confidence: np.ndarray,
              human_label: np.ndarray | None = None, human_effort: np.ndarray | None = None,
              labels=None, n_boot: int = 1000, seed: int = 0) -> TurnBase:
    """The assignment-free part of :func:`per_turn` (same parameters, without ``human``)."""
    turn = np.asarray(turn)
    m = len(turn)
    if m == 0:
        raise DataError("no samples to analyse per turn")
    conf = np.asarray(machine_confidence, dtype=float)
    values, inverse = np.unique(turn, return_inverse=True)
    inverse = inverse.reshape(-1)
    t_count = len(values)
    n = np.bincount(inverse, minlength=t_count)
    order = np.argsort(inverse, kind="stable")
    starts = np.r_[0, np.cumsum(n)]
    # sums over each turn's samples in row order (the same floats as summing ``x[turn == t]``)
    static = pd.DataFrame({"mean_confidence": [conf[order[starts[i]:starts[i + 1]]].mean()
                                               for i in range(t_count)]})
    g_codes = m_codes = None
    c = 0
    if human_label is not None:
        gold = np.asarray(human_label, dtype=object)
        mach = np.asarray(machine_label, dtype=object)
        if labels is None:
            labels = sorted(set(gold.tolist()) | set(mach.tolist()), key=lambda v: (str(type(v)), v))
        labels = list(labels)
        c = len(labels)
        g_codes, m_codes = _codes(gold, labels), _codes(mach, labels)
        right = m_codes == g_codes
        static["machine_accuracy"] = [right[order[starts[i]:starts[i + 1]]].mean()
                                      for i in range(t_count)]
        if n_boot > 0:
            cms = np.bincount(inverse * (c * c) + g_codes * c + m_codes,
                              minlength=t_count * c * c).reshape(t_count, c, c)
            lo, hi = np.empty(t_count), np.empty(t_count)
            for i in range(t_count):
                bm = bootstrap_confusion(cms[i], n_boot=n_boot, rng=_rng(seed, 0, i))
                lo[i], hi[i] = _interval(bm["accuracy"], static["machine_accuracy"].iloc[i])
            static["machine_accuracy_lo"], static["machine_accuracy_hi"] = lo, hi
    effort = None if human_effort is None else np.asarray(human_effort, dtype=float)
    return TurnBase(turns=[v.item() if hasattr(v, "item") else v for v in values], inverse=inverse,
                    order=order, starts=starts, n=n, m=m, n_classes=c, gold=g_codes,
                    machine=m_codes, effort=effort, static=static, n_boot=int(n_boot),
                    seed=int(seed))


def per_turn_from(base: TurnBase, human: np.ndarray, *, small_share: float = 0.05) -> pd.DataFrame:
    """:func:`per_turn` of one assignment on a :class:`TurnBase` (same output)."""
    human = np.asarray(human, dtype=bool)
    if len(human) != base.m:
        raise DataError("the assignment and the turn column have different lengths")
    t_count = len(base.turns)
    inv, n = base.inverse, base.n
    n_human = np.bincount(inv, weights=human, minlength=t_count)
    cms = None
    if base.gold is not None:
        c = base.n_classes
        final = np.where(human, base.gold, base.machine)
        cms = np.bincount(inv * (c * c) + base.gold * c + final,
                          minlength=t_count * c * c).reshape(t_count, c, c)
        scores = scores_from_confusion(cms)
    rows: list[dict[str, Any]] = []
    for i, t in enumerate(base.turns):
        ni = int(n[i])
        row: dict[str, Any] = {"turn": t, "n": ni}
        row["human_ratio"] = float(n_human[i] / ni)
        if base.effort is not None:
            sel = base.order[base.starts[i]:base.starts[i + 1]]
            e = base.effort[sel]
            tot = e.sum()
            row["time_cost"] = float(e[human[sel]].sum() / tot) if tot > 0 else float("nan")
        else:
            row["time_cost"] = float("nan")
        row["mean_confidence"] = float(base.static["mean_confidence"].iloc[i])
        if cms is not None:
            for k in ("accuracy", "precision", "recall", "f1"):
                row[k] = float(scores[k][i])
            row["machine_accuracy"] = float(base.static["machine_accuracy"].iloc[i])
        else:
            for k in ("accuracy", "precision", "recall", "f1", "machine_accuracy"):
                row[k] = float("nan")
        if base.n_boot > 0:
            for k in _CI_KEYS:
                row[f"{k}_lo"] = row[f"{k}_hi"] = float("nan")
            if cms is not None:
                bs = bootstrap_confusion(cms[i], n_boot=base.n_boot, rng=_rng(base.seed, 1, i))
                for k in ("accuracy", "precision", "recall", "f1"):
                    row[f"{k}_lo"], row[f"{k}_hi"] = _interval(bs[k], row[k])
                row["machine_accuracy_lo"] = float(base.static["machine_accuracy_lo"].iloc[i])
                row["machine_accuracy_hi"] = float(base.static["machine_accuracy_hi"].iloc[i])
            k_h = _rng(base.seed, 2, i).binomial(ni, n_human[i] / ni, size=base.n_boot)
            row["human_ratio_lo"], row["human_ratio_hi"] = _interval(k_h / ni, row["human_ratio"])
        row["small"] = ni < small_share * base.m
        rows.append(row)
    out = pd.DataFrame(rows)
    first = list(TURN_KEYS) + ["small"]
    return out[first + [c for c in out.columns if c not in first]]


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
        Seeds every draw; each turn (by its place among the sorted turns) and each quantity
        (collaborative scores, machine accuracy, human ratio) has its own stream, so a turn's
        intervals depend on its own samples only, and the machine's on no assignment.
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
    if len(turn) == 0:
        raise DataError("no samples to analyse per turn")
    if len(np.asarray(human)) != len(turn):
        raise DataError("the assignment and the turn column have different lengths")
    base = turn_base(turn, machine_label=machine_label, machine_confidence=machine_confidence,
                     human_label=human_label, human_effort=human_effort, labels=labels,
                     n_boot=n_boot, seed=seed)
    return per_turn_from(base, human, small_share=small_share)


def turn_base_for(data: Any, **kwargs) -> TurnBase:
    """:func:`turn_base` of a :class:`core.data.EvalData` (needs its ``turn`` role).

    Raises
    ------
    DataError
        When the dataset has no turn column.
    """
    f = data.frame
    if "turn" not in f:
        raise DataError("the dataset has no turn column: map one to the 'turn' role")
    return turn_base(f["turn"].to_numpy(), machine_label=f["machine_label"].to_numpy(),
                     machine_confidence=f["machine_confidence"].to_numpy(),
                     human_label=f["human_label"].to_numpy() if data.has_gold else None,
                     human_effort=f["human_effort"].to_numpy() if data.has_effort else None,
                     labels=list(data.labels), **kwargs)


def per_turn_for(data: Any, human: np.ndarray, **kwargs) -> pd.DataFrame:
    """:func:`per_turn` on a :class:`core.data.EvalData` (needs its ``turn`` role).

    Raises
    ------
    DataError
        When the dataset has no turn column.
    """
    small_share = kwargs.pop("small_share", 0.05)
    return per_turn_from(turn_base_for(data, **kwargs), human, small_share=small_share)
