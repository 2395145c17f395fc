"""Estimator comparison (core.mce.compare); its figures are tested in test_figures_confidence.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import load_table, prepare
from core.errors import DataError
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
