"""Per-turn figures (the paper's Figure 6)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

__all__ = ["turn_figure"]

_NAMES = {"accuracy": "Accuracy", "precision": "Precision (macro)", "recall": "Recall (macro)",
          "f1": "F1 (macro)", "machine_accuracy": "Machine-only accuracy",
          "human_ratio": "Human ratio", "time_cost": "Time cost",
          "mean_confidence": "Mean confidence"}


def turn_figure(table: pd.DataFrame, *, reliability: Sequence[str] = ("accuracy", "f1", "machine_accuracy"),
                effort: Sequence[str] = ("human_ratio", "time_cost")) -> go.Figure:
    """Reliability (with bootstrap 95% bands where available) and effort per turn.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`core.turns.per_turn` output.
    reliability, effort : sequences of column names
        Drawn in the upper and lower panel; all-NaN columns are skipped.

    Returns
    -------
    plotly.graph_objects.Figure
        Small turns (under 5% of the samples) are drawn with hollow markers and named in the
        hover text; the sample count per turn is shown as bars on the lower panel's second axis.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        specs=[[{}], [{"secondary_y": True}]],
                        subplot_titles=("Reliability per turn", "Effort per turn"))
    x = table["turn"].astype(str)
    symbols = ["circle-open" if s else "circle" for s in table.get("small", [False] * len(table))]
    hover = [f"turn {t}: n = {n}{' (under 5% of samples)' if s else ''}"
             for t, n, s in zip(table["turn"], table["n"], table.get("small", [False] * len(table)))]
    for key in reliability:
        if key not in table or table[key].isna().all():
            continue
        err = {}
        if f"{key}_lo" in table and not table[f"{key}_lo"].isna().all():
            err = {"error_y": {"type": "data", "symmetric": False,
                               "array": table[f"{key}_hi"] - table[key],
                               "arrayminus": table[key] - table[f"{key}_lo"]}}
        fig.add_trace(go.Scatter(x=x, y=table[key], mode="lines+markers", name=_NAMES.get(key, key),
                                 marker={"symbol": symbols, "size": 9}, text=hover,
                                 hovertemplate="%{text}<br>%{y:.4f}<extra>" + _NAMES.get(key, key) + "</extra>",
                                 **err), row=1, col=1)
    for key in effort:
        if key not in table or table[key].isna().all():
            continue
        fig.add_trace(go.Scatter(x=x, y=table[key], mode="lines+markers", name=_NAMES.get(key, key),
                                 marker={"symbol": symbols, "size": 9}), row=2, col=1)
    fig.add_trace(go.Bar(x=x, y=table["n"], name="samples", opacity=0.25, marker_color="grey"),
                  row=2, col=1, secondary_y=True)
    fig.update_yaxes(title_text="score", row=1, col=1)
    fig.update_yaxes(title_text="share", row=2, col=1)
    fig.update_yaxes(title_text="samples", row=2, col=1, secondary_y=True, showgrid=False)
    fig.update_xaxes(title_text="turn", row=2, col=1)
    fig.update_layout(height=620, template="plotly_white", legend={"orientation": "h", "y": -0.12},
                      margin={"t": 40, "b": 10})
    return fig
