"""End to end in a real headless browser: start the app, move a slider, see the metrics change.

Uses Debian's chromium (``/usr/bin/chromium``) driven by Playwright; no browser is downloaded.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.servers import streamlit_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with streamlit_server(log) as url:
        yield url


def _metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]', has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_tradeoff_slider_changes_metrics_in_browser(app_url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    page.goto(app_url + "/trade-off", wait_until="domcontentloaded")
    page.get_by_text("Result at").first.wait_for(timeout=90_000)
    before = _metric(page, "Human ratio")
    acc_before = _metric(page, "Accuracy")
    assert re.fullmatch(r"0\.\d{4}", before)
    # the share slider: click its track at a fifth of its width (retried while the page hydrates)
    page.locator('input[type="range"][aria-label="Human share N / M"]').wait_for(state="visible")
    changed = False
    for _ in range(4):
        box = page.locator('[role="group"][aria-label="Human share N / M"]').bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.2, box["y"] + box["height"] / 2)
        try:
            page.wait_for_function(
                "([label, old]) => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]"
                ".find(e => e.innerText.includes(label)); return m && !m.innerText.includes(old); }",
                arg=["Human ratio", before], timeout=20_000)
            changed = True
            break
        except Exception:  # playwright's TimeoutError: click again
            continue
    assert changed, "moving the slider did not change the human ratio"
    after = _metric(page, "Human ratio")
    assert float(after) < float(before)
    assert _metric(page, "Accuracy") != acc_before
    page.screenshot(path=str(tmp_path / "tradeoff.png"), full_page=True)
    assert not page.locator('[data-testid="stException"]').count()
    page.close()


def test_every_page_renders_without_exception(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    page.goto(app_url, wait_until="domcontentloaded")
    page.locator('[data-testid="stSidebarNav"]').wait_for(timeout=90_000)
    links = page.locator('[data-testid="stSidebarNav"] a')
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert len(hrefs) >= 2
    for href in hrefs:
        page.goto(href if href.startswith("http") else app_url + "/" + href.lstrip("/"),
                  wait_until="domcontentloaded")
        page.locator("h1").first.wait_for(timeout=90_000)
        page.wait_for_timeout(1500)
        page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=120_000)
        assert page.locator('[data-testid="stException"]').count() == 0, href
        # app.py turns an unexpected exception into an st.error naming the page: none may show
        assert page.locator('[data-testid="stAlert"]', has_text="page failed").count() == 0, href
    page.close()


def test_the_app_fetches_nothing_from_outside(app_url, browser):
    """Fonts, icons and the favicon are served by the app itself: every request of the
    browser goes to the app's own address (or is inline data)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url)
            if not (r.url.startswith(app_url) or r.url.startswith(("data:", "blob:"))) else None)
    page.goto(app_url, wait_until="domcontentloaded")
    page.locator('[data-testid="stSidebarNav"]').wait_for()
    links = page.locator('[data-testid="stSidebarNav"] a')
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert len(hrefs) >= 9
    for href in hrefs:
        page.goto(href if href.startswith("http") else app_url + "/" + href.lstrip("/"),
                  wait_until="domcontentloaded")
        page.locator("h1").first.wait_for()
        page.wait_for_timeout(1500)
    assert outside == []
    page.close()
