"""The weighted estimate of a large round table in chunked passes, equal to the in-memory one.

:func:`core.evaluation.estimate.weighted_round.estimate_weighted_design` fits every candidate control
on every row at once (each a column of an (M, J) array, the cells as an (M, cells) one-hot
array: beyond 10 GB at 10^7 rows). The estimator only needs, besides the labelled rows
(a few thousand, held whole), sums over the unlabelled rows: a control fitted on the labels is
a linear function of each row's own columns (the machine's probability, its cell), so
``sum_unl m_i`` and the moderation's ``sum (1 / pi - 1) (P (1 - P) + (P - m)^2)`` are
accumulated chunk by chunk once the coefficients are known. Three passes: the design's counts
(for the cells), the cells' ridge weights, the controls' sums. The labelled rows' leave-one-out
controls, the choice of the candidate and the intervals are computed exactly as in
:mod:`core.evaluation.estimate.weighted` (:func:`core.evaluation.estimate.weighted.weighted_total` itself), so
the results equal the in-memory ones up to the order of the sums (1e-12).

Groups: each group's sums come from the same pass (``bincount`` by the group's code), the
rest of the table's from the other groups' sums, so each group's estimate and the test of the
groups worse than the rest (:func:`core.evaluation.estimate.weighted.worse_groups`) are those of the
in-memory path. Not yet on this path: the ``"covariates"`` candidate (group indicators and
further judges' confidences; used in memory with ``--group`` or a second confidence column);
a note says so.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.evaluation.sampling import machine_probabilities
from core.evaluation.estimate import (PRIOR_ROWS, accuracy_from_total, settled_accuracy,
                                      share_entry, t_quantile)
from core.evaluation.sampling import z_value
from core.evaluation.estimate import (DEFAULT_CONTROL, FLEX_LABELS, MIN_LABELS, PRIOR_DF,
                                      weighted_total)

__all__ = ["NAMES", "cell_edges", "estimate_scaled", "k_counts", "k_cells", "k_controls"]

#: The candidate controls fitted here, in the in-memory order.
NAMES = ("ht", "mean", "ppi", "cells")


def _outcome_prior(ch: dict, n_classes: int) -> np.ndarray:
    """The machine's probability of each outcome (share of every class, then accuracy), (n, K+1)."""
    q = np.asarray(ch["q"], dtype=float)
    f = machine_probabilities(ch["code"], q, n_classes)
    return np.column_stack([f, np.clip(q, 0, 1)])


def _cells(ch: dict, edges: list[np.ndarray]) -> np.ndarray:
    code = np.asarray(ch["code"], dtype=np.int64)
    q = np.asarray(ch["q"], dtype=float)
    out = np.zeros(len(code), dtype=np.int64)
    offset = 0
    for c, e in enumerate(edges):
        if e is None:
            continue
        rows = code == c
        out[rows] = offset + np.searchsorted(e, q[rows], side="right")
        offset += len(e) + 1
    return out


def k_counts(ch: dict, start: int, *, n_classes: int) -> np.ndarray:
    """[rows per machine class (K), sum of pi over its rows with pi < 1 (K), sum w,
    sum w (1 + f_o^2) per outcome (K + 1), sum w pi over pi < 1, sum pi over pi < 1]."""
    code = np.asarray(ch["code"], dtype=np.int64)
    pi = np.asarray(ch["pi"], dtype=float)
    free = pi < 1
    w = (1 - pi) / pi ** 2
    prior = _outcome_prior(ch, n_classes)
    return np.r_[np.bincount(code, minlength=n_classes),
                 np.bincount(code[free], weights=pi[free], minlength=n_classes),
                 w.sum(), (w[:, None] * (1 + prior ** 2)).sum(axis=0),
                 (w[free] * pi[free]).sum(), pi[free].sum()]


def k_cells(ch: dict, start: int, *, edges: list, n_cells: int) -> np.ndarray:
    """Per cell: sum of w pi over rows with pi < 1, then sum of pi over them (2 n_cells)."""
    pi = np.asarray(ch["pi"], dtype=float)
    free = pi < 1
    w = (1 - pi) / pi ** 2
    cells = _cells(ch, edges)
    return np.r_[np.bincount(cells, weights=w * pi * free, minlength=n_cells),
                 np.bincount(cells, weights=pi * free, minlength=n_cells)]


def k_controls(ch: dict, start: int, *, n_classes: int, edges: list, coef: list,
               n_groups: int) -> np.ndarray:
    """Per group (column ``group``, else one group): rows, machine-class counts (K), then for
    every outcome and candidate the sum of the control over the unlabelled rows and, over the
    unlabelled rows with pi < 1, sum (1 / pi - 1) (P (1 - P) + (P - m)^2)."""
    pi = np.asarray(ch["pi"], dtype=float)
    lab = np.asarray(ch["lab"], dtype=bool)
    code = np.asarray(ch["code"], dtype=np.int64)
    grp = np.asarray(ch["group"], dtype=np.int64) if "group" in ch else np.zeros(len(pi),
                                                                                   np.int64)
    unl = ~lab
    free_unl = unl & (pi < 1)
    prior = _outcome_prior(ch, n_classes)
    cells = _cells(ch, edges)
    parts = [np.bincount(grp, minlength=n_groups).astype(float)]
    parts += [np.bincount(grp, weights=(code == c).astype(float), minlength=n_groups)
              for c in range(n_classes)]
    g_unl, g_free = grp[unl], grp[free_unl]
    inv = (1 / pi - 1)
    for o, (b_mean, b_ppi, b_cells) in enumerate(coef):
        f = prior[:, o]
        ctrls = [np.zeros(len(pi)), np.full(len(pi), b_mean[0]),
                 np.column_stack([np.ones(len(pi)), f]) @ b_ppi,
                 f + b_cells[cells]]
        p_cells = np.clip(ctrls[3], 0.0, 1.0)
        for ctrl in ctrls:
            parts.append(np.bincount(g_unl, weights=ctrl[unl], minlength=n_groups))
            val = inv * (p_cells * (1 - p_cells) + (p_cells - ctrl) ** 2)
            parts.append(np.bincount(g_free, weights=val[free_unl], minlength=n_groups))
    if "effort" in ch:  # each group's effort, for the worse-group sentences
        parts.append(np.bincount(grp, weights=np.asarray(ch["effort"], float),
                                 minlength=n_groups))
    return np.concatenate(parts)


def cell_edges(q: np.ndarray, code: np.ndarray, expected: np.ndarray, counts: np.ndarray, *,
               per_cell: float = 60, max_bins: int = 8) -> list:
    """``controls.design_cells``'s bin edges per machine class (None for a class no row has):
    the order statistics are found with a partition of the class's confidences."""
    edges: list = []
    for c in range(len(counts)):
        if counts[c] == 0:
            edges.append(None)
            continue
        n_bins = max(1, min(max_bins, int(float(expected[c]) // per_cell)))
        if n_bins == 1:
            edges.append(np.array([]))
            continue
        qc = q[code == c]
        ranks = (np.arange(1, n_bins) * len(qc)) // n_bins
        qc.partition(ranks)
        edges.append(np.unique(qc[ranks]))
        del qc
    return edges


def _fit(y: np.ndarray, x: np.ndarray, w: np.ndarray, o: np.ndarray, pen: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray, float]:
    """``controls.loo_fit_dof`` on the labelled rows alone (the guard given, computed over
    every row): the coefficients, the labelled rows' leave-one-out controls, the dof."""
    yl = y - o
    a = (x * w[:, None]).T @ x + np.diag(pen)
    xwy = (x * w[:, None]).T @ yl
    ainv = np.linalg.pinv(a)
    b = ainv @ xwy
    pred = o + x @ b
    if not len(y):
        return b, pred, 0.0
    h = w * np.einsum("ij,jk,ik->i", x, ainv, x)
    r = y - pred
    loo = y - r / np.where(1 - h > 1e-3, 1 - h, 1.0)
    for j in np.flatnonzero(1 - h <= 1e-3):
        a_i = a - w[j] * np.outer(x[j], x[j])
        b_i = np.linalg.pinv(a_i) @ (xwy - w[j] * x[j] * yl[j])
        loo[j] = o[j] + x[j] @ b_i
    return b, loo, float(h.sum())


def _best_total(y_lab, pi_lab, ctrl_lab, unl_sums, unl_priors, n_free, sizes, confidence,
                prior_df):
    """``weighted._best_total`` from the labelled rows and the unlabelled rows' sums."""
    free = pi_lab < 1
    p_cells = np.clip(ctrl_lab[:, NAMES.index("cells")], 0.0, 1.0)
    n = max(int(n_free), 1)
    best = None
    for j, name in enumerate(NAMES):
        if n < FLEX_LABELS and name != DEFAULT_CONTROL:
            continue
        ctrl = ctrl_lab[:, j]
        prior = float(((1 / pi_lab[free] - 1) * (p_cells[free] * (1 - p_cells[free])
                                                 + (p_cells[free] - ctrl[free]) ** 2)).sum())
        prior += float(unl_priors[j])
        total, var, _, df = weighted_total(y_lab, ctrl, pi_lab, float(unl_sums[j]),
                                           model_variance=prior, prior_df=prior_df)
        half = t_quantile(confidence, df) * math.sqrt(var)
        score = half * (1 + sizes[j] / n)
        if best is None or score < best[0]:
            best = (score, total, var, df, name)
    return best[1], best[2], best[3], best[4]


def estimate_scaled(engine, *, classes: list, labelled_rows: np.ndarray, human_lab: np.ndarray,
                    selection_lab: np.ndarray, counts_sel: dict[str, int], kind: str,
                    confidence: float = 0.95, groups: dict[str, list] | None = None,
                    notes: list[str] | None = None) -> dict[str, Any]:
    """The ``hmceval estimate --json`` object of a large round table.

    Parameters
    ----------
    engine
        Columns ``code`` (machine class), ``q``, ``pi`` (scaled for a partly labelled audit),
        ``lab`` (labelled), and one ``group:<name>`` code column per group.
    classes : list
    labelled_rows, human_lab, selection_lab : arrays of the labelled rows
        Row numbers (increasing), human class codes, selection words.
    counts_sel : dict
        Rows per selection word.
    kind : {"active", "random"}
    groups : dict, optional
        Group column -> its sorted values (codes index them).
    """
    from core.data import label_key

    k = max(len(classes), 2)
    cols = engine.columns
    m = engine.m
    z_value(confidence)
    a = engine.reduce(k_counts, n_classes=k)
    counts, expected = a[:k], a[k:2 * k]
    sum_w, sum_wx = a[2 * k], a[2 * k + 1:3 * k + 2]
    wpi_free, pi_free = a[3 * k + 2], a[3 * k + 3]
    unit = float(wpi_free / max(pi_free, 1e-12)) if (cols["pi"] < 1).any() else 1.0
    edges = cell_edges(cols["q"], cols["code"], expected, counts)
    n_cells = sum(len(e) + 1 for e in edges if e is not None)
    b = engine.reduce(k_cells, edges=edges, n_cells=n_cells)
    ew, en = b[:n_cells], b[n_cells:]
    cell_unit = np.where(en > 0, ew / np.maximum(en, 1e-12), unit)
    # the labelled rows, whole
    rows = labelled_rows
    lab_ch = {"code": cols["code"][rows], "q": cols["q"][rows], "pi": cols["pi"][rows]}
    pi_l = lab_ch["pi"]
    w_l = (1 - pi_l) / pi_l ** 2
    prior_l = _outcome_prior(lab_ch, k)
    cells_l = _cells(lab_ch, edges)
    cx = np.zeros((len(rows), n_cells))
    cx[np.arange(len(rows)), cells_l] = 1.0
    mach_l = lab_ch["code"].astype(np.int64)
    ys = [(human_lab == c).astype(float) for c in range(k)] + [(human_lab == mach_l).astype(float)]
    coef, loo, sizes = [], [], None
    for o in range(k + 1):
        f_l, y = prior_l[:, o], ys[o]
        g_one = 1e-9 * (1.0 + float(sum_w / m))
        g_ppi = 1e-9 * (1.0 + float(sum_wx[o] / m))
        ones = np.ones((len(rows), 1))
        bm, lm, dm = _fit(y, ones, w_l, np.zeros(len(rows)), np.full(1, g_one))
        xp = np.column_stack([ones, f_l])
        bp, lp, dp = _fit(y, xp, w_l, np.zeros(len(rows)), np.full(2, g_ppi))
        bc, lc, dc = _fit(y, cx, w_l, f_l, np.maximum(PRIOR_ROWS * cell_unit, g_one))
        coef.append((bm, bp, bc))
        loo.append(np.column_stack([np.zeros(len(rows)), lm, lp, lc]))
        sizes = [0.0, dm, dp, dc]  # the last outcome's (as table_controls keeps them)
    lab_mask = cols["lab"]
    sel_l = np.asarray(selection_lab, dtype=object)

    def one(gcol: str | None, n_groups: int) -> list[dict[str, Any]]:
        extra = {} if gcol is None else {"group": cols[gcol]}
        sums = engine.reduce(k_controls, n_classes=k, edges=edges, coef=coef,
                             n_groups=n_groups, **extra) if not extra else \
            _reduce_grouped(engine, gcol, k, edges, coef, n_groups)
        sums = sums.reshape(-1, n_groups)
        g_rows = np.zeros(len(rows), np.int64) if gcol is None else \
            np.asarray(cols[gcol][rows], dtype=np.int64)
        out, rest = [], []

        def est(vec, sel):
            return _estimate_group(vec, k, classes, ys, loo, sel, pi_l[sel], mach_l[sel],
                                   human_lab[sel], sel_l[sel], sizes, confidence)

        for g in range(n_groups):
            out.append(est(sums[:, g], g_rows == g))
            if gcol is not None:  # every other row: the other groups' sums, added in order
                others = [h for h in range(n_groups) if h != g]
                vec = sums[:, others[0]].copy() if others else np.zeros(len(sums))
                for h in others[1:]:
                    vec = vec + sums[:, h]
                rest.append(est(vec, g_rows != g))
        return out, rest

    del lab_mask
    whole = one(None, 1)[0][0]
    res = {**whole, "n_calibration": 0}
    by_group: dict[str, Any] = {}
    worse: list[dict[str, Any]] = []
    sentences: list[str] = []
    from core.evaluation.estimate import worse_groups
    from core.evaluation.estimate import ESTIMATE_KEYS, worse_group_sentence

    for col, values in (groups or {}).items():
        parts, rest = one(f"group:{col}", len(values))
        keys = [label_key(v, strip=False) for v in values]
        by_group[col] = {key: _public(p) for key, p in zip(keys, parts)}
        for w in worse_groups(dict(zip(keys, parts)), dict(zip(keys, rest))):
            w = {"column": col, **w}
            worse.append(w)
            sentences.append(worse_group_sentence(w))
    res = _public(res)
    res["by_group"] = by_group
    res["notes"] = list(notes or []) + res["notes"] + sentences
    ordered = {key: res[key] for key in ESTIMATE_KEYS}
    ordered.update({key: res[key] for key in ("n_labelled", "audit_errors", "notes")})
    ordered.update({"design": kind, "method": res["method"], "worse_groups": worse})
    del counts_sel
    return ordered


def _public(r: dict[str, Any]) -> dict[str, Any]:
    """A group's result as ``estimate_weighted_design`` writes it (no variance, no shares of
    the worse-group test)."""
    out = {key: v for key, v in r.items() if key not in ("human_share", "effort")}
    out["accuracy"] = {key: v for key, v in r["accuracy"].items() if key != "variance"}
    return out


def _reduce_grouped(engine, gcol, k, edges, coef, n_groups):
    """k_controls with the chunk's ``group`` column taken from ``gcol``."""
    saved = engine.columns.get("group")
    engine.columns["group"] = engine.columns[gcol]
    try:
        return engine.reduce(k_controls, n_classes=k, edges=edges, coef=coef,
                             n_groups=n_groups)
    finally:
        if saved is None:
            del engine.columns["group"]
        else:
            engine.columns["group"] = saved


def _estimate_group(s: np.ndarray, k: int, classes: list, ys: list, loo: list,
                    sel: np.ndarray, pi: np.ndarray, mach: np.ndarray, human: np.ndarray,
                    words: np.ndarray, sizes: list, confidence: float) -> dict[str, Any]:
    """``weighted.weighted_estimates`` of one group (or the table) from its sums ``s``."""
    from core.data import label_key

    m = int(s[0])
    mach_counts = s[1:1 + k]
    body = s[1 + k:1 + k + (k + 1) * len(NAMES) * 2].reshape(k + 1, len(NAMES), 2)
    effort = float(s[-1]) / m if len(s) > 1 + k + (k + 1) * len(NAMES) * 2 and m else None
    n_lab = int(sel.sum())
    n_free = int((pi < 1).sum())
    n_unl = m - n_lab
    conservative = n_unl > 0 and n_free < MIN_LABELS
    shares = []
    for c in range(k):
        y = ys[c][sel]
        known = float(y.sum())
        if m == 0:
            shares.append({"estimate": None, "ci_low": None, "ci_high": None})
            continue
        if n_unl == 0:
            est = lo = hi = known / m
        elif conservative:
            lo, hi = known / m, (known + n_unl) / m
            est = (known + body[c, NAMES.index("cells"), 0]) / m
        else:
            total, var, df, _ = _best_total(y, pi, loo[c][sel], body[c, :, 0], body[c, :, 1],
                                            n_free, sizes, confidence, PRIOR_DF)
            est = total / m
            half = t_quantile(confidence, df) * math.sqrt(var) / m
            lo, hi = est - half, est + half
        shares.append(share_entry(est, lo, hi, known=known, n_unl=n_unl, m=m, n_lab=n_lab,
                                  machine_only=float(mach_counts[c] / m),
                                  confidence=confidence, conservative=conservative))
    right = ys[k][sel]
    acc = settled_accuracy(m, n_unl)
    if acc is None:
        total_k, var, df, _ = _best_total(right, pi, loo[k][sel], body[k, :, 0],
                                          body[k, :, 1], n_free, sizes, confidence, math.inf)
        acc = accuracy_from_total(total_k, var, df, right_labelled=float(right.sum()),
                                  n_lab=n_lab, n_unl=n_unl, m=m, confidence=confidence,
                                  conservative=conservative)
    notes = []
    if conservative:
        notes.append(f"only {n_free} rows drawn at random are labelled (fewer than "
                     f"{MIN_LABELS}): the intervals span every value the {n_unl:,} unlabelled "
                     "rows could take")
    keys = [label_key(v, strip=False) for v in classes]
    share_map = dict(zip(keys, shares))
    machine_acc = None
    if n_lab and m:
        w = 1 / pi
        machine_acc = float((w * right).sum() / w.sum())
    return {"M": m, "n_calibration": 0, "n_routed": int((words == "routed").sum()),
            "n_audit": int((words == "audit").sum()), "n_machine": int(m - n_lab),
            "confidence": confidence, "class_shares": share_map, "accuracy": acc,
            "random_equivalent": {key: v.get("random_equivalent")
                                  for key, v in share_map.items()},
            "n_labelled": n_lab, "audit_errors": int(((words == "audit") & (right == 0)).sum()),
            "notes": notes, "method": "weighted", "machine_accuracy": machine_acc,
            "human_share": n_lab / m if m else None, "effort": effort}
