"""The Evaluate page's design parts: the choice of design and the active design's budget and
frontier (1 · Plan), the design a round was planned with, and the per-group accuracy with the
worse-group warnings and their one-click fix (4 · Result).

Thin, like the page: everything computed here comes from :mod:`core.workspace.rounds`,
:mod:`core.workspace.active_rounds` and :mod:`core.figures.evaluation`.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np
import pandas as pd
import streamlit as st

from core.data import EvalData
from core.errors import DataError
from core.evaluation.sampling import EarlierLabels, range_sentence, target_note
from core.figures.evaluation import frontier_figure, group_accuracy_figure, worth_text
from core.format import count, hours_per_unit, pct, plain_number
from core.summary import data_effort_unit
from core.workspace import guarantees as G, rounds as R
from core.workspace.round_settings import RoundSettings
from core.workspace.active_rounds import (earlier_labels, earlier_rounds, fix_settings,
                                          fix_shortfall, group_table, suggested_share)
from pages._common import get_workspace, show_error, writes
from pages._evaluate_two_batch import TWO_BATCHES, TWO_BATCHES_HELP

#: "worth N random labels" and PPI++ in plain words (issue 33)
WORTH_HELP = ("Worth N random labels: labelling N rows picked at random would give an interval "
              "as narrow as this one (the usual estimate from random labels, PPI++).")
PPI_WORDS = ("PPI++ (prediction-powered inference): the usual estimate from labels picked at "
             "random, corrected with the machine's labels; the yardstick every design here is "
             "compared with.")

#: The designs of a budget round, as the page names them.
DESIGN_LABELS = {"active": "Active (recommended)", "routing": "Routing + audit",
                 "random": "Random", "pilot": TWO_BATCHES}


def guarantee_preview_table(table: pd.DataFrame, rest: int, rounds: int) -> None:
    """Both guarantees on similar data (:func:`core.workspace.guarantees.guarantee_previews`):
    a sentence each and the table, before any label is read."""
    basis = str(table["basis"].iloc[0])
    for row in table.itertuples():
        chance = 2 * (row.delta * (1 - row.delta) / rounds) ** 0.5
        st.markdown(f"- **{row.guarantee}** (level {pct(row.level)}): the machine would keep a "
                    f"median {count(row.median_kept)} of the other {count(rest)} rows, "
                    f"{pct(row.median_saving)} of the table saved; something was certified in "
                    f"{pct(row.certified_rate, 0)} of the simulated rounds, and the guarantee "
                    f"failed in {pct(row.violation_rate)} (allowed: {pct(row.delta, 0)}; with "
                    f"{rounds} rounds, ± {pct(chance, 0)} is chance).")
    shown = pd.DataFrame({
        "Guarantee": table["guarantee"],
        "Level": table["level"].map("{:.1%}".format),
        "Rows kept (median)": table["median_kept"].map("{:,}".format),
        "Saved (median)": table["median_saving"].map("{:.1%}".format),
        "Certified in": table["certified_rate"].map("{:.1%}".format),
        "Failed in": table["violation_rate"].map("{:.1%}".format),
        "Allowed to fail": table["delta"].map("{:.1%}".format)})
    st.dataframe(shown, hide_index=True)
    st.caption(f"{rounds} simulated calibration samples per guarantee; truth: {basis}.")


#: simulated calibration samples behind the warning shown before a guarantee round is planned,
#: on tables of at most QUICK_ROWS rows (0.25 s at 3,000 rows, 12 s at 10^5: larger tables get
#: it from the full preview, on request)
QUICK_ROUNDS, QUICK_ROWS = 40, 10_000


@st.cache_data(show_spinner=False, max_entries=16)
def _quick_previews(data_key: str, _data: EvalData, settings_json: str) -> pd.DataFrame:
    return G.guarantee_previews(_data, json.loads(settings_json), rounds=QUICK_ROUNDS)


def guarantee_warning(data: EvalData, settings: dict[str, Any],
                      preview: tuple[str, pd.DataFrame] | None = None) -> None:
    """Before a guarantee round is planned: a warning, with the alternatives, when the chosen
    guarantee is expected to certify no row on similar data (its calibration labels would then
    save nothing: humans label every row). ``preview``: the full preview (settings JSON,
    table) when it was asked for."""
    key = json.dumps(dict(settings), sort_keys=True)
    rounds = QUICK_ROUNDS
    if preview is not None and preview[0] == key:
        table, rounds = preview[1], None
    elif data.M <= QUICK_ROWS:
        try:
            table = _quick_previews(st.session_state.get("data_key", data.name), data, key)
        except DataError:
            return  # the settings' own error is shown where they are planned
    else:
        return
    order = list(G.GUARANTEES)
    mine = table.iloc[order.index(settings["guarantee"])]
    if mine["median_kept"] > 0:
        return
    other = table.iloc[1 - order.index(settings["guarantee"])]
    level = "α" if settings["guarantee"] == "kept" else "ε"
    text = (f"**Expected to buy nothing.** On similar data this guarantee lets the machine keep "
            f"no row in {pct(1 - mine['certified_rate'], 0)} of the simulated "
            f"rounds{'' if rounds is None else f' ({rounds})'}: the {count(settings['calibration'])} calibration labels would save no "
            "labelling, humans would label every row. ")
    if other["median_kept"] > 0:
        text += (f"The other guarantee ({other['guarantee'].split(':')[0].lower()}) keeps a "
                 f"median {count(other['median_kept'])} rows ({pct(other['median_saving'])} "
                 "saved). ")
    st.warning(text + f"Or raise {level}, label a larger calibration sample, or plan a budget "
               "round (Mode above) instead.")


def design_choice(ev_widget: Callable) -> str:
    """The design radio of a budget round (``st.session_state["evaluate"]["design"]``)."""
    return ev_widget(st.radio, "Design", "design", options=list(DESIGN_LABELS),
                     horizontal=True, format_func=DESIGN_LABELS.get,
                     help="Active: every row gets a known chance of being labelled, larger "
                          "where the machine is unsure and smaller where labelling takes "
                          "long, so every label serves the final labels and the estimate. "
                          "Routing + audit: the N least confident rows go to humans, a random "
                          "audit checks the rest. Random: every row the same chance. "
                          + TWO_BATCHES_HELP)


@st.cache_data(show_spinner="Solving the design…", max_entries=16)
def _preview(data_key: str, _data: EvalData, settings_json: str, n_earlier: int = 0,
             _earlier: EarlierLabels | None = None) -> dict[str, Any]:
    from pages._large import large_preview

    got = large_preview(_data, json.loads(settings_json))  # a large table: chunked passes
    if got is not None:
        return got
    plan, _ = R.design_preview(_data, json.loads(settings_json), _earlier)
    return {"summary": plan.design.summary(), "frontier": plan.design.frontier,
            "range": plan.expected_range}


def _earlier_choice(data: EvalData) -> tuple[int | None, EarlierLabels | None]:
    """An earlier round of this table whose labels the plan rests on (the newest with enough
    labels by default; none to plan on the confidences as reported)."""
    ws = get_workspace()
    earlier = earlier_rounds(ws, data) if ws is not None else []
    if not earlier:
        return None, None
    names = {r["id"]: f"Round #{r['id']} ({count(r['labels'])} labels)" for r in earlier}
    chosen = st.selectbox(
        "Plan on the labels of", [None] + list(names), index=1, key="_ev_calibrate_on",
        format_func=lambda r: "no earlier round: the confidences as reported" if r is None
        else names[r],
        help="The confidences are recalibrated on an earlier round's labels (a judge is often "
             "surer than it should be), so the design and its expectations rest on what the "
             "labels show; that round's labelled rows are carried into this one, labelled, "
             "outside the budget.")
    if chosen is None:
        return None, None
    try:
        return int(chosen), earlier_labels(ws, data, int(chosen))
    except DataError as exc:
        show_error(exc, context="Earlier labels")
        return None, None


def _budget(data: EvalData, ev_widget: Callable, default_labels: int,
            earlier: EarlierLabels | None = None) -> dict[str, float]:
    """The budget widgets; rows carried from ``earlier`` labels are outside the budget (its
    largest value is the rest of the table)."""
    ss = st.session_state
    unit = data_effort_unit(data)
    per_hour = hours_per_unit(unit)
    free = np.ones(data.M, dtype=bool)
    if earlier is not None:
        free[np.asarray(earlier.rows, dtype=np.int64)] = False
    n_free = max(1, int(free.sum()))
    effort = data.frame["predicted_effort"].astype(float)[free] \
        if "predicted_effort" in data.frame else None
    if ss["evaluate"].get("labels") is None:
        ss["evaluate"] = {**ss["evaluate"], "labels": int(min(data.M, max(1, default_labels)))}
    if ss["evaluate"].get("effort_budget") is None and effort is not None:
        ss["evaluate"] = {**ss["evaluate"],
                          "effort_budget": float(ss["evaluate"]["labels"] * effort.mean())}
    options = ["labels"] + (["effort"] if effort is not None else [])
    shown = "hours" if per_hour else unit
    c1, c2, c3 = st.columns(3)
    with c1:
        how = ev_widget(st.radio, "Budget in", "budget_in", options=options,
                        format_func={"labels": "labels",
                                     "effort": f"predicted effort ({shown})"}.get,
                        help="Labels: the expected number of rows humans label. Predicted "
                             "effort: their expected annotation time; rows that take long "
                             "are then drawn less often.")
    with c2:
        if how == "effort":
            total = float(effort.sum())
            ev_widget(st.number_input, f"Budget ({shown} of predicted effort)", "effort_budget",
                      scale=per_hour or 1, min_value=0.001, max_value=total * (per_hour or 1),
                      format="%.3f",
                      help=f"Labelling every row would take {plain_number(total * (per_hour or 1))} "
                           f"{shown}.")
            budget = {"effort_budget": float(ss["evaluate"]["effort_budget"])}
        else:
            ev_widget(st.number_input, "Budget (expected labels)", "labels", min_value=1,
                      max_value=n_free, step=10,
                      help="It starts at the rows a routing round would label (N + audit), so "
                           "the designs compare at the same cost."
                           + ("" if earlier is None else " Rows carried from earlier labels "
                              "are not counted: at most the rows not labelled yet."))
            budget = {"labels": int(ss["evaluate"]["labels"])}
    with c3:
        ev_widget(st.number_input, "Seed", "seed", min_value=0, max_value=2**31 - 1, step=1)
    return budget


def weighted_settings(data: EvalData, ev_widget: Callable, which: str,
                      default_labels: int) -> dict[str, Any] | None:
    """Budget, expectations and frontier of an active or random round; its settings (None when
    the budget is refused: the error is shown)."""
    ss = st.session_state
    st.caption("Every row gets a known probability of being labelled (stored with the round); "
               "humans label the rows drawn, and each label counts for the final labels and, "
               "weighted by its probability, for the estimates." if which == "active" else
               "Every row gets the same probability of being labelled: the plain baseline.")
    rid, earlier = _earlier_choice(data)
    budget = _budget(data, ev_widget, default_labels, earlier)
    settings = RoundSettings(design=which, **budget, seed=int(ss["evaluate"]["seed"]),
                             calibrate_on=rid)
    try:
        got = _preview(ss.get("data_key", data.name), data, json.dumps(dict(settings), sort_keys=True),
                       0 if earlier is None else len(earlier.rows), earlier)
    except DataError as exc:
        show_error(exc, context="Budget")
        return None
    s, frontier = got["summary"], got["frontier"]
    ref = frontier.set_index("design")
    st.markdown(
        f"**Humans will label about {count(s['expected_labels'])} of {count(data.M)} samples"
        + (f" ({count(s['n_routed'])} for sure, the others drawn at random with known "
           "probabilities)" if s["n_routed"] else " (drawn at random with known probabilities)")
        + f": expected accuracy of the final labels {pct(s['expected_accuracy'])}, a class share "
        f"to ± {pct(s['expected_half_width'])} ({worth_text(s['random_equivalent'])}).**",
        help=WORTH_HELP)
    lines = []
    for kind, name in (("routing", "Routing the same budget to the least confident rows"),
                       ("random", "Labelling at random")):
        if kind in ref.index and kind != which:
            r = ref.loc[kind]
            r = r.iloc[0] if isinstance(r, pd.DataFrame) else r
            half = r["expected_half_width"]
            width = (f"± {pct(half)} ({worth_text(r['random_equivalent'])})" if pd.notna(half)
                     else "no interval (the rows it keeps get no label: an audit is needed)")
            lines.append(f"{name}: accuracy {pct(r['expected_accuracy'])}, {width}.")
    st.caption(" ".join(lines) + " Expected values; the intervals after labelling use the "
               "labels themselves. " + range_sentence(got.get("range"), source=None if earlier
                                                       is None else f"round #{rid}"))
    if got.get("large"):  # solved by pages._large.large_preview
        from pages._large import PREVIEW_NOTE

        st.caption(PREVIEW_NOTE)
    if earlier is not None:
        st.caption(f"Planned on the {count(len(earlier.rows))} labels of round #{rid}: the "
                   "expectations below rest on the confidences recalibrated on them, and those "
                   "rows are carried into this round.")
    if which == "active":
        note = target_note(frontier, calibrated_on=None if earlier is None else earlier.source)
        if note:
            st.warning(note)
            st.caption(PPI_WORDS)
        st.plotly_chart(frontier_figure(frontier), width="stretch", key="_ev_frontier_plan")
    return settings


def show_round_design(record: dict[str, Any] | None) -> None:
    """What an active, random or pilot round was planned with (its stored design record)."""
    if flash := st.session_state.pop("_ev_flash", None):
        st.success(flash)
    if not record:
        return
    with st.expander(f"The design of this round: {DESIGN_LABELS.get(record['design'], record['design'])}"):
        st.markdown(f"Planned for about {count(record['expected_labels'])} labels: expected "
                    f"accuracy of the final labels {pct(record['expected_accuracy'])}, a class "
                    f"share to ± {pct(record['expected_half_width'])} "
                    + ("(after the first of two batches alone); " if record["design"] == "pilot"
                       else f"({worth_text(record['random_equivalent'])}); ")
                    + f"{count(record['n_routed'])} rows labelled for sure."
                    + (f" Planned on the {count(record['calibrated_on']['labels'])} labels of "
                       f"{record['calibrated_on']['source']} (the confidences recalibrated on "
                       "them; those rows carried into this round, labelled)."
                       if record.get("calibrated_on") else ""))
        if record.get("strata"):
            strata = pd.DataFrame(record["strata"])
            st.caption("Stratified: the budget split over the groups by size, a minimum human "
                       "share where asked.")
            st.dataframe(strata, hide_index=True, width="stretch", placeholder="—",
                         column_config={"human_share": st.column_config.NumberColumn(
                             "expected human share", format="percent"),
                             "expected_accuracy": st.column_config.NumberColumn(
                                 format="percent")})
        if record.get("frontier"):
            frontier = pd.DataFrame(record["frontier"])
            note = target_note(frontier, calibrated_on=(record.get("calibrated_on") or {})
                               .get("source")) if record.get("design") == "active" else None
            if note:
                st.caption(note)
            st.plotly_chart(frontier_figure(frontier), width="stretch",
                            key="_ev_frontier_round")


def group_section(ws, data: EvalData, rnd: dict[str, Any], summary: dict[str, Any],
                  n_labelled: int) -> None:
    """Per-group accuracy of the final labels, a warning per worse group, and the fix."""
    if not summary.get("group_accuracy"):
        return
    st.subheader("Accuracy of the final labels by group")
    table = group_table(summary["group_accuracy"], summary["worse_groups"])
    st.plotly_chart(group_accuracy_figure(table), width="stretch", key="_ev_group_accuracy")
    shown = table.assign(interval=[f"[{pct(lo)}, {pct(hi)}]" if pd.notna(lo) else "—"
                                   for lo, hi in zip(table["ci_low"], table["ci_high"])])
    st.dataframe(shown[["column", "group", "rows", "accuracy", "interval", "worth_random",
                        "machine_accuracy", "human_share", "effort", "worse"]],
                 hide_index=True, width="stretch", placeholder="—",
                 column_config={"accuracy": st.column_config.NumberColumn(format="percent"),
                                "worth_random": st.column_config.NumberColumn(
                                    "worth (random labels)",
                                    help="Rows of the group labelled at random that would give "
                                         "an accuracy interval as narrow"),
                                "machine_accuracy": st.column_config.NumberColumn(
                                    "machine accuracy", format="percent"),
                                "human_share": st.column_config.NumberColumn(
                                    "human share", format="percent"),
                                "effort": st.column_config.NumberColumn(
                                    f"effort per row ({data_effort_unit(data)})",
                                    format="%.1f" if hours_per_unit(data_effort_unit(data))
                                    else "%.3f"),
                                "worse": st.column_config.CheckboxColumn(
                                    "significantly worse", width="medium",
                                    help="Its final labels are significantly worse than the "
                                         "rest's (one-sided test, Bonferroni over the groups).")})
    if not summary["worse_groups"]:
        st.caption("No group's final labels are significantly worse than the rest's.")
        return
    for i, (w, note) in enumerate(zip(summary["worse_groups"], summary["group_notes"])):
        st.warning(note)
        share = suggested_share(w)
        key = f"_w_fix_share_{rnd['id']}_{i}"
        if key not in st.session_state:
            st.session_state[key] = round(100 * share, 1)
        c1, c2 = st.columns([1, 2])
        least = c1.number_input(f"Least human share for {w['column']} = {w['group']} (%)",
                              min_value=0.0, max_value=100.0, step=5.0, key=key,
                              help=f"It starts at {pct(share)}: the share at which its final "
                                   "labels would be expected as accurate as the rest's, if the "
                                   "machine stays as right on its other rows.")
        c2.caption("One click plans a new round with the active design stratified by "
                   f"'{w['column']}': the same budget split over its groups by size, and at least "
                   f"this share of {w['group']}'s rows labelled (taken from the other groups). It "
                   "starts without this round's labels: a stratified round is not planned on "
                   "earlier labels, so none are carried into it.")
        rows = {str(w["group"]): int(table.loc[(table["column"] == w["column"])
                                               & (table["group"] == str(w["group"])),
                                               "rows"].iloc[0])}
        if short := fix_shortfall(rnd["settings"], rows, {str(w["group"]): least / 100},
                                  n_rows=n_labelled):
            c2.warning(short)
        if c2.button(f"Plan a new round: at least {least:.0f}% of {w['column']} = {w['group']} "
                     "labelled", key=f"_w_fix_{rnd['id']}_{i}", **writes()):
            _plan_fix(ws, data, lambda: fix_settings(rnd["settings"], w, least / 100,
                                                     n_rows=n_labelled),
                      f"the active design stratified by '{w['column']}', at least "
                      f"{least:.0f}% of {w['group']} labelled")
    _fix_together(ws, data, rnd, summary["worse_groups"], n_labelled)


def _plan_fix(ws, data: EvalData, settings_of, what: str) -> None:
    """Plan the round a fix button asks for (``settings_of()`` gives its settings), make it the
    page's round and say so, or show why it cannot be planned."""
    try:
        rid = R.plan_round(ws, data, kind="budget", settings=settings_of())
    except DataError as exc:
        show_error(exc, context="Minimum human share")
    else:
        ss = st.session_state
        ss["evaluate"] = {**ss["evaluate"], "round_id": rid, "design": "active"}
        ss["_ev_flash"] = f"Round #{rid} planned and saved: {what}. Send its queue to annotators."
        st.rerun()


def _fix_together(ws, data: EvalData, rnd: dict[str, Any], worse: list[dict[str, Any]],
                  n_labelled: int) -> None:
    """One round raising every worse group of a column at once, each to the least share set
    above (shown when a column has two worse groups or more)."""
    for column in dict.fromkeys(str(w["column"]) for w in worse):
        same = [(i, w) for i, w in enumerate(worse) if str(w["column"]) == column]
        if len(same) < 2:
            continue
        shares = [float(st.session_state[f"_w_fix_share_{rnd['id']}_{i}"]) / 100 for i, _ in same]
        said = ", ".join(f"{w['group']} {pct(s, 0)}" for (_, w), s in zip(same, shares))
        if st.button(f"Plan a new round raising every worse group of {column} at once ({said})",
                     key=f"_w_fix_all_{rnd['id']}_{column}", **writes()):
            _plan_fix(ws, data, lambda: fix_settings(rnd["settings"], [w for _, w in same],
                                                     shares, n_rows=n_labelled),
                      f"the active design stratified by '{column}', {said} labelled at least")
