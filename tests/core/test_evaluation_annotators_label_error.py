"""The error of the labels a round uses (``core.evaluation.annotators.label_error``), worked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.evaluation.annotators.label_error import labels_error, row_error
from core.evaluation.annotators.noise import given_error


@pytest.mark.parametrize("eta", [0.0, 0.05, 0.2, 0.4])
def test_row_error_by_hand(eta):
    # one label: eta
    assert row_error(eta, 2, 1, tie=False) == pytest.approx(eta)
    # two classes, majority of three: wrong when two or three are wrong
    assert row_error(eta, 2, 3, tie=False) == pytest.approx(3 * eta**2 * (1 - eta) + eta**3)
    # two classes, two labels that agree: both right or both wrong
    both = eta**2 / (eta**2 + (1 - eta) ** 2)
    assert row_error(eta, 2, 2, tie=False) == pytest.approx(both)
    # two labels that disagree (a tie), resolved alike: wrong half the time
    if eta > 0:
        assert row_error(eta, 2, 2, tie=True) == pytest.approx(0.5)
    # three classes, two labels: agreeing when both right, or both wrong alike (eta^2 / 2);
    # a tie when one is wrong (true class tied: wrong half the time) or both wrong apart
    # (the true class not tied: wrong always)
    agree_wrong = eta**2 / 2
    assert row_error(eta, 3, 2, tie=False) == pytest.approx(
        agree_wrong / ((1 - eta) ** 2 + agree_wrong))
    if eta > 0:
        one = 2 * eta * (1 - eta)
        apart = eta**2 / 2
        assert row_error(eta, 3, 2, tie=True) == pytest.approx(
            (one / 2 + apart) / (one + apart))


def test_row_error_against_a_simulation():
    """Three classes, four labels, eta 0.3: the plurality's error rate among rows with a unique
    plurality, counted on 200,000 simulated rows, within 4 standard errors."""
    rng = np.random.default_rng(0)
    n, k, m, eta = 200_000, 3, 4, 0.3
    right = rng.random((n, m)) >= eta
    wrong = rng.integers(1, k, (n, m))  # classes 1..k-1 when wrong; truth is 0
    labels = np.where(right, 0, wrong)
    counts = np.stack([(labels == c).sum(axis=1) for c in range(k)], axis=1)
    top = np.sort(counts, axis=1)
    unique = top[:, -1] > top[:, -2]
    err = counts.argmax(axis=1)[unique] != 0
    p = row_error(eta, k, m, tie=False)
    assert abs(err.mean() - p) < 4 * np.sqrt(p * (1 - p) / unique.sum())


def test_labels_error_is_the_mean_over_the_rows_used():
    """Rows 0-1 one label, row 2 three labels (2 to 1), row 3 two that tie, row 4 the gold
    annotator's: (eta + eta + maj3 + 0.5 + 0) / 5 at eta 0.1, maj3 = 3 eta^2 (1 - eta) + eta^3;
    the interval's ends likewise; one annotator's rate kept."""
    votes = pd.DataFrame({"row": [0, 1, 2, 2, 2, 3, 3, 4, 4],
                          "annotator": ["a", "a", "a", "b", "c", "a", "b", "a", "g"],
                          "label": ["x", "y", "x", "x", "y", "x", "y", "x", "y"]})
    eta = given_error(0.1, n_classes=2)
    out = labels_error(eta, votes, [0, 1, 2, 3, 4], gold_annotator="g")
    maj3 = 3 * 0.1**2 * 0.9 + 0.1**3
    assert out.eta == pytest.approx((0.1 + 0.1 + maj3 + 0.5 + 0) / 5)
    assert out.ci_low == out.ci_high == pytest.approx(out.eta)
    assert out.annotator_eta == 0.1
    single = labels_error(eta, votes, [0, 1])  # one label each: unchanged
    assert (single.eta, single.annotator_eta) == (0.1, 0.1)
