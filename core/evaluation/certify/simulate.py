"""Repeat evaluation rounds on data whose truth is known: coverage and violation rates.

A table with gold labels on every row stands in for the truth; each simulated round hides the
gold labels except on the rows the design selects (routed, audit, calibration), runs the same
estimators and procedures the product runs (:func:`core.evaluation.estimate.shares.estimate_codes`,
:func:`core.evaluation.certify.selective.certify_arrays`) and compares them with the truth. This is
how ``bench/certify.py``, the tests and the app's validity panel show that the intervals cover
and the guarantee holds, rather than arguing it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.errors import DataError
from core.evaluation.estimate.shares import AUDIT, MACHINE, ROUTED, estimate_codes
from core.evaluation.certify.selective import certify_arrays
from core.evaluation.sampling.audit import z_value
from core.assignment import SAEInputs, gains, solve_fast

__all__ = ["BudgetSummary", "simulate_budget", "CertifySummary", "simulate_certify",
           "confidence_implied_errors", "validity_table", "simulate_design"]


@dataclass(frozen=True)
class BudgetSummary:
    """Coverage of the budget-mode intervals over repeated audits.

    Attributes
    ----------
    rounds : pandas.DataFrame
        One row per round: per class ``cover_<c>``, ``width_<c>``, ``plain_cover_<c>``,
        ``plain_width_<c>``; ``cover_accuracy``, ``width_accuracy``, ``estimate_<c>``.
    truth : dict
        ``share_<c>`` and ``accuracy``: the true values.
    summary : dict
        Mean coverage and width per quantity, the random-sampling width for the same number of
        labels, the machine share and the number of labels.
    """

    rounds: pd.DataFrame
    truth: dict
    summary: dict


def _codes(labels_a: np.ndarray, labels_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
    classes = sorted(set(labels_a.tolist()) | set(labels_b.tolist()), key=lambda v: (str(type(v)), v))
    index = {v: i for i, v in enumerate(classes)}
    return (np.fromiter((index[v] for v in labels_a), np.int64, len(labels_a)),
            np.fromiter((index[v] for v in labels_b), np.int64, len(labels_b)), classes)


def _plain_normal(table: np.ndarray, c: int, n_kept: int, z: float) -> tuple[float, float]:
    """The unsmoothed normal interval of the correction (a baseline shown to under-cover)."""
    n = table.sum()
    d = np.concatenate([np.ones(int(table[:, c].sum() - table[c, c])),
                        -np.ones(int(table[c, :].sum() - table[c, c])),
                        np.zeros(int(n - (table[:, c].sum() - table[c, c])
                                     - (table[c, :].sum() - table[c, c])))])
    mean = d.mean()
    var = d.var(ddof=1) if n > 1 else 0.0
    se = n_kept * np.sqrt(max(0.0, 1 - n / n_kept) * var / n)
    return n_kept * mean - z * se, n_kept * mean + z * se


def simulate_budget(inp: SAEInputs, machine_label, gold, *, lam: float, n_human: int,
                    audit: int, rounds: int = 1000, seed: int = 0, mode: str = "at_most",
                    confidence: float = 0.95) -> BudgetSummary:
    """Route once with the exact SAE, then draw ``rounds`` audits and check every interval.

    Parameters
    ----------
    inp : SAEInputs
        a, l, b, k of every row.
    machine_label, gold : arrays of shape (M,)
    lam, n_human, mode
        The assignment.
    audit : int
        Audit size (at most the kept rows).
    rounds : int
    seed : int
    confidence : float

    Returns
    -------
    BudgetSummary
    """
    mach, gold_c, classes = _codes(np.asarray(machine_label, dtype=object),
                                   np.asarray(gold, dtype=object))
    k = len(classes)
    m = len(mach)
    res = solve_fast(inp, lam=lam, n_human=n_human, mode=mode)
    kept = np.flatnonzero(~res.human)
    if not 1 <= audit <= len(kept):
        raise DataError(f"audit must be between 1 and the {len(kept)} kept rows, got {audit}")
    truth_counts = np.bincount(gold_c, minlength=k)
    final_wrong = int((mach[kept] != gold_c[kept]).sum())  # before the audit corrects some
    truth = {f"share_{classes[c]}": truth_counts[c] / m for c in range(k)}
    rng = np.random.default_rng(seed)
    z = z_value(confidence)
    rows = []
    base_sel = np.where(res.human, ROUTED, MACHINE)
    for _ in range(rounds):
        sel = base_sel.copy()
        a_rows = kept[rng.choice(len(kept), size=audit, replace=False)]
        sel[a_rows] = AUDIT
        human = np.where(sel == MACHINE, -1, gold_c)
        r = estimate_codes(mach, human, sel, n_classes=k, confidence=confidence)
        # the accuracy of the final labels depends on which kept rows the audit corrected
        acc_true = 1 - (final_wrong - int((mach[a_rows] != gold_c[a_rows]).sum())) / m
        row = {"cover_accuracy": r["accuracy"]["ci_low"] <= acc_true <= r["accuracy"]["ci_high"],
               "width_accuracy": r["accuracy"]["ci_high"] - r["accuracy"]["ci_low"]}
        table = np.bincount(mach[a_rows] * k + gold_c[a_rows], minlength=k * k).reshape(k, k)
        known = np.bincount(gold_c[res.human], minlength=k)
        mach_kept = np.bincount(mach[kept], minlength=k)
        for c in range(k):
            s = r["class_shares"][c]
            t = truth[f"share_{classes[c]}"]
            row[f"estimate_{classes[c]}"] = s["estimate"]
            row[f"cover_{classes[c]}"] = s["ci_low"] <= t <= s["ci_high"]
            row[f"width_{classes[c]}"] = s["ci_high"] - s["ci_low"]
            lo, hi = _plain_normal(table, c, len(kept), z)
            p_lo, p_hi = (known[c] + mach_kept[c] + lo) / m, (known[c] + mach_kept[c] + hi) / m
            row[f"plain_cover_{classes[c]}"] = p_lo <= t <= p_hi
            row[f"plain_width_{classes[c]}"] = p_hi - p_lo
        rows.append(row)
    df = pd.DataFrame(rows)
    n_lab = int(res.human.sum()) + audit
    summary = {"M": m, "n_human": int(res.human.sum()), "audit": audit, "n_labelled": n_lab,
               "machine_share": len(kept) / m - audit / m,
               "cover_accuracy": float(df["cover_accuracy"].mean()),
               "width_accuracy": float(df["width_accuracy"].mean())}
    for c in range(k):
        name = classes[c]
        p = truth[f"share_{name}"]
        summary[f"cover_{name}"] = float(df[f"cover_{name}"].mean())
        summary[f"width_{name}"] = float(df[f"width_{name}"].mean())
        summary[f"plain_cover_{name}"] = float(df[f"plain_cover_{name}"].mean())
        summary[f"plain_width_{name}"] = float(df[f"plain_width_{name}"].mean())
        summary[f"random_width_{name}"] = float(
            2 * z * np.sqrt(max(0.0, 1 - n_lab / m) * p * (1 - p) / n_lab))
        summary[f"bias_{name}"] = float(df[f"estimate_{name}"].mean() - p)
    truth["accuracy_machine_only"] = float((mach == gold_c).mean())
    return BudgetSummary(rounds=df, truth=truth, summary=summary)


@dataclass(frozen=True)
class CertifySummary:
    """Violation rate of the guarantee over repeated calibration samples.

    Attributes
    ----------
    rounds : pandas.DataFrame
        One row per round: ``certified`` (a threshold was accepted), ``machine_share`` (kept
        rows / rows outside the calibration sample), ``true_error`` (the machine's error rate
        on the rows it keeps, NaN when it keeps none), ``violation``.
    summary : dict
        ``violation_rate``, ``median_machine_share``, ``certified_rate``, ``alpha``, ``delta``.
    """

    rounds: pd.DataFrame
    summary: dict


def simulate_certify(inp: SAEInputs, machine_label=None, gold=None, *,
                     alpha: float | None = None, delta: float, calibration: int,
                     lam: float = 0.0, rounds: int = 1000, seed: int = 0,
                     errors: np.ndarray | None = None,
                     epsilon: float | None = None) -> CertifySummary:
    """Draw ``rounds`` calibration samples, certify each, and check the guarantee on the truth.

    With ``alpha`` (the selective guarantee, :func:`core.evaluation.certify.selective.certify_arrays`)
    the guarantee fails in a round when the machine keeps rows and its true error rate on them
    exceeds alpha. With ``epsilon`` instead (the overall-error guarantee,
    :func:`core.evaluation.certify.overall.certify_overall_arrays`) it fails when the machine's errors on
    the rows it keeps exceed epsilon * M. The truth is ``machine_label != gold``, or ``errors``
    when given (for example :func:`confidence_implied_errors` on data without gold labels).
    Each round draws a simple random calibration sample of ``calibration`` rows, as
    ``hmceval queue --calibration`` does.
    """
    from core.evaluation.certify.overall import certify_overall_arrays

    if (alpha is None) == (epsilon is None):
        raise DataError("give exactly one of alpha (error on kept rows) and epsilon (overall "
                        "error of the final labels)")
    if errors is not None:
        err_all = np.asarray(errors, dtype=bool)
    else:
        err_all = np.asarray(machine_label, dtype=object) != np.asarray(gold, dtype=object)
    m = len(err_all)
    if not 1 <= calibration <= m:
        raise DataError(f"calibration must be between 1 and M = {m}, got {calibration}")
    g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(rounds):
        cal = np.zeros(m, dtype=bool)
        cal[rng.choice(m, size=calibration, replace=False)] = True
        if epsilon is None:
            keep = certify_arrays(g, cal, err_all, alpha=alpha, delta=delta).keep
        else:
            keep = certify_overall_arrays(g, cal, err_all, epsilon=epsilon, delta=delta,
                                          seed=r).keep
        n_keep = int(keep.sum())
        true_err = float(err_all[keep].mean()) if n_keep else float("nan")
        bad = (true_err > alpha) if epsilon is None else (int(err_all[keep].sum()) > epsilon * m)
        rows.append({"certified": n_keep > 0,
                     "machine_share": n_keep / (m - calibration) if m > calibration else 0.0,
                     "true_error": true_err, "violation": bool(n_keep and bad)})
    df = pd.DataFrame(rows)
    summary = {"alpha": alpha, "epsilon": epsilon, "delta": delta, "lambda": lam,
               "calibration": calibration, "rounds": rounds,
               "violation_rate": float(df["violation"].mean()),
               "median_machine_share": float(df["machine_share"].median()),
               "certified_rate": float(df["certified"].mean())}
    return CertifySummary(rounds=df, summary=summary)


def simulate_design(confidence_scores, machine_label, gold, pi, *, rounds: int = 1000,
                    seed: int = 0, confidence: float = 0.95) -> BudgetSummary:
    """Repeat a round planned with inclusion probabilities: ``rounds`` Poisson draws, each
    estimated with :func:`core.evaluation.estimate.weighted.weighted_estimates`, every interval checked.

    Parameters
    ----------
    confidence_scores : array of shape (M,)
        The machine's confidence in its label.
    machine_label, gold : arrays of shape (M,)
    pi : array of shape (M,)
        The round's inclusion probabilities.
    rounds, seed, confidence

    Returns
    -------
    BudgetSummary
        As :func:`simulate_budget`; ``plain_*`` is the coverage and width of PPI++'s interval
        with as many labels drawn at random (the published baseline), ``random_width_*`` the
        plain random-sampling width.
    """
    from core.evaluation.sampling.active import machine_probabilities
    from core.evaluation.sampling.draw import draw
    from core.evaluation.estimate.weighted import ppi_mean_interval, weighted_estimates

    mach, gold_c, classes = _codes(np.asarray(machine_label, dtype=object),
                                   np.asarray(gold, dtype=object))
    k = max(len(classes), 2)
    m = len(mach)
    pi = np.asarray(pi, dtype=float)
    q = np.asarray(confidence_scores, dtype=float)
    f = machine_probabilities(mach, q, k)
    truth_counts = np.bincount(gold_c, minlength=k)
    truth = {f"share_{classes[c]}": truth_counts[c] / m for c in range(len(classes))}
    rng = np.random.default_rng(seed)
    rows = []
    n_labs = []
    for r in range(rounds):
        xi = draw(pi, seed=int(seed) * 1_000_003 + r)
        res = weighted_estimates(mach, np.where(xi, gold_c, -1), xi, pi, q, n_classes=k,
                                 confidence=confidence)
        acc_true = float((np.where(xi, gold_c, mach) == gold_c).mean())
        a = res["accuracy"]
        row = {"cover_accuracy": a["ci_low"] <= acc_true <= a["ci_high"],
               "width_accuracy": a["ci_high"] - a["ci_low"]}
        n = int(xi.sum())
        n_labs.append(n)
        lab = rng.choice(m, size=n, replace=False) if 2 <= n < m else None
        unl = np.setdiff1d(np.arange(m), lab) if lab is not None else None
        for c, name in enumerate(classes):
            s = res["class_shares"][c]
            t = truth[f"share_{name}"]
            row[f"estimate_{name}"] = s["estimate"]
            row[f"cover_{name}"] = s["ci_low"] <= t <= s["ci_high"]
            row[f"width_{name}"] = s["ci_high"] - s["ci_low"]
            if lab is not None:
                _, lo, hi = ppi_mean_interval((gold_c[lab] == c).astype(float), f[lab, c],
                                              f[unl, c], confidence=confidence)
                row[f"plain_cover_{name}"] = lo <= t <= hi
                row[f"plain_width_{name}"] = hi - lo
            else:
                row[f"plain_cover_{name}"] = np.nan
                row[f"plain_width_{name}"] = np.nan
        rows.append(row)
    df = pd.DataFrame(rows)
    n_lab = float(np.mean(n_labs))
    z = z_value(confidence)
    summary = {"M": m, "n_human": int((pi >= 1).sum()), "audit": None, "n_labelled": n_lab,
               "machine_share": 1 - n_lab / m,
               "cover_accuracy": float(df["cover_accuracy"].mean()),
               "width_accuracy": float(df["width_accuracy"].mean())}
    for name in classes:
        p = truth[f"share_{name}"]
        summary[f"cover_{name}"] = float(df[f"cover_{name}"].mean())
        summary[f"width_{name}"] = float(df[f"width_{name}"].mean())
        summary[f"plain_cover_{name}"] = float(df[f"plain_cover_{name}"].astype(float).mean())
        summary[f"plain_width_{name}"] = float(df[f"plain_width_{name}"].astype(float).mean())
        summary[f"random_width_{name}"] = float(
            2 * z * np.sqrt(max(0.0, 1 - n_lab / m) * p * (1 - p) / max(n_lab, 1)))
        summary[f"bias_{name}"] = float(df[f"estimate_{name}"].mean() - p)
    truth["accuracy_machine_only"] = float((mach == gold_c).mean())
    return BudgetSummary(rounds=df, truth=truth, summary=summary)


def confidence_implied_errors(a: np.ndarray, *, seed: int = 0) -> np.ndarray:
    """Errors drawn as if the confidences were calibrated: row i is wrong with probability
    1 - a_i. A stand-in truth for planning on data without gold labels (say so when used)."""
    rng = np.random.default_rng(seed)
    a = np.asarray(a, dtype=float)
    return rng.random(len(a)) < (1 - a)


def validity_table(summary: dict, classes: list) -> pd.DataFrame:
    """The validity panel's table from a :class:`BudgetSummary` summary.

    Returns
    -------
    pandas.DataFrame
        ``quantity``, ``coverage``, ``plain_coverage`` (NaN for the accuracy), ``mean_width``,
        ``random_width`` (a simple random sample of as many labels; NaN for the accuracy).
    """
    rows = []
    for c in classes:
        rows.append({"quantity": f"share of {c}", "coverage": summary[f"cover_{c}"],
                     "plain_coverage": summary[f"plain_cover_{c}"],
                     "mean_width": summary[f"width_{c}"],
                     "random_width": summary[f"random_width_{c}"]})
    rows.append({"quantity": "accuracy of final labels", "coverage": summary["cover_accuracy"],
                 "plain_coverage": float("nan"), "mean_width": summary["width_accuracy"],
                 "random_width": float("nan")})
    return pd.DataFrame(rows)
