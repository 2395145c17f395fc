"""In a real browser: an active round is planned on the Evaluate page, its frontier drawn, the
annotators simulated and the result shown with what each interval is worth and the accuracy by
group."""

from __future__ import annotations

import re

import pytest

from tests.e2e.servers import streamlit_server
from tests.e2e.test_evaluate_browser import _click, _open_evaluate, _open_expander, _wait_idle

pytestmark = pytest.mark.e2e


def test_active_round_frontier_and_result(browser, tmp_path):
    env = {"HMCEVAL_WORKSPACE": str(tmp_path / "ws")}
    with streamlit_server(tmp_path / "server.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.set_default_timeout(90_000)
        _open_evaluate(page, url)
        page.get_by_text("Active (recommended)").first.click()
        _wait_idle(page)
        # the frontier is drawn (plotly's SVG title) with the recommended design marked
        page.locator(".js-plotly-plot .gtitle", has_text="Designs for this budget").first.wait_for()
        page.locator(".js-plotly-plot .legendtext", has_text="recommended (worth").first.wait_for()
        page.get_by_text("Humans will label about 1,978 of 3,557 samples").first.wait_for()
        _click(page, "Plan the round")
        page.get_by_text("Round #1 planned and saved").wait_for()
        _wait_idle(page)
        _open_expander(page, "Simulate the annotators", "Fill labels from gold")
        _click(page, "Fill labels from gold")
        # the result's metric (the round's design, in a closed expander above, says "expected
        # accuracy of the final labels" too)
        page.locator('[data-testid="stMetricLabel"]',
                     has_text="Accuracy of the final labels").first.wait_for()
        page.get_by_text("Accuracy of the final labels by group").first.wait_for()
        # the round is labelled: the next plan rests on its labels by default, within the rows
        # left (the budget box was clipped, no error)
        page.get_by_text(re.compile(r"Planned on the [\d,]+ labels of round #1")).first.wait_for()
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0
        # every class share's interval says what it is worth in random labels
        assert page.get_by_text("random labels").count() >= 2
        page.locator(".js-plotly-plot .gtitle",
                     has_text="Accuracy of the final labels by group").first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0
        page.close()
