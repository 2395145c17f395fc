"""Who labels which row: the designs of a round, its plan and its draws.

Parts (import the names below from this package, not from its modules):

* :mod:`core.evaluation.sampling.design`: the ``selection`` of every row (calibration, routed,
  audit, machine), a round's table, routing (``plan_queue``).
* :mod:`core.evaluation.sampling.active`: the active design: inclusion probabilities, the frontier
  and the recommended design.
* :mod:`core.evaluation.sampling.plan`: ``plan_design``: a round planned with the active or random
  design, earlier labels carried.
* :mod:`core.evaluation.sampling.forecast`: what a design's expectations rest on: calibrated
  probabilities, PPI++'s expected half-width.
* :mod:`core.evaluation.sampling.plan_range`: the range of the plan's expectations under
  miscalibrated confidences; planned against realised.
* :mod:`core.evaluation.sampling.audit`: an audit's expected interval width and the audit size a
  target width needs.
* :mod:`core.evaluation.sampling.draw`: the Poisson draw of a planned round and the checks of its
  probabilities.
* :mod:`core.evaluation.sampling.stratified`: the active design planned separately in each group.
* :mod:`core.evaluation.sampling.stream`: a labelling stream: a successive sample with known
  per-draw probabilities.
* :mod:`core.evaluation.sampling.two_batch`: two batches, a pilot and the rest planned on its
  labels.
* :mod:`core.evaluation.sampling.promises`: what a plan promises before any label: the targets
  note, plain random labelling where the active design would give a looser interval than PPI++.
* :mod:`core.evaluation.sampling.blind`: what annotators see: an allow-list of columns.
"""

from core.evaluation.sampling.design import (add_audit, annotator_table, coded_classes, Design,
                                             EarlierLabels, LABELLED, load_design, plan_queue,
                                             queue_order, queue_table, QueuePlan,
                                             SELECTIONS)
from core.evaluation.sampling.active import (active_design, ActiveDesign, compared_with,
                                             DEFAULT_FLOOR, DEFAULT_WIDTH_RATIO, design_frontier,
                                             FLOOR_LABELS, machine_probabilities,
                                             PROBABILITY_COLUMN, TAIL_FLOORS)
from core.evaluation.sampling.plan import plan_design
from core.evaluation.sampling.forecast import calibrated_probabilities, MIN_CALIBRATION_LABELS
from core.evaluation.sampling.plan_range import (combined_half_width, planned_vs_realised,
                                                 range_sentence)
from core.evaluation.sampling.audit import (audit_size_for_half_width, default_audit,
                                            expected_half_width, srs_half_width,
                                            srs_size_for_half_width, z_value)
from core.evaluation.sampling.draw import check_probabilities, draw, DRAW_SALT, earlier_stage
from core.evaluation.sampling.stratified import plan_stratified
from core.evaluation.sampling.stream import (DEFAULT_STREAM_DESIGN, DRAW_PROBABILITY, draw_stream,
                                             DRAW_WEIGHT, replan_stream, STREAM_DESIGNS,
                                             stream_weights, StreamPlan)
from core.evaluation.sampling.two_batch import (combined_design, pilot_probabilities, PILOT_SHARE,
                                                PILOT_TILT, second_batch, with_half_width)
from core.evaluation.sampling.promises import (prefer_random, random_labels_half,
                                               target_note)
from core.evaluation.sampling.blind import showable_columns, shown_columns

__all__ = [
    "ActiveDesign", "DEFAULT_FLOOR", "DEFAULT_STREAM_DESIGN", "DEFAULT_WIDTH_RATIO",
    "DRAW_PROBABILITY", "DRAW_SALT", "DRAW_WEIGHT", "Design", "EarlierLabels", "FLOOR_LABELS",
    "LABELLED", "MIN_CALIBRATION_LABELS", "PILOT_SHARE", "PILOT_TILT", "PROBABILITY_COLUMN",
    "QueuePlan", "SELECTIONS", "STREAM_DESIGNS", "StreamPlan", "TAIL_FLOORS", "active_design",
    "add_audit", "annotator_table", "queue_order", "audit_size_for_half_width",
    "calibrated_probabilities", "check_probabilities", "coded_classes", "combined_design",
    "combined_half_width", "compared_with", "default_audit", "design_frontier", "draw",
    "draw_stream", "earlier_stage", "expected_half_width", "load_design",
    "machine_probabilities",
    "pilot_probabilities", "plan_design", "prefer_random",
    "random_labels_half", "plan_queue", "plan_stratified", "planned_vs_realised",
    "queue_table", "range_sentence", "replan_stream", "second_batch", "showable_columns",
    "shown_columns", "srs_half_width", "srs_size_for_half_width", "stream_weights", "target_note",
    "with_half_width", "z_value"
]
