"""Plotly figures of the reliability/effort trade-off (the paper's Figures 2 and 3) and of a dataset."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = [
    "RELIABILITY_METRICS",
    "EFFORT_METRICS",
    "curves",
    "frontier",
    "label_balance",
    "histogram",
]

RELIABILITY_METRICS = ("precision", "recall", "f1", "accuracy")
EFFORT_METRICS = ("human_ratio", "time_cost", "time_cost_predicted")
_NAMES = {"precision": "Precision (macro)", "recall": "Recall (macro)", "f1": "F1 (macro)",
          "accuracy": "Accuracy", "human_ratio": "Human ratio", "time_cost": "Time cost",
          "time_cost_predicted": "Predicted time cost", "expected_reliability": "Expected reliability",
          "human_share": "N / M", "lambda": "λ"}
_COLORS = {"precision": "#1f77b4", "recall": "#ff7f0e", "f1": "#2ca02c", "accuracy": "#d62728",
           "human_ratio": "#9467bd", "time_cost": "#8c564b", "time_cost_predicted": "#e377c2",
           "expected_reliability": "#17becf"}


def curves(df: pd.DataFrame, *, x: str, metrics: Sequence[str], current: float | None = None,
           title: str = "", y_title: str = "") -> go.Figure:
    """Metric curves against ``x`` (``"human_share"`` or ``"lambda"``) from a sweep table.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`core.sae.sweep` along one axis of the grid.
    x : str
        Column for the x axis.
    metrics : sequence of str
        Columns to draw; columns that are all NaN (unavailable) are skipped.
    current : float, optional
        x value of the current setting, marked with a vertical line.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    for m in metrics:
        if m not in df or df[m].isna().all():
            continue
        fig.add_trace(go.Scatter(x=df[x], y=df[m], mode="lines", name=_NAMES.get(m, m),
                                 line={"color": _COLORS.get(m), "width": 2}))
    if current is not None:
        fig.add_vline(x=current, line={"dash": "dash", "color": "grey"},
                      annotation_text="current", annotation_position="top")
    fig.update_layout(title=title, xaxis_title=_NAMES.get(x, x), yaxis_title=y_title,
                      legend={"orientation": "h", "y": -0.25}, margin={"t": 50, "b": 10},
                      height=360, template="plotly_white")
    return fig


def frontier(grid: pd.DataFrame, *, current: dict | None = None, machine_only: float | None = None,
             all_human: float = 1.0, y: str = "accuracy", x: str = "time_cost") -> go.Figure:
    """Accuracy against time cost over a sweep grid, its upper frontier and the two corners.

    Parameters
    ----------
    grid : pandas.DataFrame
        A :func:`core.sae.sweep` table.
    current : dict, optional
        The current setting's metrics (needs ``x`` and ``y`` keys).
    machine_only : float, optional
        ``y`` of the machine alone (plotted at x = 0).
    all_human : float, default=1
        ``y`` when humans evaluate everything (plotted at x = 1).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    g = grid.dropna(subset=[x, y])
    if len(g):
        fig.add_trace(go.Scattergl(x=g[x], y=g[y], mode="markers", name="grid points",
                                   marker={"size": 4, "color": g["lambda"], "colorscale": "Viridis",
                                           "showscale": True, "colorbar": {"title": "λ"},
                                           "opacity": 0.6},
                                   customdata=np.c_[g["lambda"], g["human_share"]],
                                   hovertemplate="time cost %{x:.3f}<br>" + y +
                                   " %{y:.4f}<br>λ %{customdata[0]:.2f}, N/M %{customdata[1]:.2f}"
                                   "<extra></extra>"))
        order = g.sort_values([x, y], ascending=[True, False])
        best = np.maximum.accumulate(order[y].to_numpy())
        keep = np.r_[True, best[1:] > best[:-1]]
        fig.add_trace(go.Scatter(x=order[x].to_numpy()[keep], y=best[keep], mode="lines",
                                 line={"shape": "hv", "color": "black"}, name="frontier"))
    if machine_only is not None:
        fig.add_trace(go.Scatter(x=[0], y=[machine_only], mode="markers+text", name="machine only",
                                 text=["machine only"], textposition="top right",
                                 marker={"size": 12, "symbol": "square", "color": "#7f7f7f"}))
    fig.add_trace(go.Scatter(x=[1], y=[all_human], mode="markers+text", name="all human",
                             text=["all human"], textposition="bottom left",
                             marker={"size": 12, "symbol": "diamond", "color": "#2ca02c"}))
    if current is not None and current.get(x) is not None and current.get(y) is not None:
        fig.add_trace(go.Scatter(x=[current[x]], y=[current[y]], mode="markers", name="current",
                                 marker={"size": 16, "symbol": "star", "color": "#d62728"}))
    fig.update_layout(xaxis_title=_NAMES.get(x, x), yaxis_title=_NAMES.get(y, y), height=420,
                      template="plotly_white", legend={"orientation": "h", "y": -0.2},
                      margin={"t": 30, "b": 10})
    return fig


def label_balance(frame: pd.DataFrame, columns: Sequence[str]) -> go.Figure:
    """Grouped bar chart of label counts for each label column present in ``frame``."""
    fig = go.Figure()
    for col in columns:
        if col not in frame:
            continue
        counts = frame[col].dropna().astype(str).value_counts().sort_index()
        fig.add_trace(go.Bar(x=counts.index, y=counts.values, name=col))
    fig.update_layout(barmode="group", xaxis_title="label", yaxis_title="samples", height=300,
                      template="plotly_white", margin={"t": 30, "b": 10})
    return fig


def histogram(values, *, title: str, x_title: str, nbins: int = 40,
              color_by: pd.Series | None = None) -> go.Figure:
    """Histogram of ``values``, optionally split by a grouping series (overlaid)."""
    fig = go.Figure()
    values = pd.Series(np.asarray(values))
    if color_by is None:
        fig.add_trace(go.Histogram(x=values, nbinsx=nbins, name=x_title))
    else:
        for key, part in values.groupby(np.asarray(color_by)):
            fig.add_trace(go.Histogram(x=part, nbinsx=nbins, name=str(key), opacity=0.65))
        fig.update_layout(barmode="overlay")
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title="samples", height=300,
                      template="plotly_white", margin={"t": 40, "b": 10})
    return fig
