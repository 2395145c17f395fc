"""core.workspace.digest: the one-screen summary of a round (issue 25), shared by the report's
summary box and the Home page, against hand-worked values."""

from __future__ import annotations

import html
import re

from core.workspace.digest import QUESTION, round_digest
from core.workspace.report import summary_box


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub("<[^>]+>", "", page)))


def _group(m, est, lo, hi):
    return {"M": m, "estimate": est, "ci_low": lo, "ci_high": hi, "machine_accuracy": est,
            "human_share": 0.3, "effort": 30.0, "conservative": False}


SUMMARY = {
    "effort": {"rows_labelled": 1900, "rows_total": 5673, "effort_spent": 36_000.0,
               "effort_all": 72_340.0, "effort_share": 36_000 / 72_340,
               "effort_unit": "human_effort"},
    "estimate": {"confidence": 0.95, "design": "routing",
                 "accuracy": {"estimate": 0.9876, "ci_low": 0.9812, "ci_high": None},
                 "class_shares": {"safe": {"estimate": 0.61, "ci_low": 0.6, "ci_high": 0.62}},
                 "notes": ["The audit is small.", "language = ja: worse."]},
    "certificate": {"guarantee": "The machine's error is at most 5%."},
    "group_accuracy": {"language": {"en": _group(4000, 0.991, 0.985, 0.996),
                                    "日本語": _group(1673, 0.802, 0.75, 0.85)}},
    "worse_groups": [{"column": "language", "group": "日本語"}],
    "group_notes": ["language = ja: worse."]}


def test_digest_reads_the_answer_hours_groups_guarantee_and_caveats():
    d = round_digest(SUMMARY, {"human_effort": "review_seconds"})
    assert d["question"] == QUESTION
    assert d["answer"] == {"accuracy": 0.9876, "ci_low": 0.9812, "ci_high": None, "level": "95%",
                           "one_sided": True, "interval": "at least 98.1%"}
    # 36,000 s = 10.0 h of 72,340 s = 20.1 h: 36,340 s = 10.1 h saved
    assert d["effort"] == {"labelled": 1900, "total": 5673, "unit": "seconds",
                           "share": 36_000 / 72_340, "spent": "10.0 h", "all": "20.1 h",
                           "saved": "10.1 h"}
    assert list(d["groups"]["group"]) == ["en", "日本語"]
    assert list(d["groups"]["worse"]) == [False, True]
    assert d["worse"] == ["language = ja: worse."]
    assert d["guarantee"] == "The machine's error is at most 5%."
    assert d["caveats"] == ["The audit is small."]  # the worse group's note is with the groups
    lines = {ln.key: ln for ln in d["lines"]}
    assert list(lines) == ["question", "answer", "effort", "groups", "guarantee", "caveats"]
    assert lines["groups"].text == ("language: en 99.1%, 日本語 80.2% (worse). "
                                    "language = ja: worse.")
    assert ("日本語 80.2% (worse)", True) in lines["groups"].parts  # the worse group in bold


def test_summary_box_renders_the_digest_escaped():
    box = summary_box(SUMMARY, {"human_effort": "review_seconds"})
    text = _text(box)
    assert "Answer: the final labels are 98.8% accurate, at least 98.1% with 95% confidence" in text
    assert "safe 61.0% (60.0% – 62.0%)" in text
    assert ("Humans labelled 1,900 of 5,673 responses, 10.0 h of work; labelling everything "
            "would take 20.1 h, so 10.1 h were saved.") in text
    assert "Groups: language: en 99.1%, 日本語 80.2% (worse). language = ja: worse." in text
    assert "Guarantee: The machine's error is at most 5%." in text
    assert "Caveats: The audit is small." in text
    assert "<b>98.8%</b>" in box and "<b>日本語 80.2% (worse)</b>" in box
    # data is escaped: a class named like markup stays text
    s = {**SUMMARY, "estimate": {**SUMMARY["estimate"], "class_shares": {
        "<i>x</i>": {"estimate": 0.5, "ci_low": 0.4, "ci_high": 0.6}}}}
    assert "&lt;i&gt;x&lt;/i&gt; 50.0%" in summary_box(s, {})


def test_two_sided_interval_and_effort_without_a_time_unit():
    s = {**SUMMARY, "estimate": {**SUMMARY["estimate"], "design": "active",
                                 "accuracy": {"estimate": 0.9, "ci_low": 0.85, "ci_high": 0.95}},
         "certificate": None, "group_accuracy": None, "group_notes": [], "worse_groups": []}
    d = round_digest(s, {"human_effort": "cost"})
    assert d["answer"]["interval"] == "85.0% – 95.0%" and not d["answer"]["one_sided"]
    assert "the final labels are 90.0% accurate (95% interval 85.0% – 95.0%)" in d["lines"][1].text
    # 36,000 of 72,340 = 49.8 %: shares, never "e+04"
    assert d["effort"]["spent"] == "50% of the effort" and d["effort"]["saved"] == "50%"
    assert d["lines"][2].text == ("Humans labelled 1,900 of 5,673 responses, 50% of the effort "
                                  "of labelling everything (50% saved).")
    assert d["groups"] is None and d["guarantee"] is None
    assert [ln.key for ln in d["lines"]] == ["question", "answer", "effort", "caveats"]


def test_no_result_yet():
    s = {**SUMMARY, "estimate": None, "estimate_error": "12 routed rows still need a human label",
         "certificate": None}
    d = round_digest(s, {})
    assert d["answer"] is None and d["groups"] is None and d["caveats"] == []
    assert d["lines"][1].text == "not yet: 12 routed rows still need a human label."
