"""Plotly figures for scorekeeping (clembench privateshared) episodes, and the words the page
shows for missing scores."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from core.errors import DataError

__all__ = ["accuracy_curves_figure", "main_score_figure", "short_labels", "score_text",
           "ABORTED_TEXT", "ABSENT_TEXT", "UNDEFINED_TEXT", "MAIN_SCORE_TITLE", "CURVES_TITLE"]

_CURVE_COLUMNS = {"episode", "model", "slots", "round", "accuracy", "middle", "aborted"}

#: Shown for a score clembench records as NaN because the episode was aborted.
ABORTED_TEXT = "aborted"
#: Shown for a score clembench does not log at all (Middle-Accuracy of an episode that ended
#: before its middle round, ``Slot Filled?`` of round 0).
ABSENT_TEXT = "—"
#: Shown for a NaN score of a played episode (e.g. Kappa when both raters use one class).
UNDEFINED_TEXT = "undefined"

MAIN_SCORE_TITLE = "Main Score per episode"
CURVES_TITLE = "Probing accuracy per round"
_MEAN_DASHES = ("solid", "dashdot", "longdashdot")


def score_text(value, *, aborted: bool, digits: int = 4) -> str:
    """The page's text of one score: a number, or a word for a missing one.

    Parameters
    ----------
    value : float, int, bool or None
        A clembench score (``None``: not logged; NaN: logged as NaN).
    aborted : bool
        Whether the episode was aborted.
    digits : int, default=4

    Returns
    -------
    str
        ``"—"`` for ``None``; for NaN ``"aborted"`` in an aborted episode and ``"undefined"`` in
        a played one; integers (and booleans, as 0/1) without decimals; other numbers with
        ``digits`` decimals.
    """
    if value is None:
        return ABSENT_TEXT
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    v = float(value)
    if math.isnan(v):
        return ABORTED_TEXT if aborted else UNDEFINED_TEXT
    return f"{v:.{digits}f}"


def _cut(part: str, width: int) -> str:
    return part if len(part) <= width else part[:max(width - 1, 1)] + "…"


def short_labels(names: Sequence[str], *, max_len: int = 40) -> list[str]:
    """Axis labels of at most about ``max_len`` characters, unique, for path-like names.

    A name that fits is kept. A longer one (``model/experiment/episode_k``) keeps its last
    ``/`` part whole and shortens the parts before it evenly, each ending with ``…``. Names
    that would become equal keep their full form.

    Parameters
    ----------
    names : sequence of str
    max_len : int, default=40

    Returns
    -------
    list of str
        One label per name, in order (the full names belong in the hover text).
    """
    out = []
    for name in names:
        name = str(name)
        if len(name) <= max_len:
            out.append(name)
            continue
        parts = name.split("/")
        head, last = parts[:-1], parts[-1]
        if not head:
            out.append(_cut(name, max_len))
            continue
        budget = max_len - len(last) - len(head)  # one "/" after each head part
        width = max(budget // len(head), 4)
        out.append("/".join([_cut(p, width) for p in head] + [last]))
    counts: dict[str, int] = {}
    for label in out:
        counts[label] = counts.get(label, 0) + 1
    return [str(n) if counts[label] > 1 else label for n, label in zip(names, out)]


def _palette(keys: list[str]) -> dict[str, str]:
    colors = qualitative.Plotly + qualitative.D3
    return {k: colors[i % len(colors)] for i, k in enumerate(keys)}


def _legend_only(fig: go.Figure, name: str, **kwargs) -> None:
    """A legend entry explaining a mark drawn elsewhere (no data point of its own)."""
    fig.add_trace(go.Scatter(x=[None], y=[None], name=name, hoverinfo="skip", text=[""], **kwargs))


def accuracy_curves_figure(curves: pd.DataFrame, *, show_mean: bool = True) -> go.Figure:
    """Per-round probing accuracy of every episode, with the middle round marked.

    Parameters
    ----------
    curves : pandas.DataFrame, shape (n_points, 7)
        Output of :func:`core.clembench.accuracy_curves` (columns ``episode``, ``model``,
        ``slots``, ``round``, ``accuracy``, ``middle``, ``aborted``).
    show_mean : bool, default=True
        Add, per number of slots, the mean accuracy of each round over the episodes that reached
        it (bold black line, one dash per number of slots).

    Returns
    -------
    plotly.graph_objects.Figure
        One thin line per episode (colour = model, dashed when the episode was aborted), a
        diamond on each episode's middle round, and a dotted vertical line at every middle round
        ("middle round (n slots)"). Every kind of mark has a legend entry; the accuracy axis is
        in % from 0 to 100.
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
                           "accuracy %{y:.0%}<extra></extra>"),
        ))
        shown.add(model)
        mid = df[df["middle"]]
        if not mid.empty:
            fig.add_trace(go.Scatter(
                x=mid["round"], y=mid["accuracy"], mode="markers", showlegend=False, legendgroup=model,
                name=f"{model}: middle round",
                marker={"symbol": "diamond", "size": 11, "color": colors[model],
                        "line": {"width": 1, "color": "black"}},
                hovertemplate=f"{episode}<br>middle round %{{x}}<br>accuracy %{{y:.0%}}<extra></extra>",
            ))
    if show_mean and not curves.empty:
        for i, (n_slots, df) in enumerate(curves.groupby("slots")):
            mean = df.groupby("round")["accuracy"].agg(["mean", "count"]).reset_index()
            fig.add_trace(go.Scatter(
                x=mean["round"], y=mean["mean"], mode="lines", name=f"mean ({n_slots} slots)",
                line={"color": "black", "width": 3, "dash": _MEAN_DASHES[i % len(_MEAN_DASHES)]},
                customdata=mean["count"],
                hovertemplate="round %{x}<br>mean accuracy %{y:.1%}<br>%{customdata} episode(s)<extra></extra>",
            ))
    # legend entries for the marks that carry no legend of their own
    if not curves.empty and curves["aborted"].any():
        _legend_only(fig, "dashed: aborted episode", mode="lines",
                     line={"color": "grey", "width": 1.2, "dash": "dash"})
    mids = sorted(curves.loc[curves["middle"], "slots"].unique().tolist()) if not curves.empty else []
    if mids:
        _legend_only(fig, "middle round of an episode", mode="markers",
                     marker={"symbol": "diamond", "size": 11, "color": "white",
                             "line": {"width": 1, "color": "black"}})
        _legend_only(fig, "dotted: middle round", mode="lines",
                     line={"color": "grey", "width": 1.5, "dash": "dot"})
    for n_slots in mids:
        mid_round = int(curves.loc[curves["middle"] & (curves["slots"] == n_slots), "round"].iloc[0])
        fig.add_vline(x=mid_round, line={"dash": "dot", "color": "grey"},
                      annotation_text=f"middle round ({n_slots} slots)", annotation_position="top")
    fig.update_layout(
        title={"text": CURVES_TITLE, "x": 0, "xanchor": "left"},
        xaxis_title="probing round (0 = before the first question)",
        yaxis_title="probe answers correct (%)",
        yaxis={"range": [-0.05, 1.05], "tickvals": [0, 0.2, 0.4, 0.6, 0.8, 1.0], "tickformat": ".0%"},
        xaxis={"dtick": 1},
        legend_title="answerer model",
        template="plotly_white",
        margin={"t": 80},
    )
    return fig


def main_score_figure(table: pd.DataFrame) -> go.Figure:
    """Main score per episode as horizontal bars; aborted episodes are marked "aborted".

    Parameters
    ----------
    table : pandas.DataFrame, shape (n_episodes, n_columns)
        Output of :func:`core.clembench.episode_table` (``episode``, ``model``,
        ``Main Score``, ``Aborted``).

    Returns
    -------
    plotly.graph_objects.Figure
        One bar per played episode (colour = model, the score written beside it), one ✕ at 0
        labelled "aborted" per aborted episode (clembench gives it no Main Score: NaN), episodes
        top to bottom in table order, labelled by :func:`short_labels` (44 characters) with the full name in
        the hover text; the score axis runs from 0 to 100 with room for the labels.
    """
    for col in ("episode", "model", "Main Score", "Aborted"):
        if col not in table.columns:
            raise DataError(f"episode table lacks column '{col}'")
    model_of = table["model"].fillna("(unknown)").astype(str)
    models = sorted(model_of.unique().tolist())
    colors = _palette(models)
    names = table["episode"].astype(str).tolist()
    labels = short_labels(names, max_len=44)
    label_of = dict(zip(names, labels))
    scores = [float(v) for v in table["Main Score"]]
    nan = [math.isnan(v) for v in scores]
    fig = go.Figure()
    for model in models:
        rows = [i for i in range(len(table)) if model_of.iloc[i] == model and not nan[i]]
        if not rows:
            continue
        fig.add_trace(go.Bar(
            y=[labels[i] for i in rows], x=[scores[i] for i in rows], name=model, orientation="h",
            marker={"color": colors[model]},
            text=[f"{scores[i]:.1f}" for i in rows], textposition="outside", cliponaxis=False,
            customdata=[names[i] for i in rows],
            hovertemplate="%{customdata}<br>Main Score %{x:.2f}<extra>" + model + "</extra>",
        ))
    aborted = [i for i in range(len(table)) if nan[i]]
    if aborted:
        fig.add_trace(go.Scatter(
            y=[labels[i] for i in aborted], x=[0] * len(aborted), mode="markers+text",
            name="aborted (no Main Score)", marker={"symbol": "x", "size": 9, "color": "#444444"},
            text=[ABORTED_TEXT] * len(aborted), textposition="middle right",
            customdata=[names[i] for i in aborted],
            hovertemplate="%{customdata}<br>aborted: no Main Score<extra></extra>",
        ))
    fig.update_layout(
        title={"text": MAIN_SCORE_TITLE, "x": 0, "xanchor": "left"},
        xaxis={"range": [-4, 112], "tickvals": [0, 20, 40, 60, 80, 100], "title": "Main Score (0–100)",
               "side": "top"},
        yaxis={"title": "episode", "categoryorder": "array", "categoryarray": [label_of[n] for n in names],
               "autorange": "reversed", "automargin": True},
        height=max(340, 170 + 22 * len(table)),
        bargap=0.25,
        template="plotly_white",
        legend={"title": {"text": "answerer model"}, "orientation": "h", "x": 0, "xanchor": "left",
                "y": 0, "yanchor": "top"},
        margin={"t": 90, "b": 20},
    )
    return fig
