"""Plotly figures of an evaluation round: the forest plot of estimates and the validity panel."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from core.evaluation.estimate import parse_decision
from core.evaluation.estimate import (focus_interval, focus_name, question_words,
                                           stream_focus)
from core.figures import plain_text

__all__ = ["forest_rows", "forest_figure", "coverage_figure", "progress_figure", "wrap_label",
           "label_margin", "frontier_figure", "group_accuracy_figure", "worth_text",
           "stream_figure"]

#: font size (px) of the row labels, and the width (px) one character takes at that size: a
#: generous average for sans-serif fonts (digits and most letters are narrower), so the left
#: margin holds the longest label even where the template does not grow the margin itself
#: (Streamlit's template has no ``automargin``).
LABEL_FONT = 12
CHAR_PX = 7.5
#: the longest line of a row label before it wraps
WRAP_AT = 32


def wrap_label(text: str, width: int = WRAP_AT) -> str:
    """``text`` broken into lines of at most ``width`` characters at spaces (``<br>`` between
    them, as plotly draws line breaks); a word longer than ``width`` is cut into pieces."""
    lines: list[str] = []
    words = [w[i:i + width] for w in str(text).split(" ") for i in range(0, max(len(w), 1), width)]
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def label_margin(labels: list[str], *, pad: int = 16) -> int:
    """The left margin (px) that holds the longest line of ``labels`` at :data:`LABEL_FONT`."""
    longest = max((len(line) for lab in labels for line in str(lab).split("<br>")), default=0)
    return int(pad + CHAR_PX * longest)


def _row_axis(labels: list[str], **extra: Any) -> dict[str, Any]:
    """A y axis of row labels that always shows them whole."""
    return {"automargin": True, "tickfont": {"size": LABEL_FONT}, **extra}


def forest_rows(result: dict[str, Any], label: str) -> pd.DataFrame:
    """The rows of a forest plot: overall, then every group value, for one class.

    Parameters
    ----------
    result : dict
        An :func:`core.evaluation.estimate.shares.estimate` object.
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
    names = [wrap_label(plain_text(f"{g} (n={n:,})")) for g, n in zip(rows["group"], rows["rows"])]
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
                      yaxis=_row_axis(names, autorange="reversed", title={"text": "group"}),
                      height=max(280, 150 + 28 * sum(1 + n.count("<br>") for n in names)),
                      title_y=0.98, title_yanchor="top",
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0,
                              "yanchor": "bottom"},
                      margin={"t": 80, "l": label_margin(names), "r": 10, "b": 50})
    return fig


def coverage_figure(table: pd.DataFrame, *, nominal: float = 0.95,
                    baseline: str = "plain normal interval") -> go.Figure:
    """Coverage of each interval over simulated rounds, against the nominal level.

    Parameters
    ----------
    table : DataFrame
        ``quantity``, ``coverage``, and optionally ``plain_coverage`` (the baseline's, for
        comparison).
    nominal : float
    baseline : str, default="plain normal interval"
        What ``plain_coverage`` is (the unsmoothed normal interval of a routing round; PPI++
        with as many random labels for an active or random round).
    """
    fig = go.Figure()
    fig.add_trace(go.Bar(x=table["quantity"], y=table["coverage"], name="our interval",
                         marker_color="#1f77b4", text=[f"{v:.1%}" for v in table["coverage"]],
                         textposition="outside"))
    if "plain_coverage" in table:
        fig.add_trace(go.Bar(x=table["quantity"], y=table["plain_coverage"],
                             name=f"{baseline} (for comparison)",
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


def progress_figure(progress: dict[str, Any], *, stream: bool = False) -> go.Figure:
    """Labelled against still-to-label rows, per selection (calibration, routed, audit; a
    labelling stream's queue, its ``audit`` rows, is named "stream queue" when ``stream``)."""
    keys = [k for k in ("calibration", "routed", "audit") if progress[k]["rows"]]
    kinds = ["stream queue" if stream and k == "audit" else k for k in keys]
    done = [progress[k]["labelled"] for k in keys]
    left = [progress[k]["rows"] - progress[k]["labelled"] for k in keys]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=kinds, x=done, orientation="h", name="labelled",
                         marker_color="#2ca02c"))
    fig.add_trace(go.Bar(y=kinds, x=left, orientation="h", name="to label",
                         marker_color="#dddddd"))
    # the legend sits above the bars, outside the plot area: below it, it covered the ticks
    fig.update_layout(title={"text": "Labelling progress by selection", "x": 0, "xanchor": "left",
                             "y": 0.98, "yanchor": "top"},
                      barmode="stack", height=150 + 40 * len(kinds), xaxis_title="rows",
                      yaxis=_row_axis(kinds, title={"text": "selection"}),
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0,
                              "yanchor": "bottom", "traceorder": "normal"},
                      margin={"t": 70, "l": label_margin(kinds), "r": 10, "b": 50})
    return fig


def worth_text(n: Any) -> str:
    """``1238`` -> ``"worth 1,238 random labels"``; None/NaN -> ``""``."""
    if n is None or (isinstance(n, float) and n != n) or pd.isna(n):
        return ""
    return f"worth {int(n):,} random label{'' if int(n) == 1 else 's'}"


#: how each design of a frontier is drawn: legend name, colour, marker symbol and size
_DESIGN_STYLE = {
    "routing": ("routing: the least confident rows, no audit", "#d62728", "square", 11),
    "random": ("random labels", "#7f7f7f", "circle", 11),
}


def frontier_figure(frontier: pd.DataFrame, *, confidence: float = 0.95) -> go.Figure:
    """The designs a budget allows: expected accuracy of the final labels against the expected
    half-width of a class share's interval.

    Parameters
    ----------
    frontier : DataFrame
        :func:`core.evaluation.sampling.active.design_frontier`'s table (``design``, ``mu``,
        ``expected_accuracy``, ``expected_half_width``, ``random_equivalent``,
        ``recommended``).
    confidence : float

    Returns
    -------
    plotly.graph_objects.Figure
        One line through the active designs (by mu), the recommended one as a star, routing
        and random labelling as their own markers (routing only when it has an interval, i.e.
        an audit); every point's hover says what its interval is worth in random labels.
    """
    fig = go.Figure()
    act = frontier[frontier["design"] == "active"].sort_values("mu")

    def hover(rows: pd.DataFrame) -> list[str]:
        return [f"accuracy {a:.1%}<br>± {h:.2%}<br>{worth_text(n)}"
                for a, h, n in zip(rows["expected_accuracy"], rows["expected_half_width"],
                                   rows["random_equivalent"])]

    fig.add_trace(go.Scatter(x=act["expected_half_width"], y=act["expected_accuracy"],
                             mode="lines+markers", name="active designs",
                             line={"color": "#1f77b4"}, marker={"size": 6},
                             text=hover(act), hoverinfo="text"))
    for kind, (name, colour, symbol, size) in _DESIGN_STYLE.items():
        # a design with no interval (routing without an audit) has no point on these axes
        rows = frontier[(frontier["design"] == kind)
                        & frontier["expected_half_width"].astype(float).notna()]
        if len(rows):
            fig.add_trace(go.Scatter(x=rows["expected_half_width"],
                                     y=rows["expected_accuracy"], mode="markers", name=name,
                                     marker={"color": colour, "symbol": symbol, "size": size},
                                     text=hover(rows), hoverinfo="text"))
    rec = frontier[frontier["recommended"].astype(bool)]
    if len(rec):
        r = rec.iloc[0]
        fig.add_trace(go.Scatter(x=[r["expected_half_width"]], y=[r["expected_accuracy"]],
                                 mode="markers", name=f"recommended ({worth_text(r['random_equivalent'])})",
                                 marker={"color": "#ff7f0e", "symbol": "star", "size": 18,
                                         "line": {"color": "#222222", "width": 1}},
                                 text=hover(rec.iloc[:1]), hoverinfo="text"))
    fig.update_layout(title={"text": "Designs for this budget (expected)", "x": 0,
                             "xanchor": "left", "y": 0.98, "yanchor": "top"},
                      xaxis={"title": {"text": f"half-width of a class share's {confidence:.0%} "
                                               "interval (narrower is better)"},
                             "tickformat": ".2%"},
                      yaxis={"title": {"text": "accuracy of the final labels"},
                             "tickformat": ".1%"},
                      height=420,
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0,
                              "yanchor": "bottom"},
                      margin={"t": 110, "l": 70, "r": 10, "b": 60})
    return fig


def group_accuracy_figure(table: pd.DataFrame, *, confidence: float = 0.95) -> go.Figure:
    """Each group's final-label accuracy with its interval; groups significantly worse than
    the rest in red.

    Parameters
    ----------
    table : DataFrame
        :func:`core.workspace.active_rounds.group_table` (``column``, ``group``, ``rows``,
        ``accuracy``, ``ci_low``, ``ci_high``, ``worth_random``, ``worse``).
    """
    names = [wrap_label(plain_text(f"{c} = {g} (n={n:,})"))
             for c, g, n in zip(table["column"], table["group"], table["rows"])]
    fig = go.Figure()
    for worse, colour, name in ((False, "#1f77b4", "final-label accuracy"),
                                (True, "#d62728", "significantly worse than the rest")):
        sel = (table["worse"].astype(bool) == worse).to_numpy()
        if not sel.any():
            continue
        rows = table[sel]
        fig.add_trace(go.Scatter(
            x=rows["accuracy"], y=[n for n, s in zip(names, sel) if s], mode="markers",
            name=f"{name} ({confidence:.0%} interval)",
            marker={"color": colour, "size": 9, "symbol": "diamond"},
            error_x={"type": "data", "symmetric": False,
                     "array": (rows["ci_high"] - rows["accuracy"]).fillna(0),
                     "arrayminus": (rows["accuracy"] - rows["ci_low"]).fillna(0),
                     "color": colour, "thickness": 2},
            text=[worth_text(n) for n in rows["worth_random"]],
            hovertemplate="%{x:.1%} (%{text})<extra></extra>"))
    fig.update_layout(title="Accuracy of the final labels by group",
                      xaxis_title="accuracy of the final labels", xaxis_tickformat=".0%",
                      yaxis=_row_axis(names, autorange="reversed", title={"text": "group"},
                                      categoryorder="array", categoryarray=names),
                      height=max(280, 150 + 28 * sum(1 + n.count("<br>") for n in names)),
                      title_y=0.98, title_yanchor="top",
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0,
                              "yanchor": "bottom"},
                      margin={"t": 80, "l": label_margin(names), "r": 10, "b": 50})
    return fig


#: colours of a stream's quantities: the classes in order, then the final labels' accuracy
_STREAM_COLOURS = ["#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
_ACCURACY_COLOUR = "#2ca02c"


def _band(x: list, lo: list, hi: list, colour: str, group: str) -> go.Scatter:
    """A shaded band between ``lo`` and ``hi`` along ``x`` (in the legend group of its line)."""
    return go.Scatter(x=list(x) + list(x)[::-1], y=list(hi) + list(lo)[::-1], fill="toself",
                      mode="lines", line={"width": 0}, fillcolor=colour, opacity=0.2,
                      showlegend=False, legendgroup=group, name=group, hoverinfo="skip")


def stream_figure(result: dict[str, Any], *, target_half_width: float | None = None) -> go.Figure:
    """A labelling stream's intervals against the labels spent.

    Parameters
    ----------
    result : dict
        :func:`core.evaluation.estimate.anytime.anytime_estimate`'s result (``trace``, ``decision``,
        ``stop``, ``confidence``), optionally with ``imports``: the labels after each import
        (:func:`core.workspace.stream_rounds.stream_view`), each of them a look of the trace.
    target_half_width : float, optional
        The stream's target.

    Returns
    -------
    plotly.graph_objects.Figure
        A band (the confidence sequence) and a line (the estimate) per class share and for the
        final labels' accuracy; a point with its interval after every import, on the quantity
        the stop sentence is about (:func:`core.evaluation.estimate.anytime_words.stream_focus`); the
        target as a band of ± the target around that class share's latest estimate (the
        widest class share's when the question is about the accuracy); the question's threshold
        as a dashed line; the stop as a dotted vertical line.
    """
    trace = result.get("trace") or []
    level = f"{float(result.get('confidence', 0.95)):.0%}"
    fig = go.Figure()
    x = [t["labels"] for t in trace]
    classes = list(result["class_shares"])
    quantities = [(("share", c), _STREAM_COLOURS[i % len(_STREAM_COLOURS)])
                  for i, c in enumerate(classes)] + [(("accuracy", None), _ACCURACY_COLOUR)]
    for q, colour in quantities:
        if not trace:
            break
        name = plain_text(focus_name(q))
        ivs = [focus_interval(t, q) for t in trace]
        fig.add_trace(_band(x, [v["ci_low"] for v in ivs], [v["ci_high"] for v in ivs], colour,
                            name))
        fig.add_trace(go.Scatter(x=x, y=[v["estimate"] for v in ivs], mode="lines", name=name,
                                 legendgroup=name, line={"color": colour, "width": 2},
                                 hovertemplate="%{x:,} labels: %{y:.1%}<extra>" + name
                                               + "</extra>"))
    focus = stream_focus(result) if trace else None
    at = {t["labels"]: t for t in trace}
    points = [n for n in result.get("imports") or [] if n in at]
    if focus is not None and points:
        ivs = [focus_interval(at[n], focus) for n in points]
        fig.add_trace(go.Scatter(
            x=points, y=[v["estimate"] for v in ivs], mode="markers",
            name=f"after each import: {plain_text(focus_name(focus))}",
            marker={"color": "#222222", "size": 9, "symbol": "diamond"},
            error_y={"type": "data", "symmetric": False, "color": "#222222", "thickness": 1.5,
                     "array": [v["ci_high"] - v["estimate"] for v in ivs],
                     "arrayminus": [v["estimate"] - v["ci_low"] for v in ivs]},
            hovertemplate="%{x:,} labels: %{y:.1%}<extra>import</extra>"))
    if focus is not None and target_half_width is not None:
        # around the question's class share, else the widest (the one the target waits for)
        around = focus if focus[0] == "share" else stream_focus({**result, "decision": None})
        last = focus_interval(trace[-1], around)["estimate"]
        h = float(target_half_width)
        fig.add_trace(go.Scatter(
            x=[x[0], x[-1], x[-1], x[0]], y=[last - h, last - h, last + h, last + h],
            fill="toself", mode="lines", line={"color": "#d62728", "width": 1, "dash": "dot"},
            fillcolor="rgba(214, 39, 40, 0.08)", hoverinfo="skip",
            name=f"target: ± {100 * h:.1f} points around the latest estimate"))
    dec = result.get("decision")
    if dec and trace:
        d = parse_decision(dec["question"])
        fig.add_trace(go.Scatter(x=[x[0], x[-1]], y=[d.threshold, d.threshold], mode="lines",
                                 line={"color": "#d62728", "dash": "dash", "width": 2},
                                 name=plain_text(f"question: {question_words(dec['question'])}"),
                                 hoverinfo="skip"))
    stop = result.get("stop") or {}
    stop_at = (dec["labels"] if dec and dec.get("decided") else
               stop.get("labels") if stop.get("reached") else None)
    if stop_at is not None and trace:
        fig.add_trace(go.Scatter(x=[stop_at, stop_at], y=[0, 1], mode="lines",
                                 line={"color": "#444444", "dash": "dot", "width": 2},
                                 name=f"stop reached after {int(stop_at):,} labels",
                                 hoverinfo="skip"))
    fig.update_layout(title={"text": f"Intervals against labels spent ({level}, valid however "
                                     "often you look)", "x": 0, "xanchor": "left", "y": 0.98,
                             "yanchor": "top"},
                      xaxis={"title": {"text": "labels taken back, in queue order"},
                             "rangemode": "tozero"},
                      yaxis={"title": {"text": "share / accuracy"}, "tickformat": ".0%",
                             "range": [0, 1]},
                      height=460,
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0,
                              "yanchor": "bottom"},
                      margin={"t": 120, "l": 70, "r": 10, "b": 60})
    return fig
