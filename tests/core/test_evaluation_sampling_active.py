"""The active design (``core.evaluation.sampling.active``): hand-worked square-root rules, the optimum
against an independent convex solver (cvxpy), the frontier, Poisson draws and the checks of
a round table's probabilities."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.sampling.active import (ACCURACY_TOLERANCE, DEFAULT_FLOOR, DEFAULT_WIDTH_RATIO,
                                    active_design,
                                    design_frontier, inclusion_probabilities,
                                    machine_probabilities, routing_design, row_uncertainty)
from core.evaluation.sampling.promises import target_note
from core.evaluation.sampling.draw import draw


def test_square_root_rule_hand_worked():
    # s = 0.2, 0.4, 0.6, unit cost, budget 0.6: pi = s * B / sum(s) = 0.1, 0.2, 0.3
    pi = inclusion_probabilities(np.array([0.04, 0.16, 0.36]), np.ones(3), 0.6)
    assert pi == pytest.approx([0.1, 0.2, 0.3], rel=1e-8)


def test_per_row_cost_hand_worked():
    # equal uncertainty, costs 1 and 4: pi_1 / pi_2 = sqrt(4 / 1) = 2;
    # 1 * pi_1 + 4 * pi_2 = 1.2 -> pi_2 = 0.2, pi_1 = 0.4
    pi = inclusion_probabilities(np.array([0.25, 0.25]), np.array([1.0, 4.0]), 1.2)
    assert pi == pytest.approx([0.4, 0.2], rel=1e-8)


def test_cap_at_one_and_the_rest_share_the_budget():
    # s = 0.9, 0.1, 0.1, budget 1.5: the first row is capped at 1 (0.9 * 1.5 / 1.1 > 1);
    # the other two share 0.5 equally
    pi = inclusion_probabilities(np.array([0.81, 0.01, 0.01]), np.ones(3), 1.5)
    assert pi == pytest.approx([1.0, 0.25, 0.25], rel=1e-8)


def test_floor_keeps_every_row_drawable():
    pi = inclusion_probabilities(np.array([0.0, 0.25, 0.25, 0.25]), np.ones(4), 1.0, floor=0.1)
    assert pi[0] == pytest.approx(0.1)
    assert pi[1:] == pytest.approx([0.3, 0.3, 0.3], rel=1e-8)


@pytest.mark.parametrize("mu", [0.0, 0.5, 3.0])
def test_optimum_matches_an_independent_convex_solver(mu):
    rng = np.random.default_rng(4)
    m = 40
    s2 = rng.uniform(0.01, 0.25, m)
    cost = rng.uniform(0.5, 3.0, m)
    gain = rng.uniform(0, 1, m)
    budget = 0.3 * cost.sum()
    floor = 0.05
    ours = inclusion_probabilities(s2, cost, budget, gain=gain, mu=mu, floor=floor)
    p = cp.Variable(m)
    objective = cp.Minimize(cp.sum(cp.multiply(s2, cp.inv_pos(p))) - mu * gain @ p)
    prob = cp.Problem(objective, [cost @ p <= budget, p >= floor, p <= 1])
    prob.solve(solver=cp.CLARABEL)

    def f(x):
        return float((s2 / x).sum() - mu * (gain * x).sum())

    assert cost @ ours <= budget * (1 + 1e-8)
    assert ours.min() >= floor - 1e-12 and ours.max() <= 1 + 1e-12
    assert f(ours) <= f(np.clip(p.value, floor, 1)) + 1e-5 * abs(f(ours))


def test_large_mu_routes_the_rows_most_likely_wrong():
    q = np.array([0.99, 0.6, 0.95, 0.55, 0.9, 0.98])
    s2 = row_uncertainty(q, 2)
    pi = inclusion_probabilities(s2, np.ones(6), 2.2, gain=1 - q, mu=1e6)
    assert pi[[1, 3]] == pytest.approx([1.0, 1.0])
    assert np.all(pi[[0, 2, 4, 5]] < 0.2)
    assert pi.sum() == pytest.approx(2.2)


def test_machine_probabilities_and_uncertainty():
    f = machine_probabilities(np.array([0, 2]), np.array([0.7, 0.4]), 3)
    assert f == pytest.approx(np.array([[0.7, 0.15, 0.15], [0.3, 0.3, 0.4]]))
    # sum_c f (1 - f): 0.21 + 2 * 0.1275 = 0.465
    assert row_uncertainty(np.array([0.7]), 3) == pytest.approx([0.465])


def test_routing_design_is_routing():
    q = np.array([0.9, 0.5, 0.8, 0.6])
    pi = routing_design(q, np.ones(4), 2.0, gain=1 - q)
    assert pi.tolist() == [0.0, 1.0, 0.0, 1.0]
    pi = routing_design(q, np.ones(4), 2.0, gain=1 - q, audit_share=0.5)
    assert pi.tolist() == [1 / 3, 1.0, 1 / 3, 1 / 3]


def test_frontier_marks_one_recommendation_within_the_width_bound():
    rng = np.random.default_rng(0)
    m = 2000
    q = rng.beta(5, 1.5, m)
    codes = rng.integers(0, 2, m)
    rec, table = design_frontier(codes, q, 2, labels=300)
    assert table["recommended"].sum() == 1
    assert set(table["design"]) == {"active", "routing", "random"}
    rate = 300 / m
    random_hw = table.loc[table["design"] == "random", "expected_half_width"].iloc[0]
    # PPI++ parity (the random design without the finite-population correction), times 0.95
    bound = 0.95 * random_hw / np.sqrt(1 - rate) * (1 + 1e-9)
    assert DEFAULT_WIDTH_RATIO == 0.95
    assert rec.expected_half_width <= bound
    active = table[table["design"] == "active"]
    allowed = active[active["expected_half_width"] <= bound]
    assert rec.expected_accuracy == pytest.approx(allowed["expected_accuracy"].max())
    assert np.allclose(active["expected_labels"], 300)
    # the random design's expected half-width, by hand: z sqrt((1/rate - 1) sum f(1-f)) / M
    f = machine_probabilities(codes, q, 2)
    by_hand = 1.959963984540054 * np.sqrt((1 / rate - 1) * (f * (1 - f)).sum(axis=0).max()) / m
    assert random_hw == pytest.approx(by_hand, rel=1e-9)


def test_targets_when_confidences_are_all_equal_hand_worked():
    # every row alike: every design labels at the same rate 0.2, as accurate as routing, and
    # its interval (with the finite-population correction) is worth 1 / (1 - 0.2) = 1.25 times
    # PPI++'s (without it): both targets met, no warning
    codes = np.tile([0, 1], 500)
    rec, table = design_frontier(codes, np.full(1000, 0.8), 2, labels=200)
    active = table[table["design"] == "active"]
    assert np.allclose(active["accuracy_vs_routing"], 0.0, atol=1e-9)
    assert np.allclose(active["worth_vs_ppi"], 1.25, rtol=1e-6)
    assert active["meets_targets"].all() and rec.meets_targets
    assert table.attrs["targets_reachable"] is True
    assert target_note(table) is None


def test_targets_conflict_hand_worked():
    # 200 rows at confidence 0.6, 800 at 0.98, 200 labels. Routing labels the 200 unsure rows:
    # accuracy (200 + 800 * 0.98) / 1000 = 0.984. A design with pi1 on the unsure rows has
    # pi2 = (1 - pi1) / 4 on the others and accuracy (908 + 76 pi1) / 1000, within 1 point of
    # routing only for pi1 >= 66 / 76. Its variance sum (1/pi - 1) f(1-f) is then at least
    # (10/66) 48 + (1 / pi2 - 1) 15.68 = 468.27 (pi2 = 10 / 304), against PPI++'s
    # (1 / 0.2 - 1) 63.68 / 0.8 = 318.4: no design within 1 point is worth more than
    # 318.4 / 468.27 = 0.680 of PPI++'s labels.
    q = np.r_[np.full(200, 0.6), np.full(800, 0.98)]
    codes = np.zeros(1000, dtype=int)
    rec, table = design_frontier(codes, q, 2, labels=200, floor=0.0, n_grid=80)
    active = table[table["design"] == "active"]
    route = table[table["design"] == "routing"].iloc[0]
    assert route["expected_accuracy"] == pytest.approx(0.984)
    near = active[active["accuracy_vs_routing"] >= -ACCURACY_TOLERANCE]
    assert len(near) and (near["worth_vs_ppi"] <= 318.4 / 468.27 + 1e-6).all()
    assert not active["meets_targets"].any()
    assert table.attrs["targets_reachable"] is False
    note = target_note(table)
    assert note is not None and "no design is expected both" in note
    assert f"{rec.worth_vs_ppi:.2f} times PPI++" in note
    # a design asked for by mu is compared the same way
    d = active_design(codes, q, 2, mu=0.0, labels=200, floor=0.0)
    assert d.worth_vs_ppi == pytest.approx(active.iloc[0]["worth_vs_ppi"], rel=1e-9)
    assert d.accuracy_vs_routing == pytest.approx(active.iloc[0]["accuracy_vs_routing"])


def test_effort_budget_spends_the_effort():
    rng = np.random.default_rng(1)
    q = rng.beta(5, 1.5, 500)
    effort = rng.gamma(2, 10, 500)
    rec, table = design_frontier(rng.integers(0, 2, 500), q, 2, effort_budget=800.0,
                                 effort=effort)
    assert (rec.pi * effort).sum() == pytest.approx(800.0, rel=1e-6)
    assert table.attrs["budget_unit"] == "effort"


def test_bad_budgets():
    q = np.full(10, 0.8)
    with pytest.raises(DataError, match="budget in labels"):
        design_frontier(np.zeros(10, int), q, 2, labels=0)
    with pytest.raises(DataError, match="one of the two"):
        design_frontier(np.zeros(10, int), q, 2, labels=3, effort_budget=3)
    with pytest.raises(DataError, match="effort of every row"):
        design_frontier(np.zeros(10, int), q, 2, effort_budget=3, effort=np.r_[0.0, np.ones(9)])


def demo_like(m=600, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.beta(6, 1.5, m)
    gold = rng.integers(0, 2, m)
    mach = np.where(rng.random(m) < q, gold, 1 - gold)
    return pd.DataFrame({"sample_id": np.arange(1, m + 1), "machine_label": mach,
                         "machine_confidence": q, "human_label": gold,
                         "topic": rng.choice(["a", "b"], m)})


def test_routing_without_an_audit_has_no_interval():
    """Routing the whole budget leaves uncertain rows with no chance of a label: no interval
    (NaN, not an infinite width) and no worth in random labels."""
    rng = np.random.default_rng(2)
    q = rng.beta(5, 1.5, 400)
    _, table = design_frontier(rng.integers(0, 2, 400), q, 2, labels=60)
    routing = table[table["design"] == "routing"].iloc[0]
    assert np.isnan(routing["expected_half_width"])
    assert routing["random_equivalent"] is None or pd.isna(routing["random_equivalent"])
    assert np.isfinite(table.loc[table["design"] == "active", "expected_half_width"]).all()


def test_frontier_on_recalibrated_probabilities_hand_worked():
    # 200 rows reported at 0.6, 800 at 0.98, but the truth is 0.6 and 0.9: routing the 200
    # unsure rows (as reported) is expected to reach (200 + 800 * 0.9) / 1000 = 0.92
    q = np.r_[np.full(200, 0.6), np.full(800, 0.98)]
    codes = np.zeros(1000, dtype=int)
    P = np.column_stack([np.r_[np.full(200, 0.6), np.full(800, 0.9)], np.zeros(1000)])
    P[:, 1] = 1 - P[:, 0]
    rec, table = design_frontier(codes, q, 2, labels=200, probabilities=P,
                                 reference_gain=1 - q)
    route = table[table["design"] == "routing"].iloc[0]
    assert route["expected_accuracy"] == pytest.approx(0.92)
    rnd = table[table["design"] == "random"].iloc[0]
    assert rnd["expected_accuracy"] == pytest.approx((200 * 0.6 + 800 * 0.9) / 1000 * 0.8 + 0.2)
    # the same probabilities as the confidences give the same frontier as none
    same = machine_probabilities(codes, q, 2)
    a = design_frontier(codes, q, 2, labels=200)[1]
    b = design_frontier(codes, q, 2, labels=200, probabilities=same)[1]
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(DataError, match=r"\(1000, 2\) array of probabilities"):
        design_frontier(codes, q, 2, labels=200, probabilities=P[:, :1])


def test_frontier_reaches_routing_less_the_labels_validity_needs_hand_worked():
    # 200 rows at 0.6, 800 at 0.98, 200 labels (as above). At the frontier's most accurate
    # end the floor is down to FLOOR_LABELS = 40 expected labels over the 1,000 rows,
    # pi_min = 0.04: the 800 sure rows take 32 labels, the 200 unsure ones 168 (pi 0.84):
    # accuracy (200 (0.84 + 0.16 * 0.6) + 800 (0.04 + 0.96 * 0.98)) / 1000 = 0.97184, against
    # 0.984 for routing; the default floor (0.35 * 0.2 = 0.07 on the sure rows, 56 labels)
    # stops at (200 (0.72 + 0.28 * 0.6) + 800 (0.07 + 0.93 * 0.98)) / 1000 = 0.96272
    from core.evaluation.sampling.active import FLOOR_LABELS

    assert FLOOR_LABELS == 40 and DEFAULT_FLOOR == 0.35
    q = np.r_[np.full(200, 0.6), np.full(800, 0.98)]
    codes = np.zeros(1000, dtype=int)
    rec, table = design_frontier(codes, q, 2, labels=200, width_ratio=1e6)
    assert rec.expected_accuracy == pytest.approx(0.97184, abs=2e-4)
    assert rec.pi[200:].min() == pytest.approx(0.04, rel=1e-6)
    # the most accurate design of the default floor is on the frontier too, less accurate
    active = table[table["design"] == "active"]
    assert (active["expected_accuracy"] - 0.96272).abs().min() < 2e-4
    assert active["expected_accuracy"].max() == pytest.approx(rec.expected_accuracy)


def test_width_ratio_spans_the_whole_frontier():
    """From the tightest design to the most accurate one: the recommended design's accuracy
    rises with the ratio, and the largest ratio gives the frontier's most accurate design."""
    rng = np.random.default_rng(7)
    q = rng.beta(5, 1.5, 2000)
    codes = rng.integers(0, 2, 2000)
    accs = [design_frontier(codes, q, 2, labels=1000, width_ratio=r)[0].expected_accuracy
            for r in (0.5, 1.0, 1.5, 3.0, 100.0)]
    assert all(b >= a - 1e-12 for a, b in zip(accs, accs[1:]))
    _, table = design_frontier(codes, q, 2, labels=1000)
    route = table.loc[table["design"] == "routing", "expected_accuracy"].iloc[0]
    # within FLOOR_LABELS' worth of routing (at most 40 labels of the largest gain)
    assert route - accs[-1] <= 40 * (1 - q).max() / 2000
    assert accs[-1] > accs[1] + 1e-3


def test_docs_state_the_floor_the_constant_holds():
    import core.evaluation.sampling.active as active

    assert "quarter" not in active.__doc__ and "default=0.25" not in design_frontier.__doc__
    assert f"{DEFAULT_FLOOR}" in active.__doc__ and f"{DEFAULT_FLOOR}" in design_frontier.__doc__


def test_the_most_accurate_design_keeps_coverage():
    """Near routing (width ratio 1e6): 93 % coverage or more per class and for the final
    labels' accuracy, by simulation with the truth known (a 10 % class among three)."""
    from core.evaluation.estimate.weighted import weighted_estimates

    rng = np.random.default_rng(21)
    m = 1500
    q = rng.beta(5, 1.5, m)
    gold = rng.choice(3, m, p=[0.6, 0.3, 0.1])
    mach = np.where(rng.random(m) < q - 0.05, gold, (gold + rng.integers(1, 3, m)) % 3)
    rec, _ = design_frontier(mach, q, 3, labels=300, width_ratio=1e6)
    truth = np.bincount(gold, minlength=3) / m
    rounds = 300
    cover, acc_cover = np.zeros(3), 0
    for r in range(rounds):
        xi = draw(rec.pi, seed=r)
        res = weighted_estimates(mach, np.where(xi, gold, -1), xi, rec.pi, q, n_classes=3)
        for c, s in enumerate(res["class_shares"]):
            cover[c] += s["ci_low"] <= truth[c] <= s["ci_high"]
        acc = (np.where(xi, gold, mach) == gold).mean()
        acc_cover += res["accuracy"]["ci_low"] <= acc <= res["accuracy"]["ci_high"]
    assert (cover / rounds).min() >= 0.93, cover / rounds
    assert acc_cover / rounds >= 0.93


def test_default_ratio_keeps_the_default_floor():
    """Designs below the default floor are recommended only for a ratio above 1. Recalibrated
    probabilities that call 800 rows certain (reported at 0.9) make every floor look free: the
    low-floor designs are expected tighter than 0.95 x PPI++'s width (eligible by width), yet
    at 0.95 the recommended design keeps pi >= 0.35 of the uniform rate; at 1e6 it goes
    below."""
    q = np.r_[np.full(200, 0.6), np.full(800, 0.9)]
    codes = np.zeros(1000, dtype=int)
    p0 = np.r_[np.full(200, 0.6), np.ones(800)]
    probs = np.column_stack([p0, 1 - p0])
    rate = 200 / 1000
    rec, table = design_frontier(codes, q, 2, labels=200, probabilities=probs,
                                 reference_gain=1 - q)
    active = table[table["design"] == "active"]
    tail = active[active["mu"] == active["mu"].max()].iloc[1:]
    assert len(tail) and (tail["worth_vs_ppi"] >= 1 / 0.95 ** 2).any()
    assert rec.pi.min() >= DEFAULT_FLOOR * rate * (1 - 1e-9)
    far, _ = design_frontier(codes, q, 2, labels=200, probabilities=probs,
                             reference_gain=1 - q, width_ratio=1e6)
    assert far.pi.min() == pytest.approx(40 / 1000)  # FLOOR_LABELS over the 1,000 rows
