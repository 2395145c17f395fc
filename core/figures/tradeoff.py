"""Plotly figures of the reliability/effort trade-off (the paper's Figures 2 and 3).

Every figure uses :data:`TEMPLATE`, plotly's "plotly_white" look built once: assigning the
registered "plotly_white" template by name copies its whole tree (tens of milliseconds per
figure, on every rerun of a page), this small one about a millisecond.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

__all__ = [
    "RELIABILITY_METRICS",
    "EFFORT_METRICS",
    "TEMPLATE",
    "curves_figure",
    "curves_pair_figure",
    "frontier_figure",
    "goal_figure",
    "frontier_steps",
    "fixed_margins",
    "zoomed_range",
    "log_ticks",
]


def _white_template() -> go.layout.Template:
    """The layout of plotly's "plotly_white" template that these figures show (background,
    grid, fonts, colours; not its defaults for trace types they never draw)."""
    layout = pio.templates["plotly_white"].layout.to_plotly_json()
    keep = ("font", "paper_bgcolor", "plot_bgcolor", "xaxis", "yaxis", "hoverlabel", "hovermode",
            "title", "colorway")
    return go.layout.Template(layout={k: layout[k] for k in keep if k in layout})


#: The figures' template (see the module docstring).
TEMPLATE = _white_template()


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """One figure from trace and layout dicts, in one constructor call and unvalidated: the
    builders below write them from fixed keys (tested in tests/core/test_figures_tradeoff.py),
    and plotly's validation of every property cost more than the rest of a page's rerun."""
    return go.Figure(data=traces, layout={**layout, "template": TEMPLATE}, _validate=False)

def fixed_margins(layout: dict, *, left: int, right: int, top: int, bottom: int) -> dict:
    """``layout`` with margins of fixed pixels that nothing expands (legend, axes' labels), its
    legend in one row at the bottom of the figure: plotly.js draws a figure whose margins grow
    once, measures what pushes them, then draws it all again; a figure drawn anew on every move
    of N or lambda pays that twice (issue 33). The margins are sized for percentage ticks and
    one-line axis titles; the figure's height stays its own."""
    out = {**layout, "margin": {"l": left, "r": right, "t": top, "b": bottom, "autoexpand": False},
           "legend": {**layout.get("legend", {}), "orientation": "h", "yref": "container",
                      "y": 0, "yanchor": "bottom"}}
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")):
            out[key] = {**axis, "automargin": False}
    return out


RELIABILITY_METRICS = ("precision", "recall", "f1", "accuracy")
EFFORT_METRICS = ("human_ratio", "time_cost", "time_cost_predicted")
_NAMES = {"precision": "Precision (macro)", "recall": "Recall (macro)", "f1": "F1 (macro)",
          "accuracy": "Accuracy", "human_ratio": "Human ratio", "time_cost": "Time cost",
          "time_cost_predicted": "Predicted time cost", "expected_reliability": "Expected reliability",
          "human_share": "N / M", "lambda": "λ"}
_COLORS = {"precision": "#1f77b4", "recall": "#ff7f0e", "f1": "#2ca02c", "accuracy": "#d62728",
           "human_ratio": "#9467bd", "time_cost": "#8c564b", "time_cost_predicted": "#e377c2",
           "expected_reliability": "#17becf"}


def curves_figure(df: pd.DataFrame, *, x: str, metrics: Sequence[str],
                  current: float | None = None, title: str = "", y_title: str = "",
                  x_title: str | None = None, log_x: bool = False,
                  percent: bool = True) -> go.Figure:
    """Metric curves against ``x`` (``"human_share"`` or ``"lambda"``) from a sweep table.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`core.assignment.sweep` along one axis of the grid.
    x : str
        Column for the x axis.
    metrics : sequence of str
        Columns to draw; columns that are all NaN (unavailable) are skipped, and a column equal
        to one drawn before joins its curve and its legend name ("Human ratio = Predicted time
        cost" under uniform effort), instead of a line hidden under the other.
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
    traces, xaxis, yaxis = _curves(df, x=x, metrics=metrics, current=current, y_title=y_title,
                                   x_title=x_title, log_x=log_x, percent=percent)
    return _figure(traces, {"title": {"text": title}, "xaxis": xaxis, "yaxis": yaxis,
                            "legend": {"orientation": "h", "y": -0.3},
                            "margin": {"t": 50, "b": 10}, "height": 380})


def curves_pair_figure(df: pd.DataFrame, *, x: str, left: Sequence[str], right: Sequence[str],
                       current: float | None = None, title: str = "",
                       subtitles: tuple[str, str] = ("", ""), y_titles: tuple[str, str] = ("", ""),
                       x_title: str | None = None, log_x: bool = False) -> go.Figure:
    """Two panels of :func:`curves_figure` side by side in one figure: ``left`` and ``right``
    metrics against the same ``x``, each panel with its own y axis and ``subtitles`` entry, the
    current setting marked in both, one legend.

    One figure where there were two: the browser draws each figure anew whenever it changes,
    and the current setting changes it on every move of N or λ; two panels of one figure cost
    less to draw than two figures (issue 33).

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`core.assignment.sweep` along one axis of the grid.
    x : str
        Column for both x axes.
    left, right : sequence of str
        Columns of each panel (as ``metrics`` of :func:`curves_figure`); shares and scores in
        [0, 1], shown as percentages.
    current : float, optional
        x value of the current setting: a vertical dashed line in both panels (one legend entry).
    title : str
        The figure's title.
    subtitles, y_titles : (str, str)
        Each panel's title and y axis title.
    x_title : str, optional
        Both x axes' title (default: the column's display name).
    log_x : bool, default=False
        Logarithmic x axes; rows with x <= 0 are left out.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    layout: dict = {"title": {"text": title}, "height": 400, "annotations": []}
    traces: list[dict] = []
    for i, (metrics, domain) in enumerate(((left, [0.0, 0.44]), (right, [0.56, 1.0]))):
        panel, xaxis, yaxis = _curves(df, x=x, metrics=metrics, current=current,
                                      y_title=y_titles[i], x_title=x_title, log_x=log_x)
        suffix = "" if i == 0 else str(i + 1)
        for t in panel:
            t.update(xaxis="x" + suffix, yaxis="y" + suffix)
            if t["name"] == "current":
                t.update(legendgroup="current", showlegend=i == 0)
        traces += panel
        layout["xaxis" + suffix] = {**xaxis, "domain": domain, "anchor": "y" + suffix}
        layout["yaxis" + suffix] = {**yaxis, "anchor": "x" + suffix}
        layout["annotations"].append({"text": subtitles[i], "x": sum(domain) / 2, "y": 1.0,
                                      "xref": "paper", "yref": "paper", "xanchor": "center",
                                      "yanchor": "bottom", "yshift": 6, "showarrow": False,
                                      "font": {"size": 14}})
    return _figure(traces, fixed_margins(layout, left=80, right=10, top=80, bottom=110))


def _curves(df: pd.DataFrame, *, x: str, metrics: Sequence[str], current: float | None,
            y_title: str, x_title: str | None, log_x: bool,
            percent: bool = True) -> tuple[list[dict], dict, dict]:
    """The traces, x axis and y axis of :func:`curves_figure` (its parameters)."""
    if log_x:
        df = df[df[x] > 0]
    xs = df[x].to_numpy()
    traces = []
    for m in metrics:
        if m not in df or df[m].isna().all():
            continue
        ys = df[m].to_numpy(dtype=float)
        same = next((t for t in traces if np.allclose(t["y"], ys, rtol=0, atol=1e-12, equal_nan=True)), None)
        if same is not None:
            same["name"] += " = " + _NAMES.get(m, m)
            continue
        traces.append({"type": "scatter", "x": xs, "y": ys, "mode": "lines",
                       "name": _NAMES.get(m, m), "line": {"color": _COLORS.get(m), "width": 2}})
    if current is not None and (current > 0 or not log_x):
        # a trace rather than a shape: it has a legend entry and works on a log axis
        traces.append({"type": "scatter", "x": [current, current], "y": [0, 1], "mode": "lines",
                       "name": "current", "line": {"dash": "dash", "color": "grey"},
                       "hoverinfo": "skip"})
    drawn = [np.asarray(t["y"], float) for t in traces if t.get("name") != "current"]
    yaxis: dict = {"title": {"text": y_title},
                   "range": zoomed_range(np.concatenate(drawn) if drawn else [])}
    if percent:
        yaxis["tickformat"] = ".0%" if yaxis["range"][1] - yaxis["range"][0] > 0.2 else ".1%"
    for t in traces:
        if t.get("name") == "current":
            t["y"] = list(yaxis["range"])
    xaxis: dict = {"title": {"text": x_title or _NAMES.get(x, x)}}
    if log_x:
        xaxis["type"] = "log"
        xaxis.update(log_ticks(xs[xs > 0]) if len(xs) else {})
    return traces, xaxis, yaxis


def zoomed_range(values, *, lo: float = 0.0, hi: float = 1.0, pad: float = 0.08,
                 min_span: float = 0.02) -> list[float]:
    """A y range that fits the data (values in [lo, hi]) with a margin, instead of always
    ``[lo, hi]``: scores between 0.86 and 0.99 get about [0.85, 1.0], not 0-100 %.

    The margin is ``pad`` times the data's span (at least ``min_span``), kept within
    ``[lo - pad/4, hi + pad/4]`` so a curve at 0 or 1 is not cut; no finite value: ``[lo, hi]``.

    >>> zoomed_range([0.86, 0.99])
    [0.8496, 1.0004]
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return [lo - 0.02, hi + 0.05]
    a, b = float(v.min()), float(v.max())
    margin = max(b - a, min_span) * pad
    return [max(a - margin, lo - pad / 4), min(b + margin, hi + pad / 4)]


def log_ticks(values) -> dict:
    """Ticks of a log axis at every power of ten the values span, written as
    :func:`decade_label` writes them (``0.001``, ``10⁻⁵``), never plotly's SI prefixes (``1μ``).
    ``{}`` without a positive value."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if not len(v):
        return {}
    lo, hi = int(np.floor(np.log10(v.min()))), int(np.ceil(np.log10(v.max())))
    ticks = [10.0 ** e for e in range(lo, hi + 1)]
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [decade_label(t) for t in ticks]}


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def decade_label(t: float) -> str:
    """A power of ten as a reader writes it: ``0.001`` to ``1,000`` plainly, else ``10⁻⁵``."""
    if 1e-3 <= t <= 1e3:
        return f"{t:,g}"
    return "10" + str(int(round(np.log10(t)))).translate(_SUPERSCRIPT)


def frontier_figure(grid: pd.DataFrame, *, current: dict | None = None,
                    machine_only: float | None = None, all_human: float = 1.0,
                    y: str = "accuracy", x: str = "time_cost", x_title: str | None = None,
                    log_lambda: bool = False) -> go.Figure:
    """Accuracy against time cost over a sweep grid, its upper frontier and the two corners.

    Parameters
    ----------
    grid : pandas.DataFrame
        A :func:`core.assignment.sweep` table.
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
    traces = []
    g = grid.dropna(subset=[x, y])
    if len(g):
        # one marker per distinct point: settings that reach the same time cost and accuracy
        # (most of a grid: 381 distinct of 987 on the demo) were drawn on top of each other,
        # and the browser draws every marker again on each change (issue 33); the last one is
        # the one that showed
        cloud = g.drop_duplicates(subset=[x, y], keep="last")
        # plotly.js takes a colour bar's title as {"text": ...} only (a bare string showed none)
        colour, bar = cloud["lambda"], {"title": {"text": "λ"}}
        lam_pos = g["lambda"][g["lambda"] > 0]
        if log_lambda and len(lam_pos):
            floor = float(lam_pos.min())
            colour = np.log10(np.maximum(cloud["lambda"].to_numpy(float), floor))
            ticks = 10.0 ** np.arange(np.floor(colour.min()), np.ceil(colour.max()) + 1)
            bar = {"title": {"text": "λ (log scale)"}, "tickvals": np.log10(ticks).tolist(),
                   "ticktext": [decade_label(t) for t in ticks]}
        # SVG markers, not WebGL (scattergl): the grid has about a thousand points, and a WebGL
        # context redrawn on every move of N cost the browser about 1 s without a GPU
        # (bench/browser.py, issue 25)
        traces.append({"type": "scatter", "x": cloud[x].to_numpy(), "y": cloud[y].to_numpy(),
                       "mode": "markers", "name": "grid points",
                       "marker": {"size": 5, "color": np.asarray(colour, float),
                                  "colorscale": "Viridis", "showscale": True, "colorbar": bar,
                                  "opacity": 0.6},
                       "customdata": np.c_[cloud["lambda"], cloud["human_share"]],
                       "hovertemplate": "time cost %{x:.3f}<br>" + y + " %{y:.4f}<br>λ "
                                        "%{customdata[0]:.3g}, N/M %{customdata[1]:.2f}"
                                        "<extra></extra>"})
        order = g.sort_values([x, y], ascending=[True, False])
        best = np.maximum.accumulate(order[y].to_numpy())
        keep = np.r_[True, best[1:] > best[:-1]]
        traces.append({"type": "scatter", "x": order[x].to_numpy()[keep], "y": best[keep],
                       "mode": "lines", "line": {"shape": "hv", "color": "black"},
                       "name": "frontier"})
    if machine_only is not None:
        traces.append({"type": "scatter", "x": [0], "y": [machine_only],
                       "mode": "markers+text", "name": "machine only", "text": ["machine only"],
                       "textposition": "top right",
                       "marker": {"size": 12, "symbol": "square", "color": "#7f7f7f"}})
    traces.append({"type": "scatter", "x": [1], "y": [all_human], "mode": "markers+text",
                   "name": "all human", "text": ["all human"], "textposition": "bottom left",
                   "marker": {"size": 12, "symbol": "diamond", "color": "#2ca02c"}})
    if current is not None and current.get(x) is not None and current.get(y) is not None:
        traces.append({"type": "scatter", "x": [current[x]], "y": [current[y]],
                       "mode": "markers", "name": "current",
                       "marker": {"size": 16, "symbol": "star", "color": "#d62728"}})
    # fixed margins (the colour bar's on the right): drawn anew on every move of N or λ when it
    # stars the current setting (the goal figure off, as on large tables)
    return _figure(traces, fixed_margins({
        "title": {"text": f"{_NAMES.get(y, y)} against time cost: every setting and the best reached"},
        "xaxis": {"title": {"text": x_title or _NAMES.get(x, x)}, "tickformat": ".0%"},
        "yaxis": {"title": {"text": f"{_NAMES.get(y, y)} (%)"}, "tickformat": ".0%"},
        "height": 440}, left=80, right=110, top=50, bottom=100))


def frontier_steps(x, y) -> tuple[np.ndarray, np.ndarray]:
    """The upper frontier of points (x, y): the best y reached at each x or less, kept where it
    rises (rows with a missing x or y are left out).

    >>> frontier_steps([3, 1, 5, 2], [0.75, 0.7, 0.9, 0.8])
    (array([1., 2., 5.]), array([0.7, 0.8, 0.9]))
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if not len(x):
        return x, y
    order = np.lexsort((-y, x))
    xs, best = x[order], np.maximum.accumulate(y[order])
    keep = np.r_[True, best[1:] > best[:-1]]
    return xs[keep], best[keep]


def goal_figure(x, y, *, current: tuple[float, float] | None = None,
                points: Sequence[dict] = (), target_y: float | None = None,
                target_x: float | None = None, x_title: str = "effort",
                y_title: str = "Accuracy", title: str = "") -> go.Figure:
    """The best accuracy reachable at each effort (the frontier of the settings ``x``, ``y``),
    the current setting and the recommended ones marked.

    Only the frontier's steps are drawn (not every setting: what goes to the browser does not
    grow with the grid).

    Parameters
    ----------
    x, y : array-like
        Effort (e.g. in hours) and accuracy of every setting searched.
    current : (float, float), optional
        The current setting, drawn as a red star.
    points : sequence of dict
        Recommended settings: ``x``, ``y``, ``name`` (the legend; the first point's also
        written beside it).
    target_y, target_x : float, optional
        A target accuracy (horizontal dotted line) or an effort budget (vertical).
    x_title, y_title, title : str

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fx, fy = frontier_steps(x, y)
    traces = [{"type": "scatter", "x": fx, "y": fy, "mode": "lines",
               "line": {"shape": "hv", "color": "black"}, "name": "best accuracy for the effort",
               "hovertemplate": "%{x:,.2f}: %{y:.1%}<extra></extra>"}]
    ys = list(fy)
    colours = ("#2ca02c", "#1f77b4", "#9467bd")
    for i, p in enumerate(points):
        # only the first point (the goal) is labelled beside it: the others, often close to
        # the current setting, are named in the legend (labels there overlapped)
        traces.append({"type": "scatter", "x": [p["x"]], "y": [p["y"]],
                       "mode": "markers+text" if i == 0 else "markers",
                       "name": p["name"], "text": [p["name"] if i == 0 else ""],
                       "textposition": "middle right",
                       "marker": {"size": 14, "symbol": "circle",
                                  "color": colours[i % len(colours)]}})
        ys.append(p["y"])
    if current is not None:
        traces.append({"type": "scatter", "x": [current[0]], "y": [current[1]], "mode": "markers",
                       "name": "current setting",
                       "marker": {"size": 16, "symbol": "star", "color": "#d62728"}})
        ys.append(current[1])
    if target_y is not None:
        ys.append(target_y)
    rng = zoomed_range(ys)
    if target_y is not None:
        traces.append({"type": "scatter", "x": [0, float(np.nanmax(fx)) if len(fx) else 1],
                       "y": [target_y, target_y], "mode": "lines", "name": "target",
                       "line": {"dash": "dot", "color": "grey"}, "hoverinfo": "skip"})
    if target_x is not None:
        traces.append({"type": "scatter", "x": [target_x, target_x], "y": rng, "mode": "lines",
                       "name": "budget", "line": {"dash": "dot", "color": "grey"},
                       "hoverinfo": "skip"})
    return _figure(traces, fixed_margins({
        "title": {"text": title or f"{y_title} against {x_title}: the best reachable"},
        "xaxis": {"title": {"text": x_title}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": y_title}, "range": rng,
                  "tickformat": ".0%" if rng[1] - rng[0] > 0.2 else ".1%"},
        "height": 400}, left=80, right=10, top=50, bottom=110))
