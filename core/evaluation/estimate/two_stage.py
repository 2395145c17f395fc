"""Two batches as one estimate: the pilot's own estimate and the second batch's, combined.

A two-batch round (:mod:`core.evaluation.sampling.two_batch`) draws a pilot S1 with known
probabilities p1, then plans a second batch on the pilot's labels with probabilities p2 that
depend on S1. Read as one design with pi = 1 on the pilot (:func:`weighted_estimates` on the
round as written), the estimate T2 is unbiased given S1, but the pilot's labels only stand for
their own rows: they neither stand for the table nor, by default, fit the control (rows
labelled for sure weigh nothing in it), so a fifth of the budget is "spent". The remedy is to
combine the pilot's own estimate with T2 (below); T2's controls can also be fitted on the
pilot's rows (``fit_on_pilot``, :func:`pilot_fit_weights`: their labels are fixed before the
second batch is drawn, so the controls stay functions of the other rows' draws and T2
unbiased given S1), an option, since it gains little (see the parameter).

**The stage-wise (Des Raj) combination.** The pilot alone is a Poisson sample of the whole table
with probabilities p1, so :func:`weighted_estimates` on it alone gives T1, unbiased for the
total with its own variance estimate v1 (its controls fitted leave-one-out on the pilot). T2
(the round with pi = 1 on S1) has E[T2 | S1] = T and variance estimate v2 given S1. Then

    T_w = w T1 + (1 - w) T2

has E[T_w] = T for any weight w fixed before the draw, and since T1 is a function of S1 while
E[T2 - T | S1] = 0, the two errors are uncorrelated: Var(T_w) = w^2 Var(T1) + (1 - w)^2
E[Var(T2 | S1)], estimated by w^2 v1 + (1 - w)^2 v2. The weight is chosen per outcome by the
estimated variances, w = v2 / (v1 + v2) (the inverse-variance weight; ``weight=`` fixes it
instead), which is what makes the combination at least as tight as the better of the two. A
weight estimated from the draw makes w^2 v1 + (1 - w)^2 v2 short of the variance: it is
multiplied by Meier's (1953) first-order factor 1 + 4 w (1 - w) (1 / nu1 + 1 / nu2), nu each
stage's degrees of freedom (:func:`core.evaluation.estimate.weighted.degrees_of_freedom`); the
simulations (``tests/core/test_evaluation_estimate_two_stage.py``, ``bench/design.py``) check
the coverage. Each stage's standard error is read from its t interval over z, which errs
wide. Where
the pilot has too few labels for a normal interval the weight is 0 (the round's own estimate).

The final labels' accuracy is (labelled rows + the machine's right answers among the unlabelled
rows) / M; with K the machine's right answers over the whole table, the unlabelled part is
K - (right answers among labelled rows), so each stage's estimate of K is combined as above.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.evaluation.sampling.audit import z_value
from core.evaluation.estimate.weighted import table_controls, weighted_estimates

__all__ = ["two_stage_estimates", "pilot_fit_weights", "pilot_half_width"]


def pilot_half_width(machine: np.ndarray, confidence_scores: np.ndarray, n_classes: int, *,
                     rows: np.ndarray, human_codes: np.ndarray, pilot_pi: np.ndarray,
                     confidence: float = 0.95) -> float | None:
    """The pilot's own interval half-width (its widest class share), the pilot estimated
    alone as a Poisson sample of the table (T1 of :func:`two_stage_estimates`): what the
    second batch is planned against (``pilot_half`` of
    :func:`core.evaluation.sampling.plan.plan_design`). None when the pilot has too few
    labels for a normal interval.

    Parameters
    ----------
    machine : int array of shape (M,)
    confidence_scores : array of shape (M,)
    n_classes : int
    rows : int array
        The pilot's drawn rows (all labelled).
    human_codes : int array
        Their labels, class codes 0..K-1.
    pilot_pi : array of shape (M,)
        The pilot's probabilities p1.
    confidence : float, default=0.95
    """
    machine = np.asarray(machine, dtype=np.int64)
    first = np.zeros(len(machine), dtype=bool)
    first[np.asarray(rows, dtype=np.int64)] = True
    human = np.full(len(machine), -1, dtype=np.int64)
    human[np.asarray(rows, dtype=np.int64)] = np.asarray(human_codes, dtype=np.int64)
    alone = weighted_estimates(machine, human, first, np.asarray(pilot_pi, dtype=float),
                               np.asarray(confidence_scores, dtype=float),
                               n_classes=n_classes, confidence=confidence)
    shares = alone["class_shares"]
    if not shares or any(x["conservative"] or x["half_width"] is None for x in shares):
        return None
    return float(max(x["half_width"] for x in shares))


def pilot_fit_weights(machine: np.ndarray, confidence_scores: np.ndarray, pi: np.ndarray,
                      pilot: np.ndarray, pilot_pi: np.ndarray) -> np.ndarray | None:
    """The weight each pilot row gets when T2's controls are fitted on the pilot too.

    T2's controls are fitted by weighted least squares minimising the variance estimate's
    sum over the second batch's drawn rows of (1 - p2) r^2 / p2^2, a Horvitz-Thompson
    estimate of Q = sum (1 / p2 - 1) r^2 over the rows outside the pilot. The pilot is a
    Poisson sample of the table with probabilities p1, so sum over its rows of
    (1 / p1) (1 / p2~ - 1) r^2 estimates the same Q, p2~ being the probability the second
    batch gives rows like it (p2 interpolated over the confidence among the same machine
    class's rows outside the pilot). The two estimates are mixed in proportion to their
    expected labels n1 = sum p1 and n2 = sum of p2 < 1 outside the pilot: a pilot row weighs
    (n1 / n2) (1 / p1) (1 / p2~ - 1). Everything here is fixed once the pilot is drawn, so
    T2 stays unbiased given the pilot.

    Parameters
    ----------
    machine : int array of shape (M,)
    confidence_scores : array of shape (M,)
    pi : array of shape (M,)
        The round as written: 1 on the pilot, p2 elsewhere.
    pilot : bool array of shape (M,)
    pilot_pi : array of shape (M,)
        p1.

    Returns
    -------
    ndarray of shape (M,) or None
        0 outside the pilot; None when the second batch draws nothing with p2 < 1.
    """
    machine = np.asarray(machine, dtype=np.int64)
    q = np.asarray(confidence_scores, dtype=float)
    pi = np.asarray(pi, dtype=float)
    first = np.asarray(pilot, dtype=bool)
    p1 = np.asarray(pilot_pi, dtype=float)
    rest = ~first
    n2 = float(pi[rest & (pi < 1)].sum())
    if n2 <= 0 or not first.any():
        return None
    n1 = float(p1.sum())
    p2 = np.ones(len(q))
    for c in np.unique(machine[first]):
        own = rest & (machine == c)
        if not own.any():
            own = rest
        xs, inv = np.unique(q[own], return_inverse=True)
        ys = np.bincount(inv, weights=pi[own]) / np.bincount(inv)
        rows = first & (machine == c)
        p2[rows] = np.interp(q[rows], xs, ys)
    p2 = np.clip(p2, 1e-9, 1.0)
    out = np.zeros(len(q))
    out[first] = (n1 / n2) / np.clip(p1[first], 1e-9, 1.0) * (1 / p2[first] - 1)
    return out


def _sd(entry: dict[str, Any], m: int, z: float) -> float | None:
    """The standard error of a total from one stage's class-share entry (None: conservative):
    the wider side of its interval (the other may be clipped at what the labels make certain)
    over z (the t quantile's interval read so errs wide)."""
    if entry.get("conservative") or entry.get("ci_low") is None:
        return None
    est = entry["estimate"]
    return max(entry["ci_high"] - est, est - entry["ci_low"]) / z * m


def _meier(w: float, weight: float | None, key: str, *stages: dict[str, Any]) -> float:
    """Meier's (1953) first-order factor on the variance of an inverse-variance weighted
    mean whose weights are estimated, 1 + 4 w (1 - w) (1 / nu1 + 1 / nu2), nu each stage's
    degrees of freedom for outcome ``key``; 1 for a weight fixed beforehand."""
    if weight is not None or not 0 < w < 1:
        return 1.0
    inv = 0.0
    for stage in stages:
        nu = stage.get("degrees_of_freedom", {}).get(key)
        inv += 1 / nu if nu is not None and nu > 0 and math.isfinite(nu) else 0.0
    return 1 + 4 * w * (1 - w) * inv


def _weight(sd1: float | None, sd2: float | None, weight: float | None) -> float:
    if sd1 is None:
        return 0.0
    if weight is not None:
        return float(weight)
    if sd2 is None:
        return 1.0
    v1, v2 = sd1 ** 2, sd2 ** 2
    return 0.5 if v1 + v2 == 0 else v2 / (v1 + v2)


def two_stage_estimates(machine: np.ndarray, human: np.ndarray, labelled: np.ndarray,
                        pi: np.ndarray, confidence_scores: np.ndarray, *, n_classes: int,
                        pilot: np.ndarray, pilot_pi: np.ndarray, confidence: float = 0.95,
                        weight: float | None = None,
                        covariates: np.ndarray | None = None,
                        fit_on_pilot: bool = False) -> dict[str, Any]:
    """Class shares and final accuracy of a two-batch round, the pilot used twice.

    Parameters
    ----------
    machine, human, labelled, confidence_scores, n_classes, confidence, covariates
        As :func:`core.evaluation.estimate.weighted.weighted_estimates`, for the whole round
        (both batches' labels).
    pi : array of shape (M,)
        The round's inclusion probabilities as written: 1 on the pilot's rows, the second
        batch's p2 elsewhere (:func:`core.evaluation.sampling.two_batch.two_batch_inclusion`).
    pilot : bool array of shape (M,)
        The rows the pilot drew (all labelled).
    pilot_pi : array of shape (M,)
        The pilot's probabilities p1 (fixed before it was drawn).
    weight : float, optional
        The pilot estimate's weight w in [0, 1], fixed in advance; by default each outcome's
        v2 / (v1 + v2).
    fit_on_pilot : bool, default=False
        Fit T2's controls on the pilot's rows too (:func:`pilot_fit_weights`): their labels
        are fixed before the second batch is drawn, so the control stays a function of the
        other rows' draws and T2 unbiased given the pilot (exact enumeration in
        ``tests/core/test_evaluation_estimate_controls.py``). Off by default: on the release
        and the demo it narrows the interval by 0-2 % only, and on the release at 50 %
        (400 paired rounds) coverage fell from 0.965 to 0.955 at the same width. False: the pilot's rows weigh nothing in the fit (pi = 1).

    Returns
    -------
    dict
        :func:`weighted_estimates`'s keys for the round (``class_shares``, ``accuracy``, ...),
        the shares' and accuracy's estimates and intervals combined; ``method``
        ``"two-stage"``; ``stage_weights`` (outcome -> w).
    """
    machine = np.asarray(machine, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    lab = np.asarray(labelled, dtype=bool)
    first = np.asarray(pilot, dtype=bool)
    if weight is not None and not 0 <= weight <= 1:
        raise ValueError(f"the pilot's weight must be in [0, 1], got {weight}")
    if (first & ~lab).any():
        raise ValueError("every pilot row must be labelled")
    m = len(machine)
    z = z_value(confidence)
    q = np.asarray(confidence_scores, dtype=float)
    pi = np.asarray(pi, dtype=float)
    carried = pilot_fit_weights(machine, q, pi, first, pilot_pi) \
        if m and first.any() and fit_on_pilot else None
    ctrl = None if carried is None else \
        table_controls(machine, human, lab, pi, q, n_classes=n_classes, covariates=covariates,
                       carried_weights=carried)
    whole = weighted_estimates(machine, human, lab, pi, q, n_classes=n_classes,
                               confidence=confidence, covariates=covariates, controls=ctrl)
    if m == 0 or not first.any() or lab.all():
        return {**whole, "stage_weights": {}}
    alone = weighted_estimates(machine, np.where(first, human, -1), first,
                               np.asarray(pilot_pi, dtype=float), q, n_classes=n_classes,
                               confidence=confidence, covariates=covariates)
    n_lab, n_unl = int(lab.sum()), m - int(lab.sum())
    weights: dict[str, float] = {}
    shares = []
    for c, (e1, e2) in enumerate(zip(alone["class_shares"], whole["class_shares"])):
        sd1, sd2 = _sd(e1, m, z), _sd(e2, m, z)
        w = _weight(sd1, sd2, weight)
        weights[f"share_{c}"] = w
        if w == 0:
            shares.append(e2)
            continue
        known = float((human[lab] == c).sum())
        est = (w * e1["estimate"] + (1 - w) * e2["estimate"]) * m
        sd = math.sqrt((w ** 2 * sd1 ** 2 + (1 - w) ** 2 * (sd2 or 0.0) ** 2)
                       * _meier(w, weight, f"share_{c}", alone, whole))
        lo_b, hi_b = known, known + n_unl
        est = min(max(est, lo_b), hi_b)
        lo, hi = max(est - z * sd, lo_b), min(est + z * sd, hi_b)
        shares.append({**e2, "estimate": est / m, "ci_low": lo / m, "ci_high": hi / m,
                       "half_width": (hi - lo) / 2 / m})
    acc = dict(whole["accuracy"])
    a1, a2 = alone["accuracy"], whole["accuracy"]
    right1 = int((human[first] == machine[first]).sum())
    right = int((human[lab] == machine[lab]).sum())
    if a1.get("variance") is not None and a2.get("variance") is not None and n_unl:
        # each stage's estimate of K, the machine's right answers over the table
        k1 = a1["estimate"] * m - int(first.sum()) + right1
        k2 = a2["estimate"] * m - n_lab + right
        v1, v2 = a1["variance"] * m ** 2, a2["variance"] * m ** 2
        w = _weight(math.sqrt(v1), math.sqrt(v2), weight)
        weights["accuracy"] = w
        unl_right = min(max(w * k1 + (1 - w) * k2 - right, 0.0), float(n_unl))
        var = (w ** 2 * v1 + (1 - w) ** 2 * v2) * _meier(w, weight, "accuracy", alone, whole)
        est = (n_lab + unl_right) / m
        half = z * math.sqrt(var) / m
        acc.update(estimate=est, ci_low=min(max(n_lab / m, est - half), est),
                   ci_high=max(min(1.0, est + half), est), variance=var / m ** 2)
    return {**whole, "class_shares": shares, "accuracy": acc, "method": "two-stage",
            "stage_weights": weights}
