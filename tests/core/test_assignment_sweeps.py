"""The fast paths of the SAE's curves and λ range against plain implementations (issue 11).

Each fast path (the cells of ``budget_sums``, the partition-based ``lambda_range`` in
"exactly" mode) is compared with a plain implementation written here from the documented rule
— a stable descending sort of the gains as ``gains()`` computes them, the first N (in "at most"
mode among the positive gains only), and for the λ range every pair of samples — on random data
with many ties, in both modes, and on both sides of the breakpoints.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.assignment import SAEInputs, gains, lambda_range, solve_fast, sweep
from core.assignment.cells import GainCells
from core.assignment.sweeps import budget_sums


def plain_set(inp: SAEInputs, lam: float, n: int, mode: str) -> np.ndarray:
    """The human set by the documented rule, with a full stable sort (no shortcut)."""
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    order = np.argsort(-g, kind="stable")
    k = n if mode == "exactly" else min(n, int((g > 0).sum()))
    out = np.zeros(inp.M, dtype=bool)
    out[order[:k]] = True
    return out


def tied_inputs(seed: int, m: int, *, decimals: int = 1, b_varies: bool = False) -> SAEInputs:
    """Confidences and efforts rounded to a coarse grid: the gains tie a lot."""
    rng = np.random.default_rng(seed)
    a = np.round(rng.uniform(0, 1, m), decimals)
    l = np.round(rng.uniform(0, 1, m) ** 2, decimals)
    b = np.round(rng.uniform(0.8, 1, m), decimals) if b_varies else None
    return SAEInputs.from_arrays(a, l, b=b)


def sets_by_cells(inp: SAEInputs, lams, n: int, mode: str, size: int) -> np.ndarray:
    """budget_sums' human set at each lambda (one category per sample: the counts are the set),
    with cells of about ``size`` samples."""
    inp.__dict__["gain_cells"] = GainCells.build(inp.a, inp.b, inp.l, size=size)
    counts, sums, cats = budget_sums(inp, np.asarray(lams, float), [n], mode,
                                     np.ones((1, inp.M)), np.arange(inp.M), inp.M)
    assert counts[:, 0].tolist() == cats[:, 0].sum(axis=1).astype(int).tolist()
    assert counts[:, 0].tolist() == sums[:, 0, 0].tolist()
    return cats[:, 0].astype(int)


@pytest.mark.parametrize("mode", ["at_most", "exactly"])
@pytest.mark.parametrize("seed", range(6))
def test_cells_pick_the_plain_top_n_with_ties(seed, mode):
    m = 300
    inp = tied_inputs(seed, m, b_varies=seed % 2 == 1)
    lams = np.r_[0.0, np.geomspace(1e-3, 1e3, 40), 1.0, 0.5, 2.0, 1.0]  # unsorted, repeated
    for n in (1, 7, 150, 299):
        for size in (1, 3, 16, 64):
            got = sets_by_cells(inp, lams, n, mode, size)
            for lam, row in zip(lams, got):
                want = plain_set(inp, float(lam), n, mode)
                assert row.tolist() == want.astype(int).tolist(), (lam, n, size)


@pytest.mark.parametrize("mode", ["at_most", "exactly"])
def test_cells_on_both_sides_of_each_breakpoint(mode):
    """At and around every lambda where two samples' gains cross (c_i - lam l_i = c_j - lam l_j),
    the cells pick what the full sort picks: ties at the crossing go to the earlier row."""
    rng = np.random.default_rng(3)
    m = 40
    a = np.round(rng.uniform(0, 1, m), 2)
    l = np.round(rng.uniform(0, 1, m), 2)
    inp = SAEInputs.from_arrays(a, l)
    c = 1 - a
    i, j = np.triu_indices(m, 1)
    ok = l[i] != l[j]
    cross = (c[j] - c[i])[ok] / (l[j] - l[i])[ok]
    cross = np.unique(cross[cross > 0])
    lams = np.r_[cross, cross * (1 - 1e-9), cross * (1 + 1e-9), c / np.where(l > 0, l, 1)]
    for n in (1, 5, 20, 39):
        got = sets_by_cells(inp, lams, n, mode, 4)
        for lam, row in zip(lams, got):
            assert row.tolist() == plain_set(inp, float(lam), n, mode).astype(int).tolist()


@pytest.mark.parametrize("mode", ["at_most", "exactly"])
def test_curve_against_lambda_equals_the_plain_metrics(mode):
    """The sweep's one-budget curve (cells) equals, at every lambda, the metrics of the plain set
    (labels with errors of several kinds give the confusion counts)."""
    rng = np.random.default_rng(8)
    m = 1000
    gold = rng.integers(0, 3, m)
    mach = np.where(rng.random(m) < 0.3, (gold + rng.integers(1, 3, m)) % 3, gold)
    base = tied_inputs(8, m)
    he = rng.uniform(1, 100, m)
    inp = SAEInputs.from_arrays(base.a, base.l, machine_label=mach, human_label=gold,
                                human_effort=he, labels=(0, 1, 2))
    lams = np.r_[0.0, np.geomspace(1e-3, 1e3, 60)]
    for n in (1, 333, 500, 999):
        table = sweep(inp, lams=lams, n_values=[n], mode=mode)
        for lam, row in zip(lams, table.itertuples()):
            human = plain_set(inp, float(lam), n, mode)
            assert row.n_human == int(human.sum())
            assert row.time_cost == pytest.approx(he[human].sum() / he.sum(), rel=1e-12)
            assert row.time_cost_predicted == pytest.approx(inp.l[human].sum() / inp.l.sum(),
                                                            rel=1e-12)
            final = np.where(human, gold, mach)
            assert row.accuracy == pytest.approx(float((final == gold).mean()), abs=1e-15)
            want = solve_fast(inp, lam=float(lam), n_human=n, mode=mode)
            assert want.human.tolist() == human.tolist()
            assert row.objective == pytest.approx(want.objective, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("mode", ["at_most", "exactly"])
@pytest.mark.parametrize("seed", range(3))
def test_cells_for_many_budgets_equal_the_plain_sets(seed, mode, monkeypatch):
    """The frontier grid (several budgets, 0 and M included) through the cells equals the plain
    sets at every (lambda, N), also in the sweep when the table counts as large."""
    import core.assignment.sweeps as sae_sweep

    m = 240
    inp = tied_inputs(20 + seed, m, b_varies=seed == 1)
    lams = np.r_[0.0, np.geomspace(1e-2, 1e2, 15)]
    ns = np.array([0, 1, 24, 60, 120, 121, 239, 240])
    inp.__dict__["gain_cells"] = GainCells.build(inp.a, inp.b, inp.l, size=5)
    counts, _, cats = budget_sums(inp, lams, ns, mode, np.ones((1, m)), np.arange(m), m)
    for i, lam in enumerate(lams):
        for j, n in enumerate(ns):
            want = plain_set(inp, float(lam), int(n), mode)
            assert cats[i, j].astype(int).tolist() == want.astype(int).tolist(), (lam, n)
            assert counts[i, j] == want.sum()
    monkeypatch.setattr(sae_sweep, "CELLS_MIN_M", 0)
    he = np.random.default_rng(seed).uniform(1, 5, m)
    gold = (inp.a > 0.5).astype(int)
    mach = np.where(inp.l > 0.3, 1 - gold, gold)
    inp2 = SAEInputs.from_arrays(inp.a, inp.l, b=inp.b, machine_label=mach, human_label=gold,
                                 human_effort=he, labels=(0, 1))
    table = sweep(inp2, lams=lams, n_values=ns, mode=mode)
    for lam, row in zip(table["lambda"], table.itertuples()):
        human = plain_set(inp2, float(lam), int(row.N), mode)
        assert row.n_human == human.sum()
        assert row.time_cost == pytest.approx(he[human].sum() / he.sum(), rel=1e-12, abs=1e-15)
        final = np.where(human, gold, mach)
        assert row.accuracy == pytest.approx(float((final == gold).mean()), abs=1e-15)


def test_gain_cells_bound_every_gain_as_computed():
    """Each cell's bounds hold the gains of its samples exactly as gains() computes them."""
    inp = tied_inputs(4, 2000, decimals=3, b_varies=True)
    cells = GainCells.build(inp.a, inp.b, inp.l, size=8)
    assert sorted(cells.perm.tolist()) == list(range(inp.M))
    assert (np.diff(cells.starts) >= 1).all() and np.diff(cells.starts).max() <= 2 * 8 + 2
    for lam in (0.0, 0.01, 1.0, 37.0, 1e6):
        g = gains(inp.a, inp.l, lam=lam, b=inp.b)[cells.perm]
        lo = (cells.b_lo - lam * cells.l_hi) - cells.a_hi
        hi = (cells.b_hi - lam * cells.l_lo) - cells.a_lo
        first = cells.starts[:-1]
        assert (np.minimum.reduceat(g, first) >= lo).all()
        assert (np.maximum.reduceat(g, first) <= hi).all()


def _pairs_upper(c: np.ndarray, d: np.ndarray, n: int) -> float:
    """The "exactly" breakpoint over every pair: S = the first n by (d, -c, row)."""
    m = len(c)
    order = sorted(range(m), key=lambda i: (d[i], -c[i], i))
    best = 0.0
    for i in order[:n]:
        for j in order[n:]:
            if d[j] > d[i]:
                best = max(best, (c[j] - c[i]) / (d[j] - d[i]))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_exactly_lambda_range_equals_the_pair_formula(seed):
    """Bigger tables than test_sae's, efforts on a coarse grid (many equal d at the N-th place)."""
    rng = np.random.default_rng(100 + seed)
    m = int(rng.integers(20, 90))
    a = np.round(rng.uniform(0, 1, m), 1)
    l = np.round(rng.choice([0.0, 0.25, 0.5, 1.0, 2.0], m) * rng.choice([1.0, 1.5], m), 2)
    inp = SAEInputs.from_arrays(a, l)
    for n in sorted({1, 2, m // 3, m // 2, m - 2, m - 1}):
        r = lambda_range(inp, n_human=n, mode="exactly")
        assert r.upper == _pairs_upper(1 - a, l, n)
        at_inf = plain_set(inp, 1e9, n, "exactly")
        above = plain_set(inp, r.upper * (1 + 1e-9) + 1e-12, n, "exactly")
        assert above.tolist() == at_inf.tolist()
        if r.upper > 0:
            assert plain_set(inp, r.upper * (1 - 1e-9), n, "exactly").tolist() != at_inf.tolist()


def _pairs_upper_vectorised(c: np.ndarray, d: np.ndarray, n: int) -> float:
    """_pairs_upper for big tables: every pair, in chunks."""
    order = np.lexsort((np.arange(len(c)), -c, d))
    s, rest = order[:n], order[n:]
    best = 0.0
    for k in range(0, n, 200):
        i = s[k:k + 200]
        dd = d[rest][None, :] - d[i][:, None]
        dc = c[rest][None, :] - c[i][:, None]
        ok = dd > 0
        if ok.any():
            best = max(best, float((dc[ok] / dd[ok]).max()))
    return best


@pytest.mark.parametrize("seed", range(3))
def test_exactly_lambda_range_on_a_table_big_enough_to_prefilter(seed):
    """Above 4,096 points a side, the staircases are first filtered against a sample's
    staircase: the breakpoint is still the one every pair gives, on continuous and on tied
    values."""
    rng = np.random.default_rng(200 + seed)
    m = 10_000
    a = rng.uniform(0, 1, m) if seed == 0 else np.round(rng.uniform(0, 1, m), 2)
    l = rng.lognormal(-4, 1, m) if seed < 2 else np.round(rng.uniform(0, 1, m), 2)
    inp = SAEInputs.from_arrays(a, l)
    for n in (4_500, 5_000):
        r = lambda_range(inp, n_human=n, mode="exactly")
        assert r.upper == pytest.approx(_pairs_upper_vectorised(1 - a, l, n), rel=1e-12)
        at_inf = plain_set(inp, 1e12, n, "exactly")
        assert plain_set(inp, r.upper * (1 + 1e-9), n, "exactly").tolist() == at_inf.tolist()
        assert plain_set(inp, r.upper * (1 - 1e-9), n, "exactly").tolist() != at_inf.tolist()
