"""Planning an audit (``core.evaluation.sampling.audit``): the normal half-width of a simple
random sample with the finite-population correction by hand and against scipy's normal
quantile, the sizes a target width needs checked at n and n - 1, the smoothed variance and
the default audit by hand, and bad input refused naming the value."""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from core.errors import DataError
from core.evaluation.sampling.audit import (DEFAULT_AUDIT, audit_size_for_half_width,
                                            default_audit, expected_half_width,
                                            smoothed_variance, srs_half_width,
                                            srs_size_for_half_width, z_value)

Z95 = 1.959963984540054


def test_planner_hand_values():
    # z sqrt((1 - 100/1000) * 0.25 / 100) = 1.96 * 0.047434
    assert srs_half_width(1000, 100, 0.25) == pytest.approx(Z95 * math.sqrt(0.9 * 0.0025))
    n = srs_size_for_half_width(1000, 0.25, 0.05)
    assert srs_half_width(1000, n, 0.25) <= 0.05 < srs_half_width(1000, n - 1, 0.25)
    # the smoothed variance with r = 0.02, n = 200: (4 + 1) / 202
    w = expected_half_width(5000, 2500, 200, 0.02)
    assert w == pytest.approx(0.5 * Z95 * math.sqrt((1 - 200 / 2500) * (5 / 202) / 200))
    need = audit_size_for_half_width(5000, 2500, 0.02, 0.01)
    assert expected_half_width(5000, 2500, need, 0.02) <= 0.01
    assert expected_half_width(5000, 2500, need - 1, 0.02) > 0.01


@pytest.mark.parametrize("conf", [0.5, 0.8, 0.95, 0.99])
def test_z_value_is_the_two_sided_normal_quantile(conf):
    assert z_value(conf) == pytest.approx(norm.isf((1 - conf) / 2), rel=1e-12)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, float("nan"), "0.95"])
def test_z_value_refuses_a_confidence_outside_0_1(bad):
    with pytest.raises(DataError, match="confidence"):
        z_value(bad)


def test_srs_half_width_edges():
    # the whole population sampled: no uncertainty left
    assert srs_half_width(50, 50, 0.25) == 0.0
    # 90 % confidence, N = 400, n = 100, s^2 = 0.16: 1.644854 * sqrt(0.75 * 0.0016)
    assert srs_half_width(400, 100, 0.16, confidence=0.9) == pytest.approx(
        1.6448536269514722 * math.sqrt(0.75 * 0.0016))
    with pytest.raises(DataError, match="between 1 and 10"):
        srs_half_width(10, 11, 0.25)
    with pytest.raises(DataError, match="between 1 and 10"):
        srs_half_width(10, 0, 0.25)


def test_srs_size_edges_and_the_textbook_384():
    # an effectively infinite population at p = 0.5, +-5 points: the textbook 385 (1.96^2/4/0.0025 = 384.1)
    assert srs_size_for_half_width(10**9, 0.25, 0.05) == 385
    assert srs_size_for_half_width(100, 0.0, 0.05) == 0
    assert srs_size_for_half_width(100, 0.25, 0.0) == 100
    # the finite-population correction: n0 / (1 + n0 / N) with N = 1000, n0 = 384.15 -> 278
    assert srs_size_for_half_width(1000, 0.25, 0.05) == math.ceil(
        Z95 ** 2 * 0.25 / 0.0025 / (1 + Z95 ** 2 * 0.25 / 0.0025 / 1000))


def test_smoothed_variance_by_hand_and_its_checks():
    assert smoothed_variance(0.0, 0) == pytest.approx(1 / 2)  # (0 + 1) / (0 + 2)
    assert smoothed_variance(0.1, 100, n_classes=3) == pytest.approx((10 + 2) / (100 + 4.5))
    with pytest.raises(DataError, match="disagreement rate"):
        smoothed_variance(1.2, 10)
    with pytest.raises(DataError, match="two classes"):
        smoothed_variance(0.1, 10, n_classes=1)


def test_expected_half_width_and_sizes_edges():
    assert expected_half_width(100, 0, 1, 0.1) == 0.0
    assert audit_size_for_half_width(100, 0, 0.1, 0.01) == 0
    with pytest.raises(DataError, match="kept rows must be between 0 and M = 100"):
        expected_half_width(100, 101, 1, 0.1)
    with pytest.raises(DataError, match="target half-width"):
        audit_size_for_half_width(100, 50, 0.1, 0.0)
    # auditing every kept row leaves no width: any positive target is reached
    assert audit_size_for_half_width(1000, 40, 0.5, 1e-9) == 40


def test_default_audit():
    assert DEFAULT_AUDIT == 200
    assert [default_audit(n) for n in (0, 4, 5, 250, 999, 1000, 1779)] == [0, 0, 1, 50, 199, 200, 200]
    assert default_audit(1000, largest=50) == 50
    with pytest.raises(DataError, match="kept rows must be >= 0"):
        default_audit(-1)
