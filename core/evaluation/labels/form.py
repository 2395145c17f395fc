"""Returned labels in one standard form, and how sample ids and labels are compared as text.

:class:`LabelImport` is what both readers give (a table: :func:`core.evaluation.labels.imports.
labels_from_table`; a Label Studio export: :func:`core.evaluation.labelstudio.export.
labels_from_labelstudio`) before the labels are joined to a dataset. :func:`label_key` is the
one way a sample id, a label or a group value is written as text, so that the integer ids of a
table match the strings of a CSV or of Label Studio, and the keys of an estimate
(:func:`core.evaluation.estimate.shares.estimate`) read as a user wrote the class.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["LabelImport", "label_key", "is_missing", "some_values"]


def label_key(v: Any, *, strip: bool = True) -> str:
    """A sample id, label or group value as text.

    Parameters
    ----------
    v : object
        One value (a Python or numpy scalar, a string).
    strip : bool, default=True
        Strip surrounding white space from a string (a cell a user typed). An estimate's group
        keys keep the value as written (``strip=False``), so that ``"a "`` and ``"a"`` stay two
        groups.

    Returns
    -------
    str
        Integral finite floats lose their ``.0`` (CSV readers turn an integer column with gaps
        into floats: ``2.0`` -> ``"2"``), numpy integers and booleans read as Python's
        (``np.int64(3)`` -> ``"3"``, ``np.True_`` -> ``"True"``), anything else is ``str(v)``.
    """
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, np.integer):
        return str(int(v))
    return str(v).strip() if strip else str(v)


def is_missing(v: Any) -> bool:
    """True for an empty cell: None, ``pd.NA``, ``pd.NaT``, NaN or a blank string."""
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, (float, np.floating)) and math.isnan(v):
        return True
    return isinstance(v, str) and not v.strip()


def some_values(items: Sequence[Any], limit: int = 5) -> str:
    """The first ``limit`` items for a message (strings quoted), then ``and N more``."""
    items = list(items)
    shown = ", ".join(repr(x) if isinstance(x, str) else str(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


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
