"""Returned labels in one standard form, and how sample ids and labels are compared as text.

:class:`LabelImport` is what both readers give (a table: :func:`core.evaluation.labels.imports.
labels_from_table`; a Label Studio export: :func:`core.evaluation.labelstudio.export.
labels_from_labelstudio`) before the labels are joined to a dataset. :func:`core.data.keys.label_key`
(the ground floor: every step of a round keys rows and classes by it) is the one way a sample id,
a label or a group value is written as text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["LabelImport"]


@dataclass(frozen=True)
class LabelImport:
    """Labels read from one file, not yet joined to a dataset.

    Attributes
    ----------
    source : {"table", "labelstudio"}
        Where the labels come from.
    sample_id : tuple of str, length L
        The sample id of each label, as text.
    annotator : tuple of str, length L
        Who gave each label (``""`` when the table has no annotator column).
    label : tuple of str, length L
        The label as text (a Label Studio choice value, a table cell).
    where : tuple of str, length L
        Where each label was read (``"row 5"`` of the table, ``"task 17"`` of the export), for
        error messages.
    skipped : tuple of (str, str, str)
        ``(sample_id, annotator, where)`` of every skipped or cancelled annotation.
    unannotated : tuple of str
        Sample ids of Label Studio tasks that nobody has annotated yet.
    n_tasks : int
        Tasks in the export, rows in the table.
    notices : tuple of str
        Plain-words remarks about what was read or left out.
    seconds : tuple of float, length L (or empty)
        The time each label took, in seconds (Label Studio's ``lead_time``, a table's time
        column), NaN where unknown; empty when the source records no time.
    """

    source: str
    sample_id: tuple[str, ...]
    annotator: tuple[str, ...]
    label: tuple[str, ...]
    where: tuple[str, ...]
    skipped: tuple[tuple[str, str, str], ...] = ()
    unannotated: tuple[str, ...] = ()
    n_tasks: int = 0
    notices: tuple[str, ...] = ()
    seconds: tuple[float, ...] = ()

    @property
    def n_labels(self) -> int:
        """Number of labels (one per sample and annotator)."""
        return len(self.label)

    def times(self) -> np.ndarray:
        """The seconds of every label, shape (L,), NaN where unknown."""
        if len(self.seconds) == len(self.label):
            return np.asarray(self.seconds, dtype=float)
        return np.full(len(self.label), np.nan)

    def frame(self) -> pd.DataFrame:
        """The labels as a table with columns ``sample_id``, ``annotator``, ``label``,
        ``seconds`` (NaN where unknown)."""
        return pd.DataFrame({"sample_id": list(self.sample_id),
                             "annotator": list(self.annotator), "label": list(self.label),
                             "seconds": self.times()})
