"""The annotator report on hand-worked votes; Fleiss' kappa against statsmodels."""

from __future__ import annotations

import numpy as np
import pytest

from core.evaluation.annotators.report import annotator_report, class_values, describe
from core.evaluation.labels.imports import join_labels
from core.evaluation.labels.form import LabelImport


def _joined(rows, gold=None, seconds=()):
    s, a, lab = zip(*rows)
    imp = LabelImport(source="table", sample_id=s, annotator=a, label=lab,
                      where=tuple(f"row {i}" for i in range(len(rows))), seconds=seconds)
    return join_labels(imp, sample_ids=["1", "2", "3", "4"], classes=["x", "y"],
                       gold_annotator=gold)


def test_hand_worked_report():
    # rows 1: a x, b x, c y -> x; 2: a y, b y -> y; 3: a x alone; 4: a x, b y -> tie
    rows = [("1", "a", "x"), ("1", "b", "x"), ("1", "c", "y"), ("2", "a", "y"), ("2", "b", "y"),
            ("3", "a", "x"), ("4", "a", "x"), ("4", "b", "y")]
    rep = annotator_report(_joined(rows, seconds=(1, 2, 3, 4, 5, 6, 7, 8)), ["x", "y"],
                           n_boot=0)
    per = {p["annotator"]: p for p in rep["per_annotator"]}
    # a: compared on rows 1, 2 (row 3 alone, row 4 tie): agrees on both
    assert per["a"]["items"] == 4 and per["a"]["n_compared"] == 2
    assert per["a"]["agreement_with_aggregate"] == 1.0
    assert per["c"]["agreement_with_aggregate"] == 0.0
    assert per["a"]["median_seconds"] == pytest.approx(np.median([1, 4, 6, 7]))
    # a's confusion against the aggregate (rows: aggregate x, y; columns: a's x, y):
    # row 1 x->x, row 2 y->y, row 3 x->x
    assert per["a"]["confusion"]["matrix"] == [[2, 0], [0, 1]]
    assert per["a"]["agreement_with_gold"] is None
    pair = {tuple(p["annotators"]): p for p in rep["pairwise"]}
    assert pair[("a", "b")]["n_items"] == 3 and pair[("a", "b")]["agreement"] == \
        pytest.approx(2 / 3)
    # a: x, y, x; b: x, y, y -> po 2/3, pe = (2/3)(1/3) + (1/3)(2/3) = 4/9 -> kappa 0.4
    assert pair[("a", "b")]["cohen_kappa"] == pytest.approx(0.4)
    assert rep["n_multi"] == 3 and rep["krippendorff_alpha"]["ci_low"] is None
    assert "Krippendorff's alpha (nominal)" in describe(rep)[0]


def test_gold_annotator_and_class_values():
    rows = [("1", "a", "x"), ("1", "g", "y"), ("2", "a", "y"), ("2", "g", "y")]
    rep = annotator_report(_joined(rows, gold="g"), ["x", "y"], n_boot=0)
    assert rep["n_annotators"] == 1 and rep["n_gold"] == 2
    assert rep["per_annotator"][0]["agreement_with_gold"] == 0.5
    assert class_values(["1", "3"], "interval").tolist() == [1.0, 3.0]
    assert class_values(["lo", "hi"], "ordinal").tolist() == [0.0, 1.0]
    assert class_values([5, 7], "nominal").tolist() == [0.0, 1.0]
