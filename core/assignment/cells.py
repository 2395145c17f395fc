"""Cells of similar effort and confidence gap: bounds on the gains of their samples at any lambda.

:class:`GainCells` is built once per inputs (:attr:`core.assignment.model.SAEInputs.gain_cells`)
and read by the sweeps (:func:`core.assignment.sweeps.budget_sums`), which at each lambda compute
only the gains of the cells a threshold crosses. It depends on numpy alone, below both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["GainCells"]


@dataclass(frozen=True)
class GainCells:
    """The samples in cells of similar effort and confidence gap, for gain bounds per cell.

    The samples are cut into slabs of equal count by effort l, and each slab into cells of equal
    count by ``c = b - a``. Every cell keeps the least and greatest a, b and l of its samples, so
    at any lambda, with k = 0 and l >= 0, the gain ``(b_i - lambda l_i) - a_i`` of each of its
    samples lies, as computed in floating point (each operation rounds monotonically), between

        ``lo = (b_min - lambda l_max) - a_max``  and  ``hi = (b_max - lambda l_min) - a_min``.

    A line ``c - lambda l = t`` crosses about as many cells as there are slabs plus cells per
    slab, so at any lambda only those cells' samples need their gains.

    Attributes
    ----------
    perm : int array of shape (M,)
        The samples, cell after cell.
    starts : int array of shape (B + 1,)
        Where each cell starts in ``perm`` (and the end).
    cell : int array of shape (M,)
        The cell of each sample.
    a, b, l : arrays of shape (M,)
        The inputs in the order of ``perm``.
    a_lo, a_hi, b_lo, b_hi, l_lo, l_hi : arrays of shape (B,)
        Each cell's least and greatest a, b and l.
    """

    perm: np.ndarray
    starts: np.ndarray
    cell: np.ndarray
    a: np.ndarray
    b: np.ndarray
    l: np.ndarray
    a_lo: np.ndarray
    a_hi: np.ndarray
    b_lo: np.ndarray
    b_hi: np.ndarray
    l_lo: np.ndarray
    l_hi: np.ndarray

    @classmethod
    def build(cls, a: np.ndarray, b: np.ndarray, l: np.ndarray, *, size: int = 64) -> "GainCells":
        """Cells of about ``size`` samples on a square grid of slabs x cells (two sorts)."""
        m = len(a)
        n_slab = max(1, int(round(math.sqrt(m / size))))
        edges = (np.arange(n_slab + 1) * m) // n_slab
        slab = np.empty(m, dtype=np.int16 if n_slab < 2**15 else np.int64)
        slab[np.argsort(l, kind="stable")] = np.repeat(np.arange(n_slab), np.diff(edges))
        by_c = np.argsort(b - a, kind="stable")
        perm = by_c[np.argsort(slab[by_c], kind="stable")]  # slab after slab, c ascending
        sizes = np.diff(edges)
        n_cell = max(1, min(n_slab, int(sizes.min())))
        starts = np.r_[(edges[:-1, None] + (np.arange(n_cell)[None, :] * sizes[:, None])
                        // n_cell).ravel(), m]
        cell = np.empty(m, dtype=np.int64)
        cell[perm] = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
        ap, bp, lp = a[perm], b[perm], l[perm]
        first = starts[:-1]
        return cls(perm=perm, starts=starts, cell=cell, a=ap, b=bp, l=lp,
                   a_lo=np.minimum.reduceat(ap, first), a_hi=np.maximum.reduceat(ap, first),
                   b_lo=np.minimum.reduceat(bp, first), b_hi=np.maximum.reduceat(bp, first),
                   l_lo=np.minimum.reduceat(lp, first), l_hi=np.maximum.reduceat(lp, first))

    def positions(self, cells: np.ndarray) -> np.ndarray:
        """The positions in ``perm`` of the samples of ``cells`` (indices, ascending)."""
        cs, ce = self.starts[cells], self.starts[cells + 1]
        lengths = ce - cs
        if not len(lengths):
            return np.empty(0, dtype=np.int64)
        shift = cs - np.r_[0, np.cumsum(lengths)[:-1]]
        return np.arange(int(lengths.sum())) + np.repeat(shift, lengths)
