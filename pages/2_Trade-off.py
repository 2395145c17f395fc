"""Trade-off page: move N and lambda, see reliability and effort (the paper's Figures 2 and 3)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.errors import DataError
from core.figures.tradeoff import (EFFORT_METRICS, RELIABILITY_METRICS, curves_pair_figure,
                                   frontier_figure)
from core.assignment import assignment_table, per_class_report
from core.assignment import lambda_grid
from core.serialize import dumps
from core.format import count, format_effort, pct, plain_number, prob, setting_number
from core.summary import beyond_lambda_range, data_effort_unit, effort_unit, per_unit, tradeoff_summary
from pages._large import is_large, sample_caption
from pages._common import (current_lambda_range, current_result, current_sweep, data_lambda_range,
                           get_data, get_params, init_state, lambda_below_pivot, next_step,
                           range_help, show_error, synced)

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

c1, c2, c3 = st.columns([3, 3, 2])
with c1:
    synced(st.slider, "Human share N / M", "share", min_value=0.0, max_value=1.0, step=0.01,
           help="N = int(share × M) samples may go to humans.")


@st.cache_resource(show_spinner=False, max_entries=4)
def _frontier_static(data_key: str, mode: str, _grid: pd.DataFrame, machine_only: float):
    # a resource: st.plotly_chart only reads the figure
    return frontier_figure(_grid, machine_only=machine_only, log_lambda=True, x_title=FRONTIER_X)


def _frontier(data_key: str, mode: str, grid: pd.DataFrame, machine_only: float,
              current: dict | None = None):
    """The frontier figure of the dataset's grid; with the ``current`` setting starred (built
    on every run), or without (built once per dataset and mode)."""
    if current is None:
        return _frontier_static(data_key, mode, grid, machine_only)
    return frontier_figure(grid, current=current, machine_only=machine_only, log_lambda=True,
                           x_title=FRONTIER_X)


FRONTIER_X = "Time cost (% of the effort of labelling everything)"


def _set_count() -> None:
    ss["share"] = ss["_w_count"] / M


if ss.get("_lam_note"):  # set when a new dataset made the previous λ meaningless
    st.info(ss.pop("_lam_note"))
rng = current_lambda_range()
lam_now = float(ss["lam"])
with c2:
    if rng.upper > 0:
        # a log-like grid from 0 to the last value that changes the assignment, plus the
        # current value (typed in the box below, or the paper's 4.6)
        options = lambda_grid(rng.upper, lower=rng.first, include=[lam_now]).tolist()
        if lam_now not in options:
            options.append(lam_now)
        synced(st.select_slider, f"λ (effort weight, {per_unit(unit)})", "lam",
               options=sorted(options), format_func=setting_number,
               help=f"From 0 (effort ignored) to {setting_number(rng.upper)}, beyond which "
                    + beyond_lambda_range(rng.n_beyond, ss["mode"])
                    + ". Log-like steps; type an exact value in the box.")
        st.caption(f"0 to {setting_number(rng.upper)}: beyond it {beyond_lambda_range(rng.n_beyond, ss['mode'])}.")
    else:
        st.caption("λ changes nothing on this data at this N and mode (every ordering of the "
                   "samples is the same whatever λ).")
    synced(st.number_input, f"λ, exact value ({per_unit(unit)})", "lam", wkey="_w_lam_box",
           min_value=0.0, format="%.4g",
           step=10.0 ** (math.floor(math.log10(rng.upper)) - 3) if rng.upper > 0 else 0.1,
           help="Any value >= 0; the slider and the command line (--lam) take the same λ.")
with c3:
    if ss.get("_w_count") != get_params().n_human:
        ss["_w_count"] = get_params().n_human
    st.number_input("N (samples)", min_value=0, max_value=M, step=1, key="_w_count",
                    on_change=_set_count, help=range_help(None, 0, M))
    synced(st.radio, "Budget mode", "mode", options=["at_most", "exactly"], horizontal=True,
           format_func=lambda m: "at most N" if m == "at_most" else "exactly N",
           help="'at most N' sends up to N samples, only those worth their effort (the paper's "
                "Eq. 4 as written); 'exactly N' always sends N, which fixes the share of samples "
                "humans label (the paper's Table 2).")

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
except DataError as exc:
    show_error(exc)
    st.stop()
mo = res["machine_only"]

st.subheader("Result at " + params.label)
if res["method"] == "ilp":
    st.caption("Found by the exact optimiser (extra constraints active).",
               help="An integer linear programme solved by cvxpy + HiGHS at zero gap.")
said = tradeoff_summary(res, unit=unit, machine_expected=float(inp.a.mean()))
st.markdown(f"**{said.headline}**")
if said.why:
    st.info(said.why)
    below = lambda_below_pivot(rng)  # all N allowed samples go to humans there
    if below is not None and below != params.lam:
        st.button(f"Use λ = {setting_number(below)} (all N = {count(params.n_human)} go to humans below "
                  f"{setting_number(rng.pivot)})", key="_lam_to_pivot", on_click=ss.__setitem__,
                  args=("lam", float(below)))
k = st.columns(4)
for col, key, name in zip(k, ("accuracy", "f1", "precision", "recall"),
                          ("Accuracy", "F1 (macro)", "Precision (macro)", "Recall (macro)")):
    if res[key] is None:
        col.metric(name, "n/a", help="No gold labels: observed reliability is unavailable.")
    else:
        col.metric(name, pct(res[key]),
                   delta=f"{100 * (res[key] - mo[key]):+.1f} points vs machine only",
                   help=f"Machine only: {pct(mo[key])}; all human: 100% (humans are the gold).")
e = st.columns(4)
e[0].metric("Humans", f"{count(res['n_human'])} of {count(M)}",
            help="Samples assigned to a human (at most N in 'at most' mode).")
e[1].metric("Human ratio", pct(res["human_ratio"]),
            delta=f"{100 * (res['human_ratio'] - 1):+.1f} points vs all human", delta_color="inverse",
            help="Share of the samples that humans label.")
gt_unit = effort_unit(data.roles.get("human_effort"))
if res["time_cost"] is None:
    e[2].metric("Time cost", "n/a", help="No ground-truth effort column.")
    spent = float(inp.l[assignment.human].sum())
    e[3].metric("Predicted human effort", format_effort(spent, unit),
                help=f"Predicted effort of the samples sent to humans, of "
                     f"{format_effort(inp.l.sum(), unit)} for all samples.")
else:
    he = inp.human_effort
    e[2].metric("Time cost", pct(res["time_cost"]),
                delta=f"{100 * (res['time_cost'] - 1):+.1f} points vs all human",
                delta_color="inverse",
                help=f"Ground-truth effort ({gt_unit}) of the human samples / the total effort.")
    e[3].metric("Human effort", format_effort(he[assignment.human].sum(), gt_unit),
                help=f"Recorded effort ({gt_unit}) of the samples sent to humans, of "
                     f"{format_effort(he.sum(), gt_unit)} to label everything.")
with st.expander("Technical figures (the optimiser's objective, expected reliability, λ range)"):
    t = st.columns(3)
    t[0].metric("Expected reliability", prob(res["expected_reliability"]),
                help="Mean confidence of what the machine keeps, with human confidence b_i for "
                     "the rest.")
    t[1].metric("Objective", f"{plain_number(res['objective'])}",
                help="Σ confidence − λ × Σ effort over the assignment (its maximum; the paper's "
                     "Eq. 3).")
    t[2].metric("Predicted time cost", pct(res["time_cost_predicted"]),
                help=f"Predicted effort ({unit}) of the human samples / the total predicted effort.")
    lines = [f"Effort the optimiser weighs: {data.effort_source.replace('_', ' ')} "
             f"(`{data.roles.get(data.effort_source, '1 per sample')}`), in {unit}."]
    if rng.upper > 0:
        lines.append(f"λ changes the assignment between 0 and {setting_number(rng.upper, 6)} "
                     f"(from there on {beyond_lambda_range(rng.n_beyond, params.mode)}).")
    if rng.pivot is not None and 0 < rng.pivot < math.inf:
        lines.append(f"All N = {count(params.n_human)} allowed samples go to humans while λ < "
                     f"{setting_number(rng.pivot, 6)}; fewer from there on.")
    elif rng.pivot == 0 and params.n_human > 0:
        lines.append(f"Fewer than N = {count(params.n_human)} samples have a positive gain even at "
                     "λ = 0 (their machine confidence is already that of a human).")
    st.caption(" ".join(lines))

from pages._goal import goal_section  # noqa: E402  (issue 25: the goal control, its own module)
# True when its figure marks the current setting on the frontier: the frontier below then leaves
# it out, so a move of N or λ does not redraw that figure of about a thousand points (issue 33)
marked = goal_section(data, inp, res)

share_grid = np.round(np.arange(0, 1.0001, 0.01), 10)
# the curve against λ at the current N: a grid that depends on the data, N and mode only (not
# on the current λ, which is the dashed line), so moving λ finds it in the cache
if rng.upper > 0:
    low = max(rng.first or rng.upper / 1e5, rng.upper / 1e5) / 2
    lam_grid = np.unique(np.r_[lambda_grid(rng.upper, lower=rng.first),
                               np.geomspace(low, rng.upper, 120)])
else:
    lam_grid = np.array([0.0, 1.0])
rel = [m for m in RELIABILITY_METRICS if data.has_gold] or ["expected_reliability"]
if not data.has_gold:
    rel = ["expected_reliability"]
eff = [m for m in EFFORT_METRICS if m != "time_cost" or data.has_effort]
lam_title = f"λ ({per_unit(unit)}, log scale)"
eff_title = "share of the samples or of the effort (%)"

# one pair of curves at a time (a choice, not tabs: tabs draw the hidden pair too, and every
# figure is drawn again on each move of N; two figures fewer per move, issue 25 item 6)
view = st.segmented_control("Curves against", ["N / M", "λ"], default="N / M",
                            key="_curves_view", required=True,
                            help="Against N / M: at the current λ. Against λ: at the current N.")
# both panels in one figure: the browser draws a changed figure anew, and the current setting
# changes it on every move; one figure of two panels costs less than two (issue 33)
if view != "λ":
    by_share = current_sweep([params.lam], shares=share_grid)
    st.plotly_chart(curves_pair_figure(
        by_share, x="human_share", left=rel, right=eff, current=params.share,
        title=f"Reliability and effort against N / M at λ = {setting_number(params.lam)}",
        subtitles=(f"Reliability at λ = {setting_number(params.lam)}",
                   f"Effort at λ = {setting_number(params.lam)}"),
        y_titles=("score (%)", eff_title), x_title="N / M (share of samples humans may label)"),
        width="stretch")
else:
    by_lam = current_sweep(lam_grid, n_values=[params.n_human])
    st.plotly_chart(curves_pair_figure(
        by_lam, x="lambda", left=rel, right=eff, current=params.lam, log_x=True,
        title=f"Reliability and effort against λ at N = {count(params.n_human)}",
        subtitles=(f"Reliability at N = {count(params.n_human)}",
                   f"Effort at N = {count(params.n_human)}"),
        y_titles=("score (%)", eff_title), x_title=lam_title), width="stretch")
    st.caption(f"λ from {setting_number(lam_grid[lam_grid > 0].min(), 3)} to {setting_number(lam_grid.max())} on a log "
               "scale (a log scale cannot show λ = 0).")
if is_large(data.M):  # the sweeps drawn from a sample; the metrics above are exact
    st.caption(sample_caption(data.M))

st.subheader("Accuracy against time cost")
if data.has_gold and data.has_effort:
    # a grid that does not move with N or λ (computed once per dataset and mode): λ up to where
    # nobody goes to humans whatever N
    whole = data_lambda_range()
    grid_lams = (lambda_grid(whole.upper, lower=whole.first) if whole.upper > 0
                 else np.array([0.0]))
    grid_shares = np.round(np.arange(0, 1.0001, 0.05), 10)
    grid = current_sweep(grid_lams, shares=grid_shares)
    if marked:  # the same figure whatever N and λ: built once, not sent again as a new figure
        st.plotly_chart(_frontier(ss["data_key"], params.mode, grid, mo["accuracy"]), width="stretch")
    else:
        st.plotly_chart(_frontier(ss["data_key"], params.mode, grid, mo["accuracy"], res),
                        width="stretch")
    st.caption(f"{count(len(grid))} grid points (λ 0–{setting_number(grid_lams.max())}, log-like steps × N/M "
               "0–100% step 5%); the black line is the best accuracy reachable at each time cost"
               + ("; the current setting is the red star of the figure above." if marked else "."))
    if is_large(data.M):
        st.caption(sample_caption(data.M))
else:
    st.info("The frontier needs gold labels and ground-truth effort.")

if data.has_gold:
    st.subheader("Per class")
    table = per_class_report(data, assignment, inputs=inp)
    table["label"] = table["label"].astype(str)
    # two narrow tables side by side (final labels, machine alone) rather than one of eight
    # columns: every header reads whole in a 1,400 px window (issue 25)
    names = {"precision": "Precision", "recall": "Recall", "f1": "F1"}
    left, right = st.columns(2)
    for col_box, machine, heading in ((left, False, "Final labels (humans where routed)"),
                                      (right, True, "Machine labels alone")):
        keep = ["label"] + (["support"] if not machine else [])
        config = {"label": st.column_config.TextColumn("Class"),
                  "support": st.column_config.NumberColumn(
                      "Gold count", format="localized",
                      help="Samples of this class in the gold labels")}
        for col in table.columns:
            base, _, who = col.partition(" (")
            if base in names and bool(who) == machine:
                keep.append(col)
                config[col] = st.column_config.NumberColumn(
                    names[base], format="percent",
                    help=f"{names[base]} of the {heading.lower()} for this class ({col})")
        col_box.markdown(f"**{heading}**")
        col_box.dataframe(table[keep], hide_index=True, width="stretch", column_config=config,
                          placeholder="—")

d1, d2 = st.columns(2)
# built when clicked (not on every rerun), formula cells neutralised; a download does not rerun
# the page (on_click="ignore"): nothing on it changes
d1.download_button("Download the assignment (CSV)",
                   lambda: to_csv_safe(assignment_table(data, assignment)).encode(),
                   file_name="hmceval_assignment.csv", mime="text/csv", on_click="ignore")
d2.download_button("Download the metrics (JSON)", dumps(res).encode(),
                   file_name="hmceval_metrics.json", mime="application/json", on_click="ignore")

next_step("2a_Evaluate.py", "Evaluate",
          "Run a real round at this setting: plan who labels what, send the queue, take the "
          "labels back and get the result with a confidence interval.")

if data.has_gold and data.has_effort:
    # the page is drawn: compute the other budget mode's frontier grid now (cached per dataset and
    # mode), so that a switch of the mode does not wait for it (0.4 s at 10^5 rows, 1.2 s at 10^6)
    current_sweep(grid_lams, shares=grid_shares,
                  mode="exactly" if ss["mode"] == "at_most" else "at_most")
