"""Per-turn figures (the paper's Figure 6)."""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.figures.tradeoff import TEMPLATE, zoomed_range

__all__ = ["TITLE", "turn_figure", "nice_ticks", "TURN_NAMES", "TURN_STYLES"]

#: The figure's title.
TITLE = "Reliability and effort per dialogue turn"

#: Legend names of the per-turn columns (units in the axis titles).
TURN_NAMES = {"accuracy": "Accuracy", "precision": "Precision (macro)", "recall": "Recall (macro)",
              "f1": "F1 (macro)", "machine_accuracy": "Machine-only accuracy",
              "human_ratio": "Samples sent to humans", "time_cost": "Human effort (time cost)",
              "mean_confidence": "Mean confidence"}

#: Colour (Okabe-Ito, readable with colour blindness), line dash and marker of every column: no
#: two lines of one panel share a colour, a dash or a marker.
TURN_STYLES = {
    "accuracy": ("#0072B2", "solid", "circle"),
    "f1": ("#E69F00", "dash", "square"),
    "machine_accuracy": ("#009E73", "dot", "diamond"),
    "precision": ("#CC79A7", "dashdot", "triangle-up"),
    "recall": ("#56B4E9", "longdash", "triangle-down"),
    "mean_confidence": ("#000000", "longdashdot", "star"),
    "human_ratio": ("#D55E00", "solid", "circle"),
    "time_cost": ("#6A3D9A", "dash", "square"),
}
_FALLBACK = ("#666666", "solid", "circle")
_SMALL = "Hollow marker, hatched bar: turn with under 5% of the samples"


def nice_ticks(vmax: float, *, headroom: float = 0.1, max_intervals: int = 5) -> list[float]:
    """Round tick values from 0 to just above ``vmax * (1 + headroom)``.

    The step is the smallest of 1, 2, 2.5 and 5 times a power of ten that needs at most
    ``max_intervals`` intervals; the last tick is the axis' top, so the tallest bar keeps at least
    ``headroom`` of empty space above it.

    Parameters
    ----------
    vmax : float
        The largest value drawn (>= 0; 0 or NaN gives ticks 0 and 1).
    headroom : float, default=0.1
    max_intervals : int, default=5

    Returns
    -------
    list of float
        Evenly spaced ticks starting at 0 (e.g. ``vmax = 700`` gives 0, 200, ..., 800).
    """
    if not vmax > 0 or not math.isfinite(vmax):
        return [0.0, 1.0]
    target = vmax * (1.0 + headroom)
    power = 10.0 ** math.floor(math.log10(target / max_intervals))
    for mult in (1, 2, 2.5, 5, 10, 20):
        step = mult * power
        k = math.ceil(target / step - 1e-9)
        if k <= max_intervals:
            return [round(i * step, 10) for i in range(k + 1)]
    raise AssertionError("unreachable: step 20 * power always fits")  # pragma: no cover


def _style(key: str) -> tuple[str, str, str]:
    return TURN_STYLES.get(key, _FALLBACK)


def turn_figure(table: pd.DataFrame, *, reliability: Sequence[str] = ("accuracy", "f1", "machine_accuracy"),
                effort: Sequence[str] = ("human_ratio", "time_cost")) -> go.Figure:
    """Reliability (with bootstrap 95% bars where available), effort and sample count per turn.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`core.assignment.turns.per_turn` output.
    reliability, effort : sequences of column names
        Drawn in the upper and middle panel; all-NaN columns are skipped.

    Returns
    -------
    plotly.graph_objects.Figure
        Three panels sharing the turn axis: reliability in % (axis zoomed to the values and
        their intervals, :func:`core.figures.tradeoff.zoomed_range`), human effort
        in % of the turn, and the samples per turn as bars on round ticks with headroom. Every
        line has its own colour, dash and marker; turns with under 5% of the samples have hollow
        markers and hatched bars, with a legend entry saying so.
    """
    small = [bool(s) for s in table.get("small", pd.Series([False] * len(table)))]

    def has_bars(keys) -> bool:
        return any(f"{k}_lo" in table and not table[f"{k}_lo"].isna().all() for k in keys if k in table
                   and not table[k].isna().all())

    bars = " (bars: bootstrap 95% interval)"
    layout = _panels()
    titles = ("Reliability" + (bars if has_bars(reliability) else ""),
              "Human effort" + (bars if has_bars(effort) else ""), "Samples per turn")
    for note, text in zip(layout["annotations"], titles):
        note["text"] = text
    x = table["turn"].astype(str).to_numpy()
    hover = [f"turn {t}: {n} samples{' (under 5% of samples)' if s else ''}"
             for t, n, s in zip(table["turn"], table["n"], small)]
    traces: list[dict] = []

    def line(key: str, row: int) -> bool:
        if key not in table or table[key].isna().all():
            return False
        color, dash, symbol = _style(key)
        name = TURN_NAMES.get(key, key)
        y = table[key].to_numpy(dtype=float)
        trace = {
            "type": "scatter", "x": x, "y": y, "mode": "lines+markers", "name": name, "legendgroup": key,
            # solid lines wider and their markers larger: a dashed line drawn over an equal
            # solid one (accuracy and macro F1 on balanced data) leaves it visible on both sides
            "line": {"color": color, "dash": dash, "width": 4 if dash == "solid" else 2},
            "marker": {"symbol": [f"{symbol}-open" if s else symbol for s in small],
                       "size": 12 if dash == "solid" else 9,
                       "color": color, "line": {"color": color, "width": 1.5}},
            "text": hover, "hovertemplate": "%{text}<br>%{y:.1%}<extra>" + name + "</extra>",
            **_AXES[row],
        }
        if f"{key}_lo" in table and not table[f"{key}_lo"].isna().all():
            trace["error_y"] = {"type": "data", "symmetric": False, "color": color, "thickness": 1.2,
                                "array": table[f"{key}_hi"].to_numpy(dtype=float) - y,
                                "arrayminus": y - table[f"{key}_lo"].to_numpy(dtype=float)}
        traces.append(trace)
        return True

    drawn = [line(key, 1) for key in reliability]
    if not any(drawn):
        layout["annotations"].append({"text": "no gold labels: reliability unavailable", "showarrow": False,
                                      "xref": "x domain", "yref": "y domain", "x": 0.5, "y": 0.5})
    for key in effort:
        line(key, 2)
    traces.append({
        "type": "bar", "x": x, "y": table["n"].to_numpy(), "name": "Samples per turn", "marker": {
            "color": "#999999", "pattern": {"shape": ["/" if s else "" for s in small]}},
        "text": [f"{int(n):,}" for n in table["n"]], "textposition": "outside", "cliponaxis": False,
        "hovertext": hover, "hovertemplate": "%{hovertext}<extra></extra>", **_AXES[3]})
    if any(small):
        traces.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers", "name": _SMALL,
                       "marker": {"symbol": "circle-open", "size": 9, "color": "#333333"},
                       "hoverinfo": "skip", **_AXES[1]})
    percent = {"range": [0, 1.05], "tickvals": [0, 0.2, 0.4, 0.6, 0.8, 1.0], "tickformat": ".0%",
               "rangemode": "tozero"}
    # reliability zoomed to the data and its intervals (scores between 86 and 99 % on 0-100 %
    # read as one flat line, issue 25); effort shares keep 0-100 %
    shown = [table[c].to_numpy(dtype=float) for key in reliability if key in table
             for c in (key, f"{key}_lo", f"{key}_hi") if c in table]
    zoom = zoomed_range(np.concatenate(shown) if shown else [])
    layout["yaxis"].update(title={"text": "% correct"}, range=zoom, rangemode="normal",
                           tickformat=".0%" if zoom[1] - zoom[0] > 0.2 else ".1%")
    layout["yaxis2"].update(title={"text": "% of the turn"}, **percent)
    ticks = nice_ticks(float(table["n"].max()) if len(table) else 0.0)
    layout["yaxis3"].update(title={"text": "number of samples"}, range=[0, ticks[-1]], tickvals=ticks, tickformat=",d")
    layout["xaxis3"].update(type="category", title={"text": "dialogue turn"})
    layout.update(title={"text": TITLE, "x": 0, "xanchor": "left"}, height=760, template=TEMPLATE,
                  legend={"orientation": "h", "y": -0.1, "x": 0},
                  margin={"t": 70, "b": 10, "l": 60, "r": 20}, bargap=0.3)
    # one unvalidated constructor call (the project's figure pattern, see core.figures.data):
    # plotly's per-property validation cost three times the per-turn statistics at 10^5 rows
    return go.Figure(data=traces, layout=layout, _validate=False)


#: Axes of each panel's traces.
_AXES = {1: {"xaxis": "x", "yaxis": "y"}, 2: {"xaxis": "x2", "yaxis": "y2"}, 3: {"xaxis": "x3", "yaxis": "y3"}}
_PANELS: list[dict] = []


def _panels() -> dict:
    """The three panels' axes and title annotations (plotly's ``make_subplots``, computed once),
    a fresh copy per figure."""
    if not _PANELS:
        fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.07,
                            row_heights=[0.42, 0.34, 0.24], subplot_titles=("1", "2", "3"))
        layout = fig.to_dict()["layout"]
        layout.pop("template", None)
        _PANELS.append(layout)
    return copy.deepcopy(_PANELS[0])
