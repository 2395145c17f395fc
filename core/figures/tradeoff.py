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
           title: str = "", y_title: str = "", x_title: str | None = None,
           log_x: bool = False, percent: bool = True) -> go.Figure:
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
        x value of the current setting, marked with a vertical dashed line (a legend entry).
    x_title : str, optional
        Axis title (default: the column's display name), e.g. with the effort's unit.
    log_x : bool, default=False
        A logarithmic x axis (lambda over several decades); rows with x <= 0 are left out.
    percent : bool, default=True
        Show the y axis (shares and scores in [0, 1]) as percentages.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    if log_x:
        df = df[df[x] > 0]
    for m in metrics:
        if m not in df or df[m].isna().all():
            continue
        fig.add_trace(go.Scatter(x=df[x], y=df[m], mode="lines", name=_NAMES.get(m, m),
                                 line={"color": _COLORS.get(m), "width": 2}))
    if current is not None and (current > 0 or not log_x):
        # a trace rather than a shape: it has a legend entry and works on a log axis
        fig.add_trace(go.Scatter(x=[current, current], y=[0, 1], mode="lines", name="current",
                                 line={"dash": "dash", "color": "grey"}, hoverinfo="skip"))
    fig.update_layout(title=title, xaxis_title=x_title or _NAMES.get(x, x), yaxis_title=y_title,
                      legend={"orientation": "h", "y": -0.3}, margin={"t": 50, "b": 10},
                      height=380, template="plotly_white")
    fig.update_yaxes(range=[-0.02, 1.05])
    if percent:
        fig.update_yaxes(tickformat=".0%")
    if log_x:
        fig.update_xaxes(type="log")
    return fig


def frontier(grid: pd.DataFrame, *, current: dict | None = None, machine_only: float | None = None,
             all_human: float = 1.0, y: str = "accuracy", x: str = "time_cost",
             x_title: str | None = None, log_lambda: bool = False) -> go.Figure:
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
    x_title : str, optional
        Axis title (default: the column's display name), e.g. with the effort's unit.
    log_lambda : bool, default=False
        Colour the points by log10(lambda) (a grid over several decades), labelled in lambda.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    g = grid.dropna(subset=[x, y])
    if len(g):
        colour, bar = g["lambda"], {"title": "λ"}
        lam_pos = g["lambda"][g["lambda"] > 0]
        if log_lambda and len(lam_pos):
            floor = float(lam_pos.min())
            colour = np.log10(np.maximum(g["lambda"].to_numpy(float), floor))
            ticks = 10.0 ** np.arange(np.floor(colour.min()), np.ceil(colour.max()) + 1)
            bar = {"title": "λ", "tickvals": np.log10(ticks).tolist(),
                   "ticktext": [f"{t:g}" for t in ticks]}
        fig.add_trace(go.Scattergl(x=g[x], y=g[y], mode="markers", name="grid points",
                                   marker={"size": 5, "color": colour, "colorscale": "Viridis",
                                           "showscale": True, "colorbar": bar,
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
    fig.update_layout(xaxis_title=x_title or _NAMES.get(x, x), yaxis_title=_NAMES.get(y, y),
                      height=420, template="plotly_white", legend={"orientation": "h", "y": -0.2},
                      margin={"t": 30, "b": 10})
    fig.update_xaxes(tickformat=".0%")
    fig.update_yaxes(tickformat=".0%")
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
