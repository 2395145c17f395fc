"""A design stratified by a group column: the active design planned separately in each group.

The fix offered when a group's final labels are significantly worse than the rest
(:func:`core.evaluation.estimate.weighted_round.group_accuracy`): the active design of
:func:`core.evaluation.sampling.active.design_frontier` spreads one budget over all rows by the
machine's confidence, so a group on which the machine is confident *and wrong* gets few
labels. Here the budget is first split over the column's values, then each group gets its own
recommended active design.

**The split.** Each group g gets a budget proportional to its size S_g (its rows for a budget
in labels, its total predicted effort for a budget in effort), so every group has the same
uniform rate B / S. A group given a minimum human share s_g gets at least s_g S_g (its expected
labelled rows, or effort, are then at least that share of its own); the other groups share
what is left in proportion to their sizes. No group gets more than S_g (every row labelled).

**Validity.** Rows are still drawn independently with their stored probabilities pi_i
(Poisson sampling), so the weighted estimators of :mod:`core.evaluation.estimate.weighted` apply
unchanged: stratification changes the pi_i, not the estimator.
"""

from __future__ import annotations

import math
from typing import Any, Hashable

import numpy as np
import pandas as pd

from core.errors import DataError
from core.format import plain_number
from core.evaluation.sampling.active import ActiveDesign, design_frontier, machine_probabilities
from core.evaluation.sampling.design import SELECTIONS, Design, QueuePlan
from core.data.keys import label_key
from core.evaluation.sampling.audit import srs_size_for_half_width, z_value
from core.evaluation.sampling.draw import draw_queue
from core.assignment import gains

__all__ = ["stratum_budgets", "plan_stratified"]


def stratum_budgets(sizes: dict[Hashable, float], budget: float, *,
                    minimum: dict[Hashable, float] | None = None) -> dict[Hashable, float]:
    """Split a budget over groups by size, with minimum budgets for some groups.

    Parameters
    ----------
    sizes : dict
        group -> S_g > 0 (rows, or total effort).
    budget : float
        B > 0, in the same unit.
    minimum : dict, optional
        group -> the least budget it gets (e.g. a minimum human share times S_g).

    Returns
    -------
    dict
        group -> b_g: max(minimum_g, the proportional part of what the fixed groups leave),
        at most S_g; the b_g add up to B unless every group is labelled in full.

    Raises
    ------
    DataError
        The minimums exceed the budget, a minimum exceeds its group's size, or an unknown
        group.

    Examples
    --------
    >>> stratum_budgets({"a": 100, "b": 300}, 40)
    {'a': 10.0, 'b': 30.0}
    >>> stratum_budgets({"a": 100, "b": 300}, 80, minimum={"a": 50})
    {'a': 50.0, 'b': 30.0}
    """
    minimum = dict(minimum or {})
    if not (math.isfinite(budget) and budget > 0):
        raise DataError(f"the budget must be a number > 0, got {budget}")
    for g, lo in minimum.items():
        if g not in sizes:
            raise DataError(f"group {g!r} is not one of the column's values "
                            f"({', '.join(map(str, sizes))})")
        if lo > sizes[g] * (1 + 1e-12):
            raise DataError(f"the minimum for group {g!r} ({lo:g}) exceeds its size "
                            f"({sizes[g]:g})")
    need = sum(minimum.values())
    if need > budget * (1 + 1e-12):
        raise DataError(f"the minimum human shares need a budget of {plain_number(need)}, more "
                        f"than the {plain_number(budget)} given; lower the minimum or raise the "
                        "budget")
    fixed: dict[Hashable, float] = {}
    while True:
        free = [g for g in sizes if g not in fixed]
        left = budget - sum(fixed.values())
        total = float(sum(sizes[g] for g in free))
        share = {g: left * sizes[g] / total if total > 0 else 0.0 for g in free}
        changed = False
        for g in free:
            if share[g] < minimum.get(g, 0.0):
                fixed[g] = float(minimum[g])
                changed = True
            elif share[g] > sizes[g]:
                fixed[g] = float(sizes[g])
                changed = True
        if not changed:
            break
    return {g: float(fixed.get(g, share.get(g, 0.0))) for g in sizes}


def _group_keys(design: Design, column: str) -> np.ndarray:
    raw = design.data.raw
    if column not in raw.columns:
        raise DataError(f"group column '{column}' is not in the table; available: "
                        f"{', '.join(map(str, raw.columns))}")
    values = raw[column].astype(object).where(raw[column].notna(), "(missing)")
    keys = np.array([label_key(v, strip=False) for v in values], dtype=object)
    if len(set(keys.tolist())) > 200:
        raise DataError(f"group column '{column}' has more than 200 distinct values; a design "
                        "is stratified by a column with at most 200")
    return keys


def plan_stratified(design: Design, column: str, *, labels: float | None = None,
                    effort_budget: float | None = None,
                    min_share: dict[str, float] | None = None, lam: float = 0.0,
                    seed: int = 0) -> tuple[QueuePlan, pd.DataFrame]:
    """Plan the active design separately in every group of ``column``.

    Parameters
    ----------
    design : Design
        Every row undecided.
    column : str
        The group column (its values as :func:`core.data.keys.label_key` writes them
        are the groups, as in :func:`~core.evaluation.estimate.weighted_round.group_accuracy`).
    labels, effort_budget : float
        The whole budget, in expected labels or in expected predicted effort (one of them).
    min_share : dict, optional
        group -> the least share of its rows (labels) or of its effort (effort budget) humans
        label, in [0, 1].
    lam : float, default=0
        Lambda of the gain that ranks rows for routing (as :func:`plan_design`).
    seed : int, default=0
        Seed of the Poisson draw.

    Returns
    -------
    (QueuePlan, pandas.DataFrame)
        The plan (as :func:`core.evaluation.sampling.plan.plan_design`'s: ``inclusion``, and
        ``design`` an :class:`ActiveDesign` of the whole table, ``frontier`` None) and one row
        per group: ``group``, ``rows``, ``budget``, ``expected_labels``, ``expected_effort``,
        ``human_share`` (expected), ``expected_accuracy``.
    """
    if (labels is None) == (effort_budget is None):
        raise DataError("give the budget in labels or in effort (one of the two)")
    if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise DataError(f"seed must be a whole number in [0, 2^63), got {seed}")
    if (design.selection != "").any():
        raise DataError("a stratified design is planned on undecided rows only")
    keys = _group_keys(design, column)
    inp = design.inputs()
    m = design.M
    q = np.clip(np.asarray(inp.a, dtype=float), 0.0, 1.0)
    eff = np.asarray(inp.l, dtype=float)
    cost = np.ones(m) if labels is not None else eff
    budget = float(labels if labels is not None else effort_budget)
    if labels is None and not (np.all(np.isfinite(eff)) and np.all(eff > 0)):
        raise DataError("the effort of every row must be a number > 0 for an effort budget")
    groups = list(dict.fromkeys(sorted(set(keys.tolist()), key=str)))
    sizes = {g: float(cost[keys == g].sum()) for g in groups}
    minimum = {}
    for g, s in (min_share or {}).items():
        if not (isinstance(s, (int, float)) and 0 <= s <= 1):
            raise DataError(f"the minimum human share of {column} = {g} must be in [0, 1], "
                            f"got {s}")
        if g not in sizes:
            raise DataError(f"{column} has no value {g!r}; its values: "
                            f"{', '.join(map(str, groups))}")
        minimum[g] = float(s) * sizes[g]
    budgets = stratum_budgets(sizes, budget, minimum=minimum)
    classes = design.data.labels
    index = {v: i for i, v in enumerate(classes)}
    codes = np.fromiter((index[v] for v in design.machine_label), dtype=np.int64, count=m)
    k = max(len(classes), 2)
    g_all = gains(inp.a, inp.l, lam=float(lam), b=inp.b, k=inp.k)
    pi = np.zeros(m)
    rows: list[dict[str, Any]] = []
    for g in groups:
        mask = keys == g
        b = budgets[g]
        if b >= sizes[g] * (1 - 1e-12):
            pi[mask] = 1.0
        elif b <= 0:
            raise DataError(f"no budget is left for {column} = {g} after the minimum shares; "
                            "lower them or raise the budget")
        else:
            kw = {"labels": b} if labels is not None else {"effort_budget": b}
            rec, _ = design_frontier(codes[mask], q[mask], k, effort=eff[mask],
                                     gain=g_all[mask], **kw)
            pi[mask] = rec.pi
        p = pi[mask]
        rows.append({"group": g, "rows": int(mask.sum()), "budget": b,
                     "expected_labels": float(p.sum()),
                     "expected_effort": float((p * eff[mask]).sum()),
                     "human_share": float(p.mean()),
                     "expected_accuracy": float((p + (1 - p) * q[mask]).mean())})
    whole = _whole(pi, codes, q, eff, k)
    sel, rank = draw_queue(pi, g_all, seed=int(seed))
    counts = {v: int((sel == v).sum()) for v in SELECTIONS + ("",)}
    plan = QueuePlan(selection=sel, queue_rank=rank, n_budget=None, lam=float(lam),
                     seed=int(seed), counts=counts, inclusion=pi, design=whole)
    return plan, pd.DataFrame(rows, columns=["group", "rows", "budget", "expected_labels",
                                             "expected_effort", "human_share",
                                             "expected_accuracy"])


def _whole(pi: np.ndarray, codes: np.ndarray, q: np.ndarray, eff: np.ndarray, k: int,
           confidence: float = 0.95) -> ActiveDesign:
    """The expectations of the combined design, as :mod:`core.evaluation.sampling.active` states them
    (the widest class share's half-width with the machine's probabilities as the control)."""
    m = len(pi)
    f = machine_probabilities(codes, q, k)
    v = f * (1 - f)
    terms = ((1 / pi - 1)[:, None] * v)
    half = z_value(confidence) * math.sqrt(float(terms.sum(axis=0).max())) / m
    return ActiveDesign(pi=pi, mu=float("nan"), kind="active", expected_labels=float(pi.sum()),
                        expected_effort=float((pi * eff).sum()),
                        expected_accuracy=float((pi + (1 - pi) * q).mean()),
                        expected_half_width=half,
                        random_equivalent=srs_size_for_half_width(m, 0.25, half,
                                                                  confidence=confidence),
                        n_routed=int((pi >= 1).sum()))
