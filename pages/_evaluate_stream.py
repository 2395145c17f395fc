"""The Evaluate page's "label until" mode: plan a labelling stream (1 · Plan) and read its
result (4 · Result): each interval against the labels spent, whether to stop, the labels saved
against the whole planned queue and the price of looking at every label.

Thin, like the page: the stream is planned by :func:`core.workspace.stream_rounds.
plan_stream_round` and read by :func:`core.workspace.stream_rounds.stream_view` (the calls
behind ``hmceval queue --stream`` and ``hmceval estimate --anytime``); the words come from
:mod:`core.evaluation.estimate.anytime_words`, the figure from :func:`core.figures.evaluation.
stream_figure`.
"""

from __future__ import annotations

from typing import Any, Callable

import pandas as pd
import streamlit as st

from core.data import EvalData
from core.errors import DataError
from core.evaluation.estimate import (SEQUENCE_HELP, decide_expression, question_words,
                                           stream_verdict, trace_looks)
from core.evaluation.sampling import DEFAULT_STREAM_DESIGN
from core.figures.evaluation import stream_figure
from core.format import pct
from core.workspace.round_settings import RoundSettings
from core.workspace.rounds import default_groups
from core.workspace.stream_rounds import expected_labels, is_stream, stream_view
from pages._common import md, next_step, show_error

#: The stream's settings as the page keeps them in ``st.session_state["evaluate"]``.
STREAM_DEFAULTS: dict[str, Any] = {
    "stream_labels": 1000, "stream_design": DEFAULT_STREAM_DESIGN, "stream_use_target": True,
    "stream_target": 0.03, "stream_question": "none", "stream_class": None, "stream_op": "<=",
    "stream_threshold": 0.05}
_DRAWS = {"weighted": "Weighted: rows the machine is unsure of come up more often",
          "uniform": "Uniform: every row as likely"}
_QUESTIONS = {"none": "no question", "share": "the share of a class",
              "accuracy": "the accuracy of the final labels"}
_OPS = {"<=": "at most", ">=": "at least"}
MODE_HELP = ("Label until the answer is good enough: humans label the queue from the top, in "
             "order, and after every import the result says whether to stop. " + SEQUENCE_HELP)


def round_mode(ws, round_id: int, kind: str) -> str:
    """The mode a round is shown in: ``stream`` for a labelling stream (a budget round whose
    settings say so), else its kind."""
    return "stream" if kind == "budget" and is_stream(ws.round(round_id)["settings"]) else kind


def round_kinds(ws, rounds: pd.DataFrame) -> dict[int, str]:
    """Every listed round's mode for the round selector (:func:`round_mode`), read once per
    list of rounds in a session (a stream is told by its stored settings)."""
    ss = st.session_state
    key = (str(ws.root), tuple(int(i) for i in rounds["id"]))
    if ss.get("_ev_round_kinds", (None,))[0] != key:
        ss["_ev_round_kinds"] = (key, {int(r.id): round_mode(ws, int(r.id), str(r.kind))
                                       for r in rounds.itertuples()})
    return ss["_ev_round_kinds"][1]


def stream_settings(data: EvalData, ev_widget: Callable) -> dict[str, Any] | None:
    """The widgets of a stream's plan and its settings for ``plan_stream_round`` (None when
    they cannot be planned: the reason is shown)."""
    ss = st.session_state
    classes = [str(c) for c in data.labels]
    ev = {**STREAM_DEFAULTS, **ss["evaluate"]}
    if ev["stream_class"] not in classes:  # a class of another table: the last class here
        ev["stream_class"] = classes[-1]
    ss["evaluate"] = ev
    st.caption("Humans label the queue from the top, in order, for as long as needed. Every "
               "row's chance of coming up next is known, so the intervals below stay valid "
               "however often you look: check the result after every import and stop as soon "
               "as the answer is good enough.", help=SEQUENCE_HELP)
    c1, c2, c3 = st.columns(3)
    with c1:
        ev_widget(st.number_input, "Most labels (the queue's length)", "stream_labels",
                  min_value=1, max_value=data.M, step=50,
                  help="The longest you are prepared to label; you will usually stop earlier.")
    with c2:
        ev_widget(st.radio, "Draw", "stream_design", options=list(_DRAWS),
                  format_func=_DRAWS.get,
                  help="Weighted draws rows where the machine is unsure (and, with a predicted "
                       "effort, quick to label) more often, half of the weight uniform: the "
                       "intervals shrink faster. Uniform is plain random labelling.")
    with c3:
        ev_widget(st.number_input, "Seed", "seed", min_value=0, max_value=2**31 - 1, step=1)
    c1, c2, c3, c4 = st.columns([3, 3, 2, 2])
    with c1:
        use = ev_widget(st.checkbox, "Stop at a target precision", "stream_use_target",
                        help="Stop once every class share is known to ± the half-width below.")
        ev_widget(st.number_input, "Target half-width (± %)", "stream_target", scale=100,
                  min_value=0.1, max_value=49.9, step=0.5, format="%.1f", disabled=not use,
                  help="Stop once every class share's interval is at most this wide on each "
                       "side, in percentage points.")
    with c2:
        question = ev_widget(st.radio, "Or stop when a question is decided", "stream_question",
                             options=list(_QUESTIONS), format_func=_QUESTIONS.get,
                             help="Decided as soon as the whole interval lies on one side of "
                                  "the threshold: the answer cannot change however long you "
                                  "label (with 95% confidence).")
    if question != "none":
        with c3:
            if question == "share":
                ev_widget(st.selectbox, "Class", "stream_class", options=classes)
            ev_widget(st.radio, "is", "stream_op", options=list(_OPS), format_func=_OPS.get)
        with c4:
            ev_widget(st.number_input, "Threshold (%)", "stream_threshold", scale=100,
                      min_value=0.0, max_value=100.0, step=0.5, format="%.1f")
    e = ss["evaluate"]
    settings = RoundSettings(labels=int(e["stream_labels"]), stream_design=e["stream_design"],
                             seed=int(e["seed"]))
    when = []
    if use:
        settings = settings.with_(target_half_width=float(e["stream_target"]))
        n = expected_labels(data, settings["target_half_width"])
        when.append(f"every class share is within ± {pct(settings['target_half_width'])} "
                    + (f"(expected after about {n:,} labels" if n <= settings["labels"] else
                       f"(expected to need about {n:,} labels, more than the queue holds")
                    + ", on the machine's confidences; the labels will tell)")
    if question != "none":
        settings = settings.with_(decide=decide_expression(
            question, e["stream_op"], float(e["stream_threshold"]), e["stream_class"]))
        when.append(f"the question is decided: {question_words(settings['decide'])}")
    said = (f"Humans will label at most {settings['labels']:,} of {data.M:,} samples, from the "
            "top of the queue, in order; " + (f"stop when {' or when '.join(when)}" if when else
                                               "stop whenever the intervals are narrow enough "
                                               "for you"))
    st.markdown(f"**{md(said if said.endswith('?') else said + '.')}**")
    if not when:
        st.caption("Set a target or a question and the result will say when to stop.")
    return settings


def _trace_table(res: dict[str, Any], rows: int = 12) -> pd.DataFrame:
    """About ``rows`` looks of the trace, the last one always: labels, each class share and the
    accuracy with their intervals, as text."""
    out = []
    for t in trace_looks(res["trace"], rows):
        row: dict[str, Any] = {"labels": t["labels"]}
        for c, s in t["class_shares"].items():
            row[f"share of '{c}'"] = f"{pct(s['estimate'])} [{pct(s['ci_low'])}, {pct(s['ci_high'])}]"
        a = t["accuracy"]
        row["accuracy of the final labels"] = (f"{pct(a['estimate'])} [{pct(a['ci_low'])}, "
                                               f"{pct(a['ci_high'])}]")
        out.append(row)
    return pd.DataFrame(out)


def _group_table(res: dict[str, Any]) -> pd.DataFrame:
    """The final labels' accuracy per group value, with its interval, as a table."""
    rows = [{"column": col, "group": value, "rows": g["M"], "labelled": g["n_labelled"],
             "accuracy": 100 * g["accuracy"]["estimate"],
             "95% interval": f"[{pct(g['accuracy']['ci_low'])}, {pct(g['accuracy']['ci_high'])}]"}
            for col, values in res.get("by_group", {}).items() for value, g in values.items()
            if g.get("accuracy")]
    return pd.DataFrame(rows, columns=["column", "group", "rows", "labelled", "accuracy",
                                       "95% interval"])


def stream_result(ws, rid: int, rnd: dict[str, Any], design, state_key: str) -> dict[str, Any]:
    """Section 4 of a stream round; returns its result (the page stops while it has no label)."""

    @st.cache_data(show_spinner="Reading the stream…", max_entries=8)
    def _view(key: str, round_id: int, groups: tuple) -> dict[str, Any]:
        return stream_view(ws, round_id, groups=list(groups))

    top = st.container()  # the answer first; the breakdown's choice below it
    groups = st.multiselect("Accuracy of the final labels by", design.data.subgroup_columns,
                            default=default_groups(design), key=f"_ev_stream_groups_{rid}",
                            help="Subgroup columns; each group's interval is a confidence "
                                 "sequence of its own.")
    try:
        res = _view(state_key, rid, tuple(groups))
    except DataError as exc:
        show_error(exc)
        st.stop()
    target = rnd["settings"].get("target_half_width")
    verdict = stream_verdict(res, target_half_width=target)
    with top:
        if not res["labels"]:
            st.info(md(verdict["sentence"]))
            next_step("2a_Evaluate.py", "label the queue and take the labels back (sections 2 "
                      "and 3, above)", "Label from the top of the queue, in order; after every "
                      "import this section says whether to stop.")
            st.stop()
        _answer(res, verdict, target)
    table = _group_table(res)
    if len(table):
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={"rows": st.column_config.NumberColumn(format="localized"),
                                    "labelled": st.column_config.NumberColumn(format="localized"),
                                    "accuracy": st.column_config.NumberColumn(format="%.1f%%")})
        st.caption("Each group's interval stays valid however often you look at that group; "
                   "reading many groups at once, expect about one in twenty to miss by chance.")
    with st.expander("Every look: the intervals as the labels came in"):
        st.dataframe(_trace_table(res), hide_index=True, width="stretch")
    st.caption("These figures are relative to the annotators' labels: their own mistakes are "
               "not counted.")
    return res


def _answer(res: dict[str, Any], verdict: dict[str, Any], target: float | None) -> None:
    """The stop sentence, the labels saved, each interval, the chart and the price."""
    (st.success if verdict["stop"] else st.info)(md(verdict["sentence"]))
    if verdict["saved"]:
        st.markdown(f"**{md(verdict['saved'])}**")
    classes = list(res["class_shares"])
    cols = st.columns(len(classes) + 1)
    for col, c in zip(cols, classes):
        s = res["class_shares"][c]
        col.metric(f"Share of '{c}'", pct(s["estimate"]),
                   help=f"Machine labels alone: {pct(s['machine_only'])}. " + SEQUENCE_HELP)
        col.caption(f"95% interval [{pct(s['ci_low'])}, {pct(s['ci_high'])}], valid however "
                    "often you look")
    a = res["accuracy"]
    cols[-1].metric("Accuracy of the final labels", pct(a["estimate"]),
                    help="Human labels where humans labelled, the machine's elsewhere.")
    cols[-1].caption(f"95% interval [{pct(a['ci_low'])}, {pct(a['ci_high'])}]")
    st.caption(f"{res['labels']:,} of {res['queue']:,} queued rows labelled, read in queue "
               "order. The intervals are a confidence sequence (what that means: the ? on the "
               "right).", help=SEQUENCE_HELP)
    for note in res["notes"]:
        st.warning(md(note))
    st.plotly_chart(stream_figure(res, target_half_width=target), width="stretch",
                    key="_ev_stream_chart")
    if verdict["price"]:
        st.caption(verdict["price"])
