"""The Godambe-Joshi bound for the design benches: the least variance any design with known
inclusion probabilities and a design-unbiased estimator can give a class share, at a given
number of labels and final-label accuracy.

For Poisson sampling with inclusion probabilities pi_i, any design-unbiased estimator of a
share has variance at least sum_i (1 / pi_i - 1) P_ic (1 - P_ic) / M^2, P_ic the probability
that row i is of class c (attained by the Horvitz-Thompson difference estimator with the true
P as its control). P is fitted here on all the gold labels: the share of each class among
the rows of a cell (the machine's class x bins of its confidence holding at least 40 rows
each), so the bound flatters every design. The best pi for an accuracy target solves

    minimise sum_i v_ic / pi_i  s.t.  sum_i pi_i <= B,
             sum_i pi_i + (1 - pi_i) r_i >= M a,   0 < pi_i <= 1,

(r_i = P_i,machine_i, the chance the machine is right), a convex program solved by cvxpy with
Clarabel.
"""

from __future__ import annotations

import numpy as np

from core.evaluation.sampling import z_value
from _rounds import worth


def fitted_probabilities(mach: np.ndarray, gold: np.ndarray, q: np.ndarray, k: int,
                         per_cell: int = 40) -> np.ndarray:
    """P of shape (M, K): class shares among the gold labels of each cell (machine class x
    confidence bins of at least ``per_cell`` rows; ties stay in one bin)."""
    m = len(q)
    p = np.zeros((m, k))
    for c in np.unique(mach):
        rows = np.flatnonzero(mach == c)
        n_bins = max(1, len(rows) // per_cell)
        qs = np.sort(q[rows])
        edges = np.unique(qs[(np.arange(1, n_bins) * len(qs)) // n_bins]) if n_bins > 1 \
            else np.array([])
        cell = np.searchsorted(edges, q[rows], side="right")
        # a last bin smaller than per_cell joins the one before it
        sizes = np.bincount(cell)
        while len(sizes) > 1 and sizes[-1] < per_cell:
            cell[cell == len(sizes) - 1] = len(sizes) - 2
            sizes = np.bincount(cell)
        for b in np.unique(cell):
            idx = rows[cell == b]
            p[idx] = np.bincount(gold[idx], minlength=k) / len(idx)
    return p


def best_variance(v: np.ndarray, right: np.ndarray, labels: float, accuracy: float
                  ) -> float:
    """min over pi of sum (1 / pi - 1) v at ``labels`` expected labels and an expected final
    accuracy of at least ``accuracy``; NaN when the accuracy cannot be reached."""
    import cvxpy as cp

    m = len(v)
    need = m * accuracy - float(right.sum())
    if need > float(np.sort(1 - right)[::-1][:int(labels)].sum()) + 1e-9:
        return float("nan")
    pi = cp.Variable(m)
    cons = [cp.sum(pi) <= labels, pi <= 1, pi >= 1e-6]
    if need > 0:
        cons.append((1 - right) @ pi >= need)
    prob = cp.Problem(cp.Minimize(v @ cp.inv_pos(pi)), cons)
    try:
        prob.solve(solver=cp.CLARABEL)
    except cp.error.SolverError:
        return float("nan")
    if pi.value is None:
        return float("nan")
    x = np.clip(pi.value, 1e-6, 1)
    return float(((1 / x - 1) * v).sum())


def bound_worth(mach: np.ndarray, gold: np.ndarray, q: np.ndarray, k: int, labels: float,
                accuracy: float, per_cell: int = 40) -> list[float]:
    """Per class, the bound's interval at ``labels`` labels and final accuracy ``accuracy``,
    as its worth in random labels (without replacement); NaN where the accuracy cannot be
    reached with these labels. ``per_cell``: the fewest rows of a cell P is fitted on (40
    flatters every design most: P fitted in-sample on small cells)."""
    p = fitted_probabilities(mach, gold, q, k, per_cell=per_cell)
    m = len(q)
    truth = np.bincount(gold, minlength=k) / m
    right = p[np.arange(m), mach]
    out = []
    for c in range(k):
        var = best_variance(p[:, c] * (1 - p[:, c]), right, labels, accuracy)
        if not np.isfinite(var):
            out.append(float("nan"))
            continue
        half = z_value(0.95) * np.sqrt(var) / m
        out.append(float(worth(m, truth[c], half)) if half > 0 else float("inf"))
    return out


def ideal_worth(mach: np.ndarray, gold: np.ndarray, q: np.ndarray, k: int, pi: np.ndarray
                ) -> list[float]:
    """Per class, the worth in random labels of the ideal estimator's interval on a given
    design: variance sum (1 / pi - 1) P (1 - P) / M^2 with the fitted P."""
    p = fitted_probabilities(mach, gold, q, k)
    m = len(q)
    truth = np.bincount(gold, minlength=k) / m
    pi = np.asarray(pi, dtype=float)
    out = []
    for c in range(k):
        var = float(((1 / pi - 1) * p[:, c] * (1 - p[:, c])).sum())
        half = z_value(0.95) * np.sqrt(var) / m
        out.append(float(worth(m, truth[c], half)) if half > 0 else float("inf"))
    return out
