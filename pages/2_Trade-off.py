"""Trade-off page: move N and lambda, see reliability and effort (the paper's Figures 2 and 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.errors import DataError
from core.figures.tradeoff import frontier_figure
from core.assignment import lambda_grid
from core.format import count, setting_number
from core.summary import data_effort_unit
from pages._large import is_large, sample_caption
from pages._common import (current_lambda_range, current_result, current_sweep, data_lambda_range,
                           get_data, get_params, init_state, next_step, setting_caption,
                           show_error, synced)
from pages._goal import goal_controls, goal_live
from pages._tradeoff_live import (Slots, curves_section, downloads, per_class_section,
                                  result_section, settings_row)

init_state()
ss = st.session_state
data = get_data()
M = data.M
unit = data_effort_unit(data)  # the unit of l_i, the effort the optimiser weighs
st.title("Trade-off")
st.caption("HMCEval sends a sample to a human when the confidence it gains, minus λ × its "
           "effort, is positive and among the N largest. Raise N or lower λ for "
           "reliability; lower N or raise λ to save effort. λ weighs confidence against effort, "
           f"so its useful range depends on the effort's unit (here: {unit}): the λ slider "
           "spans exactly the values that change something on this data.",
           help="The paper's sample assignment problem, Eq. 3–4: maximise Σ (gain − λ × l_i) "
                "over at most N samples (l_i: a sample's effort).")


@st.cache_resource(show_spinner=False, max_entries=4)
def _frontier_static(data_key: str, mode: str, _grid: pd.DataFrame, machine_only: float):
    # a resource: st.plotly_chart only reads the figure
    return frontier_figure(_grid, machine_only=machine_only, log_lambda=True, x_title=FRONTIER_X)


FRONTIER_X = "Time cost (% of the effort of labelling everything)"


def _set_count() -> None:
    ss["share"] = ss["_w_count"] / M


# A move of N or λ (or a button that sets them) reruns only the fragment `live` below, not the
# page: it draws the settings row and every part that depends on the setting into places made
# here in the page's order (Slots); the rest (the mode, the constraints, the goal's inputs, the
# choice of curves, the frontier when the goal figure marks the setting) is drawn by a full run
# only, and a move neither computes it again nor sends it to the browser (issue 33)
c1, c2, c3 = st.columns([3, 3, 2])
count_box = c3.container()
with c3:
    synced(st.radio, "Budget mode", "mode", options=["at_most", "exactly"], horizontal=True,
           format_func=lambda m: "at most N" if m == "at_most" else "exactly N",
           help="'at most N' sends up to N samples, only those worth their effort (the paper's "
                "Eq. 4 as written); 'exactly N' always sends N, which fixes the share of samples "
                "humans label (the paper's Table 2).")
if ss.get("_lam_note"):  # set when a new dataset made the previous λ meaningless
    st.info(ss.pop("_lam_note"))

with st.expander("Extra constraints: a budget, a human share per subgroup"):
    cons = dict(ss["constraints"])
    use_budget = st.checkbox("Budget on total predicted human effort",
                             value=cons.get("effort_budget_share") is not None)
    if use_budget:
        cons["effort_budget_share"] = st.slider(
            "Effort budget (share of the total predicted effort)", 0.0, 1.0,
            0.5 if cons.get("effort_budget_share") is None else float(cons["effort_budget_share"]),
            0.01)
    else:
        cons["effort_budget_share"] = None
    groups = data.subgroup_columns
    gcol = st.selectbox("Human share bounds per subgroup of", ["—"] + groups,
                        index=(groups.index(cons["group_column"]) + 1)
                        if cons.get("group_column") in groups else 0)
    if gcol != "—":
        old = (cons.get("group_bounds") or {}) if cons.get("group_column") == gcol else {}
        values = sorted(map(str, pd.unique(data.frame[gcol])))
        # bounds of subgroups the data lacks (a restored scenario) stay listed, so the refusal
        # below names them and they can be cleared here, rather than vanish silently
        values += sorted(str(g) for g in old if str(g) not in values)
        table = pd.DataFrame({"group": values,
                              "min share": [(old.get(v) or [None, None])[0] for v in values],
                              "max share": [(old.get(v) or [None, None])[1] for v in values]})
        edited = st.data_editor(table, hide_index=True, disabled=["group"], key="bounds_editor",
                                column_config={
                                    "min share": st.column_config.NumberColumn(min_value=0.0, max_value=1.0, step=0.05),
                                    "max share": st.column_config.NumberColumn(min_value=0.0, max_value=1.0, step=0.05)})
        bounds = {}
        for _, r in edited.iterrows():
            lo = None if pd.isna(r["min share"]) else float(r["min share"])
            hi = None if pd.isna(r["max share"]) else float(r["max share"])
            if lo is not None or hi is not None:
                bounds[r["group"]] = [lo, hi]
        cons["group_column"], cons["group_bounds"] = gcol, bounds
    else:
        cons["group_column"], cons["group_bounds"] = None, {}
    if cons != ss["constraints"]:
        ss["constraints"] = cons
    st.caption("Without extra constraints the best choice is computed directly; with any, the "
               "same choice is found by an exact optimiser, which takes longer. The curves below "
               "always show the choice without extra constraints.",
               help="Technically: the exact O(M) path without constraints; with any, the same "
                    "objective as an integer linear programme (cvxpy + HiGHS, zero gap).")


params = get_params()
try:
    inp, assignment, res = current_result()  # cached per (data, λ, N, mode, constraints)
    failed = False
except DataError:
    failed = True  # said by the fragment, where the result goes; the page stops there


@st.fragment
def live(slots: Slots, failed: bool, goal, view: str | None, frontier: dict | None) -> None:
    """Everything that depends on N and λ (see above). A change that changes the page's own
    parts (the result refused, or no longer) reruns the whole page."""
    params = get_params()
    rng = current_lambda_range()
    try:
        inp, assignment, res = current_result()
    except DataError as exc:
        if not failed:
            st.rerun(scope="app")
        settings_row(slots, ss, rng, M, unit, _set_count)
        if slots.sidebar is not None:
            slots.sidebar.caption(setting_caption(params))
        with slots.results:
            show_error(exc)
        return
    if failed:
        st.rerun(scope="app")
    # the per-class tables first: the browser's table settles about 0.15 s after its data came,
    # which the figures' drawing then covers; every other part computed, then all drawn (each in
    # its place on the page): the browser gets them in one burst, and lays the page out a few
    # times rather than once per part as it arrives
    if slots.per_class is not None:
        with slots.per_class:
            per_class_section(data, inp, assignment)()
    parts = [(slots.goal, goal_live(goal, data, inp, res)) if goal is not None else None,
             (slots.curves, curves_section(data, params, rng, unit, view, current_sweep))]
    if frontier is not None and goal is None:  # the current setting starred on the frontier
        figure = frontier_figure(frontier["grid"], current=res,
                                 machine_only=frontier["machine_only"], log_lambda=True,
                                 x_title=FRONTIER_X)
        parts.append((slots.frontier, lambda: st.plotly_chart(figure, width="stretch")))
    parts.append((slots.results, result_section(data, params, rng, inp, assignment, res, unit)))
    drawn_last = downloads(slots, data, assignment, res)  # into its own two columns
    settings_row(slots, ss, rng, M, unit, _set_count)
    if slots.sidebar is not None:
        slots.sidebar.caption(setting_caption(params))
    for place, draw in filter(None, parts):
        with place:
            draw()
    drawn_last()


sidebar_slot = ss.get("_sidebar_setting")
results_box = st.container()
if failed:
    live(Slots(c1, c2, count_box, results_box, None, None, None, None, (), sidebar_slot),
         True, None, None, None)
    st.stop()

# the goal's inputs and answer (None when the search is off or the goal refused); with one, its
# figure (drawn by the fragment) marks the current setting on the frontier: the frontier below
# then leaves it out, so a move of N or λ does not redraw that figure of a thousand points
goal = goal_controls(data, inp)
goal_box = st.container()

# one pair of curves at a time (a choice, not tabs: tabs draw the hidden pair too, and every
# figure is drawn again on each move of N; two figures fewer per move, issue 25 item 6)
view = st.segmented_control("Curves against", ["N / M", "λ"], default="N / M",
                            key="_curves_view", required=True,
                            help="Against N / M: at the current λ. Against λ: at the current N.")
curves_box = st.container()

st.subheader("Accuracy against time cost")
frontier_box = frontier = None
if data.has_gold and data.has_effort:
    # a grid that does not move with N or λ (computed once per dataset and mode): λ up to where
    # nobody goes to humans whatever N
    whole = data_lambda_range()
    grid_lams = (lambda_grid(whole.upper, lower=whole.first) if whole.upper > 0
                 else np.array([0.0]))
    grid_shares = np.round(np.arange(0, 1.0001, 0.05), 10)
    grid = current_sweep(grid_lams, shares=grid_shares)
    frontier_box = st.container()
    mo = res["machine_only"]["accuracy"]
    if goal is not None:  # the same figure whatever N and λ: built once, drawn by a full run
        frontier_box.plotly_chart(_frontier_static(ss["data_key"], params.mode, grid, mo),
                                  width="stretch")
    else:
        frontier = {"grid": grid, "machine_only": mo}
    st.caption(f"{count(len(grid))} grid points (λ 0–{setting_number(grid_lams.max())}, log-like steps × N/M "
               "0–100% step 5%); the black line is the best accuracy reachable at each time cost"
               + ("; the current setting is the red star of the figure above." if goal is not None else "."))
    if is_large(data.M):
        st.caption(sample_caption(data.M))
else:
    st.info("The frontier needs gold labels and ground-truth effort.")

per_class_box = None
if data.has_gold:
    st.subheader("Per class")
    per_class_box = st.container()

live(Slots(c1, c2, count_box, results_box, goal_box, curves_box, frontier_box, per_class_box,
           tuple(st.columns(2)), sidebar_slot), False, goal, view, frontier)

next_step("2a_Evaluate.py", "Evaluate",
          "Run a real round at this setting: plan who labels what, send the queue, take the "
          "labels back and get the result with a confidence interval.")

if data.has_gold and data.has_effort:
    # the page is drawn: compute the other budget mode's frontier grid now (cached per dataset and
    # mode), so that a switch of the mode does not wait for it (0.4 s at 10^5 rows, 1.2 s at 10^6)
    current_sweep(grid_lams, shares=grid_shares,
                  mode="exactly" if ss["mode"] == "at_most" else "at_most")
