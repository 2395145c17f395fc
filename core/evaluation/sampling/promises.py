"""What a plan promises before any label: the targets note, and plain random labelling where
the active design would give a looser interval than PPI++.

:func:`target_note` says, from a frontier's table, when no design is expected to keep both
promises (final labels within a point of routing, an interval worth PPI++'s labels) and what
the recommended design gives up, and when plain random labelling was recommended instead of
the active design (:func:`prefer_random`).

With few labels the active design routes nothing (every row keeps a probability below 1), so
its final labels are hardly more accurate than random labelling's, and the estimate pays for
its unequal weights: it fits its control on few labels, its variance rests on few effective
terms (a t quantile on Satterthwaite's degrees of freedom) and is moderated towards the
model's (:mod:`core.evaluation.estimate.weighted`). On plain random labelling the estimate is
PPI++'s own interval (``ppi_py.ppi_mean_ci``, lam=None), or a tighter one: it is never worth
fewer labels than PPI++'s. :func:`prefer_random` therefore recommends plain random labelling
when the recommended design, as the estimate is expected to report it (a plan's
``width_model``, :func:`core.evaluation.estimate.estimator_half_width`), is worth fewer labels
than PPI++'s and random labelling keeps the final labels within
:data:`~core.evaluation.sampling.active.ACCURACY_TOLERANCE` of its expected accuracy.

Measured on the real judge files (``bench/design.py``, 200 rounds): PAC Labels' misinfo file
(GPT-4o, 1,923 rows) at 40 labels, the active design realises 0.80 of PPI++'s worth at 0.47
points below routing, random labelling 1.02 at 0.49 points below; at 75 labels 0.94 against
1.00 (0.67 and 0.71 points below routing). The expectations rest on the probabilities the plan
rests on, like every other expectation of the plan.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from core.evaluation.sampling.active import ACCURACY_TOLERANCE, ActiveDesign

__all__ = ["prefer_random", "random_labels_half", "target_note"]


def random_labels_half(random: ActiveDesign, half: float) -> float:
    """The half-width the estimate is expected to report on plain random labels: ``half``
    (the weighted estimate's, a plan's ``width_model``), but never wider than PPI++'s, whose
    interval the estimate keeps unless another is tighter. ``random``: the frontier's plain
    random labelling as compared with PPI++ (its ideal half-width h and worth w give PPI++'s,
    h sqrt(w)); no rows carried, one stage."""
    return min(float(half), random.expected_half_width * math.sqrt(random.worth_vs_ppi))


def prefer_random(recommended: ActiveDesign, frontier: pd.DataFrame, *, m: int | None = None
                  ) -> tuple[ActiveDesign, pd.DataFrame]:
    """The recommended design, or plain random labelling where it is expected to do better.

    Parameters
    ----------
    recommended : ActiveDesign
        The frontier's recommended design, its half-width the one the estimate is expected to
        report (rescored by a plan's ``width_model``) and its ``worth_vs_ppi`` with it.
    frontier : pandas.DataFrame
        Its frontier (:func:`~core.evaluation.sampling.active.design_frontier`), whose
        ``random`` row is plain random labelling of the same budget.
    m : int, optional
        The rows of the table (default ``len(recommended.pi)``; a large table's designs keep
        no per-row array).

    Returns
    -------
    (ActiveDesign, pandas.DataFrame)
        ``recommended`` and ``frontier`` unchanged, or plain random labelling (kind
        ``"random"``, pi = budget / total cost on every row) with the frontier's ``random`` row
        recommended and a column ``displaced``, True on the active design it replaces. Its
        expected half-width is the narrower of PPI++'s and the weighted
        estimate's on random labels (the estimate keeps PPI++'s interval unless another is
        tighter), so its worth against PPI++ is at least 1.
    """
    worth = recommended.worth_vs_ppi
    half = recommended.expected_half_width
    if recommended.kind != "active" or not (math.isfinite(worth) and math.isfinite(half)) \
            or worth >= 1 or half <= 0 or frontier is None:
        return recommended, frontier
    at = frontier.index[frontier["design"] == "random"]
    if len(at) != 1:
        return recommended, frontier
    row = frontier.loc[at[0]]
    if float(row["expected_accuracy"]) < recommended.expected_accuracy - ACCURACY_TOLERANCE:
        return recommended, frontier
    ppi_half = half * math.sqrt(worth)  # worth = (PPI++'s half-width / this one's)^2
    own = float(row["expected_half_width"])
    rand_half = min(ppi_half, own) if math.isfinite(own) and own > 0 else ppi_half
    rand_worth = (ppi_half / rand_half) ** 2
    table = frontier.copy()
    # the design it stands in for, named by the targets note (target_note)
    table["displaced"] = table["recommended"].astype(bool)
    table["recommended"] = False
    table.loc[at[0], ["expected_half_width", "worth_vs_ppi", "recommended"]] = \
        [rand_half, rand_worth, True]
    meets = bool(float(row["accuracy_vs_routing"]) >= -ACCURACY_TOLERANCE - 1e-12
                 and rand_worth >= 1 - 1e-12)
    table.loc[at[0], "meets_targets"] = meets
    table.attrs.update(frontier.attrs)
    table.attrs["targets_reachable"] = bool(table["meets_targets"].astype(bool).iloc[:-2].any()
                                            or meets)
    from core.evaluation.sampling.audit import srs_size_for_half_width

    m = len(recommended.pi) if m is None else int(m)
    rate = float(row["expected_labels"]) / m
    pi = np.full(len(recommended.pi), rate)
    chosen = dataclasses.replace(
        recommended, pi=pi, mu=float("nan"), kind="random",
        expected_labels=float(row["expected_labels"]),
        expected_effort=float(row["expected_effort"]),
        expected_accuracy=float(row["expected_accuracy"]), expected_half_width=rand_half,
        random_equivalent=srs_size_for_half_width(m, 0.25, rand_half),
        n_routed=int(row["n_routed"]), frontier=table,
        accuracy_vs_routing=float(row["accuracy_vs_routing"]), worth_vs_ppi=rand_worth)
    return chosen, table


def target_note(frontier: pd.DataFrame, *, calibrated_on: str | None = None) -> str | None:
    """What the planner can promise before any label, from a frontier's table.

    ``calibrated_on`` names the labels the expectations were recalibrated on (``"round 3"``),
    when they were.

    Returns
    -------
    str or None
        A sentence when no design on the frontier is expected to keep both promises (final
        labels within :data:`ACCURACY_TOLERANCE` of routing the same budget, and every class
        share's interval worth at least as many labels as PPI++'s with the same number of
        random labels), naming what the recommended design gives up; one when plain random
        labelling was recommended instead of the active design (:func:`prefer_random`), saying
        why; None otherwise (or when the table has no such columns).
    """
    if frontier is None or "meets_targets" not in frontier:
        return None
    said = _random_note(frontier)
    rest = _targets_note(frontier, calibrated_on)
    return " ".join(s for s in (said, rest) if s) or None


def _random_note(frontier: pd.DataFrame) -> str | None:
    """Why plain random labelling stands in for the active design, when it does."""
    if "displaced" not in frontier:
        return None
    was = frontier[frontier["displaced"].astype(bool)]
    rec = frontier[frontier["recommended"].astype(bool)]
    if was.empty or rec.empty or rec.iloc[0]["design"] != "random":
        return None
    a, r = was.iloc[0], rec.iloc[0]
    less = 100 * (float(a["expected_accuracy"]) - float(r["expected_accuracy"]))
    cost = "about as accurate" if less < 0.05 else f"only {less:.1f} points less accurate"
    return ("Plain random labelling is recommended instead of the active design: with this "
            f"budget the active design's interval is expected to be worth only "
            f"{float(a['worth_vs_ppi']):.2f} times PPI++'s labels (with so few labels its "
            "unequal weights cost more than they give), and labelling at random leaves the "
            f"final labels {cost}; on random labels the estimate is PPI++'s interval or a "
            "tighter one.")


def _targets_note(frontier: pd.DataFrame, calibrated_on: str | None) -> str | None:
    act = frontier[(frontier["design"] == "active") | frontier["recommended"].astype(bool)]
    if act["meets_targets"].astype(bool).any():
        return None
    rec = act[act["recommended"].astype(bool)]
    if rec.empty:
        return None
    r = rec.iloc[0]
    gap = float(r["accuracy_vs_routing"])
    worth = r["worth_vs_ppi"]
    worth_txt = "" if worth is None or not math.isfinite(float(worth)) else \
        f"{float(worth):.2f} times"
    near = act[act["accuracy_vs_routing"].astype(float) >= -ACCURACY_TOLERANCE]
    alt = ""
    if len(near):
        best = near.loc[near["expected_half_width"].astype(float).idxmin()]
        w = best["worth_vs_ppi"]
        alt = (" The tightest design within 1 point of routing is expected to be worth "
               f"{float(w):.2f} times PPI++'s labels." if w is not None
               and math.isfinite(float(w)) else "")
    favours = (f"{worth_txt} PPI++'s labels, " if worth_txt else "") + (
        f"final labels {abs(gap) * 100:.1f} points {'below' if gap < 0 else 'above'} routing")
    basis = (" Expected values, taking the confidences as probabilities: where they are over- "
             "or underconfident, the round can do better or worse than expected."
             if calibrated_on is None else
             f" Expected values, from the confidences recalibrated on the labels of "
             f"{calibrated_on}.")
    return ("On these confidences no design is expected both to keep the final labels within "
            "1 point of routing the same budget and to give an interval worth as many random "
            "labels as PPI++'s: labels that make the final labels most accurate (the least "
            f"confident rows, for sure) inform the estimate least. The recommended design "
            f"favours the interval ({favours})." + alt + basis)
