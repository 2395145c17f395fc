"""The range of lambda over which an assignment changes, and a grid over it (:mod:`core.assignment`).

What lambda means depends on the effort's unit: :func:`lambda_range` gives, for a dataset and a
budget N, the values of lambda over which the assignment changes at all, and
:func:`lambda_grid` a log-like grid over it for sliders and ``hmceval sweep --lam auto``.
Imported as ``from core.assignment import lambda_range, lambda_grid``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.errors import DataError
from core.assignment.model import Mode, SAEInputs, check_problem, top_k_mask

__all__ = ["LambdaRange", "lambda_range", "lambda_grid", "LAMBDA_STEPS"]

@dataclass(frozen=True)
class LambdaRange:
    """The values of lambda over which an assignment changes, for one dataset and budget.

    Attributes
    ----------
    upper : float
        The assignment is the same for every lambda > ``upper`` (``upper`` >= 0). In
        ``"at_most"`` mode, when every sample's human effort exceeds its machine effort
        (l_i > k_i: the paper's setting, k_i = 0 and l_i > 0), it is ``max_i (b_i - a_i) /
        (l_i - k_i)`` and no sample goes to humans at lambda >= ``upper`` (a gain of exactly 0
        stays with the machine). In ``"exactly"`` mode it is the last lambda at which the ranking
        moves a sample across the N-th place; beyond it the N samples of least effort go.
    pivot : float or None
        ``"at_most"`` mode with l_i >= k_i for every sample: N samples go to humans for lambda <
        ``pivot`` and fewer from ``pivot`` on (the paper's Figure 3 pivotal point); 0 when fewer
        than N samples have a positive gain even at lambda = 0, ``inf`` when N go at every
        lambda. None in ``"exactly"`` mode (always N) or when some l_i < k_i.
    n_human : int
        The budget N.
    mode : str
    first : float or None
        The smallest positive ratio ``(b_i - a_i) / (l_i - k_i)`` (over l_i > k_i): where the
        first sample's gain stops paying for its effort; None when no sample has one. A
        sensible lower end of a log-scaled lambda axis.
    n_beyond : int
        How many samples go to humans for every lambda > ``upper``: N in ``"exactly"`` mode;
        in ``"at_most"`` mode the samples whose gain never falls (human effort not above the
        machine's, l_i <= k_i, e.g. a predicted effort of 0, with a positive confidence gap),
        at most N. Usually 0: then no sample goes to humans beyond ``upper``.
    """

    upper: float
    pivot: float | None
    n_human: int
    mode: str
    first: float | None = None
    n_beyond: int = 0


def _hull(x: np.ndarray, y: np.ndarray, *, lower: bool) -> np.ndarray:
    """Indices of the lower (or upper) convex hull of the points (x, y), by increasing x.

    Points sharing an x keep only the lowest (highest) y; monotone chain.
    """
    sign = 1.0 if lower else -1.0
    order = np.lexsort((sign * y, x))
    xs, ys = x[order], y[order]
    keep = np.r_[True, xs[1:] != xs[:-1]]  # first of each x: the lowest (highest) y
    idx, xs, ys = order[keep], xs[keep], sign * ys[keep]
    out: list[int] = []
    for k in range(len(idx)):
        while len(out) >= 2:
            i, j = out[-2], out[-1]
            # drop j when it is not strictly below the segment i -> k
            if (xs[j] - xs[i]) * (ys[k] - ys[i]) - (ys[j] - ys[i]) * (xs[k] - xs[i]) <= 0:
                out.pop()
            else:
                break
        out.append(k)
    return idx[out]


def _undominated(x: np.ndarray, y: np.ndarray, *, probes: int = 1024
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The points (x, y) less those another point beats (x smaller or equal, y larger or equal).

    Not all of those are dropped: only the ones beaten by a point of the staircase of every
    ``len(x) // probes``-th point (one search each, no sort of all points), and that staircase is
    added back, so the staircase of what is returned is the staircase of all the points (the same
    values), in O(M log probes).
    """
    m = len(x)
    if m <= 4 * probes:
        return x, y
    px, py = x[:: m // probes], y[:: m // probes]
    o = np.lexsort((-py, px))
    o = o[np.r_[True, py[o][1:] > np.maximum.accumulate(py[o])[:-1]]]
    sx, sy = px[o], py[o]  # x and y both strictly increasing
    j = np.searchsorted(sx, x, side="right") - 1
    keep = (j < 0) | (sy[np.maximum(j, 0)] < y)
    return np.r_[x[keep], sx], np.r_[y[keep], sy]


def _max_slope(cl: np.ndarray, dl: np.ndarray, cr: np.ndarray, dr: np.ndarray) -> float:
    """``max (cr_j - cl_i) / (dr_j - dl_i)`` over pairs with ``dr_j > dl_i`` (-inf if none).

    Every left point has d <= every right point's d. The maximum lies on a vertex of the left
    set's lower hull and of the right set's upper hull (a linear-fractional function over a
    convex set peaks at a vertex), so only those pairs are compared.
    """
    if not len(cl) or not len(cr):
        return -math.inf
    # a right point beaten by one of smaller-or-equal d and larger-or-equal c never gives the
    # maximum (nor a left point beaten by one of larger-or-equal d and smaller-or-equal c): keep
    # the two staircases (a few points), vectorised, before the hulls; most points are dropped
    # first in O(M) against the staircase of a sample of them (:func:`_undominated`)
    dr, cr = _undominated(dr, cr)
    dl, cl = _undominated(-dl, -cl)
    dl, cl = -dl, -cl
    o = np.lexsort((-cr, dr))
    o = o[np.r_[True, cr[o][1:] > np.maximum.accumulate(cr[o])[:-1]]]
    cr, dr = cr[o], dr[o]
    o = np.lexsort((cl, -dl))
    o = o[np.r_[True, cl[o][1:] < np.minimum.accumulate(cl[o])[:-1]]]
    cl, dl = cl[o], dl[o]
    li = _hull(dl, cl, lower=True)
    ri = _hull(dr, cr, lower=False)
    dd = dr[ri][None, :] - dl[li][:, None]
    dc = cr[ri][None, :] - cl[li][:, None]
    ok = dd > 0
    if not ok.any():
        return -math.inf
    return float(np.max(dc[ok] / dd[ok]))


def _last_change(c: np.ndarray, d: np.ndarray, n: int) -> float:
    """The largest lambda at which the top-n set of ``c - lambda d`` (stable order) changes.

    For lambda -> inf the order is d ascending, then c descending, then row; S is its first n.
    A pair i in S, j not in S with d_j > d_i is ordered as at infinity exactly when lambda >
    (c_j - c_i) / (d_j - d_i); pairs of equal d never swap. So the answer is the largest such
    ratio, computed per band of d (below, at and above the N-th sample's d) on convex hulls.
    """
    m = len(c)
    if n <= 0 or n >= m:
        return 0.0
    # S without sorting: every d below the n-th smallest, then among the d equal to it the
    # largest c, ties to the earlier row (:func:`top_k_mask`)
    big_d = np.partition(d, n - 1)[n - 1]
    s_lt = np.flatnonzero(d < big_d)
    eq = np.flatnonzero(d == big_d)
    first = top_k_mask(c[eq], n - len(s_lt))
    s_eq, r_eq = eq[first], eq[~first]
    r_gt = np.flatnonzero(d > big_d)
    best = max(_max_slope(c[s_lt], d[s_lt], c[r_eq], d[r_eq]),
               _max_slope(c[s_lt], d[s_lt], c[r_gt], d[r_gt]),
               _max_slope(c[s_eq], d[s_eq], c[r_gt], d[r_gt]))
    return max(0.0, best)


def lambda_range(inp: SAEInputs, *, n_human: int, mode: Mode = "at_most") -> LambdaRange:
    """The range of lambda over which the assignment of a dataset changes, for a budget N.

    A sample goes to a human when its gain ``(b_i - a_i) - lambda (l_i - k_i)`` is among the N
    largest and, in ``"at_most"`` mode, strictly positive (the module docstring's tie rule). The
    gain of a sample with ``d_i = l_i - k_i > 0`` is positive exactly for lambda < ``(b_i - a_i)
    / d_i``, so in the usual case the range ends at the largest of these ratios: from there on
    no sample goes to humans. The same bound holds whatever the effort's unit: with effort in
    seconds it is about the paper's value divided by the seconds in its unit of effort.

    Parameters
    ----------
    inp : SAEInputs
    n_human : int
        Budget N, 0 <= N <= M.
    mode : {"at_most", "exactly"}

    Returns
    -------
    LambdaRange
        ``upper``: for every lambda > upper the assignment is the one at upper (exact, not a
        search); ``pivot`` (``"at_most"``): N samples go to humans below it, fewer from it on.

    Examples
    --------
    Confidences 0.9, 0.6, 0.2 and efforts 0.5, 0.1, 2: gains cross zero at lambda = 0.1 / 0.5 =
    0.2, 0.4 / 0.1 = 4 and 0.8 / 2 = 0.4, so nobody goes to humans from lambda = 4 on; with N = 2
    two samples go while two gains are positive, that is below lambda = 0.4.

    >>> r = lambda_range(SAEInputs.from_arrays([0.9, 0.6, 0.2], [0.5, 0.1, 2.0]), n_human=2)
    >>> round(r.upper, 12), round(r.pivot, 12)
    (4.0, 0.4)
    """
    check_problem(inp, 0.0, int(n_human), mode)
    n = int(n_human)
    c = inp.b - inp.a
    d = inp.l - inp.k
    pos = (d > 0) & (c > 0)
    ratios = c[pos] / d[pos]
    first = float(ratios.min()) if len(ratios) else None
    if mode == "exactly":
        return LambdaRange(upper=_last_change(c, d, n), pivot=None, n_human=n, mode=mode,
                           first=first, n_beyond=n)
    # beyond every ratio, a gain c_i - lambda d_i is positive exactly when d_i < 0, or d_i = 0
    # and c_i > 0: those samples go to humans at every large lambda (at most N of them)
    n_beyond = min(n, int((d < 0).sum() + ((d == 0) & (c > 0)).sum()))
    pivot = None
    nonneg = bool((d >= 0).all())
    always = int(((d == 0) & (c > 0)).sum()) if nonneg else -1
    if n == 0:
        upper = 0.0
    elif always == 0:
        # the usual case: every positive gain falls as lambda grows and reaches 0 at c_i / d_i
        upper = float(ratios.max()) if len(ratios) else 0.0
    else:
        # "at most N" in general: the N largest gains among the positive ones, i.e. the top N
        # once N zero-gain samples (c = d = 0) are added ahead of the real ones of gain 0
        # (which stay with the machine)
        # (placed first, the added samples come first among equal (c, d) at infinity)
        upper = _last_change(np.r_[np.zeros(n), c], np.r_[np.zeros(n), d], n)
    if nonneg:
        ratios = np.sort(ratios)[::-1]
        need = n - always
        if n == 0 or need <= 0:
            pivot = math.inf
        elif need > len(ratios):
            pivot = 0.0
        else:
            pivot = float(ratios[need - 1])
    return LambdaRange(upper=upper, pivot=pivot, n_human=n, mode=mode, first=first,
                       n_beyond=n_beyond)


#: Steps of :func:`lambda_grid` within a decade (1, 1.2, 1.5, 2, ... 8).
LAMBDA_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def lambda_grid(upper: float, *, lower: float | None = None, decades: int = 5,
                include: Sequence[float] = ()) -> np.ndarray:
    """A log-like lambda grid from 0 to ``upper``: 0, then 1-1.2-1.5-2-2.5-3-4-5-6-8 steps per
    decade from the decade of ``lower`` (at most ``decades`` decades below ``upper``'s), then
    ``upper`` itself.

    Parameters
    ----------
    upper : float >= 0
        The end of the grid (:attr:`LambdaRange.upper`); 0 gives ``[0]``.
    lower : float > 0, optional
        Where the steps start (:attr:`LambdaRange.first`), rounded down to its decade.
    decades : int, default=5
        The most decades of steps.
    include : sequence of float
        Values added to the grid (e.g. the current lambda), when in [0, upper].

    Returns
    -------
    numpy.ndarray
        Sorted, unique values in [0, upper].
    """
    upper = float(upper)
    if not math.isfinite(upper) or upper < 0:
        raise DataError(f"the upper end of a lambda grid must be a finite number >= 0, got {upper}")
    vals = [0.0]
    if upper > 0:
        top = math.floor(math.log10(upper))
        bottom = top - decades + 1
        if lower is not None and 0 < lower <= upper:
            bottom = max(bottom, math.floor(math.log10(lower)))
        for e in range(bottom, top + 1):
            vals += [float(f"{s * 10.0 ** e:.6g}") for s in LAMBDA_STEPS]
        vals.append(upper)
    vals += [float(v) for v in include if 0 <= float(v) <= upper]
    out = np.unique(np.asarray(vals, dtype=float))
    return out[out <= upper]
