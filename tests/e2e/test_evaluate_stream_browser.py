"""In a real browser: a labelling stream is planned on the Evaluate page ("label until" mode,
with a question), the annotators simulated, and the result shows the stream chart (intervals
against labels spent) and the stop sentence."""

from __future__ import annotations

import re

import pytest

from tests.e2e.servers import streamlit_server
from tests.e2e.test_evaluate_browser import (_click_until_shown, _open_evaluate, _open_expander,
                                             _wait_idle)

pytestmark = pytest.mark.e2e


def _choose(page, option: str, shows) -> None:
    """Click a radio option until what it brings (``shows``, a locator) is visible."""
    _click_until_shown(page, page.get_by_text(option, exact=True).first, shows, tries=5,
                       timeout=20_000)


def _click_until(page, button: str, shows, *, unless) -> None:
    """Click ``button`` until ``shows`` is visible, clicking again only while ``unless`` (the
    state before the click) still shows: a lost click is repeated, a slow one waited for."""
    for _ in range(4):
        page.get_by_role("button", name=button).first.click()
        try:
            shows.first.wait_for(state="visible", timeout=90_000)
            return
        except Exception:  # playwright's TimeoutError
            _wait_idle(page)
            if not unless.first.is_visible():
                break
    shows.first.wait_for(state="visible", timeout=180_000)


def test_stream_chart_and_stop_sentence(browser, tmp_path):
    env = {"HMCEVAL_WORKSPACE": str(tmp_path / "ws")}
    with streamlit_server(tmp_path / "server.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.set_default_timeout(120_000)
        _open_evaluate(page, url)
        _choose(page, "Label until the answer is good enough",
                page.get_by_text("Most labels (the queue's length)").first)
        _wait_idle(page)
        # a question: is the share of '1' (about 30% on the demo) at most 5%?
        _choose(page, "the share of a class",
                page.get_by_text(re.compile(r"the question is decided: is the share of '1' at "
                                            r"most 5\.0%\?")).first)
        _wait_idle(page)
        _click_until(page, "Plan the round", page.get_by_text("Round #1 planned and saved"),
                     unless=page.get_by_text("No round for this dataset yet"))
        _wait_idle(page)
        _open_expander(page, "Simulate the annotators", "Fill labels from gold")
        # the stream chart (plotly's SVG title) with a point after the import, and the sentence
        _click_until(page, "Fill labels from gold",
                     page.locator(".js-plotly-plot .gtitle",
                                  has_text="Intervals against labels spent").first,
                     unless=page.get_by_text("Round #1: 0 of 1,000 labelled"))
        page.locator(".js-plotly-plot .legendtext",
                     has_text="after each import").first.wait_for()
        page.get_by_text(re.compile(r"Stop now: share of '1' [\d.]+% .*decided after [\d,]+ "
                                    r"labels")).first.wait_for()
        page.get_by_text(re.compile(r"saves [\d,]+ labels")).first.wait_for()
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        page.close()
