"""In a real browser (issue 32): a judge table whose gold column is named ``human_verdict`` is
uploaded, a round is planned on the Evaluate page and its "Queue (CSV)" download is taken, as a
user hands it to annotators. It holds no answer: neither ``human_verdict`` nor any column equal
to gold on its rows (the page's download held ``human_verdict`` on every row; blindness rested on
a deny-list of names). tests/app/test_page_evaluate.py checks the same through Streamlit's
AppTest; this one through the browser, the server and the download."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from tests.e2e.servers import app_nav, streamlit_server
from tests.e2e.test_evaluate_browser import _click, _wait_idle
from tests.e2e.test_pages_browser import judge_frame

pytestmark = pytest.mark.e2e


def test_the_downloaded_queue_holds_no_answer_column(browser, tmp_path):
    table = judge_frame().rename(columns={"reviewer_verdict": "human_verdict"})
    path = tmp_path / "judge_verdicts.csv"
    table.to_csv(path, index=False)
    env = {"HMCEVAL_WORKSPACE": str(tmp_path / "ws")}
    with streamlit_server(tmp_path / "server.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.set_default_timeout(90_000)
        page.goto(url, wait_until="domcontentloaded")
        app_nav(page).locator('a[href$="/data"]').first.click()
        page.locator("h1", has_text="Data").wait_for()
        page.locator('input[type="file"]').first.set_input_files(str(path))
        page.get_by_text("Column mapping · judge_verdicts.csv").wait_for()
        _wait_idle(page)
        # the gold column is detected by its values and name, as a user sees it in the form
        gold = page.get_by_role("combobox", name=re.compile(r"Gold \(human\) label")).first
        assert gold.input_value() == "human_verdict"
        page.get_by_role("button", name="Validate and make active").click()
        page.get_by_text("judge_verdicts.csv is now the active dataset").wait_for()
        _wait_idle(page)
        app_nav(page).locator("a", has_text="Evaluate").click()
        page.get_by_role("heading", name="1 · Plan the round").wait_for()
        _wait_idle(page)
        _click(page, "Plan the round")
        page.get_by_text("Round #1 planned and saved").wait_for()
        _wait_idle(page)
        got = None
        for _ in range(3):  # a click that lands while the page is still redrawing is retried
            try:
                with page.expect_download(timeout=30_000) as download:
                    page.get_by_role("button", name="Queue (CSV)").first.click()
                got = download.value.path()
                break
            except Exception:  # playwright's TimeoutError
                _wait_idle(page)
        assert got is not None, "the queue was not downloaded"
        assert page.locator('[data-testid="stException"]').count() == 0
        queue = pd.read_csv(got, dtype=str, keep_default_na=False)  # before the page takes it away
        page.close()
    # the sample id under its own name (item_key), as the user's table names it
    assert len(queue) > 0 and "item_key" in queue.columns
    assert "human_verdict" not in queue.columns
    # no column carries the answers under another name: joined on the item id, none equals gold
    truth = table.set_index("item_key")["human_verdict"]
    rows = queue["item_key"].map(truth)
    assert rows.notna().all()  # every queued row is a row of the uploaded table
    for col in queue.columns:
        assert not (queue[col] == rows).all(), f"column {col!r} equals gold on every row"
    # the queue carries the id, the rank and nothing of the judged rows' labels or reviews
    assert not {"judge_verdict", "judge_confidence", "review_seconds"} & set(queue.columns)
