"""The Trade-off page's goal section: decide in business units (issue 25).

A target accuracy or an effort budget in hours gives the cheapest setting that meets it
(:func:`core.assignment.goal_setting`), with a button that takes it; the current setting is
compared with the best ones (:func:`core.assignment.recommend`) and both are marked on the
frontier of accuracy against effort in hours (:func:`core.figures.tradeoff.goal_figure`).

The page calls :func:`goal_controls` (the goal's inputs and its answer: what a move of N or
lambda leaves as it is, drawn by a full run of the page) and, for its answer, :func:`goal_live`
(what depends on the current setting: the button's state, the recommendation, the figure; drawn
again on each move, by the page's fragment). State: the canonical ``share`` and ``lam`` (set by the
buttons), ``goal_on`` (data key -> whether the search is on, the toggle's view); the goal's own
inputs live in the widget keys ``_goal_kind``, ``_goal_target`` and ``_goal_hours`` (what a user
is typing, not a setting of the analysis).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from core.assignment import SAEInputs, goal_effort_unit, goal_grid, goal_setting, recommend
from core.errors import DataError
from core.figures.tradeoff import goal_figure
from core.format import count, format_effort, hours_per_unit, pct, setting_number
from pages._common import range_help


#: Up to this many rows the goal search runs by itself (about 0.2 s on the demo's 3,557).
GOAL_AUTO_ROWS = 20_000


@st.cache_data(show_spinner=False, max_entries=8)
def _grid_cached(data_key: str, _inp: SAEInputs, mode: str) -> pd.DataFrame:
    return goal_grid(_inp, mode=mode)  # type: ignore[arg-type]


def _keep_goal_on() -> None:
    """The toggle's new value into the canonical per-dataset choice."""
    ss = st.session_state
    ss["goal_on"] = {**ss.get("goal_on", {}), ss.get("data_key"): bool(ss["_goal_on"])}


def _take(n: int, lam: float, m: int) -> None:
    """Set the canonical N and lambda to a goal's setting (N exactly: share = N / M)."""
    st.session_state["share"] = n / m if m else 0.0
    st.session_state["lam"] = float(lam)


def _effort_axis(inp: SAEInputs, grid: pd.DataFrame, unit: str) -> tuple[pd.Series, str, float]:
    """The effort of every setting in hours (or its own unit) and the axis title."""
    if inp.human_effort is not None:
        total, share = float(inp.human_effort.sum()), grid["time_cost"]
    else:
        total, share = float(inp.l.sum()), grid["time_cost_predicted"]
    share = share.where(share.notna(), grid["human_ratio"])
    per_h = hours_per_unit(unit)
    scale = total * (per_h or 1.0)
    return share * scale, ("human effort (hours)" if per_h else f"human effort ({unit})"), scale


@dataclass(frozen=True)
class GoalView:
    """What :func:`goal_controls` found (the goal's answer on the grid of every setting) and
    what :func:`goal_live` needs to draw the rest."""

    goal: Any
    grid: pd.DataFrame
    unit: str
    is_time: bool
    basis: str
    mode: str


def goal_controls(data: Any, inp: SAEInputs) -> GoalView | None:
    """Draw the goal control (the toggle, the kind of goal, its target) and the answer (the
    cheapest setting that meets it); the answer for :func:`goal_live`, None when the search is
    off or the goal refused (said on the page)."""
    ss = st.session_state
    mode = ss.get("mode", "at_most")
    st.subheader("Decide by a goal")
    # the search over every setting takes seconds on large tables (about 4 s at 10^5 rows,
    # again for each mode): it starts by itself on small tables and on demand on large ones,
    # so moving N or lambda stays as fast as without it
    # the choice is kept per dataset in the canonical "goal_on" (the toggle is a view of it):
    # a widget's own state is dropped by any run that does not draw it (a page stopped early,
    # another page), and its default depends on the table's size (issue 33: the toggle was
    # found off on a small table after "Use this setting", its caption contradicting its help)
    auto = inp.M <= GOAL_AUTO_ROWS
    chosen = ss.setdefault("goal_on", {})
    on = bool(chosen.get(ss.get("data_key"), auto))
    if ss.get("_goal_on") is not on:
        ss["_goal_on"] = on
    if not st.toggle("Find the best settings for a target accuracy or a budget in hours",
                     key="_goal_on", on_change=_keep_goal_on,
                     help=f"On by itself up to {count(GOAL_AUTO_ROWS)} rows; on a larger table "
                          "the search takes a few seconds, each time the mode changes."):
        st.caption((f"Off: this table has {count(inp.M)} rows; switch it on" if not auto else
                    "Off: switched off here; switch it on again")
                   + " to search every setting for the cheapest one that meets a goal.")
        return None
    with st.spinner("Finding the best settings for this data…"):
        grid = _grid_cached(ss["data_key"], inp, mode)
    unit = goal_effort_unit(data, inp)
    is_time = hours_per_unit(unit) is not None
    basis = "gold" if inp.human_label is not None else "confidence"
    what = ("accuracy against the gold labels" if basis == "gold" else
            "expected accuracy (what the machine's confidences promise; no gold labels)")
    kinds = ["A target accuracy"] + (["An effort budget (hours)"] if is_time else [])
    c1, c2 = st.columns([2, 3])
    kind = c1.radio("Goal", kinds, key="_goal_kind", horizontal=True,
                    help="The cheapest setting that reaches the accuracy, or the most accurate "
                         "one within the hours. N and λ follow from it.")
    try:
        if kind == kinds[0]:
            target = c2.number_input(f"Target {what.split(' (')[0]} (%)", min_value=0.0,
                                     max_value=100.0, value=95.0, step=0.5, format="%.1f",
                                     key="_goal_target", help=range_help(
                                         "The least accuracy the final labels must reach.", 0, 100))
            goal = goal_setting(data, target_accuracy=target / 100, inputs=inp, grid=grid,
                                mode=mode)
        else:
            hours = c2.number_input("Budget of human effort (hours)", min_value=0.0, value=10.0,
                                    step=1.0, format="%.1f", key="_goal_hours", help=range_help(
                                        "The most reviewer-hours to spend.", 0, None))
            goal = goal_setting(data, effort_budget_hours=hours, inputs=inp, grid=grid, mode=mode)
    except DataError as exc:
        st.info(str(exc))
        return None
    if not is_time:
        st.caption(f"The effort column does not name a unit of time, so budgets are in {unit} "
                   "only: name it *_seconds, *_minutes or *_hours on the Data page for hours.")
    (st.success if goal.met else st.warning)(goal.message)
    st.caption(f"Accuracy here is {what}; effort is the "
               f"{'recorded' if goal.effort_basis == 'observed' else 'predicted'} human effort. "
               "Searched: every budget N and every λ at which the assignment changes, without "
               "the extra constraints.")
    return GoalView(goal=goal, grid=grid, unit=unit, is_time=is_time, basis=basis, mode=mode)


def goal_live(view: GoalView, data: Any, inp: SAEInputs, res: dict[str, Any]) -> Callable[[], bool]:
    """What depends on the current result ``res`` (:func:`core.assignment.report.assignment_json`):
    the button taking the goal's setting, the recommendation and the figure with the current
    setting marked, computed here and drawn by the returned function (True when it drew the
    figure): the page computes every part of a move before it sends any, so the browser gets
    them together."""
    goal, grid, unit, is_time, basis = view.goal, view.grid, view.unit, view.is_time, view.basis
    try:
        rec = recommend(data, res, inputs=inp, grid=grid, mode=view.mode)
    except DataError as exc:
        return lambda: st.info(str(exc)) and False
    m = inp.M
    points = []
    se, sa = rec["same_effort"], rec["same_accuracy"]
    gain = rec["sentence"] and round(rec["gain_points"], 1) > 0
    cheaper = rec["sentence"] and sa["effort"] < se["effort"] and rec["saved"] > 0
    saved = format_effort(rec["saved"], unit) if cheaper else ""
    if gain:
        points.append({"effort_share": se["effort_share"], "y": se["accuracy"],
                       "name": f"same effort, +{rec['gain_points']:.1f} points"})
    if cheaper:
        points.append({"effort_share": sa["effort_share"], "y": sa["accuracy"],
                       "name": f"same accuracy, {saved} less"})
    x, x_title, scale = _effort_axis(inp, grid, unit)
    y = grid["accuracy" if basis == "gold" else "expected_reliability"]
    cur_share = res.get("time_cost") if inp.human_effort is not None else res.get("time_cost_predicted")
    if cur_share is None:
        cur_share = res["n_human"] / m
    cur_y = res["accuracy"] if basis == "gold" else res["expected_reliability"]
    points.insert(0, {"effort_share": goal.effort_share, "y": goal.accuracy,
                      "name": "goal: " + (f"{pct(goal.target)}" if goal.goal == "accuracy"
                                          else format_effort(goal.target, "hours"))})
    figure = goal_figure(
        x.to_numpy(float), y.to_numpy(float), current=(float(cur_share) * scale, float(cur_y)),
        points=[{"x": p["effort_share"] * scale, "y": p["y"], "name": p["name"]} for p in points],
        target_y=goal.target if goal.goal == "accuracy" else None,
        target_x=goal.target if goal.goal == "effort" and is_time else None,
        x_title=x_title,
        y_title="Accuracy (%)" if basis == "gold" else "Expected accuracy (%)",
        title=f"Best {'accuracy' if basis == 'gold' else 'expected accuracy'} for the effort, "
              f"the current and the recommended settings")

    def draw() -> bool:
        st.button(f"Use this setting (N = {count(goal.N)}, λ = {setting_number(goal.lam)})",
                  key="_goal_take", on_click=_take, args=(goal.N, goal.lam, m),
                  disabled=goal.n_human == res["n_human"] and goal.N == res["N"]
                  and goal.lam == res["lambda"])
        if rec["sentence"]:
            st.info(rec["sentence"])
            b1, b2 = st.columns(2)
            if gain:
                b1.button(f"Take it: +{rec['gain_points']:.1f} points for the same effort",
                          key="_goal_take_acc", on_click=_take, args=(se["N"], se["lambda"], m))
            if cheaper:
                b2.button(f"Take it: same accuracy, {saved} less", key="_goal_take_cheap",
                          on_click=_take, args=(sa["N"], sa["lambda"], m))
        else:
            st.caption("The current setting is on the frontier: no setting is more accurate "
                       "for its effort, none cheaper for its accuracy.")
        st.plotly_chart(figure, width="stretch")
        return True

    return draw
