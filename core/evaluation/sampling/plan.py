"""Planning a round with inclusion probabilities: the active design, or plain random labelling.

:func:`plan_design` plans every undecided row of a round's table
(:class:`~core.evaluation.sampling.design.Design`) with the recommended design of
:func:`core.evaluation.sampling.active.design_frontier` (or the one for a given mu), draws it
(:func:`core.evaluation.sampling.draw.draw_queue`) and returns the
:class:`~core.evaluation.sampling.design.QueuePlan`; with earlier labels
(:class:`~core.evaluation.sampling.design.EarlierLabels`) the design rests on the confidences
recalibrated on them, and the labelled rows are carried into the round.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.assignment import gains
from core.errors import DataError, describe_rows
from core.evaluation.sampling.active import ActiveDesign, design_frontier, machine_probabilities
from core.evaluation.sampling.design import SELECTIONS, Design, EarlierLabels, QueuePlan
from core.evaluation.sampling.draw import draw_queue, earlier_stage
from core.evaluation.sampling.promises import prefer_random

__all__ = ["plan_design"]


def plan_design(design: Design, *, kind: str = "active", labels: float | None = None,
                effort_budget: float | None = None, lam: float = 0.0, mu: float | None = None,
                width_ratio: float | None = None, seed: int = 0,
                earlier: EarlierLabels | None = None,
                pilot_half: float | None = None, width_model: Any = None) -> QueuePlan:
    """Plan a round with inclusion probabilities: the active design, or plain random labelling.

    Parameters
    ----------
    design : Design
        Every row undecided (no calibration sample: guarantee mode keeps its simple random
        calibration sample, :func:`plan_queue`).
    kind : {"active", "random", "pilot"}
        ``active``: the recommended design of :func:`core.evaluation.sampling.active.design_frontier`
        (or the one for ``mu``); ``random``: the same pi = budget / total cost on every row;
        ``pilot``: the first of two batches
        (:func:`core.evaluation.sampling.two_batch.pilot_probabilities`: a share of ``labels``, the whole
        budget, half of it towards the less sure rows); the second is planned with
        ``earlier`` = its labels, weighted by 1 / pi.
    labels, effort_budget : float
        The budget, in expected labels or in expected predicted effort (one of them).
    lam : float, default=0
        Lambda of the gain b - a - lambda (l - k) that ranks rows for routing (0: the machine's
        chance of being wrong; effort already enters through an effort budget).
    mu : float, optional
        Weight of the final accuracy (default: the recommended design).
    width_ratio : float, optional
        See :func:`~core.evaluation.sampling.active.design_frontier`.
    seed : int, default=0
        Seed of the Poisson draw; the same seed gives the same rows. With ``earlier`` the draw
        has a stream of its own (:func:`core.evaluation.sampling.draw.earlier_stage`), so a
        round planned on a pilot drawn with the same seed is drawn independently of it.
    earlier : EarlierLabels, optional
        Labels humans already gave on some rows. The active design then plans on the
        confidences recalibrated on them
        (:func:`core.evaluation.sampling.forecast.calibrated_probabilities`; the routing it is
        compared with still ranks rows by the confidences as reported), and both designs carry
        them: their rows are ``routed`` with pi = 1, already labelled (not queued, and not
        counted in the budget), so every estimate of the round uses them exactly, and the new
        draw, which depends on them only through the plan, stays a Poisson sample of the
        other rows.
    pilot_half : float, optional
        With ``earlier`` the pilot of two batches: the pilot's own interval half-width (its
        widest class share, the pilot estimated alone as a sample of the table). The round
        will be estimated in two stages (:mod:`core.evaluation.estimate.two_stage`), so the
        design is planned for the combined interval
        (:func:`core.evaluation.sampling.two_batch.second_ratio`: the width ratio the
        pilot's estimate leaves, spent on accuracy). It depends on the pilot only.
    width_model : callable, optional
        The half-width the estimate is expected to report for a design,
        ``(probabilities, machine_codes, confidence, pi, pilot_half=) -> float``
        (:func:`core.evaluation.estimate.estimator_half_width`, which
        ``core.workspace.active_rounds`` passes), on the probabilities the plan rests on (the
        confidences as reported, or recalibrated on ``earlier``). Every design of the frontier
        (so ``meets_targets``, worth and ``targets_note``) and the range then expect it,
        combined with ``pilot_half`` in two stages; the choice along the frontier is
        unchanged, but where no rows are carried and the recommended design is expected to
        be worth fewer labels than PPI++'s, plain random labelling is recommended instead
        when it keeps the final labels about as accurate
        (:func:`core.evaluation.sampling.promises.prefer_random`). Without it, the ideal
        estimator's half-width (combined with ``pilot_half``).

    Returns
    -------
    QueuePlan
        ``selection``: ``routed`` (pi = 1), ``audit`` (drawn with pi < 1), ``machine``;
        ``inclusion``: pi of every row; ``queue_rank``: audit rows in random order, then
        routed rows by descending gain; ``design``: the solved design and its frontier.
    """
    from core.evaluation.sampling.active import DEFAULT_WIDTH_RATIO, DESIGNS

    if kind not in ("active", "random", "pilot"):
        raise DataError(f"design must be one of {', '.join(DESIGNS)}, got {kind!r} "
                        "(routing is planned by plan_queue)")
    if kind == "pilot" and (labels is None or earlier is not None):
        raise DataError("a pilot takes the whole budget in labels (--labels B; it draws a "
                        "share of it) and no earlier labels: it is the first of two batches")
    if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise DataError(f"seed must be a whole number in [0, 2^63), got {seed}")
    if not (isinstance(lam, (int, float)) and np.isfinite(lam) and lam >= 0):
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    sel = design.selection.copy()
    decided = np.flatnonzero(sel != "")
    if len(decided):
        raise DataError(f"column '{design.selection_column}' already routes "
                        f"{describe_rows(decided)} ({', '.join(sorted(set(sel[decided])))}); "
                        "a design is planned on undecided rows only (clear the column to "
                        "re-plan); a calibration sample with inclusion probabilities is not "
                        "built yet")
    inp = design.inputs()
    classes = design.data.labels
    index = {v: i for i, v in enumerate(classes)}
    codes = np.fromiter((index[v] for v in design.machine_label), dtype=np.int64,
                        count=design.M)
    k = max(len(classes), 2)
    g = gains(inp.a, inp.l, lam=float(lam), b=inp.b, k=inp.k)
    known = np.zeros(design.M, dtype=bool)
    extra: dict[str, Any] = {}
    if earlier is not None:
        from core.evaluation.sampling.forecast import calibrated_probabilities

        rows, human = _check_earlier(earlier, design.M, index)
        known[rows] = True
        probs = calibrated_probabilities(codes, inp.a, k, rows=rows, human_codes=human,
                                         weights=earlier.weights)
        # the design ranks rows by the recalibrated chance the machine is wrong; routing, the
        # reference, by the confidences as reported (as it does today)
        extra = {"probabilities": probs, "reference_gain": g, "known": known}
        g = gains(probs[np.arange(design.M), codes], inp.l, lam=float(lam), b=inp.b, k=inp.k)
    ratio = DEFAULT_WIDTH_RATIO if width_ratio is None else float(width_ratio)
    two_stage = bool(earlier is not None and kind == "active" and pilot_half is not None
                     and labels is not None and np.isfinite(pilot_half) and pilot_half > 0)
    if two_stage:
        from core.evaluation.sampling.two_batch import second_ratio

        ratio = second_ratio(extra["probabilities"], machine_probabilities(codes, inp.a, k),
                             float(labels) + float(known.sum()), ratio, float(pilot_half))
    rescore = None
    half1 = float(pilot_half) if two_stage else None
    if width_model is not None or two_stage:  # what the estimate will report
        from core.evaluation.sampling.two_batch import reported

        probs = extra.get("probabilities")
        probs = machine_probabilities(codes, inp.a, k) if probs is None else probs
        rescore = reported(width_model, probs, codes, inp.a, half1,
                           random_labels=not known.any() and half1 is None)
    rec, table = design_frontier(codes, inp.a, k, labels=labels,
                                 effort_budget=effort_budget, effort=inp.l, gain=g,
                                 width_ratio=ratio, rescore=rescore, **extra)
    if kind == "random":
        free = ~known
        cost = np.ones(design.M) if labels is not None else np.asarray(inp.l, dtype=float)
        budget = float(labels if labels is not None else effort_budget)
        pi = np.ones(design.M)
        pi[free] = min(1.0, budget / float(cost[free].sum()))
        row = table[table["design"] == "random"].iloc[0].to_dict()
        chosen = ActiveDesign(pi=pi, mu=float("nan"), kind="random",
                              expected_labels=row["expected_labels"],
                              expected_effort=row["expected_effort"],
                              expected_accuracy=row["expected_accuracy"],
                              expected_half_width=row["expected_half_width"],
                              random_equivalent=None if pd.isna(row["random_equivalent"])
                              else int(row["random_equivalent"]),
                              n_routed=int(row["n_routed"]), frontier=table)
    elif kind == "pilot":
        chosen = _pilot(codes, inp, k, float(labels), table)
    elif mu is None:
        chosen = rec
        if kind == "active" and width_model is not None and not known.any():
            chosen, table = prefer_random(rec, table)
    else:
        from core.evaluation.sampling.active import active_design

        chosen = active_design(codes, inp.a, k, mu=float(mu), labels=labels,
                               effort_budget=effort_budget, effort=inp.l, gain=g,
                               width_ratio=DEFAULT_WIDTH_RATIO if width_ratio is None
                               else float(width_ratio), **extra)
        if rescore is not None:
            import dataclasses

            chosen = dataclasses.replace(rescore(chosen), frontier=table)
    pi = np.asarray(chosen.pi, dtype=float)
    route = _routing_pi(inp, known, extra.get("reference_gain", g), labels, effort_budget)
    # carried rows are labelled already: routed, out of the queue; the draw has a stream of
    # its own, independent of the earlier round's (drawn with the same seed, its rows left
    # out would otherwise all be those whose uniforms exceeded its probabilities)
    sel, rank = draw_queue(pi, g, seed=int(seed), done=known,
                           stage=0 if earlier is None else earlier_stage(earlier.rows))
    counts = {v: int((sel == v).sum()) for v in SELECTIONS + ("",)}
    return QueuePlan(selection=sel, queue_rank=rank, n_budget=None, lam=float(lam),
                     seed=int(seed), counts=counts, inclusion=pi, design=chosen,
                     carried=earlier, expected_range=_range(codes, inp.a, k, pi, known,
                                                            extra, earlier, route, half1,
                                                            width_model))


def _pilot(codes: np.ndarray, inp: Any, k: int, labels: float, table: pd.DataFrame
           ) -> ActiveDesign:
    """The first of two batches (:mod:`core.evaluation.sampling.two_batch`) as a design: its
    expectations on the confidences as reported, ``expected_labels`` the pilot's."""
    from core.evaluation.sampling.active import machine_probabilities
    from core.evaluation.sampling.plan_range import expectations_under
    from core.evaluation.sampling.two_batch import pilot_probabilities

    pi = pilot_probabilities(inp.a, labels)
    acc, half = expectations_under(machine_probabilities(codes, inp.a, k), codes, pi)
    return ActiveDesign(pi=pi, mu=float("nan"), kind="pilot", expected_labels=float(pi.sum()),
                        expected_effort=float((pi * np.asarray(inp.l, dtype=float)).sum()),
                        expected_accuracy=acc, expected_half_width=half,
                        random_equivalent=None, n_routed=int((pi >= 1).sum()), frontier=table)


def _routing_pi(inp: Any, known: np.ndarray, gain: np.ndarray, labels: float | None,
                effort_budget: float | None) -> np.ndarray:
    """The routing reference as a design: the rows of largest gain the budget covers, pi = 1
    (and on the rows already labelled), as :func:`design_frontier` compares with."""
    from core.evaluation.sampling.active import routing_design

    free = ~known
    cost = np.ones(len(known)) if labels is not None else np.asarray(inp.l, dtype=float)
    pi = np.ones(len(known))
    pi[free] = routing_design(np.asarray(inp.a)[free], cost[free],
                              float(labels if labels is not None else effort_budget),
                              gain=np.asarray(gain, dtype=float)[free])
    return pi


def _range(codes: np.ndarray, q: np.ndarray, k: int, pi: np.ndarray, known: np.ndarray,
           extra: dict[str, Any], earlier: EarlierLabels | None,
           route: np.ndarray | None = None, pilot_half: float | None = None,
           width_model: Any = None) -> dict[str, Any]:
    """The plan's expectations under miscalibrated confidences
    (:func:`core.evaluation.sampling.plan_range.expected_range`): the typical range without earlier
    labels, the one their number leaves with them (Kish's effective number when weighted)."""
    from core.evaluation.sampling.active import machine_probabilities
    from core.evaluation.sampling.plan_range import expected_range

    own = machine_probabilities(codes, q, k)
    n_eff = None
    if earlier is not None:
        w = np.ones(len(earlier.rows)) if earlier.weights is None else \
            np.asarray(earlier.weights, dtype=float)
        n_eff = float(w.sum() ** 2 / (w ** 2).sum())
    return expected_range(extra.get("probabilities", own), codes, pi, control=own,
                          n_random=float(pi[~known].sum()) + float(known.sum()),
                          n_labels=n_eff, routing_pi=route, pilot_half=pilot_half,
                          half_width=None if width_model is None else
                          lambda p, pi_: width_model(p, codes, q, pi_, pilot_half=pilot_half))


def _check_earlier(earlier: EarlierLabels, m: int, index: dict[Any, int]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Rows and class codes of earlier labels; DataError naming what is wrong."""
    rows = np.asarray(earlier.rows, dtype=np.int64)
    labels = np.asarray(earlier.labels, dtype=object)
    if rows.ndim != 1 or len(rows) != len(labels):
        raise DataError("earlier labels need one row per label")
    if len(rows) and (rows.min() < 0 or rows.max() >= m):
        raise DataError(f"earlier labels name rows outside the table's {m} rows")
    if len(np.unique(rows)) != len(rows):
        raise DataError("earlier labels name a row twice")
    bad = [i for i, v in enumerate(labels) if v not in index]
    if bad:
        raise DataError(f"earlier label {labels[bad[0]]!r} ({earlier.source}, row "
                        f"{int(rows[bad[0]]) + 1}) is not one of the table's classes "
                        f"({', '.join(map(str, index))})")
    return rows, np.array([index[v] for v in labels], dtype=np.int64)
