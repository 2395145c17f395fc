"""core.workspace.report: the stakeholder report's first screen (a summary box), its appendix
and its fonts (issue 25), against hand-worked values."""

from __future__ import annotations

import re

import pytest

from core.data import prepare
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.report import FONT_STACK, round_report_html, summary_box
from tests.judge_table import judge_table


def _text(page: str) -> str:
    import html

    return html.unescape(re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", re.sub(
        "<script.*?</script>", "", page, flags=re.S))))


def test_summary_box_reads_hours_the_answer_and_the_groups():
    s = {"effort": {"rows_labelled": 1900, "rows_total": 5673, "effort_spent": 36_000.0,
                    "effort_all": 72_340.0, "effort_share": 36_000 / 72_340,
                    "effort_unit": "human_effort"},
         "estimate": {"confidence": 0.95, "design": "routing",
                      "accuracy": {"estimate": 0.9876, "ci_low": 0.9812, "ci_high": None},
                      "class_shares": {"safe": {"estimate": 0.61, "ci_low": 0.6, "ci_high": 0.62}},
                      "notes": ["The audit is small."]},
         "certificate": {"guarantee": "The machine's error is at most 5%."},
         "group_accuracy": {"language": {}}, "group_notes": ["language = ja: worse."]}
    box = _text(summary_box(s, {"human_effort": "review_seconds"}))
    assert "the final labels are 98.8% accurate, at least 98.1% with 95% confidence" in box
    assert "safe 61.0% (60.0% – 62.0%)" in box
    # 36,000 s = 10.0 h of 72,340 s = 20.1 h: 36,340 s = 10.1 h saved
    assert ("Humans labelled 1,900 of 5,673 responses, 10.0 h of work; labelling everything "
            "would take 20.1 h, so 10.1 h were saved.") in box
    assert "Groups: language = ja: worse." in box
    assert "Guarantee: The machine's error is at most 5%." in box
    assert "Caveats: The audit is small." in box
    # effort without a unit of time: shares, never "e+04"
    box = _text(summary_box(s, {"human_effort": "cost"}))
    assert "50% of the effort of labelling everything (50% saved)" in box
    assert "e+0" not in box


def test_report_opens_with_the_summary_and_ends_with_the_appendix(tmp_path):
    ws = Workspace(tmp_path / "ws")
    data = prepare(judge_table(per_group=100, seed=0), name="judge")
    rid = R.plan_round(ws, data, kind="budget", settings={"design": "active", "labels": 120,
                                                          "seed": 0})
    R.simulate_annotators(ws, rid)
    page = round_report_html(ws, rid)
    body = page[page.index("<body>"):]
    assert body.index("class='summary'") < body.index("The question")
    # the effort column is in seconds: the summary reads hours or minutes
    summary = _text(body[body.index("class='summary'"):body.index("The question")])
    assert re.search(r"\d(\.\d)? (h|min) of work", summary), summary
    # the scenario's JSON is folded away in the appendix, after the figures
    assert body.index("Key figures") < body.index("Appendix</p><h2>Settings to reproduce</h2>")
    assert "<details><summary>Show the scenario (JSON)</summary><pre>" in body
    # a font stack that covers Japanese text, for the page and the figures
    assert "Noto Sans CJK JP" in FONT_STACK and "Hiragino Sans" in FONT_STACK
    assert f"font-family: {FONT_STACK}" in page
    assert "Noto Sans CJK JP" in body  # the figures' layouts carry it too
