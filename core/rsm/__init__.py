"""RSMTool's statistics: agreement between an evaluator and the gold (human) scores, true-score
metrics, fairness analyses and the whole report, in RSMTool's conventions.

Every function follows the definitions of ``../shared/reference/rsmtool-evaluation-metrics.txt``
(RSMTool 7+, SKLL's kappa) including their edge cases:

* percent exact / exact + adjacent agreement compare the scores as given (``|M - H| <= tol``);
* Cohen's kappa rounds both sides half to even to integers (SKLL), the label range runs from the
  lowest to the highest label over both raters and kappa is 1 when only one label occurs;
* quadratic weighted kappa is Haberman's continuous formula with ``ddof=0``;
* Pearson r is NaN for fewer than 2 responses or when either side is constant;
* SMD is ``(mean M - mean H) / denominator`` with sds of ``ddof=1``; NaN when the denominator
  is exactly 0;
* R2 is ``sklearn.metrics.r2_score`` (what RSMTool calls): ``1 - SS_res / SS_tot`` with the
  ``force_finite`` convention (1.0 when the human scores are constant and predicted exactly,
  0.0 when constant and not), NaN for a single response;
* the true-score metrics (rater error variance, true-score variance, MSE(T|M), PRMSE) use the
  general formulas for any number of ratings per response; they are *missing* (``None``) when no
  response has two or more ratings, which is distinct from NaN;
* DSM is the mean of ``z_M - z_H`` with the whole evaluation set's means and sds (``ddof=1``);
  missing (``None``) when either population sd is within ``1e-7`` of 0.

The table functions take the responses as given. :func:`agreement_report` (the command line and
the dashboard) first selects the responses as rsmeval does (:mod:`core.rsm.responses`): missing,
non-numeric and, by default (RSMTool's ``exclude_zero_scores: true``), zero human scores exclude
their response, and the report says how many; HMCEval's 0/1 labels need
``exclude_zero_scores=False``. Result tables use RSMTool's column names (:data:`EVAL_COLUMNS`,
:data:`CONSISTENCY_COLUMNS`; :data:`TRUE_SCORE_COLUMNS` with :data:`TRUE_SCORE_RSMTOOL_NAMES`).

Parts, from the bottom up (each imports only the ones above it in this list):

* :mod:`core.rsm.checks`: input checks (score arrays, pairs, subgroup labels, numeric columns,
  score magnitude);
* :mod:`core.rsm.metrics`: observed-score metrics (agreement, kappa, QWK, r, SMD, RMSE, R2, DSM);
* :mod:`core.rsm.true_score`: rater error variance, true-score variance, MSE(T|M), PRMSE;
* :mod:`core.rsm.fairness`: the three OLS fairness analyses and the collaborative result by
  subgroup (see its docstring for the conventions);
* :mod:`core.rsm.responses`: which responses rsmeval evaluates (flags, zero and non-numeric
  scores, candidates) and its trimmed scores;
* :mod:`core.rsm.io`: RSMTool's JSON lines reader (nested objects flattened);
* :mod:`core.rsm.degradation`: degradation and disattenuated correlations;
* :mod:`core.rsm.report`: RSMTool's tables (eval, consistency, true score, degradation,
  disattenuated correlations, by subgroup with the whole set first as ``"All data"``) and
  :func:`evaluation_report`, the one report the command line and the dashboard print;
* :mod:`core.rsm.compare`: what the dashboard compares (machine, collaborative result, raters);
* :mod:`core.rsm.rsmeval`: every table of an rsmeval experiment, as rsmeval names, shapes and
  writes them (csv, tsv, xlsx).

Annotators' agreement with one another (Cohen's and Fleiss' kappa over returned labels) is a
different subject: :mod:`core.evaluation.annotators.agreement`.
"""

from __future__ import annotations

from core.rsm.checks import MAX_GROUPS, MAX_SCORE, by_label, group_order
from core.rsm.metrics import (
    DSM_TOLERANCE, round_half_even, agreement, exact_agreement, adjacent_agreement, cohen_kappa,
    quadratic_weighted_kappa, pearson_r, standardized_mean_difference, mean_squared_error,
    root_mean_squared_error, r2_score, difference_of_standardized_means, dsm_by_group,
)
from core.rsm.true_score import variance_of_errors, true_score_variance, mse_true, prmse_true
from core.rsm.fairness import (
    ESTIMATE_COLUMNS, ANALYSES, MAX_SCORE_LEVELS, ASSIGNMENT_GROUP_COLUMNS, fairness_analyses,
    estimates_frame, assignment_by_group,
)
from core.rsm.responses import (
    TRIM_TOLERANCE, MAX_MIN_ITEMS, EXCLUSION_REASONS, NO_INFO, trim_scores, select_responses,
)
from core.rsm.report import (
    EVAL_COLUMNS, EVAL_BY_GROUP_COLUMNS, CONSISTENCY_COLUMNS, CONSISTENCY_BY_GROUP_COLUMNS,
    TRUE_SCORE_COLUMNS, TRUE_SCORE_RSMTOOL_NAMES, COLUMN_DESCRIPTIONS, PERCENT_COLUMNS, eval_metrics,
    eval_by_group, consistency_metrics, consistency_by_group, true_score_metrics, evaluation_report,
    agreement_report,
)
from core.rsm.degradation import (
    ALL_DATA, DEGRADATION_COLUMNS, DISATTENUATED_COLUMNS, degradation, disattenuated_correlation,
)
from core.rsm.compare import (
    COMPARISONS, GOLD, SECOND, SYSTEM, label_scores, comparison_frame, subgroup_choices,
    labels_ordered, ORDINAL_STATISTICS, NOMINAL_NOTE, nominal_only, subgroup_rows,
)

__all__ = [
    "EVAL_COLUMNS",
    "EVAL_BY_GROUP_COLUMNS",
    "CONSISTENCY_COLUMNS",
    "TRUE_SCORE_COLUMNS",
    "TRUE_SCORE_RSMTOOL_NAMES",
    "COLUMN_DESCRIPTIONS",
    "PERCENT_COLUMNS",
    "CONSISTENCY_BY_GROUP_COLUMNS",
    "TRIM_TOLERANCE",
    "MAX_MIN_ITEMS",
    "MAX_SCORE",
    "EXCLUSION_REASONS",
    "NO_INFO",
    "trim_scores",
    "select_responses",
    "DSM_TOLERANCE",
    "MAX_GROUPS",
    "round_half_even",
    "agreement",
    "exact_agreement",
    "adjacent_agreement",
    "cohen_kappa",
    "quadratic_weighted_kappa",
    "pearson_r",
    "standardized_mean_difference",
    "mean_squared_error",
    "root_mean_squared_error",
    "r2_score",
    "variance_of_errors",
    "true_score_variance",
    "mse_true",
    "prmse_true",
    "difference_of_standardized_means",
    "dsm_by_group",
    "eval_metrics",
    "eval_by_group",
    "consistency_metrics",
    "consistency_by_group",
    "ALL_DATA",
    "DEGRADATION_COLUMNS",
    "DISATTENUATED_COLUMNS",
    "degradation",
    "disattenuated_correlation",
    "true_score_metrics",
    "group_order",
    "by_label",
    "evaluation_report",
    "agreement_report",
    "ESTIMATE_COLUMNS",
    "ANALYSES",
    "MAX_SCORE_LEVELS",
    "ASSIGNMENT_GROUP_COLUMNS",
    "fairness_analyses",
    "estimates_frame",
    "assignment_by_group",
    "COMPARISONS",
    "label_scores",
    "comparison_frame",
    "subgroup_choices",
    "labels_ordered",
    "ORDINAL_STATISTICS",
    "NOMINAL_NOTE",
    "nominal_only",
    "subgroup_rows",
    "GOLD",
    "SYSTEM",
    "SECOND",
]
