"""A round's table of no workspace round taken in as a round of the workspace (issue 32).

A table written by hand, by an older version or copied without its sidecar still says who
labels which row (its ``selection``), the queue (``queue_rank``), the draw
(``inclusion_probability``; a stream's ``draw_probability`` and ``draw_weight``) and the labels
returned (its human-label column). :func:`adopt_design` stores that as a round, so that
``hmceval estimate``, ``certify``, ``labels``, ``labelstudio pull`` and ``queue`` continue it
through the one round service (:mod:`core.workspace.rounds`), as any round planned by ``hmceval
queue`` or on the Evaluate page: the table's columns of the plan become the round's plan, the
rest is the round's dataset. The labels are not read here: the command takes them in next
(:func:`core.cli.rounds.take_table_labels`, an import whose source is ``table``), on the rows
the round sends to humans, as for any round's table.

``purpose`` ``"certify"``: certify decides every row outside the calibration sample, so only the
calibration sample is kept (without a selection column: every row with a human label, as
:func:`core.evaluation.certify.selective.calibration_errors` reads such a table) and the round is
a guarantee round to certify; ``"plan"`` (``hmceval queue`` on a table with a selection): a
budget round whose plan the command makes next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.data import norm_name
from core.errors import DataError
from core.evaluation.annotators import DOUBLE_COLUMN
from core.evaluation.sampling import (DRAW_PROBABILITY, DRAW_WEIGHT, LABELLED,
                                      PROBABILITY_COLUMN, Design)
from core.workspace.round_settings import RoundSettings
from core.workspace.store import Workspace

__all__ = ["AdoptedPlan", "adopted_plan", "adopt_design", "stream_draw"]

#: the columns of a round's table that are its plan, not its data
PLAN_COLUMNS = ("queue_rank", PROBABILITY_COLUMN, DRAW_PROBABILITY, DRAW_WEIGHT, DOUBLE_COLUMN)


@dataclass(frozen=True)
class AdoptedPlan:
    """What a table says of its round: ``kind``, ``selection``, ``queue_rank`` (NaN: not
    queued), ``inclusion`` (or None) and, for a stream's table, ``stream`` (its ``order``,
    ``draw_probability`` and ``weights``, as :mod:`core.workspace.stream_rounds` stores them)."""

    kind: str
    selection: np.ndarray
    queue_rank: np.ndarray
    inclusion: np.ndarray | None
    stream: dict[str, Any] | None


def _column(raw: pd.DataFrame, name: str):
    return {norm_name(c): c for c in raw.columns}.get(norm_name(name))


def stream_draw(design: Design, path: str, *, required: bool = False) -> dict[str, Any] | None:
    """A stream's draw from its table (columns ``queue_rank``, ``draw_probability`` and
    optionally ``draw_weight``), checked; None when the table is not a stream's (no
    ``draw_probability``) unless ``required`` (``estimate --anytime``). DataError naming the
    column and row otherwise."""
    raw = design.data.raw
    cols = {str(c).strip().lower(): c for c in raw.columns}
    if DRAW_PROBABILITY not in cols and not required:
        return None
    for need in ("queue_rank", DRAW_PROBABILITY):
        if need not in cols:
            raise DataError(f"{path}: --anytime needs the column '{need}' of a stream's table "
                            "(hmceval queue --stream)")
    rank = np.asarray(raw[cols["queue_rank"]].astype(float), dtype=float)
    p = np.asarray(raw[cols[DRAW_PROBABILITY]].astype(float), dtype=float)
    queued = np.flatnonzero(np.isfinite(rank))
    order = queued[np.argsort(rank[queued], kind="stable")]
    if len(order) and not np.array_equal(np.sort(rank[order]), np.arange(1, len(order) + 1)):
        raise DataError(f"{path}: 'queue_rank' must number the queued rows 1, 2, 3, ... "
                        "without gaps or repeats")
    bad = order[~((p[order] > 0) & (p[order] <= 1))]
    if len(bad):
        raise DataError(f"{path}: '{DRAW_PROBABILITY}' must be in (0, 1] on every queued row; "
                        f"row {int(bad[0]) + 2} has {p[bad[0]]}")
    weights = np.ones(design.M)  # none given: uniform draws
    if DRAW_WEIGHT in cols:
        weights = np.asarray(raw[cols[DRAW_WEIGHT]].astype(float), dtype=float)
        if not np.all(np.isfinite(weights) & (weights >= 0)):
            raise DataError(f"{path}: '{DRAW_WEIGHT}' must be a number >= 0 on every row")
    return {"order": order.tolist(), "draw_probability": p[order].tolist(),
            "weights": weights.tolist(), "design": "table"}


def adopted_plan(design: Design, path: str, *, purpose: str = "continue") -> AdoptedPlan:
    """The round ``design`` (a table read by :func:`core.cli.common.load_round`) describes."""
    raw = design.data.raw
    stream = stream_draw(design, path) if purpose != "certify" else None
    if stream is not None:  # queued rows are audit rows, labelled in queue order
        order = np.asarray(stream["order"], dtype=np.int64)
        selection = np.full(design.M, "machine", dtype=object)
        selection[order] = "audit"
        rank = np.full(design.M, np.nan)
        rank[order] = np.arange(1, len(order) + 1, dtype=float)
        return AdoptedPlan("budget", selection, rank, None, stream)
    col = _column(raw, "queue_rank")
    rank = (pd.to_numeric(raw[col], errors="coerce").to_numpy(float) if col is not None
            else np.full(design.M, np.nan))
    selection = np.asarray(design.selection, dtype=object).copy()
    inclusion = design.inclusion
    if purpose == "certify":
        cal = (selection == "calibration") if design.has_selection else design.has_label
        selection = np.where(cal, "calibration", "").astype(object)
        rank = np.where(cal, rank, np.nan)
    # certify decides the rest; queue plans the rest with a budget (its only way on a table
    # with a selection)
    kind = ("guarantee" if purpose == "certify" else "budget" if purpose == "plan"
            else "guarantee" if (selection == "").any() else "budget")
    return AdoptedPlan(kind, selection, rank, inclusion, None)


def adopt_design(ws: Workspace, design: Design, path: str, *,
                 purpose: str = "continue") -> int:
    """Store the round the table ``design`` (read from ``path``) describes; its id.

    The dataset is the table without its plan's columns (the selection column and
    :data:`PLAN_COLUMNS`) and without the labels of its human-label column on the rows the
    round sends to humans (those are the round's labels, taken in as imports), with its column
    mapping; the plan is :func:`adopted_plan`'s; the
    settings record where the round came from (``adopted_from``: ``path``). A stream's draw
    is stored as the round's ``stream`` result, the table's double-labelled rows (column
    ``double``) as its ``double`` result. Call it inside :func:`core.cli.step.one_step`.
    """
    plan = adopted_plan(design, path, purpose=purpose)
    raw = design.data.raw
    drop = [c for c in raw.columns if c == design.selection_column and design.has_selection
            or norm_name(c) in {norm_name(n) for n in PLAN_COLUMNS}]
    roles = {k: v for k, v in design.data.roles.items()}
    if "subgroups" in roles and roles["subgroups"]:
        roles["subgroups"] = [c for c in roles["subgroups"] if c not in drop]
    data = raw.drop(columns=drop)
    gold = roles.get("human_label")
    sent = np.isin(plan.selection, LABELLED)
    if gold in data.columns and sent.any():  # there the labels are the round's imports (a
        # tie withdrawn stays withdrawn in its table), not the dataset's values
        data[gold] = data[gold].astype(object).where(~sent, None)
    dsid = ws.add_dataset(data, name=design.data.name, roles=roles, source="cli")
    extra = {"adopted_from": str(path)}
    settings = RoundSettings(design="stream" if plan.stream is not None else None,
                             labels=(float(len(plan.stream["order"])) if plan.stream
                                     and plan.stream["order"] else None),
                             extra=extra)
    rid = ws.create_round(dsid, kind=plan.kind, settings=settings, selection=plan.selection,
                          queue_rank=plan.queue_rank, inclusion=plan.inclusion)
    if plan.stream is not None:
        ws.save_result(rid, "stream", plan.stream)
    double = _column(raw, DOUBLE_COLUMN)
    if double is not None and purpose != "certify":
        marks = raw[double].astype(str).str.strip().str.lower().isin(("true", "1", "yes"))
        rows = np.flatnonzero(marks.to_numpy())
        if len(rows):
            ws.save_result(rid, "double", {"k": int(len(rows)), "rows": rows.tolist()})
    return rid
