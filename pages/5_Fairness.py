"""Fairness page: RSMTool's agreement and subgroup fairness statistics for the machine evaluator,
the collaborative result and the human raters (DSM by subgroup, OLS fairness analyses)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

from core.defaults import MAX_MIN_ITEMS_PER_CANDIDATE, TRIM_TOLERANCE
from core.errors import DataError
from core.format import count, setting_number
from core.rsm import (COMPARISONS, EXCLUSION_REASONS, GOLD, SECOND, SYSTEM, TRUE_SCORE_COLUMNS, agreement_report,
                      comparison_frame, subgroup_choices)
from core.scenario import fairness_by_group
from core.serialize import dumps
from pages._fairness_groups import (AGREEMENT, CONSISTENCY_AGREEMENT, DISTRIBUTION, RATER_DISTRIBUTION,
                                    show_by_subgroup, show_table)
from pages._common import (code, current_assignment, get_data, get_params, init_state, next_step, show_error, synced)

init_state()
ss = st.session_state
data = get_data()
f = data.frame

st.title("Fairness")
st.caption(
    "How well the labels under test (the machine's, or the final ones) agree with the gold "
    "labels, on the whole set and in each subgroup, and whether some subgroups get worse or "
    "systematically higher or lower labels than others. Hover a header for what a statistic "
    "means.",
    help="RSMTool's definitions and column names: exact/adjacent agreement, Cohen's kappa "
         "(SKLL), quadratic weighted kappa, Pearson r, SMD, R2, RMSE; DSM (difference of "
         "standardised means) per subgroup with the conventional ±0.1 band; the three OLS "
         "fairness analyses osa, osd and csd (overall score accuracy, overall score difference, "
         "conditional score difference).",
)

# ----------------------------------------------------------------------------- the choices
# Canonical state of this page: fair_compare, fair_groups, fair_second, fair_rounded, and RSMTool's
# response options fair_exclude_zero, fair_trim (+ fair_trim_min, fair_trim_max, fair_trim_tol),
# fair_flag_col + fair_flag_values, fair_candidate + fair_min_items.
ss.setdefault("fair_compare", "machine")
ss.setdefault("fair_groups", subgroup_choices(data)[:1])
ss.setdefault("fair_second", None)
ss.setdefault("fair_rounded", False)
ss.setdefault("fair_exclude_zero", False)
ss.setdefault("fair_trim", False)
ss.setdefault("fair_trim_tol", TRIM_TOLERANCE)
ss.setdefault("fair_flag_col", None)
ss.setdefault("fair_flag_values", [])
ss.setdefault("fair_candidate", None)
ss.setdefault("fair_min_items", 1)

if not data.has_gold:
    st.warning("The active dataset has no gold (human) labels: every comparison on this page "
               "needs them. Map a column to **human_label** on the Data page.")
    st.stop()

# second rater: the data contract's role, else a column the user picks
role_second = data.roles.get("human_label_2")
if role_second:
    second_source = role_second
    second_values = f["human_label_2"].to_numpy()
else:
    used = {v for k, v in data.roles.items() if isinstance(v, str)}
    candidates = [c for c in data.raw.columns if c not in used and c not in data.text_columns]
    if ss["fair_second"] not in candidates:
        ss["fair_second"] = None
    synced(
        st.selectbox, "Second human rater column (no column has the human_label_2 role)", "fair_second",
        options=[None] + candidates, format_func=lambda c: "— none —" if c is None else c,
        help="A column holding a second human rating in the same label set; empty where a "
             "sample was not double-scored.",
    )
    second_source = ss["fair_second"]
    second_values = None if second_source is None else data.raw[second_source].to_numpy()

compare_options = ["machine", "collaborative"] + (["raters"] if second_source else [])
if ss["fair_compare"] not in compare_options:
    ss["fair_compare"] = "machine"
group_options = subgroup_choices(data)  # never a mapped or label-like column
ss["fair_groups"] = [g for g in ss["fair_groups"] if g in group_options]
if ss.get("_fair_groups_of") != ss.get("data_key"):
    # another dataset became active: none of its columns chosen yet, its first subgroup is
    # (the demo's 'system' left an uploaded table with no subgroup at all, issue 33)
    ss["fair_groups"] = ss["fair_groups"] or group_options[:1]
    ss["_fair_groups_of"] = ss.get("data_key")
c1, c2 = st.columns([3, 2])
with c1:
    synced(st.radio, "Compare", "fair_compare", options=compare_options, format_func=COMPARISONS.get,
           horizontal=True,
           help="Collaborative: the gold label where the current assignment sends the sample to a "
                "human, the machine's label elsewhere (Trade-off page settings).")
with c2:
    synced(st.multiselect, "Subgroup columns", "fair_groups", options=group_options,
           help="Categorical columns of the dataset (set them on the Data page). Columns mapped "
                "to a role, and label, prediction, probability, effort or id columns, are never "
                "offered: they are what is evaluated, not who.")
synced(st.checkbox, "Round the evaluated scores half to even first (RSMTool's *_round scores)", "fair_rounded",
       help="Labels are whole numbers already; this matters for continuous scores only.")
numeric_labels = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                     for v in data.labels)
label_lo = float(min(data.labels)) if numeric_labels else 0.0
label_hi = float(max(data.labels)) if numeric_labels else float(len(data.labels) - 1)
ss.setdefault("fair_trim_min", label_lo)
ss.setdefault("fair_trim_max", label_hi)
other_columns = [c for c in data.raw.columns if c not in data.text_columns]
with st.expander("Which responses are evaluated (RSMTool's options)"):
    synced(st.checkbox, "Exclude responses whose reference score is 0 (RSMTool's exclude_zero_scores)",
           "fair_exclude_zero",
           help="RSMTool's default is on: a 0 there means 'no score'. Here labels are classes and 0 "
                "(or the first text label, coded 0) is a real class, so the page keeps zeros unless "
                "you ask. `hmceval agreement` follows RSMTool (use --no-exclude-zero-scores).")
    synced(st.checkbox, "Trim the evaluated scores to the score scale (RSMTool's trim_min / trim_max)", "fair_trim",
           help="Scores outside [min − tolerance, max + tolerance] are set to that bound "
                "(RSMTool's *_trim scores); with rounding, its *_trim_round scores.")
    if ss["fair_trim"]:
        t1, t2, t3 = st.columns(3)
        with t1:
            synced(st.number_input, "Lowest score point", "fair_trim_min", min_value=-1e15, max_value=1e15)
        with t2:
            synced(st.number_input, "Highest score point", "fair_trim_max", min_value=-1e15, max_value=1e15)
        with t3:
            synced(st.number_input, "Tolerance", "fair_trim_tol", min_value=0.0, max_value=1e15, format="%.4f",
                   help=f"RSMTool's trim_tolerance (default {setting_number(TRIM_TOLERANCE)}).")
    if ss["fair_flag_col"] not in other_columns:
        ss["fair_flag_col"] = None
    synced(st.selectbox, "Keep only responses whose flag column has one of these values (RSMTool's flag_column)",
           "fair_flag_col", options=[None] + other_columns, format_func=lambda c: "— no flag column —" if c is None else c)
    if ss["fair_flag_col"] is not None:
        flag_values = sorted({str(v) for v in data.raw[ss["fair_flag_col"]].dropna().unique()[:200]})
        ss["fair_flag_values"] = [v for v in ss["fair_flag_values"] if v in flag_values]
        synced(st.multiselect, "Allowed values", "fair_flag_values", options=flag_values,
               help="Numbers match as numbers: 1, 1.0 and \"1\" are equal.")
    if ss["fair_candidate"] not in other_columns:
        ss["fair_candidate"] = None
    c3, c4 = st.columns([3, 2])
    with c3:
        synced(st.selectbox, "Candidate (test taker / dialogue) column (RSMTool's candidate_column)", "fair_candidate",
               options=[None] + other_columns, format_func=lambda c: "— none —" if c is None else c)
    with c4:
        synced(st.number_input, "Fewest responses per candidate", "fair_min_items", min_value=1,
               max_value=MAX_MIN_ITEMS_PER_CANDIDATE, step=1, disabled=ss["fair_candidate"] is None,
               help="RSMTool's min_items_per_candidate: candidates with fewer responses left are excluded.")
compare = ss["fair_compare"]
groups = list(ss["fair_groups"])
rounded = bool(ss["fair_rounded"])
options = {"exclude_zero_scores": bool(ss["fair_exclude_zero"])}
if ss["fair_trim"]:
    options.update(trim_min=float(ss["fair_trim_min"]), trim_max=float(ss["fair_trim_max"]),
                   trim_tolerance=float(ss["fair_trim_tol"]))
if ss["fair_flag_col"] is not None and ss["fair_flag_values"]:
    options["flag_column"] = {ss["fair_flag_col"]: list(ss["fair_flag_values"])}
if ss["fair_candidate"] is not None and int(ss["fair_min_items"]) > 1:
    options.update(candidate_column=ss["fair_candidate"], min_items_per_candidate=int(ss["fair_min_items"]))
if not group_options:
    st.info("The active dataset has no subgroup columns: the whole-set statistics are shown; "
            "mark categorical columns as subgroups on the Data page for DSM and the fairness analyses.")

# ----------------------------------------------------------------------------- computation
human_mask = None
params = get_params()
assignment_error = None
try:
    _, assignment = current_assignment()
    human_mask = assignment.human
except DataError as exc:
    assignment_error = exc


@st.cache_data(show_spinner="Computing agreement and fairness…", max_entries=32)
def _report(data_key: str, compare: str, groups: tuple, second: str | None, rounded: bool,
            options_key: str, assign_key: str, _data, _human, _second_values, _options) -> tuple[dict, dict]:
    extra = [c for c in (*(_options.get("flag_column") or {}), _options.get("candidate_column")) if c]
    frame, info = comparison_frame(_data, compare=compare, groups=groups, human=_human,
                                   second=_second_values, second_name=f"column '{second}'", extra=extra)
    human2 = SECOND if SECOND in frame.columns else None
    # one group column at a time (an unusable column does not hide the others); in the rater
    # comparison the evaluated side is the second rater: RSMTool's consistency tables
    report = agreement_report(frame, human=GOLD, system=SYSTEM, human2=human2, groups=groups, rounded=rounded,
                              raters=compare == "raters", group_errors="report", **_options)
    return report, info


@st.cache_data(show_spinner=False, max_entries=32)
def _by_group(data_key: str, column: str, assign_key: str, _data, _human) -> pd.DataFrame:
    return fairness_by_group(_data, _human, column)


# the scenario's key (exact λ, N, mode, constraints), never the displayed label: two λ that
# print alike but route one sample differently are two keys
assign_key = params.key
if compare == "collaborative" and human_mask is None:
    show_error(assignment_error, context="Collaborative result unavailable")
    st.stop()
try:
    report, info = _report(ss["data_key"], compare, tuple(groups), second_source, rounded,
                           json.dumps(options, sort_keys=True), assign_key if compare == "collaborative" else "",
                           data, human_mask, second_values, options)
except Exception as exc:  # a DataError names the problem; anything else is shown, not raised
    show_error(exc)
    st.stop()

# ----------------------------------------------------------------------------- notes
what = {"machine": "the machine evaluator's labels", "collaborative": f"the collaborative labels at {params.label}",
        "raters": f"the second rater ({code(second_source)})"}[compare]
ref = "the first human rater (gold labels)" if compare == "raters" else "the gold labels"
resp = report["responses"]
st.markdown(f"**Evaluated:** {what} · **reference:** {ref} · **N = {count(resp['N'])}**"
            + (f" (the {count(info['n_dropped'])} samples without a second rating are left out)"
               if info["n_dropped"] else ""))
dropped = {k: v for k, v in resp["excluded"].items() if v}
if dropped:
    st.info(f"{count(resp['N'])} of {count(resp['N_total'])} responses evaluated; excluded as RSMTool excludes them: "
            + "; ".join(f"{count(n)} because {EXCLUSION_REASONS[k]}" for k, n in dropped.items()) + ".")
h2_set = resp.get("human2_set_missing") or {}
if any(h2_set.values()):
    st.caption(f"Second ratings counted as absent: {count(h2_set['non_numeric'])} not a label, "
               f"{count(h2_set['zero'])} zero (exclude_zero_scores).")
if info["mapping"]:
    st.caption("Text labels are coded in their sorted order for the numeric statistics: "
               + ", ".join(f"{code(k)} = {v}" for k, v in info["mapping"].items())
               + ". Signs of SMD, DSM and the error regressions refer to these codes.")
if info["binary"]:
    with st.expander("Binary labels: which statistics are meaningful", expanded=False):
        st.markdown(
            "- **Exact agreement** is the accuracy (%); **Cohen's kappa** is the chance-corrected "
            "agreement and the **weighted kappa (QWK)** equals it for two classes.\n"
            "- **Pearson r** is the phi coefficient; the **standardised mean difference** and the "
            "**difference of standardised means (DSM)** compare how often each side gives the "
            "higher label, in standard-deviation units.\n"
            "- **RMSE** is the square root of the error rate; **adjacent agreement** is always 100 % "
            "and **R²** has little meaning for two classes. The true-score statistics (PRMSE) "
            "assume a continuous true score and are of limited use.\n"
            "- Fairness: **error size by group** models the error rate by group, **error "
            "direction by group** the direction of errors (more false positives or more false "
            "negatives), **direction within a gold class** the same among samples of one gold "
            "class (RSMTool's osa, osd and csd)."
        )

# ----------------------------------------------------------------------------- whole set
st.subheader("Whole evaluation set")
show_table(pd.DataFrame([report["eval"]], columns=list(AGREEMENT)), "the agreement", "agreement", index=False)
st.caption("Hover a header for its meaning and RSMTool's column name. A missing value means "
           "undefined (e.g. a side that never varies); the standardised mean difference uses the reference's sd (RSMTool's eval table).")
with st.expander("Score distributions (mean, sd, min, max of each side)"):
    show_table(pd.DataFrame([report["eval"]], columns=list(DISTRIBUTION)), "the score distributions",
               "distributions", index=False)

st.subheader("Human-human agreement")
if "consistency" not in report:
    st.info("No second human rating: human-human agreement and PRMSE are unavailable"
            + (" (pick a second-rater column above)." if not role_second else "."))
elif report["consistency"] is None:
    st.info(f"No sample has both ratings ({code(second_source)} is empty).")
else:
    st.caption(f"First rater (gold) vs the second rater {code(second_source)} on the N₂ double-scored "
               "samples; standardised mean difference with the pooled sd (RSMTool's consistency table).")
    show_table(pd.DataFrame([report["consistency"]], columns=list(CONSISTENCY_AGREEMENT)),
               "the human-human agreement", "consistency", index=False)
    with st.expander("Rater score distributions"):
        show_table(pd.DataFrame([report["consistency"]], columns=list(RATER_DISTRIBUTION)),
                   "the rater score distributions", "consistency_distributions", index=False)
if "true_score" in report and "consistency" in report:
    ts = report["true_score"]
    st.markdown("**Agreement with the true score** (how much of the gap to the true label the "
                "labels under test close)",
                help="RSMTool's true-score evaluation: PRMSE (proportional reduction in mean "
                     "squared error) of the evaluated side.")
    show_table(pd.DataFrame([ts], columns=list(TRUE_SCORE_COLUMNS)), "the true-score evaluation", "true_score",
               index=False)
    if ts["prmse_true"] is None:
        st.caption("Missing: no sample is double-scored, so the rater error variance is unknown.")

# ----------------------------------------------------------------------------- by subgroup
for col in groups:
    show_by_subgroup(col, report, label=params.label, human_mask=human_mask,
                     assignment_error=assignment_error,
                     rates_by_group=lambda c: _by_group(ss["data_key"], c, assign_key, data, human_mask))

st.divider()
st.download_button("Download this report (JSON, the format of `hmceval agreement`)", lambda: dumps(report),
                   file_name=f"agreement_{compare}.json", mime="application/json")
next_step("6_Turns.py", "Turns", "How agreement and the assignment change along a dialogue's turns.")
