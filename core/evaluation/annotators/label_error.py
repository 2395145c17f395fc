"""The error rate of the labels a round actually uses, from one annotator's error rate.

:mod:`core.evaluation.annotators.noise` measures eta, the probability that *one* annotator's label is
wrong (symmetric model: independent annotators, a wrong label any other class alike), and
corrects a round's estimates for the error of its labels. A row labelled by several annotators
carries their aggregate, which is wrong less often than one label: applying eta to a
majority-of-3 label over-corrected (issue 32). This module gives the probability that the label
a row carries is wrong, and their mean over the labelled rows, the rate the correction needs.

For a row with ``m`` labels, ``c`` of them right (``c ~ Binomial(m, 1 - eta)``) and the
``m - c`` wrong ones spread uniformly over the ``k - 1`` other classes, the row's votes either
have a unique plurality or a tie. Both the majority and Dawid-Skene (whose estimate, under this
symmetric model with alike annotators, is the plurality) label a row with a unique plurality by
it; a tie is left unlabelled by the majority (adjudication) and resolved by Dawid-Skene, which
under the model picks among the tied classes alike. So the chance that a row's label is wrong is

- one label: eta;
- a unique plurality: ``P(plurality wrong | unique plurality)``;
- a tie that still has a label (Dawid-Skene): ``P(wrong | tie)``, the true class being one of
  ``t + 1`` tied classes with chance ``1 / (t + 1)`` when it is tied;
- a label of the gold annotator (``--gold-annotator``): 0 (it is the truth the rate is
  measured against).

Both conditional rates are the same whatever the true class (the model is symmetric), so the
rows' mean, ``eta_labels``, enters the symmetric correction as eta did. The wrong labels of a
row are uniform over the other classes by the same symmetry. The interval of ``eta_labels``
maps the ends of eta's interval (every rate above increases with eta below ``(k-1)/k``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np
import pandas as pd

from core.evaluation.annotators.noise import AnnotatorError

__all__ = ["row_error", "labels_error"]


@lru_cache(maxsize=4096)
def _wrong_counts(s: int, k: int) -> tuple[tuple[int, int, float], ...]:
    """The distribution of ``(max, n_at_max)`` of ``s`` wrong labels spread uniformly over
    ``k - 1`` classes: ``((max, ties, probability), ...)`` (max 0 when ``s`` is 0)."""
    if s == 0:
        return ((0, k - 1, 1.0),)
    # dynamic programme over the wrong classes: state (used, max, n_at_max) -> sum of
    # prod 1 / n_j!, times s! / (k - 1)^s at the end (the multinomial probability)
    states: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}
    for _ in range(k - 1):
        nxt: dict[tuple[int, int, int], float] = {}
        for (used, mx, nm), w in states.items():
            for n in range(0, s - used + 1):
                if n > mx:
                    key = (used + n, n, 1)
                elif n == mx:
                    key = (used + n, mx, nm + 1)
                else:
                    key = (used + n, mx, nm)
                nxt[key] = nxt.get(key, 0.0) + w / math.factorial(n)
        states = nxt
    scale = math.factorial(s) / (k - 1) ** s
    out: dict[tuple[int, int], float] = {}
    for (used, mx, nm), w in states.items():
        if used == s:
            out[(mx, nm)] = out.get((mx, nm), 0.0) + w * scale
    return tuple((mx, nm, p) for (mx, nm), p in out.items())


def row_error(eta: float, n_classes: int, n_labels: int, *, tie: bool) -> float:
    """The chance that the label of a row with ``n_labels`` independent labels is wrong.

    Parameters
    ----------
    eta : float
        One annotator's error rate.
    n_classes : int
    n_labels : int
        Labels of the row (>= 1).
    tie : bool
        Whether the row's votes tie (its label then resolves the tie among the tied classes
        alike, as Dawid-Skene does under the symmetric model); else its label is the unique
        plurality.

    Returns
    -------
    float
        ``P(label wrong | the votes' kind)``; NaN when that kind cannot occur.

    Examples
    --------
    Two classes, three labels: the majority is wrong when two or three are,
    ``3 eta^2 (1 - eta) + eta^3``.

    >>> round(row_error(0.1, 2, 3, tie=False), 6)
    0.028
    """
    k, m = int(n_classes), int(n_labels)
    if m <= 1:
        return float(eta) if not tie else float("nan")
    unique_wrong = unique_right = tie_p = tie_wrong = 0.0
    for c in range(m + 1):
        pc = math.comb(m, c) * (1 - eta) ** c * eta ** (m - c)
        if pc == 0:
            continue
        for mx, nm, p in _wrong_counts(m - c, k):
            w = pc * p
            if c > mx:
                unique_right += w
            elif c < mx and nm == 1:
                unique_wrong += w
            elif c < mx:  # a tie among wrong classes only
                tie_p += w
                tie_wrong += w
            else:  # c == mx >= 1: the true class tied with nm wrong ones
                tie_p += w
                tie_wrong += w * nm / (nm + 1)
    if tie:
        return tie_wrong / tie_p if tie_p > 0 else float("nan")
    total = unique_wrong + unique_right
    return unique_wrong / total if total > 0 else float("nan")


def _rows(votes: pd.DataFrame, rows: np.ndarray, gold_annotator: str | None
          ) -> list[tuple[int, bool, bool]]:
    """``(n_labels, tie, gold)`` of each labelled row (rows without votes: one label)."""
    by_row: dict[int, list] = {}
    gold_rows: set[int] = set()
    for r, a, lab in zip(votes["row"].astype(int), votes["annotator"].astype(str),
                         votes["label"]):
        by_row.setdefault(int(r), []).append(lab)
        if gold_annotator is not None and a == str(gold_annotator):
            gold_rows.add(int(r))
    out = []
    for r in rows.tolist():
        labs = by_row.get(int(r), [None])
        counts = sorted(pd.Series(labs, dtype=object).value_counts().tolist(), reverse=True)
        out.append((len(labs), len(counts) > 1 and counts[0] == counts[1], int(r) in gold_rows))
    return out


def labels_error(eta: AnnotatorError, votes: pd.DataFrame, rows, *,
                 gold_annotator: str | None = None) -> AnnotatorError:
    """``eta`` turned into the mean error rate of the labels the round uses.

    Parameters
    ----------
    eta : AnnotatorError
        One annotator's error rate (:mod:`core.evaluation.annotators.noise`).
    votes : pandas.DataFrame
        The round's votes: ``row``, ``annotator``, ``label`` (one per row and annotator).
    rows : array-like of int
        The labelled rows the estimate reads.
    gold_annotator : str, optional
        Rows this annotator labelled carry the truth (error 0).

    Returns
    -------
    AnnotatorError
        ``eta``, ``ci_low``, ``ci_high``: the mean of :func:`row_error` over ``rows`` at eta
        and at its interval's ends; ``annotator_eta`` keeps one annotator's rate. Unchanged
        when every row has one label.
    """
    rows = np.asarray(rows, dtype=np.int64)
    kinds = _rows(votes, rows, gold_annotator)
    if not len(kinds) or all(n == 1 and not g for n, _, g in kinds):
        return replace(eta, annotator_eta=eta.eta)
    k = eta.n_classes

    def mean(e: float) -> float:
        if not e < (k - 1) / k:
            return e  # the labels say nothing: the correction gives no estimate either way
        vals = [0.0 if g else row_error(e, k, n, tie=t) for n, t, g in kinds]
        return float(np.nanmean(vals)) if len(vals) else e

    return replace(eta, eta=mean(eta.eta), ci_low=mean(eta.ci_low), ci_high=mean(eta.ci_high),
                   annotator_eta=eta.eta)
