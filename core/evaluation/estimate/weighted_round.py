"""The weighted estimators on a round's table: overall, by group, and the groups worse than the rest.

:mod:`core.evaluation.estimate.weighted` holds the estimators on coded arrays; this module reads a
:class:`~core.evaluation.sampling.design.Design` into them (:func:`design_arrays`), gives each group's
final-label accuracy with its interval and names the groups significantly worse than the rest
(:func:`group_accuracy`, for every design, routing included), and writes the
``hmceval estimate`` object of a round planned with inclusion probabilities
(:func:`estimate_weighted_design`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.evaluation.estimate.anytime import anytime_estimate
from core.evaluation.estimate.weighted import table_controls, weighted_estimates, worse_groups
from core.evaluation.estimate.two_stage import two_stage_estimates
from core.evaluation.sampling.design import coded_classes

__all__ = ["group_values", "design_arrays", "design_covariates", "group_accuracy",
           "worse_group_sentence", "estimate_weighted_design", "stream_design_estimate",
           "ESTIMATE_KEYS"]

#: Keys of one ``hmceval estimate --json`` object (stable contract), in order; the same for every
#: design (:func:`core.evaluation.estimate.shares.estimate`, which imports them from here: this module
#: sits below it and never imports it).
ESTIMATE_KEYS = ("M", "n_calibration", "n_routed", "n_audit", "n_machine", "confidence",
                 "class_shares", "accuracy", "random_equivalent", "by_group")


def group_values(design, col: str):
    """A group column's values (missing as ``"(missing)"``) and its sorted distinct values.

    Raises
    ------
    DataError
        The column is not in the table, or has more than 200 distinct values.
    """
    import pandas as pd

    from core.errors import DataError

    raw = design.data.raw
    if col not in raw.columns:
        raise DataError(f"group column '{col}' is not in the table; available: "
                        f"{', '.join(map(str, raw.columns))}")
    values = raw[col].astype(object).where(raw[col].notna(), "(missing)")
    uniq = pd.unique(values)
    if len(uniq) > 200:
        raise DataError(f"group column '{col}' has {len(uniq)} distinct values; a group "
                        "column needs at most 200")
    return values, sorted(uniq, key=lambda x: (str(type(x)), str(x)))


def design_arrays(design) -> dict[str, Any]:
    """The coded arrays of a round's table for the weighted estimators.

    For a round planned with inclusion probabilities they are the stored ones (scaled down
    on audit rows when only part of the drawn audit is labelled: the labelled audit rows are
    then a random subsample of the drawn ones, since the queue lists them in random order).
    For routing with a uniform audit (no stored probabilities) routed and calibration rows
    get 1 and every kept row the audit's sampling rate n_A / N_K.

    Returns
    -------
    dict
        ``classes``, ``machine``, ``human``, ``labelled``, ``pi``, ``q``, ``effort``,
        ``notes``.
    """
    from core.errors import DataError, describe_rows
    from core.evaluation.sampling.design import LABELLED

    sel = np.asarray(design.selection, dtype=object)
    undecided = np.flatnonzero(sel == "")
    if len(undecided):
        raise DataError(f"{len(undecided)} rows have no selection ({describe_rows(undecided)}); "
                        "plan them first (hmceval queue or hmceval certify)")
    has = design.has_label & np.isin(sel, LABELLED)
    for word in ("calibration", "routed"):
        missing = np.flatnonzero((sel == word) & ~design.has_label)
        if len(missing):
            raise DataError(f"{len(missing)} {word} rows have no human label: "
                            f"{describe_rows(missing, limit=10)}; label them (or import their "
                            "labels) before estimating")
    classes, machine = coded_classes(design.machine_label,
                                     {v for v, ok in zip(design.human_label, has) if ok})
    index = {v: i for i, v in enumerate(classes)}
    human = np.full(design.M, -1, dtype=np.int64)
    for i in np.flatnonzero(has):
        human[i] = index[design.human_label[i]]
    notes: list[str] = []
    audit = sel == "audit"
    if design.inclusion is not None:
        if (sel == "calibration").any():
            raise DataError("a calibration sample in a round planned with inclusion "
                            "probabilities is not supported yet: plan guarantee rounds without "
                            "the inclusion_probability column")
        pi = np.asarray(design.inclusion, dtype=float).copy()
        n_audit, n_done = int(audit.sum()), int((audit & has).sum())
        if n_done < n_audit:
            frac = n_done / n_audit if n_audit else 0.0
            pi = np.where(pi < 1, pi * max(frac, 1e-12), pi)
            notes.append(f"{n_audit - n_done:,} of the {n_audit:,} drawn audit rows have no "
                         "human label yet: the labelled ones are taken as a random subsample "
                         f"of them (inclusion probabilities scaled by {frac:.3f}; valid if "
                         "they were labelled in queue order)")
    else:
        kept = np.isin(sel, ("audit", "machine"))
        n_kept, n_a = int(kept.sum()), int((audit & has).sum())
        rate = n_a / n_kept if n_kept else 1.0
        pi = np.where(kept, max(rate, 1e-12), 1.0)
    inp = design.inputs()
    return {"classes": classes, "machine": machine, "human": human, "labelled": has,
            "pi": pi, "q": np.asarray(inp.a, dtype=float), "effort": np.asarray(inp.l, float),
            "notes": notes}


def design_covariates(design, groups: list[str] | None) -> np.ndarray | None:
    """The covariates of the ``"covariates"`` control (:mod:`core.evaluation.estimate.controls`).

    One indicator per value of each group column, and every further judge's confidence
    column the table has (``EvalData.confidence_columns`` after the one in use; missing
    values as the column's mean). Array of shape (M, p), or None when there is none.
    """
    import pandas as pd

    parts = []
    for col in groups or []:
        values, uniq = group_values(design, col)
        if len(uniq) > 1:
            codes = pd.Categorical(values.astype(str), categories=[str(u) for u in uniq]).codes
            parts.append(np.eye(len(uniq))[codes])
    raw = design.data.raw
    for col in list(getattr(design.data, "confidence_columns", []))[1:]:
        if col not in raw.columns:
            continue
        v = pd.to_numeric(raw[col], errors="coerce").to_numpy(dtype=float)
        ok = np.isfinite(v)
        if ok.sum() < 2 or np.ptp(v[ok]) == 0:
            continue
        parts.append(np.where(ok, v, v[ok].mean())[:, None])
    return np.column_stack(parts) if parts else None


def group_accuracy(design, groups: list[str] | None, *, confidence: float = 0.95
                   ) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], list[str]]:
    """Each group's final-label accuracy with its interval, and the groups worse than the rest.

    Parameters
    ----------
    design : Design
        A round's table (active, random or routing design).
    groups : list of str
        Group columns.
    confidence : float, default=0.95

    Returns
    -------
    (by_group, worse, notes)
        ``by_group``: column -> value -> ``estimate``, ``ci_low``, ``ci_high``,
        ``conservative``, ``machine_accuracy``, ``human_share``, ``effort``, ``M``;
        ``worse``: :func:`worse_groups` of every column, each with its ``column``;
        ``notes``: one sentence per worse group, with the cause in numbers.
    """
    from core.data.keys import label_key

    arr = design_arrays(design)
    k = max(len(arr["classes"]), 2)
    ctrl = table_controls(arr["machine"], arr["human"], arr["labelled"], arr["pi"], arr["q"],
                          n_classes=k, covariates=design_covariates(design, groups))
    roles = design.data.roles
    has_effort = roles.get("predicted_effort") is not None or \
        roles.get("human_effort") is not None

    def part(mask: np.ndarray) -> dict[str, Any]:
        sub = {key: (v[mask] if isinstance(v, np.ndarray) and v.shape[:1] == mask.shape
                     else v) for key, v in ctrl.items()}
        r = weighted_estimates(arr["machine"][mask], arr["human"][mask], arr["labelled"][mask],
                               arr["pi"][mask], arr["q"][mask], n_classes=k,
                               confidence=confidence, controls=sub)
        r["human_share"] = float(arr["labelled"][mask].mean()) if mask.any() else None
        r["effort"] = (float(arr["effort"][mask].mean()) if mask.any() and has_effort
                       else None)
        return r

    by_group: dict[str, dict[str, Any]] = {}
    worse: list[dict[str, Any]] = []
    notes: list[str] = []
    for col in groups or []:
        values, uniq = group_values(design, col)
        own, rest = {}, {}
        by_group[col] = {}
        for v in uniq:
            mask = (values == v).to_numpy()
            key = label_key(v, strip=False)
            own[key], rest[key] = part(mask), part(~mask)
            a = own[key]["accuracy"]
            by_group[col][key] = {"M": int(mask.sum()), "estimate": a["estimate"],
                                  "ci_low": a["ci_low"], "ci_high": a["ci_high"],
                                  "conservative": a["conservative"],
                                  "machine_accuracy": own[key]["machine_accuracy"],
                                  "human_share": own[key]["human_share"],
                                  "effort": own[key]["effort"]}
        for w in worse_groups(own, rest):
            w = {"column": col, **w}
            worse.append(w)
            notes.append(worse_group_sentence(w))
    return by_group, worse, notes


def worse_group_sentence(w: dict[str, Any]) -> str:
    """One sentence naming a worse group and its cause in numbers (the machine's accuracy is
    the design-weighted estimate over the group's rows, from its labelled rows)."""
    from core.format import pct

    parts = [f"{w['column']} = {w['group']}: final labels {pct(w['accuracy'])} accurate "
             f"against {pct(w['rest_accuracy'])} for the rest (significantly worse)"]
    cause = []
    if w.get("machine_accuracy") is not None:
        cause.append(f"the machine is right on an estimated {pct(w['machine_accuracy'])} of "
                     f"its rows, judged from the labelled ones (rest "
                     f"{pct(w['rest_machine_accuracy'])})")
    if w.get("human_share") is not None:
        cause.append(f"humans label {pct(w['human_share'])} of its rows (rest "
                     f"{pct(w['rest_human_share'])})")
    if w.get("effort") is not None and w.get("rest_effort"):
        cause.append(f"its effort per row is {w['effort'] / w['rest_effort']:.2f}x the rest's")
    if cause:
        parts.append("; ".join(cause))
    return ": ".join(parts) + "; fix: give it a minimum human share, or plan a design " \
        "stratified by this column."


def estimate_weighted_design(design, *, groups: list[str] | None = None,
                             confidence: float = 0.95) -> dict[str, Any]:
    """The ``hmceval estimate --json`` object of a round planned with inclusion probabilities.

    The same keys as :func:`core.evaluation.estimate.shares.estimate` (each class share with
    ``estimate``, ``ci_low``, ``ci_high``, ``machine_only``, ``half_width``,
    ``random_half_width``, ``random_equivalent``), plus ``design`` (``"active"`` or
    ``"random"``), ``method`` and ``worse_groups``; ``by_group`` holds the same object for each
    group value, and ``notes`` names every group whose final labels are significantly worse
    than the rest. A round planned on a fully labelled earlier round drawn with known
    probabilities (``design.pilot_rows``) is estimated over the whole table by
    :func:`core.evaluation.estimate.two_stage.two_stage_estimates` (method ``"two-stage"``);
    its groups as any round.
    """
    from core.data.keys import label_key

    arr = design_arrays(design)
    k = max(len(arr["classes"]), 2)
    keys = [label_key(v, strip=False) for v in arr["classes"]]
    sel = np.asarray(design.selection, dtype=object)
    cov = design_covariates(design, groups)
    ctrl = table_controls(arr["machine"], arr["human"], arr["labelled"], arr["pi"], arr["q"],
                          n_classes=k, covariates=cov)
    pi = np.asarray(design.inclusion, dtype=float)
    kind = "random" if not (pi >= 1).any() and np.ptp(pi) == 0 else "active"
    pilot = getattr(design, "pilot_rows", None)
    if pilot is not None and not (arr["labelled"][pilot]).all():
        pilot = None

    def one(mask: np.ndarray, *, whole: bool) -> dict[str, Any]:
        sub = None if whole else {key: (v[mask] if isinstance(v, np.ndarray)
                                        and v.shape[:1] == mask.shape else v)
                                  for key, v in ctrl.items()}
        if whole and pilot is not None:  # two batches: the pilot a sample of the table too
            r = two_stage_estimates(arr["machine"], arr["human"], arr["labelled"], arr["pi"],
                                    arr["q"], n_classes=k, confidence=confidence,
                                    pilot=pilot, pilot_pi=design.pilot_inclusion,
                                    covariates=cov)
        else:
            r = weighted_estimates(arr["machine"][mask], arr["human"][mask],
                                   arr["labelled"][mask], arr["pi"][mask], arr["q"][mask],
                                   n_classes=k, confidence=confidence, controls=sub,
                                   covariates=cov if whole else None)
        shares = dict(zip(keys, r["class_shares"]))
        lab, s = arr["labelled"][mask], sel[mask]
        right = arr["human"][mask] == arr["machine"][mask]
        acc = {key: r["accuracy"][key] for key in ("estimate", "ci_low", "ci_high",
                                                   "conservative")}
        return {"M": r["M"], "n_calibration": 0, "n_routed": int((s == "routed").sum()),
                "n_audit": int((lab & (s == "audit")).sum()),
                "n_machine": int((~lab).sum()), "confidence": confidence,
                "class_shares": shares, "accuracy": acc,
                "random_equivalent": {key: v.get("random_equivalent")
                                      for key, v in shares.items()},
                "n_labelled": r["n_labelled"],
                "audit_errors": int((lab & (s == "audit") & ~right).sum()),
                "notes": list(r["notes"]), "method": r["method"],
                "machine_accuracy": r["machine_accuracy"]}

    out = one(np.ones(design.M, dtype=bool), whole=True)
    out["notes"] = list(arr["notes"]) + out["notes"]
    by_group: dict[str, Any] = {}
    for col in groups or []:
        values, uniq = group_values(design, col)
        by_group[col] = {label_key(v, strip=False): one((values == v).to_numpy(), whole=False)
                         for v in uniq}
    out["by_group"] = by_group
    worse: list[dict[str, Any]] = []
    if groups:
        _, worse, wnotes = group_accuracy(design, groups, confidence=confidence)
        out["notes"] += wnotes
    ordered = {key: out[key] for key in ESTIMATE_KEYS}
    ordered.update({key: out[key] for key in ("n_labelled", "audit_errors", "notes")})
    ordered.update({"design": kind, "method": out["method"], "worse_groups": worse})
    return ordered


def stream_design_estimate(design, *, order: np.ndarray, draw_probability: np.ndarray,
                           weights=None, groups: list[str] | None = None,
                           confidence: float = 0.95, trace_every: int = 10,
                           target_half_width: float | None = None, decide: str | None = None,
                           tightest_at: int | None = None, method: str = "asymptotic") -> dict:
    """:func:`core.evaluation.estimate.anytime.anytime_estimate` on a round's table.

    Parameters
    ----------
    design : Design
        The round's table with the labels taken back so far.
    order, draw_probability : arrays of shape (Q,)
        The stream's queue (:class:`core.evaluation.sampling.stream.StreamPlan`).
    weights : array of shape (M,) or list of (int, array), optional
        The draw weights, or :attr:`StreamPlan.segments` for a re-planned stream.
    groups : list of str, optional
        Group columns of the table.
    """
    order = np.asarray(order, dtype=np.int64)
    has = np.asarray(design.has_label, dtype=bool)
    classes, machine = coded_classes(design.machine_label,
                                     (v for v, ok in zip(design.human_label, has) if ok))
    index = {v: i for i, v in enumerate(classes)}
    human = np.array([index[design.human_label[i]] if has[i] else -1 for i in order],
                     dtype=np.int64)
    inp = design.inputs()
    cols = {}
    for col in groups or []:
        values, _ = group_values(design, col)
        cols[col] = np.asarray(values, dtype=object)
    res = anytime_estimate(classes=classes, machine=machine, confidence=np.asarray(inp.a, float),
                           order=order, draw_probability=draw_probability, human=human,
                           weights=weights, groups=cols, confidence_level=confidence,
                           trace_every=trace_every, target_half_width=target_half_width,
                           decide=decide, tightest_at=tightest_at, method=method)
    outside = int((has & ~np.isin(np.arange(design.M), order)).sum())
    if outside:
        res["notes"].append(f"{outside:,} labelled rows are not in the stream's queue: left out")
    return res
