"""The labelling stream's queue (``core.evaluation.sampling.stream``): weights and per-draw probabilities
by hand, the successive sample's first draws against their exact probabilities, refusals."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import DataError
from core.evaluation.sampling.stream import draw_probabilities, draw_stream, stream_weights


def test_weights_by_hand():
    # P rows: (0.9, 0.1) -> u = sqrt(1 - 0.81 - 0.01) = sqrt(0.18); (0.5, 0.5) -> sqrt(0.5)
    p = np.array([[0.9, 0.1], [0.5, 0.5]])
    u = np.sqrt([0.18, 0.5])
    w = stream_weights(p, design="weighted", floor=0.5)
    np.testing.assert_allclose(w, 0.5 * u / u.mean() + 0.5)
    assert w.mean() == pytest.approx(1.0)
    # effort: divided by sqrt(effort / mean effort) before normalising
    w = stream_weights(p, np.array([1.0, 4.0]), design="weighted", floor=0.0)
    v = u / np.sqrt(np.array([1.0, 4.0]) / 2.5)
    np.testing.assert_allclose(w, v / v.mean())
    np.testing.assert_array_equal(stream_weights(p, design="uniform"), [1.0, 1.0])
    # a machine sure of every row gives nothing to weigh by: uniform
    np.testing.assert_array_equal(stream_weights(np.eye(2), design="weighted"), [1.0, 1.0])


def test_draw_probabilities_by_hand():
    w = np.array([1.0, 2.0, 3.0, 4.0])
    # order 3, 0, 2: 4/10, 1/6, 3/5
    np.testing.assert_allclose(draw_probabilities(w, np.array([3, 0, 2])), [0.4, 1 / 6, 0.6])
    plan = draw_stream(np.ones(5), 5, seed=1)
    np.testing.assert_allclose(plan.draw_probability, [1 / 5, 1 / 4, 1 / 3, 1 / 2, 1])
    assert sorted(plan.order.tolist()) == [0, 1, 2, 3, 4] and plan.design == "uniform"


def test_successive_sample_frequencies():
    """Row i first with probability w_i / sum(w); second given the first as the formula says."""
    w = np.array([1.0, 2.0, 3.0, 4.0])
    firsts = np.zeros(4)
    second_after_3 = np.zeros(4)
    runs = 20000
    for s in range(runs):
        order = draw_stream(w, 2, seed=s).order
        firsts[order[0]] += 1
        if order[0] == 3:
            second_after_3[order[1]] += 1
    np.testing.assert_allclose(firsts / runs, w / w.sum(), atol=0.012)
    np.testing.assert_allclose(second_after_3[:3] / second_after_3.sum(), w[:3] / 6, atol=0.02)


def test_refusals():
    with pytest.raises(DataError, match="between 1 and the 3"):
        draw_stream(np.ones(3), 4)
    with pytest.raises(DataError, match="between 1 and the 2"):
        draw_stream(np.ones(3), 3, exclude=np.array([True, False, False]))
    with pytest.raises(DataError, match="stream design"):
        stream_weights(np.eye(2), design="active")
    with pytest.raises(DataError, match="floor"):
        stream_weights(np.eye(2), floor=1.5)


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


def test_replan_keeps_the_prefix_and_draws_the_rest_again():
    from core.evaluation.sampling.stream import replan_stream

    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    plan = draw_stream(w, 4, seed=2)
    new_w = np.array([6.0, 5.0, 4.0, 3.0, 2.0, 1.0])
    new = replan_stream(plan, 2, new_w, seed=9)
    assert new.order[:2].tolist() == plan.order[:2].tolist()
    np.testing.assert_array_equal(new.draw_probability[:2], plan.draw_probability[:2])
    assert len(new.order) == 4 and len(set(new.order.tolist())) == 4
    # the third draw is among the four rows not labelled, with the new weights
    rest = np.setdiff1d(np.arange(6), plan.order[:2])
    assert new.draw_probability[2] == pytest.approx(new_w[new.order[2]] / new_w[rest].sum())
    assert [t for t, _ in new.segments] == [0, 2]
    with pytest.raises(DataError, match="shorter than the queue"):
        replan_stream(plan, 4, new_w)
