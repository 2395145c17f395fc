"""The labelling stream's queue (``core.evaluation.stream``): weights, draw probabilities and
the draw, against values worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import DataError
from core.evaluation.stream import draw_probabilities, draw_stream, stream_weights


def test_draw_probabilities_by_hand():
    # weights 1, 2, 3, 4 (sum 10), drawn in the order 3, 1, 0, 2
    p = draw_probabilities(np.array([1.0, 2.0, 3.0, 4.0]), np.array([3, 1, 0, 2]))
    assert p == pytest.approx([4 / 10, 2 / 6, 1 / 4, 3 / 3])


def test_uniform_and_weighted_weights_by_hand():
    probs = np.array([[1.0, 0.0], [0.5, 0.5], [0.8, 0.2]])
    assert list(stream_weights(probs, design="uniform")) == [1, 1, 1]
    # u = sqrt(1 - sum p^2): 0, sqrt(0.5), sqrt(0.32); w = 0.5 u / mean(u) + 0.5
    u = np.array([0.0, np.sqrt(0.5), np.sqrt(0.32)])
    w = stream_weights(probs, design="weighted")
    assert w == pytest.approx(0.5 * u / u.mean() + 0.5)
    assert w.mean() == pytest.approx(1.0)
    # effort 4 on the last row: its u halves (relative to the mean effort 2: / sqrt(2))
    e = np.array([1.0, 1.0, 4.0])
    ue = u / np.sqrt(e / e.mean())
    assert stream_weights(probs, e, design="weighted") == pytest.approx(0.5 * ue / ue.mean() + 0.5)
    # the machine sure everywhere: nothing to weigh by
    assert list(stream_weights(np.array([[1.0, 0.0], [0.0, 1.0]]))) == [1, 1]
    with pytest.raises(DataError):
        stream_weights(probs, design="bogus")


def test_draw_stream_is_a_seeded_successive_sample():
    w = np.array([1.0, 1.0, 0.0, 2.0])
    plan = draw_stream(w, 3, seed=4)
    assert sorted(plan.order.tolist()) == [0, 1, 3]  # a zero weight is never drawn
    assert plan.draw_probability == pytest.approx(draw_probabilities(w, plan.order))
    assert plan.design == "weighted"
    assert draw_stream(w, 3, seed=4).order.tolist() == plan.order.tolist()
    assert draw_stream(np.ones(5), 5, seed=1).design == "uniform"
    with pytest.raises(DataError):
        draw_stream(w, 4)  # only 3 rows can be drawn
    # over many seeds, the heavy row comes first about half the time (2 / 4)
    first = [draw_stream(w, 1, seed=s).order[0] for s in range(2000)]
    assert np.mean(np.array(first) == 3) == pytest.approx(0.5, abs=0.04)
