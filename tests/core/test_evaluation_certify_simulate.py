"""Repeated rounds against known truth (``core.evaluation.certify.simulate``): the design simulation
behind the validity panel of active and random rounds, against an independent loop."""

from __future__ import annotations

import numpy as np
import pytest

from core.evaluation.sampling.active import design_frontier
from core.evaluation.sampling.draw import draw
from core.evaluation.certify.simulate import simulate_design, validity_table
from core.evaluation.estimate.weighted import weighted_estimates


def test_simulate_design_matches_an_independent_loop():
    rng = np.random.default_rng(3)
    m = 800
    q = rng.beta(5, 1.5, m)
    gold = rng.integers(0, 2, m)
    mach = np.where(rng.random(m) < q, gold, 1 - gold)
    rec, _ = design_frontier(mach, q, 2, labels=150)
    s = simulate_design(q, mach, gold, rec.pi, rounds=60, seed=2)
    truth = np.bincount(gold, minlength=2) / m
    cover, acc_cover, labelled = np.zeros(2), 0, []
    for r in range(60):
        xi = draw(rec.pi, seed=2 * 1_000_003 + r)
        res = weighted_estimates(mach, np.where(xi, gold, -1), xi, rec.pi, q, n_classes=2)
        for c in (0, 1):
            x = res["class_shares"][c]
            cover[c] += x["ci_low"] <= truth[c] <= x["ci_high"]
        acc = (np.where(xi, gold, mach) == gold).mean()
        acc_cover += res["accuracy"]["ci_low"] <= acc <= res["accuracy"]["ci_high"]
        labelled.append(xi.sum())
    assert s.summary["cover_0"] == pytest.approx(cover[0] / 60)
    assert s.summary["cover_1"] == pytest.approx(cover[1] / 60)
    assert s.summary["cover_accuracy"] == pytest.approx(acc_cover / 60)
    assert s.summary["n_labelled"] == pytest.approx(np.mean(labelled))
    assert s.truth["share_0"] == pytest.approx(truth[0])
    table = validity_table(s.summary, [0, 1])
    assert table["quantity"].tolist() == ["share of 0", "share of 1", "accuracy of final labels"]
    # PPI++ with as many random labels is the baseline: it covers too, with a wider interval
    assert 0.8 <= table["plain_coverage"].iloc[0] <= 1.0
