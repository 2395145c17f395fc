"""Fairness page: RSMTool's agreement and subgroup fairness statistics for the machine evaluator,
the collaborative result and the human raters (DSM by subgroup, OLS fairness analyses)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import streamlit as st

from core.errors import DataError
from core.rsm import (ANALYSES, COMPARISONS, CONSISTENCY_COLUMNS, EVAL_BY_GROUP_COLUMNS, EVAL_COLUMNS, GOLD,
                      SECOND, SYSTEM, agreement_report, assignment_by_group, comparison_frame,
                      estimates_frame)
from core.figures.fairness import DSM_BAND, dsm_figure, dsm_flags, group_rates_figure
from core.serialize import dumps
from pages._common import (current_assignment, fmt, get_data, get_params, init_state, show_error,
                           synced)

init_state()
ss = st.session_state
data = get_data()
f = data.frame

st.title("Fairness")
st.caption(
    "Agreement of an evaluator with the gold labels and its fairness across subgroups, with "
    "RSMTool's definitions and column names: exact/adjacent agreement, Cohen's kappa (SKLL), "
    "quadratic weighted kappa, Pearson r, SMD, R2, RMSE; DSM (difference of standardised "
    "means) per subgroup with the conventional ±0.1 band; and the three OLS fairness analyses "
    "(overall score accuracy, overall score difference, conditional score difference)."
)

# ----------------------------------------------------------------------------- the choices
# Canonical state of this page: fair_compare, fair_groups, fair_second, fair_rounded.
ss.setdefault("fair_compare", "machine")
ss.setdefault("fair_groups", list(data.subgroup_columns[:1]))
ss.setdefault("fair_second", None)
ss.setdefault("fair_rounded", False)

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
group_options = list(data.subgroup_columns)
ss["fair_groups"] = [g for g in ss["fair_groups"] if g in group_options]
c1, c2 = st.columns([3, 2])
with c1:
    synced(st.radio, "Compare", "fair_compare", options=compare_options, format_func=COMPARISONS.get,
           horizontal=True,
           help="Collaborative: the gold label where the current assignment sends the sample to a "
                "human, the machine's label elsewhere (Trade-off page settings).")
with c2:
    synced(st.multiselect, "Subgroup columns", "fair_groups", options=group_options,
           help="Categorical columns of the dataset (set them on the Data page).")
synced(st.checkbox, "Round the evaluated scores half to even first (RSMTool's *_round scores)", "fair_rounded",
       help="Labels are whole numbers already; this matters for continuous scores only.")
compare = ss["fair_compare"]
groups = list(ss["fair_groups"])
rounded = bool(ss["fair_rounded"])
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
            assign_key: str, _data, _human, _second_values) -> tuple[dict, dict]:
    frame, info = comparison_frame(_data, compare=compare, groups=groups, human=_human,
                                   second=_second_values, second_name=f"column '{second}'")
    human2 = SECOND if SECOND in frame.columns else None
    # one group column at a time (an unusable column does not hide the others); in the rater
    # comparison the evaluated side is the second rater: RSMTool's consistency tables
    report = agreement_report(frame, human=GOLD, system=SYSTEM, human2=human2, groups=groups, rounded=rounded,
                              raters=compare == "raters", group_errors="report", exclude_zero_scores=False)
    return report, info


@st.cache_data(show_spinner=False, max_entries=32)
def _by_group(data_key: str, column: str, assign_key: str, _data, _human) -> pd.DataFrame:
    fr = _data.frame
    return assignment_by_group(
        _human, fr[column].to_numpy(), machine_label=fr["machine_label"].to_numpy(),
        human_label=fr["human_label"].to_numpy() if "human_label" in fr else None,
        human_effort=fr["human_effort"].to_numpy() if "human_effort" in fr else None,
    )


assign_key = params.label + json.dumps(ss["constraints"], sort_keys=True, default=str)
if compare == "collaborative" and human_mask is None:
    show_error(assignment_error, context="Collaborative result unavailable")
    st.stop()
try:
    report, info = _report(ss["data_key"], compare, tuple(groups), second_source, rounded,
                           assign_key if compare == "collaborative" else "", data,
                           human_mask, second_values)
except Exception as exc:  # a DataError names the problem; anything else is shown, not raised
    show_error(exc)
    st.stop()

# ----------------------------------------------------------------------------- notes
what = {"machine": "the machine evaluator's labels", "collaborative": f"the collaborative labels at {params.label}",
        "raters": f"the second rater (`{second_source}`)"}[compare]
ref = "the first human rater (gold labels)" if compare == "raters" else "the gold labels"
st.markdown(f"**Evaluated:** {what} · **reference:** {ref} · **N = {info['n_rows']:,}**"
            + (f" (the {info['n_dropped']:,} samples without a second rating are left out)"
               if info["n_dropped"] else ""))
if info["mapping"]:
    st.caption("Text labels are coded in their sorted order for the numeric statistics: "
               + ", ".join(f"`{k}` = {v}" for k, v in info["mapping"].items())
               + ". Signs of SMD, DSM and the error regressions refer to these codes.")
if info["binary"]:
    with st.expander("Binary labels: which statistics are meaningful", expanded=False):
        st.markdown(
            "- **exact_agr** is the accuracy (%); **kappa** is Cohen's chance-corrected "
            "agreement and **wtkappa** equals it for two classes.\n"
            "- **corr** is the phi coefficient; **SMD** and **DSM** compare how often each side "
            "gives the higher label, in standard-deviation units.\n"
            "- **RMSE** is the square root of the error rate; **adj_agr** is always 100 % and "
            "**R2** has little meaning for two classes. The true-score statistics (PRMSE) assume "
            "a continuous true score and are of limited use.\n"
            "- Fairness: **osa** models the error rate by group, **osd** the direction of errors "
            "(more false positives or more false negatives) by group, **csd** the same within "
            "each gold class."
        )

# ----------------------------------------------------------------------------- whole set
st.subheader("Whole evaluation set")
st.dataframe(pd.DataFrame([report["eval"]], columns=list(EVAL_COLUMNS)), hide_index=True)
st.caption("h_* describe the reference, sys_* the evaluated side; NaN means undefined (e.g. a "
           "constant side). Columns follow RSMTool's eval table (SMD with the reference's sd).")

st.subheader("Human-human agreement")
if "consistency" not in report:
    st.info("No second human rating: human-human agreement and PRMSE are unavailable"
            + (" (pick a second-rater column above)." if not role_second else "."))
elif report["consistency"] is None:
    st.info(f"No sample has both ratings (`{second_source}` is empty).")
else:
    st.caption(f"First rater (gold) vs the second rater `{second_source}` on the N₂ double-scored "
               "samples; SMD with the pooled sd (RSMTool's consistency table).")
    st.dataframe(pd.DataFrame([report["consistency"]], columns=list(CONSISTENCY_COLUMNS)), hide_index=True)
if "true_score" in report and "consistency" in report:
    ts = report["true_score"]
    st.markdown("**True-score evaluation** (PRMSE of the evaluated side)")
    st.dataframe(pd.DataFrame([ts]), hide_index=True)
    if ts["prmse_true"] is None:
        st.caption("Missing: no sample is double-scored, so the rater error variance is unknown.")

# ----------------------------------------------------------------------------- by subgroup
SIG_LEVEL = 0.05
for col in groups:
    st.divider()
    st.subheader(f"By `{col}`")
    if f"error_by_{col}" in report:
        st.error(report[f"error_by_{col}"])
        continue
    rows = report[f"eval_by_{col}"]
    dsm = {k: v["DSM"] for k, v in rows.items()}
    flags = dsm_flags(dsm)
    st.plotly_chart(dsm_figure(dsm, counts={k: v["N"] for k, v in rows.items()},
                               title=f"DSM by {col} (band ±{DSM_BAND:g})"), width="stretch",
                    key=f"dsm_{col}")
    flagged = [str(k) for k, v in flags.items() if v == "flag"]
    missing = [str(k) for k, v in flags.items() if v in ("missing", "nan")]
    if flagged:
        st.warning(f"|DSM| > {DSM_BAND:g} for: {', '.join(flagged)}.")
    else:
        st.success(f"Every subgroup with a DSM is within ±{DSM_BAND:g}.")
    if missing:
        st.caption(f"DSM missing for {', '.join(missing)}: a population sd is (close to) 0 or undefined.")

    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(EVAL_BY_GROUP_COLUMNS))
    table.index = table.index.map(str)
    table.insert(0, "flag", [{"flag": "⚑ |DSM| > 0.1", "ok": "", "missing": "DSM missing", "nan": "DSM NaN"}[flags[k]]
                             for k in rows])
    st.dataframe(table, width="stretch")

    fair = report[f"fairness_by_{col}"]
    st.markdown(f"**Fairness analyses** (OLS; reference group `{fair['base_category']}`, the largest)")
    summary = pd.DataFrame([
        {"analysis": ANALYSES[a], "R2 (adjusted)": fair[a]["R2"], "p-value": fair[a]["sig"],
         f"significant at {SIG_LEVEL}": (None if math.isnan(fair[a]["sig"]) else fair[a]["sig"] < SIG_LEVEL),
         "note": fair[a]["note"] or ""}
        for a in ANALYSES
    ])
    st.dataframe(summary, hide_index=True, width="stretch")
    st.caption("osa: squared error ~ group; osd: error (evaluated − reference) ~ group; csd: error ~ "
               "group + reference score as a category, against error ~ reference score (R2 is the "
               "difference of adjusted R2s, the p-value the nested F-test).")
    with st.expander("Coefficients (estimate, p-value, 95 % interval)"):
        for a in ANALYSES:
            st.markdown(f"*{ANALYSES[a]}*")
            st.dataframe(estimates_frame(fair, a), width="stretch")

    if f"consistency_by_{col}" in report:
        st.markdown("**Human-human agreement by subgroup**")
        cons_rows = {str(k): (v or {"N": 0}) for k, v in report[f"consistency_by_{col}"].items()}
        st.dataframe(pd.DataFrame.from_dict(cons_rows, orient="index", columns=list(CONSISTENCY_COLUMNS)),
                     width="stretch")

    st.markdown(f"**Collaborative result by `{col}`** at {params.label}")
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
            st.dataframe(shown.astype({c: float for c in ("time_cost", "accuracy", "f1", "machine_accuracy")
                                       if shown[c].notna().any()}), width="stretch")
            hr = rates["human_ratio"].astype(float)
            st.caption(f"Human ratio ranges from {fmt(hr.min(), 3)} to {fmt(hr.max(), 3)} across "
                       f"groups (overall {fmt(overall['human_ratio'], 3)}): the assignment "
                       "follows the machine's confidence and the predicted effort, so groups where "
                       "the machine is less confident go to humans more often.")

st.divider()
st.download_button("Download this report (JSON, the format of `hmceval agreement`)", dumps(report),
                   file_name=f"agreement_{compare}.json", mime="application/json")
