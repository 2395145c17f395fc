"""The Effort page's results of a fit: metrics, settings, downloads, per-fold metrics, the
correlation of every feature with the real time and the feature importances (the page stays
thin). The figures and downloads are cached per fit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.csv_safe import to_csv_safe
from core.figures.effort import correlation_figure, importance_figure, predicted_vs_real_figure
from core.format import count, prob, pvalue
from core.hee import EffortResult, effort_predictions, effort_settings, feature_correlations
from core.serialize import dumps


@st.cache_data(show_spinner=False, max_entries=16)
def downloads(fit_key: str, _results: dict) -> tuple[bytes, str]:
    # the predictions CSV and the metrics JSON of the fitted models, built once per fit
    return (to_csv_safe(effort_predictions(_results)).encode(),
            dumps({name: r.summary() for name, r in _results.items()}))


@st.cache_data(show_spinner=False, max_entries=16)
def correlations(fit_key: str, _table: pd.DataFrame, cols: tuple, labels: tuple, time_col: str):
    return feature_correlations(_table[list(cols)], _table[time_col].to_numpy(dtype=float),
                                labels=list(labels))


@st.cache_resource(show_spinner=False, max_entries=16)
def figures(fit_key: str, _results: dict, _corr: pd.DataFrame):
    # the scatter and the correlation bars of one fit (a resource: st.plotly_chart only reads)
    scatter = predicted_vs_real_figure({name: (r.predictions["time_norm"], r.predictions["predicted_norm"])
                                        for name, r in _results.items()})
    return scatter, correlation_figure(_corr)


@st.cache_resource(show_spinner=False, max_entries=32)
def importance_fig(fit_key: str, name: str, _result: EffortResult):
    return importance_figure(_result.importances, title=f"Feature importance · {name}")


def show_results(results: dict, table: pd.DataFrame, *, time_col: str, fit_key: str,
                 permutation_off: bool) -> None:
    """Everything the page shows of the fitted models ``results`` (feature set -> result) on
    ``table``; ``fit_key`` keys the cached figures and downloads."""
    st.subheader("Metrics")
    first = next(iter(results.values()))
    mode = (f"{first.params['n_splits']}-fold shuffled cross-validation" if first.mode == "cv"
            else f"train/test split on `{first.params['split_column']}` "
                 f"({count(first.folds['n_train'].iloc[0])} / {count(first.folds['n_test'].iloc[0])})")
    st.caption(f"{mode}; normalised time (min-max over all {count(len(table))} dialogues); mean over folds. "
               "Lower errors (MSE, RMSE, MAE: squared, root-squared and absolute error of the "
               "predicted time) and a higher R² (share of the time's variation explained) are better.",
               help="For comparison, the HMCEval paper (its Table 4, on its own release): dialogue "
                    "features (D) MSE 0.009, RMSE 0.092, MAE 0.061, R² 0.433; with worker features "
                    "(D+W) 0.004, 0.059, 0.033, 0.763.")
    metrics = pd.DataFrame({name: {"MSE": r.metrics["mse"], "RMSE": r.metrics["rmse"],
                                   "MAE": r.metrics["mae"], "R²": r.metrics["r2"]}
                            for name, r in results.items()})
    st.dataframe(metrics, column_config={name: st.column_config.NumberColumn(format="%.3f")
                                          for name in metrics.columns}, placeholder="—")
    # the settings each model was fitted with, read from the results (not from the widgets)
    settings = effort_settings(results)
    st.caption("Settings used: " + " · ".join(
        f"**{name}** {row.features} features, {row.evaluation}, {row.trees} trees, "
        f"{row.max_features} features tried per split, seed {row.seed}"
        for name, row in settings.iterrows()))
    st.dataframe(settings.rename(columns={"max_features": "features per split"}), placeholder="—")
    d1, d2 = st.columns(2)
    slug = "_".join(name.replace("+", "") for name in results)
    fit_key += repr(sorted(results))  # a feature set that failed is not among the results
    predictions_csv, metrics_json = downloads(fit_key, results)
    d1.download_button("Download the predictions (CSV)", predictions_csv,
                       file_name=f"effort_predictions_{slug}.csv", mime="text/csv", key="eff_dl_pred",
                       help="One row per dialogue and feature set: fold, real and predicted time "
                            "(normalised and in the table's unit).")
    d2.download_button("Download the metrics (JSON)", metrics_json,
                       file_name=f"effort_metrics_{slug}.json", mime="application/json", key="eff_dl_metrics",
                       help="Per feature set: the metrics, per-fold metrics, correlations, importances "
                            "and settings (the form of hmceval effort --json).")
    with st.expander("Per-fold metrics"):
        folds = pd.concat([r.folds.assign(features=name) for name, r in results.items()], ignore_index=True)
        folds = folds[["features", "fold", "n_train", "n_test", "mse", "rmse", "mae", "r2"]].rename(columns={
            "features": "feature set", "n_train": "training dialogues", "n_test": "test dialogues",
            "mse": "MSE", "rmse": "RMSE", "mae": "MAE", "r2": "R²"})
        st.dataframe(folds, hide_index=True,
                     column_config={c: st.column_config.NumberColumn(format="%.3f")
                                    for c in ("MSE", "RMSE", "MAE", "R²")}, placeholder="—")


    all_cols: list[str] = []
    labels: list[str] = []
    for r in results.values():
        for c, lab in zip(r.features, r.labels):
            if c not in all_cols:
                all_cols.append(c)
                labels.append(lab)
    corr = correlations(fit_key, table, tuple(all_cols), tuple(labels), time_col)
    scatter_fig, corr_fig = figures(fit_key, results, corr)
    st.plotly_chart(scatter_fig, key="eff_scatter")

    st.subheader("Correlation with the real time")
    shown = pd.DataFrame({
        "feature": corr["label"],
        "column": corr["feature"],
        "Pearson": [("undefined" if not np.isfinite(v) else f"{prob(v)}") + m
                    for v, m in zip(corr["pearson"], corr["pearson_mark"])],
        "Pearson p": corr["pearson_p"].map(pvalue),
        "Spearman": [("undefined" if not np.isfinite(v) else f"{prob(v)}") + m
                     for v, m in zip(corr["spearman"], corr["spearman_mark"])],
        "Spearman p": corr["spearman_p"].map(pvalue),
    })
    st.caption("** p < 0.001, * p < 0.05 (two-sided). Undefined: a constant feature or time has no "
               "correlation.")
    st.dataframe(shown, hide_index=True, placeholder="—")
    st.plotly_chart(corr_fig, key="eff_corr")

    st.subheader("Feature importance")
    imp_set = st.selectbox("Model", list(results), key="_w_eff_imp_set") if len(results) > 1 else first.feature_set
    res_imp = results.get(imp_set, first)
    st.plotly_chart(importance_fig(fit_key, imp_set, res_imp),
                    key="eff_imp")
    if permutation_off:
        st.caption("Permutation importance is off (Model settings).")
