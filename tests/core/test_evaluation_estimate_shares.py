"""Final estimates (``core.evaluation.estimate.shares``) and the planner: hand-computed tables, exact
hypergeometric coverage, and seeded coverage on the HMCEval release."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import hypergeom

from core.data import load_table, prepare
from core.errors import DataError
from core.evaluation.sampling.design import load_design
from core.evaluation.estimate.shares import (AUDIT, CAL, MACHINE, ROUTED, estimate, estimate_codes,
                                      hypergeometric_interval)
from core.evaluation.sampling.audit import expected_half_width

Z95 = 1.959963984540054


def small_round():
    """M = 10: calibration (human 1), routed (1, 0), audit (machine 0 / human 1, 0 / 0),
    machine rows with machine labels 0, 0, 0, 1, 1."""
    machine = np.array([1, 1, 0, 0, 0, 0, 0, 0, 1, 1])
    human = np.array([1, 1, 0, 1, 0, -1, -1, -1, -1, -1])
    sel = np.array([CAL, ROUTED, ROUTED, AUDIT, AUDIT, MACHINE, MACHINE, MACHINE, MACHINE,
                    MACHINE])
    return machine, human, sel


def test_point_estimates_hand_computed():
    # share_1 = (sum_L 1[y=1] = 3  +  sum_U 1[yhat=1] = 2  +  5/2 * ((1-0) + (0-0))) / 10 = 0.75
    # accuracy = (|L| = 5 + 5 * (1 - 1/2)) / 10 = 0.75
    r = estimate_codes(*small_round(), n_classes=2)
    assert r["class_shares"][1]["estimate"] == pytest.approx(0.75, abs=1e-15)
    assert r["class_shares"][0]["estimate"] == pytest.approx(0.25, abs=1e-15)
    assert r["accuracy"]["estimate"] == pytest.approx(0.75, abs=1e-15)
    assert r["class_shares"][1]["machine_only"] == pytest.approx(0.4)
    assert (r["n_calibration"], r["n_routed"], r["n_audit"], r["n_machine"]) == (1, 2, 2, 5)
    # small audit: the interval of T_1 is clipped to [audit count 1, 1 + |U| = 6], share
    # = (2 known + T) / 10 -> [0.3, 0.8]
    assert r["class_shares"][1]["ci_low"] == pytest.approx(0.3)
    assert r["class_shares"][1]["ci_high"] == pytest.approx(0.8)


def test_share_interval_hand_computed_unclipped():
    """N_K = 100 kept rows, audit of 20: table (machine, human) (0,0) 15, (1,1) 3, (0,1) 2.
    Unaudited: 80 rows, 10 with machine label 1. Class 1:
      p+ = (2 + 0.5) / 22, p- = 0.5 / 22, dbar = 2/22, s2 = 3/22 - (2/22)^2
      se = 100 sqrt(0.8 s2 / 20); centre = (3 + 10) + 100 dbar
      point = (5 audited ones + 10 + 80/20 * (5 - 3)) / 100 = 0.23."""
    machine = np.array([0] * 15 + [1] * 3 + [0] * 2 + [1] * 10 + [0] * 70)
    human = np.array([0] * 15 + [1] * 3 + [1] * 2 + [-1] * 80)
    sel = np.array([AUDIT] * 20 + [MACHINE] * 80)
    r = estimate_codes(machine, human, sel, n_classes=2)
    p_plus, p_minus = 2.5 / 22, 0.5 / 22
    dbar = p_plus - p_minus
    s2 = p_plus + p_minus - dbar ** 2
    se = 100 * math.sqrt(0.8 * s2 / 20)
    centre = 13 + 100 * dbar
    s = r["class_shares"][1]
    assert s["estimate"] == pytest.approx(0.23, abs=1e-15)
    assert s["ci_low"] == pytest.approx((centre - Z95 * se) / 100, abs=1e-12)
    assert s["ci_high"] == pytest.approx((centre + Z95 * se) / 100, abs=1e-12)
    assert s["ci_low"] == pytest.approx(0.080611, abs=1e-6)
    # accuracy: e_A = 2 of 20; exact bounds for the kept errors E, left on U: E - 2
    lo, hi = hypergeometric_interval(2, 20, 100)
    acc = r["accuracy"]
    assert acc["estimate"] == pytest.approx((20 + 80 * (1 - 2 / 20)) / 100)
    assert acc["ci_low"] == pytest.approx(1 - (hi - 2) / 100)
    assert acc["ci_high"] == pytest.approx(1 - (lo - 2) / 100)


def test_hypergeometric_bounds_follow_their_definition():
    lo, hi = hypergeometric_interval(2, 20, 100)
    assert hypergeom.cdf(2, 100, hi, 20) > 0.025 >= hypergeom.cdf(2, 100, hi + 1, 20)
    assert hypergeom.sf(1, 100, lo, 20) > 0.025 >= hypergeom.sf(1, 100, lo - 1, 20)
    # no error in the audit: the lower bound is 0, and the audit's own rows bound the range
    lo0, hi0 = hypergeometric_interval(0, 20, 100)
    assert lo0 == 0 and 0 < hi0 < 80
    assert hypergeometric_interval(20, 20, 20) == (20, 20)


def test_hypergeometric_interval_exact_coverage_for_every_population():
    """Coverage computed exactly (not simulated): for N = 40, n = 12 and every count S of
    errors in the population, P(S in interval(X)) >= 0.95."""
    N, n = 40, 12
    bounds = [hypergeometric_interval(x, n, N) for x in range(n + 1)]
    for S in range(N + 1):
        cover = sum(hypergeom.pmf(x, N, S, n) for x in range(n + 1)
                    if bounds[x][0] <= S <= bounds[x][1])
        assert cover >= 0.95 - 1e-12, (S, cover)


def test_no_audit_gives_null_intervals_and_says_so():
    machine = np.array([0, 1, 0, 1])
    human = np.array([0, 1, -1, -1])
    r = estimate_codes(machine, human, np.array([ROUTED, ROUTED, MACHINE, MACHINE]), n_classes=2)
    assert r["class_shares"][0]["ci_low"] is None and r["accuracy"]["estimate"] is None
    assert any("audit is needed" in n for n in r["notes"])


def test_everything_labelled_is_exact():
    machine = np.array([0, 1, 1, 0])
    human = np.array([0, 0, 1, 0])
    r = estimate_codes(machine, human, np.array([ROUTED, ROUTED, CAL, CAL]), n_classes=2)
    assert r["class_shares"][0]["estimate"] == r["class_shares"][0]["ci_low"] == 0.75
    assert r["accuracy"] == {"estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0}


def test_routed_rows_without_labels_are_named():
    machine = np.array([0, 1, 0, 1, 0])
    human = np.array([0, -1, -1, 1, 0])
    sel = np.array([ROUTED, ROUTED, ROUTED, AUDIT, MACHINE])
    with pytest.raises(DataError, match=r"2 routed rows have no human label: rows 2, 3"):
        estimate_codes(machine, human, sel, n_classes=2)


def test_audit_without_disagreement_still_has_an_interval():
    machine = np.array([0] * 50 + [1] * 50)
    human = np.where(np.arange(100) < 30, machine, -1)
    sel = np.where(np.arange(100) < 30, AUDIT, MACHINE)
    sel[:30] = AUDIT
    r = estimate_codes(machine, human, sel, n_classes=2)
    s = r["class_shares"][1]
    assert s["ci_low"] < s["estimate"] < s["ci_high"]
    assert r["accuracy"]["ci_low"] < 1.0 == r["accuracy"]["ci_high"]


def frame_round():
    return pd.DataFrame({
        "machine_label": ["safe", "unsafe", "safe", "safe", "unsafe", "safe", "safe", "unsafe"],
        "confidence": [0.9, 0.8, 0.7, 0.6, 0.95, 0.9, 0.85, 0.99],
        "gold": ["safe", "safe", None, "safe", None, "unsafe", "safe", None],
        "system": ["a", "a", "a", "a", "b", "b", "b", "b"],
        "selection": ["routed", "routed", "machine", "audit", "machine", "audit", "audit",
                      "machine"],
    })


def test_estimate_on_a_table_keys_and_groups():
    d = load_design(frame_round(), {"human_label": "gold"})
    r = estimate(d, groups=["system"])
    assert list(r)[:10] == ["M", "n_calibration", "n_routed", "n_audit", "n_machine",
                            "confidence", "class_shares", "accuracy", "random_equivalent",
                            "by_group"]
    assert set(r["class_shares"]) == {"safe", "unsafe"}
    # unsafe (0-based rows): L has 1 (row 5); U machine 'unsafe': rows 4, 7 -> 2; audit
    # diff: row 5 +1, rows 3 and 6 0 -> 3/3 * 1; share = (1 + 2 + 1) / 8
    assert r["class_shares"]["unsafe"]["estimate"] == pytest.approx(0.5)
    assert set(r["by_group"]["system"]) == {"a", "b"}
    assert r["by_group"]["system"]["a"]["M"] == 4
    assert r["by_group"]["system"]["b"]["n_audit"] == 2


def test_estimate_requires_a_selection_column():
    df = frame_round().drop(columns="selection")
    with pytest.raises(DataError, match="no 'selection' column"):
        estimate(load_design(df, {"human_label": "gold"}))


def test_bad_selection_value_names_the_row():
    df = frame_round()
    df.loc[3, "selection"] = "audited"
    with pytest.raises(DataError, match=r"column 'selection'.*row 4.*'audited'"):
        load_design(df, {"human_label": "gold"})


@pytest.fixture(scope="module")
def release(hmceval_tsv):
    from core.assignment import SAEInputs

    d = prepare(load_table(hmceval_tsv))
    return SAEInputs.from_data(d), d.frame["machine_label"].to_numpy(), \
        d.frame["human_label"].to_numpy()


@pytest.mark.parametrize("lam,share,audit", [(0.0, 0.7, 30), (4.6, 0.5, 100), (0.0, 0.5, 200)])
def test_seeded_coverage_on_the_release(release, lam, share, audit):
    """Where a plain normal interval on the audit under-covers badly (lam 0, N/M 0.7, audit
    30: about 18 %), the smoothed interval and the exact accuracy bounds cover >= 0.94."""
    from core.evaluation.certify.simulate import simulate_budget
    from core.assignment import n_from_share

    inp, mach, gold = release
    s = simulate_budget(inp, mach, gold, lam=lam, n_human=n_from_share(share, inp.M),
                        audit=audit, rounds=400, seed=5).summary
    assert s["cover_1"] >= 0.94 and s["cover_0"] >= 0.94
    assert s["cover_accuracy"] >= 0.94
    assert abs(s["bias_1"]) < 0.002  # the difference estimator is unbiased
    if (lam, share, audit) == (0.0, 0.7, 30):
        assert s["plain_cover_1"] < 0.5  # the test can tell a bad interval from a good one
    if (lam, share, audit) == (0.0, 0.5, 200):
        assert s["width_1"] <= 0.022


def test_planner_predicts_the_simulated_width(release):
    from core.evaluation.certify.simulate import simulate_budget
    from core.assignment import n_from_share, solve_fast

    inp, mach, gold = release
    n = n_from_share(0.5, inp.M)
    kept = ~solve_fast(inp, lam=0.0, n_human=n).human
    r = float((mach[kept] != gold[kept]).mean())
    expected = expected_half_width(inp.M, int(kept.sum()), 200, r)
    s = simulate_budget(inp, mach, gold, lam=0.0, n_human=n, audit=200, rounds=300, seed=3)
    assert expected == pytest.approx(s.summary["width_1"] / 2, rel=0.2)


def test_labels_on_machine_rows_are_ignored_even_as_classes():
    df = frame_round()
    df.loc[2, "gold"] = "not-a-class"  # a machine row: never read
    r = estimate(load_design(df, {"human_label": "gold"}))
    assert set(r["class_shares"]) == {"safe", "unsafe"}


# ---------------------------------------------------------------- issue 24: shares sum to 1

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def test_shares_brought_into_range_jointly_hand_worked():
    """One audit row (machine 0, human 1) and three machine rows labelled 2: the difference
    estimators are (-3/4, 1, 3/4); the range the labels allow is [0, 3/4] x [1/4, 1] x [0, 3/4].
    Clipping each alone gave (0, 1, 3/4), summing to 1.75. The nearest shares in range summing
    to 1: x = clip(raw - t) with 7/4 - 2t = 1, t = 3/8: (0, 5/8, 3/8)."""
    res = estimate_codes(np.array([0, 2, 2, 2]), np.array([1, -1, -1, -1]),
                         np.array([AUDIT, MACHINE, MACHINE, MACHINE]), n_classes=3)
    est = [e["estimate"] for e in res["class_shares"]]
    assert est == pytest.approx([0, 5 / 8, 3 / 8], abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 15), st.integers(2, 4))
def test_shares_sum_to_one_and_intervals_contain_their_estimate(seed, m, k):
    """Invariants on any small round (where the clipping bites): the class shares sum to 1,
    each lies in what the labels make possible and inside its own interval."""
    rng = np.random.default_rng(seed)
    sel = rng.choice([CAL, ROUTED, AUDIT, MACHINE], m, p=[.1, .1, .2, .6])
    sel[0] = AUDIT
    machine, human = rng.integers(0, k, m), rng.integers(0, k, m)
    res = estimate_codes(machine, human, sel, n_classes=k)
    shares = res["class_shares"]
    assert sum(e["estimate"] for e in shares) == pytest.approx(1, abs=1e-9)
    labelled = np.isin(sel, [CAL, ROUTED, AUDIT])
    n_u = int((sel == MACHINE).sum())
    for c, e in enumerate(shares):
        floor = (human[labelled] == c).sum() / m
        assert floor - 1e-12 <= e["estimate"] <= floor + n_u / m + 1e-12
        assert e["ci_low"] - 1e-12 <= e["estimate"] <= e["ci_high"] + 1e-12
