"""Plain-language summaries: effort units from column names, sentences with hand-worked values."""

from __future__ import annotations

import pandas as pd
import pytest

from core.data import prepare
from core.format import pct
from core.summary import (UNKNOWN_UNIT, data_effort_unit, effort_unit, per_unit, round_sentence,
                          tradeoff_summary)


@pytest.mark.parametrize("name, unit", [
    ("annot_seconds", "seconds"), ("WorkTimeInSeconds", "seconds"), ("time_s", "seconds"),
    ("effortSec", "seconds"), ("duration_ms", "milliseconds"), ("annotation_minutes", "minutes"),
    ("time_min", "minutes"), ("hours_spent", "hours"), ("effort_h", "hours"),
    ("human_effort_predicted_avg", UNKNOWN_UNIT), ("admin_effort", UNKNOWN_UNIT), ("secondary_effort", UNKNOWN_UNIT),
    ("session", UNKNOWN_UNIT), (None, UNKNOWN_UNIT), ("", UNKNOWN_UNIT)])
def test_effort_unit_from_the_column_name(name, unit):
    assert effort_unit(name) == unit


def test_data_effort_unit():
    base = {"machine_label": [0, 1, 1, 0], "machine_confidence": [0.9, 0.8, 0.6, 0.7],
            "human_label": [0, 1, 0, 0]}
    secs = prepare(pd.DataFrame({**base, "annot_seconds": [40, 12, 55, 43]}),
                   {"human_effort": "annot_seconds"})
    assert data_effort_unit(secs) == "seconds"
    assert data_effort_unit(prepare(pd.DataFrame(base))) == UNKNOWN_UNIT  # uniform effort
    assert per_unit("seconds") == "per second" and per_unit(UNKNOWN_UNIT) == "per effort unit"


def _res(**kw):
    res = {"M": 5673, "N": 2836, "lambda": 0.01, "mode": "at_most", "n_human": 1728,
           "accuracy": 0.98456, "time_cost": 0.5112, "time_cost_predicted": 0.4,
           "expected_reliability": 0.97, "machine_only": {"accuracy": 0.86204}}
    res.update(kw)
    return res


def test_tradeoff_headline_hand_worked():
    s = tradeoff_summary(_res(), unit="seconds")
    # 1 - 0.5112 = 0.4888 -> 49%; accuracies to one decimal
    assert s.headline == ("Accuracy rises from 86.2% to 98.5% while annotation effort falls by 49% "
                          "compared with labelling everything (1,728 of 5,673 samples go to "
                          "humans).")
    # 1728 < N = 2836 in "at most" mode: the reason is given, with lambda and its unit
    assert s.why.startswith("Only 1,728 of the 2,836 samples the budget allows go to humans: at "
                            "λ = 0.01 (per second) the other samples' gain")
    assert "stay with the machine" in s.why


def test_tradeoff_headline_variants():
    # no ground-truth effort: the predicted effort's share (1 - 0.955 = 0.045 -> 4.5%)
    s = tradeoff_summary(_res(time_cost=None, time_cost_predicted=0.955, n_human=2836))
    assert "predicted annotation effort falls by 4.5%" in s.headline and s.why is None
    # exactly N (never a "why"), and an accuracy that does not move at one decimal
    s = tradeoff_summary(_res(mode="exactly", n_human=2836, accuracy=0.8621))
    assert s.headline.startswith("Accuracy stays at 86.2% while") and s.why is None
    # nobody and everybody
    assert tradeoff_summary(_res(n_human=0, accuracy=0.86204)).headline == (
        "No sample goes to humans: the machine labels all 5,673 (accuracy 86.2%).")
    assert tradeoff_summary(_res(n_human=5673, N=5673, accuracy=1.0)).headline == (
        "Humans label all 5,673 samples: accuracy 100.0%, at the effort of labelling everything.")
    # no gold labels: expected accuracy from the confidences
    s = tradeoff_summary(_res(accuracy=None, machine_only=None, expected_reliability=0.95),
                         machine_expected=0.9)
    assert s.headline.startswith("Expected accuracy rises from 90.0% to 95.0%")
    s = tradeoff_summary(_res(n_human=0, accuracy=0.86204, mode="at_most", N=10))
    assert s.why.startswith("None of the 10 samples the budget allows goes to humans: at λ = 0.01 "
                            "(per effort unit)")


def test_headline_agrees_with_the_cards():
    """The QA case on the demo at λ = 5000: the headline said "stays at 88.6%" while the card
    said "+0.1 points", and "falls by 100%" while 38 samples still went to humans."""
    # machine 0.8856, collaborative 0.8864: both read 88.6%, the card reads +0.1 points
    s = tradeoff_summary(_res(n_human=38, accuracy=0.8864, machine_only={"accuracy": 0.8856},
                              time_cost=0.002))
    assert s.headline.startswith("Accuracy rises by 0.1 points (to 88.6%) while annotation "
                                 "effort falls by 99.8% compared with labelling everything (38 of")
    # a change the cards show as +0.0 points: "stays"
    s = tradeoff_summary(_res(accuracy=0.86204, machine_only={"accuracy": 0.8620}))
    assert s.headline.startswith("Accuracy stays at 86.2% while")
    # near the ends: never "100%" or "0%" unless exact
    assert "falls by over 99.9% compared" in tradeoff_summary(_res(time_cost=0.0002)).headline
    assert "falls by under 0.1% compared" in tradeoff_summary(_res(time_cost=0.9998)).headline
    assert "falls by 95% compared" in tradeoff_summary(_res(time_cost=0.05)).headline
    assert "falls by 9.9% compared" in tradeoff_summary(_res(time_cost=0.901)).headline


def test_pct():
    assert pct(0.98456) == "98.5%" and pct(None) == "n/a" and pct(float("nan")) == "n/a"


def test_round_sentence_hand_worked():
    s = {"effort": {"rows_labelled": 1900, "rows_total": 5673, "effort_share": 0.412,
                    "effort_unit": "human_effort"},
         "estimate": {"accuracy": {"estimate": 0.98764, "ci_low": 0.98119}}}
    assert round_sentence(s) == (
        "Humans labelled 1,900 of 5,673 samples, 41% of the annotation effort of labelling "
        "everything (59% saved); the final labels are estimated 98.8% accurate (at least 98.1% "
        "with 95% confidence).")
    s["effort"].update(effort_share=None)
    s["estimate"] = None
    assert round_sentence(s) == "Humans labelled 1,900 of 5,673 samples."


def test_beyond_lambda_range_in_words():
    from core.summary import beyond_lambda_range

    assert beyond_lambda_range(0, "at_most") == "no sample goes to humans"
    assert beyond_lambda_range(1, "at_most") == ("only the 1 sample whose effort is not above the "
                                                 "machine's (e.g. 0) goes to humans")
    assert beyond_lambda_range(1234, "at_most").startswith("only the 1,234 samples")
    assert beyond_lambda_range(5, "exactly") == ("the assignment no longer changes (the N samples of "
                                                 "least effort go)")


def test_hours_per_unit_by_hand():
    from core.format import hours_per_unit

    # 7,200 seconds, 120 minutes and 7,200,000 ms are 2 hours
    assert 7200 * hours_per_unit("seconds") == pytest.approx(2.0)
    assert 120 * hours_per_unit("minutes") == pytest.approx(2.0)
    assert 7_200_000 * hours_per_unit("milliseconds") == pytest.approx(2.0)
    assert hours_per_unit("hours") == 1.0
    assert hours_per_unit("effort units") is None


def test_setting_number_never_scientific():
    """λ and other settings as a reader types them: significant digits kept, no e-notation
    (hand-written expectations; f"{x:g}" gives 4.6e-05 and 1.235e+04)."""
    from core.format import setting_number

    assert setting_number(4.6) == "4.6" and setting_number(7.25) == "7.25"
    assert setting_number(4.6e-05) == "0.000046"
    assert setting_number(0.04645123) == "0.04645"
    assert setting_number(12345.6) == "12,350" and setting_number(1234567) == "1,235,000"
    assert setting_number(0.0) == "0" and setting_number(50) == "50"
    assert setting_number(-0.5) == "-0.5" and setting_number(float("nan")) == "n/a"
    assert setting_number(1 / 3, digits=6) == "0.3333"  # never more than 4 significant digits


def test_certificate_totals_count_the_audit_as_the_result_does():
    """issue 33: the guarantee sentence said 956 go to humans where the result said 2,156
    labelled (1,000 calibration + 956 routed + 200 audit). Counted by hand from the demo's
    certified round."""
    from core.summary import certificate_totals

    cert = {"n_calibration": 1000, "n_human": 956, "n_machine": 1601, "audit": 200}
    assert certificate_totals(cert) == (
        "Humans label 2,156 rows in all: the 1,000 calibration rows, the 956 routed and an "
        "audit of 200 of the 1,601 rows the machine keeps (to measure the result); the "
        "machine's labels stand for the other 1,401.")
    # no audit: the sentence's counts are the result's already
    assert certificate_totals({**cert, "audit": 0}) is None
    # an audit larger than the kept rows takes them all
    assert certificate_totals({**cert, "n_machine": 150}).startswith(
        "Humans label 2,106 rows in all")
    assert certificate_totals({"guarantee": "…"}) is None
