"""Estimators for rounds planned with inclusion probabilities (the active design).

Row i was labelled with a known probability pi_i (1 for routed rows), independently of the
others (Poisson sampling, :mod:`core.evaluation.sampling.active`); xi_i = 1 when it was. The estimands
are over the M rows of the table: the share of each class among the true labels, and the
accuracy of the final labels (the human label where a human labelled, the machine's elsewhere).

**Class shares: inverse-probability weighting with a calibrated control.** With y_i = 1[true
class = c] and a control m_i (the machine's probability of class c, calibrated on the labels),
the estimator is

    theta = ( sum_i m_i + sum_i xi_i (y_i - m_i) / pi_i ) / M,

unbiased whenever m_i does not depend on xi_i, since E[xi_i / pi_i | the other rows] = 1. The
control is chosen among candidates (:mod:`core.evaluation.estimate.controls`): the classical mean (a
constant), PPI++'s one coefficient on the machine's probability, the post-stratified control
(rows grouped in cells: the machine's class crossed with bins of its confidence, each cell's
share calibrated on its labels and shrunk towards the machine's own probability), and, when
the table has group columns or further judges' confidence columns, the cells plus those as
covariates. Each is fitted by weighted least squares with the weight the variance gives a
row, **leave-one-out** (a labelled row's control from the other labels, an unlabelled row's
from all of them: exactly unbiased, no label set aside), and the candidate whose interval is
narrowest is kept. The leave-one-out residuals carry each candidate's overfitting, so with
few labels the one-coefficient control or the mean wins, with many the cells. On plain random
labelling PPI++'s own interval is a candidate too, so no interval is wider than PPI++'s or
the classical mean's on the same labels. The variance under the
design is sum_i (1 / pi_i - 1) r_i^2 / M^2 with r_i = y_i - m_i, estimated without bias by

    v = sum_i xi_i (1 - pi_i) r_i^2 / pi_i^2 / M^2.

The interval is theta -/+ t sqrt(v), t Student's quantile on the degrees of freedom of v:
v = sum_i xi_i a_i (a_i = (1 - pi_i) r_i^2 / pi_i^2 / M^2) varies over the draw by
sum_i pi_i (1 - pi_i) a_i^2, estimated by
sum_lab (1 - pi) a^2, and df = 2 v^2 / sum_lab (1 - pi) a^2 is that of the chi-square with
the same two moments (Satterthwaite; a few large terms give few); below :data:`FLEX_LABELS`
labels, and for the final labels' accuracy (whose outcome, the machine's errors, is rare),
the smaller v^2 / sum_lab a^2, about half of it, a small-sample margin
(:func:`degrees_of_freedom`). Where rare events (a rare
class, the machine's rare errors among confident rows) show up among few labels, v rests on
a few large terms and collapses exactly when none is drawn; where it falls below the
variance the post-stratified control implies, sum_i (1 / pi_i - 1) (P_i (1 - P_i) +
(P_i - m_i)^2) / M^2 with P that control (every candidate towards the same prior, so none is
chosen for a variance that merely vanished on this draw), it is moderated towards it with
:data:`PRIOR_DF` pseudo degrees of freedom against its own df. The interval is clipped to
what the labels make certain. Subgroups use the controls
fitted on the whole table (a group's rows are still a Poisson sample of it).

**Plain random labelling** (every pi_i equal and below 1, no routed row): given the number of
labels, a Poisson sample with equal probabilities is a simple random sample; PPI++'s interval
(``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, lam=None)``: power-tuned lambda clipped to
[0, 1], normal interval on the unlabelled and the rectifier variances) is kept when it is
narrower than the candidates' (method ``"ppi++"``).

**Accuracy of the final labels.** The unknown part is the number of unlabelled rows the machine
got right, sum_i (1 - xi_i) k_i with k_i = 1[machine = true]. Writing k_i = m_i + r_i with m_i
the leave-one-out control of k, chosen among the same candidates (for the cells: the share
of rows the machine got right, shrunk towards its confidence q_i), it is estimated by sum_unlabelled m_i + sum_i xi_i (1 / pi_i - 1) r_i, whose
error sum_i r_i (xi_i / pi_i - 1) has the same variance as above. The errors are the rare
events here, so the variance the calibrated cells imply for the control is a floor of v
(not only a moderating prior): the
accuracy of the final labels is never made to look surer than the control allows.

**Too few labels.** Where fewer than :data:`MIN_LABELS` rows with pi_i < 1 are labelled (a
small group, a rare class), a normal interval cannot be trusted: the interval is the
conservative one that spans every value the unlabelled rows could take, and a note says so.
Coverage is shown by simulation (``bench/design.py``, ``tests/core/
test_evaluation_weighted.py``): at least 0.94 at 0.95 in every regime measured (rare class,
ties, miscalibrated confidences, three classes, small groups; 500 rounds on each real set).

**Groups whose final labels are worse.** For a group G and the rest R of the table, the two
accuracy estimates rest on disjoint rows drawn independently, so their difference has variance
v_G + v_R; :func:`worse_groups` flags G when the one-sided z test rejects "G is as accurate as
the rest" at level 0.05 divided by the number of groups of the column (Bonferroni: no more than
5 % false alarms per column when every group is fine), and G has at least :data:`MIN_LABELS`
labelled rows.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.evaluation.sampling.audit import srs_half_width, srs_size_for_half_width, z_value

__all__ = ["t_quantile", "degrees_of_freedom", "accuracy_from_total", "share_entry",
           "MIN_LABELS", "ALARM_LEVEL", "weighted_total", "ppi_mean_interval",
           "table_controls", "weighted_estimates", "worse_groups"]

#: Fewest labelled rows (with pi < 1) for a normal interval; fewer gives the conservative one.
MIN_LABELS = 20
#: Pseudo degrees of freedom of the model variance when it moderates an empirical one.
PRIOR_DF = 20.0
#: The control kept unless another is clearly tighter (:mod:`core.evaluation.estimate.controls`).
DEFAULT_CONTROL = "ppi"
#: Fewest labelled rows (pi < 1) before other controls than :data:`DEFAULT_CONTROL` (and, on
#: random labelling, PPI++ itself) are considered: below it a choice costs more coverage than
#: it gains width.
FLEX_LABELS = 100
#: Family-wise false-alarm level of :func:`worse_groups`, per group column.
ALARM_LEVEL = 0.05


def weighted_total(y_lab: np.ndarray, m_lab: np.ndarray, pi_lab: np.ndarray,
                   m_unl_sum: float, *, model_variance: float | None = None,
                   prior_df: float = PRIOR_DF) -> tuple[float, float, int, float]:
    """The estimated total of y over labelled and unlabelled rows, its variance, n and df.

    Parameters
    ----------
    y_lab, m_lab, pi_lab : arrays of shape (n_lab,)
        The labelled rows' outcomes, control values and inclusion probabilities.
    m_unl_sum : float
        The sum of the control over the unlabelled rows.
    model_variance : float, optional
        What the variance would be if a calibrated model's probabilities P were the truth's,
        sum over all rows with pi < 1 of (1 / pi - 1) (P (1 - P) + (P - m)^2) (P: the
        post-stratified control's, :func:`_best_total`). When it exceeds the empirical variance v
        (df effective degrees of freedom), the variance is moderated towards it:
        (df v + d0 model) / (df + d0), d0 = ``prior_df``.
    prior_df : float, default=:data:`PRIOR_DF`
        ``inf`` makes the model variance a floor (the accuracy's: its errors are the rare
        events, and the final labels' quality is better overstated by nothing).

    Returns
    -------
    (total, variance, n, df)
        ``total`` = sum_lab y + sum_unl m + sum_lab (1 / pi - 1) r (an estimate of
        sum_all y whose error is sum_all r (xi / pi - 1)); ``variance`` its estimate
        sum_lab (1 - pi) r^2 / pi^2 (or the floor); ``n`` the labelled rows with pi < 1;
        ``df`` the effective degrees of freedom of the variance estimate
        (:func:`degrees_of_freedom`; df + d0 when moderated): few large terms, as when rare
        errors carry large weights, give few degrees of freedom and a wider t interval.
    """
    r = y_lab - m_lab
    free = pi_lab < 1
    n = int(free.sum())
    total = float(y_lab.sum() + m_unl_sum + ((1 / pi_lab[free] - 1) * r[free]).sum())
    terms = (1 - pi_lab[free]) * r[free] ** 2 / pi_lab[free] ** 2
    var = float(terms.sum())
    # the accuracy's (a floor, prior_df inf) rests on the machine's rare errors: small-sample df
    df = degrees_of_freedom(terms, pi_lab[free], matched=math.isfinite(prior_df))
    if model_variance is not None and float(model_variance) > var:
        # rare events seldom show up among few labels, and the empirical variance collapses
        # exactly then: moderate it towards what the fitted control implies, with PRIOR_DF
        # pseudo degrees of freedom (a variance resting on many effective terms keeps its own
        # value; one resting on a few is pulled up to the model's)
        if not math.isfinite(prior_df):
            return total, float(model_variance), n, math.inf
        d = df if math.isfinite(df) else 0.0
        moderated = (d * var + prior_df * float(model_variance)) / (d + prior_df)
        return total, moderated, n, d + prior_df
    return total, var, n, df


def degrees_of_freedom(terms: np.ndarray, pi: np.ndarray, *, matched: bool = True) -> float:
    """The effective degrees of freedom of a variance estimate v = sum_lab a_i.

    Parameters
    ----------
    terms : array of shape (n,)
        The labelled rows' terms a_i = (1 - pi_i) r_i^2 / pi_i^2 (rows with pi < 1).
    pi : array of shape (n,)
        Their inclusion probabilities.
    matched : bool, default=True
        False: the small-sample df whatever the number of terms (the final labels' accuracy:
        its outcome, the machine's errors, is a rare event however many labels there are;
        the matched df lost it coverage, 0.936 against 0.941 on ties with 300 labels).

    Returns
    -------
    float
        From :data:`FLEX_LABELS` terms up, 2 v^2 / sum_lab (1 - pi) a^2: v = sum_i xi_i a_i
        varies over the Poisson draw by sum_i pi_i (1 - pi_i) a_i^2, which
        sum_lab (1 - pi) a^2 estimates without bias, and this is the df of the chi-square
        with v's two moments (Satterthwaite). Below, v^2 / sum_lab a^2, about half of it
        where the pi are small: with few labels a 0/1 outcome's estimate and its variance
        estimate rise and fall together, which a t interval on the matched df does not
        cover (0.938 at 0.95 on a two-batch round's pilot of 60 labels, 1,000 rounds of
        ``tests/core/test_evaluation_estimate_two_stage.py``'s table; 0.945 with this
        df). ``inf`` when there is no term.
    """
    terms = np.asarray(terms, dtype=float)
    pi = np.asarray(pi, dtype=float)
    var = float(terms.sum())
    if matched and len(terms) >= FLEX_LABELS:
        scatter = float(((1 - pi) * terms ** 2).sum())
        return 2 * var ** 2 / scatter if scatter > 0 else math.inf
    sq = float((terms ** 2).sum())
    return var ** 2 / sq if sq > 0 else math.inf


def t_quantile(confidence: float, df: float) -> float:
    """The two-sided ``confidence`` quantile of Student's t with ``df - 1`` degrees of freedom
    (at least 1), the normal one for an infinite ``df``."""
    from scipy.special import stdtrit  # what scipy.stats.t.ppf computes, without its overhead

    z = z_value(confidence)
    if not math.isfinite(df):
        return z
    return float(stdtrit(max(df - 1.0, 1.0), 0.5 + confidence / 2))


def share_entry(est: float, lo: float, hi: float, *, known: float, n_unl: int, m: int,
                n_lab: int, machine_only: float, confidence: float,
                conservative: bool) -> dict[str, Any]:
    """One class share's result: the estimate and interval clipped to what the rows allow
    (``known`` labelled rows of the class, up to ``n_unl`` more), its half-width, the half-width
    as many random labels would give and the random labels it is worth."""
    floor_, ceil_ = known / m, (known + n_unl) / m
    est = min(max(est, floor_), ceil_)
    lo, hi = max(min(lo, est), floor_), min(max(hi, est), ceil_)
    half = (hi - lo) / 2
    p = est
    return {"estimate": float(est), "ci_low": float(lo), "ci_high": float(hi),
            "machine_only": float(machine_only), "half_width": float(half),
            "random_half_width": (srs_half_width(m, n_lab, p * (1 - p), confidence=confidence)
                                  if n_lab >= 1 else None),
            "random_equivalent": (None if p * (1 - p) == 0 else
                                  srs_size_for_half_width(m, p * (1 - p), half,
                                                          confidence=confidence)),
            "conservative": bool(conservative)}


def accuracy_from_total(total_k: float, var: float, df: float, *, right_labelled: float,
                        n_lab: int, n_unl: int, m: int, confidence: float,
                        conservative: bool) -> dict[str, Any]:
    """The final labels' accuracy and its interval from the estimated total ``total_k`` of rows
    the machine gets right (variance ``var``, degrees of freedom ``df``): the labelled rows count
    as right, the unlabelled rows' share is clipped to what they could hold; ``conservative``:
    every value they could take."""
    unl_right = min(max(total_k - right_labelled, 0.0), float(n_unl))
    est = (n_lab + unl_right) / m
    if conservative:
        lo, hi = n_lab / m, 1.0
        var_out = None
    else:
        half = t_quantile(confidence, df) * math.sqrt(var) / m
        lo, hi = max(n_lab / m, est - half), min(1.0, est + half)
        var_out = var / m ** 2
    return {"estimate": float(est), "ci_low": float(min(lo, est)),
            "ci_high": float(max(hi, est)), "variance": var_out,
            "conservative": bool(conservative)}


def settled_accuracy(m: int, n_unl: int) -> dict[str, Any] | None:
    """The final labels' accuracy where nothing is left to estimate: no rows (every value
    None), or every row labelled (1.0, exactly); None otherwise."""
    if m == 0:
        return {"estimate": None, "ci_low": None, "ci_high": None, "variance": None,
                "conservative": False}
    if n_unl == 0:
        return {"estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0, "variance": 0.0,
                "conservative": False}
    return None


def ppi_mean_interval(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray, *,
                      confidence: float = 0.95) -> tuple[float, float, float]:
    """PPI++'s estimate and interval for a mean (power-tuned, lambda clipped to [0, 1]).

    The formulas of Angelopoulos, Duchi and Zrnic (2023) as ``ppi_py.ppi_mean_ci`` computes
    them with ``lam=None``: lambda = cov(y, yhat) / ((1 + n / N) var(yhat over all rows))
    (covariance with divisor n, variance with divisor n + N - 1), clipped to [0, 1]; estimate
    lambda mean(yhat_unlabelled) + mean(y - lambda yhat); standard error
    sqrt(sd(lambda yhat_unlabelled)^2 / N + sd(y - lambda yhat)^2 / n) (divisors N and n).

    Parameters
    ----------
    y, yhat : arrays of shape (n,)
    yhat_unlabelled : array of shape (N,)
    confidence : float in (0, 1)

    Returns
    -------
    (estimate, low, high)
    """
    y, yhat, yu = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_unlabelled))
    n, big_n = len(y), len(yu)
    z = z_value(confidence)
    cov = float(((y - y.mean()) * (yhat - yhat.mean())).sum() / n)
    allhat = np.concatenate([yhat, yu])
    var = float(allhat.var(ddof=1)) if len(allhat) > 1 else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = cov / ((1 + n / big_n) * var)
    lam = float(np.clip(lam, 0.0, 1.0)) if math.isfinite(lam) else 0.0
    est = float(lam * yu.mean() + (y - lam * yhat).mean())
    se = math.sqrt((lam * yu).std() ** 2 / big_n + (y - lam * yhat).std() ** 2 / n)
    return est, est - z * se, est + z * se


def _model_variance(control: np.ndarray, pi: np.ndarray) -> float:
    m = np.clip(np.asarray(control, dtype=float), 0.0, 1.0)
    free = pi < 1
    return float(((1 / pi[free] - 1) * m[free] * (1 - m[free])).sum())


def _conservative(known: float, n_unl: int, m: int) -> tuple[float, float]:
    return known / m, (known + n_unl) / m


def table_controls(machine: np.ndarray, human: np.ndarray, labelled: np.ndarray,
                   pi: np.ndarray, confidence_scores: np.ndarray, *, n_classes: int,
                   covariates: np.ndarray | None = None,
                   carried_weights: np.ndarray | None = None) -> dict[str, Any]:
    """The controls of a whole table, fitted once (groups reuse them).

    Parameters
    ----------
    machine, human, labelled, pi, confidence_scores, n_classes
        As :func:`weighted_estimates`.
    covariates : array of shape (M, p), optional
        Group indicators and further judges' confidences (the ``"covariates"`` candidate of
        :mod:`core.evaluation.estimate.controls`).
    carried_weights : array of shape (M,), optional
        Fit weights of rows labelled before the draw, pi = 1 (a pilot's; see
        :func:`core.evaluation.estimate.controls.candidate_controls`): the controls are fitted
        on them too, and the cells count them as labels.

    Returns
    -------
    dict
        ``cells`` (int array of shape (M,), from the design), ``n_cells``; per outcome
        (``share_<c>`` for each class, ``accuracy``) the post-stratified control of shape (M,)
        and ``candidates_<outcome>``, every candidate control as columns of an array of shape
        (M, J), leave-one-out (each labelled row's from the other labelled rows); and
        ``candidate_names``, the J names.
    """
    from core.evaluation.sampling.active import machine_probabilities
    from core.evaluation.estimate.controls import candidate_controls, design_cells

    machine = np.asarray(machine, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    lab = np.asarray(labelled, dtype=bool)
    pi = np.asarray(pi, dtype=float)
    q = np.asarray(confidence_scores, dtype=float)
    f = machine_probabilities(machine, q, n_classes)
    carried = None if carried_weights is None else \
        lab & (pi >= 1) & (np.asarray(carried_weights, dtype=float) > 0)
    cells = design_cells(machine, q, pi, carried=carried)
    n_cells = int(cells.max()) + 1 if len(cells) else 0
    out: dict[str, Any] = {"cells": cells, "n_cells": n_cells}
    outcomes = {f"share_{c}": ((human == c).astype(float), f[:, c]) for c in range(n_classes)}
    outcomes["accuracy"] = ((human == machine).astype(float), np.clip(q, 0, 1))
    sizes: dict[str, float] = {}
    shared: dict[str, Any] = {}  # the fits every outcome shares, factored once
    for key, (y, prior) in outcomes.items():
        cand = candidate_controls(y, prior, lab, pi, cells, covariates=covariates, sizes=sizes,
                                  shared=shared, carried_weights=carried_weights)
        out[key] = cand["cells"]
        out[f"candidates_{key}"] = np.column_stack(list(cand.values()))
        out["candidate_names"] = list(cand)
    # each candidate's effective degrees of freedom (the choice's penalty; the hat matrix
    # does not depend on the outcome)
    out["candidate_sizes"] = [sizes[name] for name in out["candidate_names"]]
    return out


def _candidates(controls: dict[str, Any], key: str) -> np.ndarray:
    """The candidate controls of one outcome as columns (the one control when no candidates)."""
    got = controls.get(f"candidates_{key}")
    return np.asarray(controls[key], dtype=float)[:, None] if got is None else got


def _best_total(y_lab: np.ndarray, lab: np.ndarray, pi: np.ndarray, candidates: np.ndarray,
                names: list[str], confidence: float, prior_df: float,
                sizes: list[int] | None = None) -> tuple[float, float, float, str]:
    """(total, variance, df, name) of the candidate control whose interval is narrowest once
    penalised: a candidate with p effective degrees of freedom (the trace of its fit's hat
    matrix: its coefficients, fewer where the ridge shrinks them) on n labelled rows (pi < 1)
    is scored by its half-width times 1 + p / n, so that a flexible control is kept only when
    it is tighter by more than its coefficients cost; below :data:`FLEX_LABELS` labels the control is
    PPI++'s one coefficient (:data:`DEFAULT_CONTROL`), where a choice would cost coverage.

    Every candidate's variance is moderated towards the variance it would have if the
    post-stratified control (``"cells"``: calibrated per cell, shrunk to the machine's
    probability) were the truth's probability P, sum (1 / pi - 1) (P (1 - P) + (P - m)^2),
    so that a candidate whose residuals happen to vanish on this draw (a rare class absent
    from the labels) is not chosen for it."""
    p_cells = np.clip(candidates[:, names.index("cells")], 0.0, 1.0)
    free = pi < 1
    best = None
    n = max(int((lab & (pi < 1)).sum()), 1)
    # what every candidate shares, computed once
    p_free, inv_free, pi_lab, unl = p_cells[free], 1 / pi[free] - 1, pi[lab], ~lab
    pq_free = p_free * (1 - p_free)
    for j, name in enumerate(names):
        if n < FLEX_LABELS and name != DEFAULT_CONTROL:
            continue
        ctrl = candidates[:, j]
        # its variance if the calibrated cells were the truth's probabilities P:
        # sum (1 / pi - 1) (P (1 - P) + (P - m)^2)
        prior = float((inv_free * (pq_free + (p_free - ctrl[free]) ** 2)).sum())
        total, var, _, df = weighted_total(y_lab, ctrl[lab], pi_lab, float(ctrl[unl].sum()),
                                           model_variance=prior, prior_df=prior_df)
        half = t_quantile(confidence, df) * math.sqrt(var)
        score = half * (1 + (sizes[j] if sizes else 0) / n)
        if best is None or score < best[0]:
            best = (score, total, var, df, name, half)
    return best[1], best[2], best[3], best[4]


def weighted_estimates(machine: np.ndarray, human: np.ndarray, labelled: np.ndarray,
                       pi: np.ndarray, confidence_scores: np.ndarray, *, n_classes: int,
                       confidence: float = 0.95, controls: dict[str, Any] | None = None,
                       covariates: np.ndarray | None = None) -> dict[str, Any]:
    """Class shares and final accuracy with intervals, for one table or one group.

    Parameters
    ----------
    machine : int array of shape (M,)
        Machine class codes 0..K-1.
    human : int array of shape (M,)
        Human class codes where labelled, -1 elsewhere.
    labelled : bool array of shape (M,)
        xi: the rows humans labelled (routed rows and drawn audit rows).
    pi : array of shape (M,)
        Inclusion probabilities in (0, 1].
    confidence_scores : array of shape (M,)
        The machine's confidence in its label, q_i.
    n_classes : int
    confidence : float, default=0.95
        Confidence level of the intervals.
    controls : dict, optional
        :func:`table_controls` of these rows (for a group: the whole table's, restricted to
        the group's rows); fitted on these rows when absent.
    covariates : array of shape (M, p), optional
        Group indicators and further judges' confidences for the ``"covariates"`` candidate
        (used when ``controls`` is absent).

    Returns
    -------
    dict
        ``M``, ``n_labelled``, ``n_free`` (labelled rows with pi < 1), ``method``
        (``"ppi++"``, ``"weighted"``), ``class_shares`` (list over classes of ``estimate``,
        ``ci_low``, ``ci_high``, ``half_width``, ``machine_only``, ``random_half_width``,
        ``random_equivalent``, ``conservative``), ``accuracy`` (``estimate``, ``ci_low``,
        ``ci_high``, ``variance``, ``conservative``), ``machine_accuracy`` (the machine's
        accuracy on the table, estimated with the weights), ``controls`` (outcome -> the
        candidate kept: ``"mean"``, ``"ppi"``, ``"cells"``, ``"covariates"`` or ``"ppi++"``),
        ``degrees_of_freedom`` (outcome -> the df its t interval rests on, for the normal
        intervals; PPI++'s: its labels), ``notes``.
    """
    from core.evaluation.sampling.active import machine_probabilities

    machine = np.asarray(machine, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    lab = np.asarray(labelled, dtype=bool)
    pi = np.asarray(pi, dtype=float)
    q = np.asarray(confidence_scores, dtype=float)
    m = len(machine)
    z_value(confidence)  # validates the level
    k = n_classes
    n_lab = int(lab.sum())
    free_lab = lab & (pi < 1)
    n_free = int(free_lab.sum())
    n_unl = m - n_lab
    random_design = bool(controls is None and m and n_unl and not (pi >= 1).any()
                         and np.ptp(pi) == 0 and n_lab >= 2)
    conservative = n_unl > 0 and n_free < MIN_LABELS
    own = controls is None
    if own and m:
        controls = table_controls(machine, human, lab, pi, q, n_classes=k,
                                  covariates=covariates)
    f = machine_probabilities(machine, q, k) if random_design else None
    # controls without candidates (fitted elsewhere): their one control, as "cells"
    names = list(controls.get("candidate_names", ["cells"])) if m else []
    sizes = list(controls.get("candidate_sizes", [])) if m else []
    chosen: dict[str, str] = {}
    dfs: dict[str, float] = {}
    notes: list[str] = []
    shares = []
    for c in range(k):
        y = (human[lab] == c).astype(float)
        known = float(y.sum())
        if m == 0:
            shares.append({"estimate": None, "ci_low": None, "ci_high": None})
            continue
        ctrl = controls[f"share_{c}"]
        if n_unl == 0:
            est = lo = hi = known / m
        elif conservative:
            lo, hi = _conservative(known, n_unl, m)
            est = (known + ctrl[~lab].sum()) / m
        else:
            total, var, df, name = _best_total(y, lab, pi, _candidates(controls, f"share_{c}"),
                                               names, confidence, PRIOR_DF, sizes)
            est = total / m
            half = t_quantile(confidence, df) * math.sqrt(var) / m
            lo, hi = est - half, est + half
            dfs[f"share_{c}"] = df
            if random_design:
                # plain random labelling: PPI++ itself is a candidate (two coefficients), kept
                # when narrower once the chosen control's penalty is set against its own
                p_est, p_lo, p_hi = ppi_mean_interval(y, f[lab, c], f[~lab, c],
                                                      confidence=confidence)
                size = dict(zip(names, sizes)).get(name, 0)
                if n_free < FLEX_LABELS or (p_hi - p_lo) * (1 + 2 / max(n_free, 1)) <= \
                        (hi - lo) * (1 + size / max(n_free, 1)):
                    est, lo, hi, name = p_est, p_lo, p_hi, "ppi++"
                    dfs[f"share_{c}"] = float(n_free)  # its variances' divisors
            chosen[f"share_{c}"] = name
        shares.append(share_entry(est, lo, hi, known=known, n_unl=n_unl, m=m, n_lab=n_lab,
                                  machine_only=float((machine == c).mean()),
                                  confidence=confidence, conservative=conservative))
    # accuracy of the final labels
    right = (human[lab] == machine[lab]).astype(float)
    acc = settled_accuracy(m, n_unl)
    if acc is None:
        # the labelled rows count as right (a human labelled them): estimate sum_unl k_i
        total_k, var, df, chosen["accuracy"] = _best_total(
            right, lab, pi, _candidates(controls, "accuracy"), names, confidence, math.inf, sizes)
        dfs["accuracy"] = df
        acc = accuracy_from_total(total_k, var, df, right_labelled=float(right.sum()),
                                  n_lab=n_lab, n_unl=n_unl, m=m, confidence=confidence,
                                  conservative=conservative)
    if conservative:
        notes.append(f"only {n_free} rows drawn at random are labelled (fewer than "
                     f"{MIN_LABELS}): the intervals span every value the {n_unl:,} unlabelled "
                     "rows could take")
    machine_acc = None
    if n_lab and m:
        w = 1 / pi[lab]
        machine_acc = float((w * right).sum() / w.sum())
    return {"M": m, "n_labelled": n_lab, "n_free": n_free,
            "method": ("ppi++" if random_design and chosen and all(
                v == "ppi++" for key, v in chosen.items() if key != "accuracy")
                else "weighted"),
            "controls": chosen, "degrees_of_freedom": dfs,
            "class_shares": shares, "accuracy": acc, "machine_accuracy": machine_acc,
            "notes": notes}


def worse_groups(results: dict[str, dict[str, Any]], rest: dict[str, dict[str, Any]], *,
                 level: float = ALARM_LEVEL) -> list[dict[str, Any]]:
    """Groups whose final labels are significantly less accurate than the rest of the table.

    Parameters
    ----------
    results : dict
        Group value -> :func:`weighted_estimates` of its rows (with ``human_share`` and
        ``effort`` added by the caller, if known).
    rest : dict
        Group value -> :func:`weighted_estimates` of every other row.
    level : float, default=0.05
        Family-wise level over the column's groups (Bonferroni).

    Returns
    -------
    list of dict
        One per flagged group: ``group``, ``accuracy``, ``rest_accuracy``, ``difference``,
        ``z``, ``machine_accuracy``, ``rest_machine_accuracy``, ``human_share``,
        ``rest_human_share``, ``effort``, ``rest_effort``.
    """
    from scipy.stats import norm

    tested = {g: r for g, r in results.items()
              if r["accuracy"].get("variance") is not None
              and rest[g]["accuracy"].get("variance") is not None}
    if len(results) < 2 or not tested:
        return []
    crit = float(norm.ppf(1 - level / len(results)))
    flagged = []
    for g, r in tested.items():
        o = rest[g]
        a, b = r["accuracy"]["estimate"], o["accuracy"]["estimate"]
        se = math.sqrt(r["accuracy"]["variance"] + o["accuracy"]["variance"])
        if se <= 0:
            continue
        zval = (a - b) / se
        if zval < -crit:
            flagged.append({"group": g, "accuracy": a, "rest_accuracy": b,
                            "difference": a - b, "z": zval,
                            "machine_accuracy": r.get("machine_accuracy"),
                            "rest_machine_accuracy": o.get("machine_accuracy"),
                            "human_share": r.get("human_share"),
                            "rest_human_share": o.get("human_share"),
                            "effort": r.get("effort"), "rest_effort": o.get("effort")})
    return flagged

