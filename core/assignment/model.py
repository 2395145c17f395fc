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
lambda) or a few budgets on a large table, the samples are kept in cells of similar effort and
confidence gap (:attr:`SAEInputs.gain_cells`, built once) whose bounds on the gains leave only
the cells a threshold crosses to compute. Both give the sets of the ranking above, ties
included.

**What lambda means depends on the effort unit.** A gain is ``(b_i - a_i) - lambda (l_i - k_i)``:
with l_i in seconds (a median of 43 s) lambda = 1 already outweighs every confidence gap, while on
the paper's normalised effort (l_i in [0, 1]) lambda = 4.6 keeps half of the samples. With
``c_i = b_i - a_i`` and ``d_i = l_i - k_i`` a sample's gain changes sign at ``lambda = c_i / d_i``;
:func:`lambda_range` gives, for a dataset and a budget, the range of lambda over which the
assignment changes at all (from 0 to the value beyond which, in the usual case, no sample goes
to humans), and :func:`lambda_grid` a log-like grid over it for sliders and sweeps.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd

from core.assignment.cells import GainCells
from core.assignment.reliability import RELIABILITY_KEYS, assignment_metrics, scores_from_confusion
from core.errors import DataError

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

    @cached_property
    def gain_cells(self) -> GainCells:
        """The samples in cells of similar effort and confidence gap
        (:class:`core.assignment.cells.GainCells`), built once and kept with the inputs: the
        curve against lambda computes only the gains of the cells its threshold crosses."""
        return GainCells.build(self.a, self.b, self.l)

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


def check_problem(inp: SAEInputs, lam: float, n_human: int, mode: str) -> None:
    if not (isinstance(lam, (int, float, np.floating, np.integer)) and math.isfinite(lam)) or lam < 0:
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    if not 0 <= n_human <= inp.M:
        raise DataError(f"human budget N must be between 0 and M = {inp.M}, got {n_human}")
    if mode not in ("at_most", "exactly"):
        raise DataError(f"mode must be 'at_most' or 'exactly', got {mode!r}")


def rank_by_gain(g: np.ndarray) -> np.ndarray:
    """Ranking by gain, descending; stable, so ties go to the earlier row first."""
    return np.argsort(-g, kind="stable")


def top_k_mask(g: np.ndarray, k: int) -> np.ndarray:
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
    first samples of the stable ranking by gain, found by :func:`top_k_mask` without sorting."""
    check_problem(inp, lam, n_human, mode)
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    n = n_human if mode == "exactly" else min(n_human, int((g > 0).sum()))
    # the n first of the stable ranking (:func:`rank_by_gain`), found in O(M) without sorting
    human = top_k_mask(g, n)
    return Assignment(human=human, objective=objective_value(inp, human, lam), lam=float(lam),
                      n_budget=int(n_human), mode=mode, method="fast")


@contextlib.contextmanager
def native_stdout_silenced() -> Iterator[None]:
    """File descriptor 1 goes to /dev/null meanwhile: HiGHS prints its banner ("Running HiGHS
    ...") from C++ whatever its options, which put text before ``hmceval assign --json``'s JSON.
    The C library's buffers are flushed before fd 1 is given back, so nothing leaks later."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        try:
            ctypes.CDLL(None).fflush(None)
        except (OSError, AttributeError):
            pass
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def solve_ilp(inp: SAEInputs, *, lam: float, n_human: int, mode: Mode = "at_most",
              constraints: Constraints | None = None, time_limit: float | None = None) -> Assignment:
    """Solve Eq. 3-4 plus optional constraints as a boolean program (cvxpy + HiGHS, zero gap).

    Raises
    ------
    DataError
        When the constraints admit no assignment, or the solver fails.
    """
    import cvxpy as cp

    check_problem(inp, lam, n_human, mode)
    c = constraints or Constraints()
    m = inp.M
    from core.defaults import MAX_ILP_SAMPLES

    if m > MAX_ILP_SAMPLES:
        raise DataError(f"extra constraints are solved by the general ILP, which takes at most "
                        f"{MAX_ILP_SAMPLES:,} samples; this table has {m:,}. Drop the "
                        "constraints or split the table")
    if c.effort_budget is not None and not math.isfinite(c.effort_budget):
        raise DataError(f"effort budget must be a finite number >= 0, got {c.effort_budget}")
    with np.errstate(over="ignore", invalid="ignore"):
        if not (np.isfinite(lam * inp.l).all() and np.isfinite(lam * inp.k).all()):
            # the solver refused inf with a ValueError (a traceback): say which value
            raise DataError(f"lambda {lam:g} times the effort overflows (it is beyond what a "
                            "float holds); give a smaller --lam")
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
        with native_stdout_silenced():
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
    """Reliability, effort and objective of an assignment (:func:`core.assignment.reliability.assignment_metrics`).

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
    """:func:`core.assignment.reliability.assignment_metrics` of an assignment, from labels encoded once
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
