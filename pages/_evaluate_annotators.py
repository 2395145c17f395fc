"""The Evaluate page's "Annotators" part: how much a round's annotators agree, how good each one
is against the aggregate and gold rows, and how long they take.

Shown when the round has votes from two or more annotators. The numbers are
:func:`core.workspace.round_annotators.round_annotators` (``annotator_report``'s dict, the one
of ``hmceval annotators`` and the HTML report); the aggregate they are compared with is chosen
here (majority or Dawid-Skene) and changes only this comparison, not the round's stored labels.

Canonical state: ``ss["ev_ann_aggregate"]`` ("majority" or "dawid-skene").
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import DataError
from core.evaluation.annotators import AGGREGATES
from core.format import count, pct, prob
from core.workspace.round_annotators import round_annotators, several_annotators
from pages._common import md, show_error, synced

_AGG_NAMES = {"majority": "majority vote (ties left for adjudication)",
              "dawid-skene": "Dawid-Skene (each annotator's confusion matrix)"}


@st.cache_data(show_spinner="Measuring the annotators' agreement…", max_entries=16)
def _report(root: str, round_id: int, version: tuple, aggregate: str, _ws) -> dict | None:
    # keyed on the round's version: a new import (or plan change) computes it again
    return round_annotators(_ws, round_id, aggregate=aggregate)


def annotators_section(ws, rid: int) -> None:
    """Draw the annotator report of round ``rid`` (nothing below two annotators)."""
    ss = st.session_state
    ss.setdefault("ev_ann_aggregate", "majority")
    version = tuple(ws.round_version(rid))
    try:
        rep = _report(str(ws.root), rid, version, ss["ev_ann_aggregate"], ws)
    except DataError as exc:
        show_error(exc, context="annotators")
        return
    if not several_annotators(rep):
        return
    st.subheader("Annotators")
    synced(st.radio, "Compare the annotators with", "ev_ann_aggregate", options=list(AGGREGATES),
           format_func=_AGG_NAMES.get, horizontal=True,
           help="The aggregate each annotator's labels are compared with below. It does not "
                "change the round's labels: those were aggregated when they were imported "
                "(majority on this page).")
    a = rep["krippendorff_alpha"]
    c1, c2, c3 = st.columns(3)
    c1.metric("Krippendorff's alpha", prob(a["estimate"]),
              help=f"{a['level']} level; 1 is perfect agreement, 0 what chance gives.")
    c2.metric("Fleiss' kappa", prob(rep["fleiss_kappa"]))
    c3.metric("Observed agreement", "n/a" if rep["percent_agreement"] is None
              else f"{pct(rep['percent_agreement'])}")
    interval = ("" if a["ci_low"] is None else
                f"; {pct(a['confidence'], 0)} bootstrap interval of alpha {prob(a['ci_low'])} to "
                f"{prob(a['ci_high'])}")
    st.caption(f"{count(rep['n_labels'])} labels by {rep['n_annotators']} annotators on "
               f"{count(rep['n_rows'])} rows, {count(rep['n_multi'])} labelled twice or more{interval}. "
               f"Compared with the {_AGG_NAMES[rep['aggregate']]}"
               + (f"; gold rows: {count(rep['n_gold'])}" if rep["n_gold"] else "") + ".")
    if rep["adjudication"]:
        st.caption(f"{count(len(rep['adjudication']))} rows tie under this aggregate: "
                   + md(", ".join(rep["adjudication"][:10]))
                   + (" …" if len(rep["adjudication"]) > 10 else ""))
    per = pd.DataFrame([{
        "annotator": p["annotator"] or "(unnamed)", "labels": p["items"],
        "agrees with aggregate": p["agreement_with_aggregate"], "rows compared": p["n_compared"],
        "agrees with gold": p["agreement_with_gold"], "gold rows": p["n_gold"],
        "median seconds": p["median_seconds"]} for p in rep["per_annotator"]])
    st.dataframe(per, hide_index=True, width="stretch", placeholder="—", column_config={
        "agrees with aggregate": st.column_config.NumberColumn(format="percent"),
        "agrees with gold": st.column_config.NumberColumn(format="percent"),
        "median seconds": st.column_config.NumberColumn(format="%.1f")})
    if rep["pairwise"]:
        pairs = pd.DataFrame([{"annotators": " / ".join(p["annotators"]),
                               "rows both labelled": p["n_items"], "agreement": p["agreement"],
                               "Cohen's kappa": p["cohen_kappa"]} for p in rep["pairwise"]])
        st.dataframe(pairs, hide_index=True, width="stretch", placeholder="—", column_config={
            "agreement": st.column_config.NumberColumn(format="percent"),
            "Cohen's kappa": st.column_config.NumberColumn(format="%.3f")})
    with st.expander("Confusion matrices (rows: the aggregate, columns: the annotator)"):
        for p in rep["per_annotator"]:
            c = p["confusion"]
            st.caption(md(p["annotator"] or "(unnamed)"))
            st.dataframe(pd.DataFrame(c["matrix"], index=c["classes"], columns=c["classes"]))
