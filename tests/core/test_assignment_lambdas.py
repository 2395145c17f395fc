"""core.assignment.lambdas: the range of lambda over which an assignment changes, and its grid,
worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from core.errors import DataError
from core.assignment import (SAEInputs, n_from_share, lambda_grid, lambda_range, solve_fast)


# ------------------------------------------------------------------------------- lambda range
def _set(inp, lam, n, mode):
    return solve_fast(inp, lam=lam, n_human=n, mode=mode).human.tolist()


def _pair_formula(c, d, n):
    """The exactly-mode breakpoint by brute force over every pair (independent of the hulls)."""
    m = len(c)
    order = sorted(range(m), key=lambda i: (d[i], -c[i], i))
    s, rest = order[:n], order[n:]
    best = 0.0
    for i in s:
        for j in rest:
            if d[j] > d[i]:
                best = max(best, (c[j] - c[i]) / (d[j] - d[i]))
    return best


def test_lambda_range_hand_worked():
    # c = 1 - a = [0.1, 0.4, 0.8], d = l = [0.5, 0.1, 2]: gains cross 0 at 0.2, 4 and 0.4
    inp = SAEInputs.from_arrays([0.9, 0.6, 0.2], [0.5, 0.1, 2.0])
    r = lambda_range(inp, n_human=2)
    assert r.upper == pytest.approx(4.0, abs=1e-12) and r.pivot == pytest.approx(0.4, abs=1e-12)
    assert r.first == pytest.approx(0.2, abs=1e-12)
    # two positive gains below 0.4 (samples 1 and 2), one from 0.4 (sample 1), none from 4
    assert _set(inp, 0.399, 2, "at_most") == [False, True, True]
    assert _set(inp, 0.4, 2, "at_most") == [False, True, False]
    assert _set(inp, 3.999, 2, "at_most") == [False, True, False]
    assert _set(inp, 4.0, 2, "at_most") == [False, False, False]  # gain exactly 0: machine
    r1 = lambda_range(inp, n_human=1)
    assert r1.upper == pytest.approx(4.0) and r1.pivot == pytest.approx(4.0)
    assert lambda_range(inp, n_human=0).upper == 0.0 and lambda_range(inp, n_human=0).pivot == np.inf
    # exactly N = 1: at infinity the least effort (sample 1) goes; sample 2 overtakes it below
    # 0.8 - 2 lam = 0.4 - 0.1 lam, i.e. lam = 0.4 / 1.9 = 4/19
    e1 = lambda_range(inp, n_human=1, mode="exactly")
    assert e1.upper == pytest.approx(4 / 19, abs=1e-12) and e1.pivot is None
    assert _set(inp, 4 / 19 - 1e-9, 1, "exactly") == [False, False, True]
    assert _set(inp, 4 / 19 + 1e-9, 1, "exactly") == [False, True, False]
    # exactly N = 2: {0, 1} at infinity; sample 2 beats sample 0 below (0.8 - 0.1) / (2 - 0.5) = 7/15
    e2 = lambda_range(inp, n_human=2, mode="exactly")
    assert e2.upper == pytest.approx(7 / 15, abs=1e-12)
    assert _set(inp, 7 / 15 - 1e-9, 2, "exactly") == [False, True, True]
    assert _set(inp, 7 / 15 + 1e-9, 2, "exactly") == [True, True, False]


def test_lambda_range_uniform_effort_and_always_human():
    # equal efforts: the ranking never moves, so lambda changes nothing in "exactly" mode
    inp = SAEInputs.from_arrays([0.9, 0.6, 0.2])
    assert lambda_range(inp, n_human=2, mode="exactly").upper == 0.0
    # at most: gains 1 - a - lam cross 0 at 0.1, 0.4, 0.8
    r = lambda_range(inp, n_human=2)
    assert r.upper == pytest.approx(0.8) and r.pivot == pytest.approx(0.4)
    # a sample of zero effort and confidence 0.5 goes to humans at every lambda
    inp0 = SAEInputs.from_arrays([0.5, 0.6], [0.0, 0.1])
    r0 = lambda_range(inp0, n_human=1)
    assert r0.pivot == np.inf
    assert _set(inp0, 1e6, 1, "at_most") == [True, False]
    # with N = 1 the zero-effort sample (gain 0.5) overtakes sample 1 (gain 0.4 - 0.1 lam) at lam = 0
    assert r0.upper == 0.0
    assert lambda_range(inp0, n_human=2).upper == pytest.approx(4.0)


@pytest.mark.parametrize("seed", range(40))
def test_lambda_range_breakpoint_on_both_sides(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 12))
    a = np.round(rng.uniform(0, 1, m), 1)                 # ties on purpose
    l = np.round(rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], m) * rng.uniform(0.5, 1.5, m), 2)
    # odd seeds: a machine effort k_i, sometimes above the human effort (gains that grow)
    k = np.zeros(m) if seed % 2 == 0 else np.round(rng.choice([0.0, 0.0, 1.0], m), 2)
    inp = SAEInputs.from_arrays(a, l, k=k)
    for mode in ("at_most", "exactly"):
        for n in range(m + 1):
            r = lambda_range(inp, n_human=n, mode=mode)
            if mode == "exactly" and 0 < n < m:
                assert r.upper == pytest.approx(_pair_formula(1 - a, l - k, n), abs=1e-12)
            at_inf = _set(inp, 1e9, n, mode)
            for lam in (r.upper * (1 + 1e-9) + 1e-12, r.upper * 1.5 + 0.1, r.upper + 10):
                assert _set(inp, lam, n, mode) == at_inf, (mode, n, lam)
            if r.upper > 0:
                assert _set(inp, r.upper * (1 - 1e-9), n, mode) != at_inf, (mode, n)
            if mode == "at_most":
                p = r.pivot
                if p is not None and 0 < p < np.inf:
                    assert solve_fast(inp, lam=p * (1 - 1e-9), n_human=n).n_human == n
                    # (at p itself a gain is 0 up to float rounding: the tie rule's edge)
                    assert solve_fast(inp, lam=p * (1 + 1e-9), n_human=n).n_human < n


def test_lambda_range_scales_with_the_effort_unit(hmceval_inputs):
    # the paper's effort in [0, 1]; the same effort in "seconds" (x 60) divides lambda by 60
    r = lambda_range(hmceval_inputs, n_human=2836)
    c = hmceval_inputs.b - hmceval_inputs.a
    assert r.upper == pytest.approx(float(np.max(c / hmceval_inputs.l)), rel=1e-12)
    assert 4.6 < r.pivot < r.upper
    secs = SAEInputs.from_arrays(hmceval_inputs.a, hmceval_inputs.l * 60.0)
    r60 = lambda_range(secs, n_human=2836)
    assert r60.upper == pytest.approx(r.upper / 60, rel=1e-12)
    assert _set(secs, 4.6 / 60, 2836, "at_most") == _set(hmceval_inputs, 4.6, 2836, "at_most")
    assert solve_fast(hmceval_inputs, lam=r.upper * (1 + 1e-12), n_human=2836).n_human == 0
    assert solve_fast(hmceval_inputs, lam=r.upper * (1 - 1e-9), n_human=2836).n_human == 1


def test_lambda_grid():
    g = lambda_grid(804.7, include=[4.6, 900.0])
    assert g[0] == 0.0 and g[-1] == 804.7 and 4.6 in g and 900.0 not in g
    assert g[1] == pytest.approx(0.01) and 0.1 in g and 1.0 in g and 800.0 in g
    assert (np.diff(g) > 0).all()
    assert lambda_grid(0.0).tolist() == [0.0]
    # the steps start at the decade of the first breakpoint (never more than 5 decades down)
    assert lambda_grid(0.04, lower=0.0033)[1] == pytest.approx(0.001)
    assert lambda_grid(0.04, lower=1e-9)[1] == pytest.approx(1e-6)
    assert lambda_grid(1.0, decades=1).tolist() == [0.0, 1.0]
    assert lambda_grid(9.0, decades=1).tolist() == [0.0, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0,
                                                    6.0, 8.0, 9.0]
    with pytest.raises(DataError, match="finite number >= 0"):
        lambda_grid(float("inf"))


def test_lambda_range_counts_the_samples_that_go_beyond_it():
    """Samples whose effort is not above the machine's keep a positive gain at every lambda:
    "beyond the range nobody goes to humans" was false on the demo (38 samples of predicted
    effort 0 still went at lambda = 3,000)."""
    from core.data import prepare
    from core.demo import make_demo
    from core.assignment import lambda_range, solve_fast

    # a = confidence, l = effort: sample 2 costs nothing, sample 3 has no gap (b - a = 0)
    inp = SAEInputs.from_arrays([0.6, 0.7, 0.8, 1.0], [0.5, 0.2, 0.0, 0.0])
    r = lambda_range(inp, n_human=3, mode="at_most")
    assert r.upper == pytest.approx(1.5)  # max of 0.4 / 0.5 = 0.8 and 0.3 / 0.2 = 1.5
    assert r.n_beyond == 1  # sample 2 (gap 0.2, effort 0); sample 3's gain is exactly 0
    for lam in (1.6, 10.0, 1e6):
        assert solve_fast(inp, lam=lam, n_human=3).human.tolist() == [False, False, True, False]
    assert lambda_range(inp, n_human=0, mode="at_most").n_beyond == 0
    assert lambda_range(inp, n_human=2, mode="exactly").n_beyond == 2
    demo = SAEInputs.from_data(prepare(make_demo()))
    r = lambda_range(demo, n_human=n_from_share(0.5, demo.M))
    n_zero = int(((demo.l - demo.k) <= 0).sum())
    assert r.n_beyond == n_zero == 38
    assert int(solve_fast(demo, lam=r.upper * 2 + 1, n_human=n_from_share(0.5, demo.M)).human.sum()) == 38
