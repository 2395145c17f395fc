"""The Trade-off page's parts that depend on the current setting (N, λ): the settings row, the
result, the curves, the per-class tables and the downloads.

The page draws them from its fragment (a move of N or λ reruns only that fragment, not the page,
issue 33), each into a place the page made for it in its order (:class:`Slots`); what does not
depend on the setting (the constraints, the goal's inputs, the frontier when the goal figure
marks the setting) is drawn by a full run of the page only and not sent again on a move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from core.assignment import assignment_table, lambda_grid, per_class_report
from core.csv_safe import to_csv_safe
from core.figures.tradeoff import EFFORT_METRICS, RELIABILITY_METRICS, curves_pair_figure
from core.format import count, format_effort, pct, plain_number, prob, setting_number
from core.serialize import dumps
from core.summary import beyond_lambda_range, effort_unit, per_unit, tradeoff_summary
from pages._common import get_params, lambda_below_pivot, range_help, synced
from pages._large import is_large, sample_caption


@dataclass(frozen=True)
class Slots:
    """The places of the page that its fragment fills, in the page's order (containers made by
    a full run; ``frontier`` and ``per_class`` None when the page has no such part, ``sidebar``
    None without the app's sidebar, as in a page test)."""

    share: Any
    lam: Any
    count: Any
    results: Any
    goal: Any
    curves: Any
    frontier: Any
    per_class: Any
    downloads: tuple
    sidebar: Any


def settings_row(slots: Slots, ss: Any, rng: Any, m: int, unit: str, set_count) -> None:
    """The N slider, the λ slider and box (their range at the current N) and the N box."""
    with slots.share:
        synced(st.slider, "Human share N / M", "share", min_value=0.0, max_value=1.0, step=0.01,
               help="N = int(share × M) samples may go to humans.")
    lam_now = float(ss["lam"])
    with slots.lam:
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
            st.caption(f"0 to {setting_number(rng.upper)}: beyond it "
                       f"{beyond_lambda_range(rng.n_beyond, ss['mode'])}.")
        else:
            st.caption("λ changes nothing on this data at this N and mode (every ordering of the "
                       "samples is the same whatever λ).")
        synced(st.number_input, f"λ, exact value ({per_unit(unit)})", "lam", wkey="_w_lam_box",
               min_value=0.0, format="%.4g",
               step=10.0 ** (math.floor(math.log10(rng.upper)) - 3) if rng.upper > 0 else 0.1,
               help="Any value >= 0; the slider and the command line (--lam) take the same λ.")
    with slots.count:
        n_human = get_params().n_human
        if ss.get("_w_count") != n_human:
            ss["_w_count"] = n_human
        st.number_input("N (samples)", min_value=0, max_value=m, step=1, key="_w_count",
                        on_change=set_count, help=range_help(None, 0, m))


def result_section(data: Any, params: Any, rng: Any, inp: Any, assignment: Any, res: dict,
                   unit: str) -> Callable[[], None]:
    """The result at the current setting: its summary, the reliability and effort cards and the
    technical figures (drawn by the returned function)."""
    ss = st.session_state
    m = data.M
    mo = res["machine_only"]
    said = tradeoff_summary(res, unit=unit, machine_expected=float(inp.a.mean()))
    below = lambda_below_pivot(rng) if said.why else None  # all N go to humans there
    gt_unit = effort_unit(data.roles.get("human_effort"))
    return lambda: _draw_result(data, params, rng, inp, assignment, res, unit, said, below,
                                gt_unit, ss, m, mo)


def _draw_result(data, params, rng, inp, assignment, res, unit, said, below, gt_unit, ss, m,
                 mo) -> None:
    st.subheader("Result at " + params.label)
    if res["method"] == "ilp":
        st.caption("Found by the exact optimiser (extra constraints active).",
                   help="An integer linear programme solved by cvxpy + HiGHS at zero gap.")
    st.markdown(f"**{said.headline}**")
    if said.why:
        st.info(said.why)
        if below is not None and below != params.lam:
            st.button(f"Use λ = {setting_number(below)} (all N = {count(params.n_human)} go to "
                      f"humans below {setting_number(rng.pivot)})", key="_lam_to_pivot",
                      on_click=ss.__setitem__, args=("lam", float(below)))
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
    e[0].metric("Humans", f"{count(res['n_human'])} of {count(m)}",
                help="Samples assigned to a human (at most N in 'at most' mode).")
    e[1].metric("Human ratio", pct(res["human_ratio"]),
                delta=f"{100 * (res['human_ratio'] - 1):+.1f} points vs all human",
                delta_color="inverse", help="Share of the samples that humans label.")
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
                    help="Mean confidence of what the machine keeps, with human confidence b_i "
                         "for the rest.")
        t[1].metric("Objective", f"{plain_number(res['objective'])}",
                    help="Σ confidence − λ × Σ effort over the assignment (its maximum; the "
                         "paper's Eq. 3).")
        t[2].metric("Predicted time cost", pct(res["time_cost_predicted"]),
                    help=f"Predicted effort ({unit}) of the human samples / the total predicted "
                         "effort.")
        lines = [f"Effort the optimiser weighs: {data.effort_source.replace('_', ' ')} "
                 f"(`{data.roles.get(data.effort_source, '1 per sample')}`), in {unit}."]
        if rng.upper > 0:
            lines.append(f"λ changes the assignment between 0 and {setting_number(rng.upper, 6)} "
                         f"(from there on {beyond_lambda_range(rng.n_beyond, params.mode)}).")
        if rng.pivot is not None and 0 < rng.pivot < math.inf:
            lines.append(f"All N = {count(params.n_human)} allowed samples go to humans while "
                         f"λ < {setting_number(rng.pivot, 6)}; fewer from there on.")
        elif rng.pivot == 0 and params.n_human > 0:
            lines.append(f"Fewer than N = {count(params.n_human)} samples have a positive gain "
                         "even at λ = 0 (their machine confidence is already that of a human).")
        st.caption(" ".join(lines))


def curves_section(data: Any, params: Any, rng: Any, unit: str, view: str,
                   sweep) -> Callable[[], None]:
    """The pair of curves against N / M (at the current λ) or against λ (at the current N),
    drawn by the returned function; ``sweep`` is the page's cached sweep (``current_sweep``)."""
    share_grid = np.round(np.arange(0, 1.0001, 0.01), 10)
    # the curve against λ at the current N: a grid that depends on the data, N and mode only
    # (not on the current λ, which is the dashed line), so moving λ finds it in the cache
    if rng.upper > 0:
        low = max(rng.first or rng.upper / 1e5, rng.upper / 1e5) / 2
        lam_grid = np.unique(np.r_[lambda_grid(rng.upper, lower=rng.first),
                                   np.geomspace(low, rng.upper, 120)])
    else:
        lam_grid = np.array([0.0, 1.0])
    rel = [m for m in RELIABILITY_METRICS if data.has_gold] or ["expected_reliability"]
    eff = [m for m in EFFORT_METRICS if m != "time_cost" or data.has_effort]
    lam_title = f"λ ({per_unit(unit)}, log scale)"
    eff_title = "share of the samples or of the effort (%)"
    # both panels in one figure: the browser draws a changed figure anew, and the current
    # setting changes it on every move; one figure of two panels costs less than two (issue 33)
    if view != "λ":
        by_share = sweep([params.lam], shares=share_grid)
        figure = curves_pair_figure(
            by_share, x="human_share", left=rel, right=eff, current=params.share,
            title=f"Reliability and effort against N / M at λ = {setting_number(params.lam)}",
            subtitles=(f"Reliability at λ = {setting_number(params.lam)}",
                       f"Effort at λ = {setting_number(params.lam)}"),
            y_titles=("score (%)", eff_title), x_title="N / M (share of samples humans may label)")
        captions = []
    else:
        by_lam = sweep(lam_grid, n_values=[params.n_human])
        figure = curves_pair_figure(
            by_lam, x="lambda", left=rel, right=eff, current=params.lam, log_x=True,
            title=f"Reliability and effort against λ at N = {count(params.n_human)}",
            subtitles=(f"Reliability at N = {count(params.n_human)}",
                       f"Effort at N = {count(params.n_human)}"),
            y_titles=("score (%)", eff_title), x_title=lam_title)
        captions = [f"λ from {setting_number(lam_grid[lam_grid > 0].min(), 3)} to "
                    f"{setting_number(lam_grid.max())} on a log scale (a log scale cannot show "
                    "λ = 0)."]
    if is_large(data.M):  # the sweeps drawn from a sample; the metrics above are exact
        captions.append(sample_caption(data.M))

    def draw() -> None:
        st.plotly_chart(figure, width="stretch")
        for text in captions:
            st.caption(text)

    return draw


def per_class_section(data: Any, inp: Any, assignment: Any) -> Callable[[], None]:
    """Precision, recall and F1 per class: the final labels and the machine's alone (drawn by
    the returned function)."""
    table = per_class_report(data, assignment, inputs=inp)
    table["label"] = table["label"].astype(str)
    return lambda: _draw_per_class(table)


def _draw_per_class(table) -> None:
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


def downloads(slots: Slots, data: Any, assignment: Any, res: dict) -> Callable[[], None]:
    """The assignment (CSV, built when clicked, formula cells neutralised) and the metrics (JSON),
    drawn by the returned function; a download does not rerun the page (``on_click="ignore"``):
    nothing on it changes."""
    metrics = dumps(res).encode()
    return lambda: _draw_downloads(slots, data, assignment, metrics)


def _draw_downloads(slots: Slots, data: Any, assignment: Any, metrics: bytes) -> None:
    d1, d2 = slots.downloads
    d1.download_button("Download the assignment (CSV)",
                       lambda: to_csv_safe(assignment_table(data, assignment)).encode(),
                       file_name="hmceval_assignment.csv", mime="text/csv", on_click="ignore")
    d2.download_button("Download the metrics (JSON)", metrics,
                       file_name="hmceval_metrics.json", mime="application/json",
                       on_click="ignore")
