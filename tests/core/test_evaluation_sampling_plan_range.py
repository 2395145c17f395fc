"""The range of a plan's expectations under miscalibrated confidences (core.evaluation.sampling.plan_range),
against hand-worked values and simulation truth."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.evaluation.sampling.active import machine_probabilities
from core.evaluation.sampling.plan import plan_design
from core.evaluation.sampling.design import EarlierLabels, load_design
from core.evaluation.sampling.plan_range import (
    OVERCONFIDENCE,
    UNDERCONFIDENCE,
    calibration_gaps,
    expectations_under,
    expected_range,
    miscalibrated,
    range_sentence,
)


def test_expectations_under_hand_worked():
    # 4 rows, machine says class 0 everywhere, chance right 0.9 0.8 0.6 1.0
    p = np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4], [1.0, 0.0]])
    pi = np.array([0.5, 0.5, 1.0, 0.25])
    acc, half = expectations_under(p, np.zeros(4, int), pi)
    # (0.5 + 0.5 * 0.9 + 0.5 + 0.5 * 0.8 + 1 + 0.25 + 0.75 * 1) / 4
    assert acc == pytest.approx(3.85 / 4)
    # (1 * 0.09 + 1 * 0.16 + 0 * 0.24 + 3 * 0) / 16 = 0.015625, sqrt = 0.125
    assert half == pytest.approx(1.959964 * 0.125, rel=1e-6)


def test_miscalibrated_shift_and_temperature_hand_worked():
    p = np.array([[0.5, 0.3, 0.2], [0.9, 0.05, 0.05], [0.2, 0.8, 0.0]])
    codes = np.array([0, 0, 1])
    r = np.array([0.5, 0.9, 0.8])
    logit = np.log(r / (1 - r))
    for how in ("shift", "temperature"):
        out = miscalibrated(p, codes, 0.1, how=how)
        right = out[np.arange(3), codes]
        assert right.mean() == pytest.approx(r.mean() - 0.1, abs=1e-9)
        assert out.sum(axis=1) == pytest.approx(np.ones(3))
        new = np.log(right / (1 - right))
        if how == "shift":  # one constant on the logit scale
            assert np.ptp(new - logit) == pytest.approx(0, abs=1e-6)
        else:  # one ratio: the row at 1/2 stays at 1/2
            assert right[0] == pytest.approx(0.5, abs=1e-9)
            assert new[2] / logit[2] == pytest.approx(new[1] / logit[1], rel=1e-6)
        # the wrong mass keeps the planned split: 0.3 : 0.2 on row 0, all on class 0 in row 2
        assert out[0, 1] / out[0, 2] == pytest.approx(1.5)
        assert out[2, 2] == 0 and out[2, 0] == pytest.approx(1 - right[2])
    # no temperature brings a mean of 0.733 to 0.1 (the rows are >= 1/2 at any temperature)
    assert miscalibrated(p, codes, 0.633, how="temperature") is None


def test_calibration_gaps_hand_worked():
    assert calibration_gaps(None) == (-UNDERCONFIDENCE, OVERCONFIDENCE)
    # 150 labels at 80 %: 1.96 sqrt(0.16 / 150) = 0.0640
    lo, hi = calibration_gaps(150, 0.8)
    assert hi == pytest.approx(1.96 * math.sqrt(0.16 / 150)) and lo == -UNDERCONFIDENCE
    lo, hi = calibration_gaps(1500, 0.8)
    assert hi == -lo == pytest.approx(1.96 * math.sqrt(0.16 / 1500))


def _judge(m, over, seed):
    """Two classes; the judge reports q, is right with chance sigmoid(logit(q) - over)."""
    rng = np.random.default_rng(seed)
    q = rng.choice([0.6, 0.7, 0.8, 0.9, 0.95, 0.99], size=m)
    z = np.log(q / (1 - q)) - over
    right = rng.random(m) < 1 / (1 + np.exp(-z))
    gold = rng.integers(0, 2, m)
    return pd.DataFrame({"machine_label": np.where(right, gold, 1 - gold),
                         "machine_confidence": q, "human_label": gold})


def test_the_range_holds_what_an_overconfident_judge_realises():
    """Simulation truth: a judge overconfident by about 8 points (the plan's point is then
    several points too high) realises a final accuracy inside the range; a calibrated one
    realises the point."""
    m, budget = 4000, 400
    for over, point_ok in ((0.0, True), (0.5, False)):
        df = _judge(m, over, seed=1)
        design = load_design(df.drop(columns="human_label"))
        plan = plan_design(design, labels=budget, seed=0)
        gap = df["machine_confidence"].mean() - (df.machine_label == df.human_label).mean()
        rng_ = plan.expected_range
        acc = []
        for s in range(30):
            sel = plan_design(design, labels=budget, seed=s).selection
            final = np.where(sel == "machine", df.machine_label, df.human_label)
            acc.append((final == df.human_label).mean())
        realised = float(np.mean(acc))
        lo, hi = rng_["expected_accuracy"]
        assert lo <= realised <= hi, (over, gap, lo, realised, hi)
        off = plan.design.expected_accuracy - realised
        assert (abs(off) < 0.01) == point_ok, (over, gap, off)
    assert gap > 0.06  # the second judge is overconfident by the size seen on real judges


def test_earlier_labels_narrow_the_range():
    df = _judge(4000, 0.5, seed=2)
    design = load_design(df.drop(columns="human_label"))
    rows = np.arange(0, 4000, 20)  # 200 earlier labels
    earlier = EarlierLabels(rows=rows, labels=df["human_label"].to_numpy()[rows], source="round 1")
    plain = plan_design(design, labels=400, seed=0).expected_range
    cal = plan_design(design, labels=400, seed=0, earlier=earlier).expected_range
    assert cal["rests_on"] == "recalibrated" and cal["n_labels"] == pytest.approx(200)
    w0 = np.diff(plain["expected_accuracy"])[0]
    w1 = np.diff(cal["expected_accuracy"])[0]
    assert w1 < 0.8 * w0
    # the recalibrated range holds the truth too
    acc = []
    for s in range(30):
        sel = plan_design(design, labels=400, seed=s, earlier=earlier).selection
        final = np.where(sel == "machine", df.machine_label, df.human_label)
        acc.append((final == df.human_label).mean())
    assert cal["expected_accuracy"][0] <= np.mean(acc) <= cal["expected_accuracy"][1]
    assert "recalibrated on the labels of round 1" in range_sentence(cal, source="round 1")
    assert "no labels check them" in range_sentence(plain)


def test_expected_range_contains_the_plan_and_worth():
    codes = np.array([0, 1] * 50)
    q = np.linspace(0.55, 0.99, 100)
    f = machine_probabilities(codes, q, 2)
    pi = np.full(100, 0.2)
    out = expected_range(f, codes, pi, control=f, n_random=20)
    acc, half = expectations_under(f, codes, pi)
    assert out["expected_accuracy"][0] < acc < out["expected_accuracy"][1]
    assert out["expected_half_width"][0] <= half <= out["expected_half_width"][1]
    assert out["worth_vs_ppi"][0] > 0


def test_planned_vs_realised_hand_worked():
    from core.evaluation.sampling.plan_range import planned_vs_realised

    record = {"design": "active", "expected_accuracy": 0.9, "expected_half_width": 0.03,
              "expected_labels": 290.0, "calibrated_on": {"source": "round 1", "labels": 10},
              "expected_range": {"expected_accuracy": [0.8, 0.92],
                                 "expected_half_width": [0.028, 0.04]}}
    est = {"accuracy": {"estimate": 0.85}, "n_labelled": 297,
           "class_shares": {"a": {"half_width": 0.031}, "b": {"half_width": 0.045}}}
    rows = {r["quantity"]: r for r in planned_vs_realised(record, est)}
    acc = rows["final accuracy"]
    assert (acc["planned"], acc["realised"], acc["in_range"]) == (0.9, 0.85, True)
    assert acc["difference"] == pytest.approx(-0.05)
    half = rows["widest class-share half-width"]  # the widest class: b
    assert half["realised"] == 0.045 and half["in_range"] is False
    assert half["planned_low"] == 0.028 and half["planned_high"] == 0.04
    lab = rows["labels"]  # 290 new + 10 carried
    assert lab["planned"] == 300 and lab["realised"] == 297 and lab["in_range"] is None
    # routing rounds and rounds without an estimate: nothing to compare
    assert planned_vs_realised({**record, "design": "routing"}, est) == []
    assert planned_vs_realised(record, None) == []
    # the first of two batches compares too: 100 expected labels, 93 got, nothing carried
    pilot = {"design": "pilot", "expected_accuracy": 0.9, "expected_half_width": 0.05,
             "expected_labels": 100.0}
    rows = {r["quantity"]: r for r in planned_vs_realised(pilot, {**est, "n_labelled": 93})}
    assert (rows["labels"]["planned"], rows["labels"]["realised"]) == (100, 93)
    assert rows["final accuracy"]["difference"] == pytest.approx(-0.05)
    # an old record without a range still compares the points
    old = {k: v for k, v in record.items() if k != "expected_range"}
    assert planned_vs_realised(old, est)[0]["planned_low"] is None


def test_confidences_below_chance_are_said_not_to_be_probabilities():
    codes = np.zeros(10, int)
    q = np.array([0.3, 0.4] + [0.9] * 8)  # 2 of 10 below 1/2: a trust score, not a probability
    f = machine_probabilities(codes, q, 2)
    out = expected_range(f, codes, np.full(10, 0.5), control=f, n_random=5)
    assert out["below_chance"] == pytest.approx(0.2)
    assert "20% of them are below 1/(number of classes)" in range_sentence(out)
    q[:2] = 0.6
    f = machine_probabilities(codes, q, 2)
    out = expected_range(f, codes, np.full(10, 0.5), control=f, n_random=5)
    assert out["below_chance"] == 0 and "no labels check them yet" in range_sentence(out)


def test_meets_targets_range_a_design_that_is_routing_hand_worked():
    # the design routes exactly the reference's rows: under every model its accuracy is
    # routing's (gap 0), and it labels some uncertain rows with probability 0, so it gives
    # no interval and is worth nothing: the targets are never met
    codes = np.zeros(4, dtype=int)
    p = np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4], [0.7, 0.3]])
    route = np.array([0.0, 0.0, 1.0, 0.0])
    out = expected_range(p, codes, route, control=p, n_random=1, routing_pi=route)
    assert out["accuracy_vs_routing"] == pytest.approx([0.0, 0.0], abs=1e-12)
    assert out["meets_targets"] == [False, False]
    # without the reference, no such keys (the range as before)
    assert "meets_targets" not in expected_range(p, codes, route, control=p, n_random=1)


def test_meets_targets_range_holds_the_plans_own_verdict():
    rng = np.random.default_rng(4)
    m = 1200
    q = rng.uniform(0.5, 0.99, m)
    mach = rng.integers(0, 2, m)
    df = pd.DataFrame({"machine_label": mach, "machine_confidence": q})
    for labels in (150, 600):
        plan = plan_design(load_design(df), labels=labels, seed=0)
        rg, d = plan.expected_range, plan.design
        lo, hi = rg["accuracy_vs_routing"]
        assert lo - 1e-9 <= d.accuracy_vs_routing <= hi + 1e-9
        assert rg["meets_targets"][0] <= d.meets_targets <= rg["meets_targets"][1]
        assert isinstance(rg["meets_targets"][0], bool)


def test_range_sentence_says_when_miscalibration_decides_the_targets():
    base = {"expected_accuracy": [0.8, 0.9], "expected_half_width": [0.02, 0.03],
            "gaps": [-0.05, 0.1], "below_chance": 0.0, "rests_on": "confidences",
            "n_labels": None}
    assert "may or may not keep both promises" in range_sentence(
        {**base, "meets_targets": [False, True]})
    assert "promises" not in range_sentence({**base, "meets_targets": [True, True]})
    assert "promises" not in range_sentence(base)
