"""The Fairness page's tables and its section for one subgroup column (the page stays thin).

The column meanings and RSMTool's names of every table (tooltips), a table with its CSV download,
and everything the page shows for one group column: the standardised gaps (DSM) with their flags,
the agreement, errors and distributions, RSMTool's fairness analyses, the human-human agreement
and the collaborative result by group.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.errors import DataError
from core.figures.fairness import DSM_BAND, dsm_figure, dsm_flags, group_rates_figure
from core.format import pct, setting_number
from core.rsm import (ANALYSES, COLUMN_DESCRIPTIONS, PERCENT_COLUMNS, TRUE_SCORE_RSMTOOL_NAMES,
                      estimates_frame, subgroup_rows)
from pages._common import code, md, show_error

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


SIG_LEVEL = 0.05


def show_by_subgroup(col: str, report: dict, *, label: str, human_mask,
                     assignment_error: Exception | None,
                     rates_by_group: Callable[[str], pd.DataFrame]) -> None:
    """Everything the page shows for the group column ``col`` of the agreement ``report``;
    ``rates_by_group(col)``: the collaborative result by group at the setting ``label``."""
    st.divider()
    st.subheader(f"By {code(col)}")
    if f"error_by_{col}" in report:
        st.error(md(report[f"error_by_{col}"]))
        return
    rows = subgroup_rows(report[f"eval_by_{col}"])  # the groups, without rsmeval's "All data" row
    if report.get("ordered") is False:
        # unordered labels: no DSM, no flag (the gaps of a scale mean nothing here)
        st.info(md(report.get("nominal_note", "The labels are not a scale: DSM is not "
                                              "computed.")))
        show_table(rows_frame(rows, ("N", "exact_agr", "kappa"), col), f"the agreement by {col}",
                   f"eval_by_{col}")
        return
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

    st.markdown(f"**Collaborative result by {code(col)}** at {label}")
    if human_mask is None:
        show_error(assignment_error, context="Assignment unavailable")
    else:
        try:
            rates = rates_by_group(col)
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
