"""Annotator error in a round's result: measure the annotators' error rate, correct for it.

A round's estimates (:func:`core.evaluation.estimate.shares.estimate`, and the weighted designs') take
the annotators' labels as the truth: their class shares are shares of the labels the
annotators give (would give) to every row, and the accuracy of the final labels is their
agreement with the annotators. This module measures how often the annotators are wrong and
turns those estimates into estimates against the *true* label.

**The error model.** Each annotator label is wrong with probability eta, independently of the
row (given its true class), of the machine and of the other labels, and a wrong label is any
other class with equal probability r = eta / (k - 1) (for two classes: a flip). The
annotators' confusion matrix is then C = (1 - eta - r) I + r J (J all ones).

**Measuring eta.** (a) *Double-labelled rows* (``hmceval queue --double K``: a random subset of
the queue labelled by two annotators, independently): two labels disagree with probability
D = 1 - (1 - eta)^2 - (k - 1) r^2 = 2 eta - k eta^2 / (k - 1), so

    eta = (k - 1) / k * (1 - sqrt(1 - k D / (k - 1)))                        (increasing in D).

The interval maps the exact (Clopper-Pearson) interval of D, with x disagreements in n rows,
through this increasing function: its coverage is the binomial interval's. (b) *Gold items*
(labels of a ``--gold-annotator``): eta is the share of the other annotators' labels that
differ from gold, with its Clopper-Pearson interval; used instead of the double rows when a
gold annotator is named (it needs no model of the pair). (c) A value ``ETA`` given by the user
(its interval is the point).

**Correcting a proportion.** For any annotator-relative proportion q of a set of rows whose
true proportion is p (a class share; the machine's agreement with the labels, where a machine
label that is right is confirmed with probability 1 - eta and a wrong one with probability r),
E[q] = (1 - eta) p + r (1 - p), so the corrected value is the Rogan-Gladen estimator

    f(q, eta) = (q - r) / (1 - k eta / (k - 1))

(:func:`corrected_shares` solves C^T p = q for any confusion matrix; with the symmetric C it is
f). Class share: p_c = f(q_c, eta). Accuracy of the final labels against the truth: the M_L
labelled rows carry the annotators' own errors (expected M_L eta), the M_U rows the machine
keeps are right with probability f(g_U, eta), g_U the machine's agreement with the labels on
them, so accuracy = (M_L (1 - eta) + M_U f(g_U, eta)) / M.

**The interval** adds three independent parts in quadrature, each a half-width at the same
confidence (z times a standard error): (1) the design interval of the annotator-relative
quantity, carried through f at the estimated eta (f is increasing in q, so the ends map to
ends; asymmetric ends stay asymmetric); (2) the error in eta: the change of the corrected
value when eta moves to either end of its interval (the lower and upper sides take the
deviations in their own direction; near eta = 0 only the upper end of eta moves the value);
(3) the annotators' noise itself: the labels the annotators give are random around their
expectation, with variance sum_i P(h_i = c)(1 - P(h_i = c)) over the rows, i.e.
M (p eta (1 - eta) + (1 - p) r (1 - r)) for a class count and M_L eta (1 - eta) +
M_U (a eta (1 - eta) + (1 - a) r (1 - r)) / den^2 for the correct final labels (a the
machine's accuracy on its rows), divided by den^2 = (1 - k eta/(k-1))^2 where corrected. Ends
are clipped to [0, 1]. This is a delta-method-style approximation whose coverage against the
truth is demonstrated by simulation (``bench/annotators.py``, the tests), not an exact bound.

Limits: the model is symmetric; an annotator biased towards one class (missing positives, say)
is not corrected exactly (``bench/annotators.py``). A row labelled several times carries an
aggregate: :mod:`core.evaluation.annotators.label_error` turns eta into the error of the labels used.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from core.errors import DataError
from core.evaluation.sampling.audit import z_value

__all__ = ["AnnotatorError", "RELATIVE_ANNOTATORS", "given_error", "error_from_pairs",
           "error_from_gold", "symmetric_confusion", "corrected_shares", "corrected_value",
           "correct_estimate", "pairs_from_votes", "relative_to", "draw_labels",
           "simulate_noise", "eta_from_disagreement", "mark_uncorrected", "DOUBLE_COLUMN",
           "draw_double", "annotator_copies", "error_from_votes", "symmetry_p"]

#: What an estimate without correction is relative to.
RELATIVE_ANNOTATORS = "annotators"


@dataclass(frozen=True)
class AnnotatorError:
    """The annotators' error rate eta and its interval.

    Attributes
    ----------
    eta, ci_low, ci_high : float
        The rate (probability that one annotator label is wrong) and its interval.
    source : {"given", "double", "gold"}
    n_items : int
        Rows it was measured on (double-labelled rows, or gold-checked labels); 0 when given.
    n_disagree : int
        Disagreeing pairs, or labels that differ from gold.
    n_classes : int
    confidence : float
    symmetry_p : float or None
        Double rows only: the p-value of Bowker's test that the two annotators' table is
        symmetric (McNemar's for two classes). The symmetric model makes it symmetric; a small
        value says one annotator leans towards a class, which the correction does not model.
    annotator_eta : float or None
        One annotator's rate when ``eta`` is the labels' (:mod:`core.evaluation.annotators.label_error`).
    """

    eta: float
    ci_low: float
    ci_high: float
    source: str
    n_items: int
    n_disagree: int
    n_classes: int
    confidence: float
    symmetry_p: float | None = None
    annotator_eta: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_classes(n_classes: int) -> int:
    if not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise DataError(f"the number of classes must be an integer >= 2, got {n_classes}")
    return int(n_classes)


def given_error(eta: float, *, n_classes: int, confidence: float = 0.95) -> AnnotatorError:
    """A known error rate (``--annotator-error ETA``): eta in [0, 0.5)."""
    k = _check_classes(n_classes)
    if isinstance(eta, bool) or not isinstance(eta, (int, float, np.floating)) \
            or not math.isfinite(eta) or not 0 <= eta < 0.5:
        raise DataError(f"--annotator-error: the annotators' error rate must be 'auto' or a "
                        f"number in [0, 0.5), got {eta}")
    return AnnotatorError(float(eta), float(eta), float(eta), "given", 0, 0, k, confidence)


def _clopper_pearson(x: int, n: int, confidence: float) -> tuple[float, float]:
    from scipy.stats import beta

    tail = (1 - confidence) / 2
    lo = 0.0 if x == 0 else float(beta.ppf(tail, x, n - x + 1))
    hi = 1.0 if x == n else float(beta.ppf(1 - tail, x + 1, n - x))
    return lo, hi


def eta_from_disagreement(d: float, n_classes: int) -> float:
    """eta = (k-1)/k (1 - sqrt(1 - k D/(k-1))), D capped at (k-1)/k (where eta = (k-1)/k)."""
    k = n_classes
    d = min(max(float(d), 0.0), (k - 1) / k)
    return (k - 1) / k * (1 - math.sqrt(max(0.0, 1 - k * d / (k - 1))))


def error_from_pairs(first, second, *, n_classes: int,
                     confidence: float = 0.95) -> AnnotatorError:
    """eta from rows labelled by two annotators independently (see the module doc).

    Parameters
    ----------
    first, second : array-like of shape (n,)
        The two labels of each double-labelled row (any hashable values).
    n_classes : int
    confidence : float in (0, 1)

    Returns
    -------
    AnnotatorError
        ``source="double"``.

    Examples
    --------
    Two classes, 8 disagreements in 100 pairs: D = 0.08, eta = (1 - sqrt(0.84)) / 2.

    >>> round(error_from_pairs([0] * 100, [1] * 8 + [0] * 92, n_classes=2).eta, 6)
    0.041742
    """
    k = _check_classes(n_classes)
    z_value(confidence)
    a, b = np.asarray(first, dtype=object), np.asarray(second, dtype=object)
    if a.shape != b.shape or a.ndim != 1:
        raise DataError("the two labels of the double-labelled rows must be two lists of the "
                        f"same length, got {a.shape} and {b.shape}")
    n = len(a)
    if n == 0:
        raise DataError("--annotator-error auto: no row is labelled by two annotators (nor "
                        "checked against gold items): plan the round with hmceval queue "
                        "--double K, import both annotators' labels, or give --annotator-error "
                        "ETA")
    x = int(sum(u != v for u, v in zip(a.tolist(), b.tolist())))
    d_lo, d_hi = _clopper_pearson(x, n, confidence)
    return AnnotatorError(eta_from_disagreement(x / n, k), eta_from_disagreement(d_lo, k),
                          eta_from_disagreement(d_hi, k), "double", n, x, k, confidence,
                          symmetry_p(a, b, n_classes=k))


def symmetry_p(first, second, *, n_classes: int) -> float | None:
    """Bowker's test of symmetry of the two annotators' table (McNemar's without continuity
    correction for two classes): sum over class pairs i < j of (n_ij - n_ji)^2 / (n_ij + n_ji),
    chi-squared with k (k - 1) / 2 degrees of freedom. None without any disagreement."""
    from collections import Counter

    from scipy.stats import chi2

    counts = Counter((u, v) for u, v in zip(list(first), list(second)) if u != v)
    stat, seen = 0.0, set()
    for (u, v), n_uv in counts.items():
        if (v, u) in seen or (u, v) in seen:
            continue
        seen.add((u, v))
        n_vu = counts.get((v, u), 0)
        stat += (n_uv - n_vu) ** 2 / (n_uv + n_vu)
    if not counts:
        return None
    return float(chi2.sf(stat, n_classes * (n_classes - 1) / 2))


def error_from_gold(labels, gold, *, n_classes: int, confidence: float = 0.95) -> AnnotatorError:
    """eta as the share of annotator labels that differ from gold items, with the
    Clopper-Pearson interval (``source="gold"``)."""
    k = _check_classes(n_classes)
    z_value(confidence)
    a, g = np.asarray(labels, dtype=object), np.asarray(gold, dtype=object)
    if a.shape != g.shape or a.ndim != 1:
        raise DataError("labels and gold items must be two lists of the same length")
    n = len(a)
    if n == 0:
        raise DataError("--annotator-error auto: no annotator label on a gold item")
    x = int(sum(u != v for u, v in zip(a.tolist(), g.tolist())))
    lo, hi = _clopper_pearson(x, n, confidence)
    return AnnotatorError(x / n, lo, hi, "gold", n, x, k, confidence)


def symmetric_confusion(eta: float, n_classes: int) -> np.ndarray:
    """C[t, a] = P(annotator says a | truth t): 1 - eta on the diagonal, eta/(k-1) elsewhere."""
    k = _check_classes(n_classes)
    r = eta / (k - 1)
    return np.full((k, k), r) + (1 - eta - r) * np.eye(k)


def corrected_shares(observed, confusion) -> np.ndarray:
    """The true class shares p with C^T p = q (the k-class Rogan-Gladen correction).

    Parameters
    ----------
    observed : array-like of shape (k,)
        q, the shares of the annotators' labels.
    confusion : array-like of shape (k, k)
        C[t, a] = P(annotator label a | true class t); rows sum to 1.

    Returns
    -------
    numpy.ndarray of shape (k,)
        p (not clipped: a value outside [0, 1] says q is not reachable from C).

    Raises
    ------
    DataError
        When C is not a confusion matrix or is singular.

    Examples
    --------
    Two classes, sensitivity 0.9 and specificity 0.95: p = (q + 0.95 - 1) / (0.9 + 0.95 - 1).

    >>> corrected_shares([0.3, 0.7], [[0.95, 0.05], [0.1, 0.9]]).round(6).tolist()
    [0.235294, 0.764706]
    """
    q = np.asarray(observed, dtype=float)
    c = np.asarray(confusion, dtype=float)
    if c.ndim != 2 or c.shape[0] != c.shape[1] or q.shape != (c.shape[0],):
        raise DataError(f"confusion matrix of shape (k, k) and shares of shape (k,) needed, got "
                        f"{c.shape} and {q.shape}")
    if not np.all(np.isfinite(c)) or (c < 0).any() or not np.allclose(c.sum(axis=1), 1):
        raise DataError("each row of the confusion matrix must hold probabilities summing to 1")
    try:
        return np.linalg.solve(c.T, q)
    except np.linalg.LinAlgError:
        raise DataError("the confusion matrix is singular: the annotators' labels say nothing "
                        "about the truth") from None


def corrected_value(q, eta: float, n_classes: int):
    """f(q, eta) = (q - r) / (1 - k eta / (k-1)), r = eta / (k-1) (see the module doc)."""
    k = n_classes
    den = 1 - k * eta / (k - 1)
    return (np.asarray(q, dtype=float) - eta / (k - 1)) / den


def _combine(point: float, parts_lo: list[float], parts_hi: list[float]) -> tuple[float, float]:
    lo = point - math.sqrt(sum(p * p for p in parts_lo))
    hi = point + math.sqrt(sum(p * p for p in parts_hi))
    return max(0.0, lo), min(1.0, hi)


def _eta_parts(fun, eta: AnnotatorError, point: float) -> tuple[float, float]:
    """(lower, upper) half-width parts from moving eta to either end of its interval."""
    devs = [fun(e) - point for e in (eta.ci_low, eta.ci_high)]
    return max([0.0] + [-d for d in devs]), max([0.0] + devs)


def _correct_one(res: dict[str, Any], eta: AnnotatorError, z: float) -> dict[str, Any]:
    k = eta.n_classes
    e = eta.eta
    r = e / (k - 1)
    den = 1 - k * e / (k - 1)
    usable = eta.ci_high < (k - 1) / k and den > 0
    m = int(res["M"])
    out = dict(res)
    shares: dict[str, Any] = {}
    for key, s in res["class_shares"].items():
        s2 = dict(s)
        q = s["estimate"]
        s2["estimate_annotators"] = q
        if q is None or not usable:
            s2.update(estimate=None if not usable else q, ci_low=None, ci_high=None,
                      half_width=None)
            shares[key] = s2
            continue
        point = float(corrected_value(q, e, k))
        lo = hi = point
        if s["ci_low"] is not None:
            d_lo = point - float(corrected_value(s["ci_low"], e, k))
            d_hi = float(corrected_value(s["ci_high"], e, k)) - point
            p = min(max(point, 0.0), 1.0)
            noise = z * math.sqrt(max(0.0, p * e * (1 - e) + (1 - p) * r * (1 - r)) / m) / den
            e_lo, e_hi = _eta_parts(lambda x: float(corrected_value(q, x, k)), eta, point)
            lo, hi = _combine(point, [d_lo, e_lo, noise], [d_hi, e_hi, noise])
        est = min(max(point, 0.0), 1.0)
        s2.update(estimate=est, ci_low=None if s["ci_low"] is None else min(lo, est),
                  ci_high=None if s["ci_high"] is None else max(hi, est))
        s2["half_width"] = (None if s2["ci_low"] is None
                            else (s2["ci_high"] - s2["ci_low"]) / 2)
        shares[key] = s2
    out["class_shares"] = shares
    acc = dict(res["accuracy"])
    acc["estimate_annotators"] = res["accuracy"]["estimate"]
    if acc["estimate"] is not None and usable:
        n_l, n_u = int(res["n_labelled"]), int(res["n_machine"])

        def at(a_h: float, x: float) -> float:
            if n_u == 0:
                return (n_l * (1 - x)) / m
            g = (a_h * m - n_l) / n_u  # the machine's agreement with the labels on its rows
            return (n_l * (1 - x) + n_u * float(corrected_value(g, x, k))) / m

        point = at(acc["estimate"], e)
        g_hat = 1.0 if n_u == 0 else (acc["estimate"] * m - n_l) / n_u
        a_true = min(max(float(corrected_value(g_hat, e, k)), 0.0), 1.0)
        var = (n_l * e * (1 - e) + n_u * (a_true * e * (1 - e) + (1 - a_true) * r * (1 - r))
               / den ** 2) / m ** 2
        noise = z * math.sqrt(var)
        e_lo, e_hi = _eta_parts(lambda x: at(acc["estimate"], x), eta, point)
        d_lo = 0.0 if acc["ci_low"] is None else point - at(acc["ci_low"], e)
        d_hi = 0.0 if acc["ci_high"] is None else at(acc["ci_high"], e) - point
        lo, hi = _combine(point, [d_lo, e_lo, noise], [d_hi, e_hi, noise])
        est = min(max(point, 0.0), 1.0)
        acc.update(estimate=est, ci_low=min(lo, est), ci_high=max(hi, est))
    elif not usable:
        acc.update(estimate=None, ci_low=None, ci_high=None)
    out["accuracy"] = acc
    return out


def relative_to(eta: AnnotatorError | None) -> str:
    """The ``relative_to`` value of an estimate: ``"annotators"`` or the truth, corrected."""
    if eta is None:
        return RELATIVE_ANNOTATORS
    how = {"given": "given", "double": f"measured on {eta.n_items:,} multiply-labelled rows",
           "gold": f"measured on {eta.n_items:,} gold-checked labels"}[eta.source]
    if eta.annotator_eta is not None and eta.annotator_eta != eta.eta:  # aggregated labels
        how = f"the labels' error from one annotator's {eta.annotator_eta:.4g}, {how}"
    return (f"truth (corrected for annotator error {eta.eta:.4g}, {how}"
            + ("" if eta.source == "given" else
               f", interval [{eta.ci_low:.4g}, {eta.ci_high:.4g}]") + ")")


def mark_uncorrected(result: dict[str, Any]) -> dict[str, Any]:
    """An estimate left relative to the annotators: ``relative_to`` ``"annotators"`` (their
    labels taken as the truth; the command line's text says so in words)."""
    result["relative_to"] = RELATIVE_ANNOTATORS
    return result


def correct_estimate(result: dict[str, Any], eta: AnnotatorError) -> dict[str, Any]:
    """An ``hmceval estimate`` object corrected for the annotators' error (module doc).

    Parameters
    ----------
    result : dict
        :func:`core.evaluation.estimate.shares.estimate` (or the weighted design's) output: keys
        ``M``, ``n_labelled``, ``n_machine``, ``confidence``, ``class_shares``, ``accuracy``,
        ``by_group``, ``notes``.
    eta : AnnotatorError

    Returns
    -------
    dict
        The same keys, estimates and intervals against the truth (each share and the accuracy
        also keep ``estimate_annotators``, the uncorrected value), ``random_equivalent``
        unchanged, plus ``relative_to`` and ``annotator_error`` (:meth:`AnnotatorError.to_dict`);
        a note says what the intervals are relative to. ``worse_groups`` stay relative to the
        annotators (the same eta shifts every group alike).
    """
    if eta.n_classes != len(result["class_shares"]):
        raise DataError(f"the annotators' error rate was measured for {eta.n_classes} classes, "
                        f"the round has {len(result['class_shares'])}")
    z = z_value(float(result.get("confidence", 0.95)))
    out = _correct_one(result, eta, z)
    out["by_group"] = {col: {v: _correct_one(g, eta, z) for v, g in vals.items()}
                       for col, vals in (result.get("by_group") or {}).items()}
    notes = list(result.get("notes", []))
    k = eta.n_classes
    if eta.ci_high >= (k - 1) / k or 1 - k * eta.eta / (k - 1) <= 0:
        notes.append(f"the annotators' error rate may be as high as {eta.ci_high:.3g}: their "
                     "labels may say nothing about the truth, so no estimate against the truth "
                     "is given (label more double rows or adjudicate)")
    if eta.symmetry_p is not None and eta.symmetry_p < 0.05:
        notes.append(f"the two annotators disagree more often in one direction than the other "
                     f"on the double-labelled rows (symmetry test p = {eta.symmetry_p:.3g}): "
                     "one of them leans towards a class, which the correction (a symmetric "
                     "error model) does not capture; check the annotators (hmceval annotators) "
                     "or measure the error on gold items (--gold-annotator)")
    out["notes"] = [f"estimates and intervals are relative to the {relative_to(eta)}: the "
                    "annotators' error rate and its uncertainty are accounted for under a "
                    "symmetric error model (a wrong label is any other class alike); the "
                    "uncorrected values are kept as estimate_annotators"] + notes
    out["relative_to"] = relative_to(eta)
    out["annotator_error"] = eta.to_dict()
    return out


def pairs_from_votes(votes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first two annotators' labels of each row labelled by two or more annotators.

    Parameters
    ----------
    votes : pandas.DataFrame
        ``row``, ``annotator``, ``label`` (one vote per row and annotator, as
        :meth:`core.workspace.store.Workspace.current_annotations`).

    Returns
    -------
    (rows, first, second) : arrays
        Annotators ordered by name within a row.
    """
    v = votes.assign(_a=votes["annotator"].astype(str)).sort_values(["row", "_a"], kind="stable")
    out_r, first, second = [], [], []
    for r, g in v.groupby("row", sort=True):
        if len(g) >= 2:
            labs = g["label"].tolist()
            out_r.append(int(r))
            first.append(labs[0])
            second.append(labs[1])
    return (np.asarray(out_r, dtype=np.int64), np.asarray(first, dtype=object),
            np.asarray(second, dtype=object))


def draw_labels(truth: np.ndarray, confusion: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One annotator's labels (codes) of rows with true classes ``truth``: each drawn from the
    row ``confusion[truth]`` (C[t, a] = P(label a | truth t))."""
    cum = np.cumsum(np.asarray(confusion, dtype=float), axis=1)[truth]
    u = rng.random(len(truth))
    return np.minimum((u[:, None] >= cum).sum(axis=1), cum.shape[1] - 1).astype(np.int64)


def simulate_noise(machine, truth, routed, *, confusion, second=None, audit: int,
                   double: int, rounds: int, seed: int = 0, confidence: float = 0.95,
                   given: float | None = None):
    """Repeated routing rounds whose annotators err, against the known truth.

    Each round draws an audit (a simple random sample of ``audit`` of the rows not
    ``routed``), the annotators' labels of every labelled row (``confusion``), a second label
    on ``double`` random labelled rows (``second``, default ``confusion``), runs the product's
    estimator (:func:`core.evaluation.estimate.shares.estimate_codes`) and corrects it with eta from
    the pairs (:func:`error_from_pairs`) and, with ``given``, with that known eta.

    Parameters
    ----------
    machine, truth : int arrays of shape (M,)
        Class codes 0..k-1.
    routed : bool array of shape (M,)
    confusion, second : arrays of shape (k, k)
    audit, double, rounds, seed, confidence

    Returns
    -------
    pandas.DataFrame
        One row per round and method (``plain``, ``auto``, ``given``): ``cover_<c>``,
        ``half_<c>`` per class, ``cover_accuracy``, ``half_accuracy``, ``eta_hat``,
        ``asymmetric`` (the pairs' symmetry test rejects at 5 %: the notes warn).
    """
    import pandas as pd

    from core.evaluation.estimate.shares import AUDIT, MACHINE, ROUTED, estimate_codes

    machine = np.asarray(machine, dtype=np.int64)
    truth = np.asarray(truth, dtype=np.int64)
    routed = np.asarray(routed, dtype=bool)
    c1 = np.asarray(confusion, dtype=float)
    c2 = c1 if second is None else np.asarray(second, dtype=float)
    k = c1.shape[0]
    m = len(truth)
    kept = np.flatnonzero(~routed)
    share_true = np.bincount(truth, minlength=k) / m
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(rounds):
        sel = np.where(routed, ROUTED, MACHINE)
        sel[kept[rng.choice(len(kept), size=audit, replace=False)]] = AUDIT
        lab = sel != MACHINE
        h = np.full(m, -1, dtype=np.int64)
        h[lab] = draw_labels(truth[lab], c1, rng)
        dbl = rng.choice(np.flatnonzero(lab), size=double, replace=False)
        h2 = draw_labels(truth[dbl], c2, rng)
        r = estimate_codes(machine, h, sel, n_classes=k, confidence=confidence)
        acc_true = (int((h[lab] == truth[lab]).sum())
                    + int((machine[~lab] == truth[~lab]).sum())) / m
        res = {"M": m, "n_labelled": r["n_labelled"], "n_machine": r["n_machine"],
               "confidence": confidence, "accuracy": r["accuracy"], "by_group": {},
               "notes": [], "class_shares": {str(c): s for c, s in enumerate(r["class_shares"])}}
        etas = {"plain": None, "auto": error_from_pairs(h[dbl], h2, n_classes=k,
                                                        confidence=confidence)}
        if given is not None:
            etas["given"] = given_error(given, n_classes=k, confidence=confidence)
        for name, eta in etas.items():
            out = res if eta is None else correct_estimate(res, eta)
            row = {"method": name, "eta_hat": None if eta is None else eta.eta,
                   "asymmetric": bool(eta is not None and eta.symmetry_p is not None
                                      and eta.symmetry_p < 0.05)}
            for c in range(k):
                s = out["class_shares"][str(c)]
                ok = s["ci_low"] is not None
                row[f"cover_{c}"] = ok and (s["ci_low"] - 1e-12 <= share_true[c]
                                            <= s["ci_high"] + 1e-12)
                row[f"half_{c}"] = (s["ci_high"] - s["ci_low"]) / 2 if ok else np.nan
            a = out["accuracy"]
            ok = a["ci_low"] is not None
            row["cover_accuracy"] = ok and a["ci_low"] - 1e-12 <= acc_true <= a["ci_high"] + 1e-12
            row["half_accuracy"] = (a["ci_high"] - a["ci_low"]) / 2 if ok else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


#: Column of the round's table that marks the rows labelled twice (``hmceval queue --double``).
DOUBLE_COLUMN = "double"


def draw_double(queue_rank: np.ndarray, k: int, *, seed: int = 0) -> np.ndarray:
    """A simple random sample of ``k`` of the queued rows (finite ``queue_rank``) to be
    labelled by a second annotator too (:mod:`core.evaluation.annotators.noise` measures the annotators'
    error rate on them). Returns their row indices, sorted.

    Raises
    ------
    DataError
        ``k`` < 0 or larger than the queue (naming ``--double``).
    """
    queued = np.flatnonzero(np.isfinite(np.asarray(queue_rank, dtype=float)))
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise DataError(f"--double K: the number of rows labelled twice must be an integer "
                        f">= 0, got {k}")
    if k > len(queued):
        raise DataError(f"--double {k}: the round has only {len(queued):,} rows to label; "
                        f"ask for at most {len(queued):,} rows labelled twice")
    rng = np.random.default_rng([int(seed), 23])  # its own stream: the plan's draws unchanged
    return np.sort(rng.choice(queued, size=int(k), replace=False))


def annotator_copies(people, id_col: str, double_ids):
    """The annotators' file of a round with double rows: column ``annotator`` first, ``1`` on
    every row to label, then the double rows again for annotator ``2`` (in queue order).
    Nothing says a row is double: each annotator's part is a list of rows in queue order."""
    import pandas as pd

    from core.data.keys import label_key

    keys = {label_key(v) for v in double_ids}
    first = people.assign(annotator="1")
    second = people[[label_key(v) in keys for v in people[id_col]]].assign(annotator="2")
    out = pd.concat([first, second], ignore_index=True)
    return out[["annotator"] + [c for c in out.columns if c != "annotator"]]


def error_from_votes(votes, *, n_classes: int, confidence: float = 0.95,
                     gold_annotator: str | None = None) -> AnnotatorError:
    """``--annotator-error auto`` on a round's votes (``row``, ``annotator``, ``label``): one
    annotator's error rate, from the other annotators' labels of the items ``gold_annotator``
    labelled (gold items), else from every row labelled by two annotators or more (the
    ``hmceval queue --double K`` rows and any other; one pair per row, its first two annotators
    by name, so the pairs stay independent and the interval exact)."""
    if gold_annotator is not None:
        who = votes["annotator"].astype(str)
        gold = votes[who == str(gold_annotator)]
        if gold.empty:
            raise DataError(f"--gold-annotator: no label of annotator {gold_annotator!r} in "
                            "this round")
        truth = dict(zip(gold["row"].astype(int), gold["label"]))
        other = votes[(who != str(gold_annotator)) & votes["row"].astype(int).isin(truth)]
        return error_from_gold(other["label"].tolist(), [truth[int(r)] for r in other["row"]],
                               n_classes=n_classes, confidence=confidence)
    _, first, second = pairs_from_votes(votes)
    return error_from_pairs(first, second, n_classes=n_classes, confidence=confidence)
