"""Plotly figures of the Fairness page: DSM by subgroup and per-subgroup rates.

The figures use :data:`core.figures.tradeoff.TEMPLATE`, the small "plotly_white" built once (the
registered one by name costs tens of milliseconds per figure, on every rerun).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

import plotly.graph_objects as go

from core.figures import plain_text
from core.figures.tradeoff import TEMPLATE

__all__ = ["DSM_BAND", "RATE_METRICS", "dsm_flags", "dsm_figure", "group_rates_figure"]

#: The conventional band of acceptable DSM: |DSM| <= 0.1 (Williamson et al. 2012; RSMTool).
DSM_BAND = 0.1

def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """One figure from trace and layout dicts in one unvalidated constructor call (as
    :mod:`core.figures.tradeoff` builds them: the builders here write fixed keys, tested in
    tests/core/test_figures_fairness.py; validating every property cost more than the statistics)."""
    return go.Figure(data=traces, layout={**layout, "template": TEMPLATE}, _validate=False)


_OK = "#4c78a8"
_FLAG = "#d62728"
_MISSING = "#9e9e9e"


def dsm_flags(dsm: Mapping[Hashable, float | None], *, band: float = DSM_BAND) -> dict[Hashable, str]:
    """Classify each subgroup's DSM.

    Parameters
    ----------
    dsm : mapping
        Group label -> DSM (None when missing, NaN when undefined).
    band : float, default=0.1
        Half-width of the acceptable band.

    Returns
    -------
    dict
        Group label -> ``"ok"`` (``|DSM| <= band``), ``"flag"`` (outside the band),
        ``"missing"`` (None) or ``"nan"``.
    """
    out: dict[Hashable, str] = {}
    for label, value in dsm.items():
        if value is None:
            out[label] = "missing"
        elif math.isnan(value):
            out[label] = "nan"
        else:
            out[label] = "flag" if abs(value) > band else "ok"
    return out


def dsm_figure(
    dsm: Mapping[Hashable, float | None],
    *,
    counts: Mapping[Hashable, int] | None = None,
    band: float = DSM_BAND,
    title: str = "DSM by subgroup",
) -> go.Figure:
    """Bar chart of the difference of standardised means per subgroup with the +-band.

    Parameters
    ----------
    dsm : mapping
        Group label -> DSM (None when missing, NaN when undefined), e.g. the ``DSM`` column of
        :func:`core.rsm.eval_by_group`.
    counts : mapping, optional
        Group label -> number of responses (shown in the hover text).
    band : float, default=0.1
        Groups with ``|DSM| > band`` are drawn in red and labelled "flag".
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace (``customdata`` holds the flag of each bar); missing or NaN values are
        drawn as an empty bar at 0 with the text "missing" / "NaN".
    """
    flags = dsm_flags(dsm, band=band)
    labels = [plain_text(k) for k in dsm]  # group names drawn as written
    values, colors, texts, hovers = [], [], [], []
    for key, value in dsm.items():
        flag = flags[key]
        n = f" (N = {counts[key]:,})" if counts and key in counts else ""
        if flag in ("missing", "nan"):
            values.append(0.0)
            colors.append(_MISSING)
            texts.append("missing" if flag == "missing" else "undefined")
            hovers.append(f"{plain_text(key)}{n}: DSM {texts[-1]}")
        else:
            values.append(float(value))
            colors.append(_FLAG if flag == "flag" else _OK)
            texts.append(f"{value:+.3f}" + (" ⚑" if flag == "flag" else ""))
            hovers.append(f"{plain_text(key)}{n}: DSM {value:+.4f}" + (" — outside ±%g" % band if flag == "flag" else ""))
    traces: list[dict] = [{
        "type": "bar", "x": labels, "y": values, "marker": {"color": colors}, "text": texts,
        "textposition": "outside", "hovertext": hovers, "hoverinfo": "text",
        "customdata": [flags[k] for k in dsm], "name": "DSM", "showlegend": False,
        "legendgroup": "dsm",  # shown by the colour entries below, one per colour drawn
    }]
    band_line = {"color": "#2ca02c", "dash": "dash", "width": 1}
    shapes = [{"type": "rect", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": -band, "y1": band,
               "fillcolor": "#2ca02c", "opacity": 0.12, "line": {"width": 0}}]
    shapes += [{"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y,
                "line": dict(band_line)} for y in (-band, band)]
    # legend entries for every mark: the bar colours that occur and the band's lines
    present = set(flags.values())
    for key, color, name in (("ok", _OK, f"within ±{band:g}"), ("flag", _FLAG, f"outside ±{band:g} (flagged)"),
                             ("missing", _MISSING, "DSM missing or NaN (drawn at 0)")):
        if key in present or (key == "missing" and "nan" in present):
            traces.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers", "name": name,
                           "legendgroup": "dsm", "hoverinfo": "skip",
                           "marker": {"symbol": "square", "size": 12, "color": color}})
    traces.append({"type": "scatter", "x": [None], "y": [None], "mode": "lines", "hoverinfo": "skip",
                   "name": f"±{band:g} band (acceptable |DSM|)", "line": dict(band_line)})
    finite = [abs(v) for v in values]
    top = max([band * 1.5] + [v * 1.25 for v in finite])
    return _figure(traces, {
        "title": {"text": title}, "xaxis": {"title": {"text": "subgroup"}, "type": "category"},
        "yaxis": {"title": {"text": "DSM (z_M − z_H, in sd units)"}, "range": [-top, top], "zeroline": True},
        "showlegend": True, "legend": {"orientation": "h", "y": -0.25}, "height": 420,
        "margin": {"t": 50, "b": 10}, "shapes": shapes,
    })


#: Metric -> (legend name, colour, panel): panel 1 holds shares sent to humans, panel 2 accuracies.
RATE_METRICS: dict[str, tuple[str, str, int]] = {
    "human_ratio": ("Human ratio (share of samples)", "#9467bd", 1),
    "time_cost": ("Time cost (share of effort)", "#8c564b", 1),
    "accuracy": ("Accuracy (collaborative)", "#d62728", 2),
    "machine_accuracy": ("Accuracy (machine only)", "#ff9896", 2),
    "f1": ("Macro F1 (collaborative)", "#2ca02c", 2),
}


def group_rates_figure(
    rates: Mapping[Hashable, Mapping[str, float | None]],
    *,
    metrics: tuple[str, ...] = ("human_ratio", "time_cost", "accuracy", "machine_accuracy"),
    overall: Mapping[str, float | None] | None = None,
    title: str = "Collaborative result by subgroup",
) -> go.Figure:
    """Per-subgroup rates in two panels: what goes to humans, and how accurate the result is.

    The left panel (y: % of the group's samples or effort) holds the human ratio and the time
    cost; the right panel (y: accuracy in %) the collaborative and the machine-only accuracy
    (and macro F1 when asked): one axis per kind of quantity. Values stay fractions; the axes
    print them as percentages.

    Parameters
    ----------
    rates : mapping
        Group label -> {metric -> value or None}, e.g. the rows of
        :func:`core.rsm.assignment_by_group`.
    metrics : tuple of str
        Which metrics to draw (keys of :data:`RATE_METRICS`); a metric that is None for every
        group is skipped.
    overall : mapping, optional
        Metric -> whole-set value, drawn as a dotted horizontal line in its panel, with a legend
        entry.
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
        The bar traces first (in ``metrics`` order), then the legend entries of the dotted lines.
    """
    labels = [plain_text(k) for k in rates]
    traces: list[dict] = []
    shapes: list[dict] = []
    lines = []
    for metric in metrics:
        ys = [rates[k].get(metric) for k in rates]
        if all(v is None for v in ys):
            continue
        name, color, col = RATE_METRICS.get(metric, (metric, None, 2))
        axis = "" if col == 1 else "2"
        bar = {"type": "bar", "x": labels, "y": [math.nan if v is None else v for v in ys], "name": name,
               "hovertemplate": "%{x}: %{y:.1%}<extra>" + name + "</extra>", "xaxis": "x" + axis,
               "yaxis": "y" + axis}
        if color is not None:
            bar["marker"] = {"color": color}
        traces.append(bar)
        if overall and overall.get(metric) is not None:
            shapes.append({"type": "line", "xref": f"x{axis} domain", "x0": 0, "x1": 1, "yref": "y" + axis,
                           "y0": overall[metric], "y1": overall[metric],
                           "line": {"dash": "dot", "color": color, "width": 2}})
            lines.append((f"{name.split(' (')[0]}, whole set ({overall[metric]:.1%})", color))
    for name, color in lines:
        traces.append({"type": "scatter", "x": [None], "y": [None], "mode": "lines", "name": name,
                       "hoverinfo": "skip", "line": {"dash": "dot", "color": color, "width": 2}})
    # two panels side by side, as plotly's make_subplots(1, 2, horizontal_spacing=0.12) lays them
    panel_titles = [{"text": text, "x": x, "xanchor": "center", "xref": "paper", "y": 1.0, "yanchor": "bottom",
                     "yref": "paper", "showarrow": False, "font": {"size": 16}}
                    for text, x in (("Sent to humans", 0.22), ("Accuracy of the result", 0.78))]
    xaxis = {"title": {"text": "subgroup"}, "type": "category"}
    yaxis = {"domain": [0.0, 1.0], "range": [0, 1.05], "tickformat": ".0%"}
    return _figure(traces, {
        "annotations": panel_titles, "title": {"text": title}, "barmode": "group", "height": 440,
        "legend": {"orientation": "h", "y": -0.3}, "margin": {"t": 70, "b": 10},
        **({"shapes": shapes} if shapes else {}),
        "xaxis": {**xaxis, "anchor": "y", "domain": [0.0, 0.44]},
        "xaxis2": {**xaxis, "anchor": "y2", "domain": [0.56, 1.0]},
        "yaxis": {**yaxis, "anchor": "x", "title": {"text": "% of the group's samples / effort"}},
        "yaxis2": {**yaxis, "anchor": "x2", "title": {"text": "accuracy (%)"}},
    })
