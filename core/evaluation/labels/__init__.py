"""Labels coming back: read, kept across imports, joined to a round's rows.

Parts (import the names below from this package, not from its modules):

* :mod:`core.evaluation.labels.form`: ``LabelImport``, the one form both readers give;
  ``label_key``.
* :mod:`core.evaluation.labels.imports`: returned labels read, joined by sample id and written into
  the round's table.
* :mod:`core.evaluation.labels.votes`: every annotator's label kept across imports.
"""

from core.evaluation.labels.form import LabelImport
from core.evaluation.labels.imports import (apply_labels, join_labels, labels_from_table,
                                            refuse_outside_queue)
from core.evaluation.labels.votes import (check_seconds, merge_votes, read_votes, votes_import,
                                          votes_path, write_votes)

__all__ = [
    "LabelImport", "apply_labels", "check_seconds", "join_labels", "labels_from_table",
    "merge_votes", "read_votes", "refuse_outside_queue", "votes_import", "votes_path", "write_votes"
]
