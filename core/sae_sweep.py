"""Sweeps of the sample assignment (SAE) over grids of lambda and N, exactly as :mod:`core.sae`.

:func:`sweep` evaluates a whole grid of lambda x N with one ranking per lambda and prefix sums
over N (never one solve per point): the same selection as :func:`core.sae.solve_fast`, with the
documented tie rule (a stable ranking by gain, ties to the earlier row). For one N over many
lambda values it ranks only the samples whose place can change between two lambda values.
Imported as ``from core.sae import sweep``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError
from core.reliability import RELIABILITY_KEYS, scores_from_confusion
from core.sae import METRIC_COLUMNS, Mode, SAEInputs, check_problem, n_from_share, top_k_mask

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


def _top_k_rows(g: np.ndarray, k: int, *, positive: bool = False) -> np.ndarray:
    """:func:`top_k_mask` of every row of ``g`` (shape (R, n)) with the same k; with ``positive``,
    among the strictly positive values only (the k first of those, or all when fewer)."""
    r, n = g.shape
    if k <= 0:
        return np.zeros((r, n), dtype=bool)
    if k >= n:
        return g > 0 if positive else np.ones((r, n), dtype=bool)
    v = np.partition(g, n - k, axis=1)[:, n - k][:, None]  # each row's k-th largest
    sel = g > v
    need = k - sel.sum(axis=1)
    ties = g == v
    n_ties = ties.sum(axis=1)
    all_go = n_ties == need  # the usual case: only the k-th value itself
    sel[all_go] |= ties[all_go]
    some = np.flatnonzero(~all_go)
    if len(some):
        # among ties at the k-th value, the earliest columns (rows of the table) go first
        t_some = ties[some]
        sel[some] |= t_some & (np.cumsum(t_some, axis=1) <= need[some, None])
    if positive:
        few = np.count_nonzero(g > 0, axis=1) <= k  # then every positive one goes
        sel[few] = g[few] > 0
        sel &= g > 0
    return sel


def _bracketed_ok(inp: SAEInputs, lams: np.ndarray, n: int) -> bool:
    """Whether :func:`_single_budget_bracketed` applies: 0 < N < M, several lambdas, and gains
    that never rise with lambda, also in floating point (k_i = 0 and l_i >= 0)."""
    return 0 < n < inp.M and len(lams) > 2 and bool(np.all(inp.k == 0)) and bool(
        np.all(inp.l >= 0))


def _single_budget_bracketed(inp: SAEInputs, lams: np.ndarray, n: int, mode: str, summarise):
    """The human set at each lambda for one budget N, exactly as :func:`solve_fast` picks it.

    With k_i = 0 and l_i >= 0 every gain ``g_i(lambda) = (b_i - lambda l_i) - a_i`` is
    non-increasing in lambda, also as computed in floating point, and so is the threshold v
    (the N-th largest gain; in "at most" mode the N-th largest positive gain, 0 when fewer
    than N are positive). For lambda in [lo, hi] (grid points where v is known exactly):

    * a sample with g_i(hi) > v(lo) is above the threshold at every lambda between: it goes to
      a human (strictly above, so no tie rule is involved);
    * a sample with g_i(lo) < v(hi) (or, "at most", g_i(lo) <= 0) never goes;
    * only the rest (U, few when the lambdas are close) is ranked at each lambda: the
      N - |sure| first of U by the stable rule (:func:`top_k_mask`; U keeps the row order, so ties
      go as in the full ranking), "at most" among the positive gains only.

    An interval whose U is large is split at a grid point in between (one more exact
    threshold). Yields per interval ``(positions in lams, summarise(sure mask), U's rows, mask of
    shape (positions, U) of U's rows that go at each of these lambdas)``.
    """
    m = inp.M
    order = np.argsort(lams, kind="stable")
    sl = np.asarray(lams, float)[order]
    at_most = mode == "at_most"

    def gain(lam: float, idx=None) -> np.ndarray:
        if idx is None:
            return (inp.b - lam * inp.l) - (inp.a - lam * inp.k)  # as gains(): same values
        return (inp.b[idx] - lam * inp.l[idx]) - (inp.a[idx] - lam * inp.k[idx])

    thresholds: dict[int, float] = {}
    g_at: dict[int, np.ndarray] = {}

    def point(j: int) -> tuple[float, np.ndarray]:
        if j in thresholds and j not in g_at:
            g_at[j] = gain(float(sl[j]))
        if j not in thresholds:
            g = gain(float(sl[j]))
            if at_most and int(np.count_nonzero(g > 0)) < n:
                v = 0.0  # fewer than N positive gains: every positive one goes
            else:
                v = float(np.partition(g, m - n)[m - n])
            thresholds[j], g_at[j] = v, g
        return thresholds[j], g_at[j]

    stack = [(0, len(sl) - 1)]
    while stack:
        j0, j1 = stack.pop()
        v_hi, g_lo_lam = point(j0)  # at the smaller lambda: larger gains and threshold
        v_lo, g_hi_lam = point(j1)
        sure = g_hi_lam > v_hi
        never = g_lo_lam < v_lo
        if at_most:
            never |= g_lo_lam <= 0
        u = np.flatnonzero(~(sure | never))
        last = j1 == len(sl) - 1
        pts = range(j0, j1 + 1 if last else j1)
        if j1 - j0 >= 2 and len(u) * len(pts) > 3 * m:
            mid = (j0 + j1) // 2
            stack += [(mid, j1), (j0, mid)]
            continue
        fixed = summarise(sure)
        room = n - fixed["count"]
        lam_pts = sl[j0:pts.stop][:, None]
        # the interval's lambdas at once, one row each; as gains(): same values
        gu = (inp.b[u][None, :] - lam_pts * inp.l[u][None, :]) - \
            (inp.a[u][None, :] - lam_pts * inp.k[u][None, :])
        yield order[j0:pts.stop], fixed, u, _top_k_rows(gu, room, positive=at_most)
        g_at.pop(j0, None)  # keep memory bounded (recomputed if a neighbour needs it)


def sweep(inp: SAEInputs, *, lams, shares=None, n_values=None, mode: Mode = "at_most") -> pd.DataFrame:
    """Every metric at every point of a lambda x N grid, vectorised.

    Per lambda, one partial ordering of the samples by gain at the budgets' places
    (:func:`_ranked_sums`) gives the metrics at each N from sums over its blocks (the confusion
    matrix after moving the first n samples to humans, their efforts, confidences and gains).
    With a single budget (the curve against lambda at the current N) no ordering is needed: the
    N samples the ranking puts first are found per lambda among the few whose place can change
    since the neighbouring lambdas (:func:`_single_budget_bracketed`; in O(M) per lambda when
    gains may rise with lambda). Ties follow the module's rule throughout, so the result
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
    if n_n == 1 and _bracketed_ok(inp, lams, int(ns[0])):
        # one budget over many lambdas (the "against lambda" curve at the current N): the top-N
        # sets of neighbouring lambdas share most samples, so each lambda only ranks the few
        # whose place can change (:func:`_single_budget_bracketed`)
        # the sums every lambda needs, as rows of one matrix: a mask's sums are one product
        # (k_i = 0 on this path, so a gain's sum is sum(b - a) - lambda sum(l))
        rows = np.vstack([inp.b - inp.a, inp.l] + ([he] if he is not None else []))

        def summarise(mask: np.ndarray) -> dict[str, Any]:
            sums = rows @ mask.astype(float)
            out = {"count": int(np.count_nonzero(mask)), "sums": sums}
            if gold:
                w = mask & wrong
                out["pairs"] = np.bincount(pair[w], minlength=c * c)
                out["gold"] = np.bincount(t[w], minlength=c)
            return out

        conf_sum = float(inp.a.sum())
        for pos, fixed, u, sel in _single_budget_bracketed(inp, lams, int(ns[0]), mode,
                                                          summarise):
            sel_f = sel.astype(float)
            cols["n_human"][pos, 0] = fixed["count"] + sel.sum(axis=1)
            sums = fixed["sums"][None, :] + sel_f @ rows[:, u].T  # one row per lambda
            c_sum, l_sum = sums[:, 0], sums[:, 1]
            cols["objective"][pos, 0] = conf_sum + (c_sum - lams[pos] * l_sum)
            cols["expected_reliability"][pos, 0] = (a_sum + c_sum) / m
            cols["time_cost_predicted"][pos, 0] = l_sum / l_total if l_total > 0 else np.nan
            cols["time_cost"][pos, 0] = sums[:, 2] / he_total if he is not None else np.nan
            if gold:
                wpos = np.flatnonzero(wrong[u])  # U's samples the machine gets wrong
                onehot_pair = np.zeros((len(wpos), c * c))
                onehot_pair[np.arange(len(wpos)), pair[u][wpos]] = 1.0
                onehot_gold = np.zeros((len(wpos), c))
                onehot_gold[np.arange(len(wpos)), t[u][wpos]] = 1.0
                moved = sel_f[:, wpos]
                cm = cm0[None, :] - fixed["pairs"][None, :] - moved @ onehot_pair
                cm[:, np.arange(c) * (c + 1)] += fixed["gold"][None, :] + moved @ onehot_gold
                conf[pos, 0] = cm
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
