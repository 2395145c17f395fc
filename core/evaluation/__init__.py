"""Running a real evaluation round: plan who labels what, certify, estimate with intervals.

Parts:

* :mod:`core.evaluation.design`: the ``selection`` of every row (calibration, routed, audit,
  machine), loading a round's table, planning the annotation queue.
* :mod:`core.evaluation.guarantee`: guarantee mode, a finite-sample certificate that the
  machine's error rate on the rows it keeps is at most alpha.
* :mod:`core.evaluation.estimate`: the final class shares and accuracy with their intervals.
* :mod:`core.evaluation.planner`: the interval width an audit will give, the audit a target
  width needs.
* :mod:`core.evaluation.labelstudio`: the queue as Label Studio tasks and labelling config.
* :mod:`core.evaluation.imports`: labels coming back (a CSV or a Label Studio export), joined by
  sample id, several annotators resolved, written into the round's table; its parts
  :mod:`core.evaluation.labels` (:class:`~core.evaluation.labels.LabelImport`, ``label_key``:
  ids and labels as text), :mod:`core.evaluation.ls_export` (reading a Label Studio export) and
  :mod:`core.evaluation.agreement` (Cohen's and Fleiss' kappa, majority vote).
* :mod:`core.evaluation.ls_client`: the Label Studio REST client (the only network access).
* :mod:`core.evaluation.simulate`: repeated rounds on data with known truth (coverage,
  violation rates).
"""
