"""Two batches in the workspace: a pilot round, then the rest planned on its labels.

The Evaluate page and the command line plan both batches through :func:`core.workspace.rounds.
plan_round` with one :class:`~core.workspace.round_settings.RoundSettings` each:

1. the first batch, ``RoundSettings(design="pilot", labels=B, seed=S, lam=0.0)`` (``hmceval
   queue DATA --design pilot --labels B --seed S``; the page's "Two batches" design): a share
   of the whole budget ``B``, tilted towards the rows the machine is less sure of
   (:mod:`core.evaluation.sampling.two_batch`);
2. once its labels are back, the rest, :func:`rest_settings` (``hmceval queue DATA
   --calibrate-on ID``; the page's "Plan the rest on its labels"): the active design for what
   the pilot's labels left of ``B`` (:func:`pilot_rest`), on the confidences recalibrated on
   them, its labelled rows carried. Its draw has a stream of its own
   (:func:`core.evaluation.sampling.draw.earlier_stage`), so the same seed as the pilot's is
   safe; its estimate uses the pilot as a sample of the table too when every pilot row is
   labelled (:func:`core.workspace.active_rounds.with_pilot`, two stages).

:func:`pilot_state` says where a pilot round stands (labels back, what is left, the rounds
already planned on it) for the page.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import DataError
from core.workspace.active_rounds import earlier_labels
from core.workspace.round_settings import RoundSettings

__all__ = ["is_pilot", "pilot_settings", "pilot_rest", "rest_settings", "pilot_state"]


def is_pilot(settings: Any) -> bool:
    """Whether a round's settings are a pilot's, the first of two batches."""
    return (settings or {}).get("design") == "pilot"


def pilot_settings(labels: float, *, seed: int = 0) -> RoundSettings:
    """The first batch's settings for a whole budget of ``labels`` expected labels, as ``hmceval
    queue --design pilot --labels B --seed S`` makes them (lambda 0: effort enters the active
    design through the budget)."""
    return RoundSettings(design="pilot", seed=int(seed), lam=0.0, labels=float(labels))


def pilot_rest(ws: Any, data: Any, round_id: int) -> float:
    """The second batch's budget after pilot round ``round_id``: its whole budget less the
    labels it got.

    Raises
    ------
    DataError
        The round is not a pilot, has no labels yet, or its labels used the whole budget.
    """
    settings = ws.round(int(round_id)).get("settings") or {}
    if not is_pilot(settings):
        raise DataError(f"--calibrate-on {round_id} without --labels continues a pilot round "
                        f"(--design pilot); round #{round_id} is not one: give --labels B")
    got = len(earlier_labels(ws, data, round_id).rows)
    rest = float(settings["labels"]) - got
    if rest < 1:
        raise DataError(f"the pilot round #{round_id} got {got} labels, its whole budget of "
                        f"{float(settings['labels']):g}: nothing is left to plan")
    return rest


def rest_settings(ws: Any, data: Any, round_id: int, *, seed: int | None = None,
                  width_ratio: float | None = None) -> RoundSettings:
    """The second batch's settings after pilot round ``round_id``: the active design for what
    its labels left of the budget (:func:`pilot_rest`), planned on them (``calibrate_on``),
    with the pilot's lambda and, unless given, its seed; what ``hmceval queue DATA
    --calibrate-on ID --seed S`` plans."""
    pilot = ws.round(int(round_id)).get("settings") or {}
    rest = pilot_rest(ws, data, round_id)
    return RoundSettings(design="active", seed=int(pilot.get("seed", 0) if seed is None
                                                    else seed),
                         lam=float(pilot.get("lam", 0.0)), labels=rest,
                         width_ratio=None if width_ratio is None else float(width_ratio),
                         calibrate_on=int(round_id))


def pilot_state(ws: Any, data: Any, round_id: int) -> dict[str, Any] | None:
    """Where pilot round ``round_id`` stands, None when it is not a pilot.

    Returns
    -------
    dict or None
        ``budget`` (the whole budget), ``queued`` (its rows to label), ``labelled`` (those
        labelled), ``complete`` (every one labelled: the rest's estimate then uses the pilot
        in two stages), ``rest`` (the second batch's budget, None while nothing can be
        planned), ``why_not`` (the reason, else None), ``planned`` (ids of the rounds of
        this dataset planned on it, newest first).
    """
    rnd = ws.round(int(round_id))
    settings = rnd.get("settings") or {}
    if not is_pilot(settings):
        return None
    queued = int(np.isfinite(np.asarray(rnd["queue_rank"], dtype=float)).sum())
    labelled = len(ws.round_labels(int(round_id)))
    rest, why = None, None
    try:
        rest = pilot_rest(ws, data, round_id)
    except DataError as exc:
        why = str(exc)
    # a round planned on it is of its dataset (earlier_labels refuses another)
    planned = [int(rid) for rid in ws.list_rounds(rnd["dataset_id"])["id"].tolist()
               if int(rid) > int(round_id)
               and (ws.round(int(rid)).get("settings") or {}).get("calibrate_on")
               == int(round_id)]
    return {"budget": float(settings["labels"]), "queued": queued, "labelled": labelled,
            "complete": bool(queued) and labelled >= queued, "rest": rest, "why_not": why,
            "planned": planned}
