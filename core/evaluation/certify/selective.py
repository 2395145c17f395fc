"""Guarantee mode: certify that the machine's error rate on the rows it keeps is at most alpha.

The procedure (fixed-sequence testing with one-sided Clopper-Pearson bounds, as "Trust or
Escalate", Jung et al., ICLR 2025, with HMCEval's effort-aware ranking and a start where the
test has power):

1. gains g_i = (b_i - lam l_i) - (a_i - lam k_i) for all M rows (lam = 0 ranks by confidence
   alone). The calibration rows are those marked ``calibration`` that carry a human label
   (without a selection column: every row with a human label); n of them.
2. The thresholds are the distinct values t_1 < t_2 < ... of g over all M rows (ties are kept
   together: a threshold keeps every row with g <= t). F_j = share of the M rows with
   g <= t_j. Both depend on the machine's scores only.
3. The start (:func:`start_calibration`): n_start = the fewest rows with which the bound
   reaches alpha when the observed error rate is f alpha, for the largest f in (3/4, 2/3, 1/2,
   1/3) with n_start <= n / 2 (else n_req = ceil(ln(delta) / ln(1 - alpha)), the fewest rows
   with which a zero-error bound reaches alpha). Testing starts at the first j with
   n F_j >= n_start and n_j >= n_req (step 4): where the test can pass, so one early error
   among the most confident rows does not end it. n_start depends on alpha, delta and n only,
   the start on the scores (never on a label).
4. From the start j = j0, j0 + 1, ...: S_j = calibration rows with g <= t_j, n_j = |S_j|,
   e_j = rows of S_j where the machine label differs from the human one; U_j = the one-sided
   Clopper-Pearson upper bound at confidence 1 - delta (1 when e_j = n_j or n_j = 0, else the
   1 - delta quantile of Beta(e_j + 1, n_j - e_j)). If U_j <= alpha, j is accepted and the next
   j tested; otherwise testing stops.
5. t = t_j of the last accepted j (none accepted: the machine keeps nothing). Rows outside the
   calibration sample with g <= t are kept by the machine (``machine``), the others ``routed``.

Why it holds: the thresholds and their order (start included) are fixed before any label is
seen, from the scores, alpha, delta and n, and each is tested at level delta, so the
probability that any accepted threshold has a true error rate above alpha is at most delta:
fixed-sequence testing needs no multiplicity correction (a violation needs the first threshold
in the order whose error rate exceeds alpha to be accepted, one test at level delta). The bound
is on the error rate among the rows with g <= t in the population the calibration sample was
drawn from (the machine's labels against the annotators' labels: the guarantee is relative to
them); ``bench/certify.py`` checks the violation rate by simulation and compares the earlier
variants (a 1 % grid of kept shares from n_req; other starts; several starts with a Bonferroni
correction), which kept less in every regime.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.errors import DataError
from core.evaluation.sampling.design import Design
from core.assignment import gains

__all__ = ["GRID_SIZE", "START_FRACTIONS", "required_calibration", "start_calibration", "clopper_pearson_upper", "threshold_grid",
           "CertifyResult", "certify_arrays", "certify", "CERTIFY_KEYS", "calibration_errors",
           "certified_selection",
           "annotator_margin"]

#: Number of points of :func:`threshold_grid` (kept shares 1 %, 2 %, ..., 100 %; the former
#: thresholds, kept for comparison in ``bench/certify.py``).
GRID_SIZE = 100

#: Observed error rates (as fractions of alpha) at which the first test should pass, tried in
#: this order (step 3 of the module docstring).
START_FRACTIONS = (3 / 4, 2 / 3, 1 / 2, 1 / 3)

#: Keys of ``hmceval certify --json`` (stable contract), in order.
CERTIFY_KEYS = ("alpha", "delta", "lambda", "M", "n_calibration", "threshold", "kept_share_grid",
                "n_machine", "n_human", "machine_share", "risk_upper_bound", "calibration_kept",
                "calibration_kept_errors", "predicted_human_effort", "guarantee")



def count_share(part: int, whole: int, digits: int = 1) -> str:
    """``part / whole`` as a percentage rounded half up from the exact fraction: 1,111 of
    2,000 reads 55.6% (``f"{0.5555:.1%}"`` gives 55.5%, the float being just below)."""
    from decimal import ROUND_HALF_UP, Decimal

    if whole == 0:
        return "n/a"
    value = (Decimal(int(part)) * 100 / Decimal(int(whole))).quantize(Decimal(1).scaleb(-digits),
                                                                     rounding=ROUND_HALF_UP)
    return f"{value}%"

def _check_levels(alpha: float, delta: float) -> None:
    for name, v in (("alpha", alpha), ("delta", delta)):
        if not isinstance(v, (int, float, np.floating)) or not math.isfinite(v) or not 0 < v < 1:
            raise DataError(f"{name} must be a number strictly between 0 and 1, got {v}")


#: Thresholds whose bounds are computed at once in :func:`certify_arrays`.
_BOUND_BLOCK = 1 << 14

#: The largest count :func:`required_calibration` returns (more rows than any table holds).
MAX_REQUIRED = 10**15


def required_calibration(alpha: float, delta: float) -> int:
    """n_req = ceil(ln(delta) / ln(1 - alpha)): the fewest rows whose bound can reach alpha.

    With no error among n rows the one-sided Clopper-Pearson bound is 1 - delta^(1/n), which is
    at most alpha exactly when n >= ln(delta) / ln(1 - alpha).
    """
    _check_levels(alpha, delta)
    # log1p: 1 - alpha is 1.0 for alpha below 1e-16 (--alpha 1e-320 divided by zero); a count
    # beyond any table is capped (a ceil of inf overflowed)
    n = math.log(delta) / math.log1p(-alpha)
    return int(math.ceil(n)) if n < MAX_REQUIRED else MAX_REQUIRED


def start_calibration(alpha: float, delta: float, n: int) -> int:
    """n_start: calibration rows below the first tested threshold (step 3 of the docstring).

    For f in :data:`START_FRACTIONS`, the smallest m with U(floor(f alpha m), m) <= alpha (the
    bound passes when the observed error rate is f alpha); the first such m <= n / 2, else
    :func:`required_calibration`.
    """
    from scipy.stats import beta

    n_req = required_calibration(alpha, delta)
    sizes = np.arange(1, max(int(n) // 2, 0) + 1)
    for f in START_FRACTIONS:
        e = np.floor(f * alpha * sizes + 1e-12)
        ok = (e < sizes) & (beta.ppf(1 - delta, e + 1, np.maximum(sizes - e, 1)) <= alpha)
        if ok.any():
            return max(int(sizes[np.argmax(ok)]), n_req)
    return n_req


def clopper_pearson_upper(errors: int, n: int, delta: float) -> float:
    """One-sided Clopper-Pearson upper bound of a binomial proportion at confidence 1 - delta.

    Parameters
    ----------
    errors : int
        Observed errors e, 0 <= e <= n.
    n : int
        Trials, n >= 1.
    delta : float in (0, 1)

    Returns
    -------
    float
        1 when e = n, else the 1 - delta quantile of Beta(e + 1, n - e).
    """
    from scipy.stats import beta

    if n < 1 or not 0 <= errors <= n:
        raise ValueError(f"need 0 <= errors <= n and n >= 1, got errors={errors}, n={n}")
    if errors == n:
        return 1.0
    return float(beta.ppf(1 - delta, errors + 1, n - errors))


def threshold_grid(g: np.ndarray, *, size: int = GRID_SIZE) -> np.ndarray:
    """t_j = the ((j M + size - 1) // size)-th smallest gain, j = 1..size.

    Returns
    -------
    numpy.ndarray of shape (size,)
    """
    g = np.asarray(g, dtype=float)
    m = len(g)
    if m == 0:
        raise DataError("the table has no rows")
    pos = (np.arange(1, size + 1) * m + size - 1) // size  # 1-based ranks
    return np.sort(g, kind="stable")[pos - 1]


@dataclass(frozen=True)
class CertifyResult:
    """The outcome of :func:`certify_arrays`.

    Attributes
    ----------
    threshold : float or None
        t, or None when no threshold was accepted.
    j : int or None
        Index (1-based) of the accepted threshold among the distinct gains.
    keep : bool array of shape (M,)
        Rows the machine keeps (g <= t and not calibration).
    calibration : bool array of shape (M,)
    n_required : int
    risk_upper_bound : float or None
        U at t.
    calibration_kept, calibration_kept_errors : int
        n_j and e_j at t (0 when nothing was accepted).
    steps : pandas.DataFrame
        One row per distinct gain: ``j``, ``threshold``, ``kept_share`` (F_j), ``n``,
        ``errors``, ``upper_bound`` (NaN where skipped or not tested), ``status``
        (``skipped``, ``accepted``, ``rejected``, ``not tested``).
    n_start : int
        Calibration rows expected below the first tested threshold (step 3).
    kept_share : float or None
        F_j at t: the share of all M rows with g <= t.
    """

    threshold: float | None
    j: int | None
    keep: np.ndarray
    calibration: np.ndarray
    n_required: int
    risk_upper_bound: float | None
    calibration_kept: int
    calibration_kept_errors: int
    steps: pd.DataFrame | None
    n_start: int = 0
    kept_share: float | None = None


def certify_arrays(g: np.ndarray, calibration: np.ndarray, errors: np.ndarray, *, alpha: float,
                   delta: float, steps: bool = True) -> CertifyResult:
    """The certification procedure on arrays (see the module docstring).

    Parameters
    ----------
    g : array of shape (M,)
        Gains of all rows.
    calibration : bool array of shape (M,)
        Calibration rows (a simple random sample, human-labelled).
    errors : bool array of shape (M,)
        Machine label differs from the human label (read on calibration rows only).
    alpha, delta : float in (0, 1)
    steps : bool, default=True
        False: ``steps`` of the result is None (one row per distinct gain, up to M rows of
        seven columns: the large-table path, which prints the certificate, leaves it out).

    Returns
    -------
    CertifyResult
        ``j`` indexes the distinct gains (1-based), ``steps`` has one row per distinct gain.
    """
    from scipy.stats import beta

    g = np.asarray(g, dtype=float)
    cal = np.asarray(calibration, dtype=bool)
    err = np.asarray(errors, dtype=bool)
    n_req = required_calibration(alpha, delta)
    if not cal.any():
        raise DataError("no calibration row: certify needs human labels on a simple random "
                        "sample of the rows (selection 'calibration'; draw one with "
                        "hmceval queue --calibration N)")
    n_cal = int(cal.sum())
    n_start = start_calibration(alpha, delta, n_cal)
    sorted_g = np.sort(g, kind="stable")
    order = np.argsort(g[cal], kind="stable")
    cg = g[cal][order]
    cum = np.concatenate([[0], np.cumsum(err[cal][order])])
    if not steps:
        return _lean_certify(g, cal, sorted_g, cg, cum, n_req=n_req, n_start=n_start,
                             alpha=alpha, delta=delta)
    grid = np.unique(sorted_g)
    share = np.searchsorted(sorted_g, grid, side="right") / len(g)
    n_j = np.searchsorted(cg, grid, side="right")
    e_j = cum[n_j]
    size = len(grid)
    upper = np.full(size, np.nan)
    status = np.full(size, "not tested", dtype=object)
    first = np.flatnonzero((share * n_cal >= n_start - 1e-9) & (n_j >= n_req))
    j0 = int(first[0]) if len(first) else size
    status[:j0] = "skipped"
    last = None
    if j0 < size:
        n, e = n_j[j0:], e_j[j0:]
        u = np.ones(len(n))
        stop = len(u)
        # the bounds block by block, up to the first above alpha (the test stops there): one
        # quantile per tested threshold, not one per distinct gain of all M rows
        for lo in range(0, len(u), _BOUND_BLOCK):
            hi = min(lo + _BOUND_BLOCK, len(u))
            nb, eb = n[lo:hi], e[lo:hi]
            ok = (eb < nb) & (nb > 0)
            u[lo:hi][ok] = beta.ppf(1 - delta, eb[ok] + 1, nb[ok] - eb[ok])
            bad = np.flatnonzero(u[lo:hi] > alpha)
            if len(bad):
                stop = lo + int(bad[0])
                break
        upper[j0:j0 + min(stop + 1, len(u))] = u[:stop + 1]
        status[j0:j0 + stop] = "accepted"
        if stop < len(u):
            status[j0 + stop] = "rejected"
        if stop:
            last = j0 + stop - 1
    steps = None if not steps else pd.DataFrame({
        "j": np.arange(1, size + 1), "threshold": grid, "kept_share": share, "n": n_j,
        "errors": e_j, "upper_bound": upper, "status": status})
    if last is None:
        return CertifyResult(threshold=None, j=None, keep=np.zeros(len(g), dtype=bool),
                             calibration=cal, n_required=n_req, risk_upper_bound=None,
                             calibration_kept=0, calibration_kept_errors=0, steps=steps,
                             n_start=n_start, kept_share=None)
    t = float(grid[last])
    return CertifyResult(threshold=t, j=last + 1, keep=(g <= t) & ~cal, calibration=cal,
                         n_required=n_req, risk_upper_bound=float(upper[last]),
                         calibration_kept=int(n_j[last]), calibration_kept_errors=int(e_j[last]),
                         steps=steps, n_start=n_start, kept_share=float(share[last]))


def _lean_certify(g: np.ndarray, cal: np.ndarray, sorted_g: np.ndarray, cg: np.ndarray,
                  cum: np.ndarray, *, n_req: int, n_start: int, alpha: float,
                  delta: float) -> CertifyResult:
    """:func:`certify_arrays` without its steps: the same tests, element by element, on the
    distinct gains of each block of the sorted gains, stopping at the first rejected one (the
    sorted gains and arrays of a block, not the steps' seven columns of M numbers)."""
    from scipy.stats import beta

    m, n_cal = len(g), int(cal.sum())
    started, found = False, None
    before, prev = 0, None  # distinct gains before the block, the last gain seen
    for lo in range(0, m, _BOUND_BLOCK):
        block = sorted_g[lo:lo + _BOUND_BLOCK]
        new = np.empty(len(block), dtype=bool)  # the block's distinct gains (np.unique's)
        new[0] = prev is None or block[0] != prev
        np.not_equal(block[1:], block[:-1], out=new[1:])
        gb, prev = block[new], block[-1]
        if not len(gb):
            continue
        share = np.searchsorted(sorted_g, gb, side="right") / m
        n_j = np.searchsorted(cg, gb, side="right")
        e_j = cum[n_j]
        k = 0
        if not started:  # both conditions grow with j: the first j meeting them starts
            first = np.flatnonzero((share * n_cal >= n_start - 1e-9) & (n_j >= n_req))
            if not len(first):
                before += len(gb)
                continue
            started, k = True, int(first[0])
        n, e = n_j[k:], e_j[k:]
        ok = (e < n) & (n > 0)
        u = np.ones(len(n))
        u[ok] = beta.ppf(1 - delta, e[ok] + 1, n[ok] - e[ok])
        bad = np.flatnonzero(u > alpha)
        stop = int(bad[0]) if len(bad) else len(u)
        if stop:
            i = k + stop - 1
            found = (before + i, float(gb[i]), float(u[stop - 1]), int(n_j[i]), int(e_j[i]),
                     float(share[i]))
        if len(bad):
            break
        before += len(gb)
    if found is None:
        return CertifyResult(threshold=None, j=None, keep=np.zeros(m, dtype=bool),
                             calibration=cal, n_required=n_req, risk_upper_bound=None,
                             calibration_kept=0, calibration_kept_errors=0, steps=None,
                             n_start=n_start, kept_share=None)
    last, t, upper, n_last, e_last, share_last = found
    return CertifyResult(threshold=t, j=last + 1, keep=(g <= t) & ~cal, calibration=cal,
                         n_required=n_req, risk_upper_bound=upper, calibration_kept=n_last,
                         calibration_kept_errors=e_last, steps=None, n_start=n_start,
                         kept_share=share_last)


def certified_selection(calibration: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The certified rows' selection: ``calibration``, ``machine`` (kept) or ``routed``, as
    an object array of shape (M,) taken from a one-byte code (9 bytes a row at the peak:
    ``np.where`` of the words made two unicode arrays of 44 bytes a row first, and
    ``np.full`` of an object array 63)."""
    code = np.asarray(keep, dtype=bool).astype(np.int8)
    code[np.asarray(calibration, dtype=bool)] = 2
    return np.array(["routed", "machine", "calibration"], dtype=object)[code]


def calibration_errors(design: Design) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The calibration rows of a round, the machine's errors on them, and notes.

    Calibration rows: ``selection == "calibration"`` with a human label (without a selection
    column: every row with a human label). Returns ``(calibration, errors, notes)``: two bool
    arrays of shape (M,) (errors False outside the calibration rows) and a list of str.
    """
    has = design.has_label
    notes: list[str] = []
    if design.has_selection:
        cal = (design.selection == "calibration") & has
        unlabelled = int(((design.selection == "calibration") & ~has).sum())
        if unlabelled:
            notes.append(f"{unlabelled} calibration rows have no human label yet; they are "
                         "treated as ordinary rows (the labelled ones stay a random sample only "
                         "if they were labelled in queue order)")
    else:
        cal = has.copy()
    mach = design.machine_label
    err = np.zeros(design.M, dtype=bool)
    idx = np.flatnonzero(cal)
    err[idx] = [mach[i] != design.human_label[i] for i in idx]
    return cal, err, notes


def annotator_margin(level: float, annotator_error: float, name: str) -> float:
    """The level to certify against the annotators' labels so that ``level`` holds against
    the truth, when the annotators' error rate is at most ``annotator_error``.

    Row by row, 1[machine != truth] <= 1[machine != annotator] + 1[annotator != truth]. So if
    the annotators' labels differ from the truth on at most a share eta of any set of rows
    (eta: a known or measured rate, e.g. from double-labelled or gold items), an error rate of
    at most ``level - eta`` against the annotators' labels is at most ``level`` against the
    truth (on the kept rows; and for the overall error of the final labels, whose human part
    carries the annotators' own errors too).

    Returns
    -------
    float
        ``level - annotator_error``.

    Raises
    ------
    DataError
        ``annotator_error`` outside [0, 1) or not below ``level``.
    """
    if not isinstance(annotator_error, (int, float, np.floating)) \
            or not math.isfinite(annotator_error) or not 0 <= annotator_error < 1:
        raise DataError(f"the annotators' error rate must be a number in [0, 1), got "
                        f"{annotator_error}")
    if annotator_error >= level:
        raise DataError(f"the annotators' error rate {annotator_error:g} is not below {name} "
                        f"= {level:g}: no error bound against the truth can reach {name}; "
                        "lower the annotators' error (adjudicate, double-label) or raise "
                        f"{name}")
    return float(level - annotator_error)


def certify(design: Design, *, alpha: float, delta: float, lam: float = 0.0,
            annotator_error: float = 0.0, steps: bool = True) -> dict:
    """Certify a round's table: the ``hmceval certify --json`` object plus the new selection.

    Parameters
    ----------
    design : Design
        Calibration rows: ``selection == "calibration"`` with a human label; without a
        selection column, every row with a human label.
    alpha : float in (0, 1)
        Largest error rate of the machine on the rows it keeps.
    delta : float in (0, 1)
        Allowed probability that the statement is wrong.
    lam : float >= 0, default=0
        Effort weight of the ranking.
    annotator_error : float in [0, alpha), default=0
        A known or measured upper bound on the annotators' error rate: with it the guarantee
        holds against the truth, not only against the annotators' labels
        (:func:`annotator_margin`: the rows are certified at alpha - annotator_error). With 0
        the guarantee is relative to the annotators' labels.
    steps : bool, default=True
        False: the result's ``steps`` is None (:func:`certify_arrays`).

    Returns
    -------
    dict
        Keys :data:`CERTIFY_KEYS`, then ``n_required``, ``n_start``, ``annotator_error``,
        ``alpha_annotators`` (the level certified against the annotators' labels), ``notes`` (list of str), and the
        non-JSON entries ``selection`` (array of shape (M,)) and ``steps`` (DataFrame).
    """
    _check_levels(alpha, delta)
    if not isinstance(lam, (int, float, np.floating)) or not math.isfinite(lam) or lam < 0:
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    alpha_ann = annotator_margin(alpha, annotator_error, "alpha")
    inp = design.inputs()
    m = design.M
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    cal, err, notes = calibration_errors(design)
    pi = getattr(design, "inclusion", None)
    if pi is not None and cal.any() and np.ptp(np.asarray(pi, dtype=float)[cal]) > 1e-9:
        raise DataError("inclusion_probability: the calibration rows were drawn with unequal "
                        "probabilities (hmceval queue --calibration --design active); the "
                        "selective guarantee (--alpha) needs a simple random calibration "
                        "sample: certify the overall error instead (--overall-error EPS), or "
                        "draw the calibration sample with --design routing")
    res = certify_arrays(g, cal, err, alpha=alpha_ann, delta=delta, steps=steps)
    n_cal = int(cal.sum())
    selection = certified_selection(cal, res.keep)
    n_machine = int(res.keep.sum())
    n_human = m - n_cal - n_machine
    routed = selection == "routed"
    effort = float(inp.l[routed].sum())
    rest = m - n_cal
    share = n_machine / rest if rest else None
    if n_cal < res.n_required:
        notes.append(f"{n_cal:,} calibration rows are fewer than the {res.n_required:,} needed for "
                     f"any bound to reach alpha = {alpha:g} at delta = {delta:g}: nothing can "
                     "be certified; label a larger calibration sample")
    if res.threshold is None:
        sentence = (f"Nothing could be certified: on the {n_cal:,} calibration rows no tested "
                    f"threshold of the score reached an error bound of at most {alpha:.1%} with "
                    f"{1 - delta:.0%} confidence, so every one of the {rest:,} other rows goes "
                    "to humans.")
        if lam > 0 and n_cal >= res.n_required:
            notes.append("with lambda > 0 the ranking puts cheap rows first whatever the "
                         "machine's confidence, so errors come early in the ranking; try "
                         "lambda = 0")
    else:
        against = ("human labels" if not annotator_error else
                   f"the truth (the annotators being wrong on at most {annotator_error:.1%})")
        sentence = (f"With probability at least {1 - delta:.0%} over the random calibration "
                    f"sample, the machine's labels disagree with {against} on at most "
                    f"{alpha:.1%} of the rows it keeps: {n_machine:,} of the {rest:,} rows "
                    f"outside the calibration sample ({count_share(n_machine, rest)}) need no human, "
                    f"{n_human:,} go to humans.")
    out = {
        "alpha": float(alpha), "delta": float(delta), "lambda": float(lam), "M": m,
        "n_calibration": n_cal, "threshold": res.threshold,
        "kept_share_grid": res.kept_share,
        "n_machine": n_machine, "n_human": n_human, "machine_share": share,
        "risk_upper_bound": res.risk_upper_bound, "calibration_kept": res.calibration_kept,
        "calibration_kept_errors": res.calibration_kept_errors,
        "predicted_human_effort": effort, "guarantee": sentence,
        "n_required": res.n_required, "n_start": res.n_start,
        "annotator_error": float(annotator_error), "alpha_annotators": alpha_ann,
        "notes": notes,
        "selection": selection, "steps": res.steps,
    }
    return out
