"""Home page: what HMCEval Studio answers, the workflow in four steps, and where each page fits."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from pages._common import get_data, init_state, load_demo, next_step, remember_active
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


def _link(page: str, label: str) -> None:
    try:
        st.page_link(page_path(page), label=label)
    except StreamlitAPIException:  # the page runs on its own (a test): no navigation
        st.markdown(f"**{label}**")


for page, label, what in STEPS:
    c1, c2 = st.columns([1, 4])
    with c1:
        _link(page, label)
    c2.markdown(what)

data = get_data()
st.caption(f"Active dataset: {data.name} · {data.M:,} samples.")
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
