"""Cells of similar effort and confidence gap (``core.assignment.cells.GainCells``): the
layout (a permutation cut into cells, slab after slab by effort, confidence gap ascending in
each), each cell's bounds holding for all of its samples, and the documented gain bounds
holding at any lambda as computed in floating point; ``positions`` against a plain loop. The
sweeps that use the cells are tested against a full sort in ``test_assignment_sweeps.py``."""

from __future__ import annotations

import numpy as np
import pytest

from core.assignment.cells import GainCells


def inputs(m, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.3, 1.0, m)
    b = np.where(rng.random(m) < 0.3, 1.0, rng.uniform(0.5, 1.0, m))
    l = rng.gamma(2.0, 30.0, m)
    l[rng.random(m) < 0.1] = 0.0  # some samples of no effort
    return a, b, l


@pytest.mark.parametrize("m,size", [(1, 64), (7, 2), (1000, 64), (5003, 16), (300, 1000)])
def test_layout_and_bounds(m, size):
    a, b, l = inputs(m, m)
    g = GainCells.build(a, b, l, size=size)
    assert sorted(g.perm.tolist()) == list(range(m))
    assert g.starts[0] == 0 and g.starts[-1] == m and np.all(np.diff(g.starts) > 0)
    n_cells = len(g.starts) - 1
    for k in range(n_cells):  # every sample of cell k is in perm[starts[k]:starts[k+1]]
        members = g.perm[g.starts[k]:g.starts[k + 1]]
        assert np.all(g.cell[members] == k)
        assert g.a_lo[k] == a[members].min() and g.a_hi[k] == a[members].max()
        assert g.b_lo[k] == b[members].min() and g.b_hi[k] == b[members].max()
        assert g.l_lo[k] == l[members].min() and g.l_hi[k] == l[members].max()
    np.testing.assert_array_equal(g.a, a[g.perm])
    np.testing.assert_array_equal(g.l, l[g.perm])
    # cells of about `size` samples: never more than a couple of times it
    if m >= size:
        assert np.diff(g.starts).max() <= 3 * size


def test_slabs_by_effort_then_gap_ascending_in_each():
    a, b, l = inputs(4096, 3)
    g = GainCells.build(a, b, l, size=64)  # 8 slabs of 512, 8 cells each
    assert len(g.starts) - 1 == 64
    slab_l = g.l.reshape(8, 512)
    assert np.all(slab_l[:-1].max(axis=1) <= slab_l[1:].min(axis=1))
    gap = (g.b - g.a).reshape(8, 512)
    assert np.all(np.diff(gap, axis=1) >= 0)


@pytest.mark.parametrize("lam", [0.0, 1e-4, 0.003, 0.05, 2.0])
def test_every_gain_lies_within_its_cells_bounds_at_any_lambda(lam):
    a, b, l = inputs(3000, 9)
    g = GainCells.build(a, b, l, size=32)
    gain = (b - lam * l) - a
    lo = (g.b_lo - lam * g.l_hi) - g.a_hi
    hi = (g.b_hi - lam * g.l_lo) - g.a_lo
    assert np.all(lo[g.cell] <= gain) and np.all(gain <= hi[g.cell])


def test_positions_of_some_cells():
    a, b, l = inputs(500, 5)
    g = GainCells.build(a, b, l, size=20)
    cells = np.array([0, 3, 4, len(g.starts) - 2])
    want = np.concatenate([np.arange(g.starts[c], g.starts[c + 1]) for c in cells])
    np.testing.assert_array_equal(g.positions(cells), want)
    assert g.positions(np.array([], dtype=np.int64)).size == 0
