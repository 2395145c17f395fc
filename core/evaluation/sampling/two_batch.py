"""Two batches: a pilot, the confidences recalibrated on its labels, the rest planned on them.

A judge's confidences are often not probabilities (trust scores, verbal grids, an overconfident
LLM), so a design planned on them in one go spends its labels where the confidences, not the
errors, are. Where a user can come back for a second batch, :func:`pilot_probabilities` gives
the first batch: ``share`` of the budget drawn by Poisson sampling, half uniform and half
towards the rows the machine is less sure of (``tilt``), so that its labels both correct final
labels and stand for the whole table. :func:`second_batch` recalibrates the confidences on the
pilot's labels (:func:`core.evaluation.sampling.forecast.calibrated_probabilities`, each label
weighted by 1 / its pilot probability) and plans the rest of the budget with the active design
on the recalibrated probabilities (:func:`core.evaluation.sampling.active.design_frontier`); the pilot's
rows are carried: pi = 1, labelled already.

Validity (design-based, whatever the judge): the second batch's probabilities p2 depend only on
the pilot's rows and labels. Given the pilot S1, the estimate is the pilot's labels on S1 plus a
design-unbiased estimate (with the controls of :mod:`core.evaluation.estimate.weighted`) of the rest over
the second batch's Poisson draw with p2 > 0 on every other row: its expectation given S1 is the
table's total, so it is unbiased unconditionally too, and an interval that covers with 95 %
given every S1 covers with 95 % over both batches. The round is written as one design with
pi = 1 on S1 and p2 elsewhere (:func:`two_batch_inclusion`), as ``hmceval queue
--calibrate-on`` writes it; read so, the pilot's labels stand only for their own rows. The
estimate (:mod:`core.evaluation.estimate.two_stage`) also uses the pilot alone as a Poisson
sample of the table and combines the two stage-wise (Des Raj), and ``pilot_half`` plans the
second batch for that combined interval (:func:`second_ratio`: wider, so more accurate; the
plan's half-width is then the one the two-stage estimate is expected to report, a
``width_model``, :func:`core.evaluation.estimate.estimator_half_width`), as ``hmceval queue
--calibrate-on`` does after a fully labelled round drawn with known probabilities. ``bench/design.py`` measures coverage, accuracy against
routing and worth against PPI++; ``tests/core/test_evaluation_two_batch.py`` checks coverage on
tables with known truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import DataError
from core.evaluation.sampling.active import (DEFAULT_FLOOR, DEFAULT_WIDTH_RATIO, ActiveDesign,
                                    design_frontier, machine_probabilities)
from core.evaluation.sampling.audit import srs_size_for_half_width
from core.evaluation.sampling.forecast import (MIN_CALIBRATION_LABELS, calibrated_probabilities,
                                               ppi_expected_half_width)
from core.evaluation.sampling.plan_range import combined_half_width

__all__ = ["PILOT_SHARE", "PILOT_TILT", "MIN_PILOT", "SECOND_FLOOR", "MAX_SECOND_RATIO",
           "pilot_size", "pilot_probabilities", "SecondBatch", "second_batch", "second_ratio",
           "combined_design", "with_half_width", "two_batch_inclusion"]

#: Share of the budget (expected labels) the pilot takes.
PILOT_SHARE = 0.2
#: Share of the pilot's weight towards the rows the machine is less sure of (0: uniform).
PILOT_TILT = 0.5
#: Fewest expected labels of a pilot: twice what the recalibration needs, so that a Poisson
#: draw falls short of it very rarely.
MIN_PILOT = 2 * MIN_CALIBRATION_LABELS
#: The second batch's floor (share of its uniform rate), the single-batch design's: a pilot's
#: hundred-odd labels leave the recalibrated curve uncertain where it matters most (the surest
#: rows, which a lower floor labels least), and the optimiser trusts that curve (a floor of
#: 0.1 made the demo's interval worth 0.55 of PPI++'s, against 0.80 at 0.35).
SECOND_FLOOR = DEFAULT_FLOOR


#: The widest the second batch's width ratio is let go when the pilot's own estimate narrows
#: the combined interval (:func:`second_ratio`).
MAX_SECOND_RATIO = 2.0


def second_ratio(probabilities: np.ndarray, control: np.ndarray, labels: float,
                 width_ratio: float, pilot_half: float) -> float:
    """The second batch's width ratio so that, combined with a pilot of half-width
    ``pilot_half``, the interval is ``width_ratio`` times PPI++'s expected half-width on
    ``labels`` random labels (:func:`ppi_expected_half_width` with ``probabilities`` the
    truth's and ``control`` the machine's): ``width_ratio / sqrt(1 - (h / pilot_half)^2)``,
    h = ``width_ratio`` times PPI++'s, at most :data:`MAX_SECOND_RATIO` (and ``width_ratio``
    itself when PPI++'s half-width is not finite)."""
    ppi = ppi_expected_half_width(probabilities, control, max(float(labels), 1.0))
    if not (np.isfinite(ppi) and ppi > 0):
        return float(width_ratio)
    t = (width_ratio * ppi / pilot_half) ** 2
    if t >= 1 - (width_ratio / MAX_SECOND_RATIO) ** 2:
        return float(max(MAX_SECOND_RATIO, width_ratio))
    return float(width_ratio / np.sqrt(1 - t))


def with_half_width(design: ActiveDesign, half: float, *, m: int | None = None
                    ) -> ActiveDesign:
    """``design`` with another expected half-width ``half`` (the two stages', or the one the
    estimate is expected to report), its worth against the same PPI++ half-width,
    worth * (h / half)^2, and its random-label equivalent with it; ``design`` as it is when
    either half-width is not finite or not positive. ``m``: the table's rows (default
    ``len(design.pi)``; a large table's designs keep no per-row array)."""
    import dataclasses
    import math

    h = design.expected_half_width
    if not (math.isfinite(h) and h > 0 and math.isfinite(half) and half > 0):
        return design
    rows = len(design.pi) if m is None else int(m)
    return dataclasses.replace(design, expected_half_width=float(half),
                               worth_vs_ppi=design.worth_vs_ppi * (h / half) ** 2,
                               random_equivalent=srs_size_for_half_width(rows, 0.25, half))


def reported(width_model: Any, probabilities: np.ndarray, machine_codes: np.ndarray,
             confidence: np.ndarray, pilot_half: float | None, *, random_labels: bool = False
             ) -> Any:
    """A frontier's ``rescore``: each design with the half-width its estimate is expected to
    report (``width_model`` on ``probabilities``, combined with ``pilot_half`` in two stages;
    without a model the ideal estimator's, combined with ``pilot_half``, or the design as it
    is). ``random_labels``: plain random labelling is estimated as PPI++ or tighter
    (:func:`core.evaluation.sampling.promises.random_labels_half`; no rows carried, one
    stage)."""
    from core.evaluation.sampling.promises import random_labels_half

    def rescore(d: ActiveDesign) -> ActiveDesign:
        if width_model is None:
            return d if pilot_half is None else combined_design(d, pilot_half)
        half = width_model(probabilities, machine_codes, confidence, d.pi,
                           pilot_half=pilot_half)
        if random_labels and d.kind == "random":
            half = random_labels_half(d, half)
        return with_half_width(d, half)
    return rescore


def combined_design(design: ActiveDesign, pilot_half: float) -> ActiveDesign:
    """``design``'s ideal expectations combined with a pilot's: its expected half-width
    combined with the pilot's own, ``pilot_half``
    (:func:`core.evaluation.sampling.plan_range.combined_half_width`), and its worth against
    PPI++ and random labels with it (:func:`with_half_width`)."""
    return with_half_width(design, combined_half_width(design.expected_half_width, pilot_half))


def pilot_size(labels: float, share: float = PILOT_SHARE) -> float:
    """Expected labels of the pilot for a budget of ``labels``: ``share`` of it, at least
    :data:`MIN_PILOT`.

    Raises
    ------
    DataError
        A share outside (0, 1), or a budget too small for a pilot and a second batch (less
        than twice :data:`MIN_PILOT`).
    """
    if not (isinstance(share, (int, float)) and 0 < share < 1):
        raise DataError(f"the pilot's share of the budget must be in (0, 1), got {share}")
    if not (isinstance(labels, (int, float)) and np.isfinite(labels)) \
            or labels < 2 * MIN_PILOT:
        raise DataError(f"a budget of {labels:g} labels is too small for two batches: a pilot "
                        f"needs {MIN_PILOT} labels to recalibrate on and the second batch as "
                        f"many (at least {2 * MIN_PILOT}); plan it in one batch")
    return float(max(share * labels, MIN_PILOT))


def pilot_probabilities(confidence: np.ndarray, labels: float, *, share: float = PILOT_SHARE,
                        tilt: float = PILOT_TILT) -> np.ndarray:
    """Inclusion probabilities of the first batch (a Poisson draw).

    Parameters
    ----------
    confidence : array of shape (M,)
        The machine's confidence q_i in its label.
    labels : float
        The whole budget (both batches), in expected labels.
    share : float, default=:data:`PILOT_SHARE`
    tilt : float, default=:data:`PILOT_TILT`
        pi_i is proportional to ``(1 - tilt) + tilt * u_i / mean(u)``, u_i = 1 - q_i, capped
        at 1 (the excess spread over the other rows); 0 gives a uniform pilot.

    Returns
    -------
    ndarray of shape (M,)
        pi_i in (0, 1], summing to :func:`pilot_size` (or M).
    """
    q = np.clip(np.asarray(confidence, dtype=float), 0.0, 1.0)
    m = len(q)
    if not 0 <= tilt <= 1:
        raise DataError(f"the pilot's tilt must be in [0, 1], got {tilt}")
    n1 = min(pilot_size(labels, share), float(m))
    u = 1 - q
    w = (1 - tilt) + tilt * (u / u.mean() if u.mean() > 0 else np.ones(m))
    pi = np.zeros(m)
    free = np.ones(m, dtype=bool)
    left = n1
    for _ in range(m + 1):  # cap at 1, spread the excess over the others
        share_w = w[free] if w[free].sum() > 0 else np.ones(int(free.sum()))
        pi[free] = left * share_w / share_w.sum()
        over = free & (pi >= 1)
        if not over.any():
            break
        pi[over] = 1.0
        free &= ~over
        left = n1 - float((~free).sum())
        if not free.any() or left <= 0:
            break
    return np.clip(pi, 1e-9, 1.0)


@dataclass(frozen=True)
class SecondBatch:
    """The second batch's plan.

    Attributes
    ----------
    design : ActiveDesign
        The recommended design on the recalibrated probabilities: pi = 1 on the pilot's rows
        (carried), the second batch's p2 elsewhere; its expectations are the whole table's,
        its half-width the one the estimate is expected to report (``width_model``; with
        ``pilot_half``, the two-stage estimate's).
    probabilities : ndarray of shape (M, K)
        The class probabilities the plan rests on.
    calibrated : bool
        False when the pilot's labels could not recalibrate the confidences (too few, or the
        machine right on all of them): the plan rests on the confidences as reported.
    """

    design: ActiveDesign
    probabilities: np.ndarray
    calibrated: bool


def second_batch(machine_codes: np.ndarray, confidence: np.ndarray, n_classes: int, *,
                 labels: float, pilot_pi: np.ndarray, rows: np.ndarray,
                 human_codes: np.ndarray, width_ratio: float = DEFAULT_WIDTH_RATIO,
                 floor: float = SECOND_FLOOR, pilot_half: float | None = None,
                 width_model: Any = None) -> SecondBatch:
    """Plan the rest of a two-batch budget on the confidences recalibrated on the pilot.

    Parameters
    ----------
    machine_codes : int array of shape (M,)
    confidence : array of shape (M,)
    n_classes : int
    labels : float
        The whole budget; the second batch gets what the pilot's labelled rows left (at least
        one label).
    pilot_pi : array of shape (M,)
        The pilot's inclusion probabilities (:func:`pilot_probabilities`): the calibration
        weighs each label by 1 / its probability.
    rows : int array
        The pilot's labelled rows.
    human_codes : int array
        Their labels, class codes 0..K-1.
    width_ratio, floor : float
        See :func:`core.evaluation.sampling.active.design_frontier`.
    pilot_half : float, optional
        The pilot's own interval half-width (its widest class share, the pilot estimated
        alone), when the round will be estimated in two stages
        (:mod:`core.evaluation.estimate.two_stage`): the combined interval's variance is about
        h1^2 h2^2 / (h1^2 + h2^2), so the second batch may be as wide as h2 with
        1 / h2^2 = 1 / h^2 - 1 / h1^2, h = ``width_ratio`` times PPI++'s expected half-width
        on the whole budget, and spends the difference on accuracy (its width ratio at most
        :data:`MAX_SECOND_RATIO`). It depends on the pilot only, so validity is untouched.
    width_model : callable, optional
        The half-width the estimate is expected to report,
        ``(probabilities, machine_codes, confidence, pi, pilot_half=) -> float``
        (:func:`core.evaluation.estimate.estimator_half_width`): every design of the frontier
        then expects it (after the choice, which stays the ideal estimator's); without it, the
        ideal estimator's, combined with ``pilot_half`` (:func:`combined_design`).

    Returns
    -------
    SecondBatch
    """
    codes = np.asarray(machine_codes, dtype=np.int64)
    q = np.asarray(confidence, dtype=float)
    m = len(q)
    rows = np.asarray(rows, dtype=np.int64)
    p1 = np.asarray(pilot_pi, dtype=float)
    if p1.shape != (m,) or len(rows) != len(np.asarray(human_codes)):
        raise DataError("the pilot needs one probability per row and one label per row drawn")
    known = np.zeros(m, dtype=bool)
    known[rows] = True
    extra: dict = {}
    calibrated = True
    try:
        y = np.asarray(human_codes, dtype=np.int64)
        probs = calibrated_probabilities(codes, q, n_classes, rows=rows, human_codes=y,
                                         weights=1 / p1[rows])
        extra = {"probabilities": probs, "gain": 1 - probs[np.arange(m), codes],
                 "reference_gain": 1 - q}
    except DataError:  # too few labels, or nothing to calibrate on: the confidences as they are
        probs = machine_probabilities(codes, q, n_classes)
        calibrated = False
    rest = max(float(labels) - len(rows), 1.0)
    half1 = None
    if pilot_half is not None and np.isfinite(pilot_half) and pilot_half > 0:
        half1 = float(pilot_half)
        width_ratio = second_ratio(probs, machine_probabilities(codes, q, n_classes),
                                   float(labels), width_ratio, half1)

    rec, _ = design_frontier(codes, q, n_classes, labels=min(rest, float(m - len(rows))),
                             known=known, width_ratio=width_ratio, floor=floor,
                             rescore=reported(width_model, probs, codes, q, half1), **extra)
    return SecondBatch(design=rec, probabilities=probs, calibrated=calibrated)


def two_batch_inclusion(pilot_rows: np.ndarray, second_pi: np.ndarray) -> np.ndarray:
    """The inclusion probabilities the estimators read for a two-batch round: 1 on the pilot's
    rows (known given the pilot), the second batch's p2 elsewhere."""
    pi = np.asarray(second_pi, dtype=float).copy()
    pi[np.asarray(pilot_rows, dtype=np.int64)] = 1.0
    return pi
