"""Two batches (``core.evaluation.sampling.two_batch``): the pilot's probabilities (hand-worked), the
second batch planned on the pilot's labels, and validity by simulation on tables with known
truth (coverage of every class share and of the final accuracy, no bias)."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import DataError
from core.evaluation.sampling.draw import draw
from core.evaluation.sampling.two_batch import (MAX_SECOND_RATIO, MIN_PILOT,
                                                 pilot_probabilities, pilot_size, second_batch,
                                                 second_ratio, two_batch_inclusion)
from core.evaluation.estimate.weighted import weighted_estimates


def test_pilot_size_hand_worked():
    assert pilot_size(1000) == pytest.approx(200.0)   # 20 % of the budget
    assert pilot_size(300) == pytest.approx(60.0)     # 20 % is 60: the least, MIN_PILOT
    assert pilot_size(150) == pytest.approx(MIN_PILOT)
    assert pilot_size(1000, share=0.5) == pytest.approx(500.0)
    with pytest.raises(DataError, match="too small for two batches"):
        pilot_size(100)
    with pytest.raises(DataError, match="share"):
        pilot_size(1000, share=1.0)


def test_pilot_probabilities_hand_worked():
    # 300 rows at q = 0.9, 100 at q = 0.5: u = 0.1 / 0.5, mean u = (30 + 50) / 400 = 0.2;
    # tilt 0.5: weights 0.5 + 0.5 u / 0.2 = 0.75 and 1.75 (sum 400); a budget of 300 gives
    # a pilot of 60: pi = 60 w / 400 = 0.1125 and 0.2625
    q = np.r_[np.full(300, 0.9), np.full(100, 0.5)]
    pi = pilot_probabilities(q, 300)
    assert np.allclose(pi[:300], 0.1125) and np.allclose(pi[300:], 0.2625)
    assert pi.sum() == pytest.approx(60.0)
    flat = pilot_probabilities(q, 300, tilt=0.0)
    assert np.allclose(flat, 60 / 400)


def test_pilot_probabilities_cap_at_one_and_spread_the_rest():
    # 10 rows at q = 0 and 190 at q = 1, tilt 1: all the weight on the 10 (pi 6 each before
    # the cap); capped at 1, the other 50 expected labels spread evenly over the 190
    q = np.r_[np.zeros(10), np.ones(190)]
    pi = pilot_probabilities(q, 300, tilt=1.0)
    assert np.allclose(pi[:10], 1.0)
    assert np.allclose(pi[10:], 50 / 190)


def _judge(m, seed):
    """Trust scores, not probabilities (right 88 % of the time where they say 66 %), with the
    surest rows on a plateau below 1 (as on the demo)."""
    rng = np.random.default_rng(seed)
    gold = (rng.random(m) < 0.3).astype(int)
    q = np.clip(rng.beta(2, 1, m), 0.01, 0.99)
    p = np.minimum(1 / (1 + np.exp(-(1.4 + 0.8 * np.log(q / (1 - q))))), 0.96)
    mach = np.where(rng.random(m) < p, gold, 1 - gold)
    return mach, gold, q


def test_second_batch_carries_the_pilot_and_spends_the_rest():
    mach, gold, q = _judge(1500, 0)
    p1 = pilot_probabilities(q, 300)
    rows = np.flatnonzero(draw(p1, seed=1))
    sb = second_batch(mach, q, 2, labels=300, pilot_pi=p1, rows=rows, human_codes=gold[rows])
    assert sb.calibrated
    pi = sb.design.pi
    assert np.all(pi[rows] == 1.0)
    rest = np.setdiff1d(np.arange(1500), rows)
    assert pi[rest].sum() == pytest.approx(300 - len(rows), rel=1e-6)
    assert pi[rest].min() > 0  # every other row can still be drawn: the estimate is unbiased
    assert np.array_equal(two_batch_inclusion(rows, pi), pi)
    # on the pilot's labels the plan expects the judge's accuracy, not its confidences'
    right = float((mach == gold).mean())
    assert abs(float(sb.probabilities[np.arange(1500), mach].mean()) - right) < 0.04
    assert abs(float(q.mean()) - right) > 0.15


def test_second_batch_without_anything_to_calibrate_on_rests_on_the_confidences():
    mach, gold, q = _judge(1500, 2)
    p1 = pilot_probabilities(q, 300)
    rows = np.flatnonzero(draw(p1, seed=3))
    sb = second_batch(mach, q, 2, labels=300, pilot_pi=p1, rows=rows,
                      human_codes=mach[rows])  # the machine right on every pilot row
    assert not sb.calibrated
    assert np.all(sb.design.pi[rows] == 1.0)


def test_two_batches_are_valid_by_simulation():
    # the second batch's probabilities depend on the pilot's labels; given the pilot, the
    # estimate is the pilot's labels plus a design-unbiased estimate of the rest, so every
    # class share and the final labels' accuracy are covered at the nominal rate over both
    # batches' draws
    m, budget, rounds = 1500, 300, 160
    mach, gold, q = _judge(m, 5)
    truth = np.bincount(gold, minlength=2) / m
    p1 = pilot_probabilities(q, budget)
    cover, acc_cover, est = [], [], []
    for r in range(rounds):
        first = draw(p1, seed=1000 + r)
        rows = np.flatnonzero(first)
        sb = second_batch(mach, q, 2, labels=budget, pilot_pi=p1, rows=rows,
                          human_codes=gold[rows])
        xi = draw(sb.design.pi, seed=5000 + r) | first
        res = weighted_estimates(mach, np.where(xi, gold, -1), xi, sb.design.pi, q,
                                 n_classes=2)
        sh = res["class_shares"]
        cover.append([x["ci_low"] <= truth[c] <= x["ci_high"] for c, x in enumerate(sh)])
        est.append(sh[1]["estimate"])
        final = float((np.where(xi, gold, mach) == gold).mean())
        acc_cover.append(res["accuracy"]["ci_low"] <= final <= res["accuracy"]["ci_high"])
    assert np.mean(cover, axis=0).min() >= 0.93
    assert np.mean(acc_cover) >= 0.93
    se = np.std(est) / np.sqrt(rounds)
    assert abs(np.mean(est) - truth[1]) < 3.5 * se + 1e-4


def test_second_ratio_hand_worked():
    # every row P = f = (0.7, 0.3): PPI++'s half-width on 400 labels is z sqrt(0.21 / 400)
    # = 1.959964 * 0.0229129 = 0.044908; the target 0.95 of it is h = 0.042663; a pilot of
    # half-width 0.08 leaves 1 / h2^2 = 1 / h^2 - 1 / 0.08^2, h2 / 0.044908 = 0.95 /
    # sqrt(1 - (0.042663 / 0.08)^2) = 0.95 / sqrt(0.71561) = 1.12301
    f = np.tile([0.7, 0.3], (1000, 1))
    assert second_ratio(f, f, 400, 0.95, 0.08) == pytest.approx(1.12301, rel=1e-4)
    # a pilot already as tight as the target: the second batch as wide as allowed
    assert second_ratio(f, f, 400, 0.95, 0.03) == MAX_SECOND_RATIO
    # a very wide pilot changes little
    assert second_ratio(f, f, 400, 0.95, 10.0) == pytest.approx(0.95, rel=1e-4)


def test_second_batch_is_wider_with_the_pilot_and_more_accurate():
    mach, gold, q = _judge(1500, 0)
    p1 = pilot_probabilities(q, 300)
    rows = np.flatnonzero(draw(p1, seed=1))
    kw = dict(labels=300, pilot_pi=p1, rows=rows, human_codes=gold[rows])
    from core.evaluation.estimate import estimator_half_width
    from core.evaluation.sampling.active import design_frontier, machine_probabilities
    from core.evaluation.sampling.two_batch import SECOND_FLOOR

    alone = second_batch(mach, q, 2, **kw).design
    got = second_batch(mach, q, 2, pilot_half=0.05, **kw)
    wide = got.design
    # the second batch's own interval is wider (its frontier solved as second_batch does);
    # what the plan says is the two stages' (1 / sqrt(1 / h2^2 + 1 / 0.05^2)), and so does
    # every design of the frontier that meets_targets and targets_note read
    probs = got.probabilities
    ratio = second_ratio(probs, machine_probabilities(mach, q, 2), 300, 0.95, 0.05)
    own = design_frontier(mach, q, 2, labels=300 - len(rows), width_ratio=ratio,
                          floor=SECOND_FLOOR, known=np.isin(np.arange(1500), rows),
                          probabilities=probs, gain=1 - probs[np.arange(1500), mach],
                          reference_gain=1 - q)[0]
    h2 = own.expected_half_width
    assert np.array_equal(own.pi, wide.pi)
    assert h2 >= alone.expected_half_width
    assert wide.expected_half_width == pytest.approx(1 / np.sqrt(1 / h2 ** 2 + 1 / 0.05 ** 2))
    table = wide.frontier
    rec = table[table["recommended"]].iloc[0]
    assert float(rec["expected_half_width"]) == pytest.approx(wide.expected_half_width)
    assert (table[table["design"] == "active"]["expected_half_width"].astype(float)
            < 0.05).all()
    assert wide.expected_accuracy >= alone.expected_accuracy
    assert wide.pi[rows].min() == 1.0 and wide.pi.min() > 0
    # with the estimator's model: the half-width the two-stage estimate is expected to report
    modelled = second_batch(mach, q, 2, pilot_half=0.05, width_model=estimator_half_width,
                            **kw).design
    assert np.array_equal(modelled.pi, wide.pi)
    assert modelled.expected_half_width == pytest.approx(
        estimator_half_width(probs, mach, q, wide.pi, pilot_half=0.05), rel=1e-12)
