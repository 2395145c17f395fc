"""Candidate controls of the weighted estimators, fitted leave-one-out, and the honest choice.

:mod:`core.evaluation.estimate.weighted` estimates a total of y (a class indicator, or 1 when the
machine is right) under Poisson sampling with known inclusion probabilities pi_i by

    T = sum_i m_i + sum_i xi_i (y_i - m_i) / pi_i,

exactly unbiased whenever the control m_i does not depend on xi_i, with variance
sum_i (1 / pi_i - 1) r_i^2 (r_i = y_i - m_i), estimated by sum_i xi_i (1 - pi_i) r_i^2 / pi_i^2.
Any control is valid; the best one makes that variance smallest. This module fits several
controls by weighted least squares on the labelled rows, each with the weight
w_i = (1 - pi_i) / pi_i^2 that the variance estimate gives a row's squared residual (so each
fit minimises the estimated variance itself; rows labelled for sure weigh nothing, they add no
variance):

* ``"ht"``: no control at all (m_i = 0: the classical Horvitz-Thompson estimator);
* ``"mean"``: a constant (the classical mean, inverse-probability weighted: Hajek's);
* ``"ppi"``: a + b f_i, f_i the machine's probability (PPI++'s one coefficient, with an
  intercept);
* ``"cells"``: the machine's probability plus one effect per cell (machine class x confidence
  bin), each shrunk to 0 by a ridge of :data:`PRIOR_ROWS` rows of the weight the cell's
  labels are expected to carry: the
  post-stratified control, close to the calibrated per-cell probabilities when labels are
  many, the machine's own when they are few;
* ``"covariates"`` (when the table has them): the cells plus one effect per group value
  (group columns) and one slope per further judge's confidence, all shrunk alike.

**Leave-one-out, so no label is wasted.** A labelled row's control is the fit on every *other*
labelled row (closed form: the residual divided by 1 - h_ii, h the hat matrix); an unlabelled
row's is the fit on all labels. Either way m_i is a function of the other rows' draws only,
so E[xi_i / pi_i | the other rows] = 1 keeps the estimator unbiased for each candidate, and no
fold of labels is set aside. The ridge and the cells are fixed by the design (expected
labels), not by the draw.

**The honest choice.** The leave-one-out residuals carry each candidate's own overfitting (a
row of high leverage is predicted from the others only), so their variance estimates compare
candidates fairly: :mod:`core.evaluation.estimate.weighted` keeps the candidate whose interval is
narrowest. With few labels the cells' residuals inflate and the one-coefficient control (or
the mean) wins; with many the cells do. The candidates are few and nested in spirit, so the
choice costs little coverage (shown by simulation in ``tests/core/test_evaluation_controls.py``
and ``bench/design.py``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["CANDIDATES", "PRIOR_ROWS", "variance_weights", "loo_fit", "loo_fit_dof", "design_cells",
           "candidate_controls"]

#: The candidate controls, in order of flexibility ("covariates" only with covariates).
CANDIDATES: tuple[str, ...] = ("ht", "mean", "ppi", "cells", "covariates")
#: Rows of the expected weight in each ridge (the shrinkage of a cell or group effect to 0).
PRIOR_ROWS = 5.0


def variance_weights(pi: np.ndarray) -> np.ndarray:
    """w_i = (1 - pi_i) / pi_i^2: the weight of a labelled row's squared residual in the
    variance estimate (0 for rows labelled for sure). Shape (M,)."""
    pi = np.asarray(pi, dtype=float)
    return (1 - pi) / pi ** 2


def loo_fit(y: np.ndarray, x: np.ndarray, w: np.ndarray, labelled: np.ndarray, *,
            offset: np.ndarray | None = None, ridge: np.ndarray | None = None) -> np.ndarray:
    """Weighted ridge regression on the labelled rows; each row's leave-one-out prediction.

    :func:`loo_fit_dof` with its effective degrees of freedom dropped.
    """
    return loo_fit_dof(y, x, w, labelled, offset=offset, ridge=ridge)[0]


def loo_fit_dof(y: np.ndarray, x: np.ndarray, w: np.ndarray, labelled: np.ndarray, *,
                offset: np.ndarray | None = None, ridge: np.ndarray | None = None
                ) -> tuple[np.ndarray, float]:
    """Weighted ridge regression on the labelled rows; each row's leave-one-out prediction,
    and the fit's effective degrees of freedom sum_lab h_ii (the trace of its hat matrix:
    the number of coefficients without a ridge, fewer with one).

    Minimises sum_lab w_i (y_i - o_i - x_i b)^2 + sum_j ridge_j b_j^2.

    Parameters
    ----------
    y : array of shape (M,)
        The outcome (read on labelled rows only).
    x : array of shape (M, p)
    w : array of shape (M,)
        Weights >= 0 (:func:`variance_weights`).
    labelled : bool array of shape (M,)
    offset : array of shape (M,), optional
        o_i (default 0).
    ridge : array of shape (p,), optional
        Penalty per coefficient (at least a numerical guard: 1e-9 times 1 + the mean over all
        rows of w_i |x_i|^2, from the design, not the draw).

    Returns
    -------
    (ndarray of shape (M,), float)
        For an unlabelled row, o_i + x_i b with b fitted on all labelled rows; for a labelled
        one, the same fit without the row: y_i - r_i / (1 - h_ii), h_ii = w_i x_i A^-1 x_i,
        A = X'WX + diag(ridge). Rows with w_i = 0 do not move the fit (their own prediction is
        the full fit).
    """
    return _apply_fit(_hat(x, w, labelled, ridge), y, offset)


def _hat(x: np.ndarray, w: np.ndarray, labelled: np.ndarray, ridge: np.ndarray | None,
         count: np.ndarray | None = None) -> dict:
    """What a fit of :func:`loo_fit_dof` shares across outcomes: A, its pseudo-inverse and
    the leverages h_ii (none of them depends on y or the offset); ``count`` (bool over the
    labelled rows): the rows whose leverages make the degrees of freedom (default all)."""
    x = np.asarray(x, dtype=float)
    lab = np.asarray(labelled, dtype=bool)
    w = np.asarray(w, dtype=float)
    xl, wl = x[lab], w[lab]
    # the numerical guard rests on the design (every row's weight), not on the draw
    guard = 1e-9 * (1.0 + float(np.mean(w * (x ** 2).sum(axis=1)))) if len(w) else 1e-9
    pen = np.full(x.shape[1], guard) if ridge is None else \
        np.maximum(np.asarray(ridge, dtype=float), guard)
    a = (xl * wl[:, None]).T @ xl + np.diag(pen)
    ainv = np.linalg.pinv(a)
    h = wl * np.einsum("ij,jk,ik->i", xl, ainv, xl) if lab.any() else None
    return {"x": x, "lab": lab, "xl": xl, "wl": wl, "a": a, "ainv": ainv, "h": h,
            "xw": (xl * wl[:, None]).T, "rows": np.flatnonzero(lab), "count": count}


def _apply_fit(hat: dict, y: np.ndarray, offset: np.ndarray | None
               ) -> tuple[np.ndarray, float]:
    """:func:`loo_fit_dof` for one outcome from its shared :func:`_hat`."""
    x, lab, xl, wl, a, ainv, h, rows = (hat[k] for k in ("x", "lab", "xl", "wl", "a", "ainv",
                                                         "h", "rows"))
    y = np.asarray(y, dtype=float)
    o = np.zeros(len(y)) if offset is None else np.asarray(offset, dtype=float)
    yl = y[rows] - o[rows]
    xwy = hat["xw"] @ yl
    pred = o + x @ (ainv @ xwy)
    dof = 0.0
    if lab.any():
        dof = float(h.sum() if hat.get("count") is None else h[hat["count"]].sum())
        r = y[lab] - pred[lab]
        loo = y[lab] - r / np.where(1 - h > 1e-3, 1 - h, 1.0)
        # a row the fit leans on almost alone: refit without it (the closed form is unstable)
        for j in np.flatnonzero(1 - h <= 1e-3):
            i = np.flatnonzero(lab)[j]
            a_i = a - wl[j] * np.outer(xl[j], xl[j])
            b_i = np.linalg.pinv(a_i) @ (xwy - wl[j] * xl[j] * yl[j])
            loo[j] = o[i] + x[i] @ b_i
        pred = pred.copy()
        pred[lab] = loo
    return pred, dof


def design_cells(machine: np.ndarray, confidence_scores: np.ndarray, pi: np.ndarray, *,
                 per_cell: float = 60, max_bins: int = 8,
                 carried: np.ndarray | None = None) -> np.ndarray:
    """Cells from the design, not the draw: the machine's class crossed with confidence bins,
    min(max_bins, expected labels with pi < 1 // per_cell) bins per class, cut at quantiles
    (ties stay in one bin). ``carried`` (bool, shape (M,)): rows labelled before the draw that
    the controls are fitted on too (a pilot's), counted as labels. Int array of shape (M,)."""
    machine = np.asarray(machine, dtype=np.int64)
    q = np.asarray(confidence_scores, dtype=float)
    pi = np.asarray(pi, dtype=float)
    extra = np.zeros(len(machine), dtype=bool) if carried is None else \
        np.asarray(carried, dtype=bool)
    cells = np.zeros(len(machine), dtype=np.int64)
    offset = 0
    for c in np.unique(machine):
        rows = machine == c
        expected = float(pi[rows & (pi < 1)].sum()) + float((rows & extra & (pi >= 1)).sum())
        n_bins = max(1, min(max_bins, int(expected // per_cell)))
        qf = np.sort(q[rows])
        edges = np.unique(qf[(np.arange(1, n_bins) * len(qf)) // n_bins]) if n_bins > 1 \
            else np.array([])
        cells[rows] = offset + np.searchsorted(edges, q[rows], side="right")
        offset += len(edges) + 1
    return cells


def _one_hot(codes: np.ndarray) -> np.ndarray:
    codes = np.asarray(codes, dtype=np.int64)
    n = int(codes.max()) + 1 if len(codes) else 0
    out = np.zeros((len(codes), n))
    out[np.arange(len(codes)), codes] = 1.0
    return out


def candidate_controls(y: np.ndarray, f: np.ndarray, labelled: np.ndarray, pi: np.ndarray,
                       cells: np.ndarray, *, covariates: np.ndarray | None = None,
                       sizes: dict[str, float] | None = None,
                       shared: dict | None = None,
                       carried_weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Every candidate control of one outcome, leave-one-out (see the module doc).

    Parameters
    ----------
    y : array of shape (M,)
        The outcome on labelled rows (anything elsewhere).
    f : array of shape (M,)
        The machine's probability of the outcome.
    labelled : bool array of shape (M,)
    pi : array of shape (M,)
        Inclusion probabilities in (0, 1].
    cells : int array of shape (M,)
        :func:`design_cells`.
    covariates : array of shape (M, p), optional
        Group indicators and further judges' confidences; adds the ``"covariates"`` candidate.
    sizes : dict, optional
        Filled with each candidate's effective degrees of freedom (:func:`loo_fit_dof`; 0 for
        ``"ht"``), when given.
    shared : dict, optional
        A cache for the outcomes of one table (the same ``labelled``, ``pi``, ``cells`` and
        ``covariates``): the fits whose design does not depend on the outcome (``"mean"``,
        ``"cells"``, ``"covariates"``) are factored once and reused; the same results.
    carried_weights : array of shape (M,), optional
        A fit weight for rows labelled with pi = 1 (0 elsewhere; ignored where pi < 1): rows
        labelled *before* the draw (a pilot's) that the fit uses too, although they add no
        variance. Their labels are fixed before the draw, so a control fitted on them (and
        leave-one-out on the drawn rows) is still a function of the other rows' draws only:
        exactly unbiased. Effective degrees of freedom count the drawn rows' leverages only.

    Returns
    -------
    dict
        Candidate name -> control values of shape (M,).
    """
    f = np.asarray(f, dtype=float)
    pi = np.asarray(pi, dtype=float)
    lab = np.asarray(labelled, dtype=bool)
    m = len(f)
    w = variance_weights(pi)
    if carried_weights is not None:
        w = np.where(pi >= 1, np.maximum(np.asarray(carried_weights, dtype=float), 0.0), w)
    got = {} if shared is None else shared
    if "hat_mean" not in got:
        got.update(_outcome_free(lab, pi, w, cells, covariates))
    ones = np.ones((m, 1))
    hat_ppi = _hat(np.column_stack([ones, f]), w, lab, None, pi[lab] < 1)
    fits = {"ht": (np.zeros(m), 0.0), "mean": _apply_fit(got["hat_mean"], y, None),
            "ppi": _apply_fit(hat_ppi, y, None)}
    fits["cells"] = _apply_fit(got["hat_cells"], y, f)
    if got.get("hat_covariates") is not None:
        fits["covariates"] = _apply_fit(got["hat_covariates"], y, f)
    if sizes is not None:
        sizes.update({name: dof for name, (_, dof) in fits.items()})
    return {name: pred for name, (pred, _) in fits.items()}


def _outcome_free(lab: np.ndarray, pi: np.ndarray, w: np.ndarray, cells: np.ndarray,
                  covariates: np.ndarray | None) -> dict:
    """The shared fits of :func:`candidate_controls`: the mean's, the cells' and the
    covariates' designs and ridges, factored once per table."""
    m = len(pi)
    free = pi < 1
    # the ridge's unit: the expected weight of a labelled row, from the design alone
    unit = float((w[free] * pi[free]).sum() / max(pi[free].sum(), 1e-12)) if free.any() else 1.0
    drawn = pi[lab] < 1  # the degrees of freedom count the drawn rows' leverages
    out = {"hat_mean": _hat(np.ones((m, 1)), w, lab, None, drawn)}
    cx = _one_hot(cells)
    # each cell's ridge: PRIOR_ROWS rows of the weight its own labels are expected to carry
    ew = (cx * (w * pi * free)[:, None]).sum(axis=0)
    en = (cx * (pi * free)[:, None]).sum(axis=0)
    cell_unit = np.where(en > 0, ew / np.maximum(en, 1e-12), unit)
    out["hat_cells"] = _hat(cx, w, lab, PRIOR_ROWS * cell_unit, drawn)
    out["hat_covariates"] = None
    if covariates is not None and np.asarray(covariates).size:
        z = np.asarray(covariates, dtype=float)
        z = z - z.mean(axis=0)
        # a judge's confidence is scaled to unit spread (an indicator keeps its own), so that
        # the ridge weighs every slope alike
        binary = np.all(np.isin(np.asarray(covariates, dtype=float), (0.0, 1.0)), axis=0)
        sd = z.std(axis=0)
        z = np.where(binary | (sd == 0), z, z / np.where(sd > 0, sd, 1.0))
        out["hat_covariates"] = _hat(np.column_stack([cx, z]), w, lab,
                                     np.r_[PRIOR_ROWS * cell_unit,
                                           np.full(z.shape[1], PRIOR_ROWS * unit)], drawn)
    return out
