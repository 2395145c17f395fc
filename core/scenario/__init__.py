"""The scenario layer: what the user chose as one value, and the services that take it.

Between the front ends (the dashboard's pages, the CLI) and the analyses:

* :mod:`core.scenario.model`: the frozen :class:`Scenario` (dataset content id, column mapping,
  lambda, N, mode, constraints, round settings) with one :attr:`Scenario.key`, built from the
  plain settings dict (:func:`scenario_for`) and back (:func:`settings_of`);
* :mod:`core.scenario.services`: the assignment, lambda range, metrics, sweeps, fairness by
  subgroup and per-turn results of a scenario, through the existing core functions.

No streamlit here; the dashboard keys its caches on :attr:`Scenario.key` (or, for what depends
on the data only, :attr:`Scenario.data_key`).
"""

from core.scenario.model import (SETTING_KEYS, Scenario, data_key, default_settings, exact_key,
                                 scenario_for, settings_differences, settings_of)
from core.scenario.services import (assignment, assignment_report, constraints_of,
                                    fairness_by_group, lambda_range_of, sweep_of, turns_of)

__all__ = ["Scenario", "scenario_for", "settings_of", "default_settings", "data_key",
           "exact_key", "SETTING_KEYS", "settings_differences", "constraints_of", "assignment", "lambda_range_of",
           "assignment_report", "sweep_of", "fairness_by_group", "turns_of"]
