"""What a design's expectations rest on (``core.evaluation.sampling.forecast``): the confidences
recalibrated on earlier labels (against statsmodels' maximum-likelihood fit, a judge with known
truth, hand-worked error splits) and PPI++'s expected half-width (by hand, against ppi_py)."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import DataError
from core.evaluation.sampling.active import machine_probabilities
from core.evaluation.sampling.forecast import calibrated_probabilities, ppi_expected_half_width


def _platt_judge(m, seed=0, a=(-0.8, 0.4), b=0.7):
    """A judge whose reported confidence q is overconfident in class 0: the truth's chance of
    it being right is sigmoid(a_c + b logit q)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2, m)
    q = rng.uniform(0.55, 0.99, m)
    logit = np.log(q / (1 - q))
    p = 1 / (1 + np.exp(-(np.asarray(a)[codes] + b * logit)))
    right = rng.random(m) < p
    human = np.where(right, codes, 1 - codes)
    return codes, q, p, human


def test_calibration_equals_the_maximum_likelihood_fit_of_statsmodels():
    import statsmodels.api as sm

    codes, q, _, human = _platt_judge(3000, seed=1)
    rows = np.arange(0, 3000, 3)
    w = np.random.default_rng(2).uniform(1, 4, len(rows))
    P = calibrated_probabilities(codes, q, 2, rows=rows, human_codes=human[rows], weights=w,
                                 prior=1e-9)
    x = np.column_stack([codes[rows] == 0, codes[rows] == 1,
                         np.log(q[rows] / (1 - q[rows]))]).astype(float)
    fit = sm.GLM((human[rows] == codes[rows]).astype(float), x,
                 family=sm.families.Binomial(), var_weights=w).fit()
    allx = np.column_stack([codes == 0, codes == 1, np.log(q / (1 - q))]).astype(float)
    assert np.allclose(P[np.arange(3000), codes], fit.predict(allx), atol=1e-7)
    assert np.allclose(P.sum(axis=1), 1.0)


def test_calibration_recovers_an_overconfident_judge():
    codes, q, p, human = _platt_judge(20000, seed=3)
    rows = np.arange(0, 20000, 5)  # 4,000 labels
    P = calibrated_probabilities(codes, q, 2, rows=rows, human_codes=human[rows])
    got = P[np.arange(20000), codes]
    assert np.abs(got - p).mean() < 0.01
    assert np.abs(q - p).mean() > 0.1  # the confidences as reported were far off


def test_calibration_spreads_errors_as_the_labelled_errors_hand_worked():
    # three classes; the machine says 0 on every row. Labelled: 26 right, 3 wrong with truth
    # 1, 1 wrong with truth 2. Wrong mass split (3 + 1) : (1 + 1) = 2/3 : 1/3.
    codes = np.zeros(40, dtype=int)
    q = np.full(40, 0.8)
    human = np.r_[np.zeros(26, dtype=int), [1, 1, 1, 2]]
    P = calibrated_probabilities(codes, q, 3, rows=np.arange(30), human_codes=human)
    wrong = 1 - P[:, 0]
    assert np.allclose(P[:, 1], wrong * 2 / 3) and np.allclose(P[:, 2], wrong / 3)
    # the chance of being right moves from 0.8 towards the labels' 26 / 30
    assert 0.8 < P[0, 0] < 26 / 30


def test_calibration_refuses_too_few_or_uninformative_labels():
    codes = np.zeros(100, dtype=int)
    q = np.full(100, 0.9)
    with pytest.raises(DataError, match="at least 30 labelled rows; 29 given"):
        calibrated_probabilities(codes, q, 2, rows=np.arange(29), human_codes=np.zeros(29, int))
    with pytest.raises(DataError, match="right on all 40 labelled rows"):
        calibrated_probabilities(codes, q, 2, rows=np.arange(40), human_codes=np.zeros(40, int))


def test_ppi_expected_half_width_matches_ppi_py():
    from ppi_py import ppi_mean_ci

    codes, q, p, human = _platt_judge(40000, seed=4)
    f = machine_probabilities(codes, q, 2)
    P = np.column_stack([np.where(codes == 0, p, 1 - p), np.where(codes == 1, p, 1 - p)])
    n = 300
    # with the truth the machine's own probabilities it is random labelling's, by hand
    by_hand = 1.959963984540054 * np.sqrt(np.mean(q * (1 - q)) / n)
    assert ppi_expected_half_width(f, f, n) == pytest.approx(by_hand, rel=1e-12)
    rng = np.random.default_rng(5)
    halves = []
    for _ in range(300):
        lab = rng.choice(40000, n, replace=False)
        unl = np.setdiff1d(np.arange(40000), lab)
        lo, hi = ppi_mean_ci((human[lab] == 1).astype(float), f[lab, 1], f[unl, 1], alpha=0.05)
        halves.append((hi[0] - lo[0]) / 2)
    # class 1's expected half-width (both classes' are the same for two classes)
    assert ppi_expected_half_width(P, f, n) == pytest.approx(np.mean(halves), rel=0.03)


def _underconfident_judge(m, seed):
    """Trust scores, not probabilities: the machine is right 90 % of the time where its
    confidences say 66 % on average (P(right) = sigmoid(1.6 + 0.75 logit q))."""
    rng = np.random.default_rng(seed)
    codes = (rng.random(m) < 0.25).astype(int)
    q = rng.beta(2, 1, m)
    q = np.clip(q, 0.01, 0.99)
    p = 1 / (1 + np.exp(-(1.6 + 0.75 * np.log(q / (1 - q)))))
    right = rng.random(m) < p
    return codes, q, np.where(right, codes, 1 - codes)


def test_the_prior_weighs_as_two_rows_not_as_twenty():
    # With one intercept per machine class, the unpenalised fit's mean chance of being right
    # over the labelled rows equals their accuracy (its score equations); a prior of 2 rows
    # on each coefficient, against 100 labels, moves that mean by a few per cent of the gap to
    # the confidences (about 1 point of a 24-point gap here). The prior used to weigh as
    # prior / q(1 - q) rows and more (the slope's), which pulled the mean 2-6 points back
    # towards the confidences as reported (4.8 on average over these seeds).
    gaps = []
    for seed in range(20):
        codes, q, human = _underconfident_judge(3000, seed)
        rows = np.random.default_rng(100 + seed).choice(3000, 100, replace=False)
        P = calibrated_probabilities(codes, q, 2, rows=rows, human_codes=human[rows])
        acc = float((human[rows] == codes[rows]).mean())
        gaps.append(acc - float(P[rows, codes[rows]].mean()))
    assert abs(np.mean(gaps)) < 0.015
    assert max(np.abs(gaps)) < 0.03


def test_the_prior_still_holds_a_fit_that_has_nothing_to_go_on():
    # every labelled row at the same confidence: the slope is not identified by the labels;
    # the prior keeps it at 1 (the confidences as reported), the intercept takes the accuracy
    codes = np.zeros(60, dtype=int)
    q = np.full(60, 0.7)
    human = np.r_[np.zeros(48, dtype=int), np.ones(12, dtype=int)]  # right on 48 of 60: 0.8
    P = calibrated_probabilities(codes, q, 2, rows=np.arange(60), human_codes=human)
    assert abs(P[0, 0] - 0.8) < 0.01
    assert np.all(np.isfinite(P))
