"""Evaluate page, section 4 (issue 25): the report's downloads, HTML and PDF; where no PDF can be
printed, the reason in words instead of the button (never a silent fallback)."""

from __future__ import annotations

from core.data import prepare
from core.workspace import Workspace, default_root
from core.workspace import rounds as R
from tests.judge_table import judge_table

PAGE = "2a_Evaluate.py"


def _labelled_round() -> int:
    ws = Workspace(default_root())
    rid = R.plan_round(ws, prepare(judge_table(per_group=60), name="judge"), kind="budget",
                       settings={"lam": 1.0, "share": 0.3, "audit": 60, "seed": 0})
    R.simulate_annotators(ws, rid)
    return rid


def test_the_result_offers_the_report_as_html_and_pdf(run_page):
    _labelled_round()
    at = run_page(PAGE)  # a new session resumes the latest round's dataset
    assert not at.exception and not at.error
    labels = [d.label for d in at.get("download_button")]
    assert "Report for stakeholders (HTML)" in labels
    assert "Report for stakeholders (PDF)" in labels
    assert not any(c.value.startswith("PDF:") for c in at.caption)


def test_without_a_chromium_the_page_says_what_to_install(run_page, monkeypatch, tmp_path):
    monkeypatch.setenv("HMCEVAL_CHROMIUM", str(tmp_path / "no-chromium"))
    _labelled_round()
    at = run_page(PAGE)
    assert not at.exception and not at.error
    labels = [d.label for d in at.get("download_button")]
    assert "Report for stakeholders (HTML)" in labels
    assert "Report for stakeholders (PDF)" not in labels
    why = next(c.value for c in at.caption if c.value.startswith("PDF:"))
    assert "no-chromium does not exist" in why and "apt-get install chromium" in why
