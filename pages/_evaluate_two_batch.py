"""The Evaluate page's two batches: the first batch's plan (1 · Plan, the design "Two
batches") and, once its labels are back, the rest planned on them (after 3 · Take the labels
back).

Thin, like the page: the settings and the state of a pilot come from
:mod:`core.workspace.pilot_rounds`, the plans from :func:`core.workspace.rounds.plan_round`,
the same calls as ``hmceval queue --design pilot`` and ``hmceval queue --calibrate-on ID``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import streamlit as st

from core.data import EvalData
from core.errors import DataError
from core.evaluation.sampling import PILOT_SHARE, PILOT_TILT
from core.format import count, pct
from core.workspace import rounds as R
from core.workspace.pilot_rounds import is_pilot, pilot_settings, pilot_state, rest_settings
from core.workspace.round_settings import RoundSettings
from pages._common import show_error, writes

#: the design's name in plain words (the radio's option) and what it does (its tooltip)
TWO_BATCHES = "Two batches: a first batch, then the rest planned on its labels"
TWO_BATCHES_HELP = (
    "Two batches (the pilot design, hmceval queue --design pilot, then --calibrate-on): a "
    f"first batch of {pct(PILOT_SHARE, 0)} of the budget, {pct(PILOT_TILT, 0)} of it towards "
    "the rows the machine is less sure of; once its labels are back, the rest of the budget "
    "is planned with the active design on the confidences recalibrated on them, and the "
    "result counts the first batch as a sample of the whole table too (a two-stage estimate).")

#: the result of the rest of two batches, estimated in two stages, in plain words
TWO_STAGE_WORDS = (
    "Estimated in two stages: the first batch's labels count as a random sample of the whole "
    "table (drawn with known probabilities) and, with this round's, as the labels of their own "
    "rows; the two estimates are combined, each weighted by how precise it is (the two-stage "
    "estimate of core.evaluation.estimate.two_stage).")


@st.cache_data(show_spinner="Planning the first batch…", max_entries=8)
def _pilot_preview(data_key: str, _data: EvalData, settings_json: str) -> dict[str, Any]:
    plan, _ = R.design_preview(_data, json.loads(settings_json))
    return plan.design.summary()


def pilot_plan(data: EvalData, ev_widget: Callable, which: str,
               default_labels: int) -> RoundSettings | None:
    """The whole budget and the seed of a two-batch round, its first batch in plain words; its
    settings (those of ``hmceval queue --design pilot``), None when the budget is refused (the
    error is shown). ``which`` is ``"pilot"`` (the signature of the other designs')."""
    ss = st.session_state
    if ss["evaluate"].get("labels") is None:
        ss["evaluate"] = {**ss["evaluate"], "labels": int(min(data.M, max(1, default_labels)))}
    c1, c2 = st.columns(2)
    with c1:
        ev_widget(st.number_input, "Whole budget, both batches (expected labels)", "labels",
                  min_value=1, max_value=data.M, step=10,
                  help="The first batch takes a share of it; the rest is planned once its "
                       "labels are back.")
    with c2:
        ev_widget(st.number_input, "Seed", "seed", min_value=0, max_value=2**31 - 1, step=1)
    settings = pilot_settings(int(ss["evaluate"]["labels"]), seed=int(ss["evaluate"]["seed"]))
    try:
        s = _pilot_preview(ss.get("data_key", data.name), data,
                           json.dumps(settings.to_dict(), sort_keys=True))
    except DataError as exc:
        show_error(exc, context="Budget")
        return None
    first, whole = float(s["expected_labels"]), float(settings.labels)
    st.markdown(f"**Humans first label about {count(first)} of {count(data.M)} samples, drawn "
                "at random with known probabilities, more often where the machine is less "
                f"sure; once their labels are back, the other {count(whole - first)} labels of "
                "the budget are planned on what those labels show.**", help=TWO_BATCHES_HELP)
    st.caption("A judge's confidences are often surer than its labels are right; planned in "
               "one go, a design spends its labels where the confidences, not the errors, are. "
               "The first batch shows where the errors are: the button to plan the rest "
               "appears under 3 · Take the labels back once its labels are in. Expected on the "
               f"confidences as reported: accuracy of the final labels "
               f"{pct(s['expected_accuracy'])}, a class share to "
               f"± {pct(s['expected_half_width'])} after the first batch alone.")
    return settings


def pilot_next(ws, data: EvalData, rid: int, rnd: dict[str, Any]) -> None:
    """Under a two-batch round's first batch: how far its labels are, and the button that plans
    the rest on them (:func:`core.workspace.pilot_rounds.rest_settings`), or the round the rest
    was planned in. Nothing for another round (``rnd``: the round's record)."""
    if not is_pilot(rnd.get("settings")):
        return
    state = pilot_state(ws, data, rid)
    if state is None:
        return
    ss = st.session_state
    st.subheader("Two batches: the rest of the budget")
    done = (f"{count(state['labelled'])} of the first batch's {count(state['queued'])} rows "
            f"labelled, of a budget of {count(state['budget'])} labels")
    if state["planned"]:
        later = ", ".join(f"#{r}" for r in state["planned"])
        st.caption(f"{done}. The rest is planned in round {later} (choose it under Round, "
                   "above); its result counts this first batch too.")
        return
    if state["rest"] is None:
        st.caption(f"{done}. {state['why_not']}.".replace("..", "."))
        return
    st.caption(f"{done}: {count(state['rest'])} left for the second batch, planned with the "
               "active design on the confidences recalibrated on these labels (they are carried "
               f"into it, labelled), as hmceval queue DATA --calibrate-on {rid} plans it.")
    if not state["complete"]:
        st.info("Not every row of the first batch is labelled yet. Planned now, the rest still "
                "gives a valid result, but the first batch's labels then stand only for their "
                "own rows; label the whole first batch for the two-stage estimate, which also "
                "counts it as a sample of the whole table.")
    if st.button("Plan the rest on its labels", type="primary", key=f"_ev_rest_{rid}",
                 **writes()):
        try:
            new = R.plan_round(ws, data, kind="budget", settings=rest_settings(ws, data, rid))
        except DataError as exc:
            show_error(exc, context="The rest of the budget")
            return
        ss["evaluate"] = {**ss["evaluate"], "round_id": new}
        ss["_ev_flash"] = (f"Round #{new} planned and saved: the rest of the budget, on the "
                           f"labels of round #{rid}. Send its queue to annotators.")
        st.rerun()
