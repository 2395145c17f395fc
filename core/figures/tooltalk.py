"""Plotly figures of the ToolTalk tool-call evaluation (pure functions of the core tables)."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from core.figures.scorekeeping import short_labels

__all__ = ["conversation_figure", "tool_figure", "action_figure", "ACTION_MARK"]

_COLORS = {"precision": "#4C78A8", "recall": "#F58518", "soft_success": "#54A24B",
           "matched": "#54A24B", "missed": "#BAB0AC", "bad": "#E45756", "failed": "#B279A2"}
_UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1.0]
_LEGEND_TOP = dict(orientation="h", y=1.0, x=0, xanchor="left", yanchor="bottom")

#: Appended to an action tool's name on the per-tool axis (the axis title says what it means).
ACTION_MARK = " *"


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
        Horizontal grouped bars, one group per conversation (in table order, top to bottom),
        labelled ``✓``/``✗`` + the name (shortened to about 32 characters, the full name in the
        hover text); a value of 0 is written as "0" so it is not mistaken for a missing bar.
    """
    full = [str(c) for c in table["conversation"]]
    short = short_labels(full, max_len=32)
    names = [f"{'✓' if s else '✗'} {c}" for c, s in zip(short, table["success"])]
    fig = go.Figure()
    for key, label in (("precision", "precision"), ("recall", "recall"), ("soft_success", "soft success")):
        values = [float(v) for v in table[key]]
        fig.add_trace(go.Bar(y=names, x=values, name=label, orientation="h", marker_color=_COLORS[key],
                             text=["0" if v == 0 else "" for v in values], textposition="outside",
                             cliponaxis=False, customdata=full,
                             hovertemplate="%{customdata}<br>" + label + " %{x:.3f}<extra></extra>"))
    fig.update_layout(
        barmode="group", height=max(300, 130 + 48 * len(table)), margin=dict(l=10, r=20, t=90, b=10),
        title={"text": "Scores per conversation", "x": 0, "xanchor": "left"},
        xaxis=dict(range=[0, 1.05], tickvals=_UNIT_TICKS, title="score (0 to 1)"),
        yaxis=dict(autorange="reversed", title="conversation (✓ success, ✗ not)", automargin=True),
        legend=_LEGEND_TOP, template="plotly_white",
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
        Grouped bars per tool (counts of calls on whole-number ticks, with headroom); action
        tools carry :data:`ACTION_MARK` after their name, explained in the axis title.
    """
    labels = [f"{t}{ACTION_MARK}" if a else str(t) for t, a in zip(breakdown["tool"], breakdown["is_action"])]
    missed = breakdown["ground_truths"] - breakdown["matched_ground_truths"]
    fig = go.Figure()
    for y, name, color in ((breakdown["matched_ground_truths"], "ground truth matched", "matched"),
                           (missed, "ground truth missed", "missed"),
                           (breakdown["failed_predictions"], "failed predictions (exception)", "failed"),
                           (breakdown["bad_actions"], "incorrect actions", "bad")):
        fig.add_trace(go.Bar(x=labels, y=y, name=name, marker_color=_COLORS[color],
                             hovertemplate="%{x}<br>" + name + ": %{y}<extra></extra>"))
    top = max([float(v) for col in ("matched_ground_truths", "failed_predictions", "bad_actions")
               for v in breakdown[col]] + [float(v) for v in missed] + [1.0])
    fig.update_layout(
        barmode="group", title={"text": "Calls per tool", "x": 0, "xanchor": "left"},
        yaxis=dict(title="calls (count)", range=[0, top * 1.15], tickformat=",d",
                   dtick=1 if top <= 6 else None, rangemode="tozero"),
        xaxis=dict(title=f"tool ({ACTION_MARK.strip()} = action tool)",
                   tickangle=-45 if len(labels) > 8 else 0, automargin=True),
        height=460, margin=dict(l=10, r=10, t=90, b=10), legend=_LEGEND_TOP, template="plotly_white",
    )
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
        Grouped bars with the value written above; a NaN rate (no call of that kind) is drawn
        as no bar, written "n/a".
    """
    fig = go.Figure()
    for key in ("recall", "precision"):
        values = [float(v) for v in breakdown[key]]
        fig.add_trace(go.Bar(x=breakdown["kind"], y=values, name=key, marker_color=_COLORS[key],
                             text=[("n/a" if math.isnan(v) else f"{v:.2f}") for v in values],
                             textposition="outside", cliponaxis=False))
    fig.update_layout(barmode="group", title={"text": "Action vs non-action tools", "x": 0, "xanchor": "left"},
                      yaxis=dict(range=[0, 1.15], tickvals=_UNIT_TICKS, title="score (0 to 1)"),
                      xaxis=dict(title="kind of tool (n/a: no call of that kind)"),
                      height=360, margin=dict(l=10, r=10, t=90, b=10), legend=_LEGEND_TOP,
                      template="plotly_white")
    return fig
