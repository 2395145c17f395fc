"""Evaluate page: run an evaluation round end to end (plan, export, import labels, result).

Thin: widgets and figures; every step is a call into :mod:`core.workspace.rounds` (the same
functions behind ``hmceval report``), and everything saved lives in the workspace.
"""

from __future__ import annotations

import json
import math

import numpy as np
import streamlit as st

from core.csv_safe import to_csv_safe
from core.errors import DataError
from core.evaluation import labelstudio
from core.evaluation.sampling import (annotator_table, audit_size_for_half_width, default_audit,
                                      expected_half_width, showable_columns)
from core.format import count, pct, setting_number
from core.workspace import guarantees as G
from core.workspace import rounds as R
from core.summary import data_effort_unit, per_unit, tradeoff_summary
from pages._evaluate_design import (design_choice, guarantee_preview_table, guarantee_warning,
                                    show_round_design, weighted_settings)
from pages._evaluate_labels import labels_section
from pages._evaluate_result import result_section
from pages._evaluate_stream import MODE_HELP, round_kinds, stream_settings
from pages._evaluate_two_batch import pilot_plan
from core.workspace.round_settings import RoundSettings
from core.workspace.stream_rounds import is_stream, plan_stream_round
from pages._common import (current_result, data_lambda_range, get_data, get_params, get_workspace,
                           init_state, next_step, range_help, round_settings_note, save_scenario,
                           show_error, writes)

init_state()
ss = st.session_state
data = get_data()
ev = ss["evaluate"]
st.title("Evaluate")
st.caption("Run a real evaluation round: plan who labels what, send the queue to annotators, "
           "take their labels back, and report the result with a valid interval or a certified "
           "guarantee. Rounds, labels and results are saved in the workspace and survive "
           "reloads and restarts.")

try:
    ws = get_workspace()
except DataError as exc:
    show_error(exc, context="Workspace")
    st.stop()


def _ev_set(field: str, wkey: str, scale: float = 1) -> None:
    value = ss[wkey] / scale if scale != 1 else ss[wkey]
    ss["evaluate"] = {**ss["evaluate"], field: value}


PREVIEW_ROUNDS = 200  # simulated calibration samples per guarantee in guarantee mode's preview


def ev_widget(widget, label: str, field: str, *, scale: float = 1, **kwargs):
    """A widget as a view of ``st.session_state["evaluate"][field]``.

    A number kept from a bigger dataset (the default audit of 200 on a 50-row table) is brought
    within the widget's bounds first: Streamlit refuses a value outside them. ``scale``: the
    widget shows the value times ``scale`` (a share as a percentage: 100).
    """
    value = ss["evaluate"][field]
    lo, hi = kwargs.get("min_value"), kwargs.get("max_value")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        shown = value * scale
        clipped = min(shown, hi) if hi is not None else shown
        clipped = max(clipped, lo) if lo is not None else clipped
        if clipped != shown:
            ss["evaluate"] = {**ss["evaluate"], field: type(value)(clipped / scale)}
    wkey = f"_w_ev_{field}"
    shown = round(ss["evaluate"][field] * scale, 9) if scale != 1 else ss["evaluate"][field]
    if ss.get(wkey) != shown:
        ss[wkey] = shown
    if widget is st.number_input:
        kwargs["help"] = range_help(kwargs.get("help"), lo, hi)
    return widget(label, key=wkey, on_change=_ev_set, args=(field, wkey, scale), **kwargs)


def _audit_suggested(kept: int) -> None:
    """The audit starts at :func:`default_audit` (kept rows / 5, at most 200) until set."""
    auto = ss.get("_ev_audit_auto")
    current = int(ss["evaluate"]["audit"])
    if current == 200 or (auto is not None and current == auto):
        value = default_audit(kept)
        ss["_ev_audit_auto"] = value
        if value != current:
            ss["evaluate"] = {**ss["evaluate"], "audit": value}


def _dataset_id() -> int | None:
    """The active dataset's id in the workspace, None while it is not stored: a visit stores
    nothing (planning a round or saving a scenario does)."""
    key = (ss.get("data_key"), len(ws.list_datasets()))  # a dataset stored since: look again
    cached = ss.get("_dataset_id_for")
    if cached and cached[0] == key:
        return cached[1]
    # the dataset's content id, computed once when it was prepared (not hashed again here)
    dsid = ws.find_dataset(data.raw, dict(data.roles), content_id=data.content_id)
    ss["_dataset_id_for"] = (key, dsid)
    if dsid is not None:
        ss["dataset_id"] = dsid
    return dsid


try:
    dsid = _dataset_id()
except DataError as exc:
    show_error(exc, context="Storing the dataset in the workspace")
    st.stop()

rounds = ws.list_rounds(dsid) if dsid is not None else ws.list_rounds().iloc[:0]
if not rounds.empty:
    # the selected round (the latest one after a reload) sets the mode shown, once per choice
    if ss["evaluate"].get("round_id") not in rounds["id"].tolist():
        ss["evaluate"] = {**ss["evaluate"], "round_id": int(rounds["id"].iloc[0])}
    chosen_id = ss["evaluate"]["round_id"]
    if ss.get("_ev_kind_of_round") != (dsid, chosen_id):
        ss["_ev_kind_of_round"] = (dsid, chosen_id)
        ss["evaluate"] = {**ss["evaluate"], "kind": round_kinds(ws, rounds)[chosen_id]}

# ------------------------------------------------------------------------------------ 1. plan
st.header("1 · Plan the round")
kind = ev_widget(st.radio, "Mode", "kind", options=["budget", "guarantee", "stream"],
                 horizontal=True, help=MODE_HELP,
                 format_func=lambda k: {"budget": "Budget: N and λ, plus an audit",
                                        "guarantee": "Guarantee: certify an error bound",
                                        "stream": "Label until the answer is good enough"}[k])
params = get_params()
design_kind = design_choice(ev_widget) if kind == "budget" else None
if kind == "stream":
    settings = stream_settings(data, ev_widget)
elif design_kind in ("active", "random", "pilot"):  # "pilot": the first of two batches
    settings = (pilot_plan if design_kind == "pilot" else weighted_settings)(
        data, ev_widget, design_kind, params.n_human + int(ss["evaluate"]["audit"]))
elif kind == "budget":
    st.caption(f"Routing: {params.label} (set N and λ on the Trade-off page). An audit is a "
               "random sample of the rows the machine keeps; humans label it too, so the final "
               "result gets an unbiased correction and a confidence interval.")
    try:
        inp, assignment, res = current_result()  # cached, as on the Trade-off page
    except DataError as exc:
        show_error(exc)
        st.stop()
    if assignment.method != "fast":
        st.warning("Extra constraints are set on the Trade-off page; a round is routed with N, "
                   "λ and the mode only (the exact SAE, as hmceval queue does).")
    kept = int((~assignment.human).sum())
    _audit_suggested(kept)
    c1, c2, c3 = st.columns(3)
    with c1:
        ev_widget(st.number_input, "Audit size", "audit", min_value=0, max_value=max(kept, 0),
                  step=10, help="Rows drawn at random from the machine's rows and labelled too. "
                                "It starts at a fifth of the machine's rows, at most 200.")
    with c2:
        ev_widget(st.number_input, "Target half-width (± %)", "target_half_width", scale=100,
                  min_value=0.1, max_value=50.0, step=0.5, format="%.1f",
                  help="The interval on a class share you aim for, in percentage points.")
    with c3:
        ev_widget(st.number_input, "Seed", "seed", min_value=0, max_value=2**31 - 1, step=1)
    a = inp.a[~assignment.human]
    pilot = float(np.mean(1 - a)) if kept else 0.0
    audit = int(ss["evaluate"]["audit"])
    # the plan in plain words counts every row humans label: routed rows and the audit
    routed = data.M - kept
    outlook = R.labelling_outlook(data, assignment.human, audit=audit)
    st.markdown(f"**{R.outlook_sentence(outlook, [('routed', routed), ('audit', audit)])}**")
    # the routing alone (the Trade-off page's sentence), the numbers one click away
    said = tradeoff_summary(res, unit=data_effort_unit(data),
                            machine_expected=float(inp.a.mean()))
    st.caption(f"Routing alone, before the audit (the Trade-off page's sentence): "
               f"{said.headline}")
    if said.why:
        st.info(said.why)
    if kept and audit:
        hw = expected_half_width(data.M, kept, audit, pilot, n_classes=len(data.labels))
        st.info(f"The machine keeps {count(kept)} of {count(data.M)} rows; humans label "
                f"{count(data.M - kept)} routed rows and {count(audit)} audit rows. Expected interval on a "
                f"class share: ± {pct(hw)} (assuming the machine disagrees with humans on "
                f"{pct(pilot)} of its rows, the mean of 1 − confidence there).")
    elif kept:
        st.warning("Without an audit the result has no confidence interval.")
    if kept:
        need = audit_size_for_half_width(data.M, kept, pilot, float(ss["evaluate"]["target_half_width"]),
                                         n_classes=len(data.labels))
        st.caption(f"Audit needed for ± {pct(ss['evaluate']['target_half_width'])}: "
                   f"{count(need)} rows." if need is not None else "")
    if audit and audit == ss.get("_ev_audit_auto"):
        st.caption(f"Audit {count(audit)}: a fifth of the {count(kept)} rows the machine keeps, at most "
                   "200 (set your own above).")
    settings = RoundSettings(lam=params.lam, share=params.share, mode=params.mode,
                             audit=audit, seed=int(ss["evaluate"]["seed"]))
else:
    which = ev_widget(st.radio, "Guarantee", "guarantee", options=list(G.GUARANTEES),
                      format_func=G.GUARANTEES.get,
                      help="Rows the machine keeps: of the rows it labels alone, at most a "
                           "share α are wrong (a selective guarantee). Whole dataset: of all "
                           "the final labels, human and machine, at most a share ε are wrong "
                           "(PAC labels, Candès, Ilyas & Zrnic 2025); it usually lets the "
                           "machine keep more, because human-labelled rows count as right.")
    st.caption("A random calibration sample is labelled first. The machine then keeps the "
               "largest share of the other rows that the chosen guarantee allows, with "
               "probability at least 1 − δ over the calibration sample; humans label the rest. "
               "Both guarantees are relative to the annotators' labels (their own mistakes are "
               "not counted).")
    c1, c2, c3 = st.columns(3)
    with c1:
        if which == "overall":
            ev_widget(st.number_input, "ε (largest share of wrong final labels)", "epsilon",
                      min_value=0.001, max_value=0.5, step=0.01, format="%.3f")
        else:
            ev_widget(st.number_input, "α (largest error rate on kept rows)", "alpha",
                      min_value=0.001, max_value=0.5, step=0.01, format="%.3f")
        ev_widget(st.number_input, "δ (allowed failure probability)", "delta",
                  min_value=0.001, max_value=0.5, step=0.01, format="%.3f")
    with c2:
        ev_widget(st.number_input, "Calibration size", "calibration", min_value=1,
                  max_value=data.M, step=100)
        # no cap beyond what core accepts (any finite λ >= 0): the useful range depends on the
        # effort's unit (about 805 on the HMCEval release), so it is named, not imposed
        upper = data_lambda_range().upper
        ev_widget(st.number_input, f"λ of the ranking ({per_unit(data_effort_unit(data))})",
                  "cert_lam", min_value=0.0, format="%.4g",
                  step=10.0 ** (math.floor(math.log10(upper)) - 2) if upper > 0 else 0.5,
                  help="0 ranks rows by confidence alone; larger values put cheap rows first "
                       "(the same λ as on the Trade-off page, in the same effort unit)."
                       + (f" On this data λ changes who goes to humans up to about {setting_number(upper)}."
                          if upper > 0 else ""))
    with c3:
        ev_widget(st.number_input, "Planned audit (after certifying)", "audit", min_value=0,
                  max_value=data.M, step=10,
                  help="Audit of the rows the machine keeps; set it again when certifying, "
                       "once the number of kept rows is known.")
        ev_widget(st.number_input, "Seed", "seed", min_value=0, max_value=2**31 - 1, step=1)
    e = ss["evaluate"]
    n_cal, n_audit = min(int(e["calibration"]), data.M), int(e["audit"])
    st.markdown(f"**Humans will label the {count(n_cal)} calibration samples first, then the rows "
                f"the certificate does not let the machine keep, plus an audit of up to "
                f"{count(n_audit)} of those it keeps: at least {count(min(n_cal + n_audit, data.M))} of "
                f"{count(data.M)} samples.**")
    settings = RoundSettings(calibration=int(e["calibration"]), guarantee=which,
                             alpha=float(e["alpha"]), overall_error=float(e["epsilon"]),
                             delta=float(e["delta"]), lam=float(e["cert_lam"]),
                             audit=int(e["audit"]), seed=int(e["seed"]))
    guarantee_warning(data, settings, ss.get("_ev_previews"))
    if st.button("What would each guarantee keep on similar data?"):
        try:
            with st.spinner(f"Simulating {PREVIEW_ROUNDS} calibration samples for each "
                            "guarantee…"):
                ss["_ev_previews"] = (json.dumps(settings.to_dict(), sort_keys=True),
                                      G.guarantee_previews(data, settings,
                                                           rounds=PREVIEW_ROUNDS))
        except DataError as exc:
            show_error(exc)
    shown = ss.get("_ev_previews")
    if shown is not None and shown[0] == json.dumps(settings.to_dict(), sort_keys=True):
        guarantee_preview_table(shown[1], data.M - n_cal, PREVIEW_ROUNDS)

if st.button("Plan the round", type="primary", **writes(disabled=settings is None)):
    try:
        rid = (plan_stream_round(ws, data, settings) if kind == "stream" else
               R.plan_round(ws, data, kind=kind, settings=settings))
    except DataError as exc:
        show_error(exc)
    else:
        dsid = _dataset_id()  # stored by the plan
        ws.remember_active(dsid)
        ss["evaluate"] = {**ss["evaluate"], "round_id": rid}
        ss["_ev_kind_of_round"] = (dsid, rid)  # its mode is the one shown
        st.success(f"Round #{rid} planned and saved.")

rounds = ws.list_rounds(dsid) if dsid is not None else ws.list_rounds().iloc[:0]
if rounds.empty:
    elsewhere = ws.list_rounds()
    if elsewhere.empty:
        st.info("No round for this dataset yet: plan one above.")
    else:
        names = ws.list_datasets().set_index("id")["name"]
        latest = elsewhere.iloc[0]
        n_other = len(elsewhere)
        st.info(f"No round for this dataset yet: plan one above. The workspace has {count(n_other)} "
                f"round{'' if n_other == 1 else 's'} on other datasets (the latest, #{int(latest['id'])}, on "
                f"#{int(latest['dataset_id'])} {names.get(latest['dataset_id'], '')}): make that dataset "
                "active under Saved datasets in the sidebar to see them.")
    # a link to this page: it opens at its top, where the round is planned
    next_step("2a_Evaluate.py", "plan a round (1 · Plan the round, above)",
              "Choose budget mode (N and λ from the Trade-off page, plus an audit) or guarantee "
              "mode (a certified accuracy), then press Plan the round. The queue to send to "
              "annotators appears here once the round is planned.")
    st.stop()
ids = rounds["id"].tolist()
if ss["evaluate"].get("round_id") not in ids:
    ss["evaluate"] = {**ss["evaluate"], "round_id": ids[0]}
# option labels that do not change while a round is labelled: the browser kept a selectbox's
# old option text after the labels moved on; the progress is a caption below it
def _when(iso: str) -> str:
    """'2026-11-23T22:27:07+00:00' -> '2026-11-23 22:27 UTC' (the workspace stores UTC)."""
    text = str(iso)
    return f"{text[:10]} {text[11:16]} UTC" if len(text) >= 16 and text[10] == "T" else text


kinds = round_kinds(ws, rounds)  # a stream is a budget round whose settings say so
labels_of = {r.id: f"#{r.id} · {kinds[r.id]} · planned {_when(r.created)}" for r in rounds.itertuples()}
rid = ev_widget(st.selectbox, "Round", "round_id", options=ids, format_func=labels_of.get)
chosen = rounds.loc[rounds["id"] == rid].iloc[0]
st.caption(f"Round #{rid}: {count(int(chosen['n_labelled']))} of {count(int(chosen['n_to_label']))} "
           "labelled")
show_round_design(ws.latest_result(rid, "design"))
@st.cache_resource(show_spinner=False, max_entries=4)
def _round_design(root: str, round_id: int, version: tuple) -> tuple:
    """The round and its Design, read and prepared once per state of the round (``version``:
    :meth:`Workspace.round_version`), not on every rerun (0.13 s at 10^5 rows). Read only."""
    return R.round_design(ws, round_id)


try:
    rnd, design = _round_design(str(ws.root), rid, ws.round_version(rid))
except DataError as exc:
    show_error(exc)
    st.stop()
round_settings_note(rid, rnd.get("settings") or {}, params)
prog = R.progress(rnd, design)
with st.expander("Save this scenario (dataset, mapping, N, λ, mode, constraints, round settings)"):
    with st.form("save_scenario"):
        name = st.text_input("Scenario name", value=f"{data.name} · round {rid}")
        if st.form_submit_button("Save scenario", **writes()):
            try:
                sid = save_scenario(name)
            except DataError as exc:
                show_error(exc)
            else:
                st.success(f"Saved as scenario #{sid}; restore it from the sidebar.")

# ------------------------------------------------------------------------------------ 2. export
st.header("2 · Send the queue to annotators")
to_label = int(np.isfinite(rnd["queue_rank"]).sum())
done = f" ({count(prog['labelled'])} labelled already)" if prog["labelled"] else ""
order = ("calibration first, in random order, then the audit, in random order, then routed rows "
         "by priority" if prog["calibration"]["rows"] else
         "the audit first, in random order, then routed rows by priority")
if is_stream(rnd["settings"]):
    order = "a random draw with known chances: label from the top, in order, until told to stop"
st.caption(f"{count(to_label)} rows to label{done}, in queue order ({order}). The CSV and the Label "
           "Studio tasks have one row per sample to label: the sample id, the queue position, the "
           "text columns and the columns chosen below; never a label, a confidence, an effort or "
           "the selection, whatever its name.")
showable = showable_columns(design.data, selection_column=design.selection_column,
                            hidden=design.hidden)
ss["_annotator_show"] = [c for c in ss.get("_annotator_show", []) if c in showable]  # this table's
show = st.multiselect("Columns annotators also see", showable, key="_annotator_show",
    help="Context such as a dialogue id or a topic; columns mapped to a role are never offered.")
if to_label and not design.data.text_columns:
    st.warning(labelstudio.NO_TEXT_COLUMN)


def _exported(fmt: str, build) -> bytes:
    if not ws.read_only:  # a read-only workspace is looked at, never written
        ws.record_event(rid, "exported", {"format": fmt})
    return build()


c1, c2, c3 = st.columns(3)
# built when clicked (a large queue takes seconds), without a rerun (on_click="ignore"): a rerun
# before the browser's request drops the deferred file; the export is recorded as it is built
queued = np.isfinite(rnd["queue_rank"])
n_done = int((queued & design.has_label).sum())
if n_done == int(queued.sum()):  # all labelled: the whole queue, as a record
    n_done = 0
c1.download_button("Queue (CSV)" if not n_done else "Rows still to label (CSV)",
                   lambda: _exported("csv", lambda: to_csv_safe(annotator_table(
                       design, design.selection, rnd["queue_rank"], show=show,
                       done=design.has_label if n_done else None)).encode()),
                   file_name=f"hmceval_round{rid}_queue{'_remaining' if n_done else ''}.csv",
                   mime="text/csv", on_click="ignore",
                   help=(f"Leaves out the {count(n_done)} rows of the queue already labelled." if n_done else None))
c2.download_button("Label Studio tasks (JSON)",
                   lambda: _exported("labelstudio", lambda: labelstudio.task_json(
                       labelstudio.tasks(design, rnd["queue_rank"], show=show,
                                         done=design.has_label if n_done else None)).encode()),
                   file_name=f"hmceval_round{rid}_tasks.json", mime="application/json",
                   on_click="ignore")
c3.download_button("Label Studio labelling config (XML)",
                   labelstudio.labelling_config(design.data.labels,
                                                labelstudio.shown_fields(design, show)).encode(),
                   file_name=f"hmceval_round{rid}_config.xml", mime="application/xml")

# ------------------------------------------------------------------------------------ 3. import
imports = labels_section(ws, data, rid, rnd, design, prog)

# ------------------------------------------------------------------------------------ 4. result
result_section(ws, data, rid, rnd, design, prog, imports)

next_step("5_Fairness.py", "Fairness",
          "Check that the result is equally good across subgroups. The report for stakeholders is "
          "the download under 4 · Result.")
