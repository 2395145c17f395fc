"""core.rsm.compare: what the Fairness page compares, and unordered labels reported with nominal
statistics only (issue 25), against hand-worked values."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from core.data import prepare
from core.rsm import (GOLD, ORDINAL_STATISTICS, SYSTEM, agreement_report, comparison_frame,
                      labels_ordered, nominal_only)


def test_labels_ordered():
    assert labels_ordered([0, 1, 2]) and labels_ordered([1.0, 2.5, 4.0])
    assert labels_ordered(["no", "yes"])  # two classes: any coding is a class share
    assert not labels_ordered(["borderline", "safe", "unsafe"])
    assert not labels_ordered([True, False, "x"])


def three_classes() -> pd.DataFrame:
    # gold:    safe unsafe borderline safe unsafe     safe   | safe unsafe borderline safe
    # machine: safe unsafe safe       safe borderline unsafe | safe unsafe borderline unsafe
    return pd.DataFrame({
        "machine_label": ["safe", "unsafe", "safe", "safe", "borderline", "unsafe",
                          "safe", "unsafe", "borderline", "unsafe"],
        "machine_confidence": [0.9, 0.8, 0.6, 0.9, 0.5, 0.7, 0.9, 0.8, 0.7, 0.6],
        "human_label": ["safe", "unsafe", "borderline", "safe", "unsafe", "safe",
                        "safe", "unsafe", "borderline", "safe"],
        "lang": ["en"] * 6 + ["ja"] * 4})


def test_unordered_labels_get_nominal_statistics_only():
    data = prepare(three_classes(), {"subgroups": ["lang"]})
    frame, info = comparison_frame(data, compare="machine", groups=["lang"])
    assert info["ordered"] is False and frame.attrs["ordered"] is False
    report = agreement_report(frame, human=GOLD, system=SYSTEM, groups=["lang"],
                              exclude_zero_scores=False)
    assert report["ordered"] is False and "no order" in report["nominal_note"]
    ev = report["eval"]
    # 6 of 10 equal -> 60%; kappa: p_o = 0.6, marginals gold (safe 5, unsafe 3, borderline 2),
    # machine (safe 4, unsafe 4, borderline 2): p_e = (20 + 12 + 4) / 100 = 0.36,
    # kappa = (0.6 - 0.36) / 0.64 = 0.375
    assert ev["N"] == 10 and ev["exact_agr"] == pytest.approx(60.0)
    assert ev["kappa"] == pytest.approx(0.375)
    for key in ("corr", "wtkappa", "adj_agr", "SMD", "RMSE", "R2", "h_mean"):
        assert ev[key] is None, key
    # by group: en 3 of 6 equal, ja 3 of 4; no DSM, so no group is flagged by it
    by = report["eval_by_lang"]
    assert by["en"]["exact_agr"] == pytest.approx(50.0) and by["ja"]["exact_agr"] == pytest.approx(75.0)
    assert by["en"]["DSM"] is None and by["ja"]["DSM"] is None
    fair = report["fairness_by_lang"]
    assert math.isnan(fair["osa"]["R2"]) and "no order" in fair["osa"]["note"]
    assert report["true_score"]["prmse_true"] is None


def test_ordered_labels_keep_every_statistic():
    df = three_classes().replace({"borderline": 1, "safe": 0, "unsafe": 2})
    data = prepare(df, {"subgroups": ["lang"]})
    frame, info = comparison_frame(data, compare="machine", groups=["lang"])
    assert info["ordered"] is True
    report = agreement_report(frame, human=GOLD, system=SYSTEM, groups=["lang"],
                              exclude_zero_scores=False)
    assert "ordered" not in report
    # gold 0 2 1 0 2 0 0 2 1 0, machine 0 2 0 0 1 2 0 2 1 2: differences 0 0 1 0 1 2 0 0 0 2,
    # adjacent (|d| <= 1) 8 of 10
    assert report["eval"]["adj_agr"] == pytest.approx(80.0)
    assert report["eval"]["corr"] is not None


def test_nominal_only_keeps_the_shape():
    rep = {"eval": {"N": 4, "kappa": 0.5, "corr": 0.7, "DSM": 0.2}, "responses": {"kept": 4},
           "eval_by_g": {"a": {"N": 2, "DSM": 0.3, "exact_agr": 50.0}},
           "degradation": {"corr": 0.1}, "disattenuated_correlations_by_g": {"x": 1}}
    out = nominal_only(rep)
    assert out["eval"] == {"N": 4, "kappa": 0.5, "corr": None, "DSM": None}
    assert out["eval_by_g"] == {"a": {"N": 2, "DSM": None, "exact_agr": 50.0}}
    assert out["degradation"] is None and out["disattenuated_correlations_by_g"] is None
    assert out["responses"] == {"kept": 4} and rep["eval"]["corr"] == 0.7  # not changed in place
    assert {"corr", "wtkappa", "adj_agr", "DSM", "prmse_true"} <= ORDINAL_STATISTICS
    assert "kappa" not in ORDINAL_STATISTICS and "exact_agr" not in ORDINAL_STATISTICS
