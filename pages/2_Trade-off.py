"""Trade-off page: move N and lambda, see reliability and effort (the paper's Figures 2 and 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.errors import DataError
from core.figures.tradeoff import EFFORT_METRICS, RELIABILITY_METRICS, curves, frontier
from core.report import assignment_json, assignment_table, per_class_report
from core.serialize import dumps
from pages._common import (current_assignment, current_sweep, fmt, get_data, get_params,
                           init_state, show_error, synced)

init_state()
ss = st.session_state
data = get_data()
M = data.M
st.title("Trade-off")
st.caption("HMCEval assigns each sample to a human or to the machine by maximising confidence "
           "minus λ × effort (Eq. 3) with at most N samples sent to humans (Eq. 4). Raise N or "
           "lower λ for reliability; lower N or raise λ to save effort.")

c1, c2, c3 = st.columns([3, 3, 2])
with c1:
    synced(st.slider, "Human share N / M", "share", min_value=0.0, max_value=1.0, step=0.01,
           help="N = int(share × M) samples may go to humans.")


def _set_count() -> None:
    ss["share"] = ss["_w_count"] / M


with c2:
    synced(st.slider, "λ (effort weight)", "lam", min_value=0.0, max_value=50.0, step=0.1,
           help="0 ignores effort; large values send fewer, cheaper samples to humans.")
with c3:
    if ss.get("_w_count") != get_params().n_human:
        ss["_w_count"] = get_params().n_human
    st.number_input("N (samples)", min_value=0, max_value=M, step=1, key="_w_count",
                    on_change=_set_count)
    synced(st.radio, "Budget mode", "mode", options=["at_most", "exactly"], horizontal=True,
           format_func=lambda m: "at most N" if m == "at_most" else "exactly N",
           help="'at most N' is Eq. 4 as written; 'exactly N' fixes the human ratio (Table 2).")

with st.expander("Extra constraints (solved as a general ILP with HiGHS)"):
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
    st.caption("With no extra constraint the exact O(M log M) path is used; with any, the same "
               "objective is solved by cvxpy + HiGHS at zero gap. Curves below always show the "
               "problem without extra constraints.")

params = get_params()
try:
    inp, assignment = current_assignment()
except DataError as exc:
    show_error(exc)
    st.stop()
res = assignment_json(data, inp, assignment)
mo = res["machine_only"]

st.subheader("Result at " + params.label)
if res["method"] == "ilp":
    st.caption("Solved by the general ILP (extra constraints active).")
k = st.columns(4)
for col, key, name in zip(k, ("accuracy", "f1", "precision", "recall"),
                          ("Accuracy", "F1 (macro)", "Precision (macro)", "Recall (macro)")):
    if res[key] is None:
        col.metric(name, "n/a", help="No gold labels: observed reliability is unavailable.")
    else:
        col.metric(name, fmt(res[key]), delta=f"{res[key] - mo[key]:+.4f} vs machine only",
                   help=f"Machine only: {fmt(mo[key])}; all human: 1.0000 (humans are gold).")
e = st.columns(4)
e[0].metric("Humans", f"{res['n_human']:,} of {M:,}",
            help="Samples assigned to a human (at most N in 'at most' mode).")
e[1].metric("Human ratio", fmt(res["human_ratio"]),
            delta=f"{res['human_ratio'] - 1:+.4f} vs all human", delta_color="inverse")
if res["time_cost"] is None:
    e[2].metric("Time cost", "n/a", help="No ground-truth effort column.")
else:
    e[2].metric("Time cost", fmt(res["time_cost"]), delta=f"{res['time_cost'] - 1:+.4f} vs all human",
                delta_color="inverse", help="Ground-truth effort of human samples / total effort.")
e[3].metric("Expected reliability", fmt(res["expected_reliability"]),
            help="Mean confidence of what the machine keeps, with human confidence b_i for the rest.")
st.caption(f"Objective (Eq. 3) {res['objective']:.4f} · predicted time cost "
           f"{fmt(res['time_cost_predicted'])} (effort source: {data.effort_source.replace('_', ' ')})")

share_grid = np.round(np.arange(0, 1.0001, 0.01), 10)
lam_grid = np.round(np.arange(0, 50.0001, 0.25), 10)
by_share = current_sweep([params.lam], shares=share_grid)
by_lam = current_sweep(lam_grid, n_values=[params.n_human])
rel = [m for m in RELIABILITY_METRICS if data.has_gold] or ["expected_reliability"]
if not data.has_gold:
    rel = ["expected_reliability"]
eff = [m for m in EFFORT_METRICS if m != "time_cost" or data.has_effort]

t1, t2 = st.tabs(["Against N / M (Figure 2)", "Against λ (Figure 3)"])
with t1:
    a, b = st.columns(2)
    a.plotly_chart(curves(by_share, x="human_share", metrics=rel, current=params.share,
                          title=f"Reliability at λ = {params.lam:g}", y_title="score"), width="stretch")
    b.plotly_chart(curves(by_share, x="human_share", metrics=eff, current=params.share,
                          title=f"Effort at λ = {params.lam:g}", y_title="share"), width="stretch")
with t2:
    a, b = st.columns(2)
    a.plotly_chart(curves(by_lam, x="lambda", metrics=rel, current=params.lam,
                          title=f"Reliability at N = {params.n_human}", y_title="score"), width="stretch")
    b.plotly_chart(curves(by_lam, x="lambda", metrics=eff, current=params.lam,
                          title=f"Effort at N = {params.n_human}", y_title="share"), width="stretch")

st.subheader("Accuracy against time cost")
if data.has_gold and data.has_effort:
    grid = current_sweep(np.round(np.arange(0, 45.0001, 0.5), 10),
                         shares=np.round(np.arange(0, 1.0001, 0.05), 10))
    st.plotly_chart(frontier(grid, current=res, machine_only=mo["accuracy"]), width="stretch")
    st.caption(f"{len(grid):,} grid points (λ 0–45 step 0.5 × N/M 0–1 step 0.05); the black line is "
               "the best accuracy reachable at each time cost.")
else:
    st.info("The frontier needs gold labels and ground-truth effort.")

if data.has_gold:
    st.subheader("Per class")
    table = per_class_report(data, assignment)
    table["label"] = table["label"].astype(str)
    st.dataframe(table, hide_index=True, width="stretch")

d1, d2 = st.columns(2)
# built when clicked (not on every rerun), formula cells neutralised
d1.download_button("Download the assignment (CSV)",
                   lambda: to_csv_safe(assignment_table(data, assignment)).encode(),
                   file_name="hmceval_assignment.csv", mime="text/csv")
d2.download_button("Download the metrics (JSON)", dumps(res).encode(),
                   file_name="hmceval_metrics.json", mime="application/json")
