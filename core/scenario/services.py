"""Services that take a :class:`core.scenario.Scenario` and return plain results.

Each calls the one core function of its analysis (nothing is computed twice here): the extra
constraints (:func:`core.assignment.constraints_from_settings`), the assignment
(:func:`core.assignment.solve`), its lambda range, its metrics object
(:func:`core.assignment.assignment_json`), the sweeps (:func:`core.assignment.sweep`), the
collaborative result by subgroup (:func:`core.rsm.assignment_by_group`) and per turn
(:func:`core.assignment.per_turn_from`). The dashboard caches them on the scenario's key.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from core.assignment import (Assignment, Constraints, LambdaRange, SAEInputs, TurnBase,
                             assignment_json, constraints_from_settings, lambda_range,
                             per_turn_from, solve, sweep)
from core.rsm import assignment_by_group
from core.scenario.model import Scenario

__all__ = ["constraints_of", "assignment", "lambda_range_of", "assignment_report", "sweep_of",
           "fairness_by_group", "turns_of"]


def constraints_of(data: Any, scenario: Scenario) -> Constraints | None:
    """The scenario's extra constraints resolved against ``data`` (None when unset).

    Raises
    ------
    DataError
        Settings the data refuses, naming the subgroup or value.
    """
    cons = scenario.constraints
    return constraints_from_settings(data, effort_budget_share=cons["effort_budget_share"],
                                     group_column=cons["group_column"],
                                     group_bounds=cons["group_bounds"])


def assignment(inputs: SAEInputs, scenario: Scenario,
               constraints: Constraints | None = None) -> Assignment:
    """The assignment of the scenario (``constraints``: :func:`constraints_of`, when set)."""
    return solve(inputs, lam=scenario.lam, n_human=scenario.n_human, mode=scenario.mode,
                 constraints=constraints)


def lambda_range_of(inputs: SAEInputs, scenario: Scenario) -> LambdaRange:
    """The lambda over which the assignment changes at the scenario's N and mode."""
    return lambda_range(inputs, n_human=scenario.n_human, mode=scenario.mode)


def assignment_report(data: Any, inputs: SAEInputs, result: Assignment, *,
                      lam_range: LambdaRange | None = None) -> dict[str, Any]:
    """The metrics object of an assignment (``hmceval assign --json``)."""
    return assignment_json(data, inputs, result, lam_range=lam_range)


def sweep_of(inputs: SAEInputs, scenario: Scenario, *, lams: Sequence[float] | None = None,
             shares: Sequence[float] | None = None, n_values: Sequence[int] | None = None,
             mode: str | None = None) -> pd.DataFrame:
    """A lambda x N grid around the scenario: ``lams`` (default its lambda) times ``shares`` or
    ``n_values`` (default its N), in ``mode`` (default its mode)."""
    if shares is None and n_values is None:
        n_values = [scenario.n_human]
    return sweep(inputs, lams=list(lams) if lams is not None else [scenario.lam],
                 shares=None if shares is None else list(shares),
                 n_values=None if n_values is None else list(n_values),
                 mode=mode or scenario.mode)


def fairness_by_group(data: Any, human: np.ndarray, column: str) -> pd.DataFrame:
    """The collaborative result of an assignment (``human``) by the subgroups of ``column``."""
    fr = data.frame
    return assignment_by_group(
        human, fr[column].to_numpy(), machine_label=fr["machine_label"].to_numpy(),
        human_label=fr["human_label"].to_numpy() if "human_label" in fr else None,
        human_effort=fr["human_effort"].to_numpy() if "human_effort" in fr else None)


def turns_of(base: TurnBase, human: np.ndarray) -> pd.DataFrame:
    """Per-turn reliability and effort of an assignment (``human``) on a turn base."""
    return per_turn_from(base, human)
