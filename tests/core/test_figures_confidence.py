"""The Confidence page's figures (``core.figures.confidence``): ROC, risk-coverage,
reliability and the estimators' SAE curves drawn from a comparison worked out by hand
(:mod:`core.mce.compare` on six samples), titles that fit, long curves thinned, lambdas
written plainly in the subtitle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from core.figures.confidence import (color_of, reliability_figure, risk_coverage_figure,
                                     roc_figure, sae_estimators_figure, sae_subtitle, title)
from core.mce.compare import compare_confidences

Y_TRUE = ["a", "b", "a", "b", "a", "b"]
OK = [True, True, False, True, False, True]  # by decreasing confidence
CONF = [0.95, 0.85, 0.75, 0.55, 0.35, 0.15]
Y_PRED = [t if ok else ("b" if t == "a" else "a") for t, ok in zip(Y_TRUE, OK)]


def test_confidence_figures_from_a_comparison_by_hand():
    cmp = compare_confidences(Y_TRUE, Y_PRED, {"c": CONF, "d": CONF[::-1]}, n_bins=5)
    aucs = dict(zip(cmp.table["confidence"], cmp.table["auc"]))
    fig = roc_figure(cmp.roc, aucs=aucs)
    assert isinstance(fig, go.Figure) and len(fig.data) == 3  # two curves and chance
    assert fig.data[0].name == "c (AUC 0.6250)"
    fig = risk_coverage_figure(cmp.risk, top=0.5)
    assert list(fig.data[0].y) == pytest.approx([0, 0, 1 / 3, 1 / 4, 2 / 5, 2 / 6])
    fig = reliability_figure(cmp.bins)
    # perfect calibration, two estimators, and the legend entry saying what the marker size means
    assert len(fig.data) == 4 and list(fig.data[1].y) == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert fig.data[3].name == "marker size: samples in the bin" and list(fig.data[3].x) == [None]
    for f in (fig, roc_figure(cmp.roc), risk_coverage_figure(cmp.risk)):
        main, _, sub = f.layout.title.text.partition("<br>")
        assert len(main) <= 40 and len(sub.replace("<sup>", "").replace("</sup>", "")) <= 60
    # long curves are thinned to at most max_points (+ the last point)
    big = {"c": pd.DataFrame({"fpr": np.linspace(0, 1, 10_001), "tpr": np.linspace(0, 1, 10_001)})}
    thin = roc_figure(big, max_points=100)
    assert len(thin.data[0].x) <= 101 and thin.data[0].x[-1] == 1.0 and thin.data[0].x[0] == 0.0
    points = pd.DataFrame({"confidence": ["c", "d"], "time_cost": [0.5, 0.4], "accuracy": [0.98, 0.97],
                           "lambda": [1.0, 1.0]})
    curves = pd.DataFrame({"confidence": ["c", "c", "d"], "lambda": [0.0, 1.0, 0.0],
                           "time_cost": [0.6, 0.5, 0.55], "accuracy": [0.99, 0.98, 0.985]})
    fig = sae_estimators_figure(points, curves, machine_only=0.86)
    # issue 25: the subtitle names the lambda the lines span (0 to 1 here, not "0 to 50"), the
    # y axis fits accuracies 0.86-0.99 (span 0.13, 8% margins), the x axis is a share
    assert fig.layout.title.text.endswith("lines: λ from 0 to 1</sup>")
    assert list(fig.layout.yaxis.range) == pytest.approx([0.8496, 1.0004])
    assert fig.layout.xaxis.tickformat == ".0%" and "SAE" not in fig.layout.title.text
    assert [t.mode for t in fig.data] == ["lines", "markers", "lines", "markers"]


def test_sae_subtitle_writes_small_lambdas_plainly():
    """Efforts in seconds give lambdas of 10^-5: the Confidence chart's subtitle wrote
    '4.645e-05' with :.4g."""
    assert sae_subtitle(pd.DataFrame({"lambda": [0.0, 4.645e-05]})) == (
        "stars: current · lines: λ from 0 to 0.00004645")


def test_title_and_colours():
    assert title("Main") == {"text": "Main", "x": 0.0, "xanchor": "left"}
    assert title("Main", "sub")["text"] == "Main<br><sup>sub</sup>"
    assert color_of(0) != color_of(1)
    assert color_of(len({color_of(i) for i in range(100)})) == color_of(0)  # the palette cycles


def test_sae_subtitle_without_lines_and_as_its_docstring_says():
    assert sae_subtitle(None) == "stars: current setting"
    assert sae_subtitle(pd.DataFrame({"lambda": []})) == "stars: current setting"
    assert sae_subtitle(pd.DataFrame({"lambda": [0.0, 0.01, 0.04645]})) == (
        "stars: current · lines: λ from 0 to 0.04645")
