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

__all__ = ["PAC_KEYS", "METHOD", "max_sampled_errors", "unseen_error_upper", "PacResult",
           "pac_order", "certify_overall_arrays", "certify_overall"]

#: Keys of ``hmceval certify --overall-error --json`` (stable contract), in order.
PAC_KEYS = ("epsilon", "delta", "lambda", "M", "n_calibration", "threshold", "n_machine",
            "n_human", "saving", "overall_error_bound", "calibration_kept",
            "calibration_kept_errors", "max_calibration_errors", "predicted_human_effort",
            "method", "guarantee")

#: The ``method`` of the result.
METHOD = ("exact hypergeometric stopping rule on a simple random calibration sample "
          "(keep rows in gain order until the (k*+1)-th calibration error)")


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


def certify_overall(design, *, epsilon: float, delta: float, lam: float = 0.0,
                    seed: int = 0, annotator_error: float = 0.0) -> dict:
    """Certify a round's table for the overall error of its final labels.

    Parameters
    ----------
    design : core.evaluation.design.Design
        Calibration rows: ``selection == "calibration`` with a human label; without a
        selection column, every row with a human label. A design with unequal inclusion
        probabilities (``--design active``) is refused: the bound needs a simple random sample.
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
        (:func:`core.evaluation.guarantee.annotator_margin`). With 0 the guarantee is relative
        to the annotators' labels.

    Returns
    -------
    dict
        Keys :data:`PAC_KEYS`, then ``annotator_error``, ``epsilon_annotators``, ``notes`` and
        the non-JSON ``selection`` (shape (M,)).
    """
    from core.evaluation.guarantee import annotator_margin, calibration_errors, count_share
    from core.assignment import gains

    _check(epsilon, "epsilon (--overall-error)")
    _check(delta, "delta")
    if not isinstance(lam, (int, float, np.floating)) or not math.isfinite(lam) or lam < 0:
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    eps_ann = annotator_margin(epsilon, annotator_error, "epsilon (--overall-error)")
    cal, err, notes = calibration_errors(design)
    pi = getattr(design, "inclusion", None)
    if pi is not None and cal.any():
        p = np.asarray(pi, dtype=float)[cal]
        if not np.all(np.isfinite(p)) or np.ptp(p) > 1e-9:
            raise DataError("inclusion_probability: the calibration rows were drawn with unequal "
                            "probabilities (an active design); the overall-error guarantee needs "
                            "a simple random calibration sample (hmceval queue --calibration N)")
    inp = design.inputs()
    m = design.M
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    res = certify_overall_arrays(g, cal, err, epsilon=eps_ann, delta=delta, seed=seed)
    n_cal = int(cal.sum())
    selection = np.where(cal, "calibration", np.where(res.keep, "machine", "routed")).astype(object)
    n_machine = int(res.keep.sum())
    n_human = m - n_cal - n_machine
    effort = float(inp.l[selection == "routed"].sum())
    if res.max_calibration_errors == -1:
        notes.append(f"with {n_cal} calibration rows of {m} even a kept set with no calibration "
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
        "predicted_human_effort": effort, "method": METHOD, "guarantee": sentence,
        "annotator_error": float(annotator_error), "epsilon_annotators": eps_ann,
        "notes": notes, "selection": selection,
    }
