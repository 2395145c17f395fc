"""Sample assignment execution (SAE): the HMCEval integer linear program, solved exactly.

With z_i = 1 when the machine evaluates sample i and z_i = 0 when a human does, the paper's
objective (Eq. 3) is

    max  sum_i [a_i z_i + b_i (1 - z_i)]  -  lambda * sum_i [k_i z_i + l_i (1 - z_i)]

subject to (Eq. 4) sum_i z_i >= M - N (at most N samples to humans), lambda >= 0, with
defaults b_i = 1 and k_i = 0. Writing h_i = 1 - z_i, the objective is

    sum_i (a_i - lambda k_i)  +  sum_i g_i h_i,     g_i = (b_i - lambda l_i) - (a_i - lambda k_i),

a constant plus the summed *gains* of the samples sent to humans. With only the cardinality
constraint the optimum is therefore:

* ``mode="at_most"`` (Eq. 4 as written): the samples with the largest strictly positive gains,
  at most N of them;
* ``mode="exactly"`` (the fixed human ratio of the paper's Table 2): the N largest gains,
  whatever their sign.

**Tie rule** (deterministic): samples are ranked by gain, descending, with a *stable* sort, so
among equal gains the earlier row goes to a human first; in ``at_most`` mode a sample whose gain
is exactly 0 stays with the machine (it does not change the objective and saves effort).
The fast path never sorts: the N first samples of that ranking are found in O(M) (the N-th
largest gain splits them; ties at it go to the earliest rows), and it is exact.

Extra constraints (a budget on total predicted human effort, a minimum/maximum human share per
subgroup) break that structure: :func:`solve` then builds the same objective as a boolean
program in cvxpy and solves it with HiGHS at zero optimality gap. Without extra constraints the
fast path is always used (``method="auto"``); ``method="ilp"`` forces the solver.

:func:`sweep` evaluates a whole grid of lambda x N: per lambda one partial ordering at the
budgets' places and sums over its blocks; for one budget over many lambdas (a curve against
lambda), only the samples whose place can change between two lambdas are ranked. Both give the
sets of the ranking above, ties included.

**What lambda means depends on the effort unit.** A gain is ``(b_i - a_i) - lambda (l_i - k_i)``:
with l_i in seconds (a median of 43 s) lambda = 1 already outweighs every confidence gap, while on
the paper's normalised effort (l_i in [0, 1]) lambda = 4.6 keeps half of the samples. With
``c_i = b_i - a_i`` and ``d_i = l_i - k_i`` a sample's gain changes sign at ``lambda = c_i / d_i``;
:func:`lambda_range` gives, for a dataset and a budget, the range of lambda over which the
assignment changes at all (from 0 to the value beyond which, in the usual case, no sample goes
to humans), and :func:`lambda_grid` a log-like grid over it for sliders and sweeps.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd

from core.errors import DataError
from core.reliability import RELIABILITY_KEYS, assignment_metrics, scores_from_confusion

__all__ = [
    "SAEInputs",
    "LabelCodes",
    "Constraints",
    "constraints_from_settings",
    "Assignment",
    "gains",
    "n_from_share",
    "solve",
    "solve_fast",
    "solve_ilp",
    "objective_value",
    "evaluate",
    "sweep",
    "LambdaRange",
    "lambda_range",
    "lambda_grid",
    "METRIC_COLUMNS",
]

Mode = Literal["at_most", "exactly"]

#: Metric columns of :func:`sweep` and of :func:`evaluate`'s flat result.
METRIC_COLUMNS = ("M", "n_human", "human_ratio", "time_cost", "time_cost_predicted", "precision",
                  "recall", "f1", "accuracy", "objective", "expected_reliability")


@dataclass(frozen=True)
class LabelCodes:
    """Labels of a dataset as class indices (:attr:`SAEInputs.label_codes`).

    Attributes
    ----------
    gold, machine : int arrays of shape (M,)
        Index in ``classes`` of each sample's gold and machine label.
    classes : tuple
        The class order.
    machine_cm : int array of shape (C, C)
        Confusion counts of the machine alone (gold in rows).
    """

    gold: np.ndarray
    machine: np.ndarray
    classes: tuple
    machine_cm: np.ndarray


@dataclass(frozen=True)
class SAEInputs:
    """Per-sample arrays of the assignment problem and its evaluation.

    Attributes
    ----------
    a : array of shape (M,)
        Machine confidence a_i in [0, 1].
    l : array of shape (M,)
        Predicted human effort l_i >= 0 (what the optimiser sees).
    b : array of shape (M,)
        Human confidence b_i (default 1).
    k : array of shape (M,)
        Machine effort k_i (default 0).
    machine_label : array of shape (M,), optional
    human_label : array of shape (M,), optional
        Gold labels; without them observed reliability is unavailable.
    human_effort : array of shape (M,), optional
        Ground-truth effort used to report the time cost.
    labels : tuple, optional
        Class order.
    """

    a: np.ndarray
    l: np.ndarray
    b: np.ndarray
    k: np.ndarray
    machine_label: np.ndarray | None = None
    human_label: np.ndarray | None = None
    human_effort: np.ndarray | None = None
    labels: tuple | None = None

    @property
    def M(self) -> int:
        return len(self.a)

    @cached_property
    def label_codes(self) -> LabelCodes | None:
        """The gold and machine labels as class indices, encoded once (None without gold).

        The classes are ``labels`` when given, else the sorted union of both label arrays
        (sorted by type name, then value). None also when a label is missing or outside
        ``labels``: the callers then take their label-by-label path, which names the problem.
        """
        if self.human_label is None or self.machine_label is None:
            return None
        if self.labels is not None:
            classes = list(self.labels)
        else:
            try:
                classes = sorted(set(self.human_label.tolist()) | set(self.machine_label.tolist()),
                                 key=lambda v: (str(type(v)), v))
            except TypeError:
                return None
        try:
            index = pd.Index(classes, dtype=object)
            if not index.is_unique:
                return None
            t = index.get_indexer(pd.Index(self.human_label, dtype=object))
            p = index.get_indexer(pd.Index(self.machine_label, dtype=object))
        except (TypeError, ValueError):
            return None
        if (t < 0).any() or (p < 0).any():
            return None
        c = len(classes)
        t, p = t.astype(np.int64), p.astype(np.int64)
        machine_cm = np.bincount(t * c + p, minlength=c * c).reshape(c, c)
        return LabelCodes(gold=t, machine=p, classes=tuple(classes), machine_cm=machine_cm)

    @classmethod
    def from_arrays(cls, a, l=None, *, b=None, k=None, machine_label=None, human_label=None,
                    human_effort=None, labels=None) -> "SAEInputs":
        """Build inputs from arrays, with defaults l = 1, b = 1, k = 0."""
        a = np.asarray(a, dtype=float)
        m = len(a)
        full = lambda v, d: np.full(m, d, float) if v is None else np.broadcast_to(  # noqa: E731
            np.asarray(v, dtype=float), (m,)).copy()
        return cls(a=a, l=full(l, 1.0), b=full(b, 1.0), k=full(k, 0.0),
                   machine_label=None if machine_label is None else np.asarray(machine_label),
                   human_label=None if human_label is None else np.asarray(human_label),
                   human_effort=None if human_effort is None else np.asarray(human_effort, float),
                   labels=labels)

    @classmethod
    def from_data(cls, data: Any) -> "SAEInputs":
        """Build inputs from a :class:`core.data.EvalData`."""
        f = data.frame
        return cls.from_arrays(
            f["machine_confidence"].to_numpy(float), f["predicted_effort"].to_numpy(float),
            b=f["human_confidence"].to_numpy(float), k=f["machine_effort"].to_numpy(float),
            machine_label=f["machine_label"].to_numpy(),
            human_label=f["human_label"].to_numpy() if "human_label" in f else None,
            human_effort=f["human_effort"].to_numpy(float) if "human_effort" in f else None,
            labels=data.labels)


@dataclass(frozen=True)
class Constraints:
    """Optional extra constraints of the general ILP.

    Attributes
    ----------
    effort_budget : float, optional
        Upper bound on the total predicted human effort ``sum_i l_i h_i``.
    groups : array of shape (M,), optional
        Subgroup of every sample, for the share bounds.
    group_bounds : dict, optional
        group value -> (min_share, max_share) of that group's samples sent to humans, each in
        [0, 1] or ``None``. A minimum is ``ceil``-rounded and a maximum ``floor``-rounded in
        samples (the ILP's variables are whole samples).
    """

    effort_budget: float | None = None
    groups: np.ndarray | None = None
    group_bounds: dict = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.effort_budget is not None or bool(self.group_bounds)


def constraints_from_settings(data: Any, *, effort_budget: float | None = None,
                              effort_budget_share: float | None = None,
                              group_column: str | None = None,
                              group_bounds: Mapping[str, Sequence[float | None]] | None = None,
                              ) -> Constraints | None:
    """Build :class:`Constraints` from a user's settings (the Trade-off page and ``hmceval assign``).

    Parameters
    ----------
    data : core.data.EvalData
        The dataset the constraints apply to.
    effort_budget : float, optional
        Upper bound on the total predicted human effort, in the effort column's units.
    effort_budget_share : float in [0, 1], optional
        The same bound as a share of the total predicted effort of all samples.
    group_column : str, optional
        Column of the table holding the subgroups of ``group_bounds``.
    group_bounds : mapping, optional
        Subgroup value *as text* (``str(value)``) -> ``(min_share, max_share)``, each a number
        or None. A column without bounds constrains nothing.

    Returns
    -------
    Constraints or None
        None when no constraint is set.

    Raises
    ------
    DataError
        Both a budget and a budget share; a share outside [0, 1]; bounds without a column; a
        column that is not in the table; a subgroup that does not occur in the column (naming
        it and the column's values); a bound that is not a number.
    """
    if effort_budget is not None and effort_budget_share is not None:
        raise DataError("give an effort budget or an effort budget share, not both")
    budget = None if effort_budget is None else float(effort_budget)
    if effort_budget_share is not None:
        share = float(effort_budget_share)
        if not 0 <= share <= 1:
            raise DataError(f"effort budget share must be in [0, 1], got {effort_budget_share}")
        budget = share * float(data.frame["predicted_effort"].sum())
    bounds: dict = {}
    if group_bounds:
        if not group_column:
            raise DataError("subgroup share bounds need a subgroup column")
        table = data.raw if group_column in data.raw.columns else data.frame
        if group_column not in table.columns:
            raise DataError(f"subgroup column '{group_column}' is not in the table")
        values = {str(v): v for v in pd.unique(table[group_column])}
        for value, pair in group_bounds.items():
            value = str(value)
            if value not in values:
                raise DataError(f"subgroup {value!r} does not occur in column '{group_column}' "
                                f"(values: {', '.join(sorted(values)[:10])})")
            try:
                lo, hi = pair
                lo = None if lo is None else float(lo)
                hi = None if hi is None else float(hi)
            except (TypeError, ValueError):
                raise DataError(f"subgroup {value!r}: share bounds must be two numbers or empty, "
                                f"got {pair!r}") from None
            bounds[values[value]] = (lo, hi)
    if budget is None and not bounds:
        return None
    groups = table[group_column].to_numpy(dtype=object) if bounds else None
    return Constraints(effort_budget=budget, groups=groups, group_bounds=bounds)


@dataclass(frozen=True)
class Assignment:
    """The result of one solve.

    Attributes
    ----------
    human : bool array of shape (M,)
        True where the sample goes to a human (h_i = 1 - z_i).
    objective : float
        Value of Eq. 3 at this assignment.
    lam, n_budget, mode, method
        The parameters and the path used (``"fast"`` or ``"ilp"``).
    """

    human: np.ndarray
    objective: float
    lam: float
    n_budget: int
    mode: str
    method: str

    @property
    def n_human(self) -> int:
        return int(self.human.sum())


def gains(a, l, *, lam: float, b=1.0, k=0.0) -> np.ndarray:
    """Per-sample gain of sending a sample to a human: ``(b - lam l) - (a - lam k)``.

    Parameters
    ----------
    a, l : arrays of shape (M,)
    lam : float >= 0
    b, k : float or arrays of shape (M,)

    Returns
    -------
    numpy.ndarray of shape (M,)
    """
    a = np.asarray(a, dtype=float)
    return (np.asarray(b, float) - lam * np.asarray(l, float)) - (a - lam * np.asarray(k, float))


def n_from_share(share: float, m: int) -> int:
    """Human budget ``N = int(share * M)`` (truncation, as the paper), robust to float noise."""
    if not 0 <= share <= 1:
        raise DataError(f"human share must be in [0, 1], got {share}")
    return int(math.floor(round(share * m, 9)))


def _check(inp: SAEInputs, lam: float, n_human: int, mode: str) -> None:
    if not (isinstance(lam, (int, float, np.floating, np.integer)) and math.isfinite(lam)) or lam < 0:
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    if not 0 <= n_human <= inp.M:
        raise DataError(f"human budget N must be between 0 and M = {inp.M}, got {n_human}")
    if mode not in ("at_most", "exactly"):
        raise DataError(f"mode must be 'at_most' or 'exactly', got {mode!r}")


def _order(g: np.ndarray) -> np.ndarray:
    """Ranking by gain, descending; stable, so ties go to the earlier row first."""
    return np.argsort(-g, kind="stable")


def _top_k(g: np.ndarray, k: int) -> np.ndarray:
    """Bool mask of the k samples a stable descending sort of ``g`` puts first, in O(M).

    The k-th largest gain v splits the samples: every gain above v is in; among the gains equal
    to v the earliest rows fill the rest (the stable sort's tie rule).
    """
    m = len(g)
    mask = np.zeros(m, dtype=bool)
    if k <= 0:
        return mask
    if k >= m:
        mask[:] = True
        return mask
    v = np.partition(g, m - k)[m - k]
    above = g > v
    mask[above] = True
    mask[np.flatnonzero(g == v)[:k - int(above.sum())]] = True
    return mask


def objective_value(inp: SAEInputs, human: np.ndarray, lam: float) -> float:
    """Eq. 3 at an assignment (``human`` True where h_i = 1, i.e. z_i = 0)."""
    z = ~np.asarray(human, dtype=bool)
    conf = np.where(z, inp.a, inp.b).sum()
    effort = np.where(z, inp.k, inp.l).sum()
    return float(conf - lam * effort)


def solve_fast(inp: SAEInputs, *, lam: float, n_human: int, mode: Mode = "at_most") -> Assignment:
    """Exact solution without extra constraints (see the module docstring), in O(M): the n
    first samples of the stable ranking by gain, found by :func:`_top_k` without sorting."""
    _check(inp, lam, n_human, mode)
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    n = n_human if mode == "exactly" else min(n_human, int((g > 0).sum()))
    # the n first of the stable ranking (:func:`_order`), found in O(M) without sorting
    human = _top_k(g, n)
    return Assignment(human=human, objective=objective_value(inp, human, lam), lam=float(lam),
                      n_budget=int(n_human), mode=mode, method="fast")


def solve_ilp(inp: SAEInputs, *, lam: float, n_human: int, mode: Mode = "at_most",
              constraints: Constraints | None = None, time_limit: float | None = None) -> Assignment:
    """Solve Eq. 3-4 plus optional constraints as a boolean program (cvxpy + HiGHS, zero gap).

    Raises
    ------
    DataError
        When the constraints admit no assignment, or the solver fails.
    """
    import cvxpy as cp

    _check(inp, lam, n_human, mode)
    c = constraints or Constraints()
    m = inp.M
    from core.defaults import MAX_ILP_SAMPLES

    if m > MAX_ILP_SAMPLES:
        raise DataError(f"extra constraints are solved by the general ILP, which takes at most "
                        f"{MAX_ILP_SAMPLES:,} samples; this table has {m:,}. Drop the "
                        "constraints or split the table")
    if c.effort_budget is not None and not math.isfinite(c.effort_budget):
        raise DataError(f"effort budget must be a finite number >= 0, got {c.effort_budget}")
    h = cp.Variable(m, boolean=True)
    z = 1 - h
    obj = inp.a @ z + inp.b @ h - lam * (inp.k @ z + inp.l @ h)
    cons = [cp.sum(h) == n_human] if mode == "exactly" else [cp.sum(h) <= n_human]
    if c.effort_budget is not None:
        if c.effort_budget < 0:
            raise DataError(f"effort budget must be >= 0, got {c.effort_budget}")
        cons.append(inp.l @ h <= c.effort_budget)
    if c.group_bounds:
        if c.groups is None or len(c.groups) != m:
            raise DataError("group share bounds need a subgroup value for every sample")
        groups = np.asarray(c.groups, dtype=object)
        for gval, (lo, hi) in c.group_bounds.items():
            idx = np.flatnonzero(groups == gval)
            if len(idx) == 0:
                raise DataError(f"subgroup {gval!r} of the share bounds has no sample")
            for name, v in (("minimum", lo), ("maximum", hi)):
                if v is not None and not 0 <= v <= 1:
                    raise DataError(f"{name} human share of subgroup {gval!r} must be in [0, 1], got {v}")
            if lo is not None:
                cons.append(cp.sum(h[idx]) >= math.ceil(round(lo * len(idx), 9)))
            if hi is not None:
                cons.append(cp.sum(h[idx]) <= math.floor(round(hi * len(idx), 9)))
    prob = cp.Problem(cp.Maximize(obj), cons)
    opts: dict[str, Any] = {"mip_rel_gap": 0.0, "mip_abs_gap": 0.0}
    if time_limit is not None:
        opts["time_limit"] = float(time_limit)
    try:
        prob.solve(solver=cp.HIGHS, **opts)
    except cp.error.SolverError as exc:
        raise DataError(f"the ILP solver failed: {exc}") from None
    if prob.status in ("infeasible", "infeasible_inaccurate"):
        raise DataError("no assignment satisfies the constraints (N, effort budget and subgroup "
                        "shares together are infeasible); relax one of them")
    if prob.status != "optimal" or h.value is None:
        raise DataError(f"the ILP solver stopped with status '{prob.status}'")
    human = np.asarray(h.value) > 0.5
    return Assignment(human=human, objective=objective_value(inp, human, lam), lam=float(lam),
                      n_budget=int(n_human), mode=mode, method="ilp")


def solve(inp: SAEInputs, *, lam: float, n_human: int, mode: Mode = "at_most",
          constraints: Constraints | None = None,
          method: Literal["auto", "fast", "ilp"] = "auto") -> Assignment:
    """Solve the SAE problem, by the fast exact path whenever no extra constraint is set.

    Parameters
    ----------
    inp : SAEInputs
    lam : float >= 0
        Trade-off weight of effort against confidence.
    n_human : int
        Human budget N (0 <= N <= M).
    mode : {"at_most", "exactly"}, default="at_most"
    constraints : Constraints, optional
    method : {"auto", "fast", "ilp"}, default="auto"

    Returns
    -------
    Assignment
    """
    active = constraints is not None and constraints.active
    if method == "fast" and active:
        raise DataError("the fast path cannot take extra constraints; use method='ilp'")
    if method == "ilp" or active:
        return solve_ilp(inp, lam=lam, n_human=n_human, mode=mode, constraints=constraints)
    return solve_fast(inp, lam=lam, n_human=n_human, mode=mode)


def evaluate(inp: SAEInputs, assignment: Assignment) -> dict[str, Any]:
    """Reliability, effort and objective of an assignment (:func:`core.reliability.assignment_metrics`).

    Returns
    -------
    dict
        ``M``, ``N``, ``lambda``, ``mode``, ``method``, ``n_human``, ``human_ratio``,
        ``time_cost``, ``time_cost_predicted``, ``precision``, ``recall``, ``f1``, ``accuracy``,
        ``objective``, ``expected_reliability`` and ``machine_only``.
    """
    codes = inp.label_codes
    if codes is None or len(assignment.human) != inp.M:
        met = assignment_metrics(assignment.human, machine_label=inp.machine_label,
                                 machine_confidence=inp.a, human_label=inp.human_label,
                                 human_confidence=inp.b, human_effort=inp.human_effort,
                                 predicted_effort=inp.l, labels=inp.labels)
    else:
        met = _metrics_from_codes(inp, codes, np.asarray(assignment.human, dtype=bool))
    out: dict[str, Any] = {"M": inp.M, "N": assignment.n_budget, "lambda": assignment.lam,
                           "mode": assignment.mode, "method": assignment.method}
    out.update({k: met[k] for k in ("n_human", "human_ratio", "time_cost", "time_cost_predicted")})
    out.update({k: met[k] for k in RELIABILITY_KEYS})
    out["objective"] = assignment.objective
    out["expected_reliability"] = met["expected_reliability"]
    out["machine_only"] = met["machine_only"]
    return out


def _metrics_from_codes(inp: SAEInputs, codes: LabelCodes, human: np.ndarray) -> dict[str, Any]:
    """:func:`core.reliability.assignment_metrics` of an assignment, from labels encoded once
    (the same confusion counts, so the same scores; the machine alone's counts are the
    dataset's)."""
    m = len(human)
    out: dict[str, Any] = {"M": m, "n_human": int(human.sum()),
                           "human_ratio": float(human.mean()) if m else float("nan")}
    out["expected_reliability"] = float(np.where(human, inp.b, inp.a).mean())
    for key, effort in (("time_cost", inp.human_effort), ("time_cost_predicted", inp.l)):
        if effort is None:
            out[key] = None
        else:
            total = effort.sum()
            out[key] = float("nan") if total == 0 else float(effort[human].sum() / total)
    c = len(codes.classes)
    final = np.where(human, codes.gold, codes.machine)
    cm = np.bincount(codes.gold * c + final, minlength=c * c).reshape(c, c)
    sc = scores_from_confusion(cm)
    out.update({k: float(sc[k]) for k in RELIABILITY_KEYS})
    mo = scores_from_confusion(codes.machine_cm)
    out["machine_only"] = {k: float(mo[k]) for k in RELIABILITY_KEYS}
    return out


def _grid_values(values, name: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.size == 0:
        raise DataError(f"the {name} grid is empty")
    return arr


def _ranked_sums(g: np.ndarray, ks: np.ndarray, weights: list[np.ndarray],
                 cats: np.ndarray | None, n_cats: int) -> tuple[np.ndarray, np.ndarray]:
    """Sums over the k first samples of the ranking by gain, for several k at once.

    The ranking is :func:`_order`'s (gain descending, ties to the earlier row), but it is never
    built: one ``argpartition`` at the k places splits the samples into blocks whose members
    are right whatever their order inside, and block sums add up to the sums at each k. Where
    gains tie at a k-th place, the rows the partition put first are swapped for the earliest
    rows of that gain.

    Parameters
    ----------
    g : array of shape (M,)
    ks : int array of shape (K,)
        Numbers of first samples, each in [0, M].
    weights : list of arrays of shape (M,)
    cats : int array of shape (M,), optional
        A category per sample (-1: none) to count.
    n_cats : int
        Number of categories.

    Returns
    -------
    sums : array of shape (len(weights), K)
    counts : array of shape (K, n_cats)
    """
    m = len(g)
    ks = np.asarray(ks, dtype=np.int64)
    sums = np.zeros((len(weights), len(ks)))
    counts = np.zeros((len(ks), n_cats))
    full = ks >= m
    if full.any():
        sums[:, full] = np.array([float(w.sum()) for w in weights])[:, None]
        if cats is not None:
            counts[full] = np.bincount(cats[cats >= 0], minlength=n_cats)
    inner = np.unique(ks[(ks > 0) & (ks < m)])
    if not len(inner):
        return sums, counts
    order = np.argpartition(-g, inner - 1)
    nb = len(inner) + 1
    # the block of each sample (the first k places are blocks 0 .. k's index): one scatter,
    # then every sum reads its array in row order
    block = np.empty(m, dtype=np.int64)
    block[order] = np.repeat(np.arange(nb), np.diff(np.r_[0, inner, m]))
    pref = np.empty((len(weights), len(inner)))
    for w_i, w in enumerate(weights):
        pref[w_i] = np.cumsum(np.bincount(block, weights=w, minlength=nb))[:-1]
    cpref = np.zeros((len(inner), n_cats))
    if cats is not None:
        ok = cats >= 0
        cb = np.bincount(block[ok] * n_cats + cats[ok], minlength=nb * n_cats)
        cpref = np.cumsum(cb.reshape(nb, n_cats), axis=0)[:-1].astype(float)
    # gains at the k-th places that other samples share (one pass for all places)
    at_k = g[order[inner - 1]]
    vals = np.unique(at_k)
    pos = np.minimum(np.searchsorted(vals, g), len(vals) - 1)
    hit = vals[pos] == g
    tied = set(vals[np.bincount(pos[hit], minlength=len(vals)) > 1].tolist())
    for t, k in enumerate(inner):
        v = at_k[t]
        if v in tied:
            head = order[:k]
            have = head[g[head] == v]
            want = np.flatnonzero(g == v)[:len(have)]  # the stable sort's choice among ties
            if not np.array_equal(np.sort(have), want):
                for w_i, w in enumerate(weights):
                    pref[w_i, t] += float(w[want].sum()) - float(w[have].sum())
                if cats is not None:
                    cw, ch = cats[want], cats[have]
                    cpref[t] += (np.bincount(cw[cw >= 0], minlength=n_cats)
                                 - np.bincount(ch[ch >= 0], minlength=n_cats))
    where = np.searchsorted(inner, ks)
    sel = (ks > 0) & (ks < m)
    sums[:, sel] = pref[:, where[sel]]
    counts[sel] = cpref[where[sel]]
    return sums, counts


def _top_k_rows(g: np.ndarray, k: int, *, positive: bool = False) -> np.ndarray:
    """:func:`_top_k` of every row of ``g`` (shape (R, n)) with the same k; with ``positive``,
    among the strictly positive values only (the k first of those, or all when fewer)."""
    r, n = g.shape
    if k <= 0:
        return np.zeros((r, n), dtype=bool)
    if k >= n:
        return g > 0 if positive else np.ones((r, n), dtype=bool)
    v = np.partition(g, n - k, axis=1)[:, n - k][:, None]  # each row's k-th largest
    sel = g > v
    need = k - sel.sum(axis=1)
    ties = g == v
    n_ties = ties.sum(axis=1)
    all_go = n_ties == need  # the usual case: only the k-th value itself
    sel[all_go] |= ties[all_go]
    some = np.flatnonzero(~all_go)
    if len(some):
        # among ties at the k-th value, the earliest columns (rows of the table) go first
        t_some = ties[some]
        sel[some] |= t_some & (np.cumsum(t_some, axis=1) <= need[some, None])
    if positive:
        few = np.count_nonzero(g > 0, axis=1) <= k  # then every positive one goes
        sel[few] = g[few] > 0
        sel &= g > 0
    return sel


def _bracketed_ok(inp: SAEInputs, lams: np.ndarray, n: int) -> bool:
    """Whether :func:`_single_budget_bracketed` applies: 0 < N < M, several lambdas, and gains
    that never rise with lambda, also in floating point (k_i = 0 and l_i >= 0)."""
    return 0 < n < inp.M and len(lams) > 2 and bool(np.all(inp.k == 0)) and bool(
        np.all(inp.l >= 0))


def _single_budget_bracketed(inp: SAEInputs, lams: np.ndarray, n: int, mode: str, summarise):
    """The human set at each lambda for one budget N, exactly as :func:`solve_fast` picks it.

    With k_i = 0 and l_i >= 0 every gain ``g_i(lambda) = (b_i - lambda l_i) - a_i`` is
    non-increasing in lambda, also as computed in floating point, and so is the threshold v
    (the N-th largest gain; in "at most" mode the N-th largest positive gain, 0 when fewer
    than N are positive). For lambda in [lo, hi] (grid points where v is known exactly):

    * a sample with g_i(hi) > v(lo) is above the threshold at every lambda between: it goes to
      a human (strictly above, so no tie rule is involved);
    * a sample with g_i(lo) < v(hi) (or, "at most", g_i(lo) <= 0) never goes;
    * only the rest (U, few when the lambdas are close) is ranked at each lambda: the
      N - |sure| first of U by the stable rule (:func:`_top_k`; U keeps the row order, so ties
      go as in the full ranking), "at most" among the positive gains only.

    An interval whose U is large is split at a grid point in between (one more exact
    threshold). Yields per interval ``(positions in lams, summarise(sure mask), U's rows, mask of
    shape (positions, U) of U's rows that go at each of these lambdas)``.
    """
    m = inp.M
    order = np.argsort(lams, kind="stable")
    sl = np.asarray(lams, float)[order]
    at_most = mode == "at_most"

    def gain(lam: float, idx=None) -> np.ndarray:
        if idx is None:
            return (inp.b - lam * inp.l) - (inp.a - lam * inp.k)  # as gains(): same values
        return (inp.b[idx] - lam * inp.l[idx]) - (inp.a[idx] - lam * inp.k[idx])

    thresholds: dict[int, float] = {}
    g_at: dict[int, np.ndarray] = {}

    def point(j: int) -> tuple[float, np.ndarray]:
        if j in thresholds and j not in g_at:
            g_at[j] = gain(float(sl[j]))
        if j not in thresholds:
            g = gain(float(sl[j]))
            if at_most and int(np.count_nonzero(g > 0)) < n:
                v = 0.0  # fewer than N positive gains: every positive one goes
            else:
                v = float(np.partition(g, m - n)[m - n])
            thresholds[j], g_at[j] = v, g
        return thresholds[j], g_at[j]

    stack = [(0, len(sl) - 1)]
    while stack:
        j0, j1 = stack.pop()
        v_hi, g_lo_lam = point(j0)  # at the smaller lambda: larger gains and threshold
        v_lo, g_hi_lam = point(j1)
        sure = g_hi_lam > v_hi
        never = g_lo_lam < v_lo
        if at_most:
            never |= g_lo_lam <= 0
        u = np.flatnonzero(~(sure | never))
        last = j1 == len(sl) - 1
        pts = range(j0, j1 + 1 if last else j1)
        if j1 - j0 >= 2 and len(u) * len(pts) > 3 * m:
            mid = (j0 + j1) // 2
            stack += [(mid, j1), (j0, mid)]
            continue
        fixed = summarise(sure)
        room = n - fixed["count"]
        lam_pts = sl[j0:pts.stop][:, None]
        # the interval's lambdas at once, one row each; as gains(): same values
        gu = (inp.b[u][None, :] - lam_pts * inp.l[u][None, :]) - \
            (inp.a[u][None, :] - lam_pts * inp.k[u][None, :])
        yield order[j0:pts.stop], fixed, u, _top_k_rows(gu, room, positive=at_most)
        g_at.pop(j0, None)  # keep memory bounded (recomputed if a neighbour needs it)


def sweep(inp: SAEInputs, *, lams, shares=None, n_values=None, mode: Mode = "at_most") -> pd.DataFrame:
    """Every metric at every point of a lambda x N grid, vectorised.

    Per lambda, one partial ordering of the samples by gain at the budgets' places
    (:func:`_ranked_sums`) gives the metrics at each N from sums over its blocks (the confusion
    matrix after moving the first n samples to humans, their efforts, confidences and gains).
    With a single budget (the curve against lambda at the current N) no ordering is needed: the
    N samples the ranking puts first are found per lambda among the few whose place can change
    since the neighbouring lambdas (:func:`_single_budget_bracketed`; in O(M) per lambda when
    gains may rise with lambda). Ties follow the module's rule throughout, so the result
    equals :func:`solve_fast` + :func:`evaluate` at every grid point.

    Parameters
    ----------
    inp : SAEInputs
    lams : array-like of float
        Lambda grid.
    shares : array-like of float, optional
        Human-share grid; ``N = int(share * M)``.
    n_values : array-like of int, optional
        Budget grid in samples (instead of ``shares``).
    mode : {"at_most", "exactly"}

    Returns
    -------
    pandas.DataFrame
        One row per (lambda, N), lambda-major: ``lambda``, ``human_share``, ``N`` and
        :data:`METRIC_COLUMNS`.
    """
    m = inp.M
    lams = _grid_values(lams, "lambda")
    if (shares is None) == (n_values is None):
        raise DataError("give exactly one of a human-share grid or a budget grid")
    if shares is not None:
        shares = _grid_values(shares, "human share")
        ns = np.array([n_from_share(float(s), m) for s in shares], dtype=np.int64)
    else:
        ns = _grid_values(n_values, "budget").astype(np.int64)
        shares = ns / m
    for lam in lams:
        _check(inp, float(lam), 0, mode)
    for n in ns:
        _check(inp, 0.0, int(n), mode)

    gold = inp.human_label is not None
    if gold:
        labels = list(inp.labels) if inp.labels is not None else sorted(
            set(inp.human_label.tolist()) | set(inp.machine_label.tolist()), key=lambda v: (str(type(v)), v))
        codes = inp.label_codes
        if codes is not None:
            t, p = codes.gold, codes.machine
        else:
            index = {v: i for i, v in enumerate(labels)}
            t = np.array([index[v] for v in inp.human_label.tolist()], dtype=np.int64)
            p = np.array([index[v] for v in inp.machine_label.tolist()], dtype=np.int64)
        c = len(labels)
        cm0 = np.bincount(t * c + p, minlength=c * c).astype(float)
        # Moving a correctly labelled sample to a human changes nothing; moving a wrong one with
        # gold t and machine label p does cm[t, p] -= 1 and cm[t, t] += 1. Only the pair types
        # that occur among the machine's errors need prefix counts.
        wrong = t != p
        pair = np.where(wrong, t * c + p, -1)
        err_types = np.unique(pair[wrong])
    he = inp.human_effort
    he_total = he.sum() if he is not None else None
    l_total = inp.l.sum()
    n_l, n_n = len(lams), len(ns)
    cols = {key: np.empty((n_l, n_n)) for key in ("n_human", "time_cost", "time_cost_predicted",
                                                  "objective", "expected_reliability",
                                                  *RELIABILITY_KEYS)}
    a_sum = inp.a.sum()
    conf = np.zeros((n_l, n_n, c * c)) if gold else None  # confusion counts per grid point
    if n_n == 1 and _bracketed_ok(inp, lams, int(ns[0])):
        # one budget over many lambdas (the "against lambda" curve at the current N): the top-N
        # sets of neighbouring lambdas share most samples, so each lambda only ranks the few
        # whose place can change (:func:`_single_budget_bracketed`)
        # the sums every lambda needs, as rows of one matrix: a mask's sums are one product
        # (k_i = 0 on this path, so a gain's sum is sum(b - a) - lambda sum(l))
        rows = np.vstack([inp.b - inp.a, inp.l] + ([he] if he is not None else []))

        def summarise(mask: np.ndarray) -> dict[str, Any]:
            sums = rows @ mask.astype(float)
            out = {"count": int(np.count_nonzero(mask)), "sums": sums}
            if gold:
                w = mask & wrong
                out["pairs"] = np.bincount(pair[w], minlength=c * c)
                out["gold"] = np.bincount(t[w], minlength=c)
            return out

        conf_sum = float(inp.a.sum())
        for pos, fixed, u, sel in _single_budget_bracketed(inp, lams, int(ns[0]), mode,
                                                          summarise):
            sel_f = sel.astype(float)
            cols["n_human"][pos, 0] = fixed["count"] + sel.sum(axis=1)
            sums = fixed["sums"][None, :] + sel_f @ rows[:, u].T  # one row per lambda
            c_sum, l_sum = sums[:, 0], sums[:, 1]
            cols["objective"][pos, 0] = conf_sum + (c_sum - lams[pos] * l_sum)
            cols["expected_reliability"][pos, 0] = (a_sum + c_sum) / m
            cols["time_cost_predicted"][pos, 0] = l_sum / l_total if l_total > 0 else np.nan
            cols["time_cost"][pos, 0] = sums[:, 2] / he_total if he is not None else np.nan
            if gold:
                wpos = np.flatnonzero(wrong[u])  # U's samples the machine gets wrong
                onehot_pair = np.zeros((len(wpos), c * c))
                onehot_pair[np.arange(len(wpos)), pair[u][wpos]] = 1.0
                onehot_gold = np.zeros((len(wpos), c))
                onehot_gold[np.arange(len(wpos)), t[u][wpos]] = 1.0
                moved = sel_f[:, wpos]
                cm = cm0[None, :] - fixed["pairs"][None, :] - moved @ onehot_pair
                cm[:, np.arange(c) * (c + 1)] += fixed["gold"][None, :] + moved @ onehot_gold
                conf[pos, 0] = cm
    elif n_n == 1:
        # one budget (the "against lambda" curve at the current N): no ranking is needed, only
        # the N samples the sort would put first, found in O(M) per lambda (:func:`_top_k`)
        n0 = int(ns[0])
        for i, lam in enumerate(lams):
            lam = float(lam)
            g = (inp.b - lam * inp.l) - (inp.a - lam * inp.k)  # as gains(): same ties
            k = n0 if mode == "exactly" else min(n0, int((g > 0).sum()))
            human = _top_k(g, k)
            cols["n_human"][i] = k
            cols["objective"][i] = float((inp.a - lam * inp.k).sum()) + float(g[human].sum())
            cols["expected_reliability"][i] = (a_sum + float((inp.b - inp.a)[human].sum())) / m
            cols["time_cost_predicted"][i] = (float(inp.l[human].sum()) / l_total
                                              if l_total > 0 else np.nan)
            cols["time_cost"][i] = (float(he[human].sum()) / he_total
                                    if he is not None else np.nan)
            if gold:
                moved = human & wrong
                cm = cm0 - np.bincount(pair[moved], minlength=c * c)
                cm[np.arange(c) * (c + 1)] += np.bincount(t[moved], minlength=c)
                conf[i] = cm
    else:
        # many budgets: per lambda, one partial ordering at the budgets' places (O(M log K)
        # rather than a full sort; :func:`_ranked_sums`), in chunks that bound the memory
        b_minus_a = inp.b - inp.a
        conf_sum, k_sum = float(inp.a.sum()), float(inp.k.sum())
        weights = [inp.l] + ([he] if he is not None else [])
        cats = pair if gold else None
        chunk = max(1, int(4_000_000 // max(m, 1)))
        for c0 in range(0, n_l, chunk):
            lam_chunk = lams[c0:c0 + chunk]
            # the same expression as gains(), so ties are broken identically to solve_fast
            g_all = (inp.b[None, :] - lam_chunk[:, None] * inp.l[None, :]) - \
                (inp.a[None, :] - lam_chunk[:, None] * inp.k[None, :])
            for j, lam in enumerate(lam_chunk):
                i = c0 + j
                lam = float(lam)
                g = g_all[j]
                n_pos = int(np.count_nonzero(g > 0))
                kk = ns.copy() if mode == "exactly" else np.minimum(ns, n_pos)
                cols["n_human"][i] = kk
                sums, counts = _ranked_sums(g, kk, [g, b_minus_a, *weights], cats,
                                            c * c if gold else 0)
                cols["objective"][i] = (conf_sum - lam * k_sum) + sums[0]
                cols["expected_reliability"][i] = (a_sum + sums[1]) / m
                cols["time_cost_predicted"][i] = sums[2] / l_total if l_total > 0 else np.nan
                cols["time_cost"][i] = sums[3] / he_total if he is not None else np.nan
                if gold:
                    cms = cm0[None, :] - counts
                    diag = np.arange(c) * (c + 1)
                    for e in err_types:
                        tt = e // c
                        cms[:, diag[tt]] += counts[:, e]
                    conf[i] = cms
    # the scores of every grid point's confusion counts at once
    if gold:
        sc = scores_from_confusion(conf.reshape(n_l * n_n, c, c))
        for key in RELIABILITY_KEYS:
            cols[key] = np.asarray(sc[key], dtype=float).reshape(n_l, n_n)
    else:
        for key in RELIABILITY_KEYS:
            cols[key] = np.full((n_l, n_n), np.nan)
    out = pd.DataFrame({
        "lambda": np.repeat(lams, n_n), "human_share": np.tile(np.asarray(shares, float), n_l),
        "N": np.tile(ns, n_l), "M": m, "n_human": cols["n_human"].ravel().astype(np.int64),
        "human_ratio": cols["n_human"].ravel() / m,
        **{key: cols[key].ravel() for key in ("time_cost", "time_cost_predicted", *RELIABILITY_KEYS,
                                               "objective", "expected_reliability")}})
    return out[["lambda", "human_share", "N", *METRIC_COLUMNS]]



# ------------------------------------------------------------------------------- lambda range
@dataclass(frozen=True)
class LambdaRange:
    """The values of lambda over which an assignment changes, for one dataset and budget.

    Attributes
    ----------
    upper : float
        The assignment is the same for every lambda > ``upper`` (``upper`` >= 0). In
        ``"at_most"`` mode, when every sample's human effort exceeds its machine effort
        (l_i > k_i: the paper's setting, k_i = 0 and l_i > 0), it is ``max_i (b_i - a_i) /
        (l_i - k_i)`` and no sample goes to humans at lambda >= ``upper`` (a gain of exactly 0
        stays with the machine). In ``"exactly"`` mode it is the last lambda at which the ranking
        moves a sample across the N-th place; beyond it the N samples of least effort go.
    pivot : float or None
        ``"at_most"`` mode with l_i >= k_i for every sample: N samples go to humans for lambda <
        ``pivot`` and fewer from ``pivot`` on (the paper's Figure 3 pivotal point); 0 when fewer
        than N samples have a positive gain even at lambda = 0, ``inf`` when N go at every
        lambda. None in ``"exactly"`` mode (always N) or when some l_i < k_i.
    n_human : int
        The budget N.
    mode : str
    first : float or None
        The smallest positive ratio ``(b_i - a_i) / (l_i - k_i)`` (over l_i > k_i): where the
        first sample's gain stops paying for its effort; None when no sample has one. A
        sensible lower end of a log-scaled lambda axis.
    """

    upper: float
    pivot: float | None
    n_human: int
    mode: str
    first: float | None = None


def _hull(x: np.ndarray, y: np.ndarray, *, lower: bool) -> np.ndarray:
    """Indices of the lower (or upper) convex hull of the points (x, y), by increasing x.

    Points sharing an x keep only the lowest (highest) y; monotone chain.
    """
    sign = 1.0 if lower else -1.0
    order = np.lexsort((sign * y, x))
    xs, ys = x[order], y[order]
    keep = np.r_[True, xs[1:] != xs[:-1]]  # first of each x: the lowest (highest) y
    idx, xs, ys = order[keep], xs[keep], sign * ys[keep]
    out: list[int] = []
    for k in range(len(idx)):
        while len(out) >= 2:
            i, j = out[-2], out[-1]
            # drop j when it is not strictly below the segment i -> k
            if (xs[j] - xs[i]) * (ys[k] - ys[i]) - (ys[j] - ys[i]) * (xs[k] - xs[i]) <= 0:
                out.pop()
            else:
                break
        out.append(k)
    return idx[out]


def _max_slope(cl: np.ndarray, dl: np.ndarray, cr: np.ndarray, dr: np.ndarray) -> float:
    """``max (cr_j - cl_i) / (dr_j - dl_i)`` over pairs with ``dr_j > dl_i`` (-inf if none).

    Every left point has d <= every right point's d. The maximum lies on a vertex of the left
    set's lower hull and of the right set's upper hull (a linear-fractional function over a
    convex set peaks at a vertex), so only those pairs are compared.
    """
    if not len(cl) or not len(cr):
        return -math.inf
    # a right point beaten by one of smaller-or-equal d and larger-or-equal c never gives the
    # maximum (nor a left point beaten by one of larger-or-equal d and smaller-or-equal c): keep
    # the two staircases (a few points), vectorised, before the hulls
    o = np.lexsort((-cr, dr))
    o = o[np.r_[True, cr[o][1:] > np.maximum.accumulate(cr[o])[:-1]]]
    cr, dr = cr[o], dr[o]
    o = np.lexsort((cl, -dl))
    o = o[np.r_[True, cl[o][1:] < np.minimum.accumulate(cl[o])[:-1]]]
    cl, dl = cl[o], dl[o]
    li = _hull(dl, cl, lower=True)
    ri = _hull(dr, cr, lower=False)
    dd = dr[ri][None, :] - dl[li][:, None]
    dc = cr[ri][None, :] - cl[li][:, None]
    ok = dd > 0
    if not ok.any():
        return -math.inf
    return float(np.max(dc[ok] / dd[ok]))


def _last_change(c: np.ndarray, d: np.ndarray, n: int) -> float:
    """The largest lambda at which the top-n set of ``c - lambda d`` (stable order) changes.

    For lambda -> inf the order is d ascending, then c descending, then row; S is its first n.
    A pair i in S, j not in S with d_j > d_i is ordered as at infinity exactly when lambda >
    (c_j - c_i) / (d_j - d_i); pairs of equal d never swap. So the answer is the largest such
    ratio, computed per band of d (below, at and above the N-th sample's d) on convex hulls.
    """
    m = len(c)
    if n <= 0 or n >= m:
        return 0.0
    order = np.lexsort((np.arange(m), -c, d))
    s, rest = order[:n], order[n:]
    big_d = d[order[n - 1]]
    s_lt, s_eq = s[d[s] < big_d], s[d[s] == big_d]
    r_eq, r_gt = rest[d[rest] == big_d], rest[d[rest] > big_d]
    best = max(_max_slope(c[s_lt], d[s_lt], c[r_eq], d[r_eq]),
               _max_slope(c[s_lt], d[s_lt], c[r_gt], d[r_gt]),
               _max_slope(c[s_eq], d[s_eq], c[r_gt], d[r_gt]))
    return max(0.0, best)


def lambda_range(inp: SAEInputs, *, n_human: int, mode: Mode = "at_most") -> LambdaRange:
    """The range of lambda over which the assignment of a dataset changes, for a budget N.

    A sample goes to a human when its gain ``(b_i - a_i) - lambda (l_i - k_i)`` is among the N
    largest and, in ``"at_most"`` mode, strictly positive (the module docstring's tie rule). The
    gain of a sample with ``d_i = l_i - k_i > 0`` is positive exactly for lambda < ``(b_i - a_i)
    / d_i``, so in the usual case the range ends at the largest of these ratios: from there on
    no sample goes to humans. The same bound holds whatever the effort's unit: with effort in
    seconds it is about the paper's value divided by the seconds in its unit of effort.

    Parameters
    ----------
    inp : SAEInputs
    n_human : int
        Budget N, 0 <= N <= M.
    mode : {"at_most", "exactly"}

    Returns
    -------
    LambdaRange
        ``upper``: for every lambda > upper the assignment is the one at upper (exact, not a
        search); ``pivot`` (``"at_most"``): N samples go to humans below it, fewer from it on.

    Examples
    --------
    Confidences 0.9, 0.6, 0.2 and efforts 0.5, 0.1, 2: gains cross zero at lambda = 0.1 / 0.5 =
    0.2, 0.4 / 0.1 = 4 and 0.8 / 2 = 0.4, so nobody goes to humans from lambda = 4 on; with N = 2
    two samples go while two gains are positive, that is below lambda = 0.4.

    >>> r = lambda_range(SAEInputs.from_arrays([0.9, 0.6, 0.2], [0.5, 0.1, 2.0]), n_human=2)
    >>> round(r.upper, 12), round(r.pivot, 12)
    (4.0, 0.4)
    """
    _check(inp, 0.0, int(n_human), mode)
    n = int(n_human)
    c = inp.b - inp.a
    d = inp.l - inp.k
    pos = (d > 0) & (c > 0)
    ratios = c[pos] / d[pos]
    first = float(ratios.min()) if len(ratios) else None
    if mode == "exactly":
        return LambdaRange(upper=_last_change(c, d, n), pivot=None, n_human=n, mode=mode,
                           first=first)
    pivot = None
    nonneg = bool((d >= 0).all())
    always = int(((d == 0) & (c > 0)).sum()) if nonneg else -1
    if n == 0:
        upper = 0.0
    elif always == 0:
        # the usual case: every positive gain falls as lambda grows and reaches 0 at c_i / d_i
        upper = float(ratios.max()) if len(ratios) else 0.0
    else:
        # "at most N" in general: the N largest gains among the positive ones, i.e. the top N
        # once N zero-gain samples (c = d = 0) are added ahead of the real ones of gain 0
        # (which stay with the machine)
        c_aug = np.r_[np.zeros(n), c]
        d_aug = np.r_[np.zeros(n), d]
        order_fix = np.lexsort((np.r_[np.zeros(n), np.ones(len(c))], -c_aug, d_aug))
        # the stable order at infinity puts the added samples first among equal (c, d)
        upper = _last_change(c_aug[order_fix], d_aug[order_fix], n)
    if nonneg:
        ratios = np.sort(ratios)[::-1]
        need = n - always
        if n == 0 or need <= 0:
            pivot = math.inf
        elif need > len(ratios):
            pivot = 0.0
        else:
            pivot = float(ratios[need - 1])
    return LambdaRange(upper=upper, pivot=pivot, n_human=n, mode=mode, first=first)


#: Steps of :func:`lambda_grid` within a decade (1, 1.2, 1.5, 2, ... 8).
LAMBDA_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def lambda_grid(upper: float, *, lower: float | None = None, decades: int = 5,
                include: Sequence[float] = ()) -> np.ndarray:
    """A log-like lambda grid from 0 to ``upper``: 0, then 1-1.2-1.5-2-2.5-3-4-5-6-8 steps per
    decade from the decade of ``lower`` (at most ``decades`` decades below ``upper``'s), then
    ``upper`` itself.

    Parameters
    ----------
    upper : float >= 0
        The end of the grid (:attr:`LambdaRange.upper`); 0 gives ``[0]``.
    lower : float > 0, optional
        Where the steps start (:attr:`LambdaRange.first`), rounded down to its decade.
    decades : int, default=5
        The most decades of steps.
    include : sequence of float
        Values added to the grid (e.g. the current lambda), when in [0, upper].

    Returns
    -------
    numpy.ndarray
        Sorted, unique values in [0, upper].
    """
    upper = float(upper)
    if not math.isfinite(upper) or upper < 0:
        raise DataError(f"the upper end of a lambda grid must be a finite number >= 0, got {upper}")
    vals = [0.0]
    if upper > 0:
        top = math.floor(math.log10(upper))
        bottom = top - decades + 1
        if lower is not None and 0 < lower <= upper:
            bottom = max(bottom, math.floor(math.log10(lower)))
        for e in range(bottom, top + 1):
            vals += [float(f"{s * 10.0 ** e:.6g}") for s in LAMBDA_STEPS]
        vals.append(upper)
    vals += [float(v) for v in include if 0 <= float(v) <= upper]
    out = np.unique(np.asarray(vals, dtype=float))
    return out[out <= upper]
