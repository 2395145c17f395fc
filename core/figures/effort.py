"""Plotly figures of the Effort page: predicted vs real time, correlations, importances.

Every figure starts from :func:`_new`, with :data:`core.figures.tradeoff.TEMPLATE` (the small
"plotly_white" built once, as every page's figures): plotly's default template, copied into
each new figure, cost tens of milliseconds per figure and rerun.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from core.errors import DataError
from core.figures.tradeoff import TEMPLATE

__all__ = ["predicted_vs_real_figure", "correlation_figure", "importance_figure",
           "metrics_figure"]


def _new() -> go.Figure:
    """An empty figure with the small white template (see the module docstring)."""
    return go.Figure(layout={"template": TEMPLATE})


def _colors(n: int) -> list[str]:
    pal = qualitative.Plotly + qualitative.D3
    return [pal[i % len(pal)] for i in range(n)]


def predicted_vs_real_figure(
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    unit: str = "normalised time",
    max_points: int = 5000,
    seed: int = 0,
) -> go.Figure:
    """Scatter of predicted against real time, one trace per feature set, with the y = x line.

    Parameters
    ----------
    series : mapping
        Feature-set name -> ``(real, predicted)`` arrays of equal length (n_dialogues,). Pairs
        with a NaN prediction (training rows of a split) are left out.
    unit : str
        Axis unit.
    max_points : int, default=5000
        Larger traces are drawn from a seeded random subsample of that many points (the title
        says so).
    seed : int, default=0

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = _new()
    lo, hi = math.inf, -math.inf
    sampled = False
    for (name, (real, pred)), color in zip(series.items(), _colors(len(series))):
        r = np.asarray(real, dtype=float)
        p = np.asarray(pred, dtype=float)
        if r.shape != p.shape:
            raise DataError(f"feature set {name}: real and predicted differ in length")
        ok = np.isfinite(r) & np.isfinite(p)
        r, p = r[ok], p[ok]
        if len(r) > max_points:
            idx = np.sort(np.random.default_rng(seed).choice(len(r), max_points, replace=False))
            r, p = r[idx], p[idx]
            sampled = True
        if len(r):
            lo, hi = min(lo, r.min(), p.min()), max(hi, r.max(), p.max())
        fig.add_trace(go.Scattergl(x=r, y=p, mode="markers", name=str(name),
                                   marker=dict(size=5, opacity=0.45, color=color)))
    if math.isfinite(lo):
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="y = x",
                                 line=dict(color="#555", dash="dash", width=1)))
    title = "Predicted vs real annotation time (held-out predictions)"
    if sampled:
        title += f" — {max_points:,} random points per set shown"
    fig.update_layout(title=title, xaxis_title=f"real ({unit})", yaxis_title=f"predicted ({unit})",
                      legend_title="features", margin=dict(t=60, l=10, r=10, b=10))
    return fig


def correlation_figure(correlations: pd.DataFrame) -> go.Figure:
    """Horizontal bars of the Pearson and Spearman correlation of each feature with the time.

    Parameters
    ----------
    correlations : pandas.DataFrame
        Output of :func:`core.hee.feature_correlations` (``label``, ``pearson``,
        ``pearson_mark``, ``spearman``, ``spearman_mark``).

    Returns
    -------
    plotly.graph_objects.Figure
        Bars annotated with the coefficient and its significance mark (``**`` p < 0.001,
        ``*`` p < 0.05); undefined coefficients (NaN) are drawn as empty bars labelled "undefined".
    """
    need = {"label", "pearson", "pearson_mark", "spearman", "spearman_mark"}
    missing = need - set(correlations.columns)
    if missing:
        raise DataError(f"correlation table lacks column(s) {sorted(missing)}")
    fig = _new()
    labels = correlations["label"].astype(str).tolist()[::-1]
    for kind, color in (("pearson", "#4c78a8"), ("spearman", "#f58518")):
        vals = correlations[kind].to_numpy(dtype=float)[::-1]
        marks = correlations[f"{kind}_mark"].astype(str).tolist()[::-1]
        text = ["undefined" if not np.isfinite(v) else f"{v:.3f}{m}" for v, m in zip(vals, marks)]
        fig.add_trace(go.Bar(y=labels, x=np.where(np.isfinite(vals), vals, 0.0), orientation="h",
                             name=kind.capitalize(), marker_color=color, text=text,
                             textposition="outside"))
    fig.update_layout(barmode="group", title="Correlation with the real time (** p < 0.001, * p < 0.05)",
                      xaxis_title="correlation (coefficient, −1 to 1)", xaxis_range=[-1.1, 1.1],
                      yaxis_title="feature",
                      height=max(320, 42 * len(labels) + 120), margin=dict(t=60, l=10, r=10, b=10))
    return fig


def importance_figure(importances: pd.DataFrame, *, title: str = "Feature importance") -> go.Figure:
    """Bars of the impurity and permutation importances of a fitted effort model.

    Parameters
    ----------
    importances : pandas.DataFrame
        ``EffortResult.importances`` (``label``, ``impurity``, ``permutation``,
        ``permutation_std``). The permutation bars are drawn only when computed (not NaN).

    Returns
    -------
    plotly.graph_objects.Figure
        Features sorted by impurity importance; permutation importance with its standard
        deviation as error bars.
    """
    need = {"label", "impurity", "permutation", "permutation_std"}
    missing = need - set(importances.columns)
    if missing:
        raise DataError(f"importance table lacks column(s) {sorted(missing)}")
    df = importances.sort_values("impurity", ascending=True)
    fig = _new()
    fig.add_trace(go.Bar(y=df["label"].astype(str), x=df["impurity"], orientation="h",
                         name="impurity (mean decrease in squared error)", marker_color="#4c78a8"))
    perm = df["permutation"].to_numpy(dtype=float)
    if np.isfinite(perm).any():
        fig.add_trace(go.Bar(y=df["label"].astype(str), x=perm, orientation="h",
                             name="permutation (drop in R², the time's variation explained, held-out folds)", marker_color="#54a24b",
                             error_x=dict(type="data", array=df["permutation_std"].to_numpy(dtype=float))))
    fig.update_layout(barmode="group", title=title, xaxis_title="importance (fraction; see the legend)",
                      yaxis_title="feature",
                      height=max(320, 40 * len(df) + 120), margin=dict(t=60, l=10, r=10, b=10))
    return fig


def metrics_figure(metrics: Mapping[str, Mapping[str, float]]) -> go.Figure:
    """Grouped bars of MSE, RMSE, MAE and R2 for each feature set.

    Parameters
    ----------
    metrics : mapping
        Feature-set name -> ``{"mse", "rmse", "mae", "r2"}``.
    """
    fig = _new()
    keys = ["mse", "rmse", "mae", "r2"]
    for (name, m), color in zip(metrics.items(), _colors(len(metrics))):
        vals = [float(m.get(k, math.nan)) for k in keys]
        fig.add_trace(go.Bar(x=[k.upper() if k != "r2" else "R²" for k in keys], y=vals,
                             name=str(name), marker_color=color,
                             text=[f"{v:.3f}" if np.isfinite(v) else "undefined" for v in vals],
                             textposition="outside"))
    fig.update_layout(barmode="group", title="Effort model metrics (mean over folds)",
                      margin=dict(t=60, l=10, r=10, b=10))
    return fig
