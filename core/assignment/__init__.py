"""The assignment: which samples go to humans and which to the machine, and what that gives.

The product's central concept in one package with named parts (a part imports only the parts
listed before it, never this package):

* :mod:`core.assignment.reliability`: the reliability and effort metrics of an assignment
  (macro precision/recall/F1, accuracy, human ratio, time cost) and the collaborative labels;
* :mod:`core.assignment.cells`: :class:`GainCells`, bounds on the gains of cells of similar
  effort and confidence gap, built once per inputs for the sweeps;
* :mod:`core.assignment.model`: the sample assignment ILP (its docstring holds the derivation
  and the tie rule): :class:`SAEInputs`, :func:`solve_fast`, :func:`solve_ilp`, :func:`solve`,
  :func:`evaluate`, and :func:`constraints_from_settings`, the one place a user's extra
  constraints become :class:`Constraints`;
* :mod:`core.assignment.lambdas`: the range of lambda over which an assignment changes,
  whatever the effort's unit (:func:`lambda_range`, :func:`lambda_grid`);
* :mod:`core.assignment.sweeps`: grids of lambda x N, exact, without one solve per point;
* :mod:`core.assignment.report`: one assignment run and its JSON/table form (``hmceval assign``
  and the Trade-off page), the per-class table;
* :mod:`core.assignment.turns`: per-turn analysis of an assignment (the paper's Figure 6);
* :mod:`core.assignment.goals`: the cheapest setting that meets a goal (a target accuracy or
  an effort budget in hours) and what the current setting loses against the best ones.

``from core.assignment import solve_fast`` (or any name below) reads the part's name.
"""

from core.assignment.reliability import (RELIABILITY_KEYS, assignment_metrics,
                                         classification_scores, collaborative_labels,
                                         confusion_counts, per_class_table, scores_from_confusion)
from core.assignment.cells import GainCells
from core.assignment.model import (METRIC_COLUMNS, Assignment, Constraints, LabelCodes, Mode,
                                   SAEInputs, constraints_from_settings, evaluate, gains,
                                   n_from_share, objective_value, solve, solve_fast, solve_ilp)
from core.assignment.lambdas import LAMBDA_STEPS, LambdaRange, lambda_grid, lambda_range
from core.assignment.sweeps import sweep
from core.assignment.report import (ASSIGN_KEYS, assignment_json, assignment_table,
                                    lambda_range_json, per_class_report, run_assignment)
from core.assignment.goals import (GOAL_KEYS, GoalResult, goal_effort_unit, goal_grid,
                                   goal_setting, pick_goal, recommend)
from core.assignment.turns import (TURN_KEYS, TurnBase, bootstrap_confusion, bootstrap_scores,
                                   per_turn, per_turn_for, per_turn_from, turn_base, turn_base_for)

__all__ = [
    # reliability
    "RELIABILITY_KEYS", "collaborative_labels", "confusion_counts", "scores_from_confusion",
    "classification_scores", "per_class_table", "assignment_metrics",
    # cells
    "GainCells",
    # model
    "SAEInputs", "LabelCodes", "Mode", "Constraints", "constraints_from_settings", "Assignment",
    "gains", "n_from_share", "solve", "solve_fast", "solve_ilp", "objective_value", "evaluate",
    "METRIC_COLUMNS",
    # lambdas
    "LambdaRange", "lambda_range", "lambda_grid", "LAMBDA_STEPS",
    # sweep
    "sweep",
    # report
    "run_assignment", "assignment_json", "assignment_table", "per_class_report",
    "lambda_range_json", "ASSIGN_KEYS",
    # turns
    "TURN_KEYS", "TurnBase", "turn_base", "turn_base_for", "per_turn", "per_turn_from",
    "per_turn_for", "bootstrap_scores", "bootstrap_confusion",
    # goals
    "GOAL_KEYS", "GoalResult", "goal_effort_unit", "goal_grid", "goal_setting", "pick_goal", "recommend",
]
