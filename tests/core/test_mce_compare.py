"""Estimator comparison (core.mce.compare) and its figures (core.figures.confidence)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from core.data import load_table, prepare
from core.errors import DataError
from core.figures.confidence import reliability_figure, risk_coverage_figure, roc_figure, sae_estimators_figure
from core.mce.compare import compare_confidences, estimator_inputs, sae_by_estimator

Y_TRUE = ["a", "b", "a", "b", "a", "b"]
OK = [True, True, False, True, False, True]  # by decreasing confidence
CONF = [0.95, 0.85, 0.75, 0.55, 0.35, 0.15]
Y_PRED = [t if ok else ("b" if t == "a" else "a") for t, ok in zip(Y_TRUE, OK)]


def test_compare_by_hand():
    cmp = compare_confidences(Y_TRUE, Y_PRED, {"c": CONF, "raw": [9, 8, 7, 6, 5, 4]}, top=0.5, n_bins=5)
    row = cmp.table.set_index("confidence").loc["c"]
    assert row["auc"] == pytest.approx(5 / 8) and row["top_accuracy"] == pytest.approx(2 / 3)
    assert row["aurc"] == pytest.approx(79 / 360) and row["ece"] == pytest.approx(2.6 / 6)
    assert row["mean"] == pytest.approx(np.mean(CONF))
    assert cmp.accuracy == pytest.approx(4 / 6)
    # the same ranking gives the same AUC; no calibration for a confidence outside [0, 1]
    assert cmp.table.set_index("confidence").loc["raw", "auc"] == pytest.approx(5 / 8)
    assert set(cmp.bins) == {"c"} and set(cmp.roc) == set(cmp.risk) == {"c", "raw"}


def test_sae_by_estimator_reproduces_the_released_run(shared_data):
    data = prepare(load_table(shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv"))
    m = data.M
    n = int(0.5 * m)
    points, curves = sae_by_estimator(data, ["machine_confidence"], lam=4.6, n_human=n, lams=[0.0, 4.6, 500.0])
    p = points.iloc[0]
    # the authors' SAE output at lambda 4.6, N/M 0.5 (ilp_out_trustscore_f2_lambda4.6_q0.5.tsv)
    assert (round(p["accuracy"], 5), round(p["f1"], 5), round(p["time_cost"], 5)) == (0.98484, 0.97942, 0.50556)
    assert list(curves["lambda"]) == [0.0, 4.6, 500.0] and (curves["confidence"] == "machine_confidence").all()
    row = curves[curves["lambda"] == 4.6].iloc[0]
    assert row["accuracy"] == pytest.approx(p["accuracy"]) and row["time_cost"] == pytest.approx(p["time_cost"])


def test_sae_by_estimator_lambda0_sends_the_least_confident():
    rng = np.random.default_rng(1)
    m = 200
    gold = rng.integers(0, 2, m)
    pred = np.where(rng.random(m) < 0.7, gold, 1 - gold)
    df = pd.DataFrame({"human_label": gold, "machine_label": pred, "conf_a": rng.random(m),
                       "conf_b": np.where(pred == gold, 0.9, 0.1) + rng.random(m) * 0.05})
    data = prepare(df)
    points, curves = sae_by_estimator(data, ["conf_a", "conf_b"], lam=0.0, n_human=60, mode="exactly")
    assert curves.empty
    # the inputs built once per dataset (the page's cache), given for one column of the two
    inputs = estimator_inputs(data, ["conf_a"])
    np.testing.assert_array_equal(inputs["conf_a"].a, df["conf_a"].to_numpy())
    given, _ = sae_by_estimator(data, ["conf_a", "conf_b"], lam=0.0, n_human=60, mode="exactly", inputs=inputs)
    for col in ("conf_a", "conf_b"):
        human = np.zeros(m, dtype=bool)
        human[np.argsort(df[col].to_numpy(), kind="stable")[:60]] = True
        expected = float(np.mean(np.where(human, gold, pred) == gold))
        for table in (points, given):
            got = table.set_index("confidence").loc[col]
            assert got["accuracy"] == pytest.approx(expected) and got["n_human"] == 60
    # conf_b separates right from wrong machine labels perfectly: 60 humans fix 60 errors at most
    n_wrong = int((pred != gold).sum())
    assert points.set_index("confidence").loc["conf_b", "accuracy"] == pytest.approx(1 - max(n_wrong - 60, 0) / m)
    with pytest.raises(DataError):
        sae_by_estimator(data, [], lam=0.0, n_human=10)
    with pytest.raises(DataError):
        estimator_inputs(data, [])


def test_figures():
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
