"""Guarantee mode: certify that the machine's error rate on the rows it keeps is at most alpha.

The procedure (fixed-sequence testing with one-sided Clopper-Pearson bounds, as "Trust or
Escalate", Jung et al., ICLR 2025, with HMCEval's effort-aware ranking):

1. gains g_i = (b_i - lam l_i) - (a_i - lam k_i) for all M rows (lam = 0 ranks by confidence
   alone). The calibration rows are those marked ``calibration`` that carry a human label
   (without a selection column: every row with a human label).
2. A grid fixed by the machine's scores only: for j = 1..100, t_j is the
   ((j M + 99) // 100)-th smallest gain over all M rows (the machine would keep about j % of
   the rows).
3. n_req = ceil(ln(delta) / ln(1 - alpha)), the fewest calibration rows with which a
   zero-error bound can reach alpha. For j = 1, 2, ...: S_j = calibration rows with
   g <= t_j, n_j = |S_j|; j is skipped while n_j < n_req; e_j = rows of S_j where the machine
   label differs from the human one; U_j = the one-sided Clopper-Pearson upper bound at
   confidence 1 - delta (1 when e_j = n_j, else the 1 - delta quantile of
   Beta(e_j + 1, n_j - e_j)). If U_j <= alpha, j is accepted and the next j tested; otherwise
   testing stops.
4. t = t_j of the last accepted j (none accepted: the machine keeps nothing). Rows outside the
   calibration sample with g <= t are kept by the machine (``machine``), the others ``routed``.

Why it holds: the thresholds are fixed before any label is seen and are tested in a fixed
order, each at level delta, so the probability that any accepted threshold has a true error
rate above alpha is at most delta (fixed-sequence testing needs no multiplicity correction).
The bound is on the error rate among the rows with g <= t in the population the calibration
sample was drawn from; ``bench/certify.py`` checks the violation rate by simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.errors import DataError
from core.evaluation.design import Design
from core.sae import gains

__all__ = ["GRID_SIZE", "required_calibration", "clopper_pearson_upper", "threshold_grid",
           "CertifyResult", "certify_arrays", "certify", "CERTIFY_KEYS", "calibration_errors"]

#: Number of thresholds tested (kept shares 1 %, 2 %, ..., 100 %).
GRID_SIZE = 100

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


def required_calibration(alpha: float, delta: float) -> int:
    """n_req = ceil(ln(delta) / ln(1 - alpha)): the fewest rows whose bound can reach alpha.

    With no error among n rows the one-sided Clopper-Pearson bound is 1 - delta^(1/n), which is
    at most alpha exactly when n >= ln(delta) / ln(1 - alpha).
    """
    _check_levels(alpha, delta)
    return int(math.ceil(math.log(delta) / math.log(1 - alpha)))


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
        t, or None when no grid point was accepted.
    j : int or None
        Index (1..100) of the accepted grid point.
    keep : bool array of shape (M,)
        Rows the machine keeps (g <= t and not calibration).
    calibration : bool array of shape (M,)
    n_required : int
    risk_upper_bound : float or None
        U at t.
    calibration_kept, calibration_kept_errors : int
        n_j and e_j at t (0 when nothing was accepted).
    steps : pandas.DataFrame
        One row per grid point: ``j``, ``threshold``, ``n``, ``errors``, ``upper_bound``
        (NaN where skipped or not tested), ``status`` (``skipped``, ``accepted``,
        ``rejected``, ``not tested``).
    """

    threshold: float | None
    j: int | None
    keep: np.ndarray
    calibration: np.ndarray
    n_required: int
    risk_upper_bound: float | None
    calibration_kept: int
    calibration_kept_errors: int
    steps: pd.DataFrame


def certify_arrays(g: np.ndarray, calibration: np.ndarray, errors: np.ndarray, *, alpha: float,
                   delta: float) -> CertifyResult:
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

    Returns
    -------
    CertifyResult
    """
    g = np.asarray(g, dtype=float)
    cal = np.asarray(calibration, dtype=bool)
    err = np.asarray(errors, dtype=bool)
    n_req = required_calibration(alpha, delta)
    if not cal.any():
        raise DataError("no calibration row: certify needs human labels on a simple random "
                        "sample of the rows (selection 'calibration'; draw one with "
                        "hmceval queue --calibration N)")
    grid = threshold_grid(g)
    order = np.argsort(g[cal], kind="stable")
    cg = g[cal][order]
    cum = np.concatenate([[0], np.cumsum(err[cal][order])])
    n_j = np.searchsorted(cg, grid, side="right")
    e_j = cum[n_j]
    upper = np.full(GRID_SIZE, np.nan)
    status = np.full(GRID_SIZE, "not tested", dtype=object)
    last = None
    for j in range(GRID_SIZE):
        if n_j[j] < n_req:
            status[j] = "skipped"
            continue
        upper[j] = clopper_pearson_upper(int(e_j[j]), int(n_j[j]), delta)
        if upper[j] <= alpha:
            status[j] = "accepted"
            last = j
        else:
            status[j] = "rejected"
            break
    steps = pd.DataFrame({"j": np.arange(1, GRID_SIZE + 1), "threshold": grid, "n": n_j,
                          "errors": e_j, "upper_bound": upper, "status": status})
    if last is None:
        return CertifyResult(threshold=None, j=None, keep=np.zeros(len(g), dtype=bool),
                             calibration=cal, n_required=n_req, risk_upper_bound=None,
                             calibration_kept=0, calibration_kept_errors=0, steps=steps)
    t = float(grid[last])
    return CertifyResult(threshold=t, j=last + 1, keep=(g <= t) & ~cal, calibration=cal,
                         n_required=n_req, risk_upper_bound=float(upper[last]),
                         calibration_kept=int(n_j[last]), calibration_kept_errors=int(e_j[last]),
                         steps=steps)


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


def certify(design: Design, *, alpha: float, delta: float, lam: float = 0.0) -> dict:
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

    Returns
    -------
    dict
        Keys :data:`CERTIFY_KEYS`, then ``n_required``, ``notes`` (list of str), and the
        non-JSON entries ``selection`` (array of shape (M,)) and ``steps`` (DataFrame).
    """
    _check_levels(alpha, delta)
    if not isinstance(lam, (int, float, np.floating)) or not math.isfinite(lam) or lam < 0:
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    inp = design.inputs()
    m = design.M
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    cal, err, notes = calibration_errors(design)
    res = certify_arrays(g, cal, err, alpha=alpha, delta=delta)
    n_cal = int(cal.sum())
    selection = np.where(cal, "calibration", np.where(res.keep, "machine", "routed")).astype(object)
    n_machine = int(res.keep.sum())
    n_human = m - n_cal - n_machine
    routed = selection == "routed"
    effort = float(inp.l[routed].sum())
    rest = m - n_cal
    share = n_machine / rest if rest else None
    if n_cal < res.n_required:
        notes.append(f"{n_cal} calibration rows are fewer than the {res.n_required} needed for "
                     f"any bound to reach alpha = {alpha:g} at delta = {delta:g}: nothing can "
                     "be certified; label a larger calibration sample")
    if res.threshold is None:
        sentence = (f"Nothing could be certified: on the {n_cal} calibration rows no kept share "
                    f"of the grid reached an error bound of at most {alpha:.1%} with "
                    f"{1 - delta:.0%} confidence, so every one of the {rest:,} other rows goes "
                    "to humans.")
        if lam > 0 and n_cal >= res.n_required:
            notes.append("with lambda > 0 the ranking puts cheap rows first whatever the "
                         "machine's confidence, so errors come early in the ranking; try "
                         "lambda = 0")
    else:
        sentence = (f"With probability at least {1 - delta:.0%} over the random calibration "
                    f"sample, the machine's labels disagree with human labels on at most "
                    f"{alpha:.1%} of the rows it keeps: {n_machine:,} of the {rest:,} rows "
                    f"outside the calibration sample ({count_share(n_machine, rest)}) need no human, "
                    f"{n_human:,} go to humans.")
    out = {
        "alpha": float(alpha), "delta": float(delta), "lambda": float(lam), "M": m,
        "n_calibration": n_cal, "threshold": res.threshold,
        "kept_share_grid": None if res.j is None else res.j / 100,
        "n_machine": n_machine, "n_human": n_human, "machine_share": share,
        "risk_upper_bound": res.risk_upper_bound, "calibration_kept": res.calibration_kept,
        "calibration_kept_errors": res.calibration_kept_errors,
        "predicted_human_effort": effort, "guarantee": sentence,
        "n_required": res.n_required, "notes": notes,
        "selection": selection, "steps": res.steps,
    }
    return out
