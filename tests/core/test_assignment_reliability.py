"""Reliability/effort metrics: hand-computed values and scikit-learn's definitions."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from core.assignment import (assignment_metrics, classification_scores, collaborative_labels,
                              confusion_counts, per_class_table, scores_from_confusion)


def test_hand_computed_binary():
    # gold  1 1 1 0 0 ; pred 1 0 1 1 0
    # class 1: tp 2, fp 1, fn 1 -> P 2/3, R 2/3, F1 2/3 ; class 0: tp 1, fp 1, fn 1 -> 1/2 each
    s = classification_scores([1, 1, 1, 0, 0], [1, 0, 1, 1, 0])
    assert s["precision"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert s["recall"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert s["f1"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert s["accuracy"] == pytest.approx(3 / 5)


def test_class_never_predicted_has_precision_zero():
    # gold 0 0 1 1 ; pred 0 0 0 0: class 1 never predicted -> precision 0, recall 0, f1 0
    s = classification_scores([0, 0, 1, 1], [0, 0, 0, 0])
    assert s["precision"] == pytest.approx((2 / 4 + 0) / 2)
    assert s["recall"] == pytest.approx((1 + 0) / 2)
    assert s["f1"] == pytest.approx((2 * 2 / (4 + 2) + 0) / 2)


def test_string_labels_and_multiclass_match_sklearn():
    rng = np.random.default_rng(1)
    labels = np.array(["safe", "toxic", "biased", "risky"])
    y = labels[rng.integers(0, 4, 400)]
    p = np.where(rng.random(400) < 0.6, y, labels[rng.integers(0, 4, 400)])
    p[:5] = "unseen"  # a predicted class absent from gold
    s = classification_scores(y, p)
    pr, rc, f1, _ = precision_recall_fscore_support(y, p, average="macro", zero_division=0)
    assert (s["precision"], s["recall"], s["f1"]) == pytest.approx((pr, rc, f1), abs=1e-12)
    assert s["accuracy"] == pytest.approx(accuracy_score(y, p))


def test_per_class_table_and_batched_confusions():
    cm = confusion_counts([0, 1, 1], [0, 1, 0], labels=[0, 1, 2])
    assert cm.tolist() == [[1, 0, 0], [1, 1, 0], [0, 0, 0]]
    table = per_class_table([0, 1, 1], [0, 1, 0], labels=[0, 1, 2])
    assert table["precision"].tolist()[:2] == [0.5, 1.0]
    assert np.isnan(table["precision"].iloc[2])  # class 2 absent everywhere: left out
    batched = scores_from_confusion(np.stack([cm, np.eye(3, dtype=int)]))
    assert batched["accuracy"].tolist() == pytest.approx([2 / 3, 1.0])


def test_collaborative_labels():
    out = collaborative_labels(np.array([0, 0, 1]), np.array([1, 0, 0]), np.array([True, False, True]))
    assert out.tolist() == [1, 0, 0]


def test_assignment_metrics_by_hand():
    human = np.array([True, False, False, True])
    res = assignment_metrics(human, machine_label=[1, 0, 1, 1], machine_confidence=[0.2, 0.9, 0.6, 0.4],
                             human_label=[0, 0, 1, 0], human_effort=[1.0, 2.0, 3.0, 4.0],
                             predicted_effort=[1.0, 1.0, 1.0, 1.0])
    assert res["n_human"] == 2 and res["human_ratio"] == 0.5
    assert res["time_cost"] == pytest.approx(5 / 10)
    assert res["time_cost_predicted"] == pytest.approx(0.5)
    assert res["expected_reliability"] == pytest.approx((1 + 0.9 + 0.6 + 1) / 4)
    assert res["accuracy"] == 1.0  # final labels 0 0 1 0 = gold
    assert res["machine_only"]["accuracy"] == pytest.approx(2 / 4)


def test_without_gold_reliability_is_unavailable_not_zero():
    res = assignment_metrics(np.array([True, False]), machine_label=[0, 1],
                             machine_confidence=[0.3, 0.8])
    assert res["accuracy"] is None and res["precision"] is None and res["machine_only"] is None
    assert res["time_cost"] is None
    assert res["expected_reliability"] == pytest.approx((1 + 0.8) / 2)


def test_zero_total_effort_is_nan():
    res = assignment_metrics(np.array([True, False]), machine_label=[0, 1],
                             machine_confidence=[0.3, 0.8], human_effort=[0.0, 0.0])
    assert np.isnan(res["time_cost"])


def test_bad_labels_are_data_errors_naming_the_label():
    from core.errors import DataError

    with pytest.raises(DataError, match="label 3 is not among the labels"):
        classification_scores([0, 1, 3], [0, 1, 1], labels=[0, 1])
    with pytest.raises(DataError, match="y_pred: missing label in row 2"):
        per_class_table([0, 1], [0, None])
