"""Agreement between annotators, and the majority vote that resolves several of them.

:func:`agreement` measures how often annotators agree on the samples that several of them
labelled (Cohen's kappa for one pair of annotators, Fleiss' kappa otherwise);
:func:`majority_vote` gives a sample's label from its annotators' labels (a tie gives none, for
adjudication). Both take plain labels (any hashable value), so they serve a table, a Label
Studio export or the annotations stored in the workspace alike.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Agreement", "agreement", "majority_vote", "pair_kappa", "fleiss_kappa"]


@dataclass(frozen=True)
class Agreement:
    """Agreement between annotators on the samples that several of them labelled.

    Attributes
    ----------
    method : {"cohen", "fleiss"}
        ``"cohen"``: Cohen's kappa, when exactly two annotators labelled every such sample
        (the same two). ``"fleiss"``: Fleiss' kappa otherwise (three or more annotators, or
        varying pairs), in its form for a varying number of raters per item (each item's
        agreement over its own raters' pairs; it is Fleiss' 1971 statistic when every item has
        the same number of raters).
    n_items : int
        Samples with at least two labels.
    n_annotators : int
        Distinct annotators on those samples.
    percent_agreement : float
        Mean over the items of the share of annotator pairs that agree (for two annotators:
        the share of items on which they agree), in [0, 1].
    kappa : float
        The chance-corrected agreement; NaN when undefined (chance agreement is 1: every label
        is the same class), as :func:`sklearn.metrics.cohen_kappa_score` returns.
    """

    method: str
    n_items: int
    n_annotators: int
    percent_agreement: float
    kappa: float

    @property
    def method_name(self) -> str:
        return "Cohen's kappa" if self.method == "cohen" else "Fleiss' kappa"

    def describe(self) -> str:
        """One plain sentence."""
        k = "undefined (every label is the same class)" if math.isnan(self.kappa) \
            else f"{self.kappa:.3f}"
        return (f"{self.n_annotators} annotators agree on {self.percent_agreement:.1%} of "
                f"{self.n_items} samples labelled more than once; {self.method_name} = {k}")


def agreement(items: Sequence[dict[str, Any]]) -> Agreement | None:
    """Inter-annotator agreement on items labelled by two or more annotators.

    Parameters
    ----------
    items : sequence of dict
        One dict per item: annotator -> label (hashable). Items with fewer than two labels are
        ignored.

    Returns
    -------
    Agreement or None
        None without an item of two labels. Cohen's kappa when the same two annotators labelled
        every item: ``po`` = share of items they agree on, ``pe = sum_c p1(c) p2(c)`` with each
        annotator's own label shares, ``kappa = (po - pe) / (1 - pe)``. Fleiss' kappa otherwise:
        ``P_i = (sum_c n_ic^2 - n_i) / (n_i (n_i - 1))``, ``P = mean_i P_i``,
        ``p_c = sum_i n_ic / sum_i n_i``, ``Pe = sum_c p_c^2``, ``kappa = (P - Pe) / (1 - Pe)``.
        ``percent_agreement`` is ``po`` (Cohen) or ``P`` (Fleiss). Kappa is NaN when the chance
        agreement is 1.
    """
    multi = [dict(it) for it in items if len(it) >= 2]
    if not multi:
        return None
    raters = sorted({a for it in multi for a in it}, key=str)
    if len(raters) == 2 and all(len(it) == 2 for it in multi):
        r1, r2 = raters
        po = float(np.mean([it[r1] == it[r2] for it in multi]))
        kappa = pair_kappa([it[r1] for it in multi], [it[r2] for it in multi])
        return Agreement("cohen", len(multi), 2, po, kappa)
    p_bar, kappa = fleiss_kappa(multi)
    return Agreement("fleiss", len(multi), len(raters), p_bar, kappa)


def fleiss_kappa(items: Sequence[dict[str, Any]]) -> tuple[float, float]:
    """Fleiss' kappa in its form for a varying number of raters per item.

    Parameters
    ----------
    items : sequence of dict
        annotator -> label per item; items with fewer than two labels are ignored.

    Returns
    -------
    (percent_agreement, kappa)
        ``P_i = (sum_c n_ic^2 - n_i) / (n_i (n_i - 1))``, ``P = mean_i P_i``,
        ``p_c = sum_i n_ic / sum_i n_i``, ``Pe = sum_c p_c^2``, ``kappa = (P - Pe) / (1 - Pe)``
        (Fleiss 1971 when every item has the same number of raters:
        ``statsmodels.stats.inter_rater.fleiss_kappa``); NaN when the chance agreement is 1 or
        no item has two labels.
    """
    p_items = []
    totals: Counter = Counter()
    n_all = 0
    for it in items:
        if len(it) < 2:
            continue
        counts = Counter(it.values())
        n_i = len(it)
        p_items.append((sum(v * v for v in counts.values()) - n_i) / (n_i * (n_i - 1)))
        totals.update(counts)
        n_all += n_i
    if not p_items:
        return float("nan"), float("nan")
    p_bar = float(np.mean(p_items))
    pe = sum((v / n_all) ** 2 for v in totals.values())
    kappa = float("nan") if math.isclose(pe, 1.0) else (p_bar - pe) / (1 - pe)
    return p_bar, float(kappa)


def pair_kappa(a: Sequence[Any], b: Sequence[Any]) -> float:
    """Cohen's kappa of two annotators on the same items, for labels of any kind.

    The labels are coded (the same code for the same label on both sides) and passed to
    :func:`core.rsm.metrics.cohen_kappa`, the codebase's one Cohen's kappa, with NaN when a
    single label occurs (scikit-learn's convention: chance agreement is 1).

    Parameters
    ----------
    a, b : sequence of hashable, shape (n_items,)

    Returns
    -------
    float
        NaN for no item or a single label overall.
    """
    from core.rsm.metrics import cohen_kappa

    if len(a) != len(b):
        raise ValueError(f"{len(a)} and {len(b)} labels")
    if not len(a):
        return float("nan")
    codes: dict[Any, int] = {}
    ca = [codes.setdefault(v, len(codes)) for v in a]
    cb = [codes.setdefault(v, len(codes)) for v in b]
    return float(cohen_kappa(ca, cb, single_label=float("nan")))


def majority_vote(labels: Iterable[Any]) -> tuple[Any, bool]:
    """The label most annotators gave one sample.

    Parameters
    ----------
    labels : iterable of hashable, length >= 1
        The sample's labels, one per annotator.

    Returns
    -------
    (label, tie)
        ``(the most frequent label, False)``; ``(None, True)`` when two or more labels share
        the highest count (no majority: the sample needs adjudication).
    """
    counts = Counter(labels).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None, True
    return counts[0][0], False
