"""The Effort page's "Refit on the campaign's own times" part.

An evaluation round stores the seconds each label took (Label Studio's ``lead_time``, a label
table's ``seconds`` column). Here the effort model is refitted on them
(:func:`core.hee.campaign.refit_campaign_effort`, the function ``hmceval effort
--campaign-times`` calls): the held-out comparison with the prior effort is shown, and the
refitted seconds can become the active dataset's effort column, which the next round's plan
(Trade-off and Evaluate pages) then uses.

The round is the one chosen on the Evaluate page (``ss["evaluate"]["round_id"]``), else the
active dataset's latest round (or the round last refitted on). Canonical state:
``ss["eff_campaign"]``, the round whose refit is shown (None before a refit is asked for).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.errors import DataError
from core.format import count, plain_number
from core.hee.campaign import CAMPAIGN_COLUMN, MIN_TIMED, refit_campaign_effort
from pages._common import get_data, get_workspace, set_data, show_error


def _round_id(ws, data) -> int | None:
    """The Evaluate page's round, else the active dataset's latest round."""
    ids = ws.list_rounds()["id"].astype(int).tolist()
    for chosen in ((st.session_state.get("evaluate") or {}).get("round_id"),
                   st.session_state.get("eff_campaign")):
        if chosen in ids:
            return int(chosen)
    dsid = ws.find_dataset(data.raw, dict(data.roles), content_id=data.content_id)
    rounds = ws.list_rounds(dsid) if dsid is not None else None
    return None if rounds is None or rounds.empty else int(rounds["id"].iloc[0])


@st.cache_data(show_spinner=False, max_entries=8)
def _times(root: str, round_id: int, version: tuple, _ws) -> pd.DataFrame:
    from core.workspace.rounds import round_design, stored_votes

    _, design = round_design(_ws, round_id)
    return stored_votes(_ws, round_id, design)


@st.cache_data(show_spinner="Refitting the effort model on the campaign's times…",
               max_entries=8)
def _refit(data_key: str, root: str, round_id: int, version: tuple, _data, _times):
    return refit_campaign_effort(_data, _times, n_jobs=2)


def campaign_section() -> None:
    """Draw the refit on the active round's stored times."""
    ss = st.session_state
    ss.setdefault("eff_campaign", None)
    st.subheader("Refit on the campaign's own times")
    data = get_data()
    if data.roles.get("predicted_effort") == CAMPAIGN_COLUMN:
        # comparing the refit with itself (fitted on these very times) would flatter it
        st.caption(f"The active dataset's effort is the refit on a campaign's times (column "
                   f"{CAMPAIGN_COLUMN}); the next round planned on the Trade-off or Evaluate "
                   "page uses it. To refit again, make the original dataset active.")
        return
    try:
        ws = get_workspace()
        rid = _round_id(ws, data)
        if rid is None:
            st.caption("No evaluation round of this dataset yet: once annotators return labels "
                       "with their times (Label Studio records them), the effort model can be "
                       "refitted on them here.")
            return
        version = tuple(ws.round_version(rid))
        times = _times(str(ws.root), rid, version, ws)
    except DataError as exc:
        show_error(exc, context="the campaign's times")
        return
    timed = times.loc[times["seconds"].notna(), "sample_id"]
    n_samples = int(timed.nunique())
    st.caption(f"Round #{rid}: {count(int(len(timed)))} labels with a time on {count(n_samples)} samples. "
               "Each sample's time is the median over its annotators; a random forest (the "
               "HEE model's settings) learns it from what every sample has (the current "
               "effort, the machine's confidence and class, turns, text length) and predicts "
               "every sample's seconds.")
    if n_samples < MIN_TIMED:
        st.info(f"The refit needs times on at least {MIN_TIMED} samples: Label Studio "
                "records them (lead_time); a labels table gives them in a 'seconds' column.")
        return
    if st.button(f"Refit the effort on round #{rid}'s times", key="_w_eff_campaign_fit"):
        ss["eff_campaign"] = rid
    if ss["eff_campaign"] != rid:
        return
    try:
        res = _refit(ss["data_key"], str(ws.root), rid, version, data, times)
    except DataError as exc:
        show_error(exc, context=f"round #{rid}'s times")
        return
    h = res.heldout
    table = pd.DataFrame({
        "effort": ["current effort (read in seconds)", "refitted on the campaign"],
        "MAE (s)": [h["prior"]["mae"], h["refit"]["mae"]],
        "RMSE (s)": [h["prior"]["rmse"], h["refit"]["rmse"]],
        "Spearman": [h["prior"]["spearman"], h["refit"]["spearman"]]})
    st.dataframe(table, hide_index=True, placeholder="—", column_config={
        c: st.column_config.NumberColumn(format="%.2f" if c != "Spearman" else "%.3f")
        for c in ("MAE (s)", "RMSE (s)", "Spearman")})
    better = h["refit"]["mae"] < h["prior"]["mae"]
    st.caption(f"Held out: {h['n_folds']}-fold cross-validation over the {count(h['n_timed'])} timed "
               "samples; the current effort is mapped to seconds by least squares on each "
               "training fold. " + ("The refit predicts the held-out times better."
                                    if better else "The refit does not predict the held-out "
                                    "times better than the current effort: keep the current one."))
    for note in res.notices:
        st.caption(note)
    if st.button("Use the refitted effort for the next round", key="_w_eff_campaign_use",
                 type="primary" if better else "secondary"):
        try:
            new = data.with_predicted_effort(np.asarray(res.predicted, dtype=float),
                                             column=CAMPAIGN_COLUMN)
        except DataError as exc:
            show_error(exc, context="the refitted effort")
        else:
            set_data(new, source="effort")
            st.success(f"The active dataset now uses the refitted effort (column "
                       f"{CAMPAIGN_COLUMN}, {count(new.M)} samples, total "
                       f"{plain_number(float(res.predicted.sum()) / 3600)} h). The next round planned on "
                       "the Trade-off or Evaluate page uses it.")
