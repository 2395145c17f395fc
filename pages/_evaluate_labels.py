"""The Evaluate page's section 3, "Take the labels back": the progress, the import of
returned labels (a CSV file, a Label Studio JSON export or a Label Studio server), the imports
of the round, the annotators simulated from gold labels, and a guarantee round's certify step.

A helper module of ``pages/2a_Evaluate.py`` (its page stays under 400 lines): the same widgets,
keys and calls into :mod:`core.workspace.rounds` as when they were written in the page.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import DataError
from core.workspace import labelstudio_service as service
from core.figures.evaluation import progress_figure
from core.workspace.stream_rounds import is_stream
from core.format import count, setting_number
from core.workspace import guarantees as G
from core.workspace import rounds as R
from pages._common import range_help, show_error, writes


def labels_section(ws, data, rid: int, rnd: dict, design, prog: dict) -> pd.DataFrame:
    """Draw section 3 of the round ``rid`` and return the round's imports (``ws.imports``)."""
    ss = st.session_state
    st.header("3 · Take the labels back")
    st.progress(prog["labelled"] / prog["to_label"] if prog["to_label"] else 0.0,
                text=f"{count(prog['labelled'])} of {count(prog['to_label'])} labelled")
    if prog["to_label"]:
        st.plotly_chart(progress_figure(prog, stream=is_stream(rnd["settings"])), width="stretch")


    def _imported(result: dict) -> None:
        ss["_import_report"] = result


    def _show_import_report() -> None:
        rep = ss.get("_import_report")
        if not rep or rep.get("round_id") != rid:
            return
        if rep.get("error"):
            st.error(rep["error"])
            st.info("Nothing was imported; the round's labels are unchanged.")
            return
        st.success(f"{count(rep['n_labels'])} rows labelled from {rep['file']}.")
        for note in rep["notices"]:
            st.caption(note)
        if rep["adjudication"]:
            st.warning(f"{len(rep['adjudication'])} samples have tied annotators and stay "
                       f"unlabelled until adjudicated: {', '.join(rep['adjudication'][:10])}"
                       + (" …" if len(rep["adjudication"]) > 10 else ""))


    def _do_import(imported_fn, file_name: str) -> None:
        try:
            imported = imported_fn()
            result = R.import_joined(ws, rid, imported, file_name=file_name)
        except DataError as exc:
            _imported({"round_id": rid, "error": f"{file_name}: {exc}"})
        else:
            _imported({"round_id": rid, "file": file_name, **result})
        st.rerun()  # redraw the progress and the result with the new labels


    def _read_table(name: str, content: bytes):
        from core.data import load_table

        return load_table(content, name=name)


    source = st.radio("Labels from", ["CSV file", "Label Studio export (JSON file)",
                                      "Label Studio server"], horizontal=True, key="_w_import_source")
    if source == "CSV file":
        up = st.file_uploader("Labels table (CSV/TSV/Parquet): a sample id column and a label column",
                              type=["csv", "tsv", "txt", "parquet", "json"],
                              key=f"_w_labels_csv_{rid}")  # a round's own: no file left from another
        if up is not None:
            try:
                table = _read_table(up.name, up.getvalue())
            except DataError as exc:
                show_error(exc, context=up.name)
            else:
                cols = list(map(str, table.columns))
                c1, c2, c3 = st.columns(3)
                sid_col = c1.selectbox("Sample id column", cols,
                                       index=cols.index("sample_id") if "sample_id" in cols else 0)
                guess = next((c for c in ("label", "human_label", "gold") if c in cols), cols[-1])
                lab_col = c2.selectbox("Label column", cols, index=cols.index(guess))
                ann_col = c3.selectbox("Annotator column (optional)", ["—"] + cols)
                if st.button("Import these labels", type="primary", **writes()):
                    from core.evaluation.labels import labels_from_table

                    _do_import(lambda: labels_from_table(
                        table, sample_id_col=sid_col, label_col=lab_col,
                        annotator_col=None if ann_col == "—" else ann_col), up.name)
    elif source == "Label Studio export (JSON file)":
        up = st.file_uploader("Label Studio's JSON export of the project", type=["json"],
                              key=f"_w_labels_ls_{rid}")
        if up is not None and st.button("Import these labels", type="primary", **writes()):
            from core.evaluation.labelstudio import labels_from_labelstudio

            content = up.getvalue()  # read by core.userfile.parse_json (nesting, key limits)
            _do_import(lambda: labels_from_labelstudio(content), up.name)
    else:
        st.caption("Push the queue to a Label Studio server and pull the annotations back (the "
                   "only network access of the app, to the URL you give). Label Studio 1.23 uses "
                   "personal access tokens: Account & Settings > Personal Access Token.")
        c1, c2 = st.columns(2)
        url = c1.text_input("Label Studio URL", value=ss.get("_ls_url", "http://localhost:8080"))
        token = c2.text_input("Access token", type="password")
        ss["_ls_url"] = url
        # one default with hmceval labelstudio, one push and pull (labelstudio_service)
        title = st.text_input("Project title", value=service.round_title(ws, rid))
        show = ss.get("_annotator_show") or None
        c1, c2 = st.columns(2)
        if c1.button("Send the queue", **writes()):
            try:
                pushed = service.push_round(ws, rid, service.connect(url, token), title=title,
                                            show=show, url=url)
            except DataError as exc:
                show_error(exc, context="Label Studio")
            else:
                if pushed.warning:
                    st.warning(pushed.warning)
                st.success(f"{count(pushed.result.n_sent)} tasks sent to project "
                           f"#{pushed.result.project.id} ('{title}'); "
                           f"{count(pushed.result.n_existing)} were there already.")
        if c2.button("Pull the labels", **writes()):
            older = service.older_titles(rid, data_name=data.name)  # the page's earlier default
            _do_import(lambda: service.pull_labels(service.connect(url, token), title, older),
                       f"Label Studio project '{title}'")
    _show_import_report()
    imports = ws.imports(rid)
    if len(imports):
        with st.expander(f"Imports of this round ({len(imports)})"):
            st.dataframe(imports.drop(columns=["notices"]), hide_index=True, width="stretch", placeholder="—")
            events = ws.events(rid)
            st.dataframe(events, hide_index=True, width="stretch", placeholder="—")

    if data.has_gold:
        with st.expander("Simulate the annotators (this dataset has gold labels)", expanded=False):
            st.caption("Fills the next rows of the queue with the gold labels, as if annotators had "
                       "labelled them: the whole loop can be shown without people.")
            frac = st.slider("Share of the remaining queue to label", 0.05, 1.0, 1.0, 0.05)
            if st.button("Fill labels from gold", **writes()):
                try:
                    R.simulate_annotators(ws, rid, fraction=frac)
                except DataError as exc:
                    show_error(exc)
                else:
                    st.rerun()

    @st.cache_data(show_spinner=False, max_entries=16)
    def _certify_look(key: str, round_id: int, audit: int, alpha: float | None,
                      overall_error: float | None, delta: float, lam: float, seed: int) -> dict:
        """What certifying would give (the key names the workspace, round, plan and labels)."""
        return R.certify_outlook(ws, round_id, alpha=alpha, overall_error=overall_error,
                                 delta=delta, lam=lam, audit=audit, seed=seed)


    if rnd["kind"] == "guarantee" and prog["undecided"]:
        cal = prog["calibration"]
        st.subheader("Certify")
        if cal["labelled"] == 0:
            st.info("Label the calibration sample, then certify here.")
        else:
            e = ss["evaluate"]  # a round planned by hmceval queue --calibration names no level
            given = {"guarantee": e["guarantee"], "alpha": e["alpha"], "delta": e["delta"],
                     "overall_error": e["epsilon"], "lam": e["cert_lam"], "seed": 0}
            missing = [k for k in ("alpha", "delta", "lam") if k not in rnd["settings"]]
            s = {**given, **rnd["settings"]} if missing else rnd["settings"]
            level = G.guarantee_level(s)
            said = (f"ε = {setting_number(level['overall_error'])} (overall error of the final labels)"
                    if level["overall_error"] is not None
                    else f"α = {setting_number(level['alpha'])} (error on the rows the machine keeps)")
            st.caption(f"{count(cal['labelled'])} of {count(cal['rows'])} calibration rows labelled; "
                       f"{said}, δ = {setting_number(s['delta'])} (allowed failure "
                       f"probability), λ = {setting_number(s['lam'])} ("
                       + ("rows ranked by confidence alone" if not s["lam"] else
                          "confidence weighed against effort")
                       + ("; fixed when the round was planned)." if not missing else
                          "; this round was planned without them, by hmceval queue "
                          "--calibration: the plan section's values)."))
            look_key = f"{ws.root}:{rid}:{rnd['plan_file']}:{prog['labelled']}:{s}"
            try:
                args = (level["alpha"], level["overall_error"], float(s["delta"]),
                        float(s["lam"]), int(s.get("seed", 0)))
                look = _certify_look(look_key, rid, 0, *args)
            except DataError as exc:
                show_error(exc)
                look = None
            if look is not None:
                kept = look["n_machine"]
                # the audit is chosen now, when the rows the machine keeps are known
                akey = f"_w_cert_audit_{rid}"
                planned = int(s.get("audit", 0))
                if akey not in ss or ss[akey] > kept:
                    ss[akey] = min(planned, kept)
                why = "Rows drawn at random from those the machine keeps, labelled too."
                audit = int(st.number_input("Audit after certifying", min_value=0, max_value=kept,
                                            step=10, key=akey, help=range_help(why, 0, kept)))
                if planned > kept:
                    st.info(f"The plan asked for an audit of {count(planned)}, but certifying now the "
                            f"machine keeps {count(kept)} rows: the audit can take at most {count(kept)} "
                            f"(set to {count(min(planned, kept))}; change it above).")
                look = _certify_look(look_key, rid, audit, *args)
                if kept:
                    st.markdown(f"Certifying now, the machine keeps {count(kept)} rows. " +
                                R.outlook_sentence(look, [("calibration", look["n_calibration"]),
                                                          ("routed", look["n_routed"]),
                                                          ("audit", audit)]))
                else:
                    st.markdown(f"With these labels nothing can be certified: the {count(look['n_routed'])} "
                                "other rows all go to humans (no audit is needed).")
                if st.button("Certify and route the other rows", type="primary", **writes()):
                    try:
                        R.certify_round(ws, rid, **level, delta=s["delta"], lam=s["lam"],
                                        audit=audit, seed=int(s.get("seed", 0)))
                    except DataError as exc:
                        show_error(exc)
                    else:
                        st.rerun()
    return imports
