"""A round planned with inclusion probabilities (the active or random design), for the workspace.

:mod:`core.workspace.rounds` plans and reads every round; this module holds what only a round
with inclusion probabilities needs: the plan from the round's settings (:func:`plan_weighted`,
also stratified by a group column), the design's record kept with the round
(:func:`design_record`: its expectations and frontier), the per-group accuracy as a table
(:func:`group_table`) and the one-click fix for a group whose final labels are worse than the
rest (:func:`suggested_share`, :func:`fix_settings`).

Settings of such a round (``kind="budget"``): ``design`` (``"active"``, ``"random"`` or
``"pilot"``, the first of two batches, whose ``labels`` is the whole budget), the
budget as ``labels`` or ``effort_budget`` (in the predicted effort's own unit), ``seed``,
optionally ``lam`` (the ranking's lambda, default 0), ``stratify`` (a group column) and
``min_share`` (group -> least human share in that group), ``width_ratio`` (the active
design's recommended width against random labelling, ``hmceval queue --width-ratio``),
``calibrate_on`` (an earlier round of the same dataset whose labels the plan rests on and
carries, ``hmceval queue --calibrate-on ID``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError
from core.evaluation.estimate import estimator_half_width
from core.evaluation.sampling import (LABELLED, Design, EarlierLabels, plan_design, QueuePlan,
                                      srs_size_for_half_width)

__all__ = ["WEIGHTED_DESIGNS", "is_weighted", "budget_of", "plan_weighted", "plan_calibration",
           "design_record", "earlier_labels", "earlier_rounds", "find_dataset_id",
           "group_table", "suggested_share", "fix_settings", "fix_shortfall", "with_pilot"]

#: The designs of a budget round planned with inclusion probabilities.
WEIGHTED_DESIGNS: tuple[str, ...] = ("active", "random", "pilot")


def is_weighted(settings: dict[str, Any]) -> bool:
    """Whether a budget round's settings ask for the active or random design."""
    return settings.get("design", "routing") in WEIGHTED_DESIGNS


def budget_of(settings: dict[str, Any]) -> dict[str, float]:
    """``{"labels": B}`` or ``{"effort_budget": E}`` from a round's settings.

    Raises
    ------
    DataError
        Neither or both given, or not a number (the field is named).
    """
    given = {k: settings.get(k) for k in ("labels", "effort_budget")
             if settings.get(k) is not None}
    if len(given) != 1:
        raise DataError("an active or random design needs its budget: 'labels' (expected "
                        "labels) or 'effort_budget' (expected predicted effort), one of them")
    (key, value), = given.items()
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise DataError(f"'{key}' (the budget) must be a number, got {value!r}") from None
    if not np.isfinite(value) or value <= 0:
        raise DataError(f"'{key}' (the budget) must be a number > 0, got {value:g}")
    return {key: value}


def plan_weighted(design: Design, settings: dict[str, Any],
                  earlier: EarlierLabels | None = None
                  ) -> tuple[QueuePlan, pd.DataFrame | None]:
    """Plan an active or random design from a round's settings (undecided ``design``).

    ``earlier``: labels of an earlier round (settings ``calibrate_on``, resolved by
    :func:`core.workspace.rounds.earlier_labels`) the plan rests on and carries
    (:func:`core.evaluation.sampling.plan.plan_design`).

    Returns
    -------
    (QueuePlan, strata)
        ``strata``: one row per group of a stratified design
        (:func:`core.evaluation.sampling.stratified.plan_stratified`), else None.
    """
    which = settings.get("design")
    if which not in WEIGHTED_DESIGNS:
        raise DataError(f"design must be one of {', '.join(WEIGHTED_DESIGNS)}, got {which!r}")
    budget = budget_of(settings)
    seed = int(settings.get("seed", 0))
    lam = float(settings.get("lam", 0.0))
    if settings.get("stratify"):
        from core.evaluation.sampling import plan_stratified

        if which != "active":
            raise DataError("only the active design is stratified by a group column")
        if earlier is not None:
            raise DataError("a design stratified by a group column is not planned on an "
                            "earlier round's labels yet; plan it without 'calibrate_on'")
        return plan_stratified(design, str(settings["stratify"]),
                               min_share=settings.get("min_share") or None, lam=lam, seed=seed,
                               **budget)
    ratio = settings.get("width_ratio")  # hmceval queue --width-ratio
    return plan_design(design, kind=which, lam=lam, seed=seed,
                       width_ratio=None if ratio is None else float(ratio), earlier=earlier,
                       pilot_half=_pilot_half(design, earlier) if which == "active" else None,
                       width_model=estimator_half_width, **budget), None


def _pilot_half(design: Design, earlier: EarlierLabels | None) -> float | None:
    """The pilot's own half-width when ``earlier`` is the pilot of two batches (its
    ``inclusion`` known): the second batch is planned for the two-stage interval."""
    if earlier is None or earlier.inclusion is None:
        return None
    from core.evaluation.estimate import pilot_half_width

    classes = list(design.data.labels)
    index = {v: i for i, v in enumerate(classes)}
    if any(v not in index for v in earlier.labels) or len(earlier.inclusion) != design.M:
        return None  # plan_design names what is wrong
    codes = np.fromiter((index[v] for v in design.machine_label), dtype=np.int64,
                        count=design.M)
    return pilot_half_width(codes, design.inputs().a, max(len(classes), 2),
                            rows=np.asarray(earlier.rows, dtype=np.int64),
                            human_codes=np.array([index[v] for v in earlier.labels]),
                            pilot_pi=np.asarray(earlier.inclusion, dtype=float))


def earlier_labels(ws: Any, data: Any, round_id: Any) -> EarlierLabels:
    """The labels of round ``round_id`` of the same dataset, for a new round planned on them
    (settings ``calibrate_on``): its labelled rows (calibration, routed, audit), weighted by
    1 / their inclusion probability where the round has them (equal weights otherwise).

    Parameters
    ----------
    ws : core.workspace.Workspace
    data : EvalData
        The table the new round is planned on.
    round_id : int
        The earlier round.

    Raises
    ------
    DataError
        Not a round id, no such round, a round of another dataset, or one without labels.
    """
    try:
        rid = int(round_id)
    except (TypeError, ValueError):
        raise DataError(f"'calibrate_on' must be a round id, got {round_id!r}") from None
    rnd = ws.round(rid)
    if rnd["dataset_id"] != find_dataset_id(ws, data):
        raise DataError(f"round #{rid} was planned on another dataset: a round is planned on "
                        "the labels of an earlier round of the same table")
    given = ws.round_labels(rid)
    sel = np.asarray(rnd["selection"], dtype=object)
    rows = np.array(sorted(r for r in given if sel[r] in LABELLED), dtype=np.int64)
    if not len(rows):
        raise DataError(f"round #{rid} has no labels yet to plan on")
    pi = rnd.get("inclusion")
    weights = None
    if pi is not None and np.all(np.isfinite(np.asarray(pi, dtype=float)[rows])):
        weights = 1 / np.asarray(pi, dtype=float)[rows]
    inclusion = None  # drawn with known probabilities, every drawn row labelled: a pilot
    # the round planned on it is estimated in two stages (with_pilot), so planned for that
    if weights is not None and len(rows) == int(np.isin(sel, LABELLED).sum()):
        p1 = np.asarray(pi, dtype=float)
        if np.all(np.isfinite(p1)) and p1.min() > 0:
            inclusion = p1
    return EarlierLabels(rows=rows, labels=np.array([given[r] for r in rows], dtype=object),
                         weights=weights, source=f"round {rid}", inclusion=inclusion)


def with_pilot(ws: Any, rnd: dict[str, Any], design: Any) -> Any:
    """``design`` with the pilot it was planned on (``pilot_rows``, ``pilot_inclusion``) when
    the round was planned on an earlier round's labels (settings ``calibrate_on``) whose rows
    were drawn with known probabilities and all labelled: its estimate then uses the pilot as a
    sample of the table too (:mod:`core.evaluation.estimate.two_stage`). Otherwise (no earlier
    round, routing, a pilot labelled in part) ``design`` as it is."""
    import dataclasses

    source = (rnd.get("settings") or {}).get("calibrate_on")
    if source is None or design.inclusion is None:
        return design
    try:
        early = ws.round(int(source))
    except (DataError, TypeError, ValueError):
        return design
    p1 = early.get("inclusion")
    if p1 is None or early.get("dataset_id") != rnd.get("dataset_id"):
        return design
    p1 = np.asarray(p1, dtype=float)
    drawn = np.isin(np.asarray(early["selection"], dtype=object), LABELLED)
    given = ws.round_labels(int(source))
    if len(p1) != design.M or not np.all(np.isfinite(p1)) or p1.min() <= 0 \
            or any(int(r) not in given for r in np.flatnonzero(drawn)) \
            or not (design.has_label[drawn]).all():
        return design
    return dataclasses.replace(design, pilot_rows=drawn, pilot_inclusion=p1)


def earlier_rounds(ws: Any, data: Any) -> list[dict[str, Any]]:
    """The rounds of this dataset with enough labels to plan a new round on: ``id`` and
    ``labels`` (labelled rows), newest first; empty when the workspace does not hold the
    dataset."""
    from core.evaluation.sampling import MIN_CALIBRATION_LABELS

    dsid = find_dataset_id(ws, data)
    if dsid is None:
        return []
    listed = ws.list_rounds(dsid)
    ok = listed[listed["n_labelled"] >= MIN_CALIBRATION_LABELS]
    return [{"id": int(r.id), "labels": int(r.n_labelled)} for r in ok.itertuples()]


def find_dataset_id(ws: Any, data: Any) -> int | None:
    """The id of the dataset if the workspace holds it (same content and mapping), else None;
    stores nothing."""
    return ws.find_dataset(data.raw, dict(data.roles), content_id=getattr(data, "content_id",
                                                                          None))


def plan_calibration(design: Design, calibration: int, *, seed: int = 0,
                     lam: float = 0.0) -> QueuePlan:
    """A guarantee round's calibration sample drawn with unequal probabilities (``hmceval queue
    --calibration N_C --design active``): the active design for a budget of ``calibration``
    expected labels (:func:`core.evaluation.sampling.plan.plan_design`), every drawn row (pi = 1 or
    drawn with pi < 1) a ``calibration`` row, the others undecided; every row keeps its pi,
    which the overall-error certificate weighs
    (:func:`core.evaluation.certify.overall.certify_overall_weighted_arrays`).
    """
    if not isinstance(calibration, (int, np.integer)) or calibration < 1:
        raise DataError(f"calibration must be a whole number >= 1, got {calibration}")
    if calibration > design.M:
        raise DataError(f"calibration {calibration:,} is larger than the table's {design.M:,} "
                        "rows")
    plan = plan_design(design, kind="active", labels=float(calibration), lam=lam, seed=seed)
    drawn = np.isin(plan.selection, ("routed", "audit"))
    sel = np.where(drawn, "calibration", "").astype(object)
    order = np.flatnonzero(drawn)
    rng = np.random.default_rng([int(seed), 1])  # the labelling order: random, as for SRS
    rank = np.full(design.M, np.nan)
    rank[rng.permutation(order)] = np.arange(1, len(order) + 1, dtype=float)
    counts = {"calibration": int(drawn.sum()), "": int((~drawn).sum())}
    return QueuePlan(selection=sel, queue_rank=rank, n_budget=None, lam=float(lam),
                     seed=int(seed), counts=counts, inclusion=plan.inclusion,
                     design=plan.design)


def design_record(plan: QueuePlan, strata: pd.DataFrame | None = None) -> dict[str, Any]:
    """What is kept with the round about its design (stored as its ``design`` result): the
    planned design's :meth:`ActiveDesign.summary`, ``frontier`` (list of rows, or None) and
    ``strata`` (list of rows, or None)."""
    d = plan.design
    frontier = d.frontier if d is not None else None
    out = dict(d.summary()) if d is not None else {"design": "active"}
    # NaN (routing's missing interval, random's mu) kept as None: the record and the CLI's
    # JSON stay strict JSON
    out["frontier"] = None if frontier is None else \
        frontier.astype(object).where(frontier.notna(), None).to_dict("records")
    out["budget_unit"] = None if frontier is None else frontier.attrs.get("budget_unit")
    carried = plan.carried
    out["calibrated_on"] = None if carried is None else {
        "source": carried.source, "labels": int(len(carried.rows))}
    out["expected_range"] = getattr(plan, "expected_range", None)
    out["strata"] = None if strata is None else strata.to_dict("records")
    return out


def _worth(m: int, estimate: float | None, low: float | None, high: float | None,
           confidence: float) -> int | None:
    """Rows of the group a simple random sample needs for an accuracy interval this wide."""
    if estimate is None or low is None or high is None:
        return None
    half = (high - low) / 2
    return srs_size_for_half_width(m, estimate * (1 - estimate), half, confidence=confidence)


def group_table(by_group: dict[str, dict[str, Any]], worse: list[dict[str, Any]], *,
                confidence: float = 0.95) -> pd.DataFrame:
    """Each group's final-label accuracy as a table, worse groups flagged.

    Parameters
    ----------
    by_group, worse : as returned by
        :func:`core.evaluation.estimate.weighted_round.group_accuracy`.

    Returns
    -------
    pandas.DataFrame
        ``column``, ``group``, ``rows``, ``accuracy``, ``ci_low``, ``ci_high``,
        ``worth_random`` (the group's rows labelled at random that give an accuracy interval
        as narrow, for an accuracy of ``accuracy``), ``machine_accuracy`` (on its labelled
        rows), ``human_share``, ``effort`` (mean per row), ``worse`` (bool),
        ``conservative`` (bool: too few labels for the normal interval).
    """
    flagged = {(w["column"], str(w["group"])) for w in worse}
    rows = []
    for col, values in by_group.items():
        for value, r in values.items():
            rows.append({"column": col, "group": str(value), "rows": int(r["M"]),
                         "accuracy": r["estimate"], "ci_low": r["ci_low"],
                         "ci_high": r["ci_high"],
                         "worth_random": _worth(int(r["M"]), r["estimate"], r["ci_low"],
                                                r["ci_high"], confidence),
                         "machine_accuracy": r.get("machine_accuracy"),
                         "human_share": r.get("human_share"), "effort": r.get("effort"),
                         "worse": (col, str(value)) in flagged,
                         "conservative": bool(r.get("conservative"))})
    cols = ["column", "group", "rows", "accuracy", "ci_low", "ci_high", "worth_random",
            "machine_accuracy", "human_share", "effort", "worse", "conservative"]
    out = pd.DataFrame(rows, columns=cols)
    for c in ("accuracy", "ci_low", "ci_high", "machine_accuracy", "human_share", "effort"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype(float)
    out["worth_random"] = out["worth_random"].astype("Int64")
    return out


def suggested_share(worse: dict[str, Any]) -> float:
    """The least human share for a worse group at which its final labels would be expected to
    be as accurate as the rest's.

    With h of its rows labelled by humans (taken as right) and the machine right on a share m
    of the others, its final labels are right on about h + (1 - h) m; equal to the rest's
    accuracy a_r when h = (a_r - m) / (1 - m). ``m`` is the machine's accuracy on the group's
    labelled rows (the best estimate the round has). Clipped to [its current share, 1];
    without a machine accuracy, twice its current share (at most 1).

    Examples
    --------
    >>> suggested_share({"rest_accuracy": 0.96, "machine_accuracy": 0.58, "human_share": 0.3})
    0.9048
    """
    now = float(worse.get("human_share") or 0.0)
    m, a_r = worse.get("machine_accuracy"), worse.get("rest_accuracy")
    if m is None or a_r is None or m >= 1:
        return round(min(1.0, max(2 * now, 0.05)), 4)
    h = (float(a_r) - float(m)) / (1 - float(m))
    return round(float(min(1.0, max(h, now))), 4)


def fix_settings(settings: dict[str, Any], worse: dict[str, Any] | list[dict[str, Any]],
                 share: float | list[float], *, n_rows: int | None = None) -> dict[str, Any]:
    """The settings of a new active round stratified by the worse group's column, with a least
    human share ``share`` for that group (the other groups split the rest of the budget by
    size). Several worse groups of one column (``worse`` and ``share`` as lists) are raised
    at once, each to its own least share.

    ``settings`` are the settings of the round that showed the problem: its budget is kept
    when it had one (an active or random round); a routing round's budget becomes labels:
    ``n_rows`` (the rows it labelled).
    """
    groups = worse if isinstance(worse, list) else [worse]
    shares = share if isinstance(share, list) else [share]
    if not groups or len(groups) != len(shares):
        raise DataError("give one least share for each worse group")
    columns = {str(w["column"]) for w in groups}
    if len(columns) != 1:
        raise DataError("a round is stratified by one column: the worse groups are in "
                        + ", ".join(sorted(columns)))
    for s in shares:
        if not 0 <= s <= 1:
            raise DataError(f"the minimum human share must be in [0, 1], got {s}")
    if is_weighted(settings):
        budget = budget_of(settings)
    else:
        if not n_rows:
            raise DataError("give the labels budget of the new round (n_rows)")
        budget = {"labels": float(n_rows)}
    from core.workspace.round_settings import RoundSettings

    return RoundSettings(design="active", **budget, seed=int(settings.get("seed", 0)),
                         lam=float(settings.get("lam", 0.0)) if is_weighted(settings) else 0.0,
                         stratify=columns.pop(),
                         min_share={str(w["group"]): float(s) for w, s in zip(groups, shares)})


def fix_shortfall(settings: dict[str, Any], rows: dict[str, int], shares: dict[str, float],
                  *, n_rows: int | None = None) -> str | None:
    """Before the one-click fix is clicked: why the round it would plan is refused, when the
    least shares ask more labels than its budget (the page's suggested share of a badly judged
    group often does: issue 33 saw 82 % of 500 rows asked of a 400-label budget).

    Parameters
    ----------
    settings : dict
        The settings of the round that showed the problem (its labels budget is the fix's; a
        routing round's is ``n_rows``, the rows it labelled).
    rows : dict
        group -> its number of rows.
    shares : dict
        group -> the least human share asked for it.

    Returns
    -------
    str or None
        The sentence, or None when the budget suffices or is in effort (not comparable).

    >>> fix_shortfall({"design": "active", "labels": 400}, {"ja": 500}, {"ja": 0.82})[:60]
    'At least 82% of ja (410 of its 500 rows) needs more labels t'
    """
    budget = (budget_of(settings).get("labels") if is_weighted(settings)
              else (float(n_rows) if n_rows else None))
    if not budget:
        return None
    need = {g: math.ceil(shares[g] * rows[g] - 1e-9) for g in shares}
    if sum(need.values()) <= budget:
        return None
    asked = ", ".join(f"{100 * shares[g]:.0f}% of {g} ({need[g]:,} of its {rows[g]:,} rows)"
                      for g in shares)
    return (f"At least {asked} needs more labels than the new round's budget of "
            f"{int(budget):,}: it would be refused. Lower the share, or plan a round with a "
            "larger budget above.")
