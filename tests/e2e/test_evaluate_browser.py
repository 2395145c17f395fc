"""In a real browser: work saved on the Evaluate page survives a server restart, and the HTML
report opens offline with its figures drawn."""

from __future__ import annotations

import pytest

from tests.e2e.servers import app_nav, streamlit_server

pytestmark = pytest.mark.e2e


def _wait_idle(page) -> None:
    page.wait_for_timeout(800)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=120_000)


def _click(page, name: str) -> None:
    page.get_by_role("button", name=name).first.click()
    _wait_idle(page)


def _click_until_shown(page, target, shows, *, tries: int = 4, timeout: int = 15_000) -> None:
    """Click ``target`` (a locator) until ``shows`` (a locator) is visible: a click that lands
    while the page is still redrawing can be lost (seen on a loaded machine)."""
    for _ in range(tries):
        if shows.is_visible():
            return
        target.click()
        try:
            shows.wait_for(state="visible", timeout=timeout)
            return
        except Exception:  # playwright's TimeoutError
            _wait_idle(page)
    shows.wait_for(state="visible")


def _open_expander(page, title: str, button: str) -> None:
    """Open an expander until ``button`` inside it shows."""
    _click_until_shown(page, page.get_by_text(title).first,
                       page.get_by_role("button", name=button).first)


def _open_evaluate(page, url: str) -> None:
    """Open the app and go to the Evaluate page through the sidebar, as a user does."""
    page.goto(url, wait_until="domcontentloaded")
    nav = app_nav(page)
    _wait_idle(page)
    nav.locator("a", has_text="Evaluate").click()
    page.get_by_role("heading", name="1 · Plan the round").wait_for()
    _wait_idle(page)


def test_round_survives_a_server_restart(browser, tmp_path):
    env = {"HMCEVAL_WORKSPACE": str(tmp_path / "ws")}
    with streamlit_server(tmp_path / "first.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.set_default_timeout(90_000)
        _open_evaluate(page, url)
        _click(page, "Plan the round")
        page.get_by_text("Round #1 planned and saved").wait_for()
        _wait_idle(page)
        _open_expander(page, "Simulate the annotators", "Fill labels from gold")
        _click(page, "Fill labels from gold")
        page.get_by_text("Accuracy of the final labels").first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0
        # downloads are built when clicked: the final table arrives whole (a click that lands
        # while the page is still redrawing is retried)
        _wait_idle(page)
        path = None
        for _ in range(3):
            try:
                with page.expect_download(timeout=30_000) as got:
                    page.get_by_role("button", name="Final labelled table (CSV)").click()
                path = got.value.path()
                break
            except Exception:  # playwright's TimeoutError
                _wait_idle(page)
        assert path is not None, "the final table was not downloaded"
        lines = open(path, encoding="utf-8").read().splitlines()
        assert len(lines) == 3558 and lines[0].endswith('"human_label_returned","final_label"')
        page.close()
    # a new server process over the same workspace folder: a new session, nothing lost
    with streamlit_server(tmp_path / "second.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.set_default_timeout(90_000)
        _open_evaluate(page, url)
        page.get_by_text("1,978 of 1,978 labelled").first.wait_for()
        page.get_by_text("Accuracy of the final labels").first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0
        page.close()


def test_report_opens_offline_and_draws_its_figures(browser, tmp_path):
    from core.data import prepare
    from core.demo import make_demo
    from core.workspace import Workspace
    from core.workspace import rounds as R
    from core.workspace.report import round_report_html

    ws = Workspace(tmp_path / "ws")
    rid = R.plan_round(ws, prepare(make_demo(), name="demo"), kind="budget",
                       settings={"lam": 1.0, "share": 0.5, "audit": 200, "seed": 0})
    R.simulate_annotators(ws, rid)
    path = tmp_path / "report.html"
    path.write_text(round_report_html(ws, rid), encoding="utf-8")
    context = browser.new_context(offline=True)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4",
                           timeout=30_000)
    n_plots = page.locator(".js-plotly-plot").count()
    assert n_plots == 4  # progress + one forest plot per class + the accuracy by group
    assert not errors
    assert all(u.startswith("file://") or u.startswith("data:") for u in requests), requests
    assert page.locator("p", has_text="Accuracy of the final labels:").count() == 1
    assert page.locator("h2", has_text="Accuracy of the final labels by group").count() == 1
    context.close()
