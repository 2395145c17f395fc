"""In a real browser: a labelling stream is planned on the Evaluate page ("label until" mode,
with a question), the annotators simulated, and the result shows the stream chart (intervals
against labels spent) and the stop sentence."""

from __future__ import annotations

import re

import pytest

from tests.e2e.servers import streamlit_server
from tests.e2e.test_evaluate_browser import _click, _open_evaluate, _open_expander, _wait_idle

pytestmark = pytest.mark.e2e


def test_stream_chart_and_stop_sentence(browser, tmp_path):
    env = {"HMCEVAL_WORKSPACE": str(tmp_path / "ws")}
    with streamlit_server(tmp_path / "server.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.set_default_timeout(120_000)
        _open_evaluate(page, url)
        page.get_by_text("Label until the answer is good enough").first.click()
        _wait_idle(page)
        page.get_by_text("Most labels (the queue's length)").first.wait_for()
        # a question: is the share of '1' (about 30% on the demo) at most 5%?
        page.get_by_text("the share of a class").first.click()
        _wait_idle(page)
        page.get_by_text(re.compile(r"the question is decided: is the share of '1' at most "
                                    r"5\.0%\?")).first.wait_for()
        _click(page, "Plan the round")
        page.get_by_text("Round #1 planned and saved").wait_for()
        _wait_idle(page)
        _open_expander(page, "Simulate the annotators", "Fill labels from gold")
        _click(page, "Fill labels from gold")
        # the stream chart (plotly's SVG title) with a point after the import, and the sentence
        page.locator(".js-plotly-plot .gtitle",
                     has_text="Intervals against labels spent").first.wait_for(timeout=180_000)
        page.locator(".js-plotly-plot .legendtext",
                     has_text="after each import").first.wait_for()
        page.get_by_text(re.compile(r"Stop now: share of '1' [\d.]+% .*decided after [\d,]+ "
                                    r"labels")).first.wait_for()
        page.get_by_text(re.compile(r"saves [\d,]+ labels")).first.wait_for()
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        page.close()
