"""Plotly figures of an evaluation round: the forest plot of estimates and the validity panel."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

__all__ = ["forest_rows", "forest_figure", "coverage_figure", "progress_figure"]


def forest_rows(result: dict[str, Any], label: str) -> pd.DataFrame:
    """The rows of a forest plot: overall, then every group value, for one class.

    Parameters
    ----------
    result : dict
        An :func:`core.evaluation.estimate.estimate` object.
    label : str
        The class key (as in ``result["class_shares"]``).

    Returns
    -------
    pandas.DataFrame
        ``group`` (display name), ``rows``, ``estimate``, ``ci_low``, ``ci_high``,
        ``machine_only``; rows without an interval have NaN bounds.
    """
    rows = []

    def add(name: str, res: dict[str, Any]) -> None:
        s = res["class_shares"].get(label)
        if s is None:
            return
        rows.append({"group": name, "rows": res["M"], "estimate": s["estimate"],
                     "ci_low": s["ci_low"], "ci_high": s["ci_high"],
                     "machine_only": s["machine_only"]})

    add("All rows", result)
    for col, values in (result.get("by_group") or {}).items():
        for value, res in values.items():
            add(f"{col} = {value}", res)
    return pd.DataFrame(rows, columns=["group", "rows", "estimate", "ci_low", "ci_high",
                                       "machine_only"]).astype(
        {"estimate": float, "ci_low": float, "ci_high": float, "machine_only": float})


def forest_figure(rows: pd.DataFrame, *, label: str, confidence: float = 0.95) -> go.Figure:
    """Estimates with their intervals (one line per group), and the machine-only share.

    Parameters
    ----------
    rows : DataFrame from :func:`forest_rows`
    label : str
        The class, for the title.
    confidence : float

    Returns
    -------
    plotly.graph_objects.Figure
    """
    names = [f"{g} (n={n:,})" for g, n in zip(rows["group"], rows["rows"])]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=rows["estimate"], y=names, mode="markers", name=f"estimate ({confidence:.0%} interval)",
        marker={"color": "#1f77b4", "size": 9, "symbol": "diamond"},
        error_x={"type": "data", "symmetric": False,
                 "array": (rows["ci_high"] - rows["estimate"]).fillna(0),
                 "arrayminus": (rows["estimate"] - rows["ci_low"]).fillna(0),
                 "color": "#1f77b4", "thickness": 2}))
    fig.add_trace(go.Scatter(x=rows["machine_only"], y=names, mode="markers",
                             name="machine labels only", marker={"color": "#999999", "size": 7,
                                                                 "symbol": "circle-open"}))
    fig.update_layout(title=f"Share of '{label}' among the true labels",
                      xaxis_title="share", xaxis_tickformat=".0%",
                      yaxis={"autorange": "reversed"},
                      height=max(260, 60 + 28 * len(rows)),
                      legend={"orientation": "h", "y": -0.2}, margin={"t": 50, "l": 10, "r": 10})
    return fig


def coverage_figure(table: pd.DataFrame, *, nominal: float = 0.95) -> go.Figure:
    """Coverage of each interval over simulated rounds, against the nominal level.

    Parameters
    ----------
    table : DataFrame
        ``quantity``, ``coverage``, and optionally ``plain_coverage`` (the unsmoothed normal
        interval, for comparison).
    nominal : float
    """
    fig = go.Figure()
    fig.add_trace(go.Bar(x=table["quantity"], y=table["coverage"], name="our interval",
                         marker_color="#1f77b4", text=[f"{v:.1%}" for v in table["coverage"]],
                         textposition="outside"))
    if "plain_coverage" in table:
        fig.add_trace(go.Bar(x=table["quantity"], y=table["plain_coverage"],
                             name="plain normal interval (for comparison)",
                             marker_color="#cccccc",
                             text=[f"{v:.1%}" if pd.notna(v) else "" for v in table["plain_coverage"]],
                             textposition="outside"))
    fig.add_hline(y=nominal, line={"dash": "dash", "color": "#d62728"},
                  annotation_text=f"nominal {nominal:.0%}", annotation_position="bottom right")
    fig.update_layout(title="Coverage of the intervals over simulated rounds",
                      yaxis={"range": [0, 1.08], "tickformat": ".0%", "title": "coverage"},
                      barmode="group", legend={"orientation": "h", "y": -0.2},
                      margin={"t": 50, "l": 10, "r": 10})
    return fig


def progress_figure(progress: dict[str, Any]) -> go.Figure:
    """Labelled against still-to-label rows, per selection (calibration, routed, audit)."""
    kinds = [k for k in ("calibration", "routed", "audit") if progress[k]["rows"]]
    done = [progress[k]["labelled"] for k in kinds]
    left = [progress[k]["rows"] - progress[k]["labelled"] for k in kinds]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=kinds, x=done, orientation="h", name="labelled",
                         marker_color="#2ca02c"))
    fig.add_trace(go.Bar(y=kinds, x=left, orientation="h", name="to label",
                         marker_color="#dddddd"))
    fig.update_layout(barmode="stack", height=80 + 40 * len(kinds), xaxis_title="rows",
                      legend={"orientation": "h", "y": -0.4}, margin={"t": 10, "l": 10, "r": 10})
    return fig
