"""Overall-error guarantee (PAC labels): the final labels' error is at most epsilon.

The statement (the guarantee of "Probably Approximately Correct Labels", Candès, Ilyas &
Zrnic 2025): with probability at least 1 - delta over the calibration sample,

    (machine errors on the rows the machine keeps) / M  <=  epsilon,

where M counts every row of the table and the other rows (calibration and routed) get human
labels. "Error" means the machine's label differs from the label the annotators would give:
the guarantee is relative to the annotators' labels (their own mistakes are not counted), and
to the rows of this table (a finite population, nothing is assumed about other data).

Premise: the labelled calibration rows are a simple random sample (without replacement) of n
of the M rows (``hmceval queue --calibration N``); the machine's ranking does not depend on
them.

The procedure (an exact hypergeometric stopping rule):

1. Order all M rows by their gain g (lam = 0: by confidence, the most confident first); ties
   in g are ordered by a random permutation drawn from ``seed`` (fixed before any label is
   read, so a block of tied scores can be kept in part).
2. c = floor(epsilon M), the most machine errors the final labels may hold. For k = 0, 1, ...
   h(k) = P(X <= k) with X ~ Hypergeometric(M rows, c + k + 1 errors, n drawn); h is
   nondecreasing in k. k* = the largest k with h(k) <= delta (k* = -1 when h(0) > delta:
   nothing can be kept; no limit when c + 1 > M - n: the unlabelled rows cannot hold c + 1
   errors).
3. Walk down the order: the machine keeps every row before the (k* + 1)-th calibration row on
   which the machine is wrong (every row when there are at most k* such rows), except the
   calibration rows themselves (humans labelled them). The others are routed to humans.

Why it holds (exact, finite samples, no multiplicity correction): list the rows on which the
machine is wrong in the order of step 1, e_1, e_2, .... Each is in the calibration sample or
not. The kept rows hold more than c unseen errors exactly when the (c + 1)-th unseen error
comes before the (k* + 1)-th sampled one, i.e. when at most k* of the first c + k* + 1 error
rows were sampled. Those c + k* + 1 rows are fixed by the order, so the number sampled is
Hypergeometric(M, c + k* + 1, n) and the probability is h(k*) <= delta. (With fewer than
c + k* + 1 error rows in the table the probability is smaller: adding error rows can only
raise it.) The rule depends on the calibration sample only through the count of sampled errors
along the order, so no union over thresholds is paid, and ties split by a fixed permutation do
not change the argument.

Calibration drawn with unequal probabilities (``hmceval queue --calibration N_C --design
active``: row i is drawn independently with a known probability pi_i, stored as
``inclusion_probability``). The hypergeometric count no longer applies; the rule is a test
supermartingale over the error rows instead (:func:`certify_overall_weighted_arrays`):

1. Fix beta in (0, 1) before any label is read (:func:`weighted_beta`: from the design and the
   confidences only). An error row j pays the factor x_j = 1 + beta pi_j / (1 - pi_j) when it
   was not drawn and 1 - beta when it was: (1 - pi_j) x_j + pi_j (1 - beta) = 1.
2. A prefix of the order (the same order as above) is kept when
   (the product of the c + 1 smallest x_j over its undrawn rows) * (1 - beta)^k >= 1 / delta,
   k = the drawn rows in it on which the machine is wrong (a prefix with at most c undrawn
   rows is kept outright: it cannot hold c + 1 unseen errors). The largest such prefix is
   kept (the condition only weakens along the order), less its drawn rows.

Why it holds (finite samples, any pi): list the error rows in the order, e_1, e_2, ....
W_t = the product of the factors of e_1 .. e_t is a product of independent nonnegative
factors of mean 1, a martingale, so P(sup_t W_t >= 1 / delta) <= delta (Ville). If the kept
prefix held c + 1 unseen errors, at the (c + 1)-th of them W_t = (the x of those c + 1 rows)
* (1 - beta)^(drawn errors before it) >= (the c + 1 smallest x over the prefix's undrawn rows)
* (1 - beta)^k >= 1 / delta, since 1 - beta <= 1. So a violation needs sup W >= 1 / delta.
The pi_j are the design's, fixed before the draw; beta depends on them and the confidences,
never on a label. ``overall_error_bound`` is then (u - 1) / M with u the fewest undrawn rows of
the kept prefix whose smallest x reach the same level: it holds simultaneously (the same
event). With equal probabilities the hypergeometric rule is used (it is exact and keeps more).

``overall_error_bound`` is (U(k) - k) / M for the k sampled errors among the kept rows, where
U(k) = the largest error count E with P(X <= k | E) > delta: the (1 - delta) upper bound on
the unseen errors at the chosen stop (pointwise; it is at most epsilon). The guarantee is the
statement with epsilon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.errors import DataError

__all__ = ["PAC_KEYS", "METHOD", "WEIGHTED_METHOD", "max_sampled_errors", "unseen_error_upper",
           "PacResult", "pac_order", "certify_overall_arrays", "weighted_beta",
           "certify_overall_weighted_arrays", "certify_overall"]

#: Keys of ``hmceval certify --overall-error --json`` (stable contract), in order.
PAC_KEYS = ("epsilon", "delta", "lambda", "M", "n_calibration", "threshold", "n_machine",
            "n_human", "saving", "overall_error_bound", "calibration_kept",
            "calibration_kept_errors", "max_calibration_errors", "predicted_human_effort",
            "method", "guarantee")

#: The ``method`` of the result.
METHOD = ("exact hypergeometric stopping rule on a simple random calibration sample "
          "(keep rows in gain order until the (k*+1)-th calibration error)")


#: The ``method`` of a result on a calibration sample drawn with unequal probabilities.
WEIGHTED_METHOD = ("test supermartingale over the error rows on a calibration sample drawn with "
                   "known unequal probabilities (an undrawn error pays 1 + beta pi/(1 - pi), a "
                   "drawn one 1 - beta; keep the longest prefix whose worst case reaches "
                   "1/delta)")

#: The values of beta :func:`weighted_beta` chooses from.
BETA_GRID = tuple(np.round(np.linspace(0.02, 0.9, 45), 4))


def _check(value: float, name: str) -> None:
    if (not isinstance(value, (int, float, np.floating, np.integer)) or not math.isfinite(value)
            or not 0 < value < 1):
        raise DataError(f"{name} must be a number strictly between 0 and 1, got {value}")


def _hyper_cdf(k: int, m: int, errors: int, n: int) -> float:
    from scipy.stats import hypergeom

    return float(hypergeom.cdf(k, m, errors, n))


def max_sampled_errors(m: int, n: int, epsilon: float, delta: float) -> int | None:
    """k*: the most calibration errors the kept rows may hold (step 2 of the module docstring).

    Parameters
    ----------
    m : int
        Rows of the table, M >= 1.
    n : int
        Calibration rows (a simple random sample), 1 <= n <= M.
    epsilon, delta : float in (0, 1)

    Returns
    -------
    int or None
        -1 when nothing can be kept, None when there is no limit (c + 1 > M - n).
    """
    _check(epsilon, "epsilon")
    _check(delta, "delta")
    if not 1 <= n <= m:
        raise DataError(f"calibration rows must be between 1 and M = {m}, got {n}")
    c = int(math.floor(epsilon * m + 1e-9))
    if c + 1 > m - n:
        return None
    # h(k) = P(X <= k | c + k + 1 errors) is nondecreasing in k; h(n) = 1 > delta
    lo, hi = -1, n  # h(lo) <= delta (lo = -1 by convention), h(hi) > delta
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _hyper_cdf(mid, m, c + mid + 1, n) <= delta:
            lo = mid
        else:
            hi = mid
    return lo


def unseen_error_upper(k: int, m: int, n: int, delta: float) -> int:
    """U(k) - k: the (1 - delta) upper bound on the errors outside a simple random sample.

    U(k) is the largest error count E (k <= E <= M - n + k) with P(X <= k | E) > delta, X ~
    Hypergeometric(M, E, n): the one-sided exact (finite-population Clopper-Pearson) bound.
    """
    if not 0 <= k <= n <= m:
        raise ValueError(f"need 0 <= k <= n <= M, got k={k}, n={n}, M={m}")
    lo, hi = k, m - n + k + 1  # cdf at lo > delta (X <= k always when E = k); search the edge
    if _hyper_cdf(k, m, hi - 1, n) > delta:
        return m - n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _hyper_cdf(k, m, mid, n) > delta:
            lo = mid
        else:
            hi = mid
    return lo - k


def pac_order(g: np.ndarray, *, seed: int = 0) -> np.ndarray:
    """Row indices by ascending gain, ties in a random order drawn from ``seed``."""
    g = np.asarray(g, dtype=float)
    tie = np.random.default_rng(seed).permutation(len(g))
    return np.lexsort((tie, g))


@dataclass(frozen=True)
class PacResult:
    """The outcome of :func:`certify_overall_arrays`.

    Attributes
    ----------
    keep : bool array of shape (M,)
        Rows the machine keeps (not calibration rows).
    threshold : float or None
        Gain of the last kept row in the order (None when nothing is kept); rows with a smaller
        gain are all kept, rows tied with it may be kept in part.
    max_calibration_errors : int or None
        k* (None: no limit).
    calibration_kept, calibration_kept_errors : int
        Calibration rows before the stop, and machine errors among them.
    overall_error_bound : float or None
        (U(k) - k) / M at the stop (None when nothing is kept).
    """

    keep: np.ndarray
    threshold: float | None
    max_calibration_errors: int | None
    calibration_kept: int
    calibration_kept_errors: int
    overall_error_bound: float | None


def certify_overall_arrays(g: np.ndarray, calibration: np.ndarray, errors: np.ndarray, *,
                           epsilon: float, delta: float, seed: int = 0) -> PacResult:
    """The overall-error procedure on arrays (see the module docstring).

    Parameters
    ----------
    g : array of shape (M,)
        Gains of all rows (smaller: kept first).
    calibration : bool array of shape (M,)
        Calibration rows (a simple random sample, human-labelled).
    errors : bool array of shape (M,)
        Machine label differs from the human label (read on calibration rows only).
    epsilon, delta : float in (0, 1)
    seed : int
        Seed of the order of tied gains.

    Returns
    -------
    PacResult
    """
    g = np.asarray(g, dtype=float)
    cal = np.asarray(calibration, dtype=bool)
    err = np.asarray(errors, dtype=bool) & cal
    m, n = len(g), int(cal.sum())
    if n == 0:
        raise DataError("no calibration row: the overall-error guarantee needs human labels on "
                        "a simple random sample of the rows (selection 'calibration'; draw one "
                        "with hmceval queue --calibration N)")
    k_max = max_sampled_errors(m, n, epsilon, delta)
    order = pac_order(g, seed=seed)
    err_pos = np.flatnonzero(err[order])  # positions of calibration errors along the order
    if k_max is None or len(err_pos) <= k_max:
        stop = m
    elif k_max < 0:
        stop = 0  # even a kept set without a calibration error could hide too many errors
    else:
        stop = int(err_pos[k_max])  # keep positions 0 .. stop - 1
    prefix = np.zeros(m, dtype=bool)
    prefix[order[:stop]] = True
    keep = prefix & ~cal
    k = int((err & prefix).sum())
    if not keep.any():
        return PacResult(keep=keep, threshold=None, max_calibration_errors=k_max,
                         calibration_kept=int((cal & prefix).sum()), calibration_kept_errors=k,
                         overall_error_bound=None)
    return PacResult(keep=keep, threshold=float(g[order[stop - 1]]),
                     max_calibration_errors=k_max, calibration_kept=int((cal & prefix).sum()),
                     calibration_kept_errors=k,
                     overall_error_bound=unseen_error_upper(k, m, n, delta) / m)


def _log_x(pi: np.ndarray, beta: float) -> np.ndarray:
    """log x_j = log(1 + beta pi_j / (1 - pi_j)); +inf where pi_j = 1 (never undrawn)."""
    with np.errstate(divide="ignore"):
        return np.log1p(beta * pi / np.where(pi < 1, 1 - pi, 0.0))


def _weighted_stop(order: np.ndarray, pi: np.ndarray, drawn: np.ndarray, err: np.ndarray,
                   c: int, beta: float, delta: float) -> int:
    """The longest kept prefix (a count of rows along ``order``) of the weighted rule."""
    lx = _log_x(pi[order], beta)[~drawn[order]]  # undrawn rows along the order
    undrawn_pos = np.flatnonzero(~drawn[order])  # their positions in the order
    k_before = np.cumsum(err[order] & drawn[order])  # drawn errors up to each position
    need = math.log(1 / delta)
    log_seen = math.log1p(-beta)
    m = len(order)

    def holds(stop: int) -> bool:  # the rule for the prefix of ``stop`` rows
        u = int(np.searchsorted(undrawn_pos, stop))  # undrawn rows in the prefix
        if u <= c:
            return True
        smallest = float(np.partition(lx[:u], c)[:c + 1].sum())
        k = int(k_before[stop - 1]) if stop else 0
        return smallest + k * log_seen >= need

    lo, hi = 0, m  # holds(lo); find the largest stop that holds (monotone)
    if holds(m):
        return m
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid
    return lo


def weighted_beta(g: np.ndarray, pi: np.ndarray, p_error: np.ndarray, *, epsilon: float,
                  delta: float, seed: int = 0) -> float:
    """beta for :func:`certify_overall_weighted_arrays`, chosen before any label is read.

    For each beta of :data:`BETA_GRID`, the rule is run on the *expected* outcome of the
    draw (each row drawn in proportion pi_i, wrong with the probability ``p_error``, e.g.
    1 - confidence) and the beta keeping the longest prefix is taken. Uses the design and the
    confidences only, so the guarantee's argument is untouched.

    Parameters
    ----------
    g : array of shape (M,)
        Gains (the order).
    pi : array of shape (M,)
        Inclusion probabilities in (0, 1].
    p_error : array of shape (M,)
        The machine's planned chance of being wrong on each row.
    epsilon, delta : float in (0, 1)
    seed : int
        Seed of the order of tied gains.

    Returns
    -------
    float
    """
    pi = np.asarray(pi, dtype=float)
    pe = np.clip(np.asarray(p_error, dtype=float), 0.0, 1.0)
    m = len(pi)
    c = int(math.floor(epsilon * m + 1e-9))
    order = pac_order(g, seed=seed)
    # expected draw: the undrawn rows are those of smallest pi in expectation (kept whole),
    # the drawn errors counted as their expectation sum(pi * p_error) along the order
    cum_seen = np.cumsum((pi * pe)[order])
    best, best_stop = BETA_GRID[0], -1
    need = math.log(1 / delta)
    for beta in BETA_GRID:
        log_seen = math.log1p(-beta)
        stop = m
        # the c + 1 smallest x of all rows bound those of any prefix from below: a quick,
        # label-free proxy for the prefix the rule would keep
        floor_x = (float(np.partition(_log_x(pi, beta), c)[:c + 1].sum()) if m > c
                   else float("inf"))
        over = np.flatnonzero(floor_x + cum_seen * log_seen < need)
        if len(over):
            stop = int(over[0])
        if stop > best_stop:
            best, best_stop = float(beta), stop
    return best


def certify_overall_weighted_arrays(g: np.ndarray, calibration: np.ndarray, errors: np.ndarray,
                                    pi: np.ndarray, *, epsilon: float, delta: float,
                                    beta: float, seed: int = 0) -> PacResult:
    """The overall-error rule on a calibration sample drawn with unequal probabilities.

    See the module docstring (the test supermartingale). Rows are drawn independently, row i
    with the known probability ``pi[i]``; ``calibration`` is the draw.

    Parameters
    ----------
    g : array of shape (M,)
        Gains of all rows (smaller: kept first).
    calibration : bool array of shape (M,)
        The drawn rows (human-labelled).
    errors : bool array of shape (M,)
        Machine label differs from the human label (read on calibration rows only).
    pi : array of shape (M,)
        Every row's inclusion probability in (0, 1], fixed before the draw.
    epsilon, delta : float in (0, 1)
    beta : float in (0, 1)
        Fixed before any label is read (:func:`weighted_beta`).
    seed : int
        Seed of the order of tied gains.

    Returns
    -------
    PacResult
        ``max_calibration_errors`` is None (the rule weighs errors, it does not count them).
    """
    g = np.asarray(g, dtype=float)
    cal = np.asarray(calibration, dtype=bool)
    err = np.asarray(errors, dtype=bool) & cal
    pi = np.asarray(pi, dtype=float)
    m = len(g)
    if not (np.all(np.isfinite(pi)) and np.all((pi > 0) & (pi <= 1))):
        raise DataError("inclusion_probability: every row needs a probability in (0, 1] when "
                        "the calibration sample was drawn with unequal probabilities")
    if not 0 < beta < 1:
        raise DataError(f"beta must be strictly between 0 and 1, got {beta}")
    if not cal.any():
        raise DataError("no calibration row: the overall-error guarantee needs human labels on "
                        "a random calibration sample")
    c = int(math.floor(epsilon * m + 1e-9))
    order = pac_order(g, seed=seed)
    stop = _weighted_stop(order, pi, cal, err, c, beta, delta)
    prefix = np.zeros(m, dtype=bool)
    prefix[order[:stop]] = True
    keep = prefix & ~cal
    k = int((err & prefix).sum())
    n_cal_kept = int((cal & prefix).sum())
    if not keep.any():
        return PacResult(keep=keep, threshold=None, max_calibration_errors=None,
                         calibration_kept=n_cal_kept, calibration_kept_errors=k,
                         overall_error_bound=None)
    # the bound: the fewest undrawn rows u whose smallest x reach 1/delta with the k seen
    lx = np.sort(_log_x(pi[keep], beta))
    reach = np.cumsum(lx) + k * math.log1p(-beta) >= math.log(1 / delta)
    u = int(np.argmax(reach)) + 1 if reach.any() else len(lx) + 1
    return PacResult(keep=keep, threshold=float(g[order[stop - 1]]),
                     max_calibration_errors=None, calibration_kept=n_cal_kept,
                     calibration_kept_errors=k, overall_error_bound=(u - 1) / m)


def certify_overall(design, *, epsilon: float, delta: float, lam: float = 0.0,
                    seed: int = 0, annotator_error: float = 0.0) -> dict:
    """Certify a round's table for the overall error of its final labels.

    Parameters
    ----------
    design : core.evaluation.sampling.design.Design
        Calibration rows: ``selection == "calibration`` with a human label; without a
        selection column, every row with a human label. With inclusion probabilities that
        differ (a calibration sample drawn by ``hmceval queue --calibration N_C --design
        active``; every row needs one) the weighted rule is used
        (:func:`certify_overall_weighted_arrays`).
    epsilon : float in (0, 1)
        Largest overall error of the final labels (machine errors on kept rows / all rows).
    delta : float in (0, 1)
    lam : float >= 0
        Effort weight of the ranking.
    seed : int
        Seed of the order of tied gains.
    annotator_error : float in [0, epsilon), default=0
        A known or measured upper bound on the annotators' error rate: the final labels'
        overall error against the truth is at most their error against the annotators' labels
        plus it (the human-labelled rows carry the annotators' errors), so the rows are
        certified at epsilon - annotator_error
        (:func:`core.evaluation.certify.selective.annotator_margin`). With 0 the guarantee is relative
        to the annotators' labels.

    Returns
    -------
    dict
        Keys :data:`PAC_KEYS`, then ``annotator_error``, ``epsilon_annotators``, ``notes`` and
        the non-JSON ``selection`` (shape (M,)).
    """
    from core.evaluation.certify.selective import (annotator_margin, calibration_errors,
                                                  certified_selection, count_share)
    from core.assignment import gains

    _check(epsilon, "epsilon (--overall-error)")
    _check(delta, "delta")
    if not isinstance(lam, (int, float, np.floating)) or not math.isfinite(lam) or lam < 0:
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    eps_ann = annotator_margin(epsilon, annotator_error, "epsilon (--overall-error)")
    cal, err, notes = calibration_errors(design)
    pi = getattr(design, "inclusion", None)
    inp = design.inputs()
    m = design.M
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    weighted = False
    if pi is not None and cal.any():
        p = np.asarray(pi, dtype=float)
        bad = np.flatnonzero(~np.isfinite(p) | ~((p > 0) & (p <= 1)))
        if len(bad):
            from core.errors import describe_rows

            raise DataError(f"inclusion_probability: a calibration sample drawn with unequal "
                            f"probabilities needs every row's probability in (0, 1]; "
                            f"{describe_rows(bad)} have none (or one outside (0, 1])")
        weighted = np.ptp(p) > 1e-9
        drawn = design.selection == "calibration" if design.has_selection else cal
        if weighted and (drawn & ~cal).any():
            raise DataError(f"{int((drawn & ~cal).sum())} calibration rows drawn with unequal "
                            "probabilities have no human label yet: the weighted rule needs "
                            "the whole draw labelled (label them, then certify)")
    if weighted:
        beta = weighted_beta(g, p, 1 - np.asarray(inp.a, dtype=float), epsilon=eps_ann,
                             delta=delta, seed=seed)
        res = certify_overall_weighted_arrays(g, cal, err, p, epsilon=eps_ann, delta=delta,
                                              beta=beta, seed=seed)
        notes.append(f"calibration drawn with unequal probabilities (from "
                     f"{p.min():.3g} to {p.max():.3g}): the weighted rule (beta = {beta:g}) "
                     "is used; a simple random calibration sample of the same size usually "
                     "keeps more for this guarantee")
    else:
        res = certify_overall_arrays(g, cal, err, epsilon=eps_ann, delta=delta, seed=seed)
    n_cal = int(cal.sum())
    selection = certified_selection(cal, res.keep)
    n_machine = int(res.keep.sum())
    n_human = m - n_cal - n_machine
    effort = float(inp.l[selection == "routed"].sum())
    if res.max_calibration_errors == -1:
        notes.append(f"with {n_cal:,} calibration rows of {m:,} even a kept set with no calibration "
                     f"error could hide more than {epsilon:.1%} of M errors at delta = "
                     f"{delta:g}: label a larger calibration sample")
    if n_machine == 0:
        sentence = (f"Nothing could be certified: the machine keeps no row, so all "
                    f"{m - n_cal:,} rows outside the calibration sample go to humans (final "
                    "labels: human labels only).")
    else:
        sentence = (f"With probability at least {1 - delta:.0%} over the random calibration "
                    f"sample, at most {epsilon:.1%} of all {m:,} final labels differ from "
                    + ("the annotators' labels" if not annotator_error else
                       f"the truth (the annotators being wrong on at most "
                       f"{annotator_error:.1%})")
                    + f": the machine labels {n_machine:,} rows "
                    f"({count_share(n_machine, m)} of the table saved), humans label the other "
                    f"{n_human + n_cal:,} (calibration {n_cal:,}, routed {n_human:,}).")
    return {
        "epsilon": float(epsilon), "delta": float(delta), "lambda": float(lam), "M": m,
        "n_calibration": n_cal, "threshold": res.threshold, "n_machine": n_machine,
        "n_human": n_human, "saving": n_machine / m,
        "overall_error_bound": res.overall_error_bound,
        "calibration_kept": res.calibration_kept,
        "calibration_kept_errors": res.calibration_kept_errors,
        "max_calibration_errors": res.max_calibration_errors,
        "predicted_human_effort": effort,
        "method": WEIGHTED_METHOD if weighted else METHOD, "guarantee": sentence,
        "annotator_error": float(annotator_error), "epsilon_annotators": eps_ann,
        "notes": notes, "selection": selection,
    }
