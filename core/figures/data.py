"""Figures of a dataset (the Data page): label balance and histograms binned on the server.

A histogram is counted here with numpy (:func:`histogram_counts`) and drawn as bars
(:func:`histogram`): what a page sends to the browser is one count per bin, whatever the number
of rows (plotly's own ``go.Histogram`` ships every raw value). The figures use the small white
template of :mod:`core.figures.tradeoff`, built once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.figures import plain_text
from core.figures.tradeoff import TEMPLATE

__all__ = ["BINS", "Binned", "histogram_counts", "histogram", "label_balance"]

#: Default number of bins.
BINS = 40
_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
# below the x axis, left-aligned: above the plot, right-aligned, it lay under the chart's
# toolbar (issue 33)
_LEGEND = {"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0, "xanchor": "left"}


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """One figure from trace and layout dicts in one unvalidated constructor call, with the
    small white template built once (:data:`core.figures.tradeoff.TEMPLATE`): plotly's
    validation and its copy of the "plotly_white" template by name cost more than counting a
    million rows (the builders' fixed keys are tested in tests/core/test_figures_data.py)."""
    return go.Figure(data=traces, layout={**layout, "template": TEMPLATE}, _validate=False)


@dataclass(frozen=True)
class Binned:
    """Counts of values in equal-width bins.

    Attributes
    ----------
    edges : numpy.ndarray of shape (n_bins + 1,)
        Bin edges, increasing; bin ``j`` is ``[edges[j], edges[j+1])``, the last one closed.
    counts : dict
        group name -> int array of shape (n_bins,); one group ``"all"`` without a split.
    dropped : int
        Values left out: missing, infinite or outside the range.
    """

    edges: np.ndarray
    counts: dict[str, np.ndarray]
    dropped: int = 0

    @property
    def total(self) -> int:
        """Number of values counted."""
        return int(sum(int(c.sum()) for c in self.counts.values()))


def histogram_counts(values, *, bins: int = BINS, value_range: tuple[float, float] | None = None,
                     split=None) -> Binned:
    """Count values in ``bins`` equal-width bins over ``value_range`` (default: min to max).

    Parameters
    ----------
    values : array-like of shape (n,)
        Numbers; missing and infinite values are left out (counted in ``dropped``).
    bins : int, default=40
        Number of bins (at least 1). When every value is equal, one bin of width 1 around it.
    value_range : (float, float), optional
        Lowest and highest edge, e.g. ``(0, 1)`` for a confidence; values outside are left
        out (counted in ``dropped``).
    split : array-like of shape (n,), optional
        A group per value: one count array per group (in sorted order of the groups), all on
        the same edges.

    Returns
    -------
    Binned
    """
    if bins < 1:
        raise ValueError("bins must be at least 1")
    x = np.asarray(values, dtype=float).ravel()
    ok = np.isfinite(x)
    if split is not None and len(split) != len(x):
        raise ValueError(f"split has {len(split)} values for {len(x)} values")
    if value_range is not None:
        lo, hi = float(value_range[0]), float(value_range[1])
        ok &= (x >= lo) & (x <= hi)
    elif ok.any():
        lo, hi = float(x[ok].min()), float(x[ok].max())
    else:
        lo, hi = 0.0, 1.0
    if hi <= lo:
        lo, hi, bins = lo - 0.5, lo + 0.5, 1
    edges = np.linspace(lo, hi, bins + 1)
    x_ok = x[ok]

    def count(v: np.ndarray) -> np.ndarray:  # numpy's fast path for equal-width bins
        return np.histogram(v, bins=bins, range=(lo, hi))[0].astype(np.int64)

    if split is None:
        counts = {"all": count(x_ok)}
    else:
        codes, keys = pd.factorize(pd.Series(np.asarray(split)[ok]), sort=False)
        order = sorted(range(len(keys)), key=lambda i: str(keys[i]))
        counts = {str(keys[i]): count(x_ok[codes == i]) for i in order}
    return Binned(edges=edges, counts=counts, dropped=int((~ok).sum()))


def histogram(binned: Binned, *, title: str, x_title: str, y_title: str = "number of samples",
              names: dict[str, str] | None = None) -> go.Figure:
    """Bars of a :class:`Binned` (stacked when split), one bar per bin.

    Parameters
    ----------
    binned : Binned
        From :func:`histogram_counts`.
    title, x_title, y_title : str
        Figure and axis titles (name the unit in ``x_title``).
    names : dict, optional
        group -> legend name.
    """
    edges = binned.edges
    centers = (edges[:-1] + edges[1:]) / 2
    width = float(edges[1] - edges[0])
    ranges = np.column_stack([edges[:-1], edges[1:]])
    traces = []
    split = len(binned.counts) > 1 or next(iter(binned.counts)) != "all"
    for i, (group, counts) in enumerate(binned.counts.items()):
        name = (names or {}).get(group, plain_text(group) if split else x_title)
        traces.append({
            "type": "bar", "x": centers, "y": counts, "width": width, "name": name,
            "customdata": ranges,
            "marker": {"color": _COLORS[i % len(_COLORS)], "line": {"width": 0}},
            "hovertemplate": (f"{name}<br>" if split else "")
            + "%{customdata[0]:.4g} to %{customdata[1]:.4g}: %{y:,} " + y_title
            + "<extra></extra>"})
    return _figure(traces, {"title": {"text": title}, "xaxis": {"title": {"text": x_title}},
                            "yaxis": {"title": {"text": y_title}, "tickformat": ","},
                            "height": 300,
                            "margin": {"t": 40, "b": 10 + 40 * split}, "bargap": 0,
                            "barmode": "stack",
                            "showlegend": split, "legend": _LEGEND})

def label_balance(frame: pd.DataFrame, columns: Sequence[str], *,
                  names: dict[str, str] | None = None) -> go.Figure:
    """Grouped bars of label counts, one trace per label column present in ``frame``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; missing labels are not counted.
    columns : sequence of str
        Label columns (e.g. ``human_label``, ``machine_label``).
    names : dict, optional
        column -> legend name.
    """
    traces = []
    for i, col in enumerate(columns):
        if col not in frame:
            continue
        counts = frame[col].value_counts(dropna=True)  # on the column's own values: fast
        counts.index = counts.index.map(str)
        counts = counts.groupby(level=0).sum().sort_index()
        traces.append({"type": "bar", "x": [plain_text(v) for v in counts.index],
                       "y": counts.to_numpy(), "name": (names or {}).get(col, plain_text(col)),
                       "marker": {"color": _COLORS[i % len(_COLORS)]},
                       "hovertemplate": "%{fullData.name}, %{x}: %{y:,} samples<extra></extra>"})
    return _figure(traces, {"title": {"text": "Labels"}, "barmode": "group",
                            "xaxis": {"title": {"text": "label"}, "type": "category"},
                            "yaxis": {"title": {"text": "number of samples"}, "tickformat": ","},
                            "height": 300, "margin": {"t": 40, "b": 50}, "legend": _LEGEND})
