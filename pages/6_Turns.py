"""Turns page: per-turn accuracy and effort of the collaborative evaluation (Figure 6)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.errors import DataError
from core.figures.turns import turn_figure
from core.assignment import turn_base_for
from core.format import count, pct, prob
from core.scenario import turns_of
from pages._common import (column_config, current_assignment, get_data, get_params, init_state, next_step,
                           show_error)

init_state()
data = get_data()
params = get_params()
st.title("Turns")
st.caption("Reliability and effort of the collaborative evaluation per dialogue turn, at the "
           f"current setting ({params.label}; change it on the Trade-off page). Error bars are "
           "percentile bootstrap 95% intervals (samples resampled within the turn); hollow "
           "markers and hatched bars are turns with under 5% of the samples. Reliability and "
           "effort are in % of the turn's samples (time cost: % of the turn's total effort).")


@st.cache_data(show_spinner=False, max_entries=8)
def _base(data_key: str, n_boot: int, _data):
    """What no assignment changes: turn groups, label codes, machine-only scores."""
    return turn_base_for(_data, n_boot=n_boot, seed=0)


@st.cache_data(show_spinner="Bootstrapping per turn…", max_entries=32)
def _table(data_key: str, scenario_key: str, n_boot: int, _data, _human):
    table = turns_of(_base(data_key, n_boot, _data), _human)
    return table, turn_figure(table), to_csv_safe(table).encode()


if "turn" not in data.frame:
    st.info("This page needs a turn number per response (the position of the response in its "
            "dialogue): the active dataset has none. Map a column to the 'turn' role on the Data "
            "page (the built-in demo has one), or go on to the next step.")
    next_step("2a_Evaluate.py", "Evaluate",
              "Run a real evaluation round with these settings: plan the queue, send it to "
              "annotators, certify the result.")
    st.stop()
n_boot = st.select_slider("Bootstrap resamples", options=[0, 200, 500, 1000, 2000], value=1000,
                          format_func=count)
try:
    _, assignment = current_assignment()
    table, figure, csv = _table(st.session_state["data_key"], params.key, n_boot, data,
                                assignment.human)
except DataError as exc:
    show_error(exc)
    st.stop()
if not data.has_gold:
    st.warning("No gold labels: per-turn reliability is unavailable; effort is still shown.")
st.plotly_chart(figure, width="stretch")
small = table.loc[table["small"], "turn"].tolist()
if small:
    st.info(f"Turn(s) {', '.join(map(str, small))} hold under 5% of the samples: read their "
            "values with care (wide intervals).")


# Tables: short headers in words (the CSV's column name and its meaning in the tooltip), widths in
# pixels that add up to less than the page's content at a 1,400 px window with the sidebar open
# (about 930 px). Shares are written in % by a Styler (no column_config format: the grid would
# ignore the Styler's text); a missing value is drawn as the grid's placeholder "—".
MISSING = "—"
COLUMNS = {  # column -> (header, tooltip, width in px)
    "turn": ("Turn", "turn: the dialogue turn", 55),
    "n": ("Samples", "n: samples in the turn", 75),
    "accuracy": ("Accuracy", "accuracy: share of the turn's samples whose final label (human or machine) "
                 "is correct", 85),
    "precision": ("Precision", "precision: macro precision of the final labels", 85),
    "recall": ("Recall", "recall: macro recall of the final labels", 70),
    "f1": ("F1", "f1: macro F1 of the final labels", 55),
    "machine_accuracy": ("Machine alone", "machine_accuracy: accuracy of the machine's labels, no "
                         "sample sent to humans", 100),
    "human_ratio": ("To humans", "human_ratio: share of the turn's samples sent to humans", 85),
    "time_cost": ("Time cost", "time_cost: share of the turn's total effort spent by humans", 80),
    "mean_confidence": ("Confidence", "mean_confidence: mean machine confidence of the turn's samples "
                        "(0 to 1)", 90),
    "small": ("Under 5%", "small: the turn holds under 5% of the samples (wide intervals)", 80),
}

order = [c for c in COLUMNS if c in table]
shares = [c for c in order if table[c].dtype.kind == "f" and c != "mean_confidence"]
st.dataframe(table.style.format(pct, subset=shares).format(prob, subset=["mean_confidence"]),
             hide_index=True, width="stretch", column_order=order, column_config=column_config(table, order, COLUMNS),
             placeholder=MISSING)
st.caption(f"Shares in % ({MISSING}: unavailable, e.g. reliability without gold labels, time cost without "
           "an effort column). Hover over a header for its definition; the CSV holds the same values as "
           "fractions under the column names the tooltips give.")
st.download_button("Download the per-turn table and figure data (CSV)", csv,
                   file_name="hmceval_turns.csv", mime="text/csv")

ci = [k for k in COLUMNS if f"{k}_lo" in table]
if ci:
    st.markdown("**95% bootstrap intervals** (percentile, samples resampled within the turn)")

    def _interval(lo: float, hi: float) -> str:
        return MISSING if lo != lo or hi != hi else f"{pct(lo)} – {pct(hi)}"

    intervals = pd.DataFrame({"turn": table["turn"],
                              **{k: [_interval(lo, hi) for lo, hi in zip(table[f"{k}_lo"], table[f"{k}_hi"])]
                                 for k in ci}})
    st.dataframe(intervals, hide_index=True, width="stretch", placeholder=MISSING,
                 column_config=column_config(intervals, ["turn", *ci], COLUMNS, widths={k: 125 for k in ci},
                                       helps={k: f"{k}_lo, {k}_hi: 95% interval of "
                                                 + COLUMNS[k][1].split(": ", 1)[1] for k in ci}))
    st.download_button("Download the intervals (CSV)",
                       to_csv_safe(table[["turn", *(f"{k}_{b}" for k in ci for b in ("lo", "hi"))]]).encode(),
                       file_name="hmceval_turns_intervals.csv", mime="text/csv")

next_step("2a_Evaluate.py", "Evaluate",
          "Run a real evaluation round with these settings: plan the queue, send it to annotators, certify the result.")
