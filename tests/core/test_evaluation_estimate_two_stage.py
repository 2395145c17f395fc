"""The two-batch round estimated stage-wise (``core.evaluation.estimate.two_stage``): the
combination's arithmetic against its two stages, and validity by simulation on tables with
known truth (every class share and the final accuracy covered over both batches' draws, no
bias, with the weight fixed in advance and with the default inverse-variance weight)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.evaluation.estimate.two_stage import pilot_fit_weights, two_stage_estimates
from core.evaluation.estimate.weighted import table_controls, weighted_estimates
from core.evaluation.sampling.audit import z_value
from core.evaluation.sampling.draw import draw
from core.evaluation.sampling.two_batch import pilot_probabilities, second_batch


def _judge(m, seed, k=2, rare=0.3):
    """Trust scores, not probabilities (right 88 % of the time where they say 66 %)."""
    rng = np.random.default_rng(seed)
    gold = (rng.random(m) < rare).astype(int) if k == 2 else \
        rng.choice(k, size=m, p=[0.85, 0.1, 0.05])
    q = np.clip(rng.beta(2, 1, m), 0.01, 0.99)
    p = np.minimum(1 / (1 + np.exp(-(1.4 + 0.8 * np.log(q / (1 - q))))), 0.96)
    wrong = (gold + rng.integers(1, k, m)) % k
    mach = np.where(rng.random(m) < p, gold, wrong)
    return mach, gold, q


def _round(mach, gold, q, k, budget, seed):
    p1 = pilot_probabilities(q, budget)
    first = draw(p1, seed=seed)
    rows = np.flatnonzero(first)
    sb = second_batch(mach, q, k, labels=budget, pilot_pi=p1, rows=rows, human_codes=gold[rows])
    xi = draw(sb.design.pi, seed=seed + 7919) | first
    return first, p1, xi, sb.design.pi


def test_combination_against_its_two_stages():
    mach, gold, q = _judge(1500, 0)
    first, p1, xi, pi = _round(mach, gold, q, 2, 300, 11)
    human = np.where(xi, gold, -1)
    whole = weighted_estimates(mach, human, xi, pi, q, n_classes=2)
    alone = weighted_estimates(mach, np.where(first, gold, -1), first, p1, q, n_classes=2)
    # weight 0: the round as written (its controls not fitted on the pilot, the default)
    r0 = two_stage_estimates(mach, human, xi, pi, q, n_classes=2, pilot=first, pilot_pi=p1,
                             weight=0.0)
    for a, b in zip(r0["class_shares"], whole["class_shares"]):
        assert a["estimate"] == pytest.approx(b["estimate"])
        assert a["half_width"] == pytest.approx(b["half_width"])
    # ... and with its controls fitted on the pilot's rows too
    ctrl = table_controls(mach, human, xi, pi, q, n_classes=2,
                          carried_weights=pilot_fit_weights(mach, q, pi, first, p1))
    fitted = weighted_estimates(mach, human, xi, pi, q, n_classes=2, controls=ctrl)
    r0f = two_stage_estimates(mach, human, xi, pi, q, n_classes=2, pilot=first, pilot_pi=p1,
                              weight=0.0, fit_on_pilot=True)
    for a, b, c in zip(r0f["class_shares"], fitted["class_shares"], whole["class_shares"]):
        assert a["estimate"] == pytest.approx(b["estimate"])
        assert a["half_width"] == pytest.approx(b["half_width"])
        assert a["estimate"] != pytest.approx(c["estimate"], abs=1e-9)
    # weight 1: the pilot's own estimate, its normal half-width z sd
    r1 = two_stage_estimates(mach, human, xi, pi, q, n_classes=2, pilot=first, pilot_pi=p1,
                             weight=1.0)
    for a, b in zip(r1["class_shares"], alone["class_shares"]):
        assert a["estimate"] == pytest.approx(b["estimate"])
    # the default: w = v2 / (v1 + v2) from each stage's half-width, variance v1 v2 / (v1 + v2)
    # times Meier's factor for an estimated weight, 1 + 4 w (1 - w) (1 / nu1 + 1 / nu2)
    r = two_stage_estimates(mach, human, xi, pi, q, n_classes=2, pilot=first, pilot_pi=p1)
    z = z_value(0.95)
    for c in range(2):
        e1, e2 = alone["class_shares"][c], whole["class_shares"][c]
        s1 = max(e1["ci_high"] - e1["estimate"], e1["estimate"] - e1["ci_low"]) / z
        s2 = max(e2["ci_high"] - e2["estimate"], e2["estimate"] - e2["ci_low"]) / z
        w = s2 ** 2 / (s1 ** 2 + s2 ** 2)
        assert r["stage_weights"][f"share_{c}"] == pytest.approx(w)
        want = w * alone["class_shares"][c]["estimate"] + \
            (1 - w) * whole["class_shares"][c]["estimate"]
        assert r["class_shares"][c]["estimate"] == pytest.approx(want)
        nu1 = alone["degrees_of_freedom"][f"share_{c}"]
        nu2 = whole["degrees_of_freedom"][f"share_{c}"]
        assert 1 < min(nu1, nu2) and max(nu1, nu2) < math.inf
        meier = 1 + 4 * w * (1 - w) * (1 / nu1 + 1 / nu2)
        assert r["class_shares"][c]["half_width"] == pytest.approx(
            z * math.sqrt(s1 ** 2 * s2 ** 2 / (s1 ** 2 + s2 ** 2) * meier), rel=1e-6)
        assert r["class_shares"][c]["half_width"] < min(s1, s2) * z
    assert r["method"] == "two-stage"
    assert r["accuracy"]["ci_high"] - r["accuracy"]["ci_low"] <= \
        whole["accuracy"]["ci_high"] - whole["accuracy"]["ci_low"] + 1e-12


def test_refuses_an_unlabelled_pilot_row_and_a_weight_outside():
    mach, gold, q = _judge(400, 1)
    first, p1, xi, pi = _round(mach, gold, q, 2, 150, 3)
    with pytest.raises(ValueError, match="weight"):
        two_stage_estimates(mach, np.where(xi, gold, -1), xi, pi, q, n_classes=2,
                            pilot=first, pilot_pi=p1, weight=1.5)
    bad = xi.copy()
    bad[np.flatnonzero(first)[0]] = False
    with pytest.raises(ValueError, match="pilot row"):
        two_stage_estimates(mach, np.where(bad, gold, -1), bad, pi, q, n_classes=2,
                            pilot=first, pilot_pi=p1)


@pytest.mark.parametrize("k, rare, weight, fit", [(2, 0.3, None, False), (2, 0.3, 0.3, False),
                                                  (3, None, None, False), (2, 0.3, None, True)])
def test_two_stage_is_valid_by_simulation(k, rare, weight, fit):
    # the second batch's probabilities depend on the pilot's labels; the pilot alone is a
    # Poisson sample of the table, and given it the round's estimate is unbiased, so their
    # combination covers every class share and the final accuracy over both batches' draws
    m, budget, rounds = 1500, 300, 300
    mach, gold, q = _judge(m, 5, k=k, rare=rare)
    truth = np.bincount(gold, minlength=k) / m
    cover, acc_cover, est = [], [], []
    for r in range(rounds):
        first, p1, xi, pi = _round(mach, gold, q, k, budget, 1000 + r)
        res = two_stage_estimates(mach, np.where(xi, gold, -1), xi, pi, q, n_classes=k,
                                  pilot=first, pilot_pi=p1, weight=weight, fit_on_pilot=fit)
        sh = res["class_shares"]
        cover.append([x["ci_low"] <= truth[c] <= x["ci_high"] for c, x in enumerate(sh)])
        est.append([x["estimate"] for x in sh])
        final = float((np.where(xi, gold, mach) == gold).mean())
        acc_cover.append(res["accuracy"]["ci_low"] <= final <= res["accuracy"]["ci_high"])
    assert np.mean(cover, axis=0).min() >= 0.93
    assert np.mean(acc_cover) >= 0.93
    est = np.asarray(est)
    se = est.std(axis=0) / np.sqrt(rounds)
    assert np.all(np.abs(est.mean(axis=0) - truth) < 3.5 * se + 1e-4)


def test_pilot_fit_weights_hand_worked():
    # pilot rows 1 (class 0, q 0.7) and 4 (class 1, q 0.8), p1 = 0.5 everywhere: n1 = 3;
    # outside the pilot p2 = 0.4, 0.2 (class 0, q 0.6, 0.9) and 0.5, 0.3 (class 1): n2 = 1.4.
    # p2~ interpolated: row 1 0.4 - 0.2 / 3 = 1 / 3, row 4 0.5 - 0.2 * 2 / 3 = 11 / 30;
    # weights (n1 / n2) (1 / p1) (1 / p2~ - 1)
    mach = np.array([0, 0, 0, 1, 1, 1])
    q = np.array([0.6, 0.7, 0.9, 0.6, 0.8, 0.9])
    pi = np.array([0.4, 1.0, 0.2, 0.5, 1.0, 0.3])
    pilot = np.array([False, True, False, False, True, False])
    w = pilot_fit_weights(mach, q, pi, pilot, np.full(6, 0.5))
    ratio = 3 / 1.4 / 0.5
    assert w == pytest.approx([0, ratio * 2, 0, 0, ratio * (30 / 11 - 1), 0], abs=1e-9)
    # nothing drawn with p2 < 1 outside the pilot: no weights
    assert pilot_fit_weights(mach, q, np.where(pilot, 1.0, 1.0), pilot, np.full(6, 0.5)) is None
