"""Plotly figures for scorekeeping (clembench privateshared) episodes."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from core.errors import DataError

__all__ = ["accuracy_curves_figure", "main_score_figure"]

_CURVE_COLUMNS = {"episode", "model", "slots", "round", "accuracy", "middle", "aborted"}


def _palette(keys: list[str]) -> dict[str, str]:
    colors = qualitative.Plotly + qualitative.D3
    return {k: colors[i % len(colors)] for i, k in enumerate(keys)}


def accuracy_curves_figure(curves: pd.DataFrame, *, show_mean: bool = True) -> go.Figure:
    """Per-round probing accuracy of every episode, with the middle round marked.

    Parameters
    ----------
    curves : pandas.DataFrame, shape (n_points, 7)
        Output of :func:`core.clembench.accuracy_curves` (columns ``episode``, ``model``,
        ``slots``, ``round``, ``accuracy``, ``middle``, ``aborted``).
    show_mean : bool, default=True
        Add, per number of slots, the mean accuracy of each round over the episodes that reached
        it (bold line).

    Returns
    -------
    plotly.graph_objects.Figure
        One thin line per episode (colour = model, dashed when the episode was aborted), a
        diamond on each episode's middle round, and a dotted vertical line at every middle round
        ("middle round (n slots)").
    """
    missing = _CURVE_COLUMNS - set(curves.columns)
    if missing:
        raise DataError(f"accuracy curves lack column(s) {sorted(missing)}")
    fig = go.Figure()
    models = sorted(curves["model"].astype(str).unique().tolist())
    colors = _palette(models)
    shown: set[str] = set()
    for episode, df in curves.groupby("episode", sort=False):
        df = df.sort_values("round")
        model = str(df["model"].iloc[0])
        aborted = bool(df["aborted"].iloc[0])
        fig.add_trace(go.Scatter(
            x=df["round"], y=df["accuracy"], mode="lines+markers",
            name=model, legendgroup=model, showlegend=model not in shown,
            line={"color": colors[model], "width": 1.2, "dash": "dash" if aborted else "solid"},
            marker={"size": 5}, opacity=0.65,
            hovertemplate=(f"{episode}{' (aborted)' if aborted else ''}<br>round %{{x}}<br>"
                           "accuracy %{y:.3f}<extra></extra>"),
        ))
        shown.add(model)
        mid = df[df["middle"]]
        if not mid.empty:
            fig.add_trace(go.Scatter(
                x=mid["round"], y=mid["accuracy"], mode="markers", showlegend=False, legendgroup=model,
                marker={"symbol": "diamond", "size": 11, "color": colors[model],
                        "line": {"width": 1, "color": "black"}},
                hovertemplate=f"{episode}<br>middle round %{{x}}<br>accuracy %{{y:.3f}}<extra></extra>",
            ))
    if show_mean and not curves.empty:
        for n_slots, df in curves.groupby("slots"):
            mean = df.groupby("round")["accuracy"].agg(["mean", "count"]).reset_index()
            fig.add_trace(go.Scatter(
                x=mean["round"], y=mean["mean"], mode="lines", name=f"mean ({n_slots} slots)",
                line={"color": "black", "width": 3},
                customdata=mean["count"],
                hovertemplate="round %{x}<br>mean accuracy %{y:.3f}<br>%{customdata} episode(s)<extra></extra>",
            ))
    for n_slots in sorted(curves.loc[curves["middle"], "slots"].unique().tolist()) if not curves.empty else []:
        mid_round = int(curves.loc[curves["middle"] & (curves["slots"] == n_slots), "round"].iloc[0])
        fig.add_vline(x=mid_round, line={"dash": "dot", "color": "grey"},
                      annotation_text=f"middle round ({n_slots} slots)", annotation_position="top")
    fig.update_layout(
        title="Probing accuracy per round",
        xaxis_title="probing round (0 = before the first question)",
        yaxis_title="accuracy of the round's probes",
        yaxis={"range": [-0.05, 1.05]},
        xaxis={"dtick": 1},
        legend_title="answerer model",
        template="plotly_white",
    )
    return fig


def main_score_figure(table: pd.DataFrame) -> go.Figure:
    """Main score per episode; aborted episodes (NaN main score) are drawn as labelled gaps.

    Parameters
    ----------
    table : pandas.DataFrame, shape (n_episodes, n_columns)
        Output of :func:`core.clembench.episode_table` (``episode``, ``model``,
        ``Main Score``, ``Aborted``).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    for col in ("episode", "model", "Main Score", "Aborted"):
        if col not in table.columns:
            raise DataError(f"episode table lacks column '{col}'")
    models = sorted(table["model"].fillna("(unknown)").astype(str).unique().tolist())
    colors = _palette(models)
    fig = go.Figure()
    for model in models:
        df = table[table["model"].fillna("(unknown)").astype(str) == model]
        scores = [float(v) for v in df["Main Score"]]
        fig.add_trace(go.Bar(
            x=df["episode"], y=[0 if math.isnan(v) else v for v in scores], name=model,
            marker={"color": colors[model]},
            text=["aborted" if math.isnan(v) else f"{v:.1f}" for v in scores], textposition="outside",
            hovertemplate="%{x}<br>Main Score %{text}<extra></extra>",
        ))
    fig.update_layout(
        title="Main Score per episode (NaN for aborted episodes)",
        yaxis={"range": [0, 110], "title": "Main Score"},
        xaxis={"title": "episode", "tickangle": -30},
        template="plotly_white",
        legend_title="answerer model",
    )
    return fig
