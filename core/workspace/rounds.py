"""An evaluation round kept in the workspace: plan, label, certify, estimate, final table.

One function per step; the Evaluate page and the CLI (``hmceval report``) both call these, so
a round means the same thing everywhere. The round's human labels are only those imported into
the workspace (or filled by :func:`simulate_annotators` from a gold column, for demonstrations):
a gold column of the dataset is never read as a human label by itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.data import EvalData, prepare
from core.errors import DataError
from core.evaluation.sampling import (LABELLED, Design, EarlierLabels, add_audit, plan_queue,
                                      queue_table)
from core.evaluation.estimate import estimate
from core.evaluation.certify import certify
from core.evaluation.labels import join_labels, refuse_outside_queue
from core.assignment import gains
from core.evaluation.estimate import group_accuracy
from core.summary import effort_clause
from core.workspace.active_rounds import (design_record, earlier_labels, plan_calibration, plan_weighted, with_pilot)
from core.workspace.round_settings import RoundSettings
from core.workspace.store import Workspace

__all__ = ["dataset_id_for", "data_from_workspace", "plan_round", "round_design", "progress",
           "simulate_annotators", "import_labels", "certify_round", "estimate_round", "final_table",
           "effort_summary", "round_summary", "validity", "import_joined", "read_labels",
           "default_groups", "certify_outlook", "labelling_outlook", "outlook_sentence", "design_preview"]


def dataset_id_for(ws: Workspace, data: EvalData, *, source: str = "session") -> int:
    """Store the dataset (as loaded, with its column mapping) once; its id."""
    return ws.add_dataset(data.raw, name=data.name, roles=_roles(data), source=source,
                          content_id=getattr(data, "content_id", None))


def _roles(data: EvalData) -> dict[str, Any]:
    return {k: v for k, v in data.roles.items()}


def data_from_workspace(ws: Workspace, dataset_id: int) -> EvalData:
    """The stored dataset through the data contract, as it was mapped when stored."""
    d = ws.dataset(dataset_id)
    return prepare(d["raw"], d["roles"], name=d["name"])


def _design(raw: pd.DataFrame, roles: dict[str, Any], name: str, selection: np.ndarray,
            labels: dict[int, Any], inclusion: np.ndarray | None = None) -> Design:
    """A Design over a table whose human labels are the round's imported labels only (and the
    plan's inclusion probabilities, when it has them)."""
    roles = dict(roles)
    gold = roles.get("human_label")
    roles["human_label"] = None
    base = prepare(raw, roles, name=name, partial_gold=True)
    human = np.full(base.M, None, dtype=object)
    for row, value in labels.items():
        human[row] = value
    return Design(data=base, selection=np.asarray(selection, dtype=object), human_label=human,
                  selection_column="selection", has_selection=True,
                  inclusion=None if inclusion is None else np.asarray(inclusion, dtype=float),
                  hidden=(gold,) if gold else ())


def plan_round(ws: Workspace, data: EvalData, *, kind: str, settings: RoundSettings | dict,
               scenario_id: int | None = None, source: str = "session") -> int:
    """Plan a round and store it.

    Parameters
    ----------
    kind : {"budget", "guarantee"}
        Budget: ``settings`` has ``lam``, ``share`` (or ``n_human``, a count), ``mode``,
        ``audit``, ``seed`` and optionally ``calibration`` (a calibration sample drawn first,
        ``hmceval queue --calibration`` with a budget); the SAE routes and the audit is drawn
        at once. With ``design`` ``"active"`` or ``"random"``
        the round is planned with inclusion probabilities instead
        (:mod:`core.workspace.active_rounds`: ``labels`` or ``effort_budget``, ``seed``,
        optionally ``stratify`` and ``min_share``); they are stored with the plan and the
        design (its expectations and frontier) as the round's ``design`` result.
        Guarantee: ``calibration``, ``seed`` (and ``alpha``, ``delta``, ``lam``, ``audit`` for
        the certification that follows): only the calibration sample is drawn now, a simple
        random sample, or with ``design`` ``"active"`` drawn with the active design's unequal
        probabilities (stored with the plan; :func:`core.workspace.active_rounds.
        plan_calibration`), which only the overall-error certificate accepts.
    source : str
        Who stored the dataset (``"session"`` for the page, ``"cli"`` for ``hmceval queue``).

    With ``double`` K in ``settings`` (any kind), K random rows of the queue are to be
    labelled by a second annotator too (:func:`core.evaluation.annotators.noise.draw_double`, stored as
    the round's ``double`` result): the annotators' error rate is measured on them
    (``hmceval estimate --annotator-error auto``).
    """
    settings = RoundSettings.from_dict(settings)  # checked once, each field named
    return _plan_rows(ws, data, kind=kind, settings=settings, scenario_id=scenario_id,
                      source=source, double=int(settings.double or 0))


def _needed(settings: RoundSettings, name: str, kind: str) -> Any:
    """A setting a round of ``kind`` cannot be planned without (a DataError naming it)."""
    value = getattr(settings, name)
    if value is None:
        raise DataError(f"a {kind} round needs the round setting '{name}'")
    return value


def _plan_rows(ws: Workspace, data: EvalData, *, kind: str, settings: RoundSettings,
               scenario_id: int | None, source: str, double: int = 0) -> int:
    """The plan of :func:`plan_round` (selection, queue, inclusion), stored; with ``double``
    K, K rows of the queue drawn to be labelled twice first (a K larger than the queue is
    refused before anything is stored) and stored with it as the ``double`` result."""
    design = _design(data.raw, data.roles, data.name, np.full(data.M, "", dtype=object), {})
    seed = int(settings.seed or 0)
    record = None  # the design kept beside a budget round planned with inclusion probabilities
    if kind == "budget" and settings.is_weighted:
        earlier = None
        if settings.calibrate_on is not None:
            earlier = earlier_labels(ws, data, settings.calibrate_on)
        plan, strata = plan_weighted(design, settings, earlier)
        record = design_record(plan, strata)
    elif kind == "budget":
        count = settings.n_human
        plan = plan_queue(design, calibration=int(settings.calibration or 0),
                          lam=float(_needed(settings, "lam", "budget")),
                          share=None if count is not None else float(
                              _needed(settings, "share", "budget")),
                          n_human=None if count is None else int(count),
                          mode=settings.mode or "at_most", audit=int(settings.audit or 0),
                          seed=seed)
    elif kind == "guarantee":
        n_cal = int(_needed(settings, "calibration", "guarantee"))
        plan = (plan_calibration(design, n_cal, seed=seed, lam=float(settings.lam or 0.0))
                if settings.design == "active" else plan_queue(design, calibration=n_cal,
                                                               seed=seed))
    else:
        raise DataError(f"round kind must be 'budget' or 'guarantee', got {kind!r}")
    twice = None
    if double:
        from core.evaluation.annotators import draw_double

        twice = draw_double(plan.queue_rank, double, seed=seed)
    dsid = dataset_id_for(ws, data, source=source)
    rid = ws.create_round(dsid, kind=kind, settings=settings, selection=plan.selection,
                          queue_rank=plan.queue_rank, scenario_id=scenario_id,
                          inclusion=plan.inclusion)  # None for routing and a random sample
    if twice is not None:
        ws.save_result(rid, "double", {"k": int(double), "rows": twice.tolist()})
    if record is not None:
        ws.save_result(rid, "design", record)
    if plan.carried is not None:  # the earlier labels the plan rests on, stored with it
        import_labels(ws, rid, plan.carried.rows, list(plan.carried.labels),
                      source=f"carried from {plan.carried.source}")
    return rid


def round_design(ws: Workspace, round_id: int) -> tuple[dict[str, Any], Design]:
    """The round record and its Design (selection, imported labels, and the inclusion
    probabilities of a round planned with them)."""
    rnd = ws.round(round_id)
    d = ws.dataset(rnd["dataset_id"])  # prepared once, as the round reads it
    return rnd, with_pilot(ws, rnd, _design(d["raw"], d["roles"], d["name"], rnd["selection"],
                                            ws.round_labels(round_id), rnd.get("inclusion")))


def design_preview(data: EvalData, settings: dict[str, Any],
                   earlier: EarlierLabels | None = None) -> tuple[Any, Any]:
    """What planning an active or random round with ``settings`` would give, storing nothing:
    ``(plan, strata)`` as :func:`core.workspace.active_rounds.plan_weighted` (the plan's
    ``design`` holds the expectations and the frontier); ``earlier`` as
    :func:`earlier_labels` gives for the settings' ``calibrate_on``."""
    design = _design(data.raw, data.roles, data.name, np.full(data.M, "", dtype=object), {})
    return plan_weighted(design, settings, earlier)


def progress(rnd: dict[str, Any], design: Design) -> dict[str, Any]:
    """How far the labelling is: per selection, rows to label and rows labelled."""
    has = design.has_label
    sel = design.selection
    out: dict[str, Any] = {}
    for value in LABELLED:
        rows = sel == value
        out[value] = {"rows": int(rows.sum()), "labelled": int((rows & has).sum())}
    need = np.isin(sel, LABELLED)
    out["to_label"] = int(need.sum())
    out["labelled"] = int((need & has).sum())
    out["machine"] = int((sel == "machine").sum())
    out["undecided"] = int((sel == "").sum())
    return out


def simulate_annotators(ws: Workspace, round_id: int, *, fraction: float = 1.0) -> int:
    """Fill labels from the dataset's gold column for the first ``fraction`` of the queue.

    For demonstrations on data with gold labels on every row; recorded as an import whose
    source is ``simulated``.
    """
    if not 0 < fraction <= 1:
        raise DataError(f"fraction of the queue must be in (0, 1], got {fraction}")
    rnd, design = round_design(ws, round_id)
    data = data_from_workspace(ws, rnd["dataset_id"])
    if not data.has_gold:
        raise DataError("this dataset has no gold label column: the annotators cannot be "
                        "simulated; export the queue and import real labels")
    rank = rnd["queue_rank"]
    todo = np.flatnonzero(np.isfinite(rank) & ~design.has_label)
    todo = todo[np.argsort(rank[todo], kind="stable")]
    n = int(np.ceil(fraction * len(todo)))
    rows = todo[:n]
    if not len(rows):
        raise DataError("every row of the queue is labelled already")
    gold = data.frame["human_label"].to_numpy(dtype=object)
    return ws.add_labels(round_id, rows, [gold[r] for r in rows], source="simulated",
                         notices=[f"labels filled from the gold column for {n} rows"])


def import_labels(ws: Workspace, round_id: int, rows: np.ndarray, labels: list, *, source: str,
                  file_name: str | None = None, notices: list[str] | None = None,
                  annotations: list | None = None) -> int:
    """Store returned labels; rows must be ones the round asks humans to label."""
    rnd, design = round_design(ws, round_id)
    rows = np.asarray(rows, dtype=np.int64)
    refuse_outside_queue(design.selection, rows, nothing="imported", ids=design.sample_ids())
    classes = set(design.data.labels)
    bad = [v for v in labels if v not in classes]
    if bad:
        raise DataError(f"label {bad[0]!r} is not one of the dataset's classes "
                        f"({', '.join(map(str, sorted(classes, key=str)))}); nothing was imported")
    return ws.add_labels(round_id, rows, list(labels), source=source, file_name=file_name,
                         notices=notices, annotations=annotations)


def certify_round(ws: Workspace, round_id: int, *, alpha: float | None, delta: float,
                  lam: float = 0.0, audit: int = 0, seed: int = 0,
                  overall_error: float | None = None,
                  annotator_error: float = 0.0) -> dict[str, Any]:
    """Certify a guarantee round on its labelled calibration rows, then route and queue.

    The rows outside the calibration sample become ``machine`` or ``routed``; an optional
    audit (a simple random sample of the machine's rows) gives the final estimate an interval.
    With ``overall_error`` (instead of ``alpha``) the bound is on the overall error of the
    final labels (:func:`core.evaluation.certify.overall.certify_overall`, ``hmceval certify
    --overall-error``). ``annotator_error`` (a bound on the annotators' error rate) makes
    the guarantee hold against the truth, not only against the annotators' labels. The
    certificate is stored as the round's ``certify`` result.
    """
    rnd, design, res = _certified(ws, round_id, alpha=alpha, delta=delta, lam=lam,
                                  overall_error=overall_error, seed=seed,
                                  annotator_error=annotator_error)
    sel, rank = route_certified(design, res["selection"], rnd["queue_rank"], audit=audit,
                                seed=seed, lam=lam)
    # the audit (and levels) used now are the round's settings from here on (report, page)
    level = ({"alpha": float(alpha)} if overall_error is None
             else {"overall_error": float(overall_error)})
    settings = rnd["settings"].with_(**level, delta=float(delta), lam=float(lam),
                                     audit=int(audit), seed=int(seed))
    ws.update_plan(round_id, sel, rank, action="certified",
                   detail={**level, "delta": delta, "lambda": lam, "audit": audit},
                   settings=settings)
    out = {k: v for k, v in res.items() if k not in ("selection", "steps")}
    out["audit"] = int(audit)
    ws.save_result(round_id, "certify", out)
    return out


def route_certified(design: Design, selection: np.ndarray, queue_rank: np.ndarray, *,
                    audit: int, seed: int, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """The step after a certification, the one both front ends take: the calibration rows
    keep their queue rank, an audit of ``audit`` rows is drawn from the rows the machine
    keeps, the routed rows follow by descending gain (:func:`core.evaluation.sampling.design.
    add_audit`). Returns the round's new ``(selection, queue_rank)``."""
    selection = np.asarray(selection, dtype=object)
    rank = np.where(selection == "calibration", np.asarray(queue_rank, dtype=float), np.nan)
    inp = design.inputs()
    has = np.isin(selection, LABELLED) & design.has_label
    return add_audit(selection, rank, int(audit), seed=seed, has_label=has,
                     gain=gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k))


def _certified(ws: Workspace, round_id: int, *, alpha: float | None, delta: float,
               lam: float, overall_error: float | None = None, seed: int = 0,
               annotator_error: float = 0.0) -> tuple[dict[str, Any], Design, dict[str, Any]]:
    rnd, design = round_design(ws, round_id)
    if rnd["kind"] != "guarantee":
        raise DataError("only a guarantee round is certified (this round was planned with a "
                        "budget)")
    if (design.selection[design.selection != "calibration"] != "").any():
        raise DataError(f"round #{round_id} is certified already (once: picking among "
                        "certificates would void the guarantee); plan a new round to certify again")
    if overall_error is not None:
        from core.evaluation.certify import certify_overall

        return rnd, design, certify_overall(design, epsilon=overall_error, delta=delta,
                                            lam=lam, seed=seed,
                                            annotator_error=annotator_error)
    return rnd, design, certify(design, alpha=alpha, delta=delta, lam=lam,
                                annotator_error=annotator_error)


def certify_outlook(ws: Workspace, round_id: int, *, alpha: float | None, delta: float,
                    lam: float = 0.0, audit: int = 0,
                    overall_error: float | None = None, seed: int = 0) -> dict[str, Any]:
    """What certifying a guarantee round now would give, without storing anything.

    Returns
    -------
    dict
        ``n_machine`` (rows the machine would keep: the largest possible audit), ``n_routed``,
        ``n_calibration`` (labelled calibration rows), ``audit`` (the requested audit, at most
        ``n_machine``) and :func:`labelling_outlook`'s keys for calibration + routed + audit.
    """
    _, design, res = _certified(ws, round_id, alpha=alpha, delta=delta, lam=lam,
                                overall_error=overall_error, seed=seed)
    sel = res["selection"]
    n_machine = int((sel == "machine").sum())
    use = min(max(int(audit), 0), n_machine)
    out = {"n_machine": n_machine, "n_routed": int((sel == "routed").sum()),
           "n_calibration": int((sel == "calibration").sum()), "audit": use}
    out.update(labelling_outlook(design.data, (sel == "calibration") | (sel == "routed"),
                                 audit=use))
    return out


def _effort(data: EvalData) -> tuple[np.ndarray, str]:
    f = data.frame
    if "human_effort" in f:
        return f["human_effort"].to_numpy(float), "human_effort"
    return f["predicted_effort"].to_numpy(float), data.effort_source


def labelling_outlook(data: EvalData, human: np.ndarray, *, audit: int = 0) -> dict[str, Any]:
    """Rows and effort humans will label in a plan: every row of ``human`` plus an audit.

    Parameters
    ----------
    data : EvalData
    human : bool array of shape (M,)
        Rows humans label for sure (calibration, routed).
    audit : int, default=0
        Audit size, drawn at random from the other rows: its effort counts as the audit size
        times the mean effort of those rows (the expected effort of a simple random sample).

    Returns
    -------
    dict
        ``rows_labelled`` (human rows + audit), ``rows_total``, ``effort_share`` (expected
        share of the effort of labelling every row; None when that effort is 0),
        ``effort_unit`` (as :func:`effort_summary`).
    """
    human = np.asarray(human, dtype=bool)
    effort, unit = _effort(data)
    rest = effort[~human]
    audit = int(audit)
    if not 0 <= audit <= len(rest):
        raise DataError(f"audit size {audit} exceeds the {len(rest)} rows the machine keeps; "
                        f"choose an audit of at most {len(rest)}")
    total = float(effort.sum())
    spent = float(effort[human].sum()) + (audit * float(rest.mean()) if audit else 0.0)
    return {"rows_labelled": int(human.sum()) + audit, "rows_total": data.M,
            "effort_share": spent / total if total > 0 else None, "effort_unit": unit}


def estimate_round(ws: Workspace, round_id: int, *, groups: list[str] | None = None,
                   confidence: float = 0.95, annotator_error: float | str | None = None,
                   gold_annotator: str | None = None, save: bool = True) -> dict[str, Any]:
    """The final estimates of a round (stored as its latest ``estimate`` result, unless
    ``save`` is False: a look, e.g. on a read-only workspace).

    Without ``annotator_error`` they are relative to the annotators' labels (``relative_to``
    ``"annotators"``); with one annotator's rate ETA in [0, 0.5), or ``"auto"`` (measured on
    the round's multiply-labelled rows, or on ``gold_annotator``'s items), against the truth
    (:func:`core.evaluation.annotators.noise.correct_estimate`) for the labels' error (label_error)."""
    from core.evaluation.annotators import labels_error
    from core.evaluation.annotators import (correct_estimate, error_from_votes, given_error,
                                       mark_uncorrected)

    _, design = round_design(ws, round_id)
    res = estimate(design, groups=groups, confidence=confidence)
    k = len(res["class_shares"])
    if annotator_error is None:
        res = mark_uncorrected(res)
    else:  # one annotator's rate, then the error of the labels used
        votes = ws.current_annotations(round_id)
        eta = (error_from_votes(votes, n_classes=k, confidence=confidence,
                                gold_annotator=gold_annotator) if annotator_error == "auto"
               else given_error(float(annotator_error), n_classes=k, confidence=confidence))
        used = np.flatnonzero(np.isin(design.selection, LABELLED) & design.has_label)
        res = correct_estimate(res, labels_error(eta, votes, used, gold_annotator=gold_annotator))
    if save:
        ws.save_result(round_id, "estimate", res)
    return res


def final_table(design: Design) -> pd.DataFrame:
    """Every original column, ``selection`` (and ``inclusion_probability`` for a round planned
    with them, so ``hmceval estimate`` reads the design back), ``human_label`` (returned labels)
    and ``final_label`` (the human label where a human labelled, else the machine label)."""
    out = queue_table(design, design.selection, inclusion=design.inclusion)
    human = design.human_label
    mach = design.machine_label
    use_human = np.isin(design.selection, LABELLED) & design.has_label
    out["human_label_returned"] = pd.Series(np.where(use_human, human, None), dtype=object)
    out["final_label"] = pd.Series(np.where(use_human, human, mach), dtype=object)
    return out


def outlook_sentence(outlook: dict[str, Any], parts: list[tuple[str, int]]) -> str:
    """A plan in words: every row humans will label, and the effort against labelling all.

    Examples
    --------
    >>> outlook_sentence({"rows_labelled": 1978, "rows_total": 3557, "effort_share": 0.483,
    ...                   "effort_unit": "human_effort"}, [("routed", 1778), ("audit", 200)])
    'Humans will label 1,978 of 3,557 samples (1,778 routed + 200 audit): about 48% of the annotation effort of labelling everything (52% saved).'
    """
    text = (f"Humans will label {outlook['rows_labelled']:,} of {outlook['rows_total']:,} "
            f"samples ({' + '.join(f'{n:,} {what}' for what, n in parts)})")
    if (clause := effort_clause(outlook)) is not None:  # the result's own wording
        text += f": about {clause}"
    return text + "."


def effort_summary(design: Design) -> dict[str, Any]:
    """Human effort of the rows labelled so far against labelling every row.

    Uses the ground-truth effort column when the dataset has one, else the predicted effort
    (``effort_unit`` says which); rows count 1 each with neither.
    """
    effort, unit = _effort(design.data)
    # rows humans have labelled so far (a round half labelled counts half its queue)
    labelled = np.isin(design.selection, LABELLED) & design.has_label
    total = float(effort.sum())
    spent = float(effort[labelled].sum())
    return {"rows_labelled": int(labelled.sum()), "rows_total": design.M,
            "effort_spent": spent, "effort_all": total,
            "effort_share": spent / total if total > 0 else None, "effort_unit": unit}


def default_groups(design: Design, *, max_values: int = 12) -> list[str]:
    """Subgroup columns worth a breakdown: those with 2 to ``max_values`` distinct values."""
    f = design.data.frame
    return [c for c in design.data.subgroup_columns
            if c in f and 2 <= f[c].nunique(dropna=False) <= max_values]


def round_summary(ws: Workspace, round_id: int, *,
                  groups: list[str] | None = None) -> dict[str, Any]:
    """Everything a report needs about one round, computed once.

    ``groups``: columns of the per-group breakdown (default :func:`default_groups`). Besides
    the progress, effort, certificate and estimate: ``design`` (the round's stored design
    record, :func:`core.workspace.active_rounds.design_record`; None for routing and
    guarantee rounds) and, with an estimate, ``group_accuracy``, ``worse_groups`` and
    ``group_notes`` (:func:`core.evaluation.estimate.weighted_round.group_accuracy`; empty without
    an interval: a routing round without audit)."""
    rnd, design = round_design(ws, round_id)
    prog = progress(rnd, design)
    out: dict[str, Any] = {"round": {k: rnd[k] for k in ("id", "dataset_id", "kind", "settings",
                                                           "created", "created_by")},
                           "progress": prog, "effort": effort_summary(design),
                           "certificate": ws.latest_result(round_id, "certify"),
                           "design": ws.latest_result(round_id, "design")}
    missing_cal = prog["calibration"]["rows"] - prog["calibration"]["labelled"]
    missing = missing_cal + prog["routed"]["rows"] - prog["routed"]["labelled"]
    out["estimate"] = None
    out["estimate_error"] = None
    if prog["undecided"]:
        out["estimate_error"] = ("label the calibration sample and certify, which decides the "
                                 "rows the machine keeps")
    elif rnd["settings"].get("design") == "stream":  # is_stream; stream_rounds imports us
        out["estimate_error"] = "a labelling stream: open the round on the Evaluate page"
    elif design.inclusion is not None and not prog["labelled"]:
        out["estimate_error"] = (f"none of the {prog['to_label']:,} rows to label has a human "
                                 "label yet")
    elif missing:
        what = "/".join(w for w, n in (("calibration", missing_cal),
                                        ("routed", missing - missing_cal)) if n)
        out["estimate_error"] = f"{missing:,} {what} rows still need a human label"
    else:
        out["groups"] = default_groups(design) if groups is None else list(groups)
        from core.evaluation.annotators import mark_uncorrected

        out["estimate"] = mark_uncorrected(estimate(design, groups=out["groups"]))
        out.update(group_accuracy=None, worse_groups=[], group_notes=[])
        if out["groups"] and (design.inclusion is not None or out["estimate"]["n_audit"]):
            by, worse, notes = group_accuracy(design, out["groups"])
            out.update(group_accuracy=by, worse_groups=worse, group_notes=notes)
    return out


def validity(data: EvalData, settings: dict[str, Any], *, rounds: int = 200,
             seed: int = 0, inclusion: np.ndarray | None = None) -> pd.DataFrame:
    """Coverage of a budget round's intervals over ``rounds`` simulated rounds (needs gold).

    A round planned with inclusion probabilities (``inclusion``, the active or random design)
    is repeated with new Poisson draws from them; a routing round with new audits. For the
    former, ``plain_coverage`` is PPI++'s with as many labels drawn at random.
    """
    from core.evaluation.certify import simulate_budget, simulate_design, validity_table
    from core.assignment import SAEInputs, n_from_share

    if not data.has_gold:
        raise DataError("the validity panel needs gold labels on every row")
    inp = SAEInputs.from_data(data)
    mach = data.frame["machine_label"].to_numpy(dtype=object)
    gold = data.frame["human_label"].to_numpy(dtype=object)
    classes = sorted(set(mach.tolist()) | set(gold.tolist()), key=lambda v: (str(type(v)), v))
    if inclusion is not None:
        s = simulate_design(inp.a, mach, gold, inclusion, rounds=rounds, seed=seed).summary
        return validity_table(s, classes)
    s = simulate_budget(inp, mach, gold, lam=float(settings["lam"]),
                        n_human=n_from_share(float(settings["share"]), data.M),
                        mode=settings.get("mode", "at_most"), audit=int(settings["audit"]),
                        rounds=rounds, seed=seed).summary
    classes = sorted(set(mach.tolist()) | set(gold.tolist()), key=lambda v: (str(type(v)), v))
    return validity_table(s, classes)


def read_labels(ws: Workspace, round_id: int, imported) -> tuple[Any, Design]:
    """Join a :class:`core.evaluation.labels.form.LabelImport` to a round's dataset (no write)."""
    _, design = round_design(ws, round_id)
    return join_labels(imported, sample_ids=design.sample_ids(),
                       classes=list(design.data.labels)), design


def stored_votes(ws: Workspace, round_id: int, design: Design) -> pd.DataFrame:
    """The round's current votes (each annotator's latest label of each row) as
    :mod:`core.evaluation.labels.votes` reads them: text sample ids and labels, seconds."""
    from core.data import label_key

    ann = ws.current_annotations(round_id)
    ids = design.sample_ids()
    return pd.DataFrame({"sample_id": [label_key(ids[int(r)]) for r in ann["row"]],
                         "annotator": ann["annotator"].astype(str).tolist(),
                         "label": [label_key(v) for v in ann["label"]],
                         "seconds": ann["seconds"].astype(float).tolist()})


def import_joined(ws: Workspace, round_id: int, imported, *, file_name: str | None = None,
                  aggregate: str = "majority", gold_annotator: str | None = None,
                  level: str = "nominal") -> dict[str, Any]:
    """Store the labels of a CSV or a Label Studio export in a round, in one transaction.

    Labels accumulate across imports (:mod:`core.evaluation.labels.votes`): every annotator's label
    (and its seconds) is kept, each row gets the aggregate of all its annotators' labels so far
    (``aggregate``: majority, ties left for adjudication, or Dawid-Skene), re-importing a file
    stores nothing, an annotator's new label for a row replaces theirs (said in the notices).
    The file is checked alone first: rows outside the round's queue, unknown sample ids or
    labels are refused (nothing is stored).

    Returns
    -------
    dict
        ``import_id`` (None when the file brought nothing new), ``n_labels`` (rows whose label
        this import set or changed), ``counts``, ``notices``, ``agreement`` (one sentence or
        None), ``adjudication`` (sample ids), ``annotators`` (:func:`core.evaluation.
        annotators.annotator_report` at the measurement ``level`` of Krippendorff's alpha),
        ``new_votes`` and ``changed_votes`` (the file's votes not seen before, and those that
        replace an annotator's earlier label).
    """
    from core.evaluation.annotators import annotator_report
    from core.evaluation.labels import merge_votes, votes_import

    alone, design = read_labels(ws, round_id, imported)
    refuse_outside_queue(design.selection, np.unique(alone.votes["row"].to_numpy(np.int64)),
                         nothing="imported", ids=design.sample_ids())
    if not imported.n_labels:
        notices = list(alone.notices)
        raise DataError("the file holds no usable label (nothing was imported)"
                        + (f": {'; '.join(notices)}" if notices else ""))
    merged = merge_votes(stored_votes(ws, round_id, design), imported)
    joined = join_labels(votes_import(merged, imported), sample_ids=design.sample_ids(),
                         classes=list(design.data.labels), aggregate=aggregate,
                         gold_annotator=gold_annotator)
    notices = list(joined.notices)
    agree = joined.agreement.describe() if joined.agreement is not None else None
    quality = annotator_report(joined, list(design.data.labels), level=level)
    out = {"import_id": None, "n_labels": 0, "counts": dict(joined.counts), "notices": notices,
           "agreement": agree, "adjudication": list(joined.adjudication),
           "annotators": quality, "new_votes": merged.new, "changed_votes": len(merged.changed)}
    current = ws.round_labels(round_id)
    new_label = joined.label.to_numpy(dtype=object)
    voted = np.flatnonzero((joined.state == "labelled") | (joined.state == "tie"))
    rows = [int(r) for r in voted if current.get(int(r)) != new_label[r]]
    if merged.unchanged and not rows:
        notices.append("every label of this file was imported before: nothing new was stored")
        return out
    if merged.unchanged:  # the same votes under another aggregate: its labels, no new vote
        notices.append(f"every label of this file was imported before: aggregated with {aggregate}, {len(rows):,} rows get another label")
    fresh = set() if merged.unchanged else set(zip(imported.sample_id, imported.annotator))
    v = joined.votes
    ann = [(int(r), str(a), lab, t) for r, s, a, lab, t in zip(
        v["row"], v["sample_id"], v["annotator"], v["label"], v["seconds"]) if (s, a) in fresh]
    out["import_id"] = ws.add_labels(round_id, np.asarray(rows, dtype=np.int64),
                                     [new_label[r] for r in rows], source=imported.source,
                                     file_name=file_name, notices=notices, annotations=ann)
    out["n_labels"] = len(rows)
    return out
