"""Final results of an evaluation round, with confidence intervals valid in finite samples.

Estimands, over all M rows: the share of each class c among the *true* labels (for example the
rate of unsafe responses; a human label counts as the truth), and the accuracy of the final
labels (the human label where a human labelled, the machine label elsewhere).

With L the labelled rows (calibration, routed and audit), A the audit rows and U the
``machine`` rows, the kept rows are K = A + U and the audit is a simple random sample of K
drawn without replacement. The point estimates are the difference estimators

    share_c  = ( sum_L 1[y = c] + sum_U 1[yhat = c] + |U| / |A| * sum_A (1[y = c] - 1[yhat = c]) ) / M
    accuracy = ( |L| + |U| * (1 - e_A / |A|) ) / M,            e_A = audit rows with yhat != y,

unbiased under the design (clipped, in the rare small group where it would leave the range
the labels make possible, to that range). Only the kept rows' part is random.

**Class shares.** The unknown is T_c = sum_K 1[y = c] = sum_K 1[yhat = c] + sum_K d_i with
d_i = 1[y = c] - 1[yhat = c] in {-1, 0, 1}. The interval is a normal interval for the mean of
d with the finite-population correction, computed from the audit's machine-versus-human table
after adding half a count to each of its K^2 cells (so an audit that never disagrees still
gives a positive variance, as Agresti and Caffo's adjustment does for a difference of
proportions):

    p+ = (#(yhat != c, y = c) + (K-1)/2) / n',  p- = (#(yhat = c, y != c) + (K-1)/2) / n',
    n' = |A| + K^2 / 2,   dbar = p+ - p-,   s^2 = p+ + p- - dbar^2,
    T_c in  sum_K 1[yhat = c] + N_K dbar  -/+  z N_K sqrt((1 - |A|/N_K) s^2 / |A|),

clipped to what the audit makes certain (between the audit's own count of c and that count
plus |U|). A plain normal interval on the unsmoothed audit covers as little as 18-49 % when
the machine is accurate and the audit small; this one is checked by simulation in
``bench/certify.py`` and in the tests (coverage >= 0.94 at 0.95 in every regime measured).
It is an approximation whose coverage is demonstrated, not an exact bound.

**Accuracy.** The number of errors E_K among the kept rows is a finite-population count and
e_A is hypergeometric given E_K, so the interval for E_K inverts two one-sided exact
hypergeometric tests at (1 - confidence) / 2 each (the finite-population Clopper-Pearson
interval); the errors left on U are E_K - e_A. This interval is exact: its coverage is at
least the confidence level for every population.

Without audit rows the intervals (and the accuracy) are null and the result says an audit is
needed; with no ``machine`` row every estimate is exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.errors import DataError, describe_rows
from core.evaluation.sampling.design import LABELLED, Design, coded_classes
from core.data.keys import label_key
from core.evaluation.sampling.audit import srs_half_width, srs_size_for_half_width, z_value
from core.evaluation.estimate.weighted_round import (ESTIMATE_KEYS, estimate_weighted_design,
                                             group_accuracy, group_values)

__all__ = ["CAL", "ROUTED", "AUDIT", "MACHINE", "UNDECIDED", "hypergeometric_interval",
           "share_interval", "estimate_codes", "check_selection", "estimate",
           "labels_outside_queue"]

#: Integer codes of the selections used by :func:`estimate_codes`.
CAL, ROUTED, AUDIT, MACHINE, UNDECIDED = 0, 1, 2, 3, -1


def hypergeometric_interval(x: int, n: int, N: int, *, confidence: float = 0.95) -> tuple[int, int]:
    """Exact two-sided interval for the number of successes in a finite population.

    Parameters
    ----------
    x : int
        Successes in a simple random sample of n rows drawn without replacement.
    n : int
        Sample size, 1 <= n <= N.
    N : int
        Population size.
    confidence : float in (0, 1)

    Returns
    -------
    (int, int)
        The smallest and largest count S of successes in the population not rejected by the
        one-sided tests P(X >= x | S) <= (1 - confidence) / 2 and
        P(X <= x | S) <= (1 - confidence) / 2 (X hypergeometric).
    """
    from scipy.stats import hypergeom

    if not (1 <= n <= N and 0 <= x <= n):
        raise ValueError(f"need 1 <= n <= N and 0 <= x <= n, got x={x}, n={n}, N={N}")
    tail = (1 - confidence) / 2
    lo_s, hi_s = x, N - (n - x)  # the population must hold the sample

    # upper: P(X <= x | S) decreases in S; largest S with P > tail (true at S = x)
    a, b = lo_s, hi_s
    while a < b:
        mid = (a + b + 1) // 2
        if hypergeom.cdf(x, N, mid, n) > tail:
            a = mid
        else:
            b = mid - 1
    upper = a
    # lower: P(X >= x | S) increases in S; smallest S with P > tail (true at S = hi_s)
    a, b = lo_s, hi_s
    while a < b:
        mid = (a + b) // 2
        if hypergeom.sf(x - 1, N, mid, n) > tail:
            b = mid
        else:
            a = mid + 1
    return int(a), int(upper)


def shares_within(raw: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The class shares nearest ``raw`` (least squares) that sum to 1 with ``lo <= x <= hi``.

    ``x = clip(raw - t, lo, hi)`` with the one ``t`` that makes the sum 1 (the sum falls as t
    grows; found by bisection to machine precision); ``raw`` itself when it is in range.
    Needs ``sum(lo) <= 1 <= sum(hi)`` (the labelled rows' counts, plus every kept row).
    """
    raw, lo, hi = (np.asarray(v, dtype=float) for v in (raw, lo, hi))
    if np.all(raw >= lo) and np.all(raw <= hi):
        return raw
    a, b = float((raw - hi).min()), float((raw - lo).max())  # sums >= 1 and <= 1
    for _ in range(200):
        mid = (a + b) / 2
        if mid in (a, b):
            break
        if np.clip(raw - mid, lo, hi).sum() > 1:
            a = mid
        else:
            b = mid
    return np.clip(raw - b, lo, hi)


def share_interval(table: np.ndarray, c: int, n_kept: int, *, confidence: float = 0.95
                   ) -> tuple[float, float]:
    """Interval for T_c, the count of true class c among the kept rows (see the module doc).

    Parameters
    ----------
    table : int array of shape (K, K)
        The audit's table: ``table[m, h]`` = audit rows with machine class m and human class h.
    c : int
        The class.
    n_kept : int
        N_K, the kept rows (audit included).
    confidence : float

    Returns
    -------
    (float, float)
        Bounds of the correction sum_K d_i (the caller adds sum_K 1[yhat = c] and clips).
    """
    table = np.asarray(table, dtype=float)
    k = table.shape[0]
    n = table.sum()
    plus = table[:, c].sum() - table[c, c]
    minus = table[c, :].sum() - table[c, c]
    n_s = n + k * k / 2
    p_plus = (plus + (k - 1) / 2) / n_s
    p_minus = (minus + (k - 1) / 2) / n_s
    dbar = p_plus - p_minus
    var = p_plus + p_minus - dbar ** 2
    se = n_kept * math.sqrt(max(0.0, 1 - n / n_kept) * var / n)
    z = z_value(confidence)
    return n_kept * dbar - z * se, n_kept * dbar + z * se


def _validate_codes(selection: np.ndarray, human: np.ndarray) -> None:
    undecided = np.flatnonzero(selection == UNDECIDED)
    if len(undecided):
        raise DataError(f"{len(undecided)} rows have no selection ({describe_rows(undecided)}); "
                        "plan them first (hmceval queue or hmceval certify)")
    for code, word in ((CAL, "calibration"), (ROUTED, "routed")):
        missing = np.flatnonzero((selection == code) & (human < 0))
        if len(missing):
            raise DataError(f"{len(missing)} {word} rows have no human label: "
                            f"{describe_rows(missing, limit=10)}; label them (or import their "
                            "labels) before estimating")


def estimate_codes(machine: np.ndarray, human: np.ndarray, selection: np.ndarray, *,
                   n_classes: int, confidence: float = 0.95) -> dict[str, Any]:
    """The estimates and intervals on integer-coded arrays.

    Parameters
    ----------
    machine : int array of shape (M,)
        Machine class codes 0..K-1.
    human : int array of shape (M,)
        Human class codes, -1 where no human label is given (read on labelled rows only).
    selection : int array of shape (M,)
        :data:`CAL`, :data:`ROUTED`, :data:`AUDIT`, :data:`MACHINE` (or :data:`UNDECIDED`,
        an error). Audit rows without a human label count as ``machine`` rows.
    n_classes : int
    confidence : float in (0, 1)

    Returns
    -------
    dict
        ``M``, ``n_calibration``, ``n_routed``, ``n_audit`` (labelled audit rows),
        ``n_machine`` (machine rows plus unlabelled audit rows), ``n_labelled``,
        ``class_shares`` (list over classes of dicts with ``estimate``, ``ci_low``,
        ``ci_high``, ``machine_only``, ``half_width``, ``random_half_width``,
        ``random_equivalent``), ``accuracy`` (``estimate``, ``ci_low``, ``ci_high``),
        ``audit_errors``, ``notes``.
    """
    machine = np.asarray(machine, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    selection = np.asarray(selection, dtype=np.int64)
    z_value(confidence)  # validates
    _validate_codes(selection, human)
    m = len(machine)
    has = human >= 0
    audit = (selection == AUDIT) & has
    unlabelled_audit = (selection == AUDIT) & ~has
    u = (selection == MACHINE) | unlabelled_audit
    known = (selection == CAL) | (selection == ROUTED)
    n_a, n_u = int(audit.sum()), int(u.sum())
    n_kept = n_a + n_u
    n_lab = int(known.sum()) + n_a
    notes: list[str] = []
    if unlabelled_audit.any():
        notes.append(f"{int(unlabelled_audit.sum())} audit rows have no human label yet and "
                     "count as machine rows (the labelled audit rows stay a random sample if "
                     "they were labelled in queue order)")
    k = n_classes
    table = np.bincount(machine[audit] * k + human[audit], minlength=k * k).reshape(k, k)
    known_counts = np.bincount(human[known], minlength=k)
    audit_counts = table.sum(axis=0)
    machine_u = np.bincount(machine[u], minlength=k)
    machine_kept = machine_u + table.sum(axis=1)
    machine_all = np.bincount(machine, minlength=k)
    exact = n_u == 0
    if n_a == 0 and not exact:
        notes.append("no audit rows are labelled: the machine's labels on the rows it keeps are "
                     "taken as they are (no correction) and no interval can be given; an audit "
                     "is needed")
    if not exact and n_a:
        # the difference estimators sum to 1 but can leave the range the labels make possible
        # in a small group (the audit's own count of c, plus at most |U|): brought back into
        # it jointly, so that the shares still sum to 1 (clipping each alone gave 1.058)
        raw = (known_counts + audit_counts + machine_u
               + n_u / n_a * (audit_counts - table.sum(axis=1))) / m
        fitted = shares_within(raw, (known_counts + audit_counts) / m,
                               (known_counts + audit_counts + n_u) / m)
    shares = []
    for c in range(k):
        if exact:
            est = (known_counts[c] + audit_counts[c]) / m
            lo = hi = est
        elif n_a == 0:
            est = (known_counts[c] + machine_u[c]) / m
            lo = hi = None
        else:
            est = float(fitted[c])
            d_lo, d_hi = share_interval(table, c, n_kept, confidence=confidence)
            t_lo = max(machine_kept[c] + d_lo, audit_counts[c])
            t_hi = min(machine_kept[c] + d_hi, audit_counts[c] + n_u)
            lo = min((known_counts[c] + t_lo) / m, est)
            hi = max((known_counts[c] + t_hi) / m, est)
        entry: dict[str, Any] = {"estimate": float(est),
                                 "ci_low": None if lo is None else float(lo),
                                 "ci_high": None if hi is None else float(hi),
                                 "machine_only": float(machine_all[c] / m)}
        half = None if lo is None else (hi - lo) / 2
        p = float(est)
        entry["half_width"] = None if half is None else float(half)
        entry["random_half_width"] = (srs_half_width(m, n_lab, p * (1 - p), confidence=confidence)
                                      if n_lab >= 1 else None)
        entry["random_equivalent"] = (None if half is None or p * (1 - p) == 0 else
                                      srs_size_for_half_width(m, p * (1 - p), half,
                                                              confidence=confidence))
        shares.append(entry)
    e_a = int(table.sum() - np.trace(table))
    if exact:
        acc = {"estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0}
    elif n_a == 0:
        acc = {"estimate": None, "ci_low": None, "ci_high": None}
    else:
        e_lo, e_hi = hypergeometric_interval(e_a, n_a, n_kept, confidence=confidence)
        acc = {"estimate": (n_lab + n_u * (1 - e_a / n_a)) / m,
               "ci_low": 1 - (e_hi - e_a) / m, "ci_high": 1 - (e_lo - e_a) / m}
    return {"M": m, "n_calibration": int((selection == CAL).sum()),
            "n_routed": int((selection == ROUTED).sum()), "n_audit": n_a, "n_machine": n_u,
            "n_labelled": n_lab, "class_shares": shares, "accuracy": acc,
            "audit_errors": e_a, "notes": notes}


_CODE = {"calibration": CAL, "routed": ROUTED, "audit": AUDIT, "machine": MACHINE, "": UNDECIDED}


def labels_outside_queue(design: Design) -> int:
    """Rows outside the round's queue (``machine`` or undecided) that carry a human label.

    Returned labels never land there (imports refuse them), so any such row means the human
    label column is a gold column filled before the round.
    """
    return int((design.has_label & ~np.isin(design.selection, LABELLED)).sum())


def gold_column_note(design: Design) -> str | None:
    """The note of a table whose human-label column also holds labels outside the round's
    queue (:func:`labels_outside_queue`), else None."""
    outside = labels_outside_queue(design)
    if not outside:
        return None
    return (f"column '{design.data.roles.get('human_label')}' (human label) also holds labels "
            f"on {outside:,} rows the round does not send to humans: it is a gold column, not "
            "labels returned by annotators; its labels on the calibration, routed and audit "
            "rows are read as if humans had returned them")


def check_selection(design: Design) -> None:
    """A DataError when the round's table ``design`` has no selection column (nothing says
    which rows humans labelled, so nothing can be estimated)."""
    if not design.has_selection:
        raise DataError("the table has no 'selection' column (calibration/routed/audit/machine "
                        "per row); plan the round first (Evaluate page, or hmceval queue / certify), "
                        "or map the column to the selection role (command line: --col "
                        "selection=NAME)")


def estimate(design: Design, *, groups: list[str] | None = None,
             confidence: float = 0.95) -> dict[str, Any]:
    """The ``hmceval estimate --json`` object of one table.

    Parameters
    ----------
    design : Design
        Needs a selection column; human labels on every calibration and routed row.
    groups : list of str, optional
        Columns of the table to break the estimates down by (each value's rows get the same
        estimators: within a group the audit is still a simple random sample of its kept rows).
    confidence : float in (0, 1), default=0.95

    Returns
    -------
    dict
        Keys :data:`ESTIMATE_KEYS`, then ``n_labelled``, ``audit_errors``, ``notes`` (with one
        sentence per group significantly worse than the rest), ``design`` (``"routing"``
        here; a table with inclusion probabilities is estimated by
        :func:`core.evaluation.estimate.weighted_round.estimate_weighted_design`) and ``worse_groups``.
        ``class_shares`` maps each class (as written in the file) to ``estimate``, ``ci_low``,
        ``ci_high``, ``machine_only``, ``half_width``, ``random_half_width`` (the half-width
        the same number of labels drawn at random would give) and ``random_equivalent``;
        ``random_equivalent`` maps each class to how many labels drawn at random would give
        the same interval width; ``by_group`` maps column -> value -> the same object.
    """
    check_selection(design)
    if design.inclusion is not None:
        return estimate_weighted_design(design, groups=groups, confidence=confidence)
    sel_words = design.selection
    labels, mach = coded_classes(design.machine_label, {
        v for v, w in zip(design.human_label, sel_words) if v is not None and w in LABELLED})
    index = {v: i for i, v in enumerate(labels)}
    hum_obj = design.human_label
    sel = np.fromiter((_CODE[v] for v in design.selection), dtype=np.int64, count=design.M)
    labelled_sel = np.isin(sel, [CAL, ROUTED, AUDIT])
    hum = np.full(design.M, -1, dtype=np.int64)
    for i in np.flatnonzero(labelled_sel):
        v = hum_obj[i]
        if v is not None:
            hum[i] = index[v]
    if "human_label" not in design.data.frame and labelled_sel.any() \
            and not design.has_label.any():
        raise DataError("no human label column: map a column to the human_label role (command "
                        "line: --col human_label=NAME); labels are read on calibration, routed "
                        "and audit rows")
    keys = [label_key(v, strip=False) for v in labels]

    def one(mask: np.ndarray) -> dict[str, Any]:
        r = estimate_codes(mach[mask], hum[mask], sel[mask], n_classes=len(labels),
                           confidence=confidence)
        shares = {key: s for key, s in zip(keys, r["class_shares"])}
        return {"M": r["M"], "n_calibration": r["n_calibration"], "n_routed": r["n_routed"],
                "n_audit": r["n_audit"], "n_machine": r["n_machine"], "confidence": confidence,
                "class_shares": shares, "accuracy": r["accuracy"],
                "random_equivalent": {key: s["random_equivalent"] for key, s in shares.items()},
                "n_labelled": r["n_labelled"], "audit_errors": r["audit_errors"],
                "notes": r["notes"]}

    out = one(np.ones(design.M, dtype=bool))
    gold = gold_column_note(design)
    if gold is not None:
        out["notes"] = out["notes"] + [gold]
    by_group: dict[str, Any] = {}
    for col in groups or []:
        values, uniq = group_values(design, col)
        by_group[col] = {}
        for v in uniq:
            mask = (values == v).to_numpy()
            by_group[col][label_key(v, strip=False)] = one(mask)
    out["by_group"] = by_group
    worse: list[dict[str, Any]] = []
    if groups and out["n_audit"]:
        _, worse, wnotes = group_accuracy(design, groups, confidence=confidence)
        out["notes"] = out["notes"] + wnotes
    ordered = {k: out[k] for k in ESTIMATE_KEYS}
    ordered.update({k: out[k] for k in ("n_labelled", "audit_errors", "notes")})
    ordered.update({"design": "routing", "worse_groups": worse})
    return ordered

