"""Krippendorff's alpha against the ``krippendorff`` package (oracle) and a hand-worked table."""

from __future__ import annotations

import numpy as np
import pytest

krippendorff = pytest.importorskip("krippendorff")

from core.errors import DataError  # noqa: E402
from core.evaluation.annotators.alpha import alpha_interval, krippendorff_alpha  # noqa: E402

NAN = np.nan


def test_hand_worked_nominal():
    # two annotators, four units: (a,a) (a,b) (b,b) (b,b)
    # coincidences: o_aa = 2, o_ab = o_ba = 1, o_bb = 4; n_a = 3, n_b = 5, n = 8
    # D_o = 2 / 8; D_e = 2 * 3 * 5 / (8 * 7) -> alpha = 1 - (n - 1) * 2 / (2 * 15) = 1 - 7/15
    data = [[0, 0, 1, 1], [0, 1, 1, 1]]
    assert krippendorff_alpha(data) == pytest.approx(1 - 7 / 15, abs=1e-12)


def test_krippendorffs_own_example():
    # Krippendorff (2011), section C: 4 coders, 12 units, missing values; alpha = 0.743 nominal
    data = np.array([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN]])
    assert krippendorff_alpha(data) == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(data, level="interval") == pytest.approx(0.849, abs=5e-4)
    assert krippendorff_alpha(data, level="ordinal") == pytest.approx(0.815, abs=5e-4)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_random_tables_with_missing_labels_equal_the_package(level):
    rng = np.random.default_rng(7)
    for _ in range(150):
        a, u, k = rng.integers(2, 6), rng.integers(2, 40), rng.integers(2, 5)
        data = rng.integers(0, k, size=(a, u)).astype(float)
        data[rng.random((a, u)) < 0.3] = NAN
        try:
            ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        except ValueError:  # the package refuses a single value; we give NaN
            ref = NAN
        ours = krippendorff_alpha(data, level=level)
        if np.isnan(ref):
            assert np.isnan(ours)
        else:
            assert abs(ours - ref) <= 1e-9


def test_degenerate_and_bad_input():
    assert np.isnan(krippendorff_alpha([[1, NAN], [NAN, 1]]))  # no pairable unit
    assert np.isnan(krippendorff_alpha([[1, 1], [1, 1]]))  # one value
    with pytest.raises(DataError, match="level"):
        krippendorff_alpha([[1, 2], [1, 2]], level="ratio-ish")
    with pytest.raises(DataError, match="infinite"):
        krippendorff_alpha([[1, np.inf], [1, 2]])


def test_bootstrap_interval_brackets_the_estimate_and_covers():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 400)
    data = np.array([np.where(rng.random(400) < 0.85, truth, 1 - truth) for _ in range(3)],
                    dtype=float)
    res = alpha_interval(data, n_boot=500, seed=1)
    assert res.estimate == pytest.approx(krippendorff.alpha(reliability_data=data), abs=1e-9)
    assert res.ci_low < res.estimate < res.ci_high
    assert res.ci_high - res.ci_low < 0.2
    assert res.n_units == 400 and res.n_values == 1200
    assert alpha_interval(data, n_boot=500, seed=1) == res  # seeded
    none = alpha_interval([[1, NAN]], n_boot=10)
    assert np.isnan(none.estimate) and np.isnan(none.ci_low) and none.n_units == 0


@pytest.mark.parametrize("n_boot", [1, 2, 3])
def test_the_interval_holds_its_estimate_with_few_replicates(n_boot):
    """Issue 32's fuzz: ``annotators --boot 1`` printed [0.771, 0.771] around an estimate of
    0.619. The table of test_hand_worked_nominal (alpha = 8/15): for every seed the interval
    holds 8/15; with one replicate one end is 8/15 itself."""
    data = [[0, 0, 1, 1], [0, 1, 1, 1]]
    for seed in range(20):
        res = alpha_interval(data, n_boot=n_boot, seed=seed)
        assert res.estimate == pytest.approx(8 / 15, abs=1e-12)
        assert res.ci_low <= res.estimate <= res.ci_high, seed
        if n_boot == 1:
            assert 8 / 15 in (pytest.approx(res.ci_low), pytest.approx(res.ci_high))
