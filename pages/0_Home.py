"""Home page: what HMCEval Studio answers, the one-screen summary of the latest labelled round
(or a chosen one), the workflow in four steps, and where each page fits."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.errors import DataError
from core.format import count, pct
from pages._common import (get_data, get_workspace, init_state, load_demo, md, next_step,
                           remember_active, show_error)
from pages._registry import page_path

init_state()
st.title("HMCEval Studio")
st.markdown(
    "**Which answers can you trust to a machine, and which should a person check?** You have a "
    "model that labels dialogue responses (for example safe or unsafe) and a confidence for "
    "each label; people label better but cost time. HMCEval Studio sends to people only the "
    "samples where their judgement is worth the time it takes, and tells you how accurate the "
    "combined result is and how much labelling time it saves compared with having people label "
    "everything.")


def _link(page: str, label: str) -> None:
    try:
        st.page_link(page_path(page), label=label)
    except StreamlitAPIException:  # the page runs on its own (a test): no navigation
        st.markdown(f"**{label}**")


@st.cache_data(show_spinner="Reading the round…", max_entries=8)
def _round_summary(root: str, round_id: int, version: tuple, _ws) -> dict:
    """The round's summary and digest (cached on the round's state: its plan and labels)."""
    from core.workspace import rounds as R
    from core.workspace.digest import round_digest

    from core.workspace.stream_report import stream_result
    from core.workspace.stream_rounds import is_stream

    s = R.round_summary(_ws, round_id)
    if is_stream(s["round"]["settings"]):  # a labelling stream: its answer is its stop sentence
        s["stream_sentence"] = stream_result(_ws, round_id)[1]["sentence"]
    return {"summary": s, "digest": round_digest(s, _ws.dataset(s["round"]["dataset_id"])["roles"]
                                                 or {})}


@st.cache_data(show_spinner="Writing the report…", max_entries=2)
def _report(root: str, round_id: int, version: tuple, _ws) -> bytes:
    from core.workspace.report import round_report_html

    return round_report_html(_ws, round_id).encode("utf-8")


def _parts_md(parts) -> str:
    return "".join(f"**{md(p)}**" if bold and p.strip() else md(p) for p, bold in parts)


def round_summary_section() -> None:
    """The one-screen summary of the latest round with labels (or the one chosen): the answer
    with its interval, hours spent and saved, accuracy by group with the worse groups, the
    guarantee and the caveats (core.workspace.digest, the report's summary box too)."""
    try:
        ws = get_workspace()
        rounds = ws.list_rounds()
    except DataError as exc:
        show_error(exc, context="Workspace")
        return
    rounds = rounds[rounds["n_labelled"] > 0]
    if rounds.empty:
        return
    datasets = ws.list_datasets()
    names = dict(zip(datasets["id"], datasets["name"]))
    labels = {int(r.id): f"Round {int(r.id)} · {names.get(r.dataset_id, '')} · {r.kind} · "
                         f"{count(int(r.n_labelled))} rows labelled · {str(r.created)[:10]}"
              for r in rounds.itertuples()}
    st.subheader("Latest result")
    rid = st.selectbox("Round", list(labels), format_func=labels.get, key="home_round",
                       help="The latest round with human labels; pick another to read its "
                            "summary.")
    try:
        got = _round_summary(str(ws.root), rid, ws.round_version(rid), ws)
    except DataError as exc:
        show_error(exc, context=f"Round {rid}")
        return
    d = got["digest"]
    ans, eff = d["answer"], d["effort"]
    c1, c2, c3, c4 = st.columns(4)
    if ans is not None and ans["accuracy"] is not None:
        c1.metric("Accuracy of the final labels", f"{pct(ans['accuracy'])}",
                  help=f"{ans['level']} confidence")
        c1.caption(f"{ans['level']} interval: {ans['interval']}" if not ans["one_sided"] else
                   f"{ans['interval']} ({ans['level']} confidence, exact bound)")
    else:
        c1.metric("Accuracy of the final labels", "not yet")
    c2.metric("Rows labelled by humans", f"{count(eff['labelled'])} of {count(eff['total'])}")
    if eff["spent"] is not None:
        time_unit = eff["all"] is not None
        c3.metric("Hours spent" if time_unit else "Effort spent", eff["spent"])
        c4.metric("Hours saved" if time_unit else "Effort saved", eff["saved"],
                  help=f"Labelling everything would take {eff['all']}." if time_unit else None)
    st.markdown("\n".join("- " + (f"**{md(line.label)}:** " if line.label else "")
                           + _parts_md(line.parts)
                           for line in d["lines"] if line.key not in ("groups",)))
    if d["groups"] is not None:
        g = d["groups"]
        table = g.assign(group=g["column"] + " = " + g["group"], accuracy=g["accuracy"] * 100,
                         interval=[f"{pct(lo)} – {pct(hi)}" if lo == lo and hi == hi else ""
                                   for lo, hi in zip(g["ci_low"], g["ci_high"])],
                         worse=g["worse"].map({True: "worse", False: ""}))
        st.dataframe(table[["group", "rows", "accuracy", "interval", "worse"]], hide_index=True,
                     column_config={"accuracy": st.column_config.NumberColumn(
                         "accuracy", format="%.1f%%", help="of the group's final labels"),
                         "rows": st.column_config.NumberColumn("rows", format="localized")})
        for note in d["worse"]:
            st.warning(md(note))
        if not d["worse"]:
            st.caption("No group's final labels are significantly worse than the rest's.")
    c1, c2 = st.columns(2)
    with c1:
        _link("2a_Evaluate.py", "Open the rounds on Evaluate")
    c2.download_button("Report for stakeholders (HTML)",
                       lambda: _report(str(ws.root), rid, ws.round_version(rid), ws),
                       file_name=f"hmceval_round{rid}_report.html", mime="text/html",
                       on_click="ignore", help="One self-contained file: opens in any browser, "
                                               "offline.")


round_summary_section()


st.subheader("How to use it")
STEPS = (
    ("1_Data.py", "1 · Data", "Load your table (one row per response: the machine's label, its "
     "confidence, and if you have them the people's labels and the time they took), or keep the "
     "built-in demo."),
    ("2_Trade-off.py", "2 · Trade-off", "Choose how many samples people may label and how much "
     "their time counts; see accuracy against effort and which samples go to people."),
    ("2a_Evaluate.py", "3 · Evaluate", "Run a real round: send the chosen samples to annotators "
     "(a file or Label Studio), take their labels back, and get the result with a confidence "
     "interval or a certified error bound."),
    ("2a_Evaluate.py", "4 · Report", "Once a round is planned on the Evaluate page (it is saved "
     "in the workspace), download the final labelled table and a one-file report for "
     "stakeholders at the end of that page. From the command line, `hmceval report -o "
     "report.html` writes the report of the latest saved round (`--round ID` for another, or a "
     "scenario's name once you saved one there)."),
)


for page, label, what in STEPS:
    c1, c2 = st.columns([1, 4])
    with c1:
        _link(page, label)
    c2.markdown(what)

data = get_data()
st.caption(f"Active dataset: {md(data.name)} · {count(data.M)} samples.")
if st.button("Try it on the demo data", type="primary",
             help="Loads the built-in demo dataset and opens the Trade-off page."):
    load_demo()
    remember_active(get_data(), source="demo")  # a reload reopens the demo, not older work
    try:
        st.switch_page(page_path("2_Trade-off.py"))
    except StreamlitAPIException:  # the page runs on its own (a test): no page to switch to
        st.success("The built-in demo dataset is active: open the Trade-off page.")

st.subheader("Where each page fits")
PAGES = (
    ("Data", "the dataset everything else uses: upload, column mapping, checks."),
    ("Trade-off", "how many samples go to people (N) and how much their effort weighs (λ)."),
    ("Evaluate", "a real labelling round from plan to result, saved in the workspace."),
    ("Confidence", "how well the machine's confidence predicts its mistakes; train a classifier."),
    ("Effort", "predict each sample's labelling time from its text and an annotation log."),
    ("Fairness", "whether the result is equally good across subgroups (RSMTool's statistics)."),
    ("Turns", "accuracy and effort by dialogue turn."),
    ("Scorekeeping", "clembench's scorekeeping game: score model transcripts."),
    ("ToolTalk", "ToolTalk's tool-call evaluation: score predicted tool calls."),
)
st.markdown("\n".join(f"- **{name}**: {what}" for name, what in PAGES))

next_step("1_Data.py", "Data", "Load your own table, or keep the demo and go on to Trade-off.")
