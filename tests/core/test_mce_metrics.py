"""Confidence-quality metrics: hand-computed values, edge cases and the paper's Table 3 (TS)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from core.errors import DataError
from core.mce.metrics import (
    aurc,
    confidence_auc,
    confidence_report,
    confidence_roc_curve,
    correctness,
    expected_calibration_error,
    n_top,
    reliability_bins,
    risk_coverage_curve,
    top_k_accuracy,
)

# Six samples, by decreasing confidence: correct, correct, wrong, correct, wrong, correct.
# Rows are stored in a shuffled order so that nothing relies on the input being sorted.
_CONF_SORTED = [0.95, 0.85, 0.75, 0.55, 0.35, 0.15]
_OK_SORTED = [True, True, False, True, False, True]
_PERM = [3, 0, 5, 2, 4, 1]


def _example():
    conf = [_CONF_SORTED[i] for i in _PERM]
    ok = [_OK_SORTED[i] for i in _PERM]
    y_true = ["Safe" if i % 2 else "Unsafe" for i in range(6)]
    flip = {"Safe": "Unsafe", "Unsafe": "Safe"}
    y_pred = [t if good else flip[t] for t, good in zip(y_true, ok)]
    return y_true, y_pred, conf


def test_correctness():
    y_true, y_pred, _ = _example()
    assert correctness(y_true, y_pred).tolist() == [_OK_SORTED[i] for i in _PERM]


def test_auc_by_hand():
    # correct: .95 .85 .55 .15, wrong: .75 .35 -> pairs won: 2 + 2 + 1 + 0 = 5 of 8
    y_true, y_pred, conf = _example()
    assert confidence_auc(y_true, y_pred, conf) == pytest.approx(5 / 8, abs=1e-12)


def test_auc_equals_sklearn_with_ties():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 3, 300)
    y_pred = np.where(rng.random(300) < 0.7, y_true, (y_true + 1) % 3)
    conf = np.round(rng.random(300), 1)  # many ties
    ref = roc_auc_score(y_true == y_pred, conf)
    assert confidence_auc(y_true, y_pred, conf) == pytest.approx(ref, abs=1e-12)


def test_top_accuracy_by_hand():
    y_true, y_pred, conf = _example()
    assert top_k_accuracy(y_true, y_pred, conf, top=0.5) == pytest.approx(2 / 3)
    assert top_k_accuracy(y_true, y_pred, conf, top=1 / 3) == 1.0
    assert top_k_accuracy(y_true, y_pred, conf, top=1.0) == pytest.approx(4 / 6)


def test_top_accuracy_ties_by_row_order():
    y_true = [0, 0, 0, 0]
    conf = [0.5, 0.5, 0.5, 0.5]
    assert top_k_accuracy(y_true, [1, 0, 1, 0], conf, top=0.25) == 0.0  # row 1 only: wrong
    assert top_k_accuracy(y_true, [0, 1, 0, 1], conf, top=0.25) == 1.0  # row 1 only: right
    assert top_k_accuracy(y_true, [1, 0, 1, 0], conf, top=0.5) == 0.5
    assert confidence_auc(y_true, [1, 0, 1, 0], conf) == 0.5


def test_n_top_floor_and_minimum():
    assert n_top(5673, 0.5) == 2836
    assert n_top(5, 0.5) == 2
    assert n_top(3, 0.1) == 1
    assert n_top(10, 0.3) == 3  # 0.3 * 10 is 3.0000000000000004 in floats
    for bad in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(DataError, match="top"):
            n_top(10, bad)


def test_risk_coverage_and_aurc_by_hand():
    y_true, y_pred, conf = _example()
    curve = risk_coverage_curve(y_true, y_pred, conf)
    assert curve["coverage"].tolist() == pytest.approx([1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0])
    assert curve["risk"].tolist() == pytest.approx([0, 0, 1 / 3, 1 / 4, 2 / 5, 2 / 6])
    assert curve["threshold"].tolist() == _CONF_SORTED
    assert aurc(y_true, y_pred, conf) == pytest.approx(79 / 360, abs=1e-12)


def test_roc_curve_by_hand():
    y_true, y_pred, conf = _example()
    roc = confidence_roc_curve(y_true, y_pred, conf)
    assert roc["tpr"].tolist() == pytest.approx([0, 0.25, 0.5, 0.5, 0.75, 0.75, 1.0])
    assert roc["fpr"].tolist() == pytest.approx([0, 0, 0, 0.5, 0.5, 1.0, 1.0])
    assert math.isinf(roc["threshold"].iloc[0])
    area = np.trapezoid(roc["tpr"], roc["fpr"])
    assert area == pytest.approx(5 / 8)


def test_roc_curve_groups_ties():
    roc = confidence_roc_curve([0, 0, 0, 0], [0, 1, 0, 1], [0.9, 0.9, 0.2, 0.2])
    assert roc["tpr"].tolist() == [0.0, 0.5, 1.0]
    assert roc["fpr"].tolist() == [0.0, 0.5, 1.0]


def test_ece_and_bins_by_hand():
    y_true, y_pred, conf = _example()
    bins = reliability_bins(y_true, y_pred, conf, n_bins=5)
    assert bins["count"].tolist() == [1, 1, 1, 1, 2]
    assert bins["accuracy"].tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert bins["confidence"].tolist() == pytest.approx([0.15, 0.35, 0.55, 0.75, 0.90])
    assert bins["lower"].tolist() == pytest.approx([0, 0.2, 0.4, 0.6, 0.8])
    # (0.85 + 0.35 + 0.45 + 0.75 + 2 * 0.10) / 6
    assert expected_calibration_error(y_true, y_pred, conf, n_bins=5) == pytest.approx(2.6 / 6)


def test_bins_edges_and_empty_bins():
    bins = reliability_bins([1, 1, 1], [1, 0, 1], [0.0, 0.5, 1.0], n_bins=2)
    # 0 goes to the first bin, 0.5 to (0, 0.5], 1 to (0.5, 1]
    assert bins["count"].tolist() == [2, 1]
    bins4 = reliability_bins([1], [1], [0.9], n_bins=4)
    assert bins4["count"].tolist() == [0, 0, 0, 1]
    assert bins4["accuracy"].isna().tolist() == [True, True, True, False]
    assert expected_calibration_error([1], [1], [0.9], n_bins=4) == pytest.approx(0.1)


def test_degenerate_inputs():
    # all machine labels correct: AUC undefined
    assert math.isnan(confidence_auc([1, 0, 1], [1, 0, 1], [0.2, 0.5, 0.9]))
    assert top_k_accuracy([1, 0, 1], [1, 0, 1], [0.2, 0.5, 0.9]) == 1.0
    # a single sample
    assert math.isnan(confidence_auc([1], [0], [0.3]))
    assert top_k_accuracy([1], [0], [0.3], top=0.5) == 0.0
    assert aurc([1], [0], [0.3]) == 1.0
    # zero-variance confidence: AUC 0.5
    assert confidence_auc([0, 0, 1, 1], [0, 1, 1, 0], [0.7] * 4) == 0.5


@pytest.mark.parametrize(
    "args, match",
    [
        (([1, 0, 1], [1, 0, 1], [0.2, float("nan"), 0.9]), "confidence has missing values at row 2"),
        (([1, None, 1], [1, 0, 1], [0.2, 0.4, 0.9]), "y_true has missing values at row 2"),
        (([1, 0, 1], [1, 0, np.nan], [0.2, 0.4, 0.9]), "y_pred has missing values at row 3"),
        (([1, 0], [1, 0, 1], [0.2, 0.4, 0.9]), "same length"),
        (([], [], []), "no samples"),
        (([1, 0], [1, 0], ["high", 0.3]), "non-numeric values at row 1"),
        (([1, 0], [1, 0], [np.inf, 0.3]), "infinite"),
    ],
)
def test_bad_input_raises(args, match):
    with pytest.raises(DataError, match=match):
        confidence_auc(*args)


def test_ece_needs_unit_interval():
    with pytest.raises(DataError, match=r"\[0, 1\].*row 2"):
        expected_calibration_error([1, 0], [1, 0], [0.5, 1.7])
    with pytest.raises(DataError, match="n_bins"):
        reliability_bins([1], [1], [0.5], n_bins=0)


def test_report_marks_ece_missing_out_of_range():
    rep = confidence_report([1, 0, 1, 1], [1, 1, 1, 0], {"p": [0.9, 0.2, 0.8, 0.4], "raw": [3.0, -1.0, 2.0, 0.5]})
    assert rep["raw"]["ece"] is None
    assert rep["p"]["ece"] is not None
    assert rep["p"]["auc"] == rep["raw"]["auc"] == 1.0  # the same ranking
    with pytest.raises(DataError, match="no confidence column"):
        confidence_report([1], [1], {})


def test_paper_table3_trust_score(shared_data):
    """Paper Table 3, TS: AUC 0.825, top-50% accuracy 0.978 (released per-sample data)."""
    df = pd.read_csv(shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv", sep="\t")
    assert len(df) == 5673
    args = (df["target"], df["machine_predict"], df["machine_confidence"])
    assert round(confidence_auc(*args), 4) == 0.8246
    assert round(top_k_accuracy(*args, top=0.5), 4) == 0.9785
    rep = confidence_report(*args[:2], {"machine_confidence": args[2]})["machine_confidence"]
    assert round(rep["auc"], 4) == 0.8246 and round(rep["top_accuracy"], 4) == 0.9785
    # the machine's overall accuracy (paper Table 1, machine: 0.862)
    assert round(float(correctness(*args[:2]).mean()), 3) == 0.862
