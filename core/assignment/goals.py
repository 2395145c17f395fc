"""Decide in business units: the cheapest setting that meets a goal (:mod:`core.assignment`).

A manager states a goal, not N and lambda: "the final labels must be 95 % accurate" or "we
have 20 reviewer-hours". :func:`goal_setting` searches the settings (N, lambda) the assignment
can take and returns the cheapest one whose final accuracy meets the target, or the most
accurate one whose effort fits the budget, or says that the goal cannot be met.

What is measured (``basis``):

* ``"gold"`` (when the data has gold labels): the accuracy of the final labels against the gold
  labels, humans taken as right (the accuracy the Trade-off page shows);
* ``"confidence"`` (without gold, or when asked): the *expected* accuracy the confidences
  promise, the mean of the machine's confidence over the samples it keeps and of the human
  confidence (1 by default) over the others.

The effort is the ground-truth human effort when the data has it, else the predicted effort the
optimiser weighs; it is given in its column's unit and, when that unit is a time, in hours.

The settings searched (:func:`goal_grid`) are every budget N (on a 0.5 % grid of M above
400 samples) times the values of lambda at which the assignment changes with every sample
allowed: 0 and the midpoints between consecutive gain/effort ratios (the knapsack's greedy
prefixes), plus the crossings of every two samples' gains when M <= 60 (then every assignment
:func:`core.assignment.solve_fast` can return is among them). Each point is evaluated exactly
by :func:`core.assignment.sweep`, so the returned setting reproduces with ``hmceval assign``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.assignment.model import Mode, SAEInputs
from core.assignment.sweeps import sweep
from core.errors import DataError
from core.format import format_effort, hours_per_unit, pct
from core.summary import UNKNOWN_UNIT, data_effort_unit, effort_unit

__all__ = ["GoalResult", "goal_grid", "goal_setting", "pick_goal", "recommend", "GOAL_KEYS",
           "goal_effort_unit",
           "EXHAUSTIVE_M", "MAX_RATIO_LAMBDAS"]

#: Up to this many samples the grid holds the crossings of every two samples' gains.
EXHAUSTIVE_M = 60
#: The most lambda values taken from the gain/effort ratios (evenly by rank beyond it).
MAX_RATIO_LAMBDAS = 240
#: Up to this many samples every N is tried; above it a 0.5 % grid of M.
ALL_N_M = 400

#: Keys of a goal's JSON form (``hmceval assign --target-accuracy ... --json``: ``"goal"``).
GOAL_KEYS = ("goal", "target", "met", "basis", "effort_basis", "N", "human_share", "lambda",
             "mode", "n_human", "accuracy", "expected_accuracy", "observed_accuracy", "effort",
             "effort_unit", "effort_hours", "effort_share", "message")


@dataclass(frozen=True)
class GoalResult:
    """The setting chosen for a goal.

    Attributes
    ----------
    goal : {"accuracy", "effort"}
        A target accuracy or an effort budget in hours.
    target : float
        The target accuracy (a share) or the budget (hours).
    met : bool
        Whether the setting meets the goal; when not, the setting is the closest one (the most
        accurate of all, for an accuracy out of reach).
    basis : {"gold", "confidence"}
        What ``accuracy`` is (see the module docstring).
    effort_basis : {"observed", "predicted"}
        Ground-truth or predicted effort.
    N, human_share, lambda, mode, n_human
        The setting (``lambda`` is the key of the JSON form; the attribute is ``lam``).
    accuracy : float
        The final accuracy on ``basis``.
    expected_accuracy : float
        What the confidences promise.
    observed_accuracy : float or None
        Against gold (None without gold labels).
    effort : float
        Effort of the samples sent to humans, in ``effort_unit``.
    effort_hours : float or None
        The same in hours (None when the unit is not a time).
    effort_share : float
        ``effort`` over the effort of labelling everything.
    message : str
        The answer in one plain sentence.
    """

    goal: str
    target: float
    met: bool
    basis: str
    effort_basis: str
    N: int
    human_share: float
    lam: float
    mode: str
    n_human: int
    accuracy: float
    expected_accuracy: float
    observed_accuracy: float | None
    effort: float
    effort_unit: str
    effort_hours: float | None
    effort_share: float
    message: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form, keys :data:`GOAL_KEYS` in order."""
        d = asdict(self)
        d["lambda"] = d.pop("lam")
        return {k: d[k] for k in GOAL_KEYS}


def _midpoints(values: np.ndarray) -> np.ndarray:
    v = np.unique(values[np.isfinite(values)])
    if not len(v):
        return v
    mids = (v[:-1] + v[1:]) / 2
    return np.r_[mids, v[-1] * 1.5 + 1e-12]


def goal_grid(inp: SAEInputs, *, mode: Mode = "at_most") -> pd.DataFrame:
    """The settings a goal is looked for in, evaluated (a :func:`core.assignment.sweep` table).

    Lambda: 0, the midpoints between consecutive gain/effort ratios ``(b - a) / (l - k)`` (at
    most :data:`MAX_RATIO_LAMBDAS`, by rank) and above the largest, plus, up to
    :data:`EXHAUSTIVE_M` samples, the midpoints between the lambdas at which two samples' gains
    cross. N: every value up to :data:`ALL_N_M` samples, else a 0.5 % grid of M.
    """
    m = inp.M
    if m == 0:
        raise DataError("the table has no rows: there is no setting to choose")
    gap, cost = inp.b - inp.a, inp.l - inp.k
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(cost > 0, gap / cost, np.nan)
    ratios = ratios[np.isfinite(ratios) & (ratios > 0)]
    lams = [np.array([0.0])]
    mids = _midpoints(ratios)
    if len(mids) > MAX_RATIO_LAMBDAS:
        mids = mids[np.unique(np.linspace(0, len(mids) - 1, MAX_RATIO_LAMBDAS).round().astype(int))]
    lams.append(mids)
    if m <= EXHAUSTIVE_M:
        i, j = np.triu_indices(m, 1)
        dc = cost[i] - cost[j]
        with np.errstate(divide="ignore", invalid="ignore"):
            cross = np.where(dc != 0, (gap[i] - gap[j]) / dc, np.nan)
        cross = cross[np.isfinite(cross) & (cross > 0)]
        lams.append(_midpoints(np.r_[cross, ratios]))
        lams.append(np.unique(np.r_[cross, ratios]) / 2)  # below the first crossing too
    lam_grid = np.unique(np.concatenate(lams))
    lam_grid = lam_grid[np.isfinite(lam_grid) & (lam_grid >= 0)]
    if m <= ALL_N_M:
        ns = np.arange(m + 1)
    else:
        ns = np.unique(np.r_[np.floor(np.linspace(0, 1, 201) * m).astype(int), m])
    return sweep(inp, lams=lam_grid, n_values=ns, mode=mode)


def _columns(grid: pd.DataFrame, inp: SAEInputs, basis: str) -> tuple[np.ndarray, np.ndarray,
                                                                        np.ndarray, str]:
    """(accuracy, effort share, effort in its unit, effort basis) for every grid row."""
    acc = grid["accuracy" if basis == "gold" else "expected_reliability"].to_numpy(float)
    if inp.human_effort is not None:
        share = grid["time_cost"].to_numpy(float)
        total, which = float(inp.human_effort.sum()), "observed"
    else:
        share = grid["time_cost_predicted"].to_numpy(float)
        total, which = float(inp.l.sum()), "predicted"
    share = np.where(np.isfinite(share), share, grid["human_ratio"].to_numpy(float))
    return acc, share, share * total, which


def pick_goal(grid: pd.DataFrame, inp: SAEInputs, *, target_accuracy: float | None = None,
              effort_budget: float | None = None, basis: str = "confidence") -> tuple[int, bool]:
    """The row of ``grid`` that meets a goal at least cost, and whether it meets it.

    Parameters
    ----------
    grid : pandas.DataFrame
        :func:`goal_grid` (or any :func:`core.assignment.sweep` table).
    inp : SAEInputs
    target_accuracy : float, optional
        Least final accuracy: the row of least effort among those that reach it (ties: the
        most accurate, then the fewest samples to humans, then the smallest N). None reaches
        it: the most accurate row.
    effort_budget : float, optional
        Most effort, in the effort's unit: the most accurate row within it (ties: the least
        effort, then the smallest N).
    basis : {"gold", "confidence"}

    Returns
    -------
    (int, bool)
        Position in ``grid`` and whether the goal is met.
    """
    if (target_accuracy is None) == (effort_budget is None):
        raise DataError("give exactly one goal: a target accuracy or an effort budget")
    acc, _, effort, _ = _columns(grid, inp, basis)
    acc_r, eff_r = np.round(acc, 12), np.round(effort, 9)
    n_h, n_b = grid["n_human"].to_numpy(), grid["N"].to_numpy()
    if target_accuracy is not None:
        ok = acc_r >= round(float(target_accuracy), 12)
        if not ok.any():
            order = np.lexsort((n_b, n_h, eff_r, -acc_r))
            return int(order[0]), False
        idx = np.flatnonzero(ok)
        order = np.lexsort((n_b[idx], n_h[idx], -acc_r[idx], eff_r[idx]))
        return int(idx[order[0]]), True
    ok = eff_r <= round(float(effort_budget), 9)
    idx = np.flatnonzero(ok)
    if not len(idx):  # cannot happen with N = 0 in the grid; kept for other grids
        order = np.lexsort((n_b, eff_r))
        return int(order[0]), False
    order = np.lexsort((n_b[idx], n_h[idx], eff_r[idx], -acc_r[idx]))
    return int(idx[order[0]]), True


def _basis(inp: SAEInputs, basis: str) -> str:
    if basis not in ("auto", "gold", "confidence"):
        raise DataError(f"basis must be 'auto', 'gold' or 'confidence', got {basis!r}")
    if basis == "auto":
        return "gold" if inp.human_label is not None else "confidence"
    if basis == "gold" and inp.human_label is None:
        raise DataError("accuracy against gold labels needs a gold label column (human_label)")
    return basis


def goal_effort_unit(data: Any, inp: SAEInputs) -> str:
    """The unit of the effort a goal counts: the ground-truth effort's column when the data has
    one, else the optimiser's (:func:`core.summary.data_effort_unit`)."""
    if inp.human_effort is not None:
        return effort_unit(data.roles.get("human_effort"))
    return data_effort_unit(data)


def _result(grid: pd.DataFrame, pos: int, inp: SAEInputs, *, goal: str, target: float, met: bool,
            basis: str, unit: str, mode: str) -> GoalResult:
    acc, share, effort, which = _columns(grid, inp, basis)
    row = grid.iloc[pos]
    per_h = hours_per_unit(unit)
    hours = None if per_h is None else float(effort[pos]) * per_h
    observed = None if inp.human_label is None else float(row["accuracy"])
    what = "accuracy" if basis == "gold" else "expected accuracy"
    spent = format_effort(float(effort[pos]), unit)
    setting = (f"N = {int(row['N']):,}, λ = {float(row['lambda']):.4g}: {int(row['n_human']):,} "
               f"of {inp.M:,} samples to humans")
    if goal == "accuracy":
        if met:
            msg = (f"The cheapest setting with {what} of at least {pct(target)} is {setting}, "
                   f"{what} {pct(acc[pos])} for {spent} ({pct(share[pos])} of labelling "
                   "everything).")
        else:
            msg = (f"No setting reaches {what} of {pct(target)}: the most is {pct(acc[pos])} "
                   f"({setting}, {spent}).")
    else:
        budget = format_effort(target / per_h if per_h else target, unit)
        msg = (f"The most accurate setting within {budget} is {setting}, {what} "
               f"{pct(acc[pos])} for {spent} ({pct(share[pos])} of labelling everything).")
    return GoalResult(goal=goal, target=float(target), met=bool(met), basis=basis,
                      effort_basis=which, N=int(row["N"]), human_share=float(row["human_share"]),
                      lam=float(row["lambda"]), mode=mode,
                      n_human=int(row["n_human"]), accuracy=float(acc[pos]),
                      expected_accuracy=float(row["expected_reliability"]),
                      observed_accuracy=observed, effort=float(effort[pos]), effort_unit=unit,
                      effort_hours=hours, effort_share=float(share[pos]), message=msg)


def goal_setting(data: Any, *, target_accuracy: float | None = None,
                 effort_budget_hours: float | None = None, basis: str = "auto",
                 mode: Mode = "at_most", inputs: SAEInputs | None = None,
                 grid: pd.DataFrame | None = None) -> GoalResult:
    """The cheapest setting whose final accuracy meets a target, or the most accurate one within
    an effort budget in hours.

    Parameters
    ----------
    data : EvalData
    target_accuracy : float in [0, 1], optional
    effort_budget_hours : float >= 0, optional
        Exactly one of the two. A budget in hours needs effort in a unit of time (a column
        named ``*_seconds``, ``*_minutes``, ...).
    basis : {"auto", "gold", "confidence"}
        ``"auto"``: gold when the data has gold labels, else the confidences.
    mode : {"at_most", "exactly"}
    inputs : SAEInputs, optional
        The data's inputs, when already built.
    grid : pandas.DataFrame, optional
        :func:`goal_grid` of the inputs and mode, when already computed (a page caches it).

    Returns
    -------
    GoalResult

    Raises
    ------
    DataError
        No goal or two, a target outside [0, 1], a negative budget, or a budget in hours on
        effort without a unit of time.
    """
    if (target_accuracy is None) == (effort_budget_hours is None):
        raise DataError("give exactly one goal: a target accuracy or an effort budget in hours")
    inp = inputs if inputs is not None else SAEInputs.from_data(data)
    basis = _basis(inp, basis)
    unit = goal_effort_unit(data, inp)
    if target_accuracy is not None:
        t = float(target_accuracy)
        if not (math.isfinite(t) and 0 <= t <= 1):
            raise DataError(f"the target accuracy must be a share in [0, 1] (0.95 for 95%), got {t}")
        budget = None
    else:
        t = float(effort_budget_hours)
        if not (math.isfinite(t) and t >= 0):
            raise DataError(f"the effort budget must be a number of hours >= 0, got {t}")
        per_h = hours_per_unit(unit)
        if per_h is None:
            raise DataError("an effort budget in hours needs effort in a unit of time; the "
                            f"effort column's unit is unknown ({UNKNOWN_UNIT}): name it "
                            "*_seconds, *_minutes or *_hours, or use --effort-budget in its "
                            "own units")
        budget = t / per_h
    if grid is None:
        grid = goal_grid(inp, mode=mode)
    pos, met = pick_goal(grid, inp, target_accuracy=t if budget is None else None,
                         effort_budget=budget, basis=basis)
    return _result(grid, pos, inp, goal="accuracy" if budget is None else "effort", target=t,
                   met=met, basis=basis, unit=unit, mode=mode)


def recommend(data: Any, current: dict[str, Any], *, inputs: SAEInputs | None = None,
              grid: pd.DataFrame | None = None, basis: str = "auto",
              mode: Mode = "at_most") -> dict[str, Any]:
    """What the current setting loses against the best settings of the grid.

    Parameters
    ----------
    data : EvalData
    current : dict
        The current setting's metrics (:func:`core.assignment.report.assignment_json`).

    Returns
    -------
    dict
        ``same_effort``: the most accurate setting within the current effort
        (:class:`GoalResult` JSON) and ``gain_points`` (its accuracy minus the current, in
        points); ``same_accuracy``: the cheapest setting at least as accurate and
        ``saved_hours`` / ``saved`` (effort saved, hours when a time, else the effort's
        unit); ``sentence``: both in words (None when the current setting is on the frontier).
    """
    inp = inputs if inputs is not None else SAEInputs.from_data(data)
    basis = _basis(inp, basis)
    unit = goal_effort_unit(data, inp)
    if grid is None:
        grid = goal_grid(inp, mode=mode)
    acc_now = float(current["accuracy"] if basis == "gold" else current["expected_reliability"])
    if inp.human_effort is not None:
        share_now = current.get("time_cost")
        total = float(inp.human_effort.sum())
    else:
        share_now = current.get("time_cost_predicted")
        total = float(inp.l.sum())
    if share_now is None or not math.isfinite(float(share_now)):
        share_now = current["n_human"] / inp.M
    eff_now = float(share_now) * total
    p1, _ = pick_goal(grid, inp, effort_budget=eff_now + 1e-9 * max(total, 1), basis=basis)
    p2, _ = pick_goal(grid, inp, target_accuracy=acc_now, basis=basis)
    per_h = hours_per_unit(unit)
    same_effort = _result(grid, p1, inp, goal="effort", target=eff_now * (per_h or 1.0),
                          met=True, basis=basis, unit=unit, mode=mode)
    same_acc = _result(grid, p2, inp, goal="accuracy", target=acc_now, met=True, basis=basis,
                       unit=unit, mode=mode)
    gain = 100 * (same_effort.accuracy - acc_now)
    saved = eff_now - same_acc.effort
    parts = []
    if round(gain, 1) > 0:
        parts.append(f"same effort, +{gain:.1f} points of accuracy (N = {same_effort.N:,}, "
                     f"λ = {same_effort.lam:.4g})")
    if saved > 1e-9 * max(total, 1) and round(100 * saved / total, 1) > 0:
        parts.append(f"same accuracy, {format_effort(saved, unit)} less (N = {same_acc.N:,}, "
                     f"λ = {same_acc.lam:.4g})")
    sentence = ("Against the best settings, the current one loses: " + "; or ".join(parts) + "."
                if parts else None)
    return {"same_effort": same_effort.to_json(), "gain_points": gain,
            "same_accuracy": same_acc.to_json(), "saved": saved,
            "saved_hours": None if per_h is None else saved * per_h, "sentence": sentence}
