"""The confidence sequences (``core.evaluation.estimate.sequences``): the asymptotic boundary
against GLIDE 0.11's own code (a test-only oracle, unpacked by ``make glide``), the tuned radius
and the betting wealth by hand, finite-sample coverage of the betting sequence by simulation,
and bad input refused naming what is wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.errors import DataError
from core.evaluation.estimate.sequences import (SEQUENCE_METHODS, asymptotic_sequence,
                                                 betting_sequence, labels_for_half_width)


@pytest.mark.parametrize("alpha,tightest", [(0.05, 10), (0.1, 1), (0.05, 500), (0.01, 37)])
def test_boundary_equals_glide(glide_bounds, alpha, tightest):
    compute, _ = glide_bounds
    rng = np.random.default_rng(int(alpha * 1000) + tightest)
    est = rng.normal(0.3, 0.2, 200)
    sd = rng.uniform(0.05, 0.4, 200)
    mean, radius = asymptotic_sequence(est, sd, alpha=alpha, tightest_at=tightest)
    ref_mean, ref_low = compute(est, sd, alpha / 2, tightest)  # one side at alpha / 2
    np.testing.assert_allclose(mean, ref_mean, rtol=0, atol=1e-13)
    np.testing.assert_allclose(mean - radius, ref_low, rtol=0, atol=1e-13)
    # the other side is the same boundary on the mirrored estimates
    _, ref_low_neg = compute(-est, sd, alpha / 2, tightest)
    np.testing.assert_allclose(mean + radius, -ref_low_neg, rtol=0, atol=1e-13)


def test_tuned_radius_constant_by_hand():
    # alpha 0.05: L = -2 log 0.05 = 5.99146, x = L + log(L + 1) = 7.93620,
    # c^2 = 2 (1 + 1/x) log(1 + sqrt(1 + x) / 0.05) = 2 * 1.126004 * 4.107414 = 9.24996
    assert labels_for_half_width(0.5, 0.05) == math.ceil(9.24996 * 0.25 / 0.0025)
    mean, radius = asymptotic_sequence(np.zeros(100), np.full(100, 0.5), tightest_at=100)
    assert radius[-1] == pytest.approx(math.sqrt(9.24996 * 0.25 / 100), rel=1e-5)


def test_betting_wealth_by_hand():
    """Two terms 0.8 and 0.6 in [0, 1], sd 0.5, alpha 0.05. At m = 0 the upward bets are
    sqrt(2 log 40 / (0.25 t log(1 + t))) = 6.5254 and 3.6648 (no cap: the terms cannot fall
    below 0), the downward ones capped at 0.5 / (1 - 0) = 0.5: wealth
    ((1 + 6.5254 * 0.8)(1 + 3.6648 * 0.6) + (1 - 0.4)(1 - 0.3)) / 2 = 10.16 < 20: 0 stays in
    after two terms; a third term 0.9 bets 2.6638 more: (19.898 * 3.3975 + 0.42 * 0.55) / 2 =
    33.92 >= 20: 0 is out."""
    z = np.array([0.8, 0.6, 0.9])
    lo, hi = betting_sequence(z, np.full(3, 0.5), np.zeros(3), np.ones(3), grid=11)
    assert lo[1] == 0.0  # 0 kept after two terms (the grid step, 0.1, widens it anyway)
    assert lo[2] >= 0.0 and lo[2] == pytest.approx(0.0, abs=0.1 + 1e-12)
    # the third look refutes 0 itself: its lowest kept candidate is above 0
    lo_fine, _ = betting_sequence(z, np.full(3, 0.5), np.zeros(3), np.ones(3), grid=1001)
    assert lo_fine[2] > 0.0 and lo_fine[1] == 0.0


def test_betting_sequence_covers_in_finite_samples():
    """Bernoulli(0.1) terms, 60 at a time, 400 runs: the betting sequence (no normal
    approximation) misses the mean at some look in at most alpha of the runs (+ 2.3 s.e.),
    where the normal one, with few labels on a rare outcome, need not."""
    rng = np.random.default_rng(8)
    missed = 0
    for _ in range(400):
        z = (rng.random(60) < 0.1).astype(float)
        sd = np.full(60, 0.3)
        lo, hi = betting_sequence(z, sd, np.zeros(60), np.ones(60), grid=401)
        missed += bool(np.any((lo > 0.1) | (hi < 0.1)))
    assert missed / 400 <= 0.075, missed / 400


def test_running_mean_by_hand_and_radius_shrinks():
    mean, radius = asymptotic_sequence(np.array([1.0, 2.0, 6.0]), np.array([0.5, 0.5, 0.5]),
                                       tightest_at=2)
    np.testing.assert_allclose(mean, [1.0, 1.5, 3.0])
    # one batch: V = 0.25, rho^2 = x / 0.5 (tuned at batch 2, V_target = 0.5), x = 7.93620
    x = -2 * math.log(0.05) + math.log(-2 * math.log(0.05) + 1)
    rho2 = x / 0.5
    s = 0.25 * rho2 + 1
    assert radius[0] == pytest.approx(math.sqrt(2 * s / rho2 * math.log(1 + math.sqrt(s) / 0.05)))
    assert radius[0] > radius[1] > radius[2]


def test_a_lower_alpha_gives_a_wider_radius():
    est, sd = np.zeros(50), np.full(50, 0.3)
    _, r05 = asymptotic_sequence(est, sd, alpha=0.05)
    _, r01 = asymptotic_sequence(est, sd, alpha=0.01)
    assert np.all(r01 > r05)


@pytest.mark.parametrize("est,sd,kw,word", [
    ([], [], {}, "one estimate"),
    ([0.1, 0.2], [0.1], {}, "one estimate"),
    ([0.1, np.nan], [0.1, 0.1], {}, "finite"),
    ([0.1, 0.2], [0.1, -0.1], {}, ">= 0"),
    ([0.1, 0.2], [0.1, 0.1], {"alpha": 1.0}, "alpha"),
    ([0.1, 0.2], [0.1, 0.1], {"tightest_at": 0}, "tightest_at"),
    ([0.1, 0.2], [0.0, 0.0], {}, "positive variance"),
])
def test_asymptotic_sequence_refuses_bad_input(est, sd, kw, word):
    with pytest.raises(DataError, match=word):
        asymptotic_sequence(np.array(est, dtype=float), np.array(sd, dtype=float), **kw)


def test_labels_for_half_width_scales_with_the_variance_and_refuses_a_zero_width():
    assert SEQUENCE_METHODS == ("asymptotic", "betting")
    n1 = labels_for_half_width(0.5, 0.05)
    # a quarter of the variance needs a quarter of the labels (up to rounding up)
    assert labels_for_half_width(0.25, 0.05) == math.ceil(9.24996 * 0.0625 / 0.0025)
    assert labels_for_half_width(0.25, 0.05) <= n1 / 4 + 1
    assert labels_for_half_width(0.0, 0.05) == 1
    with pytest.raises(DataError, match="half-width"):
        labels_for_half_width(0.5, 0.0)


def test_betting_sequence_of_a_constant_term_shrinks_around_it():
    z = np.full(300, 0.4)
    lo, hi = betting_sequence(z, np.full(300, 0.2), np.zeros(300), np.ones(300), grid=501)
    assert np.all(lo <= 0.4) and np.all(hi >= 0.4)
    assert hi[-1] - lo[-1] < hi[9] - lo[9] < 1.0
    assert np.all((lo >= 0) & (hi <= 1))
