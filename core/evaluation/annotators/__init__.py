"""The annotators: agreement, aggregation of several labels, their error in a result.

Parts (import the names below from this package, not from its modules):

* :mod:`core.evaluation.annotators.agreement`: Cohen's and Fleiss' kappa, majority vote.
* :mod:`core.evaluation.annotators.alpha`: Krippendorff's alpha with a bootstrap interval.
* :mod:`core.evaluation.annotators.aggregate`: majority vote and Dawid-Skene with gold items.
* :mod:`core.evaluation.annotators.report`: ``annotator_report``: agreement, per-annotator quality
  and time.
* :mod:`core.evaluation.annotators.noise`: annotator error measured and corrected for in a round's
  estimates.
* :mod:`core.evaluation.annotators.label_error`: the error of the labels a round uses, from one
  annotator's error.
"""

from core.evaluation.annotators.aggregate import AGGREGATES
from core.evaluation.annotators.report import annotator_report, describe
from core.evaluation.annotators.noise import (annotator_copies, correct_estimate, DOUBLE_COLUMN,
                                              draw_double, draw_labels, error_from_pairs,
                                              error_from_votes, given_error, mark_uncorrected,
                                              simulate_noise, symmetric_confusion)
from core.evaluation.annotators.label_error import labels_error

__all__ = [
    "AGGREGATES", "DOUBLE_COLUMN", "annotator_copies", "annotator_report", "correct_estimate",
    "describe", "draw_double", "draw_labels", "error_from_pairs", "error_from_votes", "given_error",
    "labels_error", "mark_uncorrected", "simulate_noise", "symmetric_confusion"
]
