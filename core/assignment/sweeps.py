"""Sweeps of the sample assignment (SAE) over grids of lambda and N, exactly as :mod:`core.assignment.model`.

:func:`sweep` evaluates a whole grid of lambda x N with one ranking per lambda and prefix sums
over N (never one solve per point): the same selection as :func:`core.assignment.model.solve_fast`, with the
documented tie rule (a stable ranking by gain, ties to the earlier row). For one N over many
lambda values (and a few N on a large table) it computes at each point only the gains of the
samples whose cell of gain bounds (:class:`GainCells`, built once per inputs) straddles the
threshold (:func:`budget_sums`). Imported as ``from core.assignment import sweep``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from core.assignment.cells import GainCells
from core.assignment.model import (METRIC_COLUMNS, Mode, SAEInputs, check_problem, n_from_share,
                                    top_k_mask)
from core.assignment.reliability import RELIABILITY_KEYS, scores_from_confusion
from core.errors import DataError

__all__ = ["sweep"]


def _grid_values(values, name: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.size == 0:
        raise DataError(f"the {name} grid is empty")
    return arr


def _ranked_sums(g: np.ndarray, ks: np.ndarray, weights: list[np.ndarray],
                 cats: np.ndarray | None, n_cats: int) -> tuple[np.ndarray, np.ndarray]:
    """Sums over the k first samples of the ranking by gain, for several k at once.

    The ranking is :func:`rank_by_gain`'s (gain descending, ties to the earlier row), but it is never
    built: one ``argpartition`` at the k places splits the samples into blocks whose members
    are right whatever their order inside, and block sums add up to the sums at each k. Where
    gains tie at a k-th place, the rows the partition put first are swapped for the earliest
    rows of that gain.

    Parameters
    ----------
    g : array of shape (M,)
    ks : int array of shape (K,)
        Numbers of first samples, each in [0, M].
    weights : list of arrays of shape (M,)
    cats : int array of shape (M,), optional
        A category per sample (-1: none) to count.
    n_cats : int
        Number of categories.

    Returns
    -------
    sums : array of shape (len(weights), K)
    counts : array of shape (K, n_cats)
    """
    m = len(g)
    ks = np.asarray(ks, dtype=np.int64)
    sums = np.zeros((len(weights), len(ks)))
    counts = np.zeros((len(ks), n_cats))
    full = ks >= m
    if full.any():
        sums[:, full] = np.array([float(w.sum()) for w in weights])[:, None]
        if cats is not None:
            counts[full] = np.bincount(cats[cats >= 0], minlength=n_cats)
    inner = np.unique(ks[(ks > 0) & (ks < m)])
    if not len(inner):
        return sums, counts
    order = np.argpartition(-g, inner - 1)
    nb = len(inner) + 1
    # the block of each sample (the first k places are blocks 0 .. k's index): one scatter,
    # then every sum reads its array in row order
    block = np.empty(m, dtype=np.int64)
    block[order] = np.repeat(np.arange(nb), np.diff(np.r_[0, inner, m]))
    pref = np.empty((len(weights), len(inner)))
    for w_i, w in enumerate(weights):
        pref[w_i] = np.cumsum(np.bincount(block, weights=w, minlength=nb))[:-1]
    cpref = np.zeros((len(inner), n_cats))
    if cats is not None:
        ok = cats >= 0
        cb = np.bincount(block[ok] * n_cats + cats[ok], minlength=nb * n_cats)
        cpref = np.cumsum(cb.reshape(nb, n_cats), axis=0)[:-1].astype(float)
    # gains at the k-th places that other samples share (one pass for all places)
    at_k = g[order[inner - 1]]
    vals = np.unique(at_k)
    pos = np.minimum(np.searchsorted(vals, g), len(vals) - 1)
    hit = vals[pos] == g
    tied = set(vals[np.bincount(pos[hit], minlength=len(vals)) > 1].tolist())
    for t, k in enumerate(inner):
        v = at_k[t]
        if v in tied:
            head = order[:k]
            have = head[g[head] == v]
            want = np.flatnonzero(g == v)[:len(have)]  # the stable sort's choice among ties
            if not np.array_equal(np.sort(have), want):
                for w_i, w in enumerate(weights):
                    pref[w_i, t] += float(w[want].sum()) - float(w[have].sum())
                if cats is not None:
                    cw, ch = cats[want], cats[have]
                    cpref[t] += (np.bincount(cw[cw >= 0], minlength=n_cats)
                                 - np.bincount(ch[ch >= 0], minlength=n_cats))
    where = np.searchsorted(inner, ks)
    sel = (ks > 0) & (ks < m)
    sums[:, sel] = pref[:, where[sel]]
    counts[sel] = cpref[where[sel]]
    return sums, counts


#: The fewest samples for which :func:`budget_sums` serves grids of several budgets (below it,
#: one partial ordering per lambda, :func:`_ranked_sums`, is as fast), and the most budgets.
CELLS_MIN_M = 50_000
CELLS_MAX_BUDGETS = 32


def cells_ok(inp: SAEInputs) -> bool:
    """Whether :func:`budget_sums` applies: gains that never rise with lambda, also in floating
    point (k_i = 0 and l_i >= 0)."""
    return bool(np.all(inp.k == 0)) and bool(np.all(inp.l >= 0))


def _cells_pick(cells: GainCells, lam: float, n: int, at_most: bool, sizes: np.ndarray,
                lo: np.ndarray, hi: np.ndarray, kth: Callable[[np.ndarray, int], float],
                ) -> tuple[float, np.ndarray]:
    """The human set at one lambda (k = 0), as :func:`top_k_mask` picks it, from the cells'
    bounds ``lo`` and ``hi`` of the gains at that lambda (``kth(x, k)``: the k-th largest of x).

    Returns ``(t_sure, taken)``: every cell whose ``lo`` exceeds ``t_sure`` goes whole, and
    ``taken`` holds the positions in ``cells.perm`` of the other samples that go.
    """
    n_cells, m = len(lo), int(cells.starts[-1])
    none = np.empty(0, dtype=np.int64)
    if n <= 0 or (n >= m and not at_most):
        return (-math.inf if n > 0 else math.inf), none
    # the n-th largest gain t: at least n gains are >= the k-th largest lo when k cells hold n
    # samples, and fewer than n gains exceed the k2-th largest hi when k2 - 1 cells hold fewer
    k = -(-n // int(sizes.min()))
    t_low = kth(lo, k) if k <= n_cells else -math.inf
    k2 = (n - 1) // int(sizes.max()) + 1
    t_high = kth(hi, k2) if k2 <= n_cells else math.inf
    for threshold_zero in (False, True):
        if not threshold_zero and at_most and (n >= m or t_high <= 0):
            continue  # "at most" M, or t <= 0 already: every positive gain goes
        if threshold_zero:  # "at most" with fewer than n positive gains: every positive one goes
            t_low = t_high = 0.0
        sure = lo > t_high
        cand = np.flatnonzero(~sure & (hi >= t_low))
        pos = cells.positions(cand)
        g = (cells.b[pos] - lam * cells.l[pos]) - cells.a[pos]  # as gains(): the same values
        if threshold_zero:
            return t_high, pos[g > 0]
        room = n - int(sizes[sure].sum())  # 1 <= room <= len(g): t is among these gains
        t = float(np.partition(g, len(g) - room)[len(g) - room])
        if at_most and not t > 0:
            continue
        take = g > t
        need = room - int(np.count_nonzero(take))
        if need > 0:  # ties at t: the earliest rows of the table first
            tied = pos[g == t]
            take_pos = np.r_[pos[take], tied[np.argsort(cells.perm[tied], kind="stable")[:need]]]
            return t_high, take_pos
        return t_high, pos[take]
    raise AssertionError("unreachable")


def budget_sums(inp: SAEInputs, lams: np.ndarray, ns: np.ndarray, mode: str,
                weights: np.ndarray, cats: np.ndarray | None = None,
                n_cats: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sums over the human set at each lambda and budget N, exactly as :func:`solve_fast`
    picks it, without an O(M) pass per lambda.

    With k_i = 0 and l_i >= 0 (:func:`cells_ok`) the samples' gains are bounded per cell of
    :class:`GainCells` (built once per inputs and kept with them). At each lambda and N, the
    bounds give a range for the N-th largest gain t; the cells entirely above it go to humans
    whole, the cells entirely below stay, and only the samples of the cells that straddle it get
    their gains computed: t is among those, and the human set is the cells above plus those
    samples above t, then ties at t by earliest row (the stable rule; "at most" mode among the
    positive gains only). The selection is exact, whatever the cells; they only decide how many
    gains are computed. Per lambda the cells are sorted once by their bounds, so the sums over
    the cells above a threshold are one look-up in running sums.

    Parameters
    ----------
    inp : SAEInputs
        With k_i = 0 and l_i >= 0.
    lams : array of shape (L,)
    ns : int array of shape (K,)
        Budgets, each in [0, M].
    mode : {"at_most", "exactly"}
    weights : array of shape (q, M)
        Per-sample values to sum over each human set.
    cats : int array of shape (M,), optional
        A category per sample (-1: none) to count in each human set.
    n_cats : int

    Returns
    -------
    counts : int array of shape (L, K)
    sums : array of shape (L, K, q)
    cat_counts : array of shape (L, K, n_cats)
    """
    cells = inp.gain_cells
    at_most = mode == "at_most"
    sizes = np.diff(cells.starts)
    w_perm = weights[:, cells.perm]
    first = cells.starts[:-1]
    n_b, q = len(first), weights.shape[0]
    # per cell: its size, its sums, its category counts (one table, summed together)
    per_cell = [sizes[:, None].astype(float), np.add.reduceat(w_perm, first, axis=1).T]
    if cats is not None:
        ok = cats >= 0
        per_cell.append(np.bincount(cells.cell[ok] * n_cats + cats[ok],
                                    minlength=n_b * n_cats).reshape(n_b, n_cats).astype(float))
        c_perm = cats[cells.perm]
    per_cell = np.hstack(per_cell)
    lams = np.asarray(lams, dtype=float)
    ns = np.atleast_1d(np.asarray(ns, dtype=np.int64))
    out = np.zeros((len(lams), len(ns), 1 + q + n_cats))
    few = len(ns) <= 2  # else sort the cells per lambda: look-ups for every budget

    def kth_partition(x: np.ndarray, k: int) -> float:
        return float(np.partition(x, len(x) - k)[len(x) - k])

    for i, lam in enumerate(lams):
        lam = float(lam)
        lo = (cells.b_lo - lam * cells.l_hi) - cells.a_hi  # every gain of a cell is in [lo, hi]
        hi = (cells.b_hi - lam * cells.l_lo) - cells.a_lo
        if not few:
            by_lo = np.argsort(lo, kind="stable")
            lo_up, hi_up = lo[by_lo], np.sort(hi)
            # running sums over the cells from the largest lo down: the cells above a threshold
            above = np.vstack([np.zeros(per_cell.shape[1]),
                               np.cumsum(per_cell[by_lo[::-1]], axis=0)])

            def kth_sorted(x: np.ndarray, k: int) -> float:
                return float((lo_up if x is lo else hi_up)[len(x) - k])
        for j, n in enumerate(ns):
            t_sure, pos = _cells_pick(cells, lam, int(n), at_most, sizes, lo, hi,
                                      kth_partition if few else kth_sorted)
            if few:
                out[i, j] = (lo > t_sure).astype(float) @ per_cell
            else:
                out[i, j] = above[n_b - int(np.searchsorted(lo_up, t_sure, side="right"))]
            out[i, j, 0] += len(pos)
            out[i, j, 1:1 + q] += w_perm[:, pos].sum(axis=1)
            if cats is not None:
                cp = c_perm[pos]
                out[i, j, 1 + q:] += np.bincount(cp[cp >= 0], minlength=n_cats)
    return out[..., 0].astype(np.int64), out[..., 1:1 + q], out[..., 1 + q:]


def sweep(inp: SAEInputs, *, lams, shares=None, n_values=None, mode: Mode = "at_most") -> pd.DataFrame:
    """Every metric at every point of a lambda x N grid, vectorised.

    Per lambda, one partial ordering of the samples by gain at the budgets' places
    (:func:`_ranked_sums`) gives the metrics at each N from sums over its blocks (the confusion
    matrix after moving the first n samples to humans, their efforts, confidences and gains).
    With a single budget (the curve against lambda at the current N), or a few budgets on a
    large table, no ordering is needed: the N samples the ranking puts first are found at each
    point among the few whose cell of gain bounds straddles its threshold (:func:`budget_sums`;
    in O(M) per lambda when gains may rise with lambda). Ties follow the module's rule throughout, so the result
    equals :func:`solve_fast` + :func:`evaluate` at every grid point.

    Parameters
    ----------
    inp : SAEInputs
    lams : array-like of float
        Lambda grid.
    shares : array-like of float, optional
        Human-share grid; ``N = int(share * M)``.
    n_values : array-like of int, optional
        Budget grid in samples (instead of ``shares``).
    mode : {"at_most", "exactly"}

    Returns
    -------
    pandas.DataFrame
        One row per (lambda, N), lambda-major: ``lambda``, ``human_share``, ``N`` and
        :data:`METRIC_COLUMNS`.
    """
    m = inp.M
    lams = _grid_values(lams, "lambda")
    if (shares is None) == (n_values is None):
        raise DataError("give exactly one of a human-share grid or a budget grid")
    if shares is not None:
        shares = _grid_values(shares, "human share")
        ns = np.array([n_from_share(float(s), m) for s in shares], dtype=np.int64)
    else:
        ns = _grid_values(n_values, "budget").astype(np.int64)
        shares = ns / m
    for lam in lams:
        check_problem(inp, float(lam), 0, mode)
    for n in ns:
        check_problem(inp, 0.0, int(n), mode)

    gold = inp.human_label is not None
    if gold:
        labels = list(inp.labels) if inp.labels is not None else sorted(
            set(inp.human_label.tolist()) | set(inp.machine_label.tolist()), key=lambda v: (str(type(v)), v))
        codes = inp.label_codes
        if codes is not None:
            t, p = codes.gold, codes.machine
        else:
            index = {v: i for i, v in enumerate(labels)}
            t = np.array([index[v] for v in inp.human_label.tolist()], dtype=np.int64)
            p = np.array([index[v] for v in inp.machine_label.tolist()], dtype=np.int64)
        c = len(labels)
        cm0 = np.bincount(t * c + p, minlength=c * c).astype(float)
        # Moving a correctly labelled sample to a human changes nothing; moving a wrong one with
        # gold t and machine label p does cm[t, p] -= 1 and cm[t, t] += 1. Only the pair types
        # that occur among the machine's errors need prefix counts.
        wrong = t != p
        pair = np.where(wrong, t * c + p, -1)
        err_types = np.unique(pair[wrong])
    he = inp.human_effort
    he_total = he.sum() if he is not None else None
    l_total = inp.l.sum()
    n_l, n_n = len(lams), len(ns)
    cols = {key: np.empty((n_l, n_n)) for key in ("n_human", "time_cost", "time_cost_predicted",
                                                  "objective", "expected_reliability",
                                                  *RELIABILITY_KEYS)}
    a_sum = inp.a.sum()
    conf = np.zeros((n_l, n_n, c * c)) if gold else None  # confusion counts per grid point
    if m > 0 and cells_ok(inp) and ((n_n == 1 and n_l > 2) or (
            m >= CELLS_MIN_M and n_n <= CELLS_MAX_BUDGETS and n_l > 1)):
        # one budget over many lambdas (the "against lambda" curve at the current N), or few
        # budgets at scale (the frontier grid): at each point only the gains of the cells its
        # threshold crosses are computed (:func:`budget_sums`); k_i = 0 on this path, so a
        # gain's sum is sum(b - a) - lambda sum(l)
        rows = np.vstack([inp.b - inp.a, inp.l] + ([he] if he is not None else []))
        count, sums, moved = budget_sums(inp, lams, ns, mode, rows, pair if gold else None,
                                         c * c if gold else 0)
        c_sum, l_sum = sums[..., 0], sums[..., 1]
        cols["n_human"][:] = count
        cols["objective"][:] = float(inp.a.sum()) + (c_sum - lams[:, None] * l_sum)
        cols["expected_reliability"][:] = (a_sum + c_sum) / m
        cols["time_cost_predicted"][:] = l_sum / l_total if l_total > 0 else np.nan
        cols["time_cost"][:] = sums[..., 2] / he_total if he is not None else np.nan
        if gold:
            # the machine's errors sent to humans, by (gold, machine) pair
            cm = cm0[None, None, :] - moved
            cm[..., np.arange(c) * (c + 1)] += moved.reshape(n_l, n_n, c, c).sum(axis=3)
            conf[:] = cm
    elif n_n == 1:
        # one budget (the "against lambda" curve at the current N): no ranking is needed, only
        # the N samples the sort would put first, found in O(M) per lambda (:func:`top_k_mask`)
        n0 = int(ns[0])
        for i, lam in enumerate(lams):
            lam = float(lam)
            g = (inp.b - lam * inp.l) - (inp.a - lam * inp.k)  # as gains(): same ties
            k = n0 if mode == "exactly" else min(n0, int((g > 0).sum()))
            human = top_k_mask(g, k)
            cols["n_human"][i] = k
            cols["objective"][i] = float((inp.a - lam * inp.k).sum()) + float(g[human].sum())
            cols["expected_reliability"][i] = (a_sum + float((inp.b - inp.a)[human].sum())) / m
            cols["time_cost_predicted"][i] = (float(inp.l[human].sum()) / l_total
                                              if l_total > 0 else np.nan)
            cols["time_cost"][i] = (float(he[human].sum()) / he_total
                                    if he is not None else np.nan)
            if gold:
                moved = human & wrong
                cm = cm0 - np.bincount(pair[moved], minlength=c * c)
                cm[np.arange(c) * (c + 1)] += np.bincount(t[moved], minlength=c)
                conf[i] = cm
    else:
        # many budgets: per lambda, one partial ordering at the budgets' places (O(M log K)
        # rather than a full sort; :func:`_ranked_sums`), in chunks that bound the memory
        b_minus_a = inp.b - inp.a
        conf_sum, k_sum = float(inp.a.sum()), float(inp.k.sum())
        weights = [inp.l] + ([he] if he is not None else [])
        cats = pair if gold else None
        chunk = max(1, int(4_000_000 // max(m, 1)))
        for c0 in range(0, n_l, chunk):
            lam_chunk = lams[c0:c0 + chunk]
            # the same expression as gains(), so ties are broken identically to solve_fast
            g_all = (inp.b[None, :] - lam_chunk[:, None] * inp.l[None, :]) - \
                (inp.a[None, :] - lam_chunk[:, None] * inp.k[None, :])
            for j, lam in enumerate(lam_chunk):
                i = c0 + j
                lam = float(lam)
                g = g_all[j]
                n_pos = int(np.count_nonzero(g > 0))
                kk = ns.copy() if mode == "exactly" else np.minimum(ns, n_pos)
                cols["n_human"][i] = kk
                sums, counts = _ranked_sums(g, kk, [g, b_minus_a, *weights], cats,
                                            c * c if gold else 0)
                cols["objective"][i] = (conf_sum - lam * k_sum) + sums[0]
                cols["expected_reliability"][i] = (a_sum + sums[1]) / m
                cols["time_cost_predicted"][i] = sums[2] / l_total if l_total > 0 else np.nan
                cols["time_cost"][i] = sums[3] / he_total if he is not None else np.nan
                if gold:
                    cms = cm0[None, :] - counts
                    diag = np.arange(c) * (c + 1)
                    for e in err_types:
                        tt = e // c
                        cms[:, diag[tt]] += counts[:, e]
                    conf[i] = cms
    # the scores of every grid point's confusion counts at once
    if gold:
        sc = scores_from_confusion(conf.reshape(n_l * n_n, c, c))
        for key in RELIABILITY_KEYS:
            cols[key] = np.asarray(sc[key], dtype=float).reshape(n_l, n_n)
    else:
        for key in RELIABILITY_KEYS:
            cols[key] = np.full((n_l, n_n), np.nan)
    out = pd.DataFrame({
        "lambda": np.repeat(lams, n_n), "human_share": np.tile(np.asarray(shares, float), n_l),
        "N": np.tile(ns, n_l), "M": m, "n_human": cols["n_human"].ravel().astype(np.int64),
        "human_ratio": cols["n_human"].ravel() / m,
        **{key: cols[key].ravel() for key in ("time_cost", "time_cost_predicted", *RELIABILITY_KEYS,
                                               "objective", "expected_reliability")}})
    return out[["lambda", "human_share", "N", *METRIC_COLUMNS]]
