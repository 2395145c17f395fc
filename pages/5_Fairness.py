"""Fairness page: RSMTool's agreement and subgroup fairness statistics for the machine evaluator,
the collaborative result and the human raters (DSM by subgroup, OLS fairness analyses)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.defaults import MAX_MIN_ITEMS_PER_CANDIDATE, TRIM_TOLERANCE
from core.errors import DataError
from core.format import count, pct, setting_number
from core.rsm import (ANALYSES, COLUMN_DESCRIPTIONS, COMPARISONS, EXCLUSION_REASONS, GOLD, PERCENT_COLUMNS,
                      SECOND, SYSTEM, TRUE_SCORE_COLUMNS, TRUE_SCORE_RSMTOOL_NAMES, agreement_report,
                      comparison_frame, estimates_frame, subgroup_choices, subgroup_rows)
from core.figures.fairness import DSM_BAND, dsm_figure, dsm_flags, group_rates_figure
from core.scenario import fairness_by_group
from core.serialize import dumps
from pages._common import (code, current_assignment, get_data, get_params, init_state, md,
                           next_step, show_error, synced)

#: Agreement columns shown first (the score distributions go to their own table).
AGREEMENT = ("N", "exact_agr", "adj_agr", "kappa", "wtkappa", "corr", "R2", "RMSE", "SMD")
CONSISTENCY_AGREEMENT = ("N", "exact_agr", "adj_agr", "kappa", "wtkappa", "corr", "SMD")
#: By subgroup the DSM comes first; the error statistics go with the distributions (narrow tables).
GROUP_AGREEMENT = ("N", "exact_agr", "adj_agr", "kappa", "wtkappa", "corr")
GROUP_ERRORS = ("R2", "RMSE", "SMD")
DISTRIBUTION = ("h_mean", "h_sd", "h_min", "h_max", "sys_mean", "sys_sd", "sys_min", "sys_max")
RATER_DISTRIBUTION = ("h1_mean", "h1_sd", "h1_min", "h1_max", "h2_mean", "h2_sd", "h2_min", "h2_max")
#: Per-group columns of the collaborative result: header, meaning, shown as a percentage.
RATES = {
    "N": ("Samples", "samples in the group", False),
    "n_human": ("Sent to humans", "samples the assignment sends to a human", False),
    "human_ratio": ("Human ratio", "share of the group's samples sent to humans", True),
    "time_cost": ("Time cost", "share of the group's human effort spent (effort sent to humans / total)", True),
    "accuracy": ("Accuracy, collab.", "accuracy of the collaborative labels against gold", True),
    "f1": ("Macro F1, collab.", "macro-averaged F1 of the collaborative labels", False),
    "machine_accuracy": ("Accuracy, machine", "accuracy of the machine's labels alone against gold", True),
}


def column_config(columns) -> dict:
    """Plain headers, RSMTool's names and meanings in the tooltips, percentages with a % sign."""
    out = {}
    for c in columns:
        if c in COLUMN_DESCRIPTIONS:
            label, meaning = COLUMN_DESCRIPTIONS[c]
            rsm = TRUE_SCORE_RSMTOOL_NAMES.get(c, c)
            help_ = f"{meaning}. RSMTool: `{rsm}`"
            # the acronym in the tooltip only: the true-score table then fits 1,400 px (issue 25)
            label = label.replace(" (PRMSE)", "")
            if c in PERCENT_COLUMNS:
                out[c] = st.column_config.NumberColumn(label + " (%)", help=help_, format="%.1f%%")
            elif c in ("N", "N raters", "N_single", "N_multiple"):
                out[c] = st.column_config.NumberColumn(label, help=help_, format="%d")
            else:
                out[c] = st.column_config.NumberColumn(label, help=help_, format="%.3f")
        elif c in RATES:
            label, meaning, percent = RATES[c]
            out[c] = st.column_config.NumberColumn(label + (" (%)" if percent else ""), help=meaning + ".",
                                                   format="%.1f%%" if percent else ("%d" if c in ("N", "n_human") else "%.3f"))
    return out


def show_table(table: pd.DataFrame, name: str, key: str, *, index: bool = True) -> None:
    """The table with plain headers, and its CSV download (formula cells neutralised; written when
    the button is clicked, not on every rerun)."""
    st.dataframe(table, column_config=column_config(table.columns), hide_index=not index, width="stretch",
                 placeholder="—")
    shown = table.reset_index() if index else table
    st.download_button(f"Download {md(name)} (CSV)", lambda: to_csv_safe(shown), file_name=f"{key}.csv",
                       mime="text/csv", key=f"dl_{key}")


def rows_frame(rows: dict, columns, index_name: str = "group") -> pd.DataFrame:
    frame = pd.DataFrame.from_dict({str(k): v for k, v in rows.items()}, orient="index", columns=list(columns))
    frame.index.name = index_name
    return frame


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
SIG_LEVEL = 0.05
for col in groups:
    st.divider()
    st.subheader(f"By {code(col)}")
    if f"error_by_{col}" in report:
        st.error(md(report[f"error_by_{col}"]))
        continue
    rows = subgroup_rows(report[f"eval_by_{col}"])  # the groups, without rsmeval's "All data" row
    if report.get("ordered") is False:
        # unordered labels: no DSM, no flag (the gaps of a scale mean nothing here)
        st.info(md(report.get("nominal_note", "The labels are not a scale: DSM is not "
                                              "computed.")))
        show_table(rows_frame(rows, ("N", "exact_agr", "kappa"), col), f"the agreement by {col}",
                   f"eval_by_{col}")
        continue
    dsm = {k: v["DSM"] for k, v in rows.items()}
    flags = dsm_flags(dsm)
    st.plotly_chart(dsm_figure(dsm, counts={k: v["N"] for k, v in rows.items()},
                               title=f"Standardised gap to the gold by {col} (band ±{setting_number(DSM_BAND)})"),
                    width="stretch",
                    key=f"dsm_{col}")
    flagged = [str(k) for k, v in flags.items() if v == "flag"]
    missing = [str(k) for k, v in flags.items() if v in ("missing", "nan")]
    if flagged:
        st.warning(f"Labels systematically higher or lower than the gold (standardised gap "
                   f"beyond ±{setting_number(DSM_BAND)}) for: {md(', '.join(map(str, flagged)))}.",
                   icon=":material/flag:")
    else:
        st.success(f"No subgroup's labels are systematically higher or lower than the gold: "
                   f"every standardised gap is within ±{setting_number(DSM_BAND)}.")
    st.caption("Standardised gap: how much higher (positive) or lower (negative) the labels "
               "under test are than the gold labels in the group, in standard deviations of the "
               "whole set.", help="RSMTool's DSM, difference of standardised means "
                                  "(z of the evaluated side minus z of the reference).")
    if missing:
        st.caption(f"No standardised gap for {md(', '.join(map(str, missing)))}: the labels do "
                   "not vary there (a standard deviation of 0 or undefined).")

    table = rows_frame(rows, ("DSM",) + GROUP_AGREEMENT, col)
    table.insert(0, "flag", [{"flag": f"⚑ gap beyond ±{setting_number(DSM_BAND)}", "ok": "", "missing": "no gap",
                              "nan": "gap undefined"}[flags[k]] for k in rows])
    show_table(table, f"the agreement by {col}", f"eval_by_{col}")
    with st.expander(f"Errors and score distributions by {md(col)}"):
        show_table(rows_frame(rows, GROUP_ERRORS, col), f"the errors by {col}", f"errors_by_{col}")
        show_table(rows_frame(rows, DISTRIBUTION, col), f"the score distributions by {col}", f"distributions_by_{col}")

    fair = report[f"fairness_by_{col}"]
    st.markdown(f"**Do the errors depend on the group?** (compared with {code(fair['base_category'])}, "
                "the largest group)", help="RSMTool's three fairness analyses, ordinary least "
                                           "squares regressions of the errors on the group.")
    summary = pd.DataFrame([
        {"analysis": ANALYSES[a], "R2 (adjusted)": fair[a]["R2"], "p-value": fair[a]["sig"],
         f"significant at {SIG_LEVEL}": (None if math.isnan(fair[a]["sig"]) else fair[a]["sig"] < SIG_LEVEL),
         "note": fair[a]["note"] or ""}
        for a in ANALYSES
    ])
    st.dataframe(summary, hide_index=True, width="stretch", column_config={
        "analysis": st.column_config.TextColumn("Analysis", help="RSMTool's fairness analyses (osa, osd, csd)."),
        "R2 (adjusted)": st.column_config.NumberColumn(
            "Adjusted R²", format="%.3f",
            help="share of the error variance the group explains (csd: beyond the reference score). RSMTool: R2"),
        "p-value": st.column_config.NumberColumn("p-value", format="%.3f",
                                                 help="F-test of the group effect. RSMTool: sig"),
        "note": st.column_config.TextColumn("Note", width="large"),
    }, placeholder="—")
    st.download_button(f"Download the fairness analyses by {md(col)} (CSV)",
                       lambda fair=fair: to_csv_safe(pd.concat({ANALYSES[a]: estimates_frame(fair, a) for a in ANALYSES},
                                                               names=["analysis", "coefficient"]).reset_index()),
                       file_name=f"fairness_by_{col}.csv", mime="text/csv", key=f"dl_fairness_{col}")
    st.caption("Overall score accuracy: are errors larger in some groups? Overall score difference: "
               "are labels higher or lower than the gold in some groups? Conditional score "
               "difference: the same among samples of the same gold label. Adjusted R²: the share "
               "of the errors the group explains; p-value: how often a share this large arises by "
               "chance.", help="RSMTool's osa: squared error ~ group; osd: error (evaluated − "
                               "reference) ~ group; csd: error ~ group + reference score as a "
                               "category, against error ~ reference score (R2 is the difference "
                               "of adjusted R2s, the p-value the nested F-test).")
    with st.expander("Coefficients (estimate, p-value, 95 % interval)"):
        for a in ANALYSES:
            st.markdown(f"*{ANALYSES[a]}*")
            st.dataframe(estimates_frame(fair, a), width="stretch", placeholder="—")

    if f"consistency_by_{col}" in report:
        st.markdown("**Human-human agreement by subgroup**")
        cons = subgroup_rows(report[f"consistency_by_{col}"])
        show_table(rows_frame(cons, ("DSM",) + GROUP_AGREEMENT, col), f"the human-human agreement by {col}",
                   f"consistency_by_{col}")
        with st.expander(f"Rater score distributions by {md(col)}"):
            show_table(rows_frame(cons, ("SMD",) + RATER_DISTRIBUTION, col),
                       f"the rater score distributions by {col}", f"consistency_distributions_by_{col}")
        empty = [str(k) for k, v in cons.items() if v["N"] == 0]
        if empty:
            st.caption(f"No double-scored sample in: {md(', '.join(map(str, empty)))} (N = 0, as RSMTool lists them).")

    st.markdown(f"**Collaborative result by {code(col)}** at {params.label}")
    if human_mask is None:
        show_error(assignment_error, context="Assignment unavailable")
    else:
        try:
            rates = _by_group(ss["data_key"], col, assign_key, data, human_mask)
        except DataError as exc:
            show_error(exc)
        else:
            overall = {"human_ratio": float(np.mean(human_mask))}
            st.plotly_chart(group_rates_figure(rates.to_dict(orient="index"), overall=overall,
                                               title=f"Human ratio, time cost and accuracy by {col}"),
                            width="stretch", key=f"rates_{col}")
            shown = rates.copy()
            shown.index = shown.index.map(str)
            shown.index.name = col
            shown = shown.astype({c: float for c in ("human_ratio", "time_cost", "accuracy", "f1", "machine_accuracy")
                                  if shown[c].notna().any()})
            for c, (_, _, percent) in RATES.items():  # shares as percentages (0-100) with a % sign
                if percent and shown[c].notna().any():
                    shown[c] = 100 * shown[c]
            show_table(shown, f"the collaborative result by {col}", f"assignment_by_{col}")
            hr = rates["human_ratio"].astype(float)
            st.caption(f"Human ratio ranges from {pct(hr.min())} to {pct(hr.max())} across "
                       f"groups (overall {pct(overall['human_ratio'])}): the assignment "
                       "follows the machine's confidence and the predicted effort, so groups where "
                       "the machine is less confident go to humans more often.")

st.divider()
st.download_button("Download this report (JSON, the format of `hmceval agreement`)", lambda: dumps(report),
                   file_name=f"agreement_{compare}.json", mime="application/json")
next_step("6_Turns.py", "Turns", "How agreement and the assignment change along a dialogue's turns.")
