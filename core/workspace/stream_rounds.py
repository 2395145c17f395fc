"""A labelling stream as a round of the workspace: planned, labelled in batches, estimated with
confidence sequences after every import (``hmceval queue --stream``, ``hmceval estimate
--anytime`` and the Evaluate page's "label until" mode call these).

The round is a budget round whose settings say ``design: "stream"``; its queued rows are
``audit`` rows (labelled in queue order, as many as the user wants) and the rest ``machine``.
The stream's draw (order, per-draw probabilities, weights) is stored as the round's ``stream``
result, so every estimate reads the design back exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.data import EvalData
from core.errors import DataError
from core.evaluation.estimate import labels_for_half_width, stream_design_estimate
from core.evaluation.sampling import (DEFAULT_STREAM_DESIGN, STREAM_DESIGNS, StreamPlan,
                                      draw_stream, machine_probabilities, stream_weights)
from core.workspace.round_settings import RoundSettings
from core.workspace.store import Workspace

__all__ = ["is_stream", "stream_plan", "plan_stream_round", "stream_of", "anytime_round",
           "import_points", "stream_view", "expected_labels"]


def is_stream(settings: dict[str, Any]) -> bool:
    """Whether a round's settings are a labelling stream's."""
    return settings.get("design") == "stream"


def stream_plan(data: EvalData, settings: dict[str, Any]) -> StreamPlan:
    """The stream's queue for ``settings``: ``labels`` (the queue's length), ``stream_design``
    (``uniform`` or ``weighted``, default :data:`~core.evaluation.sampling.stream.DEFAULT_STREAM_DESIGN`)
    and ``seed``."""
    kind = settings.get("stream_design", DEFAULT_STREAM_DESIGN)
    if kind not in STREAM_DESIGNS:
        raise DataError(f"stream design must be one of {', '.join(STREAM_DESIGNS)}, got {kind!r}")
    try:
        n = int(settings["labels"])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise DataError("a stream needs its length: --labels MAX, a whole number >= 1") from None
    frame = data.frame
    labels = list(data.labels)
    index = {v: i for i, v in enumerate(labels)}
    machine = np.fromiter((index[v] for v in frame["machine_label"]), dtype=np.int64,
                          count=len(frame))
    p = machine_probabilities(machine, frame["machine_confidence"].to_numpy(float),
                              len(labels))[:, :len(labels)]
    effort = frame["predicted_effort"].to_numpy(float) if data.effort_source != "uniform" else None
    w = stream_weights(p, effort, design=kind)
    return draw_stream(w, n, seed=int(settings.get("seed", 0)))


def plan_stream_round(ws: Workspace, data: EvalData, settings: RoundSettings | dict, *,
                      scenario_id: int | None = None, source: str = "session") -> int:
    """Plan a stream and store it (the round, then its draw as the ``stream`` result)."""
    from core.workspace.rounds import dataset_id_for

    settings = RoundSettings.from_dict(settings).with_(design="stream")  # checked once
    plan = stream_plan(data, settings)
    selection = np.full(data.M, "machine", dtype=object)
    selection[plan.order] = "audit"
    rank = np.full(data.M, np.inf)
    rank[plan.order] = np.arange(1, len(plan.order) + 1, dtype=float)
    dsid = dataset_id_for(ws, data, source=source)
    rid = ws.create_round(dsid, kind="budget", settings=settings, selection=selection,
                          queue_rank=rank, scenario_id=scenario_id)
    ws.save_result(rid, "stream", {"order": plan.order.tolist(),
                                   "draw_probability": plan.draw_probability.tolist(),
                                   "weights": plan.weights.tolist(), "design": plan.design})
    return rid


def stream_of(ws: Workspace, round_id: int) -> StreamPlan:
    """The stored draw of a stream round."""
    rec = ws.latest_result(round_id, "stream")
    if rec is None:
        raise DataError(f"round #{round_id} is not a labelling stream (plan one with hmceval "
                        "queue --stream or the Evaluate page's 'label until' mode)")
    return StreamPlan(order=np.asarray(rec["order"], dtype=np.int64),
                      draw_probability=np.asarray(rec["draw_probability"], dtype=float),
                      weights=np.asarray(rec["weights"], dtype=float), design=rec["design"],
                      replans=tuple((int(r["start"]), np.asarray(r["weights"], dtype=float))
                                    for r in rec.get("replans", [])))


def anytime_round(ws: Workspace, round_id: int, *, groups: list[str] | None = None,
                  confidence: float = 0.95, trace_every: int = 10,
                  target_half_width: float | None = None, decide: str | None = None,
                  save: bool = True, method: str = "asymptotic") -> dict[str, Any]:
    """The confidence sequences of a stream round on the labels taken back so far (stored as
    its latest ``estimate`` result unless ``save`` is False). The target half-width and the
    question default to the ones the stream was planned with."""
    from core.workspace.rounds import round_design

    rnd, design = round_design(ws, round_id)
    settings = rnd["settings"]
    if target_half_width is None:
        target_half_width = settings.get("target_half_width")
    if decide is None:
        decide = settings.get("decide")
    plan = stream_of(ws, round_id)
    res = stream_design_estimate(design, order=plan.order, draw_probability=plan.draw_probability,
                                 weights=plan.segments, groups=groups, confidence=confidence,
                                 trace_every=trace_every, target_half_width=target_half_width,
                                 decide=decide, method=method)
    res["round_id"] = int(round_id)
    if save:
        ws.save_result(round_id, "estimate", res)
    return res


def import_points(ws: Workspace, round_id: int, order: np.ndarray) -> list[int]:
    """The labels in queue order (the labelled prefix the sequence reads) after each import."""
    points = []
    for iid in ws.imports(round_id)["id"]:
        done = np.isin(np.asarray(order, dtype=np.int64), list(ws.round_labels(round_id, int(iid))))
        points.append(int(np.argmin(done)) if not done.all() else len(done))
    return points


def stream_view(ws: Workspace, round_id: int, *, groups: list[str] | None = None,
                max_points: int = 300) -> dict[str, Any]:
    """:func:`anytime_round` as the Evaluate page and the report show it (nothing saved): its
    trace thinned to about ``max_points`` looks plus one after every import, and ``imports``,
    the labels (in queue order) after each import that added some."""
    plan = stream_of(ws, round_id)
    res = anytime_round(ws, round_id, groups=groups, trace_every=1, save=False)
    points = [n for n in import_points(ws, round_id, plan.order) if n > 0]
    step = max(1, -(-res["labels"] // max_points))
    keep = set(points) | {res["labels"]}
    res["trace"] = [t for t in res["trace"] if t["labels"] % step == 0 or t["labels"] in keep]
    res["imports"] = sorted(set(points))
    return res


def expected_labels(data: EvalData, target_half_width: float) -> int:
    """Labels a stream is expected to need for a class share to ``± target_half_width``, on the
    machine's confidences taken as probabilities (as ``hmceval queue --stream`` says it)."""
    q = np.clip(data.frame["machine_confidence"].to_numpy(float), 0.0, 1.0)
    return labels_for_half_width(float(np.sqrt(np.mean(q * (1 - q)))), float(target_half_width))
