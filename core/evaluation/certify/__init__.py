"""Guarantees on the machine's labels, and their validity measured on known truth.

Parts (import the names below from this package, not from its modules):

* :mod:`core.evaluation.certify.selective`: guarantee mode: the machine's error on the rows it
  keeps is at most alpha.
* :mod:`core.evaluation.certify.overall`: the overall-error guarantee (PAC labels): the final
  labels' error is at most epsilon.
* :mod:`core.evaluation.certify.simulate`: repeated rounds on data with known truth: coverage and
  violation rates.
"""

from core.evaluation.certify.selective import (certify, certify_arrays, CERTIFY_KEYS,
                                               clopper_pearson_upper, required_calibration,
                                               threshold_grid)
from core.evaluation.certify.overall import (certify_overall, certify_overall_arrays,
                                             certify_overall_weighted_arrays, PAC_KEYS,
                                             weighted_beta)
from core.evaluation.certify.simulate import (confidence_implied_errors, simulate_budget,
                                              simulate_certify, simulate_design, validity_table)

__all__ = [
    "CERTIFY_KEYS", "PAC_KEYS", "certify", "certify_arrays", "certify_overall",
    "certify_overall_arrays", "certify_overall_weighted_arrays", "clopper_pearson_upper",
    "confidence_implied_errors", "required_calibration", "simulate_budget", "simulate_certify",
    "simulate_design", "threshold_grid", "validity_table", "weighted_beta"
]
