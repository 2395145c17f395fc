"""Confidence sequences for a labelling stream: intervals valid however often one looks.

A stream (:mod:`core.evaluation.sampling.stream`) labels rows one at a time in queue order, draw t
picking row ``I_t`` with a known probability ``p_t`` among the rows not drawn yet. For a total
``tau = sum_i v_i`` over the table (``v_i`` the indicator of a class, or of the machine being
right, possibly within a group), with a control ``f_i`` fixed before draw t (the class
probabilities, recalibrated on the labels of earlier draws only), the Des Raj-type term

    Z_t = sum_{s<t} v_{I_s} + sum_{j not drawn before t} f_j + (v_{I_t} - f_{I_t}) / p_t

has conditional mean ``tau`` given everything before draw t, whatever the weights and the
control (they are *predictable*). So ``Z_t - tau`` is a martingale difference sequence, and the
running mean of the ``Z_t`` with the Gaussian-mixture boundary of Waudby-Smith, Arbour, Sinha,
Kennedy and Ramdas (2024, "Time-uniform central limit theory and asymptotic confidence
sequences") is a confidence sequence: with probability about 1 - alpha it covers ``tau / D``
at every number of labels at once, so a user may look after every import and stop when the
interval is good enough, or when it decides a question (optional stopping). The guarantee is
asymptotic, as for every normal interval: it needs the running mean to be roughly normal and
its variance estimated consistently. The variance of each term is estimated from the terms
before it, shrunk towards what the class probabilities imply (``PRIOR_TERMS`` terms' worth),
so that a rare class unseen in the first labels does not make the interval collapse;
``bench/anytime.py`` measures the time-uniform miscoverage on real tables.

:func:`core.evaluation.estimate.sequences.asymptotic_sequence` is the boundary exactly as GLIDE 0.11's
``AsymptoticConfidenceSequence`` computes it on per-batch estimates and standard errors (each
draw a batch here; ``tests/core/test_evaluation_anytime.py`` compares the two), two-sided: each
side at alpha / 2. It is tightest near ``tightest_at`` labels (the labels the plan expects to
need); elsewhere it is wider, and everywhere wider than a fixed-n interval at the same labels:
``price`` reports the ratio, the cost of being allowed to look at every label.

Results are relative to the annotators' labels, as every estimate of a round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.errors import DataError
from core.evaluation.sampling.audit import z_value
from core.evaluation.estimate.sequences import (SEQUENCE_METHODS, asymptotic_sequence, betting_sequence,
                                       labels_for_half_width)

__all__ = ["PRIOR_TERMS", "weight_segments", "Target", "Decision", "parse_decision",
           "sequence_terms", "anytime_estimate"]

#: Weight of the class probabilities' variance in each term's variance estimate, in terms.
PRIOR_TERMS = 10
#: Label counts after which the control is recalibrated (fixed in advance: predictable).
_REFIT_FIRST, _REFIT_GROWTH = 30, 1.25


@dataclass(frozen=True)
class Target:
    """One total the stream estimates: ``sum_i domain_i * [human_i in hit_i]`` over ``D`` rows.

    ``kind`` is ``"share"`` (``hit`` the class code) or ``"accuracy"`` (the machine's class);
    ``domain`` a bool mask of the rows it is about (all rows, or a group).
    """

    kind: str
    code: int
    domain: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class Decision:
    """A question a stream decides: ``share(CLASS) OP X`` or ``accuracy OP X``."""

    text: str
    kind: str
    label: str | None
    op: str
    threshold: float


_DECIDE = re.compile(r"^\s*(share\s*\(\s*(?P<label>[^()]+?)\s*\)|accuracy)\s*"
                     r"(?P<op><=|>=|<|>)\s*(?P<x>[-+0-9.eE%]+)\s*$")


def parse_decision(text: str) -> Decision:
    """Read ``--decide``: ``share(unsafe) <= 0.05``, ``accuracy >= 90%`` and the like.

    Raises
    ------
    DataError
        Not of that form, or a threshold outside [0, 1].
    """
    m = _DECIDE.match(str(text))
    if m is None:
        raise DataError(f"--decide must read 'share(CLASS) <= X' or 'accuracy >= X' (operators "
                        f"<=, <, >=, >; X in [0, 1] or a percentage), got {text!r}")
    raw = m.group("x")
    try:
        x = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise DataError(f"--decide: {raw!r} is not a number") from None
    if not 0 <= x <= 1:
        raise DataError(f"--decide: the threshold must be in [0, 1] (or 0-100 %), got {raw}")
    label = m.group("label")
    return Decision(text=str(text).strip(), kind="share" if label is not None else "accuracy",
                    label=label, op=m.group("op"), threshold=x)


def weight_segments(weights, m: int) -> list[tuple[int, np.ndarray]]:
    """``[(first queue index, weights), ...]`` from weights given as one array (or None:
    uniform) or as such segments, the first starting at 0."""
    if weights is None:
        return [(0, np.ones(m))]
    if isinstance(weights, (list, tuple)):
        out = [(int(t), np.asarray(w, dtype=float)) for t, w in weights]
    else:
        out = [(0, np.asarray(weights, dtype=float))]
    if not out or out[0][0] != 0 or any(len(w) != m for _, w in out):
        raise DataError("the stream's weights must give one weight per row, from its first draw")
    if any(not (np.all(np.isfinite(w)) and np.all(w >= 0)) for _, w in out):
        raise DataError("the stream's weights must be finite numbers >= 0")
    return out


def _refit_points(n: int) -> list[int]:
    """Label counts (draws before the refit) at which the control is recalibrated."""
    points, k = [], float(_REFIT_FIRST)
    while int(k) < n:
        if not points or int(k) > points[-1]:
            points.append(int(k))
        k *= _REFIT_GROWTH
    return points


def _raw_probabilities(machine: np.ndarray, confidence: np.ndarray, k: int) -> np.ndarray:
    """The confidences as probabilities (:func:`core.evaluation.sampling.active.machine_probabilities`),
    one column per class of the table (one alone when it has one class)."""
    from core.evaluation.sampling.active import machine_probabilities

    return machine_probabilities(machine, confidence, k)[:, :k]


def sequence_terms(targets: list[Target], *, machine: np.ndarray, confidence: np.ndarray,
                   n_classes: int, order: np.ndarray, draw_probability: np.ndarray,
                   human: np.ndarray, weights=None, recalibrate: bool = True,
                   with_bounds: bool = False) -> tuple[np.ndarray, ...]:
    """The terms ``Z_t / D`` and their predictable standard errors for every target.

    Parameters
    ----------
    targets : list of Target
    machine : int array of shape (M,)
        The machine's class codes.
    confidence : array of shape (M,)
        Its confidence in them.
    n_classes : int
    order : int array of shape (n,)
        The labelled prefix of the queue, in queue order.
    draw_probability : array of shape (n,)
        p_t of each draw.
    human : int array of shape (n,)
        The human class of each labelled row, in queue order.
    weights : array of shape (M,) or list of (int, array), optional
        The stream's draw weights (for the variance the probabilities imply); uniform if
        not given; a re-planned stream's ``(first queue index, weights)`` segments.
    recalibrate : bool, default=True
        Recalibrate the control on the labels of earlier draws (at fixed label counts); else
        the confidences as given throughout.
    with_bounds : bool, default=False
        Also return the range each term could take before its draw (over every row not drawn
        yet and both values of its label): what a betting sequence needs.

    Returns
    -------
    terms, stds : ndarrays of shape (n, len(targets))
    hits : ndarray of shape (n, len(targets))
        ``v`` of each labelled row for each target (0/1).
    low, high : ndarrays of shape (n, len(targets))
        With ``with_bounds``: the predictable range of each term (``Z_t / D``).
    """
    from core.evaluation.sampling.forecast import calibrated_probabilities

    machine = np.asarray(machine, dtype=np.int64)
    m = len(machine)
    order = np.asarray(order, dtype=np.int64)
    p_draw = np.asarray(draw_probability, dtype=float)
    y = np.asarray(human, dtype=np.int64)
    n = len(order)
    segments = weight_segments(weights, m)
    w = segments[0][1]
    if not (len(p_draw) == n == len(y)):
        raise DataError("the stream's order, draw probabilities and labels differ in length")
    if n and not np.all((p_draw > 0) & (p_draw <= 1)):
        raise DataError("every draw probability must be in (0, 1]")
    nt = len(targets)
    dom = np.stack([t.domain for t in targets], axis=1).astype(float)  # (M, T)
    sizes = dom.sum(axis=0)
    hits = np.zeros((n, nt))
    for j, t in enumerate(targets):
        ref = t.code if t.kind == "share" else machine[order]
        hits[:, j] = (y == ref) * dom[order, j]
    base = _raw_probabilities(machine, confidence, n_classes)

    def expected(prob: np.ndarray) -> np.ndarray:  # E[v_i] for every target, (M, T)
        out = np.empty((m, nt))
        for j, t in enumerate(targets):
            col = prob[:, t.code] if t.kind == "share" else prob[np.arange(m), machine]
            out[:, j] = col * dom[:, j]
        return out

    terms = np.zeros((n, nt))
    stds = np.zeros((n, nt))
    low = np.zeros((n, nt))
    high = np.zeros((n, nt))
    replans = [t for t, _ in segments[1:] if 0 < t < n]
    starts = sorted({0, *replans, *(p for p in _refit_points(n) if recalibrate)})
    bounds = starts + [n]
    prob = base
    drawn = np.zeros(m, dtype=bool)
    sq_sum = np.zeros(nt)
    ratio_sum = np.zeros(nt)
    centre = None
    for b in range(len(starts)):
        t0, t1 = bounds[b], bounds[b + 1]
        if t1 <= t0 and n:
            continue
        w = [sw for st, sw in segments if st <= t0][-1]  # the weights drawing from t0 on
        if b > 0:
            try:
                prob = calibrated_probabilities(machine, confidence, n_classes,
                                                rows=order[:t0], human_codes=y[:t0],
                                                weights=1.0 / p_draw[:t0])
            except DataError:
                pass  # nothing to recalibrate on yet (the machine always right): keep the last
        f = expected(prob)
        drawn[:] = False
        drawn[order[:t0]] = True
        rest = ~drawn
        # the variance the probabilities imply for the next draw (f = E[v]: no bias term)
        # E[(v - f)^2] / w per row (f = E[v]: no bias term); rows weighted 0 are never drawn
        a = np.divide(f * (1 - f), w[:, None], out=np.zeros_like(f), where=w[:, None] > 0)
        w_rest = w[rest].sum()
        a_rest = a[rest].sum(axis=0)
        if centre is None:
            centre = f.sum(axis=0)
        seg = order[t0:t1]
        f_seg = f[seg]
        before_v = hits[:t0].sum(axis=0)
        before_f = f[order[:t0]].sum(axis=0)
        v_seg = hits[t0:t1]
        cv = np.vstack([np.zeros(nt), np.cumsum(v_seg, axis=0)[:-1]]) if len(seg) else v_seg
        cf = np.vstack([np.zeros(nt), np.cumsum(f_seg, axis=0)[:-1]]) if len(seg) else f_seg
        known = (before_v + cv) + (f.sum(axis=0) - before_f - cf)
        z = known + (v_seg - f_seg) / p_draw[t0:t1, None]
        if with_bounds and rest.any():  # (v - f_j) / w_j over the rows left, v in {0, d_j}
            pos = rest & (w > 0)
            lo_coef = (-f[pos] / w[pos][:, None]).min(axis=0)
            hi_coef = ((dom[pos] - f[pos]) / w[pos][:, None]).max(axis=0)
        for i in range(len(seg)):
            t = t0 + i
            # the variance the probabilities imply for this draw, over the rows not drawn yet
            model_var = np.maximum(w_rest * a_rest, 0.0)
            scale = np.where(model_var > 0, model_var, 1.0)
            # the probabilities' variance for this draw, times how far off the earlier terms
            # showed it to be (shrunk towards 1 by PRIOR_TERMS terms)
            ratio = (PRIOR_TERMS + ratio_sum) / (PRIOR_TERMS + t)
            var = np.where(model_var > 0, model_var * ratio, sq_sum / max(t, 1))
            stds[t] = np.sqrt(np.maximum(var, 0.0))
            terms[t] = z[i]
            if with_bounds:
                low[t] = known[i] + w_rest * lo_coef
                high[t] = known[i] + w_rest * hi_coef
            dev = (z[i] - centre) ** 2
            sq_sum = sq_sum + dev
            ratio_sum = ratio_sum + dev / scale
            centre = (centre * t + z[i]) / (t + 1) if t else z[i]
            w_rest -= w[seg[i]]
            a_rest = a_rest - a[seg[i]]
    safe = np.where(sizes > 0, sizes, 1.0)
    if with_bounds:
        return terms / safe, stds / safe, hits, low / safe, high / safe
    return terms / safe, stds / safe, hits


def _interval(estimate: float, low: float, high: float, lo: float = 0.0,
              hi: float = 1.0) -> dict[str, float]:
    """An interval cut to [lo, hi] (what the quantity can be), its estimate inside it."""
    a, b = float(min(max(low, lo), hi)), float(min(max(high, lo), hi))
    return {"estimate": float(min(max(estimate, a), b)), "ci_low": a, "ci_high": b}


def _decide(dec: Decision, low: np.ndarray, high: np.ndarray) -> tuple[int | None, bool | None]:
    """The first look at which the sequence lies wholly on one side of the threshold."""
    x = dec.threshold
    if dec.op in ("<=", "<"):
        yes, no = high < x if dec.op == "<" else high <= x, low > x if dec.op == "<=" else low >= x
    else:
        yes, no = low > x if dec.op == ">" else low >= x, high < x if dec.op == ">=" else high <= x
    hit = np.flatnonzero(yes | no)
    if not len(hit):
        return None, None
    return int(hit[0]), bool(yes[hit[0]])


def anytime_estimate(*, classes: list, machine: np.ndarray, confidence: np.ndarray,
                     order: np.ndarray, draw_probability: np.ndarray, human: np.ndarray,
                     weights=None, groups: dict[str, np.ndarray] | None = None,
                     confidence_level: float = 0.95, trace_every: int = 10,
                     target_half_width: float | None = None, decide: str | None = None,
                     tightest_at: int | None = None, recalibrate: bool = True,
                     method: str = "asymptotic") -> dict[str, Any]:
    """Class shares, the final labels' accuracy and per-group accuracy of a stream, with
    confidence sequences valid at every number of labels at once.

    Parameters
    ----------
    classes : list
        The class labels, in code order.
    machine : int array of shape (M,)
        Machine class codes.
    confidence : array of shape (M,)
    order : int array of shape (Q,)
        The queue's rows in queue order.
    draw_probability : array of shape (Q,)
        p_t of each queued row.
    human : int array of shape (Q,)
        Human class codes of the queued rows, -1 where not labelled yet. The labelled *prefix*
        is used (up to the first row without a label); labels after a gap are counted in
        ``labels_after_gap`` and wait until the gap is filled.
    weights : array of shape (M,) or list of (int, array), optional
        The stream's draw weights (a re-planned stream's segments).
    groups : dict of str to array of shape (M,), optional
        Group columns: the final labels' accuracy per value.
    confidence_level : float, default=0.95
        1 - alpha, the probability that every interval of the sequence covers the truth.
    trace_every : int, default=10
        The trace's step, in labels.
    target_half_width : float, optional
        Stop when the widest class share's half-width is at most this.
    decide : str, optional
        A question (:func:`parse_decision`), decided when the sequence leaves the threshold.
    tightest_at : int, optional
        Labels near which the sequence is tightest; default the labels the class
        probabilities say the target half-width needs, else half the queue.
    method : {"asymptotic", "betting"}
        ``asymptotic`` (default): the Gaussian-mixture sequence (GLIDE's), valid as the labels
        grow; ``betting``: :func:`betting_sequence`, valid in finite samples (no normal
        approximation: for small streams), usually wider.

    Returns
    -------
    dict
        ``M``, ``labels``, ``queue``, ``confidence``, ``class_shares``, ``accuracy``,
        ``by_group``, ``trace``, ``stop``, ``decision``, ``price``, ``tightest_at``,
        ``relative_to``, ``method``, ``notes``, and ``batches``: each label's term and its
        standard error per class share (and for the machine's accuracy, with the final labels'
        known ``offset``), the per-batch estimates the sequence is the running mean of.
    """
    alpha = 1.0 - float(confidence_level)
    if not 0 < alpha < 1:
        raise DataError(f"confidence must be strictly between 0 and 1, got {confidence_level}")
    if int(trace_every) < 1:
        raise DataError(f"--trace-every must be >= 1, got {trace_every}")
    dec = parse_decision(decide) if decide else None
    if method not in SEQUENCE_METHODS:
        raise DataError(f"the sequence must be one of {', '.join(SEQUENCE_METHODS)}, got {method!r}")
    k = len(classes)
    if dec is not None and dec.kind == "share":
        names = [str(c) for c in classes]
        if dec.label not in names:
            raise DataError(f"--decide: class {dec.label!r} is not one of the table's classes: "
                            f"{', '.join(names)}")
    machine = np.asarray(machine, dtype=np.int64)
    m = len(machine)
    human = np.asarray(human, dtype=np.int64)
    missing = np.flatnonzero(human < 0)
    n = int(missing[0]) if len(missing) else len(human)
    after_gap = int((human[n:] >= 0).sum())
    targets = [Target("share", c, np.ones(m, dtype=bool)) for c in range(k)]
    targets.append(Target("accuracy", -1, np.ones(m, dtype=bool)))
    group_keys: list[tuple[str, Any]] = []
    for col, values in (groups or {}).items():
        values = np.asarray(values, dtype=object)
        for value in sorted(set(values.tolist()), key=lambda x: (str(type(x)), str(x))):
            targets.append(Target("accuracy", -1, values == value))
            group_keys.append((col, value))
    notes: list[str] = []
    if after_gap:
        notes.append(f"{after_gap:,} labels come after the first unlabelled row of the queue "
                     f"(position {n + 1:,}): the sequence uses the labelled prefix only, in "
                     "queue order; label the queue in order")
    base = _raw_probabilities(machine, confidence, k)
    w = weight_segments(weights, m)[0][1]
    prior_sd = np.sqrt(w.sum() * (base * (1 - base) / w[:, None]).sum(axis=0)) / m
    widest_sd = float(prior_sd.max())
    queue_len = len(order)
    if tightest_at is None:
        if target_half_width is not None:
            tightest_at = labels_for_half_width(widest_sd, float(target_half_width), alpha=alpha)
        elif dec is not None:  # the gap the judge's own labels leave to the threshold
            if dec.kind == "share":
                c = [str(x) for x in classes].index(dec.label)
                guess, sd = float(base[:, c].mean()), float(prior_sd[c])
            else:
                guess = float(base[np.arange(m), machine].mean())
                sd = float(np.sqrt((base[np.arange(m), machine]
                                    * (1 - base[np.arange(m), machine])).mean()))
            tightest_at = labels_for_half_width(sd, max(abs(guess - dec.threshold), 0.01),
                                                alpha=alpha)
        else:
            tightest_at = max(1, queue_len // 2)
        tightest_at = int(min(max(tightest_at, 1), max(queue_len, 1)))
    out: dict[str, Any] = {"M": int(m), "labels": n, "queue": int(queue_len),
                           "confidence": float(confidence_level), "anytime": True,
                           "relative_to": "annotators", "tightest_at": int(tightest_at),
                           "sequence": method,
                           "method": "confidence sequence: Des Raj-type terms of a successive "
                                     "sample with a recalibrated control, " + (
                                         "Gaussian-mixture boundary (asymptotic, valid at "
                                         "every number of labels as they grow)"
                                         if method == "asymptotic" else
                                         "hedged betting (valid in finite samples at every "
                                         "number of labels)"),
                           "labels_after_gap": after_gap}
    machine_share = np.bincount(machine, minlength=k) / m
    if n == 0:
        out.update({"class_shares": {str(c): {"estimate": None, "ci_low": 0.0, "ci_high": 1.0,
                                              "machine_only": float(machine_share[i])}
                                     for i, c in enumerate(classes)},
                    "accuracy": {"estimate": None, "ci_low": 0.0, "ci_high": 1.0},
                    "by_group": {}, "trace": [], "price": None,
                    "stop": {"reached": False, "labels": 0, "reason": "no labels yet"},
                    "decision": None if dec is None else {"question": dec.text, "decided": False,
                                                          "answer": None, "labels": None},
                    "notes": notes + ["no label yet in queue order"]})
        return out
    order_l = np.asarray(order, dtype=np.int64)[:n]
    terms, stds, hits, t_low, t_high = sequence_terms(
        targets, machine=machine, confidence=confidence, n_classes=k, order=order_l,
        draw_probability=np.asarray(draw_probability, dtype=float)[:n], human=human[:n],
        weights=weight_segments(weights, m), recalibrate=recalibrate, with_bounds=True)
    nt = len(targets)
    mean = np.zeros((n, nt))
    lower = np.zeros((n, nt))
    upper = np.ones((n, nt))
    if method == "betting" and np.any((terms < t_low - 1e-9) | (terms > t_high + 1e-9)):
        raise DataError("the draw probabilities do not match the draw weights: the betting "
                        "sequence needs the stream's own draw_weight column (use the "
                        "asymptotic sequence)")
    for j in range(nt):
        if targets[j].domain.sum() == 0:
            continue
        sd = stds[:, j]
        if not np.any(sd[: min(tightest_at, n)] > 0):
            sd = np.maximum(sd, 1e-12)
        mean[:, j], radius = asymptotic_sequence(terms[:, j], sd, alpha=alpha,
                                                 tightest_at=tightest_at)
        if method == "betting":
            lower[:, j], upper[:, j] = betting_sequence(terms[:, j], sd, t_low[:, j],
                                                        t_high[:, j], alpha=alpha)
        else:
            lower[:, j], upper[:, j] = mean[:, j] - radius, mean[:, j] + radius
    # the final labels at n labels: the labelled rows' (right by definition) plus the machine's
    # right answers elsewhere: known part + (machine accuracy) - the labelled rows it got right
    sizes = np.array([t.domain.sum() for t in targets], dtype=float)
    labelled_in = np.cumsum(np.stack([t.domain[order_l] for t in targets], axis=1), axis=0)
    right_in = np.cumsum(hits, axis=0)

    def look(t: int) -> dict[str, Any]:
        """Every interval at label count t + 1."""
        shares = {str(c): _interval(mean[t, i], lower[t, i], upper[t, i])
                  for i, c in enumerate(classes)}
        acc = {}
        for j in range(k, nt):
            if sizes[j] == 0:
                continue
            known = (labelled_in[t, j] - right_in[t, j]) / sizes[j]
            floor = labelled_in[t, j] / sizes[j]
            iv = _interval(known + mean[t, j], known + lower[t, j], known + upper[t, j],
                           floor, 1.0)
            acc[j] = iv
        return {"shares": shares, "acc": acc}

    step = int(trace_every)
    looks = sorted(set(list(range(step - 1, n, step)) + [n - 1]))
    trace = []
    for t in looks:
        lk = look(t)
        trace.append({"labels": t + 1, "class_shares": lk["shares"], "accuracy": lk["acc"][k]})
    final = look(n - 1)
    out["class_shares"] = {c: {**iv, "machine_only": float(machine_share[i])}
                           for i, (c, iv) in enumerate(final["shares"].items())}
    out["accuracy"] = final["acc"][k]
    by_group: dict[str, dict] = {}
    for (col, value), j in zip(group_keys, range(k + 1, nt)):
        if sizes[j] == 0:
            continue
        by_group.setdefault(col, {})[str(value)] = {
            "accuracy": final["acc"].get(j), "M": int(sizes[j]),
            "n_labelled": int(labelled_in[n - 1, j])}
    out["by_group"] = by_group
    out["trace"] = trace
    # what the sequence is built from, one batch per label: anyone can recompute it (GLIDE's
    # AsymptoticConfidenceSequence on these, each side at alpha / 2, tightest at tightest_at)
    known = (labelled_in[:, k] - right_in[:, k]) / sizes[k]
    out["batches"] = {
        "class_shares": {str(c): {"estimates": terms[:, i].tolist(), "stds": stds[:, i].tolist()}
                         for i, c in enumerate(classes)},
        "accuracy": {"estimates": terms[:, k].tolist(), "stds": stds[:, k].tolist(),
                     "offset": known.tolist()}}
    half = (upper - lower) / 2
    widest = half[:, :k].max(axis=1)
    if target_half_width is not None:
        hit = np.flatnonzero(widest <= float(target_half_width))
        out["stop"] = ({"reached": True, "labels": int(hit[0]) + 1,
                        "reason": f"the widest class share's half-width reached "
                                  f"{widest[hit[0]]:.4f} <= {float(target_half_width):g}"}
                       if len(hit) else
                       {"reached": False, "labels": n,
                        "reason": f"the widest half-width is {widest[-1]:.4f} after {n:,} labels, "
                                  f"above the target {float(target_half_width):g}"})
    else:
        out["stop"] = None
    if dec is not None:
        j = [str(c) for c in classes].index(dec.label) if dec.kind == "share" else k
        if dec.kind == "share":
            low = np.clip(lower[:, j], 0, 1)
            high = np.clip(upper[:, j], 0, 1)
        else:
            known = (labelled_in[:, j] - right_in[:, j]) / sizes[j]
            low = np.clip(known + lower[:, j], 0, 1)
            high = np.clip(known + upper[:, j], 0, 1)
        at, answer = _decide(dec, low, high)
        out["decision"] = {"question": dec.text, "decided": at is not None, "answer": answer,
                           "labels": None if at is None else at + 1}
        if out["stop"] is None and at is not None:
            out["stop"] = {"reached": True, "labels": at + 1,
                           "reason": f"decided: {dec.text} is {'true' if answer else 'false'}"}
        elif out["stop"] is None:
            out["stop"] = {"reached": False, "labels": n,
                           "reason": f"not decided yet after {n:,} labels"}
    else:
        out["decision"] = None
    # the price of looking at every label: this radius against a fixed-n normal interval's
    z = z_value(1.0 - alpha)
    fixed = z * np.sqrt(np.cumsum(stds[:, :k] ** 2, axis=0)) / np.arange(1, n + 1)[:, None]
    c = int(np.argmax(half[-1, :k]))
    out["price"] = {"ratio": float(half[-1, c] / fixed[-1, c]) if fixed[-1, c] > 0 else None,
                    "fixed_n_half_width": float(fixed[-1, c]),
                    "sequence_half_width": float(half[-1, c])}
    out["notes"] = notes
    return out

