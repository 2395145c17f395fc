"""Running a real evaluation round, one package per step of the round.

* :mod:`core.evaluation.sampling`: who labels which row: routing, the active design, a labelling
  stream, the plan and its expectations, the draw, what annotators see.
* :mod:`core.evaluation.labelstudio`: the queue as a Label Studio project, its export read back,
  the REST client (the only network access).
* :mod:`core.evaluation.labels`: labels coming back, kept across imports, joined to the rows.
* :mod:`core.evaluation.annotators`: agreement, aggregation of several labels, annotator error.
* :mod:`core.evaluation.certify`: the selective and overall-error guarantees, and their
  validity measured on data with known truth.
* :mod:`core.evaluation.estimate`: the result: class shares and accuracy with intervals, fixed-n
  or valid at every look (a stream).

Each package has one public face: code outside it imports from the package
(``from core.evaluation.sampling import plan_queue``), never from its modules; the modules of
``core.evaluation`` import one another by module, so that no package waits on another's face.
This package itself re-exports nothing.
"""
