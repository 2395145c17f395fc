"""Plotly figures comparing confidence estimators (the Confidence page, paper Table 3 / Figure 4)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.figures.tradeoff import TEMPLATE, zoomed_range
from core.format import setting_number

__all__ = ["roc_figure", "risk_coverage_figure", "reliability_figure", "sae_estimators_figure", "color_of",
           "title"]

_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
#: ``TEMPLATE`` is the small "plotly_white" of :mod:`core.figures.tradeoff` (the registered one
#: by name costs tens of milliseconds per figure and rerun).
_LAYOUT = {"template": TEMPLATE, "height": 400, "margin": {"t": 75, "b": 10},
           "legend": {"orientation": "h", "y": -0.25}}


def title(main: str, sub: str = "") -> dict:
    """A title that fits a half-width chart: a short first line and a smaller second line.

    Keep ``main`` within about 40 characters and ``sub`` within about 60 (the Confidence page
    draws two charts side by side).
    """
    text = main if not sub else f"{main}<br><sup>{sub}</sup>"
    return {"text": text, "x": 0.0, "xanchor": "left"}


def color_of(i: int) -> str:
    """Colour of the i-th estimator (shared by every figure of the page)."""
    return _PALETTE[i % len(_PALETTE)]


def _thin(df: pd.DataFrame, max_points: int) -> pd.DataFrame:
    """At most ``max_points`` evenly spaced rows, the first and last always kept."""
    if len(df) <= max_points:
        return df
    idx = np.unique(np.r_[np.linspace(0, len(df) - 1, max_points).round().astype(int), len(df) - 1])
    return df.iloc[idx]


def roc_figure(curves: Mapping[str, pd.DataFrame], *, aucs: Mapping[str, float] | None = None,
               max_points: int = 2000) -> go.Figure:
    """ROC curves of confidences as predictors of "the machine label is correct".

    Parameters
    ----------
    curves : mapping name -> DataFrame with ``fpr``, ``tpr`` (:func:`core.mce.metrics.confidence_roc_curve`)
    aucs : mapping name -> float, optional
        Shown in the legend.
    max_points : int, default=2000
        Longer curves are thinned for drawing.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    for i, (name, df) in enumerate(curves.items()):
        d = _thin(df, max_points)
        label = name if not aucs or aucs.get(name) is None else f"{name} (AUC {aucs[name]:.4f})"
        fig.add_trace(go.Scatter(x=d["fpr"], y=d["tpr"], mode="lines", name=label,
                                 line={"color": color_of(i), "width": 2}))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                             line={"dash": "dot", "color": "grey"}))
    fig.update_layout(title=title("ROC curve (AUC: area under it)", "confidence telling right from wrong labels"),
                      xaxis_title="false positive rate (wrong labels kept)",
                      yaxis_title="true positive rate (correct labels kept)", **_LAYOUT)
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    return fig


def risk_coverage_figure(curves: Mapping[str, pd.DataFrame], *, aurcs: Mapping[str, float] | None = None,
                         top: float | None = None, max_points: int = 2000) -> go.Figure:
    """Risk (machine error rate) against coverage when the machine keeps its most confident samples.

    Parameters
    ----------
    curves : mapping name -> DataFrame with ``coverage``, ``risk`` (:func:`core.mce.metrics.risk_coverage_curve`)
    aurcs : mapping name -> float, optional
        Shown in the legend.
    top : float, optional
        Coverage marked with a vertical line (the top-k accuracy's fraction).
    max_points : int, default=2000

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    for i, (name, df) in enumerate(curves.items()):
        d = _thin(df, max_points)
        label = name if not aurcs or aurcs.get(name) is None else f"{name} (AURC {aurcs[name]:.4f})"
        fig.add_trace(go.Scatter(x=d["coverage"], y=d["risk"], mode="lines", name=label,
                                 line={"color": color_of(i), "width": 2}))
    if top is not None:
        fig.add_vline(x=top, line={"dash": "dash", "color": "grey"}, annotation_text=f"top {top:.0%}",
                      annotation_position="top")
    fig.update_layout(title=title("Risk-coverage (AURC: area under it)", "error rate on the most confident samples"),
                      xaxis_title="coverage (share kept, most confident first)",
                      yaxis_title="risk (error rate)", **_LAYOUT)
    fig.update_xaxes(range=[0, 1])
    return fig


def reliability_figure(bins: Mapping[str, pd.DataFrame]) -> go.Figure:
    """Reliability diagram: accuracy of the machine against mean confidence per bin.

    Parameters
    ----------
    bins : mapping name -> DataFrame of :func:`core.mce.metrics.reliability_bins`
        Empty bins are skipped; a marker's area grows with the bin's sample count (said in the
        legend and the subtitle).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect calibration",
                             line={"dash": "dot", "color": "grey"}))
    total = max((int(b["count"].sum()) for b in bins.values()), default=1) or 1
    for i, (name, b) in enumerate(bins.items()):
        d = b[b["count"] > 0]
        size = 6 + 30 * np.sqrt(d["count"].to_numpy() / total)
        fig.add_trace(go.Scatter(
            x=d["confidence"], y=d["accuracy"], mode="lines+markers", name=name,
            line={"color": color_of(i)}, marker={"size": size, "color": color_of(i)},
            customdata=np.c_[d["lower"], d["upper"], d["count"]],
            hovertemplate="bin (%{customdata[0]:.2f}, %{customdata[1]:.2f}]: %{customdata[2]} samples<br>"
                          "mean confidence %{x:.3f}<br>accuracy %{y:.3f}<extra>" + name + "</extra>"))
    # a legend entry for what the marker size means (no data: drawn in the legend only)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="marker size: samples in the bin",
                             marker={"size": 12, "color": "rgba(0,0,0,0)", "line": {"width": 1, "color": "grey"}},
                             hoverinfo="skip"))
    fig.update_layout(title=title("Reliability diagram", "marker area grows with the samples in the bin"),
                      xaxis_title="mean confidence in the bin (%)",
                      yaxis_title="accuracy of the machine in the bin (%)", **_LAYOUT)
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    return fig


def sae_estimators_figure(points: pd.DataFrame, curves: pd.DataFrame | None = None, *,
                          x: str = "time_cost", y: str = "accuracy",
                          machine_only: float | None = None) -> go.Figure:
    """Accuracy against time cost of the SAE with each estimator as confidence (paper Figure 4).

    Parameters
    ----------
    points : DataFrame
        One row per estimator at the current N and lambda (``confidence``, ``x``, ``y``, ``lambda``),
        from :func:`core.mce.compare.sae_by_estimator`.
    curves : DataFrame, optional
        Sweep rows over lambda at the same N, with a ``confidence`` column; drawn as lines.
    x : str, default="time_cost"
        ``"time_cost"`` (ground-truth effort) or ``"time_cost_predicted"``.
    y : str, default="accuracy"
    machine_only : float, optional
        ``y`` of the machine alone, drawn as a horizontal reference.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    names = list(points["confidence"])
    for i, name in enumerate(names):
        if curves is not None and len(curves):
            c = curves[curves["confidence"] == name].dropna(subset=[x, y]).sort_values("lambda")
            if len(c):
                fig.add_trace(go.Scatter(
                    x=c[x], y=c[y], mode="lines", name=f"{name} (λ sweep)", line={"color": color_of(i), "width": 1.5},
                    customdata=c[["lambda"]].to_numpy(), legendgroup=name, showlegend=False,
                    hovertemplate=f"{name}<br>λ %{{customdata[0]:.2f}}<br>{x} %{{x:.4f}}<br>{y} %{{y:.4f}}"
                                  "<extra></extra>"))
        p = points[points["confidence"] == name]
        if p[[x, y]].notna().all(axis=None):
            fig.add_trace(go.Scatter(x=p[x], y=p[y], mode="markers", name=name, legendgroup=name,
                                     marker={"size": 14, "color": color_of(i), "symbol": "star",
                                             "line": {"width": 1, "color": "black"}},
                                     hovertemplate=f"{name} at the current λ<br>{x} %{{x:.4f}}<br>{y} %{{y:.4f}}"
                                                   "<extra></extra>"))
    if machine_only is not None:
        fig.add_hline(y=machine_only, line={"dash": "dot", "color": "grey"}, annotation_text="machine only",
                      annotation_position="bottom right")
    x_title = ("share of the human effort, recorded (%)" if x == "time_cost"
               else "share of the human effort, predicted (%)")
    fig.update_layout(title=title("Accuracy against effort, by confidence",
                                  sae_subtitle(curves)),
                      xaxis_title=x_title, yaxis_title=f"{y.capitalize()} (%)", **_LAYOUT)
    ys = [points[y].to_numpy(float)] + ([curves[y].to_numpy(float)] if curves is not None and y in curves else [])
    if machine_only is not None:
        ys.append(np.array([machine_only]))
    rng = zoomed_range(np.concatenate(ys))
    fig.update_yaxes(range=rng, tickformat=".0%" if rng[1] - rng[0] > 0.2 else ".1%")
    fig.update_xaxes(tickformat=".0%")
    return fig


def sae_subtitle(curves: pd.DataFrame | None) -> str:
    """The subtitle of :func:`sae_estimators_figure`: the lambda range its lines actually span
    (the data's, not a fixed one).

    >>> sae_subtitle(pd.DataFrame({"lambda": [0.0, 0.01, 0.04645]}))
    'stars: current · lines: λ from 0 to 0.04645'
    """
    if curves is None or not len(curves) or "lambda" not in curves:
        return "stars: current setting"
    lam = curves["lambda"].to_numpy(float)
    return (f"stars: current · lines: λ from {setting_number(lam.min())} to "
            f"{setting_number(lam.max())}")
