"""Returned labels in one standard form (``core.evaluation.labels.form``): the
:class:`LabelImport` record's table and times (how ids and labels are written as text is
``core.data.keys``: tests/core/test_data_keys.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from core.evaluation.labels.form import LabelImport


def _imp(**kw):
    base = dict(source="table", sample_id=("1", "1", "2"), annotator=("ann", "bob", "ann"),
                label=("yes", "no", "yes"), where=("row 2", "row 3", "row 4"))
    return LabelImport(**{**base, **kw})


def test_label_import_frame_and_times():
    imp = _imp(seconds=(3.0, float("nan"), 12.5))
    assert imp.n_labels == 3
    f = imp.frame()
    assert list(f.columns) == ["sample_id", "annotator", "label", "seconds"]
    assert f["label"].tolist() == ["yes", "no", "yes"]
    np.testing.assert_array_equal(f["seconds"].to_numpy(), [3.0, np.nan, 12.5])
    # a source without times: NaN on every label, not an error
    assert np.isnan(_imp().times()).all() and len(_imp().times()) == 3
    # times of the wrong length are not spread over the labels
    assert np.isnan(_imp(seconds=(1.0,)).times()).all()


def test_label_import_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _imp().label = ("x",)
