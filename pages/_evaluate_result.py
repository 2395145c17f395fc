"""The Evaluate page's section 4, "Result": the certified guarantee, the estimate with its
intervals (by subgroup on request), the technical figures, the forest plot, the accuracy by
group, the downloads (final table, JSON, the report for stakeholders) and the validity panel.

A helper module of ``pages/2a_Evaluate.py`` (its page stays under 400 lines): the same widgets,
keys and calls into :mod:`core.workspace.rounds` as when they were written in the page.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.errors import DataError
from core.evaluation.sampling import planned_vs_realised
from core.figures.evaluation import coverage_figure, forest_figure, forest_rows, worth_text
from core.format import count, pct
from core.summary import certificate_totals, round_sentence
from core.workspace import rounds as R
from core.workspace.report import round_report_html
from pages._common import next_step, show_error
from pages._evaluate_annotators import annotators_section
from pages._evaluate_design import WORTH_HELP, group_section
from pages._evaluate_stream import stream_result
from pages._evaluate_two_batch import TWO_STAGE_WORDS, pilot_next
from core.workspace.stream_rounds import is_stream


def _report_pdf_button(col, state_key: str, rid: int, report) -> None:
    """The report printed to PDF (headless Chromium, core.workspace.pdf), made on the click;
    where it cannot be printed, the reason in words instead of the button."""
    from core.workspace.pdf import html_to_pdf, pdf_unavailable

    why = pdf_unavailable()
    if why:
        col.caption(f"PDF: {why}.")
        return

    @st.cache_data(show_spinner="Printing the report to PDF…", max_entries=2)
    def _pdf(key: str, round_id: int) -> bytes:
        return html_to_pdf(report(key, round_id).decode("utf-8"))

    col.download_button("Report for stakeholders (PDF)", lambda: _pdf(state_key, rid),
                        file_name=f"hmceval_round{rid}_report.pdf", mime="application/pdf",
                        on_click="ignore", help="The same report printed to A4 by a headless "
                                                "Chromium.")


def _against_truth(ws, rid: int, state_key: str, classes: list) -> None:
    """What the figures above are relative to, and, where the round has double-labelled rows
    (``hmceval queue --double K``) or a gold annotator, the shares and accuracy corrected for
    the annotators' own error (core.evaluation.annotators.noise, through the round service)."""
    st.caption("These figures are relative to the annotators' labels: their own mistakes are "
               "not counted.")
    double = ws.latest_result(rid, "double")
    if not double:
        return
    if not st.toggle("Against the truth: correct for the annotators' error, measured on the "
                     f"{count(len(double['rows']))} double-labelled rows", key=f"_ev_truth_{rid}"):
        return

    @st.cache_data(show_spinner="Measuring the annotators' error…", max_entries=4)
    def _corrected(key: str, round_id: int) -> dict:
        return R.estimate_round(ws, round_id, annotator_error="auto", save=False)

    try:
        corr = _corrected(state_key, rid)
    except DataError as exc:
        show_error(exc)
        return
    rows = [{"quantity": f"share of '{c}'", **{k: corr["class_shares"][c][k]
                                              for k in ("estimate", "ci_low", "ci_high")}}
            for c in classes]
    rows.append({"quantity": "accuracy of the final labels",
                 **{k: corr["accuracy"][k] for k in ("estimate", "ci_low", "ci_high")}})
    table = pd.DataFrame(rows)
    for k in ("estimate", "ci_low", "ci_high"):
        table[k] = table[k].map(lambda v: "" if v is None else f"{pct(v)}")
    st.dataframe(table.rename(columns={"ci_low": "95% low", "ci_high": "95% high"}),
                 hide_index=True)
    eta = corr.get("annotator_error") or {}
    if eta.get("eta") is not None:
        st.caption(f"Annotators' error rate: {pct(eta['eta'])}"
                   + (f" (95% interval {pct(eta['ci_low'])} to {pct(eta['ci_high'])})"
                      if eta.get("ci_low") is not None else "")
                   + f"; relative to: {corr['relative_to']}.")
    for note in corr.get("notes") or []:
        if note not in (ws.latest_result(rid, "estimate") or {}).get("notes", []):
            st.caption(note)


def downloads(ws, rid: int, design, state_key: str, result: dict) -> None:
    """The round's downloads: the final table, the result (JSON) and the report (HTML, PDF)."""
    c1, c2, c3 = st.columns(3)
    c1.download_button("Final labelled table (CSV)",
                       lambda: to_csv_safe(R.final_table(design)).encode(),
                       file_name=f"hmceval_round{rid}_final.csv", mime="text/csv", on_click="ignore")
    c2.download_button("Result (JSON)", json.dumps(result, default=str, indent=2).encode(),
                       file_name=f"hmceval_round{rid}_result.json", mime="application/json")


    @st.cache_data(show_spinner="Writing the report…", max_entries=4)
    def _report(key: str, round_id: int) -> bytes:
        return round_report_html(ws, round_id).encode("utf-8")


    # built now (cached per round state): a deferred file dies with the rerun its click triggers
    c3.download_button("Report for stakeholders (HTML)", _report(state_key, rid),
                       file_name=f"hmceval_round{rid}_report.html", mime="text/html",
                       help="One self-contained file: opens in any browser, offline.",
                       on_click="ignore" if ws.read_only else ws.record_event,
                       args=(rid, "exported", {"format": "report"}))
    _report_pdf_button(c3, state_key, rid, _report)


def _plan_against_labels(record: dict | None, est: dict) -> None:
    """The plan's expectations beside what the labels imported so far realise (issue 30)."""
    rows = planned_vs_realised(record, est)
    if not rows:
        return
    def show(r: dict, key: str) -> str:
        v = r[key]
        return "—" if v is None else count(v) if r["quantity"] == "labels" else pct(v)

    table = pd.DataFrame([{"": r["quantity"], "planned": show(r, "planned"),
                           "planned range": "—" if r["planned_low"] is None else
                           f"{show(r, 'planned_low')} – {show(r, 'planned_high')}",
                           "realised": show(r, "realised")} for r in rows])
    st.caption("The plan against the labels so far (the realised accuracy and half-width are "
               "this round's estimates; the range allows for miscalibrated confidences):")
    st.dataframe(table, hide_index=True, width="content")


def result_section(ws, data, rid: int, rnd: dict, design, prog: dict,
                   imports: pd.DataFrame) -> None:
    """Draw section 4 of the round ``rid`` (it stops the page while there is no result yet)."""
    annotators_section(ws, rid)  # the end of section 3: the annotators' agreement and time
    pilot_next(ws, data, rid, rnd)  # a first batch of two: plan the rest on its labels
    st.header("4 · Result")
    cert = ws.latest_result(rid, "certify")
    if cert:
        st.success(cert["guarantee"])
        if totals := certificate_totals(cert):
            st.caption(totals)
        for note in cert.get("notes") or []:
            st.caption(note)
    state_key = f"{ws.root}:{rid}:{rnd['plan_file']}:{prog['labelled']}:{len(imports)}"
    if is_stream(rnd["settings"]):  # a labelling stream: its confidence sequence, no estimate
        downloads(ws, rid, design, state_key, stream_result(ws, rid, rnd, design, state_key))
        return

    @st.cache_data(show_spinner="Estimating…", max_entries=16)
    def _summary(key: str, round_id: int, groups: tuple) -> dict:
        return R.round_summary(ws, round_id, groups=list(groups))


    subgroups = design.data.subgroup_columns
    groups = st.multiselect("Break the result down by", subgroups, default=R.default_groups(design),
                            help="Subgroup columns; those with many values make long plots.")
    try:
        summary = _summary(state_key, rid, tuple(groups))
    except DataError as exc:
        show_error(exc)
        st.stop()
    if summary["estimate_error"]:
        st.info(f"No result yet: {summary['estimate_error']}.")
        next_step("2a_Evaluate.py",  # this page, opened at its top
                  "label the queue and take the labels back (sections 2 and 3, above)",
                  "Send the queue to annotators (CSV or Label Studio), then import their labels; "
                  "the result, its interval and the report appear here as soon as the labels allow.")
        st.stop()
    est = summary["estimate"]
    classes = list(est["class_shares"])
    cols = st.columns(len(classes) + 1)
    for col, c in zip(cols, classes):
        s = est["class_shares"][c]
        interval = (f"[{pct(s['ci_low'])}, {pct(s['ci_high'])}]" if s["ci_low"] is not None
                    else "no interval: audit needed")
        col.metric(f"Share of '{c}'", f"{pct(s['estimate'])}", help=f"95% interval {interval}; "
                   f"machine labels alone: {pct(s['machine_only'])}")
        col.caption(f"95% interval {interval}" + (f" · {worth_text(s['random_equivalent'])}"
                                                 if s.get("random_equivalent") else ""),
                    help=WORTH_HELP if s.get("random_equivalent") else None)
    acc = est["accuracy"]
    if acc["estimate"] is not None:
        cols[-1].metric("Accuracy of the final labels", f"{pct(acc['estimate'])}")
        cols[-1].caption(f"at least {pct(acc['ci_low'])} (95%, exact)" if est["design"] == "routing"
                         else f"95% interval [{pct(acc['ci_low'])}, {pct(acc['ci_high'])}]")
    for note in est["notes"]:
        if note not in summary.get("group_notes", []):  # those are shown with their fix, below
            st.warning(note)
    _against_truth(ws, rid, state_key, classes)
    if est.get("method") == "two-stage":  # the rest of two batches, the first all labelled
        st.caption(TWO_STAGE_WORDS)
    _plan_against_labels(ws.latest_result(rid, "design"), est)
    st.markdown(f"**{round_sentence(summary)}**")
    first = classes[-1]
    rs = est["class_shares"][first]
    st.caption("The shares estimate the true labels of all rows: the machine's rows are corrected by "
               "the errors the audit found, so they differ from the shares of the labels in the "
               "final table (human where a human labelled, else the machine's).")
    if (rs["random_half_width"] is not None and rs["half_width"] is not None
            and rs["random_half_width"] < rs["half_width"]):
        st.warning(f"For the share of '{first}', labelling the same {count(est['n_labelled'])} rows at "
                   f"random would give a tighter interval (± {pct(rs['random_half_width'])} against "
                   f"this round's ± {pct(rs['half_width'])}): routing buys correct final labels, not "
                   "a tighter estimate of a share. Raise the audit for a tighter share.")
    with st.expander("Technical figures (intervals, audit, comparison with random labelling)"):
        parts = [f"{count(est.get(f'n_{w}', 0))} {w}" for w in ("calibration", "routed", "audit")
                 if w != "calibration" or est.get("n_calibration")]
        st.caption(f"{count(est['n_labelled'])} rows labelled by humans: {', '.join(parts)}; "
                   f"the machine's labels stand for the other {count(est.get('n_machine', 0))}; "
                   f"{count(est.get('audit_errors', 0))} machine errors found in the audit.")
        if None not in (rs["random_equivalent"], rs["half_width"], rs["random_half_width"]):
            st.markdown(f"Labelling **{count(est['n_labelled'])} rows at random** would give the share of "
                        f"'{first}' to ± {pct(rs['random_half_width'])}; this round gives ± "
                        f"{pct(rs['half_width'])}, which random labelling reaches with "
                        f"{count(rs['random_equivalent'])} rows.")
    pick = st.selectbox("Class for the forest plot", classes, index=len(classes) - 1)
    st.plotly_chart(forest_figure(forest_rows(est, pick), label=pick), width="stretch")
    group_section(ws, data, rnd, summary, est["n_labelled"])
    downloads(ws, rid, design, state_key, summary)


    # ------------------------------------------------------------------------------------ validity
    inclusion = rnd.get("inclusion")
    if data.has_gold and rnd["kind"] == "budget" and (rnd["settings"].get("audit")
                                                       or inclusion is not None):
        with st.expander("Validity panel: repeat this round many times against the gold labels"):
            n_rounds = st.select_slider("Rounds", options=[100, 200, 500, 1000], value=200)
            if st.button("Run the simulation"):
                with st.spinner("Simulating…"):
                    table = R.validity(data, rnd["settings"], rounds=n_rounds,
                                       inclusion=inclusion)
                weighted = inclusion is not None
                st.plotly_chart(coverage_figure(
                    table, baseline="PPI++ (the usual estimate) with as many random labels" if weighted
                    else "plain normal interval"), width="stretch")
                st.dataframe(table, hide_index=True, width="stretch",
                             column_config={c: st.column_config.NumberColumn(format="%.3f")
                                            for c in table.columns if c != "quantity"}, placeholder="—")
                st.caption(("Each round draws new rows to label with the round's inclusion "
                            "probabilities" if weighted else "Each round draws a new audit")
                           + " and hides the gold labels of the machine's rows; coverage is how "
                           "often the interval held the true value.")
