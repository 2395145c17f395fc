"""Plotly figures of the ToolTalk tool-call evaluation (pure functions of the core tables)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

__all__ = ["conversation_figure", "tool_figure", "action_figure"]

_COLORS = {"precision": "#4C78A8", "recall": "#F58518", "soft_success": "#54A24B",
           "matched": "#54A24B", "missed": "#BAB0AC", "bad": "#E45756", "failed": "#B279A2"}


def conversation_figure(table: pd.DataFrame) -> go.Figure:
    """Precision, recall and soft success per conversation; successes marked with a check.

    Parameters
    ----------
    table : DataFrame
        :func:`core.tooltalk.conversation_table` output (columns ``conversation``,
        ``precision``, ``recall``, ``soft_success``, ``success``).

    Returns
    -------
    plotly.graph_objects.Figure
        Horizontal grouped bars, one group per conversation (in table order, top to bottom).
    """
    names = [f"{'✓' if s else '✗'} {c}" for c, s in zip(table["conversation"], table["success"])]
    fig = go.Figure()
    for key, label in (("precision", "precision"), ("recall", "recall"), ("soft_success", "soft success")):
        fig.add_trace(go.Bar(y=names, x=table[key], name=label, orientation="h", marker_color=_COLORS[key],
                             hovertemplate="%{y}<br>" + label + " %{x:.3f}<extra></extra>"))
    fig.update_layout(
        barmode="group", height=max(260, 70 + 48 * len(table)), margin=dict(l=10, r=10, t=40, b=10),
        title="Per conversation (✓ = success: recall 1 and no incorrect action)",
        xaxis=dict(range=[0, 1.02], title="value"), yaxis=dict(autorange="reversed"),
        legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom"),
    )
    return fig


def tool_figure(breakdown: pd.DataFrame) -> go.Figure:
    """Per tool: ground-truth calls matched and missed, failed predictions, incorrect actions.

    Parameters
    ----------
    breakdown : DataFrame
        :func:`core.tooltalk.tool_breakdown` output.

    Returns
    -------
    plotly.graph_objects.Figure
        Grouped bars per tool; action tools are labelled "(action)".
    """
    labels = [f"{t} (action)" if a else t for t, a in zip(breakdown["tool"], breakdown["is_action"])]
    missed = breakdown["ground_truths"] - breakdown["matched_ground_truths"]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=breakdown["matched_ground_truths"], name="ground truth matched",
                         marker_color=_COLORS["matched"]))
    fig.add_trace(go.Bar(x=labels, y=missed, name="ground truth missed", marker_color=_COLORS["missed"]))
    fig.add_trace(go.Bar(x=labels, y=breakdown["failed_predictions"], name="failed predictions (exception)",
                         marker_color=_COLORS["failed"]))
    fig.add_trace(go.Bar(x=labels, y=breakdown["bad_actions"], name="incorrect actions",
                         marker_color=_COLORS["bad"]))
    fig.update_layout(barmode="group", title="Per tool", yaxis_title="calls", height=420,
                      margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom"))
    return fig


def action_figure(breakdown: pd.DataFrame) -> go.Figure:
    """Recall and precision of action vs non-action tools.

    Parameters
    ----------
    breakdown : DataFrame
        :func:`core.tooltalk.action_breakdown` output (rows ``action``, ``non-action``).

    Returns
    -------
    plotly.graph_objects.Figure
        Grouped bars; a NaN rate (no call of that kind) is drawn as no bar.
    """
    fig = go.Figure()
    for key in ("recall", "precision"):
        fig.add_trace(go.Bar(x=breakdown["kind"], y=breakdown[key], name=key, marker_color=_COLORS[key],
                             text=[("n/a" if pd.isna(v) else f"{v:.2f}") for v in breakdown[key]],
                             textposition="outside"))
    fig.update_layout(barmode="group", title="Action vs non-action tools", yaxis=dict(range=[0, 1.15]),
                      height=340, margin=dict(l=10, r=10, t=40, b=10))
    return fig
