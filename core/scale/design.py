"""The active (or random) design of a large table, in chunked passes, equal to the in-memory one.

:func:`core.evaluation.sampling.active.design_frontier` solves the design on every row at once and
keeps every design's pi (a 10^6-row table took 0.72 GB and two minutes for the frontier
alone). Here the same frontier is solved from the compact columns with an engine
(:mod:`core.scale.engine`): a design is kept as its parameters (nu, mu, floor), never as a
per-row array, and each per-row quantity is recomputed chunk by chunk when a sum needs it.

**The bisection, reproduced.** ``active.inclusion_probabilities`` finds the budget's
multiplier by a fixed bisection (hi = 1, 4, 16... until the budget is met, then the geometric
mid-point until hi / lo < 1 + 1e-10) and keeps its last ``hi``. The sum S(nu) = sum_i c_i
pi_i(nu) is continuous and non-increasing, so every step's test S(mid) > B is the same as
mid < nu*, nu* = inf {nu : S(nu) <= B}. nu* is found with few passes (a safeguarded Newton
iteration in log nu, the slope summed in the same pass), then the bisection is replayed on it
without touching the rows; where a mid-point lies within 1e-12 (in log nu) of nu* the test is
made on the rows themselves. The result is the in-memory ``hi``: the same probabilities (up
to the order of the sums, 1e-16), the same rows drawn.

**What the estimate will report.** With a ``width_model`` (``queue`` passes the estimate's
expected half-width, :func:`core.evaluation.estimate.estimator_half_width`) the recommended
design and plain random labelling are scored with it, on per-row arrays of those two designs
only, and plain random labelling stands in for the active design where the in-memory plan
puts it (:func:`core.evaluation.sampling.prefer_random`): the same design is chosen and drawn.
The frontier's other rows keep the ideal estimator's half-width (the in-memory plan scores
every row; at 10^6 rows that is two seconds a row).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError
from core.evaluation.sampling import (DEFAULT_FLOOR, DEFAULT_WIDTH_RATIO, FLOOR_LABELS,
                                    TAIL_FLOORS, ActiveDesign)
from core.evaluation.sampling import (compared_with, prefer_random, random_labels_half,
                                      srs_size_for_half_width, with_half_width, z_value)
from core.scale import kernels

__all__ = ["ScalePlan", "plan_scaled", "bisection_hi"]

#: log nu below the bisection's lowest point (1e-12) and above its highest (1e300).
_X_MIN, _X_MAX = math.log(1e-12) - 1.0, math.log(1e300) + 1.0
#: Distance in log nu to log nu* under which a bisection step is tested on the rows.
BAND = 1e-12


@dataclass
class ScalePlan:
    """A planned round of a large table: the chosen design's ``spec`` (per-row pi are
    recomputed from it, :func:`core.scale.kernels.design_pi`), its ``design`` (an
    :class:`~core.evaluation.sampling.active.ActiveDesign` without per-row pi), the ``frontier``,
    the drawn ``audit`` rows (in queue order) and ``routed`` rows (in queue order), and
    ``passes`` (passes over the rows)."""

    spec: dict[str, Any]
    design: ActiveDesign
    frontier: pd.DataFrame
    audit: np.ndarray
    routed: np.ndarray
    counts: dict[str, int]
    passes: int


def bisection_hi(below_root, *, exact=None) -> float:
    """Replay ``active.inclusion_probabilities``'s bisection: ``below_root(nu)`` answers
    S(nu) > B (True, False, or None when too close to tell: then ``exact(nu)`` does)."""
    def gt(nu: float) -> bool:
        ans = below_root(nu)
        return bool(exact(nu)) if ans is None else ans

    lo, hi = 1e-12, 1.0
    while gt(hi):
        hi *= 4.0
        if hi > 1e300:
            break
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if gt(mid):
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-10:
            break
    return hi


class _Solver:
    """Solves the design for many (mu, floor) at once with the engine: one pass evaluates
    every unfinished solve (the passes, not the work, are shared)."""

    def __init__(self, engine, base: dict[str, Any], budget: float) -> None:
        self.engine, self.base, self.budget = engine, base, budget

    def s(self, nus: list, mus: list, floors: list) -> np.ndarray:
        """(S, slope) of every solve, shape (n, 2)."""
        out = self.engine.reduce(kernels.k_budget_many, nus=list(nus), mus=list(mus),
                                 floors=list(floors), use_cost=self.base["use_cost"])
        return out.reshape(-1, 2)

    def roots(self, mus: list, floors: list, x0s: list) -> list:
        """log nu* of each solve by safeguarded Newton in log nu (bisection where Newton
        leaves the bracket), in lockstep."""
        n = len(mus)
        lo, hi = [-math.inf] * n, [math.inf] * n
        x, done = list(x0s), [None] * n
        for _ in range(200):
            todo = [j for j in range(n) if done[j] is None]
            if not todo:
                break
            vals = self.s([math.exp(x[j]) for j in todo], [mus[j] for j in todo],
                          [floors[j] for j in todo])
            for (val, slope), j in zip(vals, todo):
                done[j] = self._step(j, float(val), float(slope), lo, hi, x)
        return [x[j] if d is None else d for j, d in enumerate(done)]

    def _step(self, j: int, val: float, slope: float, lo: list, hi: list, x: list):
        """One Newton step of solve j; its root when converged, else None."""
        if val > self.budget:
            lo[j] = x[j]
        else:
            hi[j] = x[j]
        if (val <= self.budget and x[j] < _X_MIN) or (val > self.budget and x[j] > _X_MAX):
            return x[j]  # nu* outside the bisection's range: every test there is decided
        if val == self.budget or (math.isfinite(lo[j]) and math.isfinite(hi[j])
                                  and hi[j] - lo[j] < 1e-14):
            return hi[j] if math.isfinite(hi[j]) else x[j]
        step = -(val - self.budget) / slope if slope < 0 else math.nan
        if abs(step) < 1e-13:  # converged: nu* to a few ulps of log nu
            return x[j] + step
        if not (math.isfinite(lo[j]) and math.isfinite(hi[j])) and abs(step) > 2.0:
            step = math.copysign(2.0, step)  # no bracket yet: at most a factor e^2 per pass
        xn = x[j] + step if math.isfinite(step) else math.nan
        if not (lo[j] < xn < hi[j]):
            if math.isfinite(lo[j]) and math.isfinite(hi[j]):
                xn = 0.5 * (lo[j] + hi[j])
            else:
                xn = x[j] + (2.0 if val > self.budget else -2.0)
        if abs(xn - x[j]) < 1e-15 * max(1.0, abs(x[j])):
            return xn
        x[j] = xn
        return None

    def solve_many(self, mus: list, floors: list, x0s: list) -> tuple[list, list]:
        """The in-memory bisection's ``hi`` for every (mu, floor), and the roots."""
        roots = self.roots(mus, floors, x0s)
        his = []
        for mu, floor, xs in zip(mus, floors, roots):
            def below(nu: float, xs=xs):
                d = math.log(nu) - xs
                if abs(d) < BAND + 4e-15 * abs(xs):
                    return None
                return d < 0

            his.append(bisection_hi(below, exact=lambda nu, mu=mu, floor=floor:
                                    self.s([nu], [mu], [floor])[0, 0] > self.budget))
        return his, roots


def _designed(engine, base: dict[str, Any], spec: dict[str, Any], mu: float, kind: str,
              m: int, confidence: float) -> ActiveDesign:
    """``active._describe`` from chunked sums."""
    return _designed_many(engine, base, [spec], [mu], kind, m, confidence)[0]


def _designed_many(engine, base: dict[str, Any], specs: list, mus: list, kind: str, m: int,
                   confidence: float) -> list[ActiveDesign]:
    """:func:`_designed` of several designs in one pass."""
    allsums = engine.reduce(kernels.k_describe_many,
                            specs=[{**base, **spec} for spec in specs])
    allsums = allsums.reshape(len(specs), -1)
    return [_described(sums, mu, kind, m, confidence) for sums, mu in zip(allsums, mus)]


def _described(sums: np.ndarray, mu: float, kind: str, m: int, confidence: float
               ) -> ActiveDesign:
    labels, effort, acc_sum, routed = sums[:4]
    var = float(np.max(sums[4:])) / m ** 2 if m else 0.0
    half = z_value(confidence) * math.sqrt(var) if math.isfinite(var) else float("nan")
    eq = (srs_size_for_half_width(m, 0.25, half, confidence=confidence)
          if m and math.isfinite(half) else None)
    return ActiveDesign(pi=np.zeros(0), mu=mu, kind=kind, expected_labels=float(labels),
                        expected_effort=float(effort), expected_accuracy=float(acc_sum / m),
                        expected_half_width=half, random_equivalent=eq,
                        n_routed=int(routed))


def _route_rows(engine, base: dict[str, Any], budget: float) -> tuple[np.ndarray, float]:
    """``active.routing_design`` (no audit): the rows routed, by descending gain (ties to the
    earlier row) while the budget lasts, and the rate of the others."""
    gains = np.concatenate(engine.map(kernels.k_gain, n_classes=base["n_classes"],
                                      lam=base["lam"])) if engine.m else np.zeros(0)
    m = engine.m
    if base["use_cost"]:
        order = np.argsort(-gains, kind="stable")
        del gains
        cost = engine.columns["effort"]
        csum = np.cumsum(cost[order])
        n_route = int(np.searchsorted(csum, budget * (1 + 1e-12), side="right"))
        del csum
        route = np.zeros(m, dtype=bool)
        route[order[:n_route]] = True
        del order
    else:
        # a cost of 1 a row: the running sum is 1, 2, ..., so the first floor(B (1 + 1e-12))
        # rows of the stable descending order: every gain above the n-th largest, then the
        # earliest rows equal to it (the same rows, without sorting them all)
        cost = None
        n_route = min(m, int(math.floor(budget * (1 + 1e-12))))
        route = np.zeros(m, dtype=bool)
        if n_route >= m:
            route[:] = True
        elif n_route > 0:
            t = np.partition(gains, m - n_route)[m - n_route]
            route = gains > t
            need = n_route - int(route.sum())
            route[np.flatnonzero(gains == t)[:need]] = True
        del gains
    used = float(cost[route].sum()) if cost is not None else float(n_route)
    rest_cost = (float(cost[~route].sum()) if cost is not None else float(engine.m - n_route))
    left = budget - used
    rate = min(1.0, left / rest_cost) if (engine.m - n_route) and left > 0 else 0.0
    return route, rate


def _modelled(engine, base: dict[str, Any], spec: dict[str, Any], chosen: ActiveDesign,
              table: pd.DataFrame, random: ActiveDesign, rate: float, width_model: Any
              ) -> tuple[ActiveDesign, pd.DataFrame, dict[str, Any]]:
    """The recommended design and plain random labelling scored with ``width_model``, and
    plain random labelling chosen where :func:`prefer_random` puts it: (design, frontier,
    spec)."""
    from core.evaluation.sampling import machine_probabilities

    k = base["n_classes"]
    scored = []
    for d, s in ((chosen, spec), (random, {"kind": "const", "rate": rate})):
        parts = engine.map(kernels.k_model_inputs, spec={**base, **s})
        code, q, pi = (np.concatenate([p[c] for p in parts]) for c in ("code", "q", "pi"))
        half = float(width_model(machine_probabilities(code, q, k), code, q, pi))
        if d.kind == "random":
            half = random_labels_half(d, half)
        scored.append(with_half_width(d, half, m=len(code)))
    table = table.copy()
    for d, at in zip(scored, (table.index[table["recommended"].astype(bool)][0],
                              table.index[table["design"] == "random"][0])):
        table.loc[at, ["expected_half_width", "random_equivalent", "worth_vs_ppi",
                       "meets_targets"]] = [d.expected_half_width, d.random_equivalent,
                                            d.worth_vs_ppi, d.meets_targets]
    chosen = ActiveDesign(**{**scored[0].__dict__, "frontier": table})
    out, table = prefer_random(chosen, table, m=len(code))
    if out.kind == "random":
        return out, table, {**base, "kind": "const", "rate": rate}
    return out, table, spec


def plan_scaled(engine, *, n_classes: int, labels: float | None = None,
                effort_budget: float | None = None, lam: float = 0.0, kind: str = "active",
                width_ratio: float | None = None, seed: int = 0, n_grid: int = 40,
                confidence: float = 0.95, width_model: Any = None) -> ScalePlan:
    """Plan and draw the recommended active design (or plain random labelling) of the rows
    of ``engine`` (:mod:`core.scale.engine`; columns ``q``, ``code``, optionally ``effort``),
    as :func:`core.evaluation.sampling.plan.plan_design` does without earlier labels
    (``width_model`` as there; see the module doc).

    Returns
    -------
    ScalePlan
    """
    m = engine.m
    if m == 0:
        raise DataError("the table has no rows to plan")
    width_ratio = DEFAULT_WIDTH_RATIO if width_ratio is None else float(width_ratio)
    if not (math.isfinite(width_ratio) and width_ratio > 0):
        raise DataError(f"the width ratio must be a number > 0, got {width_ratio}")
    use_cost = labels is None
    if use_cost and "effort" not in engine.columns:
        raise DataError("--effort-budget needs an effort column (predicted_effort or "
                        "human_effort; --col predicted_effort=NAME)")
    base = {"n_classes": max(int(n_classes), 2), "lam": float(lam), "use_cost": use_cost}
    stats = engine.reduce(kernels.k_stats, **base)
    total_cost, s2_sum, g_abs = float(stats[0]), float(stats[1]), float(stats[2])
    if labels is not None:
        if not (math.isfinite(labels) and 0 < labels <= m):
            raise DataError(f"the budget in labels must be a number in (0, {m}], got {labels}")
        budget = float(labels)
    else:
        if not (math.isfinite(effort_budget) and effort_budget > 0):
            raise DataError(f"the effort budget must be a number > 0, got {effort_budget}")
        budget = float(effort_budget)
        effort = engine.columns["effort"]
        if not (np.all(np.isfinite(effort)) and np.all(effort > 0)):
            raise DataError("the effort of every row must be a number > 0 for an effort "
                            "budget")
    rate = min(1.0, budget / total_cost)
    fl = DEFAULT_FLOOR * rate
    base["x0"] = 2 * math.log(max(math.sqrt(max(s2_sum, 1e-300) / m) * m / budget, 1e-6))
    route_mask, route_rate = _route_rows(engine, base, budget)
    engine.columns["route"] = route_mask
    route = _designed(engine, base, {"kind": "route", "rate": route_rate}, math.nan,
                      "routing", m, confidence)
    random = _designed(engine, base, {"kind": "const", "rate": rate}, math.nan, "random", m,
                       confidence)
    ppi_var = float(np.max(stats[3:])) / m
    ppi_half = z_value(confidence) * math.sqrt(ppi_var / (rate * m))
    route, random = compared_with(route, route, ppi_half), compared_with(random, route, ppi_half)
    parts = engine.map(kernels.k_sig_gain, n_classes=base["n_classes"], lam=base["lam"])
    engine.columns["sig"] = np.concatenate([p["sig"] for p in parts])
    engine.columns["g"] = np.concatenate([p["g"] for p in parts])
    del parts
    solver = _Solver(engine, base, budget)
    all_ones = budget >= total_cost

    def solve(mus: list, floors: list, x0s: list) -> list:
        """(design, spec) of every (mu, floor), solved together."""
        if all_ones:
            specs = [{"kind": "ones"} for _ in mus]
            roots = list(x0s)
        else:
            for f in floors:
                if float(max(f, 1e-6) * total_cost) > budget * (1 + 1e-12):
                    raise DataError(f"the budget {budget:g} does not cover the floor of the "
                                    f"design ({max(f, 1e-6) * total_cost:g}); lower the floor "
                                    "or raise the budget")
            his, roots = solver.solve_many([float(u) for u in mus], list(floors), x0s)
            specs = [{"kind": "active", "nu": h, "mu": float(u), "floor": float(f)}
                     for h, u, f in zip(his, mus, floors)]
        ds = _designed_many(engine, base, specs, [float(u) for u in mus], "active", m,
                            confidence)
        last_root[0] = roots[-1]
        return [(compared_with(d, route, ppi_half), spec) for d, spec in zip(ds, specs)]

    last_root = [base["x0"]]
    scale = (s2_sum / m) / rate ** 2 / max(g_abs / m, 1e-9)
    mus = [0.0] + list(scale * np.logspace(-2, 2.5, max(int(n_grid), 2) - 1))
    rows = solve(mus, [fl] * len(mus), [base["x0"]] * len(mus))
    for _ in range(6):
        if len(rows) < 2 or abs(rows[-1][0].expected_accuracy
                                - rows[-2][0].expected_accuracy) < 1e-6:
            break
        mus.append(mus[-1] * 10.0)
        rows += solve([mus[-1]], [fl], [last_root[0]])
    least = min(fl, FLOOR_LABELS / max(m, 1))
    tail = sorted({max(least, fl * t) for t in TAIL_FLOORS} | {least}, reverse=True)
    n_main = len(rows)
    low = [x for x in tail if x < fl * (1 - 1e-9)]
    if low:
        rows += solve([mus[-1]] * len(low), low, [last_root[0]] * len(low))
    widest = width_ratio * ppi_half
    ok = [i for i, (d, _) in enumerate(rows) if d.expected_half_width <= widest * (1 + 1e-9)
          and (i < n_main or width_ratio > 1)]
    if ok:
        best = max(ok, key=lambda i: (rows[i][0].expected_accuracy,
                                      -rows[i][0].expected_half_width))
    else:
        best = min(range(len(rows)), key=lambda i: (rows[i][0].expected_half_width,
                                                    -rows[i][0].expected_accuracy))
    designs = [d for d, _ in rows]
    table = pd.DataFrame([{**d.summary(), "recommended": i == best}
                          for i, d in enumerate(designs + [route, random])])
    table.attrs["budget_unit"] = "labels" if labels is not None else "effort"
    table.attrs["targets_reachable"] = any(d.meets_targets for d in designs)
    chosen, spec = designs[best], rows[best][1]
    if kind == "random":
        r = table[table["design"] == "random"].iloc[0]
        chosen, spec = random, {"kind": "const", "rate": rate}
        chosen = ActiveDesign(**{**chosen.__dict__, "mu": float("nan")})
        del r
    chosen = ActiveDesign(**{**chosen.__dict__, "recommended": kind != "random",
                             "frontier": table})
    if kind == "active" and width_model is not None:
        chosen, table, spec = _modelled(engine, base, spec, chosen, table, random, rate,
                                        width_model)
    spec = {**base, **spec}
    for col in ("route", "sig", "g"):
        del engine.columns[col]
    parts = engine.map(kernels.k_draw, spec=spec, seed=int(seed))
    audit = np.concatenate([p["audit"] for p in parts]).astype(np.int64)
    routed = np.concatenate([p["routed"] for p in parts]).astype(np.int64)
    gain = np.concatenate([p["gain"] for p in parts])
    rng = np.random.default_rng(int(seed) + 1)
    audit = audit[rng.permutation(len(audit))]
    routed = routed[np.argsort(-gain, kind="stable")]
    counts = {"calibration": 0, "routed": int(len(routed)), "audit": int(len(audit)),
              "machine": int(m - len(routed) - len(audit)), "": 0}
    return ScalePlan(spec=spec, design=chosen, frontier=table, audit=audit, routed=routed,
                     counts=counts, passes=engine.passes)
