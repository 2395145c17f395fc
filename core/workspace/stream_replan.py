"""Re-plan a labelling stream between batches, on the labels so far (``hmceval queue --replan``).

A weighted stream is drawn first on the judge's confidences taken as probabilities; an
overconfident judge then puts weight on the wrong rows. After a batch, the confidences are
recalibrated on the labelled prefix and the rest of the queue is drawn again with the weights
they give (:func:`core.evaluation.sampling.stream.replan_stream`). The new weights depend only on labels
given before the draws they govern, so the stream's confidence sequences stay valid; the
labelled prefix and its draw probabilities stay as they were.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import DataError
from core.evaluation.sampling import (MIN_CALIBRATION_LABELS, calibrated_probabilities,
                                      coded_classes, replan_stream, stream_weights)
from core.workspace.store import Workspace
from core.workspace.stream_rounds import is_stream, stream_of

__all__ = ["replan_stream_round"]


def replan_stream_round(ws: Workspace, round_id: int, *, seed: int | None = None) -> dict[str, Any]:
    """Draw the rest of stream round ``round_id`` again on its labelled prefix.

    Returns
    -------
    dict
        ``labelled`` (the prefix kept), ``redrawn`` (rows drawn again), ``replans`` (how many
        so far), ``moved`` (rows of the old rest no longer in the queue).

    Raises
    ------
    DataError
        Not a stream, a uniform stream (its weights do not depend on labels), fewer than
        :data:`~core.evaluation.sampling.forecast.MIN_CALIBRATION_LABELS` labels in queue order, or
        nothing left to draw.
    """
    from core.workspace.rounds import round_design

    rnd, design = round_design(ws, round_id)
    settings = rnd["settings"]
    if not is_stream(settings):
        raise DataError(f"round #{round_id} is not a labelling stream: only a stream is re-planned")
    if settings.get("stream_design") == "uniform":
        raise DataError("a uniform stream's weights do not depend on labels: there is nothing to "
                        "re-plan (plan a weighted stream to re-plan it on its labels)")
    plan = stream_of(ws, round_id)
    has = np.asarray(design.has_label, dtype=bool)
    missing = np.flatnonzero(~has[plan.order])
    n = int(missing[0]) if len(missing) else len(plan.order)
    if n < MIN_CALIBRATION_LABELS:
        raise DataError(f"re-planning recalibrates the confidences on the labels given in queue "
                        f"order: at least {MIN_CALIBRATION_LABELS} are needed, {n} given")
    if n >= len(plan.order):
        raise DataError(f"all {n:,} rows of the queue are labelled: nothing left to re-plan")
    classes, machine = coded_classes(design.machine_label, set(design.data.labels) | {
        design.human_label[i] for i in plan.order[:n]})
    index = {v: i for i, v in enumerate(classes)}
    human = np.array([index[design.human_label[i]] for i in plan.order[:n]], dtype=np.int64)
    inp = design.inputs()
    prob = calibrated_probabilities(machine, np.asarray(inp.a, float), len(classes),
                                    rows=plan.order[:n], human_codes=human,
                                    weights=1.0 / plan.draw_probability[:n])
    data = design.data
    effort = (data.frame["predicted_effort"].to_numpy(float)
              if data.effort_source != "uniform" else None)
    weights = stream_weights(prob, effort, design="weighted")
    base_seed = int(settings.get("seed", 0)) if seed is None else int(seed)
    new = replan_stream(plan, n, weights, seed=base_seed + 7919 * (len(plan.replans) + 1))
    moved = int(len(set(plan.order[n:].tolist()) - set(new.order[n:].tolist())))
    selection = np.full(design.M, "machine", dtype=object)
    selection[new.order] = "audit"
    rank = np.full(design.M, np.inf)
    rank[new.order] = np.arange(1, len(new.order) + 1, dtype=float)
    ws.save_result(round_id, "stream", {
        "order": new.order.tolist(), "draw_probability": new.draw_probability.tolist(),
        "weights": new.weights.tolist(), "design": new.design,
        "replans": [{"start": t, "weights": w.tolist()} for t, w in new.replans]})
    ws.update_plan(round_id, selection, rank, action="replanned",
                   detail={"labelled": n, "redrawn": len(new.order) - n})
    return {"labelled": n, "redrawn": len(new.order) - n, "replans": len(new.replans),
            "moved": moved}
