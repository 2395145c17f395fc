"""Planning a round with inclusion probabilities (``core.evaluation.sampling.plan``): the round
table's contract, plain random labelling, and earlier labels carried into a round (the plan on
recalibrated confidences, the rows carried at pi = 1, hand-worked budgets, and the estimate's
coverage by simulation with a pilot drawn afresh every round)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.sampling.active import design_frontier
from core.evaluation.sampling.plan import plan_design
from core.evaluation.sampling.design import EarlierLabels, annotator_table, load_design, queue_table
from core.evaluation.estimate.weighted import weighted_estimates
from tests.core.test_evaluation_sampling_active import demo_like


def test_plan_design_table_round_trip():
    df = demo_like()
    design = load_design(df)
    plan = plan_design(design, labels=90, seed=5)
    sel, pi = plan.selection, plan.inclusion
    assert set(sel) <= {"routed", "audit", "machine"}
    assert ((sel == "routed") == (pi >= 1)).all()
    assert pi.sum() == pytest.approx(90, rel=1e-6)
    # the queue: audit rows first, then routed rows by descending chance of being wrong
    rank = plan.queue_rank
    queued = np.flatnonzero(np.isfinite(rank))
    assert set(queued) == set(np.flatnonzero(sel != "machine"))
    routed = np.flatnonzero(sel == "routed")
    if len(routed):
        assert rank[routed].min() > rank[sel == "audit"].max()
    table = queue_table(design, sel, rank, pi)
    back = load_design(table)
    assert back.inclusion == pytest.approx(pi)
    assert "inclusion_probability" not in annotator_table(design, sel, rank).columns
    # the same seed draws the same rows
    assert (plan_design(design, labels=90, seed=5).selection == sel).all()


def test_plan_design_random_kind_has_equal_probabilities():
    design = load_design(demo_like())
    plan = plan_design(design, kind="random", labels=60, seed=1)
    assert np.ptp(plan.inclusion) == 0 and plan.inclusion[0] == pytest.approx(0.1)
    assert (plan.selection != "routed").all()


def test_plan_design_refuses_a_routed_table():
    df = demo_like()
    df["selection"] = "machine"
    with pytest.raises(DataError, match="already routes"):
        plan_design(load_design(df), labels=10)


def test_known_rows_hand_worked():
    # 1,000 rows at confidence 0.8, 100 of them labelled already, 180 new labels: the others
    # get pi = 180 / 900 = 0.2, the known rows 1. Expected accuracy (100 + 900 (0.2 + 0.8 *
    # 0.8)) / 1000 = 0.856; variance (1 / 0.2 - 1) 900 * 0.16 = 576 (in 1 / M^2) against
    # PPI++'s on 280 random labels, 0.16 / 280 = 571.43: worth 571.43 / 576 = 0.992.
    codes = np.tile([0, 1], 500)
    known = np.zeros(1000, dtype=bool)
    known[:100] = True
    rec, table = design_frontier(codes, np.full(1000, 0.8), 2, labels=180, known=known)
    assert (rec.pi[:100] == 1).all() and np.allclose(rec.pi[100:], 0.2)
    for _, row in table[table["design"] != "routing"].iterrows():
        assert row["expected_labels"] == pytest.approx(180)
        assert row["expected_accuracy"] == pytest.approx(0.856)
        assert row["worth_vs_ppi"] == pytest.approx(0.16 * 1e6 / 280 / 576, rel=1e-6)
    assert rec.n_routed == 0  # the known rows are not counted as routed by the plan
    with pytest.raises(DataError, match="the budget of 901 labels is more than the 900 rows not "
                                        "labelled yet \\(the other 100 are labelled already\\)"):
        design_frontier(codes, np.full(1000, 0.8), 2, labels=901, known=known)
    with pytest.raises(DataError, match="every row is already labelled"):
        design_frontier(codes, np.full(1000, 0.8), 2, labels=10, known=np.ones(1000, bool))


def _overconfident(m=3000, seed=0):
    """A two-class judge reporting 0.95 where it is right 80 % of the time, 0.7 where 60 %."""
    rng = np.random.default_rng(seed)
    sure = rng.random(m) < 0.7
    gold = rng.integers(0, 2, m)
    right = rng.random(m) < np.where(sure, 0.8, 0.6)
    mach = np.where(right, gold, 1 - gold)
    return pd.DataFrame({"machine_label": mach, "machine_confidence": np.where(sure, 0.95, 0.7),
                         "human_label": gold})


def test_plan_design_carries_earlier_labels():
    df = _overconfident()
    design = load_design(df)
    rows = np.arange(0, 3000, 25)  # 120 earlier labels
    earlier = EarlierLabels(rows=rows, labels=df["human_label"].to_numpy()[rows],
                            source="round 1")
    plain = plan_design(design, labels=300, seed=2)
    plan = plan_design(design, labels=300, seed=2, earlier=earlier)
    assert plan.carried is earlier
    assert (plan.selection[rows] == "routed").all() and (plan.inclusion[rows] == 1).all()
    assert np.isnan(plan.queue_rank[rows]).all()  # already labelled: not queued
    free = np.setdiff1d(np.arange(3000), rows)
    assert plan.inclusion[free].sum() == pytest.approx(300, rel=1e-6)
    queued = np.flatnonzero(np.isfinite(plan.queue_rank))
    assert set(queued) == set(free[plan.selection[free] != "machine"])
    assert np.sort(plan.queue_rank[queued]).tolist() == list(range(1, len(queued) + 1))
    # the judge says 95 % and 70 %, the labels show about 80 % and 60 %: the expectations move
    assert plain.design.expected_accuracy > plan.design.expected_accuracy + 0.03


def test_earlier_labels_are_checked():
    df = _overconfident(m=200)
    design = load_design(df)
    with pytest.raises(DataError, match=r"earlier label 'x' \(round 4, row 3\) is not one"):
        plan_design(design, labels=20, earlier=EarlierLabels(
            rows=np.arange(2, 40), labels=np.r_[["x"], np.zeros(37, int)], source="round 4"))
    with pytest.raises(DataError, match="name a row twice"):
        plan_design(design, labels=20, earlier=EarlierLabels(
            rows=np.r_[np.arange(39), [0]], labels=np.zeros(40, int)))
    with pytest.raises(DataError, match="at least 30 labelled rows; 10 given"):
        plan_design(design, labels=20, earlier=EarlierLabels(
            rows=np.arange(10), labels=df["human_label"].to_numpy()[:10]))


def test_estimate_with_carried_labels_covers():
    """A fresh pilot of 100 random labels every round, the round planned on it and the pilot
    carried: the class-share and accuracy intervals cover the truth (the pilot rows count
    exactly, the new draw is Poisson given the pilot)."""
    df = _overconfident(m=2000, seed=5)
    design = load_design(df)
    gold = df["human_label"].to_numpy()
    mach = df["machine_label"].to_numpy()
    q = df["machine_confidence"].to_numpy()
    truth = gold.mean()
    rng = np.random.default_rng(9)
    cover, cover_acc, est = [], [], []
    for r in range(120):
        rows = rng.choice(2000, 100, replace=False)
        plan = plan_design(design, labels=250, seed=r,
                           earlier=EarlierLabels(rows=rows, labels=gold[rows]))
        pi = plan.inclusion
        lab = np.isin(plan.selection, ["routed", "audit"])
        res = weighted_estimates(mach, np.where(lab, gold, -1), lab, pi, q, n_classes=2)
        share = res["class_shares"][1]
        cover.append(share["ci_low"] <= truth <= share["ci_high"])
        est.append(share["estimate"])
        final_acc = (np.where(lab, gold, mach) == gold).mean()
        cover_acc.append(res["accuracy"]["ci_low"] <= final_acc <= res["accuracy"]["ci_high"])
    assert np.mean(cover) >= 0.9 and np.mean(cover_acc) >= 0.9
    assert abs(np.mean(est) - truth) < 3 * np.std(est) / np.sqrt(len(est))


def test_plan_design_for_the_two_stage_interval_with_a_pilot_half_width():
    """Planned for the combined interval, the rest of a two-batch budget is the frontier's
    design at the width ratio second_ratio gives (wider, more accurate); no pilot half-width
    (or one that is not a number) leaves the plan as it was."""
    from core.evaluation.sampling.active import machine_probabilities
    from core.evaluation.sampling.forecast import calibrated_probabilities
    from core.evaluation.sampling.two_batch import second_ratio

    df = _overconfident()
    design = load_design(df)
    rows = np.arange(0, 3000, 25)
    earlier = EarlierLabels(rows=rows, labels=df["human_label"].to_numpy()[rows])
    from core.evaluation.estimate import estimator_half_width

    model = {"width_model": estimator_half_width}  # as core.workspace.active_rounds plans
    plain = plan_design(design, labels=300, seed=2, earlier=earlier, **model)
    assert np.array_equal(plan_design(design, labels=300, seed=2, earlier=earlier,
                                      pilot_half=float("nan")).inclusion, plain.inclusion)
    plan = plan_design(design, labels=300, seed=2, earlier=earlier, pilot_half=0.05, **model)
    ideal = plan_design(design, labels=300, seed=2, earlier=earlier, pilot_half=0.05)
    assert np.array_equal(ideal.inclusion, plan.inclusion)  # the model leaves the choice
    inp = design.inputs()
    classes = list(design.data.labels)
    codes = np.array([classes.index(v) for v in design.machine_label])
    human = np.array([classes.index(v) for v in earlier.labels])
    probs = calibrated_probabilities(codes, inp.a, 2, rows=rows, human_codes=human)
    ratio = second_ratio(probs, machine_probabilities(codes, inp.a, 2), 300 + len(rows), 0.95,
                         0.05)
    assert ratio > 0.95
    assert plan.design.expected_accuracy >= plain.design.expected_accuracy
    # the plan says what the two stages' estimate is expected to report (the model of
    # core.evaluation.estimate.expected_width, combined with the pilot's 0.05), and so does
    # every row of the frontier that targets_note and meets_targets read; worth against PPI++
    # on the 300 + 120 labels
    from core.evaluation.sampling.forecast import ppi_expected_half_width
    from core.evaluation.sampling.active import ACCURACY_TOLERANCE

    h = estimator_half_width(probs, codes, inp.a, plan.inclusion, pilot_half=0.05)
    assert plan.design.expected_half_width == pytest.approx(h, rel=1e-12)
    assert plain.design.expected_half_width == pytest.approx(
        estimator_half_width(probs, codes, inp.a, plain.inclusion), rel=1e-12)
    ppi = ppi_expected_half_width(probs, machine_probabilities(codes, inp.a, 2), 300 + 120)
    assert plan.design.worth_vs_ppi == pytest.approx((ppi / h) ** 2, rel=1e-9)
    table = plan.design.frontier
    row = table[table["recommended"]].iloc[0]
    assert float(row["expected_half_width"]) == pytest.approx(h, rel=1e-12)
    assert bool(row["meets_targets"]) == plan.design.meets_targets
    act = table[table["design"] == "active"]
    assert (act["expected_half_width"].astype(float) < 0.05).all()  # combined with the pilot
    worth = act["worth_vs_ppi"].astype(float)
    assert np.allclose(worth, (ppi / act["expected_half_width"].astype(float)) ** 2, rtol=1e-9)
    assert (act["meets_targets"].astype(bool) == (
        (act["accuracy_vs_routing"].astype(float) >= -ACCURACY_TOLERANCE - 1e-12)
        & (worth >= 1 - 1e-12))).all()
    lo, hi = plan.expected_range["expected_half_width"]
    assert lo <= h <= hi and hi < 0.05
    assert (plan.inclusion[rows] == 1).all()
    # without the model: the ideal estimator's, combined with the pilot's on every row too,
    # 1 / sqrt(1 / h2^2 + 1 / 0.05^2) from the second batch's own h2 (the plain frontier's)
    frontier = ideal.design.frontier
    rec = frontier[frontier["recommended"]].iloc[0]
    assert float(rec["expected_half_width"]) == pytest.approx(ideal.design.expected_half_width)
    act = frontier[frontier["design"] == "active"]
    assert (act["expected_half_width"].astype(float) < 0.05).all()
    own = design_frontier(codes, inp.a, 2, labels=300, probabilities=probs, width_ratio=ratio,
                          known=np.isin(np.arange(3000), rows),
                          gain=1 - probs[np.arange(3000), codes], reference_gain=1 - inp.a)[0]
    h2 = own.expected_half_width
    assert ideal.design.expected_half_width == pytest.approx(
        1 / np.sqrt(1 / h2 ** 2 + 1 / 0.05 ** 2), rel=1e-9)


def test_combined_half_width_hand_worked():
    from core.evaluation.sampling.plan_range import combined_half_width

    # 1 / sqrt(1 / 0.03^2 + 1 / 0.04^2) = 1 / sqrt(1111.1 + 625) = 0.024
    assert combined_half_width(0.03, 0.04) == pytest.approx(0.024, rel=1e-12)
    assert combined_half_width(0.03, None) == 0.03
    assert combined_half_width(0.03, float("nan")) == 0.03
    assert combined_half_width(0.0, 0.04) == 0.0
