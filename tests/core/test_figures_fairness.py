"""The Fairness page's figures (``core.figures.fairness``): DSM flags against the +-0.1 band by
hand, the bars, band and legend of the DSM figure, and the per-group rates on one axis per
quantity."""

from __future__ import annotations

import math

import pytest

from core.figures.fairness import DSM_BAND, RATE_METRICS, dsm_figure, dsm_flags, group_rates_figure


# ------------------------------------------------------------------------------------------
# figures
# ------------------------------------------------------------------------------------------
def test_dsm_figure_flags_band_and_missing():
    dsm = {"g.1": 0.05, "g.2": -0.2, "g.3": None, "g.4": float("nan"), "g.5": 0.1}
    assert dsm_flags(dsm) == {"g.1": "ok", "g.2": "flag", "g.3": "missing", "g.4": "nan", "g.5": "ok"}
    fig = dsm_figure(dsm, counts={"g.1": 10, "g.2": 5})
    bar = fig.data[0]
    assert list(bar.x) == ["g.1", "g.2", "g.3", "g.4", "g.5"]
    assert list(bar.y) == [0.05, -0.2, 0.0, 0.0, 0.1]
    assert list(bar.customdata) == ["ok", "flag", "missing", "nan", "ok"]
    assert bar.text[2] == "missing" and bar.text[3] == "undefined"
    assert bar.marker.color[1] != bar.marker.color[0]
    band = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(band) == 1 and (band[0].y0, band[0].y1) == (-0.1, 0.1)
    # every mark has a legend entry: the three bar colours that occur and the dashed band lines
    legend = {t.name: t for t in fig.data[1:]}
    assert set(legend) == {"within ±0.1", "outside ±0.1 (flagged)", "DSM missing or NaN (drawn at 0)",
                           "±0.1 band (acceptable |DSM|)"}
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert len(lines) == 2 and all(s.line.dash == legend["±0.1 band (acceptable |DSM|)"].line.dash for s in lines)
    assert legend["within ±0.1"].marker.color == bar.marker.color[0]
    assert legend["outside ±0.1 (flagged)"].marker.color == bar.marker.color[1]
    assert fig.layout.showlegend and not bar.showlegend


def test_group_rates_figure_skips_unavailable_metrics():
    fig = group_rates_figure({"a": {"human_ratio": 0.5, "time_cost": None}, "b": {"human_ratio": 0.25, "time_cost": None}},
                             metrics=("human_ratio", "time_cost"))
    assert [t.name for t in fig.data] == ["Human ratio (share of samples)"]
    assert list(fig.data[0].y) == [0.5, 0.25]


def test_group_rates_figure_one_axis_per_quantity_and_legend_for_lines():
    rates = {"a": {"human_ratio": 0.5, "time_cost": 0.4, "accuracy": 0.9, "machine_accuracy": 0.8},
             "b": {"human_ratio": 0.25, "time_cost": 0.2, "accuracy": 0.95, "machine_accuracy": 0.85}}
    fig = group_rates_figure(rates, overall={"human_ratio": 0.375, "accuracy": 0.925})
    bars = {t.name: t for t in fig.data if t.type == "bar"}
    # shares sent to humans on the first axis, accuracies on the second
    assert bars["Human ratio (share of samples)"].yaxis == "y" and bars["Time cost (share of effort)"].yaxis == "y"
    assert bars["Accuracy (collaborative)"].yaxis == "y2" and bars["Accuracy (machine only)"].yaxis == "y2"
    assert fig.layout.yaxis.title.text != fig.layout.yaxis2.title.text
    assert fig.layout.yaxis.tickformat == ".0%" and fig.layout.yaxis2.tickformat == ".0%"
    # the dotted whole-set lines: one shape and one legend entry each
    dotted = [s for s in fig.layout.shapes if s.line.dash == "dot"]
    entries = [t for t in fig.data if t.type == "scatter"]
    assert len(dotted) == 2 and [t.name for t in entries] == ["Human ratio, whole set (37.5%)",
                                                              "Accuracy, whole set (92.5%)"]
    assert all(t.line.dash == "dot" for t in entries)


def test_dsm_flags_at_the_band_edges_and_another_band():
    assert DSM_BAND == 0.1
    flags = dsm_flags({"a": 0.1, "b": -0.1, "c": 0.1000001, "d": -math.inf})
    assert flags == {"a": "ok", "b": "ok", "c": "flag", "d": "flag"}
    assert dsm_flags({"a": 0.15}, band=0.2) == {"a": "ok"}


def test_group_rates_metrics_and_an_unknown_metric_left_out():
    assert "human_ratio" in RATE_METRICS and "accuracy" in RATE_METRICS
    fig = group_rates_figure({"a": {"human_ratio": 0.5}}, metrics=("human_ratio",))
    assert [list(t.x) for t in fig.data if t.type == "bar"] == [["a"]]
    assert [t.y[0] for t in fig.data if t.type == "bar"] == [pytest.approx(0.5)]
