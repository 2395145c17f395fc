"""The half-width the estimate will report for a planned design: a model of what it does.

A design's ``expected_half_width`` (:mod:`core.evaluation.sampling.active`) is the *ideal*
estimator's: z sqrt(max_c sum_i (1 / pi_i - 1) P_ic (1 - P_ic)) / M, the control being the
truth's probability P itself. ``hmceval estimate`` (:func:`core.evaluation.estimate.weighted.
weighted_estimates`) does not have P: it fits its control on the labels drawn, and what it
reports differs in five ways, each modelled here with P (the probabilities the plan rests on)
taken as the truth:

1. **the control's misfit.** Each candidate control (``"ht"``: none, ``"mean"``, ``"ppi"``:
   a + b f, ``"cells"``: the machine's probability f plus a ridge-shrunk effect per design
   cell, :mod:`core.evaluation.estimate.controls`) is, in expectation, the weighted least
   squares fit of P on its regressors with the weight the design gives a labelled row,
   pi_i (1 - pi_i) / pi_i^2 = (1 - pi_i) / pi_i; e_i = P_i - m_i is left over;
2. **the control's own estimation variance.** Fitted on n labels, leave-one-out, its
   coefficients vary by the sandwich A^-1 B A^-1 (A = X' diag((1 - pi) / pi) X + ridge,
   B = X' diag((1 - pi)^2 / pi^3 (P (1 - P) + e^2)) X), which adds d_i = x_i' A^-1 B A^-1 x_i
   to each squared residual: E[v] = sum_i (1 / pi_i - 1) (P_i (1 - P_i) + e_i^2 + d_i) / M^2;
3. **the t quantile.** v = sum_i xi_i w_i r_i^2 (w_i = (1 - pi_i) / pi_i^2) varies over the
   draw by about sum_i pi_i (1 - pi_i) w_i^2 E[r_i^4] (for a 0/1 outcome E[r^4] =
   P (1 - m)^4 + (1 - P) m^4); from :data:`~core.evaluation.estimate.weighted.FLEX_LABELS`
   labels its degrees of freedom are the chi-square's with the same two moments,
   df = 2 E[v]^2 / that, below E[v]^2 / sum_i pi_i w_i^2 E[r_i^4] (as
   :func:`~core.evaluation.estimate.weighted.degrees_of_freedom` estimates them), and the
   interval is t_{df - 1} sqrt(v);
4. **the moderation and the choice.** v is scattered about E[v] as E[v] chi2_df / df (the
   matched df); where it
   falls below the variance the calibrated cells imply (the prior, sum (1 / pi - 1)
   (P_cell (1 - P_cell) + (P_cell - m)^2)) it is pulled towards it with
   :data:`~core.evaluation.estimate.weighted.PRIOR_DF` pseudo degrees of freedom, and the
   candidate of narrowest penalised interval (half-width times 1 + size / n) is kept. Both are
   averaged over the chi-square's quantiles (the candidates' variances moving together: they
   rest on the same labels), which also takes E[sqrt(v)] < sqrt(E[v]) into account;
5. **the number of labels.** Below :data:`~core.evaluation.estimate.weighted.MIN_LABELS`
   labels drawn with pi < 1 the interval is the conservative one, below
   :data:`~core.evaluation.estimate.weighted.FLEX_LABELS` the control is PPI++'s one
   coefficient: each regime is weighted by its chance under the Poisson draw (normal
   approximation of the number drawn).

With a pilot's own half-width h1 (a two-batch round estimated in two stages,
:mod:`core.evaluation.estimate.two_stage`), each outcome is combined with it stage-wise,
1 / sqrt(1 / h1^2 + 1 / h2^2) times the square root of Meier's factor for the estimated weight
(the pilot's degrees of freedom taken as the second stage's), the pilot alone where the second
stage is conservative, before the average. Nothing here is fitted to any file: it is the estimator's arithmetic applied to
the plan's own probabilities. :func:`core.evaluation.sampling.plan.plan_design` takes
:func:`estimator_half_width` as its ``width_model`` (``core.workspace.active_rounds`` passes
it: sampling does not import the estimators); ``bench/plan_truth.py`` measures planned
against realised.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import chdtri, ndtr

from core.evaluation.estimate.controls import PRIOR_ROWS, design_cells
from core.evaluation.estimate.weighted import (DEFAULT_CONTROL, FLEX_LABELS, MIN_LABELS,
                                               PRIOR_DF, t_quantile)
from core.evaluation.sampling.active import machine_probabilities

__all__ = ["GRID", "control_moments", "estimator_half_width"]

#: Quantiles of the variance's chi-square scatter averaged over.
GRID = 64


def control_moments(p: np.ndarray, pi: np.ndarray, x: np.ndarray, offset: np.ndarray,
                    ridge: np.ndarray | None = None) -> dict[str, float]:
    """One candidate control's expected variance terms for one outcome.

    Parameters
    ----------
    p : array of shape (M,)
        The outcome's probability on each row (the plan's P, taken as the truth).
    pi : array of shape (M,)
        Inclusion probabilities; rows with pi = 1 add nothing and weigh nothing in the fit.
    x : array of shape (M, q)
        The control's regressors (q = 0: no control, m = ``offset``).
    offset : array of shape (M,)
    ridge : array of shape (q,), optional

    Returns
    -------
    dict
        ``var``: E[v] (a total's variance, not divided by M^2); ``fourth``: sum_i pi_i w_i^2
        E[r_i^4]; ``scatter``: v's variance over the draw, sum_i pi_i (1 - pi_i) w_i^2
        E[r_i^4]; ``size``: the fit's expected effective degrees of freedom, trace of
        A^-1 X' diag((1 - pi) / pi) X; ``control``: the expected control m of shape (M,).
    """
    p = np.asarray(p, dtype=float)
    pi = np.clip(np.asarray(pi, dtype=float), 1e-12, 1.0)
    free = pi < 1
    u = np.where(free, (1 - pi) / pi, 0.0)  # a row's expected weight in the fit
    s2 = p * (1 - p)
    m = np.asarray(offset, dtype=float).copy()
    d = np.zeros(len(p))
    size = 0.0
    if x.shape[1]:
        pen = np.full(x.shape[1], 1e-9) if ridge is None else np.maximum(ridge, 1e-9)
        a = (x * u[:, None]).T @ x + np.diag(pen)
        ainv = np.linalg.pinv(a)
        m = m + x @ (ainv @ ((x * u[:, None]).T @ (p - offset)))
        e2 = (p - m) ** 2
        b = (x * (u ** 2 / np.where(free, pi, 1.0) * (s2 + e2))[:, None]).T @ x
        cov = ainv @ b @ ainv
        d = np.einsum("ij,jk,ik->i", x, cov, x)
        size = float(np.trace(ainv @ ((x * u[:, None]).T @ x)))
    e2 = (p - m) ** 2
    er2 = s2 + e2 + d
    var = float((u * er2).sum())
    w = np.where(free, (1 - pi) / pi ** 2, 0.0)
    r4 = pi * w ** 2 * (p * (1 - m) ** 4 + (1 - p) * m ** 4 + 6 * d * (s2 + e2) + 3 * d ** 2)
    return {"var": var, "fourth": float(r4.sum()), "scatter": float(((1 - pi) * r4).sum()),
            "size": size, "control": m}


def _candidates(p: np.ndarray, f: np.ndarray, pi: np.ndarray, cells: np.ndarray
                ) -> dict[str, dict[str, float]]:
    """Every candidate's :func:`control_moments` for one outcome (as
    :func:`core.evaluation.estimate.controls.candidate_controls` fits them)."""
    mm = len(p)
    free = pi < 1
    w = np.where(free, (1 - pi) / np.clip(pi, 1e-12, 1) ** 2, 0.0)
    unit = float((w * pi * free).sum() / max(float(pi[free].sum()), 1e-12)) if free.any() else 1.0
    cx = np.zeros((mm, int(cells.max()) + 1 if mm else 0))
    cx[np.arange(mm), cells] = 1.0
    ew = (cx * (w * pi * free)[:, None]).sum(axis=0)
    en = (cx * (pi * free)[:, None]).sum(axis=0)
    cell_unit = np.where(en > 0, ew / np.maximum(en, 1e-12), unit)
    zero = np.zeros(mm)
    return {"ht": control_moments(p, pi, np.zeros((mm, 0)), zero),
            "mean": control_moments(p, pi, np.ones((mm, 1)), zero),
            "ppi": control_moments(p, pi, np.column_stack([np.ones(mm), f]), zero),
            "cells": control_moments(p, pi, cx, f, PRIOR_ROWS * cell_unit)}


def _halves(mo: dict[str, float], prior: float, n: float, m: int, confidence: float,
            many: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One candidate's reported half-width (a share's) at each of :data:`GRID` quantiles of
    its variance's chi-square scatter, moderated towards ``prior``; its penalised score; and
    the degrees of freedom its interval rests on. ``many``: from :data:`FLEX_LABELS` labels
    (the matched degrees of freedom)."""
    ev = mo["var"]
    if ev <= 0:
        return np.zeros(GRID), np.zeros(GRID), np.full(GRID, math.inf)
    u = (np.arange(GRID) + 0.5) / GRID
    # v scatters as the chi-square with its two moments; the estimator reads its df as
    # degrees_of_freedom does (the matched one from FLEX_LABELS labels, about half below)
    matched = 2 * ev ** 2 / mo["scatter"] if mo["scatter"] > 0 else math.inf
    df = matched if many else (ev ** 2 / mo["fourth"] if mo["fourth"] > 0 else math.inf)
    v = ev * (chdtri(matched, 1 - u) / matched if math.isfinite(matched) else np.ones(GRID))
    low = v < prior
    d = df if math.isfinite(df) else 0.0
    v = np.where(low, (d * v + PRIOR_DF * prior) / (d + PRIOR_DF), v)
    t_low, t_high = t_quantile(confidence, d + PRIOR_DF), t_quantile(confidence, df)
    halves = np.where(low, t_low, t_high) * np.sqrt(v) / m
    return halves, halves * (1 + mo["size"] / max(n, 1.0)), np.where(low, d + PRIOR_DF, df)


def estimator_half_width(probabilities: np.ndarray, machine_codes: np.ndarray,
                         confidence_scores: np.ndarray, pi: np.ndarray, *,
                         pilot_half: float | None = None, confidence: float = 0.95) -> float:
    """The widest class share's half-width ``hmceval estimate`` is expected to report for the
    design ``pi``, if ``probabilities`` are the truth's (see the module doc).

    Parameters
    ----------
    probabilities : array of shape (M, K)
        The class probabilities the plan rests on.
    machine_codes : int array of shape (M,)
    confidence_scores : array of shape (M,)
        The machine's confidence as the estimator reads it (its cells and its ``f``).
    pi : array of shape (M,)
        The design, 1 on rows labelled for sure or already.
    pilot_half : float, optional
        A pilot's own half-width the estimate will be combined with (two stages).
    confidence : float, default=0.95

    Returns
    -------
    float
        The expected half-width (the mean over the draw's regimes and the variance's
        scatter); NaN when some row that could hold either class has pi = 0.
    """
    p = np.asarray(probabilities, dtype=float)
    codes = np.asarray(machine_codes, dtype=np.int64)
    q = np.asarray(confidence_scores, dtype=float)
    pi = np.asarray(pi, dtype=float)
    mm, k = p.shape
    if mm == 0:
        return float("nan")
    if ((pi <= 0) & ((p * (1 - p)).max(axis=1) > 0)).any():
        return float("nan")
    free = pi < 1
    h1 = pilot_half if pilot_half is not None and math.isfinite(pilot_half) \
        and pilot_half > 0 else None
    if not free.any():
        return 0.0
    f = machine_probabilities(codes, q, k)
    cells = design_cells(codes, q, pi)
    n_exp = float(pi[free].sum())
    sd_n = math.sqrt(max(float((pi[free] * (1 - pi[free])).sum()), 1e-12))
    # the regimes of the number drawn with pi < 1 (normal approximation, continuity-corrected)
    p_cons = float(ndtr((MIN_LABELS - 0.5 - n_exp) / sd_n))
    p_flex = 1 - float(ndtr((FLEX_LABELS - 0.5 - n_exp) / sd_n))
    n_unl = float((1 - pi).sum())
    worst = np.zeros(GRID)
    cons = np.zeros(GRID)
    fixed = np.zeros(GRID)
    for c in range(k):
        moments = _candidates(p[:, c], f[:, c], pi, cells)
        pc = np.clip(moments["cells"]["control"], 0.0, 1.0)
        inv = np.where(free, 1 / np.clip(pi, 1e-12, 1) - 1, 0.0)
        priors = {name: float((inv * (pc * (1 - pc) + (pc - mo["control"]) ** 2)).sum())
                  for name, mo in moments.items()}
        one, _, df_one = _halves(moments[DEFAULT_CONTROL], priors[DEFAULT_CONTROL], n_exp, mm,
                                 confidence, many=False)
        chosen, df_chosen = _chosen(moments, priors, n_exp, mm, confidence)
        fixed = np.maximum(fixed, _combine(one, h1, df_one))
        worst = np.maximum(worst, _combine(chosen, h1, df_chosen))
        cons = np.maximum(cons, np.full(GRID, h1) if h1 is not None
                          else np.full(GRID, n_unl / (2 * mm)))
    p_one = max(1.0 - p_cons - p_flex, 0.0)
    return float(p_cons * cons.mean() + p_one * fixed.mean() + p_flex * worst.mean())


def _chosen(moments: dict[str, dict[str, float]], priors: dict[str, float], n: float, m: int,
            confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The kept candidate's half-width at each quantile (each moderated towards its prior),
    and its degrees of freedom."""
    best_score = np.full(GRID, np.inf)
    best_half = np.full(GRID, np.nan)
    best_df = np.full(GRID, math.inf)
    for name, mo in moments.items():
        halves, score, df = _halves(mo, priors[name], n, m, confidence)
        better = score < best_score
        best_score = np.where(better, score, best_score)
        best_half = np.where(better, halves, best_half)
        best_df = np.where(better, df, best_df)
    return best_half, best_df


def _combine(half: np.ndarray, pilot_half: float | None, df: np.ndarray) -> np.ndarray:
    """The two stages' half-width, inverse-variance weighted, times the square root of
    Meier's factor 1 + 4 w (1 - w) (1 / nu1 + 1 / nu2) (:mod:`core.evaluation.estimate.
    two_stage`), the pilot's nu1 taken as the second stage's ``df`` (not known here)."""
    if pilot_half is None:
        return half
    h = np.maximum(half, 1e-300)
    w = h ** 2 / (h ** 2 + pilot_half ** 2)  # the pilot's weight, v2 / (v1 + v2)
    inv = np.where(np.isfinite(df) & (df > 0), 1 / np.where(df > 0, df, 1.0), 0.0)
    meier = 1 + 4 * w * (1 - w) * 2 * inv
    return np.where(half > 0, np.sqrt(meier) / np.sqrt(1 / h ** 2 + 1 / pilot_half ** 2), 0.0)
