"""core.assignment.report: the per-class table of the Trade-off page, worked by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from core.data import prepare
from core.errors import DataError
from core.assignment import per_class_report, run_assignment
from core.assignment import SAEInputs, lambda_range


def test_per_class_report_by_hand():
    df = pd.DataFrame({"machine_label": [1, 0, 1, 0], "machine_confidence": [0.9, 0.2, 0.8, 0.3],
                       "human_label": [1, 1, 0, 0]})
    data = prepare(df, name="t")
    # lambda 0, N = 1: the least confident sample (row 2, gain 1 - 0.2) goes to the human
    _, assignment = run_assignment(data, lam=0.0, n_human=1)
    assert assignment.human.tolist() == [False, True, False, False]
    table = per_class_report(data, assignment)
    inputs = SAEInputs.from_data(data)
    # the encoded path (labels read once per dataset) gives the same table
    pd.testing.assert_frame_equal(per_class_report(data, assignment, inputs=inputs), table)
    assert list(table.columns) == ["label", "precision", "recall", "f1", "support",
                                   "precision (machine)", "recall (machine)", "f1 (machine)"]
    # collaborative 1 1 1 0 against gold 1 1 0 0: class 0 (1, 1/2, 2/3), class 1 (2/3, 1, 4/5)
    # machine 1 0 1 0: (1/2, 1/2, 1/2) for both classes
    assert table["label"].tolist() == [0, 1]
    assert table["support"].tolist() == [2, 2]
    assert table[["precision", "recall", "f1"]].to_numpy().ravel().tolist() == pytest.approx(
        [1, 0.5, 2 / 3, 2 / 3, 1, 0.8])
    assert table[["precision (machine)", "recall (machine)", "f1 (machine)"]].to_numpy().ravel().tolist() == \
        pytest.approx([0.5] * 6)


def test_per_class_report_needs_gold():
    df = pd.DataFrame({"machine_label": [1, 0, 1, 0], "machine_confidence": [0.9, 0.2, 0.8, 0.3]})
    data = prepare(df, name="t")
    _, assignment = run_assignment(data, lam=0.0, n_human=1)
    with pytest.raises(DataError, match="gold labels"):
        per_class_report(data, assignment)


def test_assignment_json_carries_the_lambda_range():
    from core.assignment import assignment_json

    # effort in minutes: gains (1 - c) - lam l cross 0 at 0.1 / 2, 0.8 / 0.5 = 1.6, 0.7 / 4
    df = pd.DataFrame({"machine_label": [1, 0, 1], "machine_confidence": [0.9, 0.2, 0.3],
                       "human_label": [1, 1, 0], "minutes": [2.0, 0.5, 4.0]})
    data = prepare(df, {"human_effort": "minutes"}, name="t")
    inp, assignment = run_assignment(data, lam=1.0, n_human=2)
    out = assignment_json(data, inp, assignment)
    assert out["lambda_range"] == {"upper": pytest.approx(1.6), "pivot": pytest.approx(0.175),
                                   "first": pytest.approx(0.05), "n_beyond": 0,
                                  "effort_unit": "minutes"}
    inp, assignment = run_assignment(data, lam=1.0, n_human=2, mode="exactly")
    # exactly 2: at large lambda rows 1 and 0 (least effort) go; row 2 (gain 0.7 - 4 lam) beats
    # row 0 (0.1 - 2 lam) below (0.7 - 0.1) / (4 - 2) = 0.3, and never row 1 (0.8 - 0.5 lam)
    out = assignment_json(data, inp, assignment)
    assert out["lambda_range"]["upper"] == pytest.approx(0.3)
    assert out["lambda_range"]["pivot"] is None


def test_per_class_report_encoded_text_labels_equal_the_label_by_label_table():
    """Text labels, a class only the machine uses: the table from encoded labels is the one
    core.assignment.reliability.per_class_table gives label by label."""
    df = pd.DataFrame({"machine_label": ["a", "b", "c", "a", "b", "a"],
                       "machine_confidence": [0.9, 0.2, 0.3, 0.6, 0.8, 0.4],
                       "human_label": ["a", "a", "b", "b", "b", "a"]})
    data = prepare(df, name="t")
    inputs, assignment = run_assignment(data, lam=0.0, n_human=2)
    assert inputs.label_codes is not None
    pd.testing.assert_frame_equal(per_class_report(data, assignment, inputs=inputs),
                                  per_class_report(data, assignment))


def test_assignment_json_takes_a_computed_lambda_range():
    """A page passes the range it cached; the JSON is the one computed from scratch, and a
    range of another N is not used."""
    from core.assignment import assignment_json

    df = pd.DataFrame({"machine_label": [1, 0, 1], "machine_confidence": [0.9, 0.2, 0.3],
                       "human_label": [1, 1, 0], "minutes": [2.0, 0.5, 4.0]})
    data = prepare(df, {"human_effort": "minutes"}, name="t")
    inp, assignment = run_assignment(data, lam=1.0, n_human=2)
    plain = assignment_json(data, inp, assignment)
    given = assignment_json(data, inp, assignment, lam_range=lambda_range(inp, n_human=2))
    assert given == plain
    other = assignment_json(data, inp, assignment, lam_range=lambda_range(inp, n_human=1))
    assert other["lambda_range"]["pivot"] == pytest.approx(0.175)  # N = 2's, recomputed
