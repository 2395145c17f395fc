"""Turns page: per-turn accuracy and effort of the collaborative evaluation (Figure 6)."""

from __future__ import annotations

import streamlit as st

from core.csv_safe import to_csv_safe
from core.errors import DataError
from core.figures.turns import TURN_NAMES, turn_figure
from core.turns import per_turn_from, turn_base_for
from pages._common import current_assignment, get_data, get_params, init_state, next_step, show_error

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
def _table(data_key: str, lam: float, n_human: int, mode: str, cons_key: str, n_boot: int,
           _data, _human):
    table = per_turn_from(_base(data_key, n_boot, _data), _human)
    return table, turn_figure(table), to_csv_safe(table).encode()


if "turn" not in data.frame:
    st.error("The active dataset has no turn column. Map a column to the 'turn' role on the Data "
             "page (the built-in demo has one).")
    st.stop()
n_boot = st.select_slider("Bootstrap resamples", options=[0, 200, 500, 1000, 2000], value=1000)
try:
    _, assignment = current_assignment()
    table, figure, csv = _table(st.session_state["data_key"], params.lam, params.n_human,
                                params.mode, str(st.session_state["constraints"]), n_boot, data,
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


def _column(col: str):
    """Friendly header (the CSV keeps the column name, shown in the tooltip); shares in %."""
    if col == "turn":
        return st.column_config.NumberColumn("Turn", help="turn", format="%d", width="small")
    if col == "n":
        return st.column_config.NumberColumn("Samples", help="n: samples in the turn", format="%d",
                                             width="small")
    if col == "small":
        return st.column_config.CheckboxColumn("Under 5%", help="small: the turn holds under 5% "
                                               "of the samples", width="small")
    if col == "mean_confidence":
        return st.column_config.NumberColumn(TURN_NAMES[col], help=col, format="%.3f")
    base, _, bound = col.rpartition("_")
    if bound in ("lo", "hi") and base in TURN_NAMES:
        return st.column_config.NumberColumn(
            f"{TURN_NAMES[base]}, 95% {'low' if bound == 'lo' else 'high'}", help=col)
    return st.column_config.NumberColumn(TURN_NAMES.get(col, col), help=col)


shares = [c for c in table.columns if table[c].dtype.kind == "f" and c != "mean_confidence"]
st.dataframe(table.style.format("{:.1%}", subset=shares, na_rep="—"), hide_index=True, width="stretch",
             column_config={c: _column(c) for c in table.columns})
st.caption("Shares in % (— : unavailable, e.g. without gold labels): reliability = share of the turn's samples labelled correctly, samples "
           "sent to humans = share of the turn's samples, time cost = share of the turn's total "
           "effort spent by humans. The CSV holds the same values as fractions, with the column "
           "names shown in each header's tooltip.")
st.download_button("Download the per-turn table and figure data (CSV)", csv,
                   file_name="hmceval_turns.csv", mime="text/csv")

next_step("2a_Evaluate.py", "Evaluate",
          "Run a real evaluation round with these settings: plan the queue, send it to annotators, certify the result.")
