"""A round's result: class shares and accuracy with intervals, fixed-n or anytime.

Parts (import the names below from this package, not from its modules):

* :mod:`core.evaluation.estimate.shares`: difference estimators and exact bounds for routed/audited
  rounds.
* :mod:`core.evaluation.estimate.weighted`: estimators for rounds planned with inclusion
  probabilities.
* :mod:`core.evaluation.estimate.controls`: the candidate controls of the weighted estimators,
  fitted leave-one-out.
* :mod:`core.evaluation.estimate.weighted_round`: a round's table into the weighted estimators; by
  group; worse groups.
* :mod:`core.evaluation.estimate.anytime`: confidence sequences for a labelling stream.
* :mod:`core.evaluation.estimate.anytime_words`: plain words for a stream's result.
* :mod:`core.evaluation.estimate.sequences`: the asymptotic (GLIDE) and betting confidence
  sequences.
* :mod:`core.evaluation.estimate.expected_width`: the half-width the weighted estimate is
  expected to report for a planned design (a plan's ``width_model``).
"""

from core.evaluation.estimate.shares import (AUDIT, check_selection, estimate, estimate_codes,
                                             gold_column_note, MACHINE, ROUTED)
from core.evaluation.estimate.weighted import (accuracy_from_total, DEFAULT_CONTROL, FLEX_LABELS,
                                               degrees_of_freedom, MIN_LABELS, PRIOR_DF,
                                               settled_accuracy, share_entry, t_quantile,
                                               weighted_estimates, weighted_total, worse_groups)
from core.evaluation.estimate.controls import PRIOR_ROWS
from core.evaluation.estimate.weighted_round import (ESTIMATE_KEYS, group_accuracy,
                                                     stream_design_estimate, worse_group_sentence)
from core.evaluation.estimate.anytime import anytime_estimate, parse_decision
from core.evaluation.estimate.anytime_words import (decide_expression, focus_interval, focus_name,
                                                    question_words, SEQUENCE_HELP, stream_focus,
                                                    stream_verdict, trace_looks)
from core.evaluation.estimate.sequences import labels_for_half_width
from core.evaluation.estimate.two_stage import (pilot_fit_weights, pilot_half_width,
                                                two_stage_estimates)
from core.evaluation.estimate.expected_width import estimator_half_width

__all__ = [
    "AUDIT", "DEFAULT_CONTROL", "ESTIMATE_KEYS", "FLEX_LABELS", "MACHINE", "MIN_LABELS", "PRIOR_DF",
    "PRIOR_ROWS", "ROUTED", "SEQUENCE_HELP", "accuracy_from_total", "anytime_estimate",
    "check_selection", "decide_expression", "degrees_of_freedom", "estimate", "estimate_codes",
    "estimator_half_width",
    "focus_interval", "focus_name", "settled_accuracy",
    "gold_column_note", "group_accuracy", "labels_for_half_width", "parse_decision",
    "pilot_fit_weights", "pilot_half_width",
    "question_words", "share_entry", "stream_design_estimate", "stream_focus", "stream_verdict",
    "t_quantile", "trace_looks", "two_stage_estimates", "weighted_estimates", "weighted_total",
    "worse_group_sentence", "worse_groups"
]
