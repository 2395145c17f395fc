"""The active design: every row gets a known probability of being labelled.

Routing (:func:`core.evaluation.sampling.design.plan_queue`) labels the least confident rows for sure
and leaves the rest to a small uniform audit: right for the final labels' accuracy, wasteful
for the estimates, which then rest on the audit alone. The active design spends the same
budget so that every label serves both: row i is labelled with probability pi_i in (0, 1],
drawn independently (Poisson sampling), and pi_i is stored beside the row
(``inclusion_probability``), so the estimators of :mod:`core.evaluation.estimate.weighted` can weight
each label by 1 / pi_i.

**The optimisation.** With the machine's class probabilities f_ic (its confidence q_i on its own
label, the rest spread evenly over the other classes) the variance of the weighted estimate of
a class share is sum_i (1 / pi_i - 1) s_i^2 / M^2, with s_i^2 = sum_c f_ic (1 - f_ic) the
uncertainty of row i. Labelling row i also fixes its final label with probability
g_i = b_i - a_i - lambda (l_i - k_i) (the SAE gain: the machine's chance of being wrong, less
lambda times the effort; lambda = 0 by default, since effort enters through the budget). The
design solves

    minimise   sum_i s_i^2 / pi_i  -  mu sum_i g_i pi_i
    subject to sum_i c_i pi_i <= B,     pi_min <= pi_i <= 1,

where c_i is 1 (a budget B in labels) or the predicted human effort l_i (a budget in effort).
The problem is convex and separable; its solution is, for the budget's multiplier nu,

    pi_i = min(1, max(pi_min, s_i / sqrt(nu c_i - mu g_i)))     (1 where nu c_i <= mu g_i),

found by bisection on nu. With mu = 0 it is the square-root rule of cost-optimal sampling,
generalised to a per-row cost: pi_i grows with the uncertainty and shrinks with the effort
(as 1 / sqrt(c_i)). As mu grows, the rows most likely wrong get pi_i = 1 (they are *routed*,
labelled for sure, as routing does), and in the limit the design is routing plus a floor
sample. The floor pi_min (:data:`DEFAULT_FLOOR`, 0.35 of the uniform rate, by default) keeps
every weight bounded, so that no single surprise among the confident rows can blow up the
variance; it binds only on rows not labelled for sure (a routed row has pi = 1).

**Towards routing.** Beyond the largest mu the frontier lowers the floor (:data:`TAIL_FLOORS`
of the default) down to what validity needs: :data:`FLOOR_LABELS` labels expected among the
rows not labelled for sure (a normal interval). Its most accurate end is routing less those
labels, and ``width_ratio`` spans the whole frontier; designs below the default floor are
recommended only for a ratio above 1 (their expected widths trust the confidences most).

**The frontier.** :func:`design_frontier` solves the problem on a grid of mu and reports, for
each design, the expected accuracy of the final labels (sum_i pi_i + (1 - pi_i) q_i over M, from
the machine's confidences) and the expected half-width of a class-share interval; the
recommended design is the most accurate one whose interval is expected to be no wider than
PPI++'s with the same number of random labels (``width_ratio`` = 0.95, a margin; PPI++ uses the machine's
probabilities as a control on a simple random sample, without the finite-population
correction): every label then serves the estimate at least as well as in the best published
random design, and the final labels are as accurate as that allows. Where the confidences
are not probabilities (a trust score, say), the expectations are off: the estimates stay
valid, but the recommended point can sit a few points of final accuracy below routing; the
frontier shows the whole trade-off (``width_ratio`` moves along it). Routing the budget to the least confident rows is on the frontier for reference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows
from core.evaluation.sampling.forecast import ppi_expected_half_width
from core.evaluation.sampling.audit import srs_size_for_half_width, z_value

__all__ = ["compared_with", "DESIGNS", "PROBABILITY_COLUMN", "DEFAULT_FLOOR", "FLOOR_LABELS", "DEFAULT_WIDTH_RATIO",
           "ACCURACY_TOLERANCE", "machine_probabilities", "row_uncertainty", "inclusion_probabilities",
           "ActiveDesign", "routing_design", "design_frontier", "active_design"]

#: The designs a round can be planned with (``hmceval queue --design``).
DESIGNS: tuple[str, ...] = ("active", "routing", "random")
#: Name of the per-row inclusion probability column in a round's table.
PROBABILITY_COLUMN = "inclusion_probability"
#: The floor pi_min as a share of the uniform rate (budget / total cost), rows not routed.
DEFAULT_FLOOR = 0.35
#: The least the floor falls to near routing, pi_min = FLOOR_LABELS / rows: labels expected
#: for a normal interval with margin (twice :data:`core.evaluation.estimate.weighted.MIN_LABELS`).
FLOOR_LABELS = 40
#: Shares of the default floor on the frontier's stretch towards routing.
TAIL_FLOORS: tuple[float, ...] = (0.5, 0.25, 0.1)
#: The recommended design's expected half-width, at most this times PPI++'s (same labels).
DEFAULT_WIDTH_RATIO = 0.95
#: How far below routing's final accuracy (same budget) a design may fall and still keep the
#: final labels' promise (issue 20's target: within 1 point).
ACCURACY_TOLERANCE = 0.01


def machine_probabilities(machine_codes: np.ndarray, confidence: np.ndarray, n_classes: int
                          ) -> np.ndarray:
    """The machine's probability of every class for every row.

    Parameters
    ----------
    machine_codes : int array of shape (M,)
        The machine's class, 0..K-1.
    confidence : array of shape (M,)
        Its confidence in that class, in [0, 1].
    n_classes : int
        K >= 2.

    Returns
    -------
    ndarray of shape (M, K)
        q_i on the machine's class, (1 - q_i) / (K - 1) on each other class.
    """
    codes = np.asarray(machine_codes, dtype=np.int64)
    q = np.clip(np.asarray(confidence, dtype=float), 0.0, 1.0)
    k = max(int(n_classes), 2)
    f = np.repeat(((1 - q) / (k - 1))[:, None], k, axis=1)
    f[np.arange(len(codes)), codes] = q
    return f


def row_uncertainty(confidence: np.ndarray, n_classes: int) -> np.ndarray:
    """s_i^2 = sum_c f_ic (1 - f_ic): the summed class-share variance of row i, shape (M,)."""
    q = np.clip(np.asarray(confidence, dtype=float), 0.0, 1.0)
    k = max(int(n_classes), 2)
    other = (1 - q) / (k - 1)
    return q * (1 - q) + (k - 1) * other * (1 - other)


def _pi_for(nu: float, sig: np.ndarray, cost: np.ndarray, gain: np.ndarray, mu: float,
            floor: np.ndarray) -> np.ndarray:
    den = nu * cost - mu * gain
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(den > 0, sig / np.sqrt(np.where(den > 0, den, 1.0)), 1.0)
    return np.clip(p, floor, 1.0)


def inclusion_probabilities(uncertainty: np.ndarray, cost: np.ndarray, budget: float, *,
                            gain: np.ndarray | None = None, mu: float = 0.0,
                            floor: float | np.ndarray = 0.0) -> np.ndarray:
    """Solve the design problem of the module doc for one mu.

    Parameters
    ----------
    uncertainty : array of shape (M,)
        s_i^2 >= 0.
    cost : array of shape (M,)
        c_i > 0 (1 for a budget in labels, the predicted effort for a budget in effort).
    budget : float
        B > 0, in the unit of ``cost``: sum_i c_i pi_i <= B (with equality unless every row can
        be labelled within it).
    gain : array of shape (M,), optional
        g_i, the value of labelling row i for the final labels (default 0).
    mu : float >= 0
        Weight of the final labels' accuracy against the estimates' variance.
    floor : float or array of shape (M,), default=0
        pi_min; the budget must cover it (sum_i c_i pi_min <= B).

    Returns
    -------
    ndarray of shape (M,)
        pi_i in [max(pi_min, tiny), 1].
    """
    s2 = np.maximum(np.asarray(uncertainty, dtype=float), 0.0)
    cost = np.asarray(cost, dtype=float)
    m = len(s2)
    if m == 0:
        return np.zeros(0)
    if not (np.all(np.isfinite(cost)) and np.all(cost > 0)):
        bad = np.flatnonzero(~(np.isfinite(cost) & (cost > 0)))
        raise DataError(f"the effort of every row must be a number > 0 for an effort budget; "
                        f"{describe_rows(bad)} have {cost[bad[0]]!r}")
    g = np.zeros(m) if gain is None else np.asarray(gain, dtype=float)
    if not math.isfinite(mu) or mu < 0:
        raise DataError(f"mu must be a finite number >= 0, got {mu}")
    fl = np.broadcast_to(np.asarray(floor, dtype=float), (m,))
    # rows the machine is sure of still get a tiny uncertainty: pi stays positive, so that
    # every row keeps a chance of being labelled (the estimators need pi > 0 everywhere)
    sig = np.sqrt(np.maximum(s2, 1e-6))
    fl = np.maximum(fl, 1e-6)
    total = float(cost.sum())
    if budget >= total:
        return np.ones(m)
    if float((fl * cost).sum()) > budget * (1 + 1e-12):
        raise DataError(f"the budget {budget:g} does not cover the floor of the design "
                        f"({float((fl * cost).sum()):g}); lower the floor or raise the budget")
    lo, hi = 1e-12, 1.0
    while float((_pi_for(hi, sig, cost, g, mu, fl) * cost).sum()) > budget:
        hi *= 4.0
        if hi > 1e300:
            break
    for _ in range(200):  # bisection on the budget's multiplier, in log space
        mid = math.sqrt(lo * hi)
        if float((_pi_for(mid, sig, cost, g, mu, fl) * cost).sum()) > budget:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-10:
            break
    return _pi_for(hi, sig, cost, g, mu, fl)


@dataclass(frozen=True)
class ActiveDesign:
    """One solved design.

    Attributes
    ----------
    pi : ndarray of shape (M,)
        Inclusion probabilities.
    mu : float
        Its weight of final accuracy (see the module doc); ``nan`` for routing and random.
    kind : str
        ``"active"``, ``"routing"`` (pi = 1 on the least confident rows, a uniform audit of the
        rest) or ``"random"`` (equal pi everywhere).
    expected_labels, expected_effort : float
        sum_i pi_i and sum_i pi_i l_i.
    expected_accuracy : float
        sum_i (pi_i + (1 - pi_i) q_i) / M (from the confidences).
    expected_half_width : float
        z sqrt(max_c sum_i (1 / pi_i - 1) f_ic (1 - f_ic)) / M: the widest class share's
        expected half-width with the machine's probabilities as the control; NaN when some
        uncertain row can never be labelled (routing without an audit: no interval).
    random_equivalent : int or None
        The labels drawn at random that would give the same half-width (for a share of 0.5:
        the worst case).
    n_routed : int
        Rows with pi_i = 1.
    accuracy_vs_routing : float
        expected_accuracy less that of routing the same budget to the rows most likely wrong
        (the final labels' target: at least -:data:`ACCURACY_TOLERANCE`); NaN until compared.
    worth_vs_ppi : float
        (PPI++'s expected half-width with the same number of random labels / this design's)^2:
        how many times PPI++'s labels the interval is worth (the estimate's target: at least
        1); NaN until compared, or when the design gives no interval.
    """

    pi: np.ndarray
    mu: float
    kind: str
    expected_labels: float
    expected_effort: float
    expected_accuracy: float
    expected_half_width: float
    random_equivalent: int | None
    n_routed: int
    recommended: bool = False
    frontier: pd.DataFrame | None = field(default=None, compare=False, repr=False)
    accuracy_vs_routing: float = float("nan")
    worth_vs_ppi: float = float("nan")

    @property
    def meets_targets(self) -> bool:
        """Expected to keep both promises: the final labels within
        :data:`ACCURACY_TOLERANCE` of routing, an interval worth at least PPI++'s labels."""
        return bool(self.accuracy_vs_routing >= -ACCURACY_TOLERANCE - 1e-12
                    and self.worth_vs_ppi >= 1 - 1e-12)

    def summary(self) -> dict[str, Any]:
        """The design's numbers as a plain dict (no per-row arrays)."""
        def num(v: float) -> float | None:
            return None if not math.isfinite(v) else float(v)

        return {"design": self.kind, "mu": None if math.isnan(self.mu) else float(self.mu),
                "expected_labels": float(self.expected_labels),
                "expected_effort": float(self.expected_effort),
                "expected_accuracy": float(self.expected_accuracy),
                "expected_half_width": float(self.expected_half_width),
                "random_equivalent": self.random_equivalent, "n_routed": int(self.n_routed),
                "accuracy_vs_routing": num(self.accuracy_vs_routing),
                "worth_vs_ppi": num(self.worth_vs_ppi),
                "meets_targets": self.meets_targets}


def _describe(pi: np.ndarray, mu: float, kind: str, f: np.ndarray, q: np.ndarray,
              effort: np.ndarray, confidence: float) -> ActiveDesign:
    m = len(pi)
    v = f * (1 - f)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(v > 0, (1 / pi - 1)[:, None] * v, 0.0)
    var = terms.sum(axis=0).max() / m ** 2 if m else 0.0
    # pi = 0 on some uncertain rows (routing without an audit): no interval, NaN (not inf)
    half = z_value(confidence) * math.sqrt(var) if math.isfinite(var) else float("nan")
    acc = float((pi + (1 - pi) * q).mean()) if m else float("nan")
    eq = (srs_size_for_half_width(m, 0.25, half, confidence=confidence)
          if m and math.isfinite(half) else None)
    return ActiveDesign(pi=pi, mu=mu, kind=kind, expected_labels=float(pi.sum()),
                        expected_effort=float((pi * effort).sum()), expected_accuracy=acc,
                        expected_half_width=half, random_equivalent=eq,
                        n_routed=int((pi >= 1).sum()))


def compared_with(d: ActiveDesign, route: ActiveDesign, ppi_half: float) -> ActiveDesign:
    """``d`` with its expected accuracy against routing's and its worth against PPI++'s."""
    half = d.expected_half_width
    worth = (ppi_half / half) ** 2 if math.isfinite(half) and half > 0 else (
        math.inf if half == 0 else float("nan"))
    return ActiveDesign(**{**d.__dict__,
                           "accuracy_vs_routing": d.expected_accuracy - route.expected_accuracy,
                           "worth_vs_ppi": worth})


def _budget_cost(m: int, effort: np.ndarray, labels: float | None,
                 effort_budget: float | None) -> tuple[np.ndarray, float, str]:
    if (labels is None) == (effort_budget is None):
        raise DataError("give the budget in labels or in effort (one of the two)")
    if labels is not None:
        if not isinstance(labels, (int, float, np.integer, np.floating)) \
                or not math.isfinite(labels) or not 0 < labels <= m:
            raise DataError(f"the budget in labels must be a number in (0, {m}], got {labels}")
        return np.ones(m), float(labels), "labels"
    if not isinstance(effort_budget, (int, float, np.integer, np.floating)) \
            or not math.isfinite(effort_budget) or effort_budget <= 0:
        raise DataError(f"the effort budget must be a number > 0, got {effort_budget}")
    return np.asarray(effort, dtype=float), float(effort_budget), "effort"


def routing_design(confidence: np.ndarray, cost: np.ndarray, budget: float, *,
                   gain: np.ndarray, audit_share: float = 0.0) -> np.ndarray:
    """Routing as a design: pi = 1 on the rows of largest gain the budget covers.

    ``audit_share`` of the budget is kept for a uniform audit of the other rows (pi equal on
    them); the rest routes rows by descending gain (ties to the earlier row) while the budget
    lasts.
    """
    m = len(confidence)
    pi = np.zeros(m)
    order = np.argsort(-np.asarray(gain, dtype=float), kind="stable")
    route_budget = budget * (1 - audit_share)
    csum = np.cumsum(cost[order])
    n_route = int(np.searchsorted(csum, route_budget * (1 + 1e-12), side="right"))
    pi[order[:n_route]] = 1.0
    rest = order[n_route:]
    left = budget - float(cost[order[:n_route]].sum())
    if len(rest) and left > 0:
        pi[rest] = min(1.0, left / float(cost[rest].sum()))
    return pi


def design_frontier(machine_codes: np.ndarray, confidence: np.ndarray, n_classes: int, *,
                    labels: float | None = None, effort_budget: float | None = None,
                    effort: np.ndarray | None = None, gain: np.ndarray | None = None,
                    floor: float = DEFAULT_FLOOR, width_ratio: float = DEFAULT_WIDTH_RATIO,
                    confidence_level: float = 0.95, n_grid: int = 40,
                    probabilities: np.ndarray | None = None,
                    reference_gain: np.ndarray | None = None,
                    known: np.ndarray | None = None, rescore: Any = None
                    ) -> tuple[ActiveDesign, pd.DataFrame]:
    """Solve the design on a grid of mu; return the recommended design and the frontier.

    Parameters
    ----------
    machine_codes : int array of shape (M,)
    confidence : array of shape (M,)
        The machine's confidence q_i in its label.
    n_classes : int
    labels, effort_budget : float
        The budget: expected labels, or expected effort (in the effort's unit). One of them.
    effort : array of shape (M,), optional
        Predicted human effort per row (needed with ``effort_budget``; default 1).
    gain : array of shape (M,), optional
        The value of a label for the final labels (default 1 - q_i: the chance the machine is
        wrong); routing sends the largest first.
    floor : float, default=:data:`DEFAULT_FLOOR` (0.35)
        pi_min as a share of the uniform rate budget / sum_i c_i, on the rows not labelled
        for sure; the frontier's stretch towards routing lowers it down to
        :data:`FLOOR_LABELS` expected labels.
    width_ratio : float, default=0.95
        The recommended design is the most accurate one whose expected half-width is at most
        this times that of PPI++ with the same number of random labels (plain random
        labelling's expected half-width without the finite-population correction). Below 1
        by a margin: the expectation trusts the confidences, and judges' confidences are
        often overconfident, which makes the realised interval wider than expected.
    confidence_level : float, default=0.95
    n_grid : int, default=40
        Values of mu (log-spaced over the range where the design changes, plus 0).
    probabilities : array of shape (M, K), optional
        The class probabilities the expectations and the design rest on, e.g. the confidences
        recalibrated on earlier labels (:func:`calibrated_probabilities`); default: the
        machine's own (:func:`machine_probabilities`). PPI++, the reference, keeps the
        machine's own probabilities as its control.
    reference_gain : array of shape (M,), optional
        The ranking of the routing reference (default ``gain``): routing as it is done today,
        by the confidences as reported, when ``gain`` comes from recalibrated ones.
    known : bool array of shape (M,), optional
        Rows humans already labelled (carried from an earlier round): pi = 1 at no cost in
        every design, references included; the budget is spent on the others, and PPI++ gets
        their number of random labels on top of the budget's. ``expected_labels`` and
        ``expected_effort`` count the new labels only; accuracy and half-widths are the
        whole table's.
    rescore : callable, optional
        ActiveDesign -> ActiveDesign applied to every design once the recommended one is chosen.

    Returns
    -------
    (ActiveDesign, pandas.DataFrame)
        The recommended design (``frontier`` attached) and one row per design: ``design``,
        ``mu``, ``expected_labels``, ``expected_effort``, ``expected_accuracy``,
        ``expected_half_width``, ``random_equivalent``, ``n_routed``, ``accuracy_vs_routing``,
        ``worth_vs_ppi``, ``meets_targets``, ``recommended``. The frontier's last rows are
        routing (no audit) and plain random labelling, for reference.
    """
    _check_width_ratio(width_ratio)
    ctx = _context(machine_codes, confidence, n_classes, labels=labels,
                   effort_budget=effort_budget, effort=effort, gain=gain, floor=floor,
                   confidence_level=confidence_level, probabilities=probabilities,
                   reference_gain=reference_gain, known=known)
    return _frontier(ctx, width_ratio, n_grid, rescore)


def _check_width_ratio(width_ratio: Any) -> None:
    if not (isinstance(width_ratio, (int, float)) and math.isfinite(width_ratio)
            and width_ratio > 0):
        raise DataError(f"the width ratio must be a number > 0, got {width_ratio}")


def _frontier(ctx: dict[str, Any], width_ratio: float, n_grid: int, rescore: Any = None
              ) -> tuple[ActiveDesign, pd.DataFrame]:
    """The frontier of :func:`design_frontier` from its :func:`_context`."""
    free, rate = ctx["free"], ctx["rate"]
    # scale of mu: the marginal variance of a row at the uniform rate against its gain
    scale = float(np.mean(ctx["s2"][free])) / rate ** 2 / max(
        float(np.mean(np.abs(ctx["g"][free]))), 1e-9)
    mus = [0.0] + list(scale * np.logspace(-2, 2.5, max(int(n_grid), 2) - 1))
    rows = [ctx["solve"](mu) for mu in mus]
    # the grid is not capped: while the largest mu still moves the design, go on
    for _ in range(6):
        if len(rows) < 2 or abs(rows[-1].expected_accuracy - rows[-2].expected_accuracy) < 1e-6:
            break
        mus.append(mus[-1] * 10.0)
        rows.append(ctx["solve"](mus[-1]))
    floor = ctx["floor"]  # towards routing: lowered to what validity needs, at the largest mu
    least = min(floor, FLOOR_LABELS / max(int(ctx["free"].sum()), 1))
    tail = sorted({max(least, floor * t) for t in TAIL_FLOORS} | {least}, reverse=True)
    n_main = len(rows)
    rows += [ctx["solve"](mus[-1], floor=x) for x in tail if x < floor * (1 - 1e-9)]
    route, random = ctx["route"], ctx["random"]
    widest = width_ratio * ctx["ppi_half"]
    # below the default floor only when the interval may be wider than PPI++'s (ratio > 1):
    # the floor is the margin against confidences the expectations trust too much
    ok = [d for i, d in enumerate(rows) if d.expected_half_width <= widest * (1 + 1e-9)
          and (i < n_main or width_ratio > 1)]
    if ok:
        best = max(ok, key=lambda d: (d.expected_accuracy, -d.expected_half_width))
    else:  # no design is as tight as asked: the tightest one
        best = min(rows, key=lambda d: (d.expected_half_width, -d.expected_accuracy))
    if rescore is not None:  # what the round is expected to realise; the choice stays
        at = next(i for i, d in enumerate(rows) if d is best)
        rows, route, random = [rescore(d) for d in rows], rescore(route), rescore(random)
        best = rows[at]
    table = pd.DataFrame([{**d.summary(), "recommended": d is best}
                          for d in rows + [route, random]])
    table.attrs["budget_unit"] = ctx["unit"]
    table.attrs["targets_reachable"] = any(d.meets_targets for d in rows)
    rec = ActiveDesign(**{**best.__dict__, "recommended": True, "frontier": table})
    return rec, table


def _context(machine_codes: np.ndarray, confidence: np.ndarray, n_classes: int, *,
             labels: float | None = None, effort_budget: float | None = None,
             effort: np.ndarray | None = None, gain: np.ndarray | None = None,
             floor: float = DEFAULT_FLOOR, confidence_level: float = 0.95,
             probabilities: np.ndarray | None = None, reference_gain: np.ndarray | None = None,
             known: np.ndarray | None = None) -> dict[str, Any]:
    """What every design of a frontier shares: the inputs checked, the references (routing,
    random labelling, PPI++'s half-width) and ``solve(mu)``, the compared design for one mu."""
    q = np.clip(np.asarray(confidence, dtype=float), 0.0, 1.0)
    m = len(q)
    if m == 0:
        raise DataError("the table has no rows to plan")
    if not 0 <= floor < 1:
        raise DataError(f"the floor must be in [0, 1), got {floor}")
    held = np.zeros(m, dtype=bool) if known is None else np.asarray(known, dtype=bool)
    if held.shape != (m,):
        raise DataError(f"the rows already labelled must be a mask of the {m} rows")
    free = ~held
    n_free = int(free.sum())
    if n_free == 0:
        raise DataError("every row is already labelled: nothing to plan")
    eff = np.ones(m) if effort is None else np.asarray(effort, dtype=float)
    if held.any() and labels is not None and labels > n_free:
        raise DataError(f"the budget of {labels:g} labels is more than the {n_free:,} rows not "
                        f"labelled yet (the other {int(held.sum()):,} are labelled already)")
    cost, budget, unit = _budget_cost(n_free, eff[free], labels, effort_budget)
    f, qe, s2, g = _expectation_inputs(machine_codes, q, n_classes, probabilities, gain)
    ref_g = g if reference_gain is None else np.asarray(reference_gain, dtype=float)
    rate = min(1.0, budget / float(cost.sum()))
    fl = floor * rate

    def full(pi_free: np.ndarray) -> np.ndarray:
        pi = np.ones(m)
        pi[free] = pi_free
        return pi

    def describe(pi_free: np.ndarray, mu: float, kind: str) -> ActiveDesign:
        d = _describe(full(pi_free), mu, kind, f, qe, eff, confidence_level)
        return ActiveDesign(**{**d.__dict__, "expected_labels": float(pi_free.sum()),
                               "expected_effort": float((pi_free * eff[free]).sum()),
                               "n_routed": int((pi_free >= 1).sum())})

    route = describe(routing_design(q[free], cost, budget, gain=ref_g[free]), float("nan"),
                     "routing")
    random = describe(np.full(n_free, rate), float("nan"), "random")
    # PPI++ with as many random labels as the table will have (the budget's and the rows
    # already labelled), the machine's own probabilities its control: without calibration,
    # the random design's interval without the finite-population correction sqrt(1 - rate)
    # (PPI++ estimates a superpopulation mean)
    ppi_half = ppi_expected_half_width(f, machine_probabilities(machine_codes, q, n_classes),
                                       rate * n_free + int(held.sum()),
                                       confidence=confidence_level)
    route, random = compared_with(route, route, ppi_half), compared_with(random, route, ppi_half)

    def solve(mu: float, floor: float | None = None) -> ActiveDesign:
        pi = inclusion_probabilities(s2[free], cost, budget, gain=g[free], mu=float(mu),
                                     floor=fl if floor is None else float(floor))
        return compared_with(describe(pi, float(mu), "active"), route, ppi_half)

    return {"free": free, "rate": rate, "s2": s2, "g": g, "unit": unit, "route": route,
            "random": random, "ppi_half": ppi_half, "solve": solve, "floor": fl}


def active_design(machine_codes: np.ndarray, confidence: np.ndarray, n_classes: int, *,
                  mu: float | None = None, **kwargs: Any) -> ActiveDesign:
    """The recommended design (``mu=None``) or the design for a given mu.

    Keyword arguments are those of :func:`design_frontier`.
    """
    width_ratio = kwargs.pop("width_ratio", DEFAULT_WIDTH_RATIO)
    n_grid = kwargs.pop("n_grid", 40)
    _check_width_ratio(width_ratio)
    ctx = _context(machine_codes, confidence, n_classes, **kwargs)
    rec, table = _frontier(ctx, width_ratio, n_grid)
    if mu is None:
        return rec
    return ActiveDesign(**{**ctx["solve"](float(mu)).__dict__, "frontier": table})


def _expectation_inputs(machine_codes: np.ndarray, q: np.ndarray, n_classes: int,
                        probabilities: np.ndarray | None, gain: np.ndarray | None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(P, chance the machine is right, s_i^2, gain) from the confidences or from given
    class probabilities (checked: shape (M, K), rows in [0, 1] summing to 1)."""
    m = len(q)
    if probabilities is None:
        f = machine_probabilities(machine_codes, q, n_classes)
        qe = q
    else:
        f = np.asarray(probabilities, dtype=float)
        k = max(int(n_classes), 2)
        if f.shape != (m, k) or not np.all(np.isfinite(f)) or f.min() < -1e-12 \
                or f.max() > 1 + 1e-12 or not np.allclose(f.sum(axis=1), 1.0, atol=1e-8):
            raise DataError(f"the class probabilities must be an ({m}, {k}) array of "
                            "probabilities summing to 1 per row")
        qe = f[np.arange(m), np.asarray(machine_codes, dtype=np.int64)]
    s2 = (f * (1 - f)).sum(axis=1)
    g = (1 - qe) if gain is None else np.asarray(gain, dtype=float)
    return f, qe, s2, g
