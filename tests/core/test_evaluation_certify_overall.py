"""Overall-error guarantee (``core.evaluation.certify.overall``): hand-worked bounds, exact validity by
enumeration of every calibration sample, and Monte-Carlo violation rates across regimes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import hypergeom

from core.errors import DataError
from core.evaluation.sampling.design import load_design
from core.evaluation.certify.overall import (METHOD, PAC_KEYS, WEIGHTED_METHOD, certify_overall,
                                 certify_overall_arrays, certify_overall_weighted_arrays,
                                 max_sampled_errors, unseen_error_upper, weighted_beta)


def comb_cdf(k: int, m: int, errors: int, n: int) -> float:
    """P(X <= k), X ~ Hypergeometric(m, errors, n), from binomial coefficients."""
    return sum(math.comb(errors, i) * math.comb(m - errors, n - i)
               for i in range(k + 1)) / math.comb(m, n)


def test_max_sampled_errors_hand_values():
    # M = 10, n = 5, epsilon = 0.1 -> c = 1. h(0) = P(X = 0 | 2 errors) = C(8,5)/C(10,5)
    # = 56/252 = 0.222; h(1) = P(X <= 1 | 3) = (C(7,5) + 3 C(7,4))/252 = 126/252 = 0.5;
    # h(2) = P(X <= 2 | 4) = (6 + 60 + 120)/252 = 0.738
    assert comb_cdf(0, 10, 2, 5) == pytest.approx(56 / 252)
    assert comb_cdf(1, 10, 3, 5) == pytest.approx(0.5)
    assert max_sampled_errors(10, 5, 0.1, 0.2) == -1  # h(0) > 0.2: nothing can be kept
    assert max_sampled_errors(10, 5, 0.1, 0.3) == 0
    assert max_sampled_errors(10, 5, 0.1, 0.5) == 1  # h(1) = 0.5 <= 0.5 < h(2)
    # c = 5: the 5 unlabelled rows cannot hold 6 errors -> no limit
    assert max_sampled_errors(10, 5, 0.5, 0.1) is None


def test_max_sampled_errors_matches_a_linear_scan_with_scipy():
    for m, n, eps, d in [(1923, 450, 0.05, 0.05), (500, 100, 0.02, 0.1), (5673, 1000, 0.05, 0.1),
                         (60, 20, 0.1, 0.05)]:
        c = math.floor(eps * m)
        k = -1
        while hypergeom.cdf(k + 1, m, c + k + 2, n) <= d:
            k += 1
        assert max_sampled_errors(m, n, eps, d) == k


def test_unseen_error_upper_hand_values():
    # M = 10, n = 5, k = 0, delta = 0.3: P(X = 0 | 1 error) = 0.5 > 0.3, P(X = 0 | 2) = 0.222
    assert unseen_error_upper(0, 10, 5, 0.3) == 1
    # k = n: every unsampled row may be an error
    assert unseen_error_upper(5, 10, 5, 0.3) == 5
    # against a scan of the exact cdf
    for k in range(6):
        e = max(x for x in range(k, 10 - 5 + k + 1) if comb_cdf(k, 10, x, 5) > 0.1)
        assert unseen_error_upper(k, 10, 5, 0.1) == e - k


def test_certify_overall_hand_case():
    # g = 0..9, calibration rows 0, 2, 4, 6, 8; the machine is wrong on calibration rows 4 and
    # 8. epsilon 0.1, delta 0.3 -> k* = 0: stop at the first calibration error (row 4): the
    # prefix is rows 0..3, the machine keeps rows 1 and 3.
    g = np.arange(10.0)
    cal = np.arange(10) % 2 == 0
    err = np.isin(np.arange(10), [4, 8, 5])  # row 5 is outside the calibration: never read
    r = certify_overall_arrays(g, cal, err, epsilon=0.1, delta=0.3)
    assert np.flatnonzero(r.keep).tolist() == [1, 3]
    assert r.threshold == 3.0 and r.max_calibration_errors == 0
    assert (r.calibration_kept, r.calibration_kept_errors) == (2, 0)
    assert r.overall_error_bound == pytest.approx(0.1)  # U(0) - 0 = 1 of 10 rows
    # delta 0.5 -> k* = 1: stop at the second calibration error (row 8): keep 1, 3, 5, 7
    r = certify_overall_arrays(g, cal, err, epsilon=0.1, delta=0.5)
    assert np.flatnonzero(r.keep).tolist() == [1, 3, 5, 7]
    assert r.calibration_kept_errors == 1


def test_certify_overall_zero_errors_all_errors_and_large_epsilon():
    g = np.arange(10.0)
    cal = np.arange(10) % 2 == 0
    none = certify_overall_arrays(g, cal, np.zeros(10, bool), epsilon=0.1, delta=0.3)
    assert np.flatnonzero(none.keep).tolist() == [1, 3, 5, 7, 9]
    everything = certify_overall_arrays(g, cal, np.ones(10, bool), epsilon=0.1, delta=0.3)
    assert not everything.keep.any() and everything.threshold is None
    assert everything.overall_error_bound is None
    # epsilon at least the machine's whole error share (all wrong, epsilon 0.5): keep all
    big = certify_overall_arrays(g, cal, np.ones(10, bool), epsilon=0.5, delta=0.3)
    assert big.keep.sum() == 5 and big.max_calibration_errors is None


def test_certify_overall_single_distinct_score_splits_the_tie():
    g = np.zeros(10)
    cal = np.arange(10) % 2 == 0
    err = np.zeros(10, bool)
    err[4] = True
    kept = set()
    for seed in range(40):
        r = certify_overall_arrays(g, cal, err, epsilon=0.1, delta=0.3, seed=seed)
        assert r.threshold in (0.0, None)
        # k* = 0: the rows kept are those ordered before row 4, never a calibration row
        assert not (r.keep & cal).any()
        kept.add(int(r.keep.sum()))
    assert len(kept) > 2  # the tie is cut at different places by different seeds


def exact_violation(g, err, n, eps, delta) -> float:
    """P(overall error > eps) over every calibration sample of size n (exact enumeration)."""
    m = len(g)
    bad = 0
    total = 0
    for rows in itertools.combinations(range(m), n):
        cal = np.zeros(m, bool)
        cal[list(rows)] = True
        r = certify_overall_arrays(g, cal, err, epsilon=eps, delta=delta)
        bad += err[r.keep].sum() > eps * m
        total += 1
    return bad / total


@pytest.mark.parametrize("errors", [
    [0, 1, 2, 3],              # errors where the machine is most confident
    [6, 7, 8, 9, 10, 11],      # errors where it is least confident
    [1, 4, 7, 10],             # spread
    list(range(12)),           # every row wrong
])
def test_validity_is_exact_over_every_calibration_sample(errors):
    g = np.arange(12.0)
    err = np.isin(np.arange(12), errors)
    for eps, delta in [(0.1, 0.2), (0.2, 0.1), (0.15, 0.3)]:
        assert exact_violation(g, err, 5, eps, delta) <= delta + 1e-12


def test_validity_with_tied_scores_exact():
    g = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2], float)
    err = np.isin(np.arange(12), [0, 2, 5, 6, 9])
    for eps, delta in [(0.1, 0.2), (0.2, 0.1)]:
        assert exact_violation(g, err, 5, eps, delta) <= delta + 1e-12


@pytest.mark.parametrize("m,n,rate,levels", [
    (60, 20, 0.2, 3),      # small table
    (2000, 300, 0.02, 50),  # rare errors
    (1500, 300, 0.2, 4),   # few distinct scores, many ties
])
def test_violation_rate_by_simulation(m, n, rate, levels):
    rng = np.random.default_rng(m)
    g = rng.integers(0, levels, m).astype(float)
    # errors more likely at higher gain (less confident), as a real judge
    err = rng.random(m) < rate * (0.5 + g / max(levels - 1, 1))
    eps, delta = 0.5 * err.mean(), 0.1
    viol = 0
    rounds = 1500
    for t in range(rounds):
        cal = np.zeros(m, bool)
        cal[rng.choice(m, n, replace=False)] = True
        r = certify_overall_arrays(g, cal, err, epsilon=eps, delta=delta, seed=t)
        viol += err[r.keep].sum() > eps * m
    # within three Monte-Carlo standard errors of delta
    assert viol / rounds <= delta + 3 * math.sqrt(delta * (1 - delta) / rounds)


def pac_table(wrong=()):
    """40 rows, the most confident first (a = 1 - i/100); calibration: the even rows."""
    n_rows = 40
    a = 1 - np.arange(n_rows) / 100
    cal = np.arange(n_rows) % 2 == 0
    df = pd.DataFrame({"machine_label": [0] * n_rows, "machine_confidence": a,
                       "human_label": np.where(cal, 0.0, np.nan),
                       "selection": np.where(cal, "calibration", "")})
    df.loc[0, "machine_label"] = 1  # two classes; row 0 right
    df.loc[0, "human_label"] = 1
    for i in wrong:
        df.loc[i, "human_label"] = 1
    return df


def test_certify_overall_on_a_design():
    res = certify_overall(load_design(pac_table()), epsilon=0.1, delta=0.1)
    assert list(res)[:len(PAC_KEYS)] == list(PAC_KEYS)
    # no calibration error: every odd row is kept
    assert res["n_machine"] == 20 and res["saving"] == 0.5 and res["n_human"] == 0
    # c = 4, n = 20 of 40: h(k) = P(X <= k | 5 + k errors)
    h0, h1, h2 = comb_cdf(0, 40, 5, 20), comb_cdf(1, 40, 6, 20), comb_cdf(2, 40, 7, 20)
    assert h0 <= 0.05 < h1 <= 0.1 < h2
    wrong = pac_table(wrong=[6, 14])
    # delta 0.1 -> k* = 1: stop at the second calibration error (row 14): keep 1, 3, ..., 13
    res = certify_overall(load_design(wrong), epsilon=0.1, delta=0.1)
    assert res["max_calibration_errors"] == 1 and res["n_machine"] == 7
    assert list(res["selection"][1:14:2]) == ["machine"] * 7
    assert set(res["selection"][15::2]) == {"routed"}
    assert res["threshold"] == pytest.approx(0.13)
    assert (res["calibration_kept"], res["calibration_kept_errors"]) == (7, 1)
    assert "at most 10.0%" in res["guarantee"] and "90%" in res["guarantee"]
    # delta 0.05 -> k* = 0: stop at row 6: keep 1, 3, 5
    res = certify_overall(load_design(wrong), epsilon=0.1, delta=0.05)
    assert res["n_machine"] == 3 and res["saving"] == 3 / 40
    # an error on the most confident calibration row and k* = 0: nothing is kept
    res = certify_overall(load_design(pac_table(wrong=[2])), epsilon=0.1, delta=0.05)
    assert res["n_machine"] == 1  # row 1 comes before row 2
    df = pac_table()
    df.loc[0, "machine_label"] = 0  # row 0 (human 1) becomes an error; row 1 gives two classes
    df.loc[1, "machine_label"] = 1
    res = certify_overall(load_design(df), epsilon=0.1, delta=0.05)
    assert res["n_machine"] == 0 and res["threshold"] is None
    assert res["guarantee"].startswith("Nothing could be certified")


def test_certify_overall_refuses_bad_input():
    d = load_design(pac_table())
    with pytest.raises(DataError, match="epsilon"):
        certify_overall(d, epsilon=1.5, delta=0.1)
    with pytest.raises(DataError, match="delta"):
        certify_overall(d, epsilon=0.1, delta=0)
    df = pac_table()
    df["selection"] = ""
    df["human_label"] = np.nan
    with pytest.raises(DataError, match="no calibration row"):
        certify_overall(load_design(df), epsilon=0.1, delta=0.1)
    df = pac_table()
    df["inclusion_probability"] = np.where(np.arange(40) < 10, 0.9, 0.3)
    df.loc[[5, 7], "inclusion_probability"] = np.nan  # unequal, and missing on two rows
    with pytest.raises(DataError, match=r"inclusion_probability.*rows 6, 8 have none"):
        certify_overall(load_design(df), epsilon=0.1, delta=0.1)
    df = pac_table()
    df["inclusion_probability"] = np.where(np.arange(40) < 10, 0.9, 0.3)
    df.loc[4, "human_label"] = np.nan  # a drawn calibration row not labelled yet
    with pytest.raises(DataError, match="1 calibration rows drawn with unequal"):
        certify_overall(load_design(df), epsilon=0.1, delta=0.1)


def test_annotator_error_is_taken_off_epsilon():
    """The overall error against the truth is at most the error against the annotators plus
    their error rate: certifying with annotator_error = eta equals certifying at epsilon - eta
    (and the sentence says what the guarantee is relative to)."""
    import pandas as pd

    from core.evaluation.sampling.design import load_design
    from core.evaluation.certify.overall import certify_overall

    rng = np.random.default_rng(2)
    m = 2000
    q = rng.uniform(0.6, 1.0, m)
    truth = rng.integers(0, 2, m)
    machine = np.where(rng.random(m) < q, truth, 1 - truth)
    cal = np.zeros(m, dtype=bool)
    cal[rng.choice(m, 450, replace=False)] = True
    df = pd.DataFrame({"machine_label": machine, "machine_confidence": q,
                       "human_label": pd.array(np.where(cal, truth, 0), dtype="Int64"),
                       "selection": np.where(cal, "calibration", "")})
    df.loc[~cal, "human_label"] = pd.NA
    design = load_design(df)
    with_margin = certify_overall(design, epsilon=0.08, delta=0.05, annotator_error=0.02)
    plain = certify_overall(design, epsilon=0.06, delta=0.05)
    assert with_margin["epsilon_annotators"] == pytest.approx(0.06)
    assert (with_margin["selection"] == plain["selection"]).all()
    assert "differ from the truth (the annotators being wrong on at most 2.0%)" \
        in with_margin["guarantee"]
    with pytest.raises(DataError, match="not below epsilon"):
        certify_overall(design, epsilon=0.02, delta=0.05, annotator_error=0.02)


# ------------------------------------------------ calibration drawn with unequal probabilities

def test_weighted_rule_hand_cases():
    """M = 4, epsilon 0.25 (c = 1), beta 0.5, delta 0.25 (log 1/delta = 1.386). An undrawn
    row pays log x = log(1 + 0.5 pi / (1 - pi)): 0.405 at pi 0.5, 1.099 at pi 0.8; a drawn
    error log(0.5) = -0.693. A prefix holding at most c undrawn rows is kept outright."""
    pi = np.array([0.5, 0.5, 0.8, 0.8])
    kw = dict(epsilon=0.25, delta=0.25, beta=0.5)
    # order 0, 1, 2, 3; row 2 drawn, right. Prefix 2: undrawn {0, 1}: 0.81 < 1.386 -> stop 1
    r = certify_overall_weighted_arrays(np.arange(4.0), [0, 0, 1, 0], [0] * 4, pi, **kw)
    assert r.keep.tolist() == [True, False, False, False] and r.threshold == 0.0
    # the bound: one undrawn row's 0.405 < 1.386 -> u = 2 -> (u - 1) / M
    assert r.overall_error_bound == 0.25 and r.max_calibration_errors is None
    # order 2, 3, 0, 1 (high-pi rows first), row 1 drawn: prefix 3 undrawn {2, 3, 0}: the two
    # smallest 0.405 + 1.099 = 1.504 >= 1.386 -> kept; prefix 4 has row 1 drawn, right, same
    # undrawn rows -> kept: every undrawn row
    g = np.array([3.0, 4.0, 1.0, 2.0])
    r = certify_overall_weighted_arrays(g, [0, 1, 0, 0], [0] * 4, pi, **kw)
    assert r.keep.tolist() == [True, False, True, True]
    # row 1 drawn and wrong, placed second: prefix 3 undrawn {2, 3}: 2.197 - 0.693 = 1.504
    # >= 1.386 kept; prefix 4 adds row 0: 0.405 + 1.099 - 0.693 = 0.81 < 1.386 -> stop 3
    g = np.array([4.0, 2.0, 1.0, 3.0])
    r = certify_overall_weighted_arrays(g, [0, 1, 0, 0], [0, 1, 0, 0], pi, **kw)
    assert r.keep.tolist() == [False, False, True, True]
    assert r.calibration_kept_errors == 1
    # every drawn row wrong and few drawn: the second prefix already fails -> 1 row kept
    r = certify_overall_weighted_arrays(np.arange(4.0), [1, 1, 0, 0], [1, 1, 0, 0], pi, **kw)
    assert r.keep.tolist() == [False, False, True, False]
    # epsilon large enough that no kept set can break it: every undrawn row kept
    r = certify_overall_weighted_arrays(np.arange(4.0), [0, 1, 0, 0], [0, 1, 0, 0], pi,
                                        epsilon=0.75, delta=0.25, beta=0.5)
    assert r.keep.tolist() == [True, False, True, True]
    with pytest.raises(DataError, match="beta"):
        certify_overall_weighted_arrays(np.arange(4.0), [1, 0, 0, 0], [0] * 4, pi,
                                        epsilon=0.25, delta=0.25, beta=1.0)


def _weighted_violations(conf, err, pi, eps, delta, rounds, seed=0):
    g = 1 - conf
    beta = weighted_beta(g, pi, 1 - conf, epsilon=eps, delta=delta)
    rng = np.random.default_rng(seed)
    viol, kept = 0, []
    for r in range(rounds):
        cal = rng.random(len(pi)) < pi
        res = certify_overall_weighted_arrays(g, cal, err, pi, epsilon=eps, delta=delta,
                                              beta=beta, seed=r)
        viol += int(err[res.keep].sum() > eps * len(pi))
        kept.append(res.keep.mean())
    return viol / rounds, float(np.mean(kept))


@pytest.mark.parametrize("case", ["uncertainty-weighted", "errors where pi is smallest",
                                  "overconfident judge", "ties"])
def test_weighted_rule_violation_rate_by_simulation(case):
    """Poisson calibration samples with unequal probabilities, the truth known: the share of
    rounds whose kept rows hold more than epsilon * M machine errors stays within delta (+ 2
    points of Monte-Carlo error over 400 rounds), including an adversarial placement of the
    errors on the rows sampled least, an overconfident judge and piled-up ties."""
    rng = np.random.default_rng(11)
    m = 1500
    conf = rng.uniform(0.5, 1.0, m)
    err = rng.random(m) < (1 - conf) * 0.6
    pi = np.clip(0.3 * (1.2 - conf) / 0.45, 0.05, 1.0)
    if case == "errors where pi is smallest":
        err = np.zeros(m, bool)
        err[np.argsort(pi, kind="stable")[:110]] = True  # 7.3 % of rows, all sampled least
    elif case == "overconfident judge":
        err = rng.random(m) < 0.15  # confidences say 25 % wrong on average, blind to who
    elif case == "ties":
        conf = np.round(conf * 4) / 4  # three distinct scores
        pi = np.clip(0.3 * (1.2 - conf) / 0.45, 0.05, 1.0)
    rate, kept = _weighted_violations(conf, err, pi, 0.05, 0.1, rounds=400)
    assert rate <= 0.12, (case, rate)
    if case == "uncertainty-weighted":
        assert kept > 0.15  # it keeps something where it can


def test_weighted_rule_keeps_no_more_than_the_exact_rule_on_equal_probabilities():
    """With pi equal everywhere the hypergeometric rule is used (exact); the weighted rule on
    the same Poisson draws is valid too but keeps less on average (a worst-case bound)."""
    rng = np.random.default_rng(2)
    m = 2000
    conf = rng.uniform(0.6, 1.0, m)
    err = rng.random(m) < (1 - conf) * 0.5
    pi = np.full(m, 0.25)
    g = 1 - conf
    beta = weighted_beta(g, pi, 1 - conf, epsilon=0.05, delta=0.05)
    exact, weighted = [], []
    for r in range(60):
        cal = rng.random(m) < pi
        exact.append(certify_overall_arrays(g, cal, err, epsilon=0.05, delta=0.05,
                                            seed=r).keep.mean())
        weighted.append(certify_overall_weighted_arrays(g, cal, err, pi, epsilon=0.05,
                                                        delta=0.05, beta=beta,
                                                        seed=r).keep.mean())
    assert np.mean(weighted) <= np.mean(exact)
    assert np.mean(weighted) > 0.5 * np.mean(exact)  # but not useless


def test_certify_overall_on_a_design_with_unequal_probabilities_uses_the_weighted_rule():
    df = pac_table()
    df["inclusion_probability"] = np.where(np.arange(40) % 2 == 0, 0.6, 0.4)
    res = certify_overall(load_design(df), epsilon=0.2, delta=0.1)
    assert res["method"] == WEIGHTED_METHOD
    assert any("unequal probabilities" in n for n in res["notes"])
    df["inclusion_probability"] = 0.5  # equal: the exact rule
    assert certify_overall(load_design(df), epsilon=0.2, delta=0.1)["method"] == METHOD
